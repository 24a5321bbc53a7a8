# tl.dot (tests/lang, family "dot").
import triton
import triton.language as tl


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # one [BM, BN] output block per program, masked K loop, fp32 accumulator
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def dot_half_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # fp16 inputs, fp32 accumulation, result written as fp32
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def matmul_op_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # the operator form a @ b
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], a @ b)


@triton.jit
def dot_bf16_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # a, b hold bf16 bit patterns as uint16: bitcast them; d uses fp32 inputs rounded in-kernel
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.bfloat16, bitcast=True)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]).to(tl.bfloat16, bitcast=True)
    acc = tl.full((M, N), 1.0, tl.float32)
    c = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
    af = a.to(tl.float32)
    d = tl.dot(af.to(tl.bfloat16), b, out_dtype=tl.float32)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], d)


@triton.jit
def dot_acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the tutorial's masked K loop on tiles of the pointers' type (bf16 here), accumulating
    # into the fp32 values already in c, out_dtype spelled out
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=cmask, other=0.0)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=cmask)


@triton.jit
def dot_trans_b_kernel(a_ptr, bt_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # c = a @ bt.T (attention's q @ k.T): B is a transposed load
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    bt = tl.load(bt_ptr + rn[:, None] * K + rk[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, tl.trans(bt)))


@triton.jit
def dot_i8_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.zeros((M, N), dtype=tl.int32)
    acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    acc = tl.dot(a, b, acc)                      # twice: the accumulator carries
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def dot_batched_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                       K: tl.constexpr):
    rb = tl.arange(0, B)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb[:, None, None] * (M * N) + rm[None, :, None] * N + rn[None, None, :], c)


@triton.jit
def dot_precision_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # input_precision / allow_tf32 are accepted (CPU computes in full fp32); out fp16 via .to
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision="ieee") + tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(tl.float16))


@triton.jit
def dot_add_forms_kernel(a_ptr, b_ptr, c_ptr, x_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                         BK: tl.constexpr, FORM: tl.constexpr):
    # c += a @ b over a K loop, the product added to the accumulator the ways kernels write it
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    x = tl.zeros((M, N), dtype=acc.dtype)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        if FORM == 0:
            acc += tl.dot(a, b)
        elif FORM == 1:
            acc = tl.dot(a, b) + acc
        elif FORM == 2:
            x = tl.dot(a, b)  # read twice: added, and carried out of the loop
            acc = acc + x
        elif FORM == 3:
            acc = acc + tl.dot(a, b) + 1
        else:
            acc = acc + (tl.dot(a, b) + tl.dot(a, b))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
    tl.store(x_ptr + rm[:, None] * N + rn[None, :], x)


@triton.jit
def dot_acc_expr_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr,
                        FORM: tl.constexpr):
    # a loop-carried accumulator passed to the dot through an expression of itself: read at
    # the dot's own position (scaled), at other positions (each row reversed), or through a
    # reduction of the whole tile computed before the dot
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    rev = tl.broadcast_to((M - 1 - rm)[:, None], (M, N))
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        if FORM == 0:
            acc = tl.dot(a, b, acc * 0.5)
        elif FORM == 1:
            acc = tl.dot(a, b, tl.gather(acc, rev, 0))
        else:
            acc = tl.dot(a, b, acc - tl.max(acc, 1)[:, None])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def dot_narrow_out_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr,
                          BF16: tl.constexpr, ACC: tl.constexpr):
    # fp16 inputs, an fp16 (or bf16) result: out_dtype spelled out, or (ACC) the result type taken
    # from the accumulator loaded from c; one dot per BK columns of K, the result carried
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
    if ACC:
        acc = tl.load(c_ptrs)
    elif BF16:
        acc = tl.zeros((M, N), dtype=tl.bfloat16)
    else:
        acc = tl.zeros((M, N), dtype=tl.float16)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        if ACC:
            acc = tl.dot(a, b, acc)
        elif BF16:
            acc += tl.dot(a, b, out_dtype=tl.bfloat16)
        else:
            acc += tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptrs, acc)


@triton.jit
def dot_f16_out_3d_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # Triton's test_dot3d with out_dtype=float16: batched fp16 tiles into an fp16 result
    rb = tl.arange(0, B)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + rb[:, None, None] * (M * N) + rm[None, :, None] * N + rn[None, None, :], c)


@triton.jit
def dot_precision_loop_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                              P: tl.constexpr, TRANS_B: tl.constexpr):
    # the masked K loop accumulating fp32 tiles into the values already in c, with the
    # precision P: an input_precision, "default" (none given) or "allow_tf32=True/False";
    # TRANS_B: b is [N, K] and the dot reads tl.trans of its tiles
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=cmask, other=0.0)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        if TRANS_B:
            bt = tl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :],
                         mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K), other=0.0)
            b = tl.trans(bt)
        else:
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                        mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        if P == "default":
            acc = tl.dot(a, b, acc)
        elif P == "allow_tf32=True":
            acc = tl.dot(a, b, acc, allow_tf32=True)
        elif P == "allow_tf32=False":
            acc = tl.dot(a, b, acc, allow_tf32=False)
        else:
            acc = tl.dot(a, b, acc, input_precision=P)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=cmask)


@triton.jit
def dot_precision_once_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                              P: tl.constexpr):
    # one dot of whole tiles (no loop carries its result) plus 1
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision=P) + 1.0)


@triton.jit
def dot_i8_loop_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       TRANS_B: tl.constexpr):
    # the masked K loop of int8 tiles accumulating into the int32 values already in c;
    # TRANS_B: b is [N, K] and the dot reads tl.trans of its tiles
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=cmask, other=0)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K),
                    other=0)
        if TRANS_B:
            bt = tl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :],
                         mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K), other=0)
            b = tl.trans(bt)
        else:
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N),
                        other=0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=cmask)
