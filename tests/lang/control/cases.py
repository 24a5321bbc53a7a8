"""Cases of the lang family 'control': runtime if/elif, for, tl.range, while, static_range,
ternaries, constexpr branches (its kernels are in control/kernels.py)."""
import numpy as np

from harness import add, rng


def cases():
    F = "control"
    K = "control/kernels.py"
    x = rng(60).standard_normal(32).astype(np.float32)
    for sel, fn in [(0, lambda v: v + 1 + 10), (1, lambda v: v * 2 + 20), (2, lambda v: -v + 30), (-5, lambda v: -v + 30)]:
        add(F, "if_elif_else_sel%d" % sel, K, "if_elif_kernel", (1,),
            dict(x_ptr=x, out_ptr=np.zeros(32, np.float32), sel=sel, BLOCK=32), ["out_ptr"],
            lambda a, fn=fn: {"out_ptr": fn(a["x_ptr"])}, rtol=1e-6, atol=1e-6)
    for v, explicit in [(41, False), (43, False), (43, True), (-7, False)]:
        add(F, "if_one_element_%d_%s" % (v, "item" if explicit else "tile"), K, "if_one_element_kernel", (1,),
            dict(x_ptr=np.array([v], np.int32), out_ptr=np.zeros(2, np.int32), explicit=explicit), ["out_ptr"],
            lambda a, v=v: {"out_ptr": np.array([int(v > 42), 2 if v < 0 else 3], np.int32)})
    xv = rng(61).standard_normal(100).astype(np.float32) + 0.1

    def if_tile_ref(a):
        v = a["x_ptr"].copy()
        out = v.copy()
        for b in range(0, 100, 16):
            t = v[b:b + 16].astype(np.float32).sum(dtype=np.float32)
            if t > 0:
                out[b:b + 16] = v[b:b + 16] - t
        return {"out_ptr": out}
    add(F, "if_on_reduction", K, "if_tile_cond_kernel", (7,),
        dict(x_ptr=xv, out_ptr=np.zeros(100, np.float32), n=100, BLOCK=16), ["out_ptr"], if_tile_ref,
        rtol=1e-5, atol=1e-5)
    for (lo, hi, st) in [(0, 10, 1), (3, 50, 7), (5, 5, 1), (10, 2, 1), (-4, 9, 3)]:
        ks = list(range(lo, hi, st))
        add(F, "for_range_%d_%d_%d" % (lo, hi, st), K, "for_runtime_kernel", (1,),
            dict(out_ptr=np.zeros(16, np.int32), lo=lo, hi=hi, step=st, BLOCK=16), ["out_ptr"],
            lambda a, ks=ks: {"out_ptr": np.arange(16) * sum(ks) + len(ks)})

    def tlr_ref(lo, hi, st):
        acc = np.zeros(16, np.float32)
        for k in range(lo, hi, st):
            acc = acc * np.float32(0.5) + np.float32(k)
        return acc + np.arange(16, dtype=np.float32)
    for (lo, hi, st) in [(1, 20, 3), (0, 1, 1)]:
        add(F, "tl_range_%d_%d_%d" % (lo, hi, st), K, "tl_range_kernel", (1,),
            dict(out_ptr=np.zeros(16, np.float32), lo=lo, hi=hi, step=st, BLOCK=16), ["out_ptr"],
            lambda a, r=tlr_ref(lo, hi, st): {"out_ptr": r}, rtol=1e-6)

    def neg_ref(start, step):
        h = 0
        for k in range(start, -1, step):
            h = h * 3 + k
        return (np.arange(8) + h).astype(np.int32)
    for (start, step) in [(9, -1), (10, -3)]:
        add(F, "negative_constexpr_step_%d_%d" % (start, -step), K, "neg_step_kernel", (1,),
            dict(out_ptr=np.zeros(8, np.int32), BLOCK=8, START=start, STEP=step), ["out_ptr"],
            lambda a, r=neg_ref(start, step): {"out_ptr": r})
    xn = rng(62).standard_normal((7, 33)).astype(np.float32)
    add(F, "nested_loops", K, "nested_kernel", (1,),
        dict(x_ptr=xn, out_ptr=np.zeros(7, np.float32), M=7, N=33, BN=8), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].sum(1)}, rtol=1e-5, atol=1e-5)
    starts = np.array([1, 2, 3, 6, 7, 27, 97, 871], np.int32)

    def collatz(v):
        s = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s
    add(F, "while_scalar", K, "while_kernel", (len(starts),),
        dict(n_ptr=starts, out_ptr=np.zeros(len(starts), np.int32), BLOCK=1), ["out_ptr"],
        lambda a: {"out_ptr": [collatz(int(v)) for v in a["n_ptr"]]})
    xw = (rng(63).uniform(0, 50, 16)).astype(np.float32)

    def while_tile_ref(a):
        v = a["x_ptr"].copy()
        it = 0
        while v.max() >= 1.0:
            v = v * np.float32(0.5)
            it += 1
        return {"out_ptr": v + it}
    add(F, "while_tile", K, "while_tile_kernel", (1,),
        dict(x_ptr=xw, out_ptr=np.zeros(16, np.float32), BLOCK=16), ["out_ptr"], while_tile_ref, rtol=1e-6)
    xs = rng(64).uniform(-1, 1, 16).astype(np.float32)

    def horner(a, n=4):
        x = a["x_ptr"].astype(np.float32)
        acc = x
        for k in range(1, n):
            acc = acc * x + np.float32(k)
        return {"out_ptr": acc}
    add(F, "static_range_unroll", K, "static_range_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16, NREP=4), ["out_ptr"], horner, rtol=1e-5, atol=1e-6)
    for act, bias, fn in [("relu", 1.5, lambda v: np.maximum(v, 0) + 1.5),
                          ("leaky", "None", lambda v: np.where(v > 0, v, v * np.float32(0.125))),
                          ("none", 2, lambda v: v + 2)]:
        add(F, "constexpr_string_%s_bias_%s" % (act, bias), K, "constexpr_str_kernel", (1,),
            dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16, ACT=act, BIAS=bias), ["out_ptr"],
            lambda a, fn=fn: {"out_ptr": fn(a["x_ptr"])}, rtol=1e-6)
    for flag, sc in [(1, 2), (0, 1), (-3, 4)]:
        add(F, "ternary_flag%d_scale%d" % (flag, sc), K, "ternary_kernel", (1,),
            dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), flag=flag, BLOCK=16, SCALE=sc), ["out_ptr"],
            lambda a, flag=flag, sc=sc: {"out_ptr": (a["x_ptr"] if flag > 0 else -a["x_ptr"]) * (2.0 if sc > 1 else 0.5)
                                         + (3 if flag > 0 else 5)}, rtol=1e-6)
    add(F, "ternary_runtime_taken_branch_only", K, "ternary_effects_kernel", (4,),
        dict(a_ptr=np.zeros(4, np.float32), b_ptr=np.zeros(4, np.float32), x_ptr=np.array([7.5], np.float32),
             out_ptr=np.zeros(16, np.float32)), ["a_ptr", "b_ptr", "out_ptr"],
        lambda a: {"a_ptr": np.array([1, 0, 1, 0], np.float32), "b_ptr": np.array([0, 1, 0, 1], np.float32),
                   "out_ptr": np.array([0, 0, 0, 0, 3.5, 7.5, 3.5, 7.5, 1, 2, 2, 2, 2, 1, 3, 3], np.float32)})
    xe = rng(65).standard_normal((5, 8)).astype(np.float32)
    add(F, "if_in_loop_ptr_carry", K, "early_zero_kernel", (1,),
        dict(x_ptr=xe, out_ptr=np.zeros(8, np.float32), n=5, BLOCK=8), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] * np.array([1, -1, 1, -1, 1], np.float32)[:, None]).sum(0)},
        rtol=1e-5, atol=1e-6)
    # n69 = offs + sum of (i % 3) for i < 70 = offs + 69
    for flag in (3, 0):  # not 1: an int equal to 1 is specialized, and the if with it
        add(F, "runtime_if_many_names_flag%d" % flag, K, "many_names_kernel", (1,),
            dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), flag=flag, BLOCK=16), ["out_ptr"],
            lambda a, flag=flag: {"out_ptr": a["x_ptr"] * 2.0 + (np.arange(16) + 69) if flag > 0
                                  else a["x_ptr"] - (np.arange(16) + 69)}, rtol=1e-6)
    # t69 = x + i + 35 (the odd k of 1..69 add 1); n trips
    add(F, "loop_many_temporaries", K, "many_temps_loop_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), n=3, BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": sum(a["x_ptr"] + i + 35 for i in range(3))}, rtol=1e-6, atol=1e-5)
