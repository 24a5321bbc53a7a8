#!/usr/bin/env python3
"""Property test: results of lane-moving ops used as addresses and values, any number of times.

Each case is a kernel generated from a seed: a random program over one tile shape (1-D [N] or
2-D [R, C]) whose values come from loads of the inputs and are combined by tl.sort (ascending,
descending, on a computed uint32 key as in Liger-Kernel's fused_moe), tl.cumsum / tl.cumprod /
tl.associative_scan (forward and reverse), tl.flip, tl.gather, tl.reshape / tl.ravel round
trips, tl.trans / tl.permute / .T, reductions broadcast back, elementwise arithmetic and loads
through any of them (`tl.load(tab + (v & (N - 1)))`, masked or not). Every value is a variable
of its own that later steps may read again, so a lane-moved tile or a load through one is used
once or several times, in addresses (loads, and stores through permutations) and in values.
The kernel runs with `tilec run` on two programs and each output is compared with the same
program evaluated in numpy (integers exactly, floats within 1e-4). A compiler crash, an
internal error or any message naming an internal op ('tile.*') fails the case.

    usage: lane_moves.py TILEC [--count N] [--seed S] [-j J] [--keep DIR] [-v]

ctest (lang.lane_moves, label lang, also under ASan in scripts/test.sh) runs a fixed sample:
--count 40 --seed 1. A larger run from the command line, e.g. 2000 kernels:

    /usr/bin/python3 tests/lang/property/lane_moves.py build/tilec --count 2000 --seed 7 -j 2

A failure prints the case's seed; `--seed S --count 1 --keep DIR` writes that kernel and its
inputs to DIR (kernel.py, *.npy, and the `tilec run` command in cmd.txt) to reproduce it.
Needs the standard library and numpy (/usr/bin/python3).
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np

PROGRAMS = 2  # grid: each program reads and writes its own block (tables are shared)

HEADER = '''import triton
import triton.language as tl


@triton.jit
def _max_fn(a, b):
    return tl.maximum(a, b)


@triton.jit
def _xor_fn(a, b):
    return a ^ b


'''


class Node:
    """A tile of the generated program: its variable, numpy value per program (list) and
    kind ('i' int32, 'f' fp32); perm: every program's value is a permutation of
    0..numel-1 (usable as a store address without two lanes writing one element)."""

    def __init__(self, var, vals, kind, perm=False, moved=False):
        self.var = var
        self.vals = vals
        self.kind = kind
        self.perm = perm
        self.moved = moved  # a lane-moving op's result, or computed from one


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.np = np.random.default_rng(seed)
        r = self.r
        self.rank = r.choice([1, 1, 2])
        if self.rank == 1:
            self.shape = (r.choice([8, 16, 32, 64, 128]),)
        else:
            self.shape = (16, 16) if r.random() < 0.25 else (r.choice([2, 4, 8, 16]), r.choice([4, 8, 16, 32]))
        self.numel = int(np.prod(self.shape))
        self.lines = []
        self.nodes = []
        self.args = {}      # parameter name -> numpy array (inputs and outputs)
        self.outs = []      # output parameter names
        self.expect = {}    # output name -> expected array
        self.nvars = 0
        self.ftol = False   # a float scan (order of additions) reaches an output
        self.moved_loads = []  # loads through a lane-moved index (the shape)

    # ---- helpers ---------------------------------------------------------------------
    def var(self):
        self.nvars += 1
        return "v%d" % self.nvars

    def emit(self, line):
        self.lines.append("    " + line)

    def add(self, expr, vals, kind, perm=False, moved=True):
        v = self.var()
        self.emit("%s = %s" % (v, expr))
        n = Node(v, vals, kind, perm, moved)
        self.nodes.append(n)
        return n

    def pick(self, kind=None, perm=None, moved=None):
        c = [n for n in self.nodes if (kind is None or n.kind == kind) and (perm is None or n.perm == perm)]
        if moved and self.r.random() < moved:  # prefer lane-moved tiles with this probability
            c = [n for n in c if n.moved] or c
        if not c:
            return None
        # later values more often: chains grow deep, earlier values are read again
        w = [1 + i for i in range(len(c))]
        return self.r.choices(c, weights=w)[0]

    def each(self, f, *nodes):
        return [f(*[n.vals[p] for n in nodes]) for p in range(PROGRAMS)]

    def table(self, name, arr):
        self.args[name] = arr
        return name

    # ---- leaves ----------------------------------------------------------------------
    def leaves(self):
        n, shape = self.numel, self.shape
        if self.rank == 1:
            self.emit("offs = tl.arange(0, %d)" % n)
        else:
            self.emit("offs = tl.arange(0, %d)[:, None] * %d + tl.arange(0, %d)[None, :]" % (shape[0], shape[1], shape[1]))
        self.emit("base = tl.program_id(0) * %d" % n)
        ar = np.arange(n, dtype=np.int32).reshape(shape)
        self.nodes.append(Node("offs", [ar] * PROGRAMS, "i", True))
        x = self.np.integers(-60, 60, PROGRAMS * n).astype(np.int32)
        y = self.np.integers(0, 8, PROGRAMS * n).astype(np.int32)
        p = np.concatenate([self.np.permutation(n) for _ in range(PROGRAMS)]).astype(np.int32)
        f = self.np.uniform(-2, 2, PROGRAMS * n).astype(np.float32)
        for name, arr, kind, perm in (("x_ptr", x, "i", False), ("y_ptr", y, "i", False), ("p_ptr", p, "i", True),
                                      ("f_ptr", f, "f", False)):
            if name != "x_ptr" and self.r.random() < 0.3:
                continue
            self.table(name, arr)
            self.add("tl.load(%s + base + offs)" % name, [arr[q * n:(q + 1) * n].reshape(shape) for q in range(PROGRAMS)],
                     kind, perm, False)
        # x_ptr and a scratch array s_ptr may be written and read again: their contents now
        self.mem = {"x_ptr": [x[q * n:(q + 1) * n].copy() for q in range(PROGRAMS)],
                    "s_ptr": [np.full(n, -7, np.int32) for _ in range(PROGRAMS)]}
        self.written = []
        # shared tables read through computed indices
        self.table("it_ptr", self.np.integers(-100, 100, n).astype(np.int32))
        self.table("ft_ptr", self.np.uniform(-4, 4, n).astype(np.float32))
        self.table("pt_ptr", self.np.permutation(n).astype(np.int32))

    # ---- steps -----------------------------------------------------------------------
    def axis(self):
        return self.r.randrange(self.rank)

    def step(self):
        r = self.r
        ops = [self.ew, self.ew, self.load_through, self.load_through, self.load_through, self.sort, self.scan, self.flip, self.gather,
               self.zero_index, self.reduce_back, self.moe_key, self.load_perm]
        ops += [self.via_2d] if self.rank == 1 else [self.trans, self.flat, self.dot]
        ops += [self.write, self.reload, self.loop]
        for _ in range(10):
            if r.choice(ops)():
                return

    def ew(self):
        r = self.r
        if r.random() < 0.3 and self.pick("f"):
            a, b = self.pick("f"), self.pick("f")
            form = r.choice(["(%s * 2.0 + %s)", "(%s - %s)", "tl.maximum(%s, %s)"])
            fn = {"(%s * 2.0 + %s)": lambda x, y: x * np.float32(2) + y, "(%s - %s)": lambda x, y: x - y,
                  "tl.maximum(%s, %s)": np.maximum}[form]
            self.add(form % (a.var, b.var), self.each(fn, a, b), "f", moved=a.moved or b.moved)
            return True
        a, b = self.pick("i"), self.pick("i")
        if r.random() < 0.15:
            self.add("(%s.to(tl.float32) * 0.5 + %s)" % (a.var, b.var),
                     self.each(lambda x, y: x.astype(np.float32) * np.float32(0.5) + y.astype(np.float32), a, b), "f",
                     moved=a.moved or b.moved)
            return True
        forms = [("(%s + %s)", lambda x, y: x + y), ("(%s * 3 - %s)", lambda x, y: x * 3 - y),
                 ("tl.where(%s > %s, %s, 3)", lambda x, y: np.where(x > y, x, np.int32(3))),
                 ("(%s ^ %s)", lambda x, y: x ^ y), ("((%s & 15) + %s)", lambda x, y: (x & 15) + y)]
        form, fn = r.choice(forms)
        self.add(form % ((a.var, b.var, a.var) if form.count("%s") == 3 else (a.var, b.var)), self.each(fn, a, b), "i", moved=a.moved or b.moved)
        return True

    def index(self, a):
        """An in-range index expression from any int tile, and its numpy value."""
        m = self.numel - 1
        return "(%s & %d)" % (a.var, m), [v & m for v in a.vals]

    def load_through(self):
        r = self.r
        a = self.pick("i", moved=0.8)
        ix, iv = self.index(a)
        kind = r.choice("if")
        tab = "it_ptr" if kind == "i" else "ft_ptr"
        t = self.args[tab]
        if r.random() < 0.3:
            mk = self.pick("i")
            other = "-1" if kind == "i" else "0.5"
            expr = "tl.load(%s + %s, mask=(%s & 1) == 0, other=%s)" % (tab, ix, mk.var, other)
            dt = t.dtype.type
            vals = [np.where((m & 1) == 0, t[i], dt(-1 if kind == "i" else 0.5)) for i, m in zip(iv, mk.vals)]
        else:
            expr = "tl.load(%s + %s)" % (tab, ix)
            vals = [t[i] for i in iv]
        node = self.add(expr, vals, kind, moved=a.moved)
        if a.moved:
            self.moved_loads.append(node)
        return True

    def load_perm(self):
        a = self.pick("i", perm=True, moved=0.8)
        if a is None:
            return False
        t = self.args["pt_ptr"]
        node = self.add("tl.load(pt_ptr + %s)" % a.var, [t[v] for v in a.vals], "i", True, a.moved)
        if a.moved:
            self.moved_loads.append(node)
        return True

    def sort(self):
        r = self.r
        a = self.pick()
        desc = r.random() < 0.4
        ax = self.rank - 1  # tl.sort sorts along the last dimension
        spell = r.choice(["tl.sort(%s, %d%s)", "tl.sort(%s, dim=%d%s)"])
        expr = spell % (a.var, ax, ", descending=True" if desc else "")
        if r.random() < 0.2 and not desc:
            expr = "tl.sort(%s)" % a.var
        fn = (lambda v: np.flip(np.sort(v, axis=-1), axis=-1)) if desc else (lambda v: np.sort(v, axis=-1))
        self.add(expr, self.each(fn, a), a.kind, a.perm)
        return True

    def scan(self):
        r = self.r
        a = self.pick()
        ax = self.axis()
        rev = r.random() < 0.3
        rv = ", reverse=True" if rev else ""

        def along(f):
            def g(v):
                w = np.flip(v, ax) if rev else v
                out = f(w)
                return np.flip(out, ax) if rev else out
            return g

        if a.kind == "f":
            self.ftol = True
            self.add("tl.cumsum(%s, %d%s)" % (a.var, ax, rv), self.each(along(lambda v: np.cumsum(v, ax, dtype=np.float32)), a),
                     "f")
            return True
        k = r.randrange(4)
        if k == 0:
            self.add("tl.cumsum(%s, axis=%d%s)" % (a.var, ax, rv),
                     self.each(along(lambda v: np.cumsum(v, ax, dtype=np.int32)), a), "i")
        elif k == 1:
            self.add("tl.cumprod((%s & 1) + 1, %d%s)" % (a.var, ax, rv),
                     self.each(along(lambda v: np.cumprod((v & 1) + 1, ax, dtype=np.int32)), a), "i")
        elif k == 2:
            self.add("tl.associative_scan(%s, %d, _max_fn%s)" % (a.var, ax, rv),
                     self.each(along(lambda v: np.maximum.accumulate(v, ax)), a), "i")
        else:
            self.add("tl.associative_scan(%s, axis=%d, combine_fn=_xor_fn%s)" % (a.var, ax, rv),
                     self.each(along(lambda v: np.bitwise_xor.accumulate(v, ax)), a), "i")
        return True

    def flip(self):
        a = self.pick()
        ax = self.axis()
        expr = "tl.flip(%s, %d)" % (a.var, ax) if self.rank == 2 or self.r.random() < 0.5 else "tl.flip(%s)" % a.var
        if self.rank == 2 and self.r.random() < 0.3:
            expr, ax = "tl.flip(%s)" % a.var, 1  # the last dim by default
        self.add(expr, self.each(lambda v: np.flip(v, ax), a), a.kind, a.perm)
        return True

    def gather(self):
        src, ix = self.pick(), self.pick("i")
        ax = self.axis()
        m = self.shape[ax] - 1
        expr = "tl.gather(%s, %s & %d, %d)" % (src.var, ix.var, m, ax)
        perm = src.perm and ix.perm and self.rank == 1
        if perm:  # a permutation of a permutation: still one
            expr = "tl.gather(%s, %s, 0)" % (src.var, ix.var)
            vals = self.each(lambda s, i: s[i], src, ix)
        else:
            vals = self.each(lambda s, i: np.take_along_axis(s, (i & m).astype(np.int64), ax), src, ix)
        self.add(expr, vals, src.kind, perm)
        return True

    def zero_index(self):
        """The issue's crash: a lane-moved tile entering an address only as `s * 0`."""
        a = self.pick("i")
        if not self.r.random() < 0.5:
            return False
        self.add("offs + %s * 0" % a.var, self.each(lambda v: np.arange(self.numel, dtype=np.int32).reshape(self.shape) + v * 0, a),
                 "i", True, a.moved)
        return True

    def reduce_back(self):
        r = self.r
        a = self.pick()
        ax = self.axis()
        red, fn = r.choice([("tl.max", np.max), ("tl.sum", np.sum), ("tl.min", np.min)])
        if a.kind == "f" and red == "tl.sum":
            self.ftol = True
        if self.rank == 1:
            e = "%s(%s, 0)" % (red, a.var)
            vals = self.each(lambda v: v + fn(v).astype(v.dtype), a)
        else:
            e = "%s(%s, %d)%s" % (red, a.var, ax, "[None, :]" if ax == 0 else "[:, None]")
            vals = self.each(lambda v: v + fn(v, ax, keepdims=True).astype(v.dtype), a)
        self.add("%s + %s" % (a.var, e), vals, a.kind)
        return True

    def moe_key(self):
        """Liger-Kernel's fused_moe: sort a uint32 key (expert << 16 | position), then read
        the position (a permutation) and the expert back out of it."""
        a = self.pick("i")
        ax = self.rank - 1
        kv = self.var()
        self.emit("%s = tl.sort(((%s & 7) << 16 | offs).to(tl.uint32), %d)" % (kv, a.var, ax))
        ar = np.arange(self.numel, dtype=np.int32).reshape(self.shape)
        keys = self.each(lambda v: np.sort((((v & 7) << 16) | ar).astype(np.uint32), axis=-1), a)
        self.add("(%s & 0xFFFF).to(tl.int32)" % kv, [(k & 0xFFFF).astype(np.int32) for k in keys], "i", True)
        if self.r.random() < 0.5:
            self.add("(%s >> 16).to(tl.int32)" % kv, [(k >> 16).astype(np.int32) for k in keys], "i")
        return True

    def via_2d(self):
        """1-D: through a 2-D view and back (reshape, a lane move there, reshape)."""
        a = self.pick()
        n = self.numel
        if n < 4:
            return False
        rows = self.r.choice([d for d in (2, 4, 8) if n % d == 0 and n // d >= 2])
        cols = n // rows
        k = self.r.randrange(3)
        if k == 0:
            e = "tl.reshape(tl.trans(tl.reshape(%s, (%d, %d))), (%d,))" % (a.var, rows, cols, n)
            fn = lambda v: v.reshape(rows, cols).T.reshape(n)  # noqa: E731
        elif k == 1:
            e = "tl.ravel(tl.flip(tl.reshape(%s, (%d, %d)), 0))" % (a.var, rows, cols)
            fn = lambda v: np.flip(v.reshape(rows, cols), 0).reshape(n)  # noqa: E731
        else:
            e = "tl.reshape(tl.sort(tl.reshape(%s, (%d, %d)), 1), (%d,))" % (a.var, rows, cols, n)
            fn = lambda v: np.sort(v.reshape(rows, cols), 1).reshape(n)  # noqa: E731
        self.add(e, self.each(fn, a), a.kind, a.perm)
        return True

    def trans(self):
        a = self.pick()
        R, C = self.shape
        if R == C:
            e = self.r.choice(["tl.trans(%s)", "tl.permute(%s, (1, 0))", "%s.T"]) % a.var
        else:
            e = "tl.reshape(%s, (%d, %d))" % (self.r.choice(["tl.trans(%s)", "tl.permute(%s, 1, 0)"]) % a.var, R, C)
        self.add(e, self.each(lambda v: v.T.reshape(R, C), a), a.kind, a.perm)
        return True

    def dot(self):
        """tl.dot of lane-moved int8 tiles (exact: int32 accumulation, wrapping as numpy)."""
        R, C = self.shape
        if R != C or R < 16:
            return False
        a, b = self.pick("i", moved=0.7), self.pick("i", moved=0.7)

        def mm(x, y):
            return (x.astype(np.int8).astype(np.int64) @ y.astype(np.int8).astype(np.int64)).astype(np.int32)
        self.add("tl.dot(%s.to(tl.int8), %s.to(tl.int8))" % (a.var, b.var), self.each(mm, a, b), "i")
        return True

    def flat(self):
        """2-D: flattened, a 1-D lane move, and back."""
        a = self.pick()
        R, C = self.shape
        n = self.numel
        k = self.r.randrange(3)
        if k == 0:
            e, fn = "tl.flip(tl.reshape(%s, (%d,)), 0)" % (a.var, n), lambda v: np.flip(v.reshape(n))
        elif k == 1:
            e, fn = "tl.sort(tl.ravel(%s))" % a.var, lambda v: np.sort(v.reshape(n))
        elif a.kind == "i":
            e, fn = "tl.cumsum(tl.reshape(%s, (%d,)), 0)" % (a.var, n), lambda v: np.cumsum(v.reshape(n), dtype=np.int32)
        else:
            return False
        self.add("tl.reshape(%s, (%d, %d))" % (e, R, C), self.each(lambda v: fn(v).reshape(R, C), a), a.kind,
                 a.perm and k != 2)
        return True

    def write(self):
        """A store into memory the kernel reads again (x_ptr, an input, or the scratch
        s_ptr), at its own positions or through a permutation: what was computed from the
        old contents must keep them; a later reload sees the new ones."""
        name = self.r.choice(["x_ptr", "s_ptr"])
        v = self.pick("i", moved=0.7)
        addr = self.pick("i", perm=True, moved=0.5) if self.r.random() < 0.4 else None
        a = addr.var if addr else "offs"
        self.emit("tl.store(%s + base + %s, %s)" % (name, a, v.var))
        for q in range(PROGRAMS):
            ix = (addr.vals[q] if addr else np.arange(self.numel).reshape(self.shape)).reshape(-1)
            self.mem[name][q][ix] = v.vals[q].reshape(-1)
        if name not in self.written:
            self.written.append(name)
            if name == "s_ptr":
                self.args[name] = np.full(PROGRAMS * self.numel, -7, np.int32)
        return True

    def reload(self):
        if not self.written:
            return False
        name = self.r.choice(self.written)
        addr = self.pick("i", perm=True, moved=0.7) if self.r.random() < 0.5 else None
        a = addr.var if addr else "offs"
        vals = [self.mem[name][q][(addr.vals[q] if addr else np.arange(self.numel).reshape(self.shape))].copy()
                for q in range(PROGRAMS)]
        node = self.add("tl.load(%s + base + %s)" % (name, a), vals, "i", moved=bool(addr and addr.moved))
        if addr and addr.moved:
            self.moved_loads.append(node)
        return True

    def loop(self):
        """A lane move applied to a loop-carried tile, 1 to 3 trips."""
        r = self.r
        a = self.pick(moved=0.5)
        trips = r.randint(1, 3)
        ax = self.rank - 1
        idx = self.pick("i")
        k = r.randrange(5 if a.kind == "i" else 3)
        m = self.numel - 1
        if k == 0:
            e, fn = "tl.flip(%%s, %d)" % ax, lambda v, i: np.flip(v, ax)
        elif k == 1:
            e, fn = "tl.sort(%%s, %d, descending=True)" % ax, lambda v, i: np.flip(np.sort(v, -1), -1)
        elif k == 2:
            sm = self.shape[ax] - 1
            e = "tl.gather(%%s, %s & %d, %d)" % (idx.var, sm, ax)
            fn = lambda v, i: np.take_along_axis(v, (i & sm).astype(np.int64), ax)  # noqa: E731
        elif k == 3:
            e, fn = "tl.cumsum(%%s, %d) & 1023" % ax, lambda v, i: np.cumsum(v, ax, dtype=np.int32) & 1023
        else:
            e, fn = "tl.load(it_ptr + (tl.flip(%%s, %d) & %d))" % (ax, m), lambda v, i: self.args["it_ptr"][np.flip(v, ax) & m]
        v = self.var()
        self.emit("%s = %s" % (v, a.var))
        self.emit("for _ in range(%d):" % trips)
        self.emit("    %s = %s" % (v, e % v))
        vals = []
        for q in range(PROGRAMS):
            x = a.vals[q]
            for _ in range(trips):
                x = fn(x, idx.vals[q])
            vals.append(x)
        self.nodes.append(Node(v, vals, a.kind, a.perm and k in (0, 1), True))
        return True

    # ---- outputs ---------------------------------------------------------------------
    def outputs(self):
        r = self.r
        n, shape = self.numel, self.shape
        nout = r.choice([1, 2, 2, 3, 3])
        later = self.nodes[len(self.nodes) // 2:]
        for j in range(nout):
            if self.moved_loads and r.random() < 0.6:
                src = r.choice(self.moved_loads)  # loads through moved indices, often twice
            else:
                src = r.choice(later) if r.random() < 0.8 else self.pick()
            name = "o%d_ptr" % j
            dt = np.int32 if src.kind == "i" else np.float32
            fill = dt(-7)
            out = np.full(PROGRAMS * n, fill, dt)
            self.args[name] = out.copy()
            self.outs.append(name)
            exp = out.reshape(PROGRAMS, n).copy()
            vals = src.vals
            if r.random() < 0.3:  # the same value a second time, through an op
                vals = [v + (dt(1)) for v in vals]
                val = "%s + 1" % src.var
            else:
                val = src.var
            addr = self.pick("i", perm=True) if r.random() < 0.3 else None
            mask = r.random() < 0.25
            m = [np.ones(shape, bool)] * PROGRAMS
            if mask:
                mk = self.pick("i")
                m = [(v & 3) != 1 for v in mk.vals]
            if addr is None:
                self.emit("tl.store(%s + base + offs, %s%s)" % (name, val, ", mask=(%s & 3) != 1" % mk.var if mask else ""))
                for q in range(PROGRAMS):
                    e = exp[q].reshape(shape)
                    e[m[q]] = vals[q][m[q]]
            else:  # a scatter through a permutation: no two lanes write one element
                self.emit("tl.store(%s + base + %s, %s%s)" % (name, addr.var, val,
                                                                ", mask=(%s & 3) != 1" % mk.var if mask else ""))
                for q in range(PROGRAMS):
                    e = exp[q]
                    a = addr.vals[q].reshape(-1)
                    e[a[m[q].reshape(-1)]] = vals[q].reshape(-1)[m[q].reshape(-1)]
            self.expect[name] = exp.reshape(-1)

    def memory_outputs(self):
        for name in self.written:
            self.outs.append(name)
            self.expect[name] = np.concatenate(self.mem[name])

    def build(self):
        self.leaves()
        for _ in range(self.r.randint(2, 7)):
            self.step()
        self.outputs()
        self.memory_outputs()
        params = list(self.args)
        src = HEADER + "@triton.jit\ndef lane_moves_kernel(%s):\n" % ", ".join(params)
        return src + "\n".join(self.lines) + "\n"


def run_case(tilec, seed, keep=None):
    """(None, source) on a pass, else (a failure message, source)."""
    g = Gen(seed)
    with np.errstate(over="ignore"):
        src = g.build()
    tmp = keep or tempfile.mkdtemp(prefix="tilec-lanemoves-")
    os.makedirs(tmp, exist_ok=True)
    try:
        kpath = os.path.join(tmp, "kernel.py")
        with open(kpath, "w") as f:
            f.write(src)
        cmd = [tilec, "run", kpath, "-k", "lane_moves_kernel", "--grid", str(PROGRAMS)]
        for k, v in g.args.items():
            np.save(os.path.join(tmp, k + ".npy"), v)
            cmd.append("%s=%s" % (k, os.path.join(tmp, k + ".npy")))
        for o in g.outs:
            cmd += ["--out", "%s=%s" % (o, os.path.join(tmp, o + ".out.npy"))]
        if keep:
            with open(os.path.join(tmp, "cmd.txt"), "w") as f:
                f.write(" ".join(cmd) + "\n")
        try:
            p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        except subprocess.TimeoutExpired:
            return "timeout", src
        err = p.stderr.decode(errors="replace")
        if p.returncode != 0:
            first = (err.strip().splitlines() or [""])[0]
            return "tilec exited with %s: %s" % (p.returncode, first), src
        if "'tile." in err:
            return "a message names an internal op: %s" % err.strip()[:300], src
        for o in g.outs:
            got = np.load(os.path.join(tmp, o + ".out.npy"))
            exp = g.expect[o]
            if exp.dtype.kind == "f":
                tol = 1e-4 if g.ftol else 1e-5
                ok = np.isclose(got, exp, rtol=tol, atol=tol)
            else:
                ok = got == exp
            if not ok.all():
                i = int(np.argwhere(~ok)[0][0])
                return "%s[%d]: got %r, expected %r (%d of %d differ)" % (o, i, got[i], exp[i], int((~ok).sum()),
                                                                          ok.size), src
        return None, src
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilec")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1, help="first seed; case k uses seed + k")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keep", help="write the kernel and inputs of the (single) case here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every kernel")
    opts = ap.parse_args()
    tilec = os.path.abspath(opts.tilec)
    cache = tempfile.mkdtemp(prefix="tilec-lanemoves-cache-")
    os.environ["TILEC_CACHE_DIR"] = cache
    seeds = [opts.seed + k for k in range(opts.count)]
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
            for s, (err, src) in zip(seeds, ex.map(lambda s: run_case(tilec, s, opts.keep), seeds)):
                if err is None:
                    print("PASS seed %d" % s)
                    if opts.verbose:
                        print(src)
                else:
                    failed += 1
                    print("FAIL seed %d: %s\n%s" % (s, err, src))
                sys.stdout.flush()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print("%d passed, %d failed" % (len(seeds) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
