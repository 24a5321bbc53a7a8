"""Cases of the lang family 'atomics': atomic read-modify-write, cas and xchg on scalar and tile
pointers, masked, returning old values; 16-bit float atomics (its kernels are in
atomics/kernels.py)."""
import numpy as np

from harness import add, bf16_bits, compare, diag, rng


def _atomics():
    F = "atomics"
    K = "atomics/kernels.py"
    n, B = 100, 32          # 4 programs, the last one cut by the mask
    r = rng(220)
    ints = {
        np.int32: (r.integers(-1 << 30, 1 << 30, n + 4), r.integers(-1 << 30, 1 << 30, n + 4)),
        np.uint32: (r.integers(0, 1 << 32, n + 4, dtype=np.uint64), r.integers(0, 1 << 32, n + 4, dtype=np.uint64)),
        np.int64: (r.integers(-1 << 40, 1 << 40, n + 4), r.integers(-1 << 40, 1 << 40, n + 4)),
    }
    fl = (r.standard_normal(n + 4) * 10, r.standard_normal(n + 4) * 10)
    npops = {"add": lambda d, v: d + v, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor, "xchg": lambda d, v: v}
    # all ops on int32; on uint32 the ones where signedness matters; a sample on int64
    cases = ([(np.int32, op) for op in npops] + [(np.uint32, op) for op in ("add", "max", "min")]
             + [(np.int64, op) for op in ("add", "max", "min", "xor", "xchg")]
             + [(np.float32, op) for op in ("add", "max", "min", "xchg")])
    for dt, op in cases:
        d0, v0 = ints[dt] if dt in ints else fl
        dst = np.asarray(d0).astype(dt)
        val = np.asarray(v0).astype(dt)
        if dt == np.float32:
            dst[:3] = [-0.0, 0.0, -5.0]      # mixed signs, signed zeros
            val[:3] = [0.0, -0.0, -7.0]

        def ref(a, op=op, dt=dt, n=n):
            d, v = a["dst_ptr"].copy(), a["val_ptr"]
            with np.errstate(over="ignore"):
                d[:n] = npops[op](d[:n], v[:n]).astype(dt)
            o = a["old_ptr"].copy()
            o[:n] = a["dst_ptr"][:n]
            return {"dst_ptr": d, "old_ptr": o}
        add(F, "atomic_%s_%s_masked_old" % (op, np.dtype(dt).name), K, "atomic_tile_kernel", ((n + B - 1) // B,),
            dict(dst_ptr=dst, val_ptr=val, old_ptr=np.full(n + 4, 3, dt), n=n, OP=op, BLOCK=B),
            ["dst_ptr", "old_ptr"], ref)

    def ticket_check(a, res, n=1000):
        if res["ctr_ptr"][0] != n:
            return "counter %d, expected %d" % (res["ctr_ptr"][0], n)
        t = res["tickets_ptr"]
        if sorted(t[:n].tolist()) != list(range(n)):
            return "tickets are not a permutation of 0..%d" % (n - 1)
        if (t[n:] != -1).any():
            return "masked lanes wrote tickets: %s" % t[n:]
        return None
    add(F, "atomic_add_tickets_contended", K, "ticket_kernel", (16,),
        dict(ctr_ptr=np.zeros(1, np.int32), tickets_ptr=np.full(1024, -1, np.int32), n=1000, BLOCK=64),
        ["ctr_ptr", "tickets_ptr"], check=ticket_check)
    nf, bins = 3000, 8
    xf = (rng(221).integers(-1000, 1000, nf) / 8).astype(np.float32)   # exact float sums

    def cont_ref(a):
        x = a["x_ptr"]
        b = np.arange(nf) % bins
        return {"mx_ptr": np.array([max(x[b == k].max(), -1e30) for k in range(bins)]),
                "mn_ptr": np.array([min(x[b == k].min(), 1e30) for k in range(bins)]),
                "sum_ptr": np.array([x[b == k].astype(np.float64).sum() for k in range(bins)]),
                "total_ptr": [x.astype(np.float64).sum()]}
    add(F, "atomic_float_contended", K, "contended_float_kernel", ((nf + 127) // 128,),
        dict(x_ptr=xf, mx_ptr=np.full(bins, -1e30, np.float32), mn_ptr=np.full(bins, 1e30, np.float32),
             sum_ptr=np.zeros(bins, np.float32), total_ptr=np.zeros(1, np.float32), n=nf, BINS=bins, BLOCK=128),
        ["mx_ptr", "mn_ptr", "sum_ptr", "total_ptr"], cont_ref)
    for dt in (np.int32, np.float32):
        dst = np.arange(16).astype(dt)
        cmp = np.where(np.arange(16) % 3 == 0, np.arange(16), 100).astype(dt)
        val = (np.arange(16) * 10 + 1).astype(dt)
        add(F, "atomic_cas_tile_%s" % np.dtype(dt).name, K, "cas_tile_kernel", (1,),
            dict(dst_ptr=dst, cmp_ptr=cmp, val_ptr=val, old_ptr=np.zeros(16, dt), BLOCK=16), ["dst_ptr", "old_ptr"],
            lambda a: {"dst_ptr": np.where(a["dst_ptr"] == a["cmp_ptr"], a["val_ptr"], a["dst_ptr"]),
                       "old_ptr": a["dst_ptr"]})
    P = 40

    def scalar_check(a, res):
        if res["acc_ptr"][0] != P * (P + 1) // 2:
            return "acc %d, expected %d" % (res["acc_ptr"][0], P * (P + 1) // 2)
        seen = res["seen_ptr"]
        # each program saw the sum of the ids of the programs that ran before it
        order = np.argsort(seen, kind="stable")
        exp = np.concatenate([[0], np.cumsum(order + 1)[:-1]])
        if not (seen[order] == exp).all():
            return "old values %s are not consistent with any order" % seen
        bits = res["bits_ptr"]
        e = [np.int64(np.bitwise_or.reduce([1 << (p % 32) for p in range(P)])).astype(np.int32), max(p * 7 % 23 for p in range(P)),
             min(100 - p for p in range(P)), np.bitwise_xor.reduce(list(range(P)))]
        if list(bits) != [int(v) for v in e]:
            return "bits %s, expected %s" % (bits, e)
        return None
    add(F, "scalar_atomics_old_values", K, "scalar_atomics_kernel", (P,),
        dict(acc_ptr=np.zeros(1, np.int32), seen_ptr=np.zeros(P, np.int32), bits_ptr=np.array([0, -5, 1000, 0], np.int32)),
        ["acc_ptr", "seen_ptr", "bits_ptr"], check=scalar_check)
    add(F, "atomic_add_2d_masked_old", K, "atomic2d_kernel", (1,),
        dict(dst_ptr=np.ones((3, 5), np.float32), old_ptr=np.full((3, 5), 9.0, np.float32), M=3, N=5, BM=4, BN=8),
        ["dst_ptr", "old_ptr"],
        lambda a: {"dst_ptr": 1 + np.arange(3)[:, None] * 100 + np.arange(5)[None, :], "old_ptr": np.ones((3, 5))})
    xh = (np.arange(64) / 8).astype(np.float16)
    add(F, "atomic_add_fp16", K, "atomic_f16_kernel", (1,), dict(dst_ptr=np.full(4, 0.5, np.float16), x_ptr=xh, N=64),
        ["dst_ptr"], lambda a: {"dst_ptr": 0.5 + a["x_ptr"].astype(np.float64).reshape(16, 4).sum(0)}, rtol=1e-3)
    # the older checks (were XFAIL placeholders in "pending")
    n = 1000
    xa = rng(140).integers(0, 100, n).astype(np.int32)
    add(F, "atomic_add", "atomics/kernels.py", "atomic_add_kernel", ((n + 127) // 128,),
        dict(x_ptr=xa, total_ptr=np.zeros(1, np.int32), hist_ptr=np.zeros(8, np.int32), n=n, BLOCK=128),
        ["total_ptr", "hist_ptr"],
        lambda a: {"total_ptr": [a["x_ptr"].sum()], "hist_ptr": np.bincount(a["x_ptr"] % 8, minlength=8)})

    def lock_check(a, r):
        if r["counter_ptr"][0] != 64:
            return "counter %d, expected 64" % r["counter_ptr"][0]
        if sorted(r["log_ptr"].tolist()) != list(range(64)):
            return "each program must see a distinct counter value: %s" % r["log_ptr"]
        return None
    add(F, "atomic_cas_spin_lock", "atomics/kernels.py", "atomic_cas_lock_kernel", (64,),
        dict(lock_ptr=np.zeros(1, np.int32), counter_ptr=np.zeros(1, np.int32), log_ptr=np.zeros(64, np.int32)),
        ["counter_ptr", "log_ptr"], check=lock_check, timeout=30)


def _atomics16():
    F = "atomics"
    K = "atomics/kernels.py"

    def to16(x, bf):
        """float values -> (stored uint16/fp16 array, their float64 values) rounded to nearest even"""
        if not bf:
            h = np.asarray(x, np.float64).astype(np.float16)
            return h, h.astype(np.float64)
        b, f = bf16_bits(np.asarray(x, np.float32))
        return b, f.astype(np.float64)

    def from16(a, bf):
        return ((a.astype(np.uint32) << 16).view(np.float32) if bf else a).astype(np.float64)

    for bf in (True, False):
        for (s0, s1) in [(2, 2), (8, 2), (8, 8), (32, 32), (64, 64)]:
            for axis in (0, 1):
                r = rng(700 + s0 * 3 + s1 + axis + 100 * bf)
                xs, xf = to16(r.standard_normal((s0, s1)), bf)
                zs, zf = to16(r.standard_normal(s0 if axis == 1 else s1), bf)

                def check(a, res, xf=xf, zf=zf, axis=axis, bf=bf, zs=zs):
                    s = xf.sum(axis)
                    got = from16(res["z_ptr"], bf)
                    tol = (2.0 ** -7 if bf else 2.0 ** -10) * (np.abs(zf) + np.abs(xf).sum(axis) / 4 + np.abs(s)) + 1e-30
                    bad = np.abs(got - (zf + s)) > tol
                    if bad.any():
                        k = int(np.argmax(bad))
                        return "z_ptr[%d]: got %r, expected %r (+- %g)" % (k, got[k], zf[k] + s[k], tol[k])
                    return compare("old_ptr", res["old_ptr"], zs, 0, 0)
                add(F, "atomic_sum_%s_%dx%d_axis%d" % ("bf16" if bf else "fp16", s0, s1, axis), K, "atomic_sum16_kernel",
                    (1,), dict(z_ptr=zs, x_ptr=xs, old_ptr=np.zeros_like(zs), AXIS=axis, S0=s0, S1=s1, BF16=bf),
                    ["z_ptr", "old_ptr"], check=check)
        for num in (2, 8, 32):
            r = rng(760 + num + bf)
            vs, vf = to16(r.standard_normal(num * num), bf)
            cs, _ = to16(np.where(np.arange(num) % 3 == 0, 1.0, 0.5), bf)

            def pref(a, vf=vf, bf=bf, cs=cs, num=num):
                x, _ = to16(vf[0::2] + vf[1::2], bf)   # the first add into 0 is exact
                c = cs.copy()
                one, _ = to16([1.0], bf)
                two, _ = to16([2.0], bf)
                c[c == one[0]] = two[0]
                return {"x_ptr": x.reshape(num // 2, num), "c_ptr": c}
            add(F, "atomic_pairs_%s_%d" % ("bf16" if bf else "fp16", num), K, "atomic_pairs16_kernel", (1,),
                dict(x_ptr=np.zeros((num // 2, num), vs.dtype), val_ptr=vs, c_ptr=cs, NUM=num, BF16=bf),
                ["x_ptr", "c_ptr"], pref)
    # float atomic_max/min on the bits as Triton defines them: NaNs by their bits, -0.0 < +0.0
    for fdt, idt, udt in ((np.float32, np.int32, np.uint32), (np.float64, np.int64, np.uint64)):
        nan, nnan = fdt(np.nan), -fdt(np.nan)
        dst = np.array([1.0, nan, -0.0, 0.0, -3.0, 5.0, nnan, -2.0, 7.0, -0.0, np.inf, -np.inf], fdt)
        val = np.array([nan, 2.0, 0.0, -0.0, -1.0, nnan, 1.0, nan, -np.inf, -0.0, nan, nnan], fdt)
        for op in ("max", "min"):
            def fcheck(a, res, op=op, idt=idt, udt=udt, n=dst.size):
                d, v = a["dst_ptr"], a["val_ptr"]
                di, vi, du, vu = d.view(idt), v.view(idt), d.view(udt), v.view(udt)
                if op == "max":
                    bits = np.where(vi >= 0, np.maximum(di, vi).view(udt), np.minimum(du, vu))
                else:
                    bits = np.where(vi >= 0, np.minimum(di, vi).view(udt), np.maximum(du, vu))
                for name, exp in (("dst_ptr", bits), ("old_ptr", du)):
                    got = res[name].view(udt)
                    if (got != exp).any():
                        k = int(np.argmax(got != exp))
                        return "%s[%d]: bits %#x, expected %#x" % (name, k, int(got[k]), int(exp[k]))
                return None
            add(F, "atomic_%s_%s_nan_signed_zero_bits" % (op, np.dtype(fdt).name), K, "atomic_tile_kernel", (1,),
                dict(dst_ptr=dst.copy(), val_ptr=val, old_ptr=np.zeros_like(dst), n=dst.size, OP=op, BLOCK=16),
                ["dst_ptr", "old_ptr"], check=fcheck)
    diag(F, "diag_atomic_max_bf16", K, "atomic_max_bf16_kernel", "*u16", expect=("atomic_max", "bf16"),
         line="tl.atomic_max(p +")
    diag(F, "diag_atomic_add_i16", K, "atomic_add_i16_kernel", "*i16", expect=("atomic_add", "i16"),
         line="tl.atomic_add(x_ptr + tl.arange")


def cases():
    _atomics()
    _atomics16()
