"""Cases of the lang family 'llm': the LLM-training kernels of the benchmark (bench/kernels/
rmsnorm.py, swiglu.py, cross_entropy.py — one copy: these cases check what bench times) on fp32
and bf16 rows, against float64 numpy. Row lengths that are not a power of two (masked tails),
programs of the RMSNorm backward with a partial or an empty run of rows, cross-entropy rows
whose target is ignore_index and a vocabulary that is not a multiple of the block."""
import numpy as np

from harness import add, bf16_bits, compare, rng

F = "llm"
RMS = "../../bench/kernels/rmsnorm.py"
SWIGLU = "../../bench/kernels/swiglu.py"
CE = "../../bench/kernels/cross_entropy.py"


def from_bf16(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def values(x, bf):
    """(what the kernel gets: an fp32 array or (bf16 bits, "bf16"), its float64 values)"""
    if not bf:
        x = np.asarray(x, np.float32)
        return x, x.astype(np.float64)
    b, f = bf16_bits(x)
    return (b, "bf16"), f.astype(np.float64)


def out_buf(shape, bf):
    return (np.zeros(shape, np.uint16), "bf16") if bf else np.zeros(shape, np.float32)


def got(res, name, bf):
    return from_bf16(res[name]) if bf else res[name].astype(np.float64)


def cases():
    # RMSNorm forward: y = (x * rstd).to(dtype) * w, rstd = 1 / sqrt(mean(x^2) + eps)
    for (R, N, B, bf) in [(5, 100, 128, False), (3, 1, 16, False), (4, 1000, 1024, True), (2, 64, 64, False)]:
        r = rng(900 + N + bf)
        x, xf = values(r.standard_normal((R, N)) * 3, bf)
        w, wf = values(1 + 0.1 * r.standard_normal(N), bf)
        rstd = 1 / np.sqrt((xf ** 2).mean(1) + 1e-6)

        def check(a, res, xf=xf, wf=wf, rstd=rstd, bf=bf):
            tol = 2e-2 if bf else 1e-5
            return (compare("y_ptr", got(res, "y_ptr", bf), xf * rstd[:, None] * wf, tol, tol) or
                    compare("rstd_ptr", res["rstd_ptr"], rstd, 1e-5, 1e-6))
        add(F, "rmsnorm_fwd_%dx%d_%s" % (R, N, "bf16" if bf else "fp32"), RMS, "rmsnorm_fwd_kernel", (R,),
            dict(y_ptr=out_buf((R, N), bf), x_ptr=x, w_ptr=w, rstd_ptr=np.zeros(R, np.float32), row_stride=N,
                 n_cols=N, eps=1e-6, BLOCK_SIZE=B), ["y_ptr", "rstd_ptr"], check=check)

    # RMSNorm backward: dx and per-program partial sums of dw (their sum is dw)
    # (5, 1999, 2048): bf16 rows in the loop, fp32 dw after it: 8-lane chunks on nvptx, a
    # thread's several chunks and the chunk the bound splits stored as two 16-byte halves each
    for (R, N, B, progs, bf) in [(7, 100, 128, 3, False), (4, 33, 64, 3, False), (6, 300, 512, 2, True),
                                 (5, 1999, 2048, 2, True)]:
        per = (R + progs - 1) // progs
        r = rng(950 + N + bf)
        x, xf = values(r.standard_normal((R, N)), bf)
        w, wf = values(1 + 0.1 * r.standard_normal(N), bf)
        dy, dyf = values(r.standard_normal((R, N)), bf)
        rstd = (1 / np.sqrt((xf ** 2).mean(1) + 1e-6)).astype(np.float32)
        rs = rstd.astype(np.float64)[:, None]
        xn = xf * rs
        m = dyf * wf
        dx = rs * m - rs / N * (m * xn).sum(1, keepdims=True) * xn
        part = np.zeros((progs, N))
        for p in range(progs):
            part[p] = (dyf * xn)[p * per:min(R, (p + 1) * per)].sum(0)

        def check(a, res, dx=dx, part=part, bf=bf):
            tol = 2e-2 if bf else 1e-4
            return (compare("dx_ptr", got(res, "dx_ptr", bf), dx, tol, tol) or
                    compare("dw_partial_ptr", res["dw_partial_ptr"], part, 1e-4, 1e-4))
        add(F, "rmsnorm_bwd_%dx%d_%dprogs_%s" % (R, N, progs, "bf16" if bf else "fp32"), RMS, "rmsnorm_bwd_kernel",
            (progs,), dict(dx_ptr=out_buf((R, N), bf), dy_ptr=dy, x_ptr=x, w_ptr=w, rstd_ptr=rstd,
                           dw_partial_ptr=np.full((progs, N), 7.0, np.float32), row_stride=N, n_rows=R, n_cols=N,
                           rows_per_program=per, BLOCK_SIZE=B), ["dx_ptr", "dw_partial_ptr"], check=check)

    # SwiGLU forward c = silu(a) * b and backward (da, db)
    for (R, N, B, bf) in [(3, 100, 128, False), (2, 1000, 1024, True), (4, 7, 8, False)]:
        r = rng(1000 + N + bf)
        a, af = values(r.standard_normal((R, N)) * 4, bf)
        b, bf_ = values(r.standard_normal((R, N)), bf)
        dc, dcf = values(r.standard_normal((R, N)), bf)
        s = 1 / (1 + np.exp(-af))
        silu = af * s

        def check_fwd(a_, res, exp=silu * bf_, bf=bf):
            tol = 2e-2 if bf else 1e-5
            return compare("c_ptr", got(res, "c_ptr", bf), exp, tol, tol)
        name = "%dx%d_%s" % (R, N, "bf16" if bf else "fp32")
        add(F, "swiglu_fwd_" + name, SWIGLU, "swiglu_fwd_kernel", (R,),
            dict(c_ptr=out_buf((R, N), bf), a_ptr=a, b_ptr=b, row_stride=N, n_cols=N, BLOCK_SIZE=B), ["c_ptr"],
            check=check_fwd)

        def check_bwd(a_, res, da=dcf * bf_ * (s + silu * (1 - s)), db=dcf * silu, bf=bf):
            tol = 2e-2 if bf else 1e-5
            return (compare("da_ptr", got(res, "da_ptr", bf), da, tol, tol) or
                    compare("db_ptr", got(res, "db_ptr", bf), db, tol, tol))
        add(F, "swiglu_bwd_" + name, SWIGLU, "swiglu_bwd_kernel", (R,),
            dict(da_ptr=out_buf((R, N), bf), db_ptr=out_buf((R, N), bf), dc_ptr=dc, a_ptr=a, b_ptr=b, row_stride=N,
                 n_cols=N, BLOCK_SIZE=B), ["da_ptr", "db_ptr"], check=check_bwd)

    # Cross entropy: loss per row (of the mean over valid rows) and its gradient in one kernel
    for (R, V, B, scale, bf) in [(6, 1000, 256, 3.0, False), (5, 5000, 1024, 30.0, False), (4, 777, 256, 3.0, True),
                                 (3, 64, 64, 1.0, False)]:
        r = rng(1100 + V + bf)
        x, xf = values(r.standard_normal((R, V)) * scale, bf)
        t = r.integers(0, V, R).astype(np.int64)
        t[1] = -100                 # ignored row
        t[-1] = V - 1               # target in the last (masked) block
        valid = t != -100
        nv = int(valid.sum())
        mx = xf.max(1, keepdims=True)
        lse = mx[:, 0] + np.log(np.exp(xf - mx).sum(1))
        tt = np.where(valid, t, 0)
        loss = np.where(valid, lse - xf[np.arange(R), tt], 0.0) / nv
        g = np.exp(xf - lse[:, None])
        g[np.arange(R), tt] -= 1
        g = np.where(valid[:, None], g, 0.0) / nv

        def check(a_, res, loss=loss, g=g, bf=bf):
            tol = 1e-2 / nv if bf else 1e-6
            return (compare("loss_ptr", res["loss_ptr"], loss, 1e-5, 1e-6) or
                    compare("dx_ptr", got(res, "dx_ptr", bf), g, 1e-2 if bf else 1e-4, tol))
        add(F, "cross_entropy_%dx%d_block%d_%s" % (R, V, B, "bf16" if bf else "fp32"), CE, "cross_entropy_kernel",
            (R,), dict(x_ptr=x, dx_ptr=out_buf((R, V), bf), target_ptr=t, loss_ptr=np.full(R, 5.0, np.float32),
                       row_stride=V, n_cols=V, n_valid=nv, ignore_index=-100, BLOCK_SIZE=B), ["loss_ptr", "dx_ptr"],
            check=check)
