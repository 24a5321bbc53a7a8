"""The random tile kernels of the lang family 'generated' and of property/targets.py.

Gen(seed).build() -> (source, args, expected outputs, grid): a kernel over one program's
BM x BN block of rows and numpy's float64 evaluation of it (property/targets.py's header says
what the kernels are made of). tolerance(expected) -> (rtol, atol) for a float output.
Needs the standard library and numpy.
"""
import random
import re

import numpy as np

def sigmoid(v):
    with np.errstate(over="ignore"):  # exp(-v) of a large negative v: inf, the value 0
        return 1.0 / (1.0 + np.exp(-v))


HEADER = """import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
"""


class Gen:
    """One random kernel: its source, its arguments and the expected outputs."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.lines = []
        self.n = 0
        self.args = {}
        self.params = []
        r = self.r
        self.dot = r.random() < 0.35
        sizes = [16, 32, 64, 128] if self.dot else [1, 2, 4, 8, 16, 32, 64, 128, 256]
        self.BK = r.choice([16, 32, 64])
        while True:
            self.BM = r.choice(sizes + ([128] if self.dot else []))
            self.BN = r.choice(sizes)
            # at most 8192 elements: three live 128 x 128 fp32 tiles kept in shared memory (64 KiB
            # each) are more than sm_80 has, which tilec refuses (Triton would spill registers)
            if self.BM * self.BN <= 8192:
                break
        # the real extents: sometimes the block's, sometimes ragged (masked rows and columns)
        self.N = self.BN if r.random() < 0.5 else r.randint(1, self.BN)
        self.progs = r.choice([1, 1, 2, 3])
        self.M = self.BM * self.progs if r.random() < 0.5 else r.randint(max(1, self.BM * (self.progs - 1) + 1),
                                                                         self.BM * self.progs)
        self.rows = np.arange(self.BM * self.progs)
        self.rm = (self.rows < self.M)[:, None]
        self.cn = (np.arange(self.BN) < self.N)[None, :]

    # -- helpers ------------------------------------------------------------------------------
    def var(self, code, val, kind, shape):
        name = "v%d" % self.n
        self.n += 1
        self.lines.append("    %s = %s" % (name, code))
        return (name, val, kind, shape)

    def rename(self, first, name):
        """The helper names of lines[first:] made the leaf's own (q -> q_v3): a name reused
        with another shape would be a loop-carried variable changing type."""
        pat = re.compile(r"\b(q|k|s|p|v|m_i|l_i|m_ij|alpha|kk)\b")
        self.lines[first:] = [pat.sub(lambda m: m.group(1) + "_" + name, ln) for ln in self.lines[first:]]

    def param(self, name, arr):
        self.params.append(name)
        self.args[name] = arr

    def blocks(self, a):
        """a of (progs*BM, ...) -> the same; a helper for per-program reductions."""
        return a.reshape(self.progs, self.BM, *a.shape[1:])

    # -- leaves -------------------------------------------------------------------------------
    def load_tile(self, kind):
        r = self.r
        i = len([p for p in self.params if p.startswith("X")])
        pname = "X%d" % i
        if kind == "f":
            dt = r.choice(["fp32", "fp32", "fp16", "bf16"])
            base = self.np.uniform(-2, 2, (self.M, self.N))
            if dt == "fp16":
                arr = base.astype(np.float16)
                val = arr.astype(np.float64)
            elif dt == "bf16":
                bits = (base.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
                arr = (bits, "bf16")
                val = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            else:
                arr = base.astype(np.float32)
                val = arr.astype(np.float64)
            other = r.choice([0.0, 0.0, 1.0, -1.5])
        else:
            dt = r.choice(["int32", "int32", "int8", "int16", "uint8", "int64"])
            arr = self.np.integers(0 if dt == "uint8" else -6, 7, (self.M, self.N)).astype(dt)
            val = arr.astype(np.int64)
            other = r.choice([0, 0, 3, -2]) if dt != "uint8" else r.choice([0, 3])
        self.param(pname, arr)
        full = np.full((self.BM * self.progs, self.BN), other, dtype=np.float64 if kind == "f" else np.int64)
        full[: self.M, : self.N] = val
        code = "tl.load(%s + rows[:, None] * %d + cols[None, :], mask=mask, other=%r)" % (pname, self.N, other)
        if dt not in ("fp32", "int32", "int64"):  # int64 stays: its arithmetic promotes the int32 it meets
            code += ".to(tl.float32)" if kind == "f" else ".to(tl.int32)"
        return self.var(code, full, kind, "T")

    def operand(self, rows, cols, kind):
        """A dot operand of fp16, bf16 or int8 values: (array to pass, float64/int64 values)."""
        if kind == "i8":
            a = self.np.integers(-8, 8, (rows, cols)).astype(np.int8)
            return a, a.astype(np.int64)
        base = self.np.uniform(-1, 1, (rows, cols))
        if kind == "bf16":
            bits = (base.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            return (bits, "bf16"), (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        if kind == "f32":
            a = base.astype(np.float32)
            return a, a.astype(np.float64)
        a = base.astype(np.float16)
        return a, a.astype(np.float64)

    def dot_tile(self):
        """tl.dot of fp16, bf16 or int8 tiles into fp32 (int32): one step or a K loop (the
        pipelined path), B loaded as [K, N] or transposed from [N, K], the accumulator from
        zeros or a loaded tile, `acc += tl.dot(a, b)` or `tl.dot(a, b, acc)`; or a chain of
        two dots (attention's shape), or attention's loop with an online softmax."""
        r = self.r
        c = r.random()
        if c < 0.15:
            return self.chain_tile()
        if c < 0.3:
            return self.flash_tile()
        ek = r.choice(["f16", "f16", "bf16", "i8", "f32"])
        # fp32: Triton's default tf32 on the GPU (within the tolerance at these K), or ieee
        prec = ', input_precision="ieee"' if ek == "f32" and r.random() < 0.5 else ""
        i8 = ek == "i8"
        ksteps = r.choice([1, 2, 3])
        K = self.BK * ksteps
        trans_b = r.random() < 0.3
        ia = len([p for p in self.params if p.startswith("A")])
        an, bn = "A%d" % ia, "B%d" % ia
        rows = self.BM * self.progs
        a, av = self.operand(rows, K, ek)
        b, bv = self.operand(K, self.BN, ek)
        self.param(an, a)
        if trans_b:
            self.param(bn, (np.ascontiguousarray(b[0].T), b[1]) if isinstance(b, tuple) else np.ascontiguousarray(b.T))
        else:
            self.param(bn, b)
        BK, BN = self.BK, self.BN
        # a ragged K (the loop's bound and the K edge's masks at run time), or the operands'
        # strides at run time (nothing proves them contiguous: no 16-byte chunks)
        ragged = r.random() < 0.3
        Kr = r.randint(1, K) if ragged else K
        strided = r.random() < 0.2
        # strided: A stored column-major ([K][rows]), its K stride a run-time value
        ka = "rows[:, None] + kk[None, :] * sa_%s" % an if strided else "rows[:, None] * %d + kk[None, :]" % K
        am = ", mask=kk[None, :] < k_%s, other=0" % an if ragged else ""
        if trans_b:  # B stored [BN][K]: a [BN, BK] tile, transposed
            bm = ", mask=kk[None, :] < k_%s, other=0" % an if ragged else ""
            bload = "tl.trans(tl.load(%s + cols[:, None] * %d + kk[None, :]%s))" % (bn, K, bm)
        else:
            bm = ", mask=kk[:, None] < k_%s, other=0" % an if ragged else ""
            bs = "sb_%s" % an if strided else "%d" % BN
            bload = "tl.load(%s + kk[:, None] * %s + cols[None, :]%s)" % (bn, bs, bm)
        if ragged:
            self.param("k_" + an, Kr)
        if strided:
            self.param("sa_" + an, rows)
            self.args[an] = (np.ascontiguousarray(a[0].T), a[1]) if isinstance(a, tuple) else np.ascontiguousarray(a.T)
            if not trans_b:
                self.param("sb_" + an, BN)
        acc_t = "tl.int32" if i8 else "tl.float32"
        name = "v%d" % self.n
        self.n += 1
        first = len(self.lines)
        val = av[:, :Kr] @ bv[:Kr]
        if r.random() < 0.25 and not i8:  # the accumulator starts from a loaded tile
            init = self.load_tile("f")
            self.lines.append("    %s = %s" % (name, init[0]))
            val = val + init[1]
        else:
            self.lines.append("    %s = tl.zeros((%d, %d), dtype=%s)" % (name, self.BM, BN, acc_t))
        rng = "range" if r.random() < 0.7 else "tl.range"
        st = ", num_stages=%d" % r.choice([1, 2, 4]) if rng == "tl.range" and r.random() < 0.7 else ""
        self.lines.append("    for k0 in %s(0, %s, %d%s):" % (rng, "k_" + an if ragged else K, BK, st))
        self.lines.append("        kk = k0 + tl.arange(0, %d)" % BK)
        self.lines.append("        a_%s = tl.load(%s + %s%s)" % (name, an, ka, am))
        self.lines.append("        b_%s = %s" % (name, bload))
        if r.random() < 0.5:
            self.lines.append("        %s += tl.dot(a_%s, b_%s%s)" % (name, name, name, prec))
        else:
            self.lines.append("        %s = tl.dot(a_%s, b_%s, %s%s)" % (name, name, name, name, prec))
        self.rename(first, name)
        return (name, val, "i" if i8 else "f", "T")

    def chain_tile(self):
        """s = q @ k (BM x BK), p = exp(s - rowmax) as fp16, o = p @ v (BM x BN)."""
        rows, BK, BN = self.BM * self.progs, self.BK, self.BN
        D = self.r.choice([16, 32, 64])
        i = len([p for p in self.params if p.startswith("Q")])
        q, qv = self.operand(rows, D, "f16")
        k, kv = self.operand(D, BK, "f16")
        v, vv = self.operand(BK, BN, "f16")
        first = len(self.lines)
        self.param("Q%d" % i, q)
        self.param("K%d" % i, k)
        self.param("V%d" % i, v)
        dd = "tl.arange(0, %d)" % D
        kk = "tl.arange(0, %d)" % BK
        self.lines.append("    q = tl.load(Q%d + rows[:, None] * %d + %s[None, :])" % (i, D, dd))
        self.lines.append("    k = tl.load(K%d + %s[:, None] * %d + %s[None, :])" % (i, dd, BK, kk))
        self.lines.append("    s = tl.dot(q, k)")
        self.lines.append("    p = tl.exp(s - tl.max(s, axis=1)[:, None])")
        self.lines.append("    v = tl.load(V%d + %s[:, None] * %d + cols[None, :])" % (i, kk, BN))
        name = "v%d" % self.n
        self.n += 1
        self.lines.append("    %s = tl.dot(p.to(tl.float16), v)" % name)
        self.rename(first, name)
        s = qv @ kv
        p = np.exp(s - s.max(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
        return (name, p @ vv, "f", "T")

    def flash_tile(self):
        """Attention's loop: blocks of BK keys, an online softmax, o = sum p @ v / l."""
        rows, BK, BN = self.BM * self.progs, self.BK, self.BN
        D = self.r.choice([16, 32, 64])
        L = BK * self.r.choice([1, 2, 3])
        i = len([p for p in self.params if p.startswith("Q")])
        q, qv = self.operand(rows, D, "f16")
        k, kv = self.operand(L, D, "f16")  # keys as rows: s = q @ k^T
        v, vv = self.operand(L, BN, "f16")
        self.param("Q%d" % i, q)
        self.param("K%d" % i, k)
        self.param("V%d" % i, v)
        dd = "tl.arange(0, %d)" % D
        name = "v%d" % self.n
        self.n += 1
        first = len(self.lines)
        self.lines += [
            "    q = tl.load(Q%d + rows[:, None] * %d + %s[None, :])" % (i, D, dd),
            "    m_i = tl.full((%d,), float('-inf'), tl.float32)" % self.BM,
            "    l_i = tl.zeros((%d,), tl.float32)" % self.BM,
            "    %s = tl.zeros((%d, %d), tl.float32)" % (name, self.BM, BN),
            "    for j in range(0, %d, %d):" % (L, BK),
            "        kk = j + tl.arange(0, %d)" % BK,
            "        k = tl.load(K%d + kk[:, None] * %d + %s[None, :])" % (i, D, dd),
            "        s = tl.dot(q, tl.trans(k)) * 0.5",
            "        m_ij = tl.maximum(m_i, tl.max(s, 1))",
            "        p = tl.exp(s - m_ij[:, None])",
            "        alpha = tl.exp(m_i - m_ij)",
            "        l_i = l_i * alpha + tl.sum(p, 1)",
            "        %s = %s * alpha[:, None]" % (name, name),
            "        v = tl.load(V%d + kk[:, None] * %d + cols[None, :])" % (i, BN),
            "        %s = tl.dot(p.to(tl.float16), v, %s)" % (name, name),
            "        m_i = m_ij",
            "    %s = %s / l_i[:, None]" % (name, name)]
        self.rename(first, name)
        # the same online softmax, p rounded to fp16 against each step's running max
        m = np.full(rows, -np.inf)
        l = np.zeros(rows)
        acc = np.zeros((rows, BN))
        for j in range(0, L, BK):
            s = (qv @ kv[j:j + BK].T) * 0.5
            mij = np.maximum(m, s.max(axis=1))
            p = np.exp(s - mij[:, None])
            alpha = np.exp(m - mij)
            l = l * alpha + p.sum(axis=1)
            acc = acc * alpha[:, None] + p.astype(np.float16).astype(np.float64) @ vv[j:j + BK]
            m = mij
        return (name, acc / l[:, None], "f", "T")

    # -- expressions --------------------------------------------------------------------------
    def tile(self, kind, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            if self.dot and r.random() < 0.5:
                d = self.dot_tile()
                if d[2] == kind:
                    return d
                if kind == "f":  # an int8 dot's exact int32 as float; not an inexact float as int
                    return self.cast(d, kind)
            return self.load_tile(kind)
        c = r.random()
        if c < 0.24:
            return self.binary(self.tile(kind, depth - 1), self.tile(kind, depth - 1), kind)
        if c < 0.36:
            return self.unary(self.tile(kind, depth - 1))
        if c < 0.48:  # a broadcast row or column vector
            t = self.tile(kind, depth - 1)
            v = self.vector(kind, depth - 1, r.choice("RC"))
            return self.binary(t, self.spread(v), kind)
        if c < 0.54:
            t = self.tile(kind, depth - 1)
            return self.var("tl.cumsum(%s, axis=%d)" % (t[0], 1), np.cumsum(t[1], axis=1), kind, "T")
        if c < 0.59:
            t = self.tile(kind, depth - 1)
            vals = self.blocks(t[1])
            out = np.concatenate([np.cumsum(b, axis=0) for b in vals])
            return self.var("tl.cumsum(%s, axis=0)" % t[0], out, kind, "T")
        if c < 0.64 and self.BM == self.BN:
            t = self.tile(kind, depth - 1)
            out = np.concatenate([b.T for b in self.blocks(t[1])])
            return self.var("tl.trans(%s)" % t[0], out, kind, "T")
        if c < 0.69:  # reshape to (BN, BM) and transpose back: a reordering of the elements
            t = self.tile(kind, depth - 1)
            out = np.concatenate([b.reshape(self.BN, self.BM).T for b in self.blocks(t[1])])
            return self.var("tl.trans(tl.reshape(%s, (%d, %d)))" % (t[0], self.BN, self.BM), out, kind, "T")
        if c < 0.75:  # where on an index condition
            a, b = self.tile(kind, depth - 1), self.tile(kind, depth - 1)
            lim = r.randint(0, self.BN)
            cond = np.broadcast_to(np.arange(self.BN)[None, :] < lim, a[1].shape)
            return self.var("tl.where(cols[None, :] < %d, %s, %s)" % (lim, a[0], b[0]), np.where(cond, a[1], b[1]),
                            kind, "T")
        if c < 0.76:
            v = self.vector(kind, depth - 1, "R")
            w = self.vector(kind, depth - 1, "C")
            return self.binary(self.spread(v), self.spread(w), kind)
        c = r.random()
        if c < 0.07:  # a while loop carrying a tile and a counter
            t, u = self.tile(kind, depth - 1), self.tile(kind, depth - 1)
            n = r.randint(0, 3)
            name = "v%d" % self.n
            self.n += 1
            self.lines += ["    %s = %s" % (name, t[0]), "    i_%s = 0" % name, "    while i_%s < %d:" % (name, n)]
            val = t[1]
            if kind == "f":
                self.lines.append("        %s = tl.maximum(%s, %s) * 0.5" % (name, name, u[0]))
                for _ in range(n):
                    val = np.maximum(val, u[1]) * 0.5
            else:
                self.lines.append("        %s = (%s - (%s >> 2)).to(%s.dtype)" % (name, name, u[0], name))
                for _ in range(n):
                    val = val - (u[1] >> 2)
            self.lines.append("        i_%s += 1" % name)
            return (name, val, kind, "T")
        if c < 0.14:  # a loop carrying a tile
            t, u = self.tile(kind, depth - 1), self.tile(kind, depth - 1)
            n = r.randint(1, 3)
            name = "v%d" % self.n
            self.n += 1
            self.lines.append("    %s = %s" % (name, t[0]))
            self.lines.append("    for i in range(%d):" % n)
            val = t[1]
            if kind == "f":
                self.lines.append("        %s = %s * 0.5 + %s" % (name, name, u[0]))
                for _ in range(n):
                    val = val * 0.5 + u[1]
            else:
                self.lines.append("        %s = ((%s >> 1) + %s).to(%s.dtype)" % (name, name, u[0], name))
                for _ in range(n):
                    val = (val >> 1) + u[1]
            return (name, val, kind, "T")
        if c < 0.3 and self.BN % 2 == 0:  # pairs of columns summed in 3-D, then joined back
            t = self.tile(kind, depth - 1)
            pair = t[1].reshape(-1, self.BN // 2, 2).sum(axis=2)
            v = self.var("tl.sum(tl.reshape(%s, (%d, %d, 2)), axis=2)" % (t[0], self.BM, self.BN // 2), pair, kind, "H")
            return self.var("tl.reshape(tl.join(%s, %s), (%d, %d))" % (v[0], v[0], self.BM, self.BN),
                            np.repeat(pair, 2, axis=1), kind, "T")
        if c < 0.37 and self.BN % 2 == 0:  # the middle axis of a 3-D view reduced, then joined back
            t = self.tile(kind, depth - 1)
            h = self.BN // 2
            mx = t[1].reshape(-1, 2, h).max(axis=1)
            v = self.var("tl.max(tl.reshape(%s, (%d, 2, %d)), axis=1)" % (t[0], self.BM, h), mx, kind, "H")
            j = np.stack([mx, mx], axis=2).reshape(-1, self.BN)
            return self.var("tl.reshape(tl.join(%s, %s), (%d, %d))" % (v[0], v[0], self.BM, self.BN), j, kind, "T")
        if c < 0.44:  # a gather along the columns
            t = self.tile(kind, depth - 1)
            k = r.choice([1, 3, 5, 7])
            idx = (np.arange(self.BN)[None, :] * k + np.arange(self.BM)[:, None]) % self.BN
            val = np.concatenate([np.take_along_axis(b, idx, axis=1) for b in self.blocks(t[1])])
            return self.var("tl.gather(%s, (cols[None, :] * %d + tl.arange(0, BM)[:, None]) %% BN, 1)" % (t[0], k),
                            val, kind, "T")
        if c < 0.56:  # one tile or another by the program's parity (an scf.if yielding tiles)
            a, b = self.tile(kind, depth - 1), self.tile(kind, depth - 1)
            name = "v%d" % self.n
            self.n += 1
            cv = ".to(tl.int32)" if kind == "i" else ""  # one type from both branches (int64 loads)
            self.lines += ["    if tl.program_id(0) % 2 == 0:", "        %s = (%s)%s" % (name, a[0], cv), "    else:",
                           "        %s = (%s)%s" % (name, b[0], cv)]
            even = (np.arange(self.BM * self.progs) // self.BM % 2 == 0)[:, None]
            return (name, np.where(even, a[1], b[1]), kind, "T")
        if c < 0.7:  # a scan with a combine function, or cumsum from the end
            t = self.tile(kind, depth - 1)
            axis = r.choice([0, 1])
            rev = r.random() < 0.5
            blocks = self.blocks(t[1])
            if rev:
                val = np.concatenate([np.flip(np.cumsum(np.flip(b, axis), axis=axis), axis) for b in blocks])
                return self.var("tl.cumsum(%s, axis=%d, reverse=True)" % (t[0], axis), val, kind, "T")
            val = np.concatenate([np.maximum.accumulate(b, axis=axis) for b in blocks])
            return self.var("tl.associative_scan(%s, %d, _max)" % (t[0], axis), val, kind, "T")
        if c < 0.76:  # flip along the columns
            t = self.tile(kind, depth - 1)
            return self.var("tl.flip(%s, 1)" % t[0], t[1][:, ::-1], kind, "T")
        if c < 0.84:  # sort a loaded tile's rows
            t = self.load_tile(kind)
            desc = r.random() < 0.5
            val = np.sort(t[1], axis=1)
            return self.var("tl.sort(%s, 1, descending=%s)" % (t[0], desc), val[:, ::-1] if desc else val, kind, "T")
        # a whole-tile reduction (one scalar a program), broadcast
        t, u = self.tile(kind, depth - 1), self.tile(kind, depth - 1)
        op = r.choice(["sum", "max", "min"])
        f = {"sum": np.sum, "max": np.max, "min": np.min}[op]
        per = np.repeat(np.array([f(b) for b in self.blocks(u[1])]), self.BM)[:, None]
        return self.binary(t, ("tl.%s(%s)" % (op, u[0]), np.broadcast_to(per, t[1].shape), kind, "T"), kind)

    def vector(self, kind, depth, shape):
        """A row vector (R: one value a row, BM) or column vector (C: one a column, BN)."""
        r = self.r
        if kind == "i" and r.random() < 0.3:  # argmax / argmin of loaded values (exact: no near-ties)
            t = self.load_tile("f")
            op = r.choice(["argmax", "argmin"])
            return self.reduce(t, op, shape)
        t = self.tile(kind, depth)
        op = r.choice(["sum", "max", "min", "sum", "max", "min", "_add", "_max"])
        v = self.reduce(t, op, shape)
        c = r.random()
        if c < 0.1 and depth > 0:  # two vectors of one shape combined (a 1-D tile op)
            w = self.vector(kind, depth - 1, shape)
            f = {"f": (np.maximum, "tl.maximum"), "i": (np.minimum, "tl.minimum")}[kind]
            return self.var("%s(%s, %s)" % (f[1], v[0], w[0]), f[0](v[1], w[1]), kind, shape)
        if c < 0.18:  # a 1-D scan or flip of the vector (per program)
            if shape == "R":
                blocks = v[1].reshape(self.progs, self.BM)
                if r.random() < 0.5:
                    return self.var("tl.cumsum(%s, 0)" % v[0], np.cumsum(blocks, axis=1).reshape(-1), kind, shape)
                return self.var("tl.flip(%s, 0)" % v[0], blocks[:, ::-1].reshape(-1), kind, shape)
            if r.random() < 0.5:
                return self.var("tl.cumsum(%s, 0)" % v[0], np.cumsum(v[1], axis=1), kind, shape)
            return self.var("tl.flip(%s, 0)" % v[0], v[1][:, ::-1], kind, shape)
        return v

    def reduce(self, t, op, shape):
        axis = 1 if shape == "R" else 0
        f = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin, "_add": np.sum,
             "_max": np.max}[op]
        if axis == 1:
            val = f(t[1], axis=1)
        else:
            val = np.stack([f(b, axis=0) for b in self.blocks(t[1])])  # per program: (progs, BN)
        kind = "i" if op.startswith("arg") else t[2]
        if op.startswith("_"):  # tl.reduce with a combine function of the kernel's file
            return self.var("tl.reduce(%s, %d, %s)" % (t[0], axis, op), val, kind, shape)
        return self.var("tl.%s(%s, axis=%d)" % (op, t[0], axis), val, kind, shape)

    def spread(self, v):
        """A row vector as [:, None] or a column vector (one per program) as [None, :]: the
        tile it broadcasts to."""
        r = self.r.random()
        if v[3] == "R":
            code = (v[0] + "[:, None]" if r < 0.6 else "tl.expand_dims(%s, 1)" % v[0] if r < 0.8 else
                    "tl.broadcast_to(%s[:, None], (BM, BN))" % v[0])
            return (code, np.broadcast_to(v[1][:, None], (len(v[1]), self.BN)), v[2], "T")
        code = (v[0] + "[None, :]" if r < 0.6 else "tl.expand_dims(%s, 0)" % v[0] if r < 0.8 else
                "tl.broadcast_to(%s[None, :], (BM, BN))" % v[0])
        return (code, np.repeat(v[1], self.BM, axis=0), v[2], "T")

    def binary(self, a, b, kind):
        r = self.r
        av, bv = a[1], b[1]
        av, bv = np.broadcast_arrays(av, bv)
        if kind == "f":
            op = r.choice(["+", "-", "*", "max", "min", "div"])
            if op == "max":
                return self.var("tl.maximum(%s, %s)" % (a[0], b[0]), np.maximum(av, bv), kind, "T")
            if op == "min":
                return self.var("tl.minimum(%s, %s)" % (a[0], b[0]), np.minimum(av, bv), kind, "T")
            if op == "div":
                return self.var("%s / (1.0 + tl.abs(%s))" % (a[0], b[0]), av / (1.0 + np.abs(bv)), kind, "T")
            if op == "*":  # keep magnitudes bounded
                return self.var("%s * (%s * 0.25)" % (a[0], b[0]), av * (bv * 0.25), kind, "T")
            return self.var("%s %s %s" % (a[0], op, b[0]), av + bv if op == "+" else av - bv, kind, "T")
        op = r.choice(["+", "-", "*", "max", "min", "^", "&"])
        if op == "max":
            return self.var("tl.maximum(%s, %s)" % (a[0], b[0]), np.maximum(av, bv), kind, "T")
        if op == "min":
            return self.var("tl.minimum(%s, %s)" % (a[0], b[0]), np.minimum(av, bv), kind, "T")
        if op == "*":  # bounded: (b % 5)
            return self.var("%s * (%s %% 5)" % (a[0], b[0]), av * np.fmod(bv, 5), kind, "T")
        f = {"+": np.add, "-": np.subtract, "^": np.bitwise_xor, "&": np.bitwise_and}[op]
        return self.var("%s %s %s" % (a[0], op, b[0]), f(av, bv), kind, "T")

    def unary(self, t):
        r = self.r
        v = t[1]
        if t[2] == "f":
            op = r.choice(["abs", "neg", "exp", "sig", "sqrt"])
            code, val = {
                "abs": ("tl.abs(%s)", np.abs(v)),
                "neg": ("-%s", -v),
                "exp": ("tl.exp(-tl.abs(%s))", np.exp(-np.abs(v))),
                "sig": ("tl.sigmoid(%s)", sigmoid(v)),
                "sqrt": ("tl.sqrt(tl.abs(%s))", np.sqrt(np.abs(v))),
            }[op]
            return self.var(code % t[0], val, "f", "T")
        op = r.choice(["neg", "abs", "shr"])
        code, val = {"neg": ("-%s", -v), "abs": ("tl.abs(%s)", np.abs(v)), "shr": ("%s >> 1", v >> 1)}[op]
        return self.var(code % t[0], val, "i", "T")

    def cast(self, t, kind):  # an int tile as fp32
        v = t[1]
        return self.var("%s.to(tl.float32) * 0.015625" % t[0], v.astype(np.float64) * 0.015625, "f", "T")

    # -- the kernel ---------------------------------------------------------------------------
    def build(self):
        r = self.r
        kind = "f" if r.random() < 0.75 else "i"
        t = self.tile(kind, r.choice([1, 2, 3, 3, 4]))
        tv = t[1]
        outs = {}
        odt = np.float32 if kind == "f" else np.int32
        self.param("OUT", np.zeros((self.M, self.N), odt))
        outs["OUT"] = tv[: self.M, : self.N]
        store = ["    tl.store(OUT + rows[:, None] * %d + cols[None, :], %s, mask=mask)" % (self.N, t[0])]
        if r.random() < 0.5:  # a row vector too
            v = self.vector(r.choice("fi"), r.choice([0, 1, 2]), "R")
            vdt = np.float32 if v[2] == "f" else np.int32
            self.param("ROW", np.zeros(self.M, vdt))
            outs["ROW"] = v[1][: self.M]
            store.append("    tl.store(ROW + rows, %s, mask=rows < M)" % v[0])
        if r.random() < 0.25:  # every program's column reductions into one vector, atomically
            u = self.tile(kind, r.choice([0, 1, 2]))
            if kind == "f":
                self.param("ATOM", np.zeros(self.N, np.float32))
                outs["ATOM"] = u[1].sum(axis=0)[: self.N]
                store.append("    tl.atomic_add(ATOM + cols, tl.sum(%s, axis=0), mask=cols < N)" % u[0])
            else:
                self.param("ATOM", np.full(self.N, -1000, np.int32))
                outs["ATOM"] = np.maximum(u[1].max(axis=0)[: self.N], -1000)
                store.append("    tl.atomic_max(ATOM + cols, tl.max(%s, axis=0), mask=cols < N)" % u[0])
        head = ["def kernel(%s, M, N, BM: tl.constexpr, BN: tl.constexpr):" % ", ".join(self.params),
                "    rows = tl.program_id(0) * BM + tl.arange(0, BM)",
                "    cols = tl.arange(0, BN)",
                "    mask = (rows[:, None] < M) & (cols[None, :] < N)"]
        src = HEADER + "\n".join(head + self.lines + store) + "\n"
        args = dict(self.args)
        args.update(M=self.M, N=self.N, BM=self.BM, BN=self.BN)
        return src, args, outs, (self.progs,)


def tolerance(val, kind):
    """(rtol, atol) of an output: integers exact; floats within 5e-3 of max(1, |max|) (fp16
    rounding of a dot's operands, approximate GPU math, summation orders)."""
    if kind != "f":
        return 0.0, 0.0
    scale = max(1.0, float(np.max(np.abs(val))) if val.size else 1.0)
    return 5e-3, 5e-3 * scale
