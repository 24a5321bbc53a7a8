# Tiled matmul with grouped program order and a fused activation (tests/lang, family "matmul").
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                GROUP: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    group = pid // per_group
    first_m = group * GROUP
    rows_in_group = min(tiles_m - first_m, GROUP)
    pm = first_m + ((pid % per_group) % rows_in_group)
    pn = (pid % per_group) // rows_in_group
    tl.assume(pm >= 0)
    tl.assume(s_am > 0)

    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
    pb = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        left = K - kk * BK
        a = tl.load(pa, mask=rk[None, :] < left, other=0.0)
        b = tl.load(pb, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        pa += BK * s_ak
        pb += BK * s_bk
    if ACTIVATION == "gelu_tanh":
        acc = _gelu_tanh(acc)
    elif ACTIVATION == "relu_sq":
        acc = _relu_sq(acc)
    out = acc.to(tl.float16)
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * s_cm + cn[None, :] * s_cn, out,
             mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def _gelu_tanh(x):
    k: tl.constexpr = 0.7978845608028654
    inner = k * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0      # tanh through sigmoid
    return 0.5 * x * (1.0 + t)


@triton.jit
def _relu_sq(x):
    r = tl.where(x > 0, x, 0.0)
    return r * r
