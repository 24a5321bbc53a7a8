"""Cases of the lang family 'earlyreturn': `return` under runtime conditions (its kernels are in
earlyreturn/kernels.py)."""
import numpy as np

from harness import add, diag, line_of, rng


def cases():
    F = "earlyreturn"
    K = "earlyreturn/kernels.py"
    for (rows, cols, grid) in [(5, 100, 8), (1, 7, 3), (6, 64, 6)]:
        x = rng(1100 + rows).standard_normal((rows, cols)).astype(np.float32)
        out = np.full(grid, -7.0, np.float32)

        def ref(a, rows=rows):
            o = a["out_ptr"].copy()
            o[:rows] = a["x_ptr"].astype(np.float64).sum(1)
            return {"out_ptr": o}
        add(F, "row_skip_%dx%d_grid%d" % (rows, cols, grid), K, "row_skip_kernel", (grid,),
            dict(x_ptr=x, out_ptr=out, n_rows=rows, n_cols=cols, BLOCK=32), ["out_ptr"], ref, rtol=1e-5, atol=1e-5)
    for n in (20, 16, 1):
        xr = rng(1150 + n).standard_normal(32).astype(np.float32)

        def rebind_ref(a, n=n):
            out = a["out_ptr"].copy()
            out[:n] = a["x_ptr"][:n] * 2
            sums = np.zeros(5, np.float64)
            for p in range(5):
                sums[p] = a["x_ptr"][p * 8:min(n, p * 8 + 8)].astype(np.float64).sum() if p * 8 < n else 0.0
            return {"out_ptr": out, "sums_ptr": sums}
        add(F, "rebind_after_return_n%d" % n, K, "rebind_after_return_kernel", (5,),
            dict(x_ptr=xr, out_ptr=np.full(40, -1.0, np.float32), sums_ptr=np.full(5, -1.0, np.float32), n=n, BLOCK=8),
            ["out_ptr", "sums_ptr"], rebind_ref, rtol=1e-5, atol=1e-5)
    xv = np.array([1.5, -2.0, 0.25, 3.0, -0.5, 10.0, 0.0, 2.0], np.float32)
    M, N, lim = 3, 4, 40.0

    def mref(a):
        out = np.zeros(8, np.float32)
        flag = np.zeros(8, np.int32)
        for p, v in enumerate(a["x_ptr"]):
            flag[p] = 1
            if v < 0:
                flag[p] = 2
                continue
            t = sum(float(v) * (i + 1) + j for i in range(M) for j in range(N))
            if t > lim:
                out[p] = -t
                continue
            out[p] = t
            flag[p] = 3
        return {"out_ptr": out, "flag_ptr": flag}
    add(F, "middle_return_nested_loops", K, "middle_return_kernel", (8,),
        dict(x_ptr=xv, out_ptr=np.zeros(8, np.float32), flag_ptr=np.zeros(8, np.int32), lim=lim, M=M, N=N),
        ["out_ptr", "flag_ptr"], mref, rtol=1e-6)
    B, P = 16, 4
    xh = rng(1110).standard_normal(B * P).astype(np.float32) * 50
    lims = np.array([-1.0, 200.0, 3.0, 0.5, -5.0, 1.0, 150.0, 101.0, 7.0, 2.0, 2.0, -0.5], np.float32)

    def pick(x, lim):
        return x * 2.0 if lim < 0 else (x - 1.0 if lim > 100 else np.minimum(x, lim))

    def href(a):
        x = a["x_ptr"].reshape(P, B)
        acc = np.zeros((P, B), np.float32)
        for p in range(P):
            for k in range(3):
                acc[p] += pick(x[p], a["lim_ptr"][p * 3 + k])
        sw = (np.arange(P) % 2 == 1)[:, None]
        return {"out_ptr": acc.ravel(), "o1_ptr": np.where(sw, x + 1, x).ravel(), "o2_ptr": np.where(sw, x, x + 1).ravel()}
    add(F, "helper_returns_in_loop_and_tuples", K, "helper_return_kernel", (P,),
        dict(x_ptr=xh, lim_ptr=lims, out_ptr=np.zeros(B * P, np.float32), o1_ptr=np.zeros(B * P, np.float32),
             o2_ptr=np.zeros(B * P, np.float32), BLOCK=B), ["out_ptr", "o1_ptr", "o2_ptr"], href, rtol=1e-6)
    av = np.array([1, 1, -1, -2, 3, 0], np.int32)
    bv = np.array([1, -1, 5, -5, 0, 2], np.int32)

    def nref(a):
        out = np.zeros(6, np.int32)
        for p in range(6):
            x_, y_ = int(a["a_ptr"][p]), int(a["b_ptr"][p])
            if x_ > 0:
                if y_ > 0:
                    out[p] = 100
                    continue
                xx = x_ * 10
            else:
                xx = x_ - 1
            out[p] = xx + y_
        return {"out_ptr": out}
    add(F, "nested_return_name_after", K, "nested_return_kernel", (6,),
        dict(a_ptr=av, b_ptr=bv, out_ptr=np.zeros(6, np.int32)), ["out_ptr"], nref)
    diag(F, "diag_return_in_loop", K, "return_in_loop_kernel", "*fp32, i32", expect=("return", "for"), line=98)
    diag(F, "diag_return_type_mismatch", K, "return_type_mismatch_kernel", "*fp32, i32",
         expect=("Inconsistent return types", "fp32", "i32"), line=line_of(K, "return 1"))
    diag(F, "diag_return_in_static_range", K, "return_in_static_range_kernel", "*fp32",
         expect=("unrolled loop",), line="for i in tl.static_range")
