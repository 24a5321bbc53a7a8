# bench/kernels/attention.py — benchmark kernel: fused attention forward in the shape of
# Triton's fused-attention tutorial (flash attention): one program per BLOCK_M query rows of
# one (batch, head); K and V are streamed in BLOCK_N blocks with an online softmax in base 2
# (exp2, the scale folded into log2(e)/sqrt(d)); two tl.dot per block (q @ k^T, then p @ v
# into the accumulator). Causal attention runs the blocks strictly below the diagonal without
# a mask and only the diagonal block(s) with one. Writes O (the input dtype) and the row's
# log-sum-exp in base 2 (fp32), what a backward pass needs.
#
# Layout: q, k, v, o are [Z, H, SEQ, HEAD_DIM] with the last dimension contiguous (strides of
# the other three passed); SEQ is a multiple of BLOCK_M and BLOCK_N (the host checks).
# Grid: (SEQ // BLOCK_M, Z * H).
import triton
import triton.language as tl


@triton.jit
def _attn_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_n, lo, hi, offs_m, qk_scale,
                 BLOCK_N: tl.constexpr, ON_DIAGONAL: tl.constexpr):
    # Online softmax over key blocks [lo, hi): m_i is the running row max (in log2 units),
    # l_i the running sum of exp2(s - m_i), acc the running sum of p @ v.
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in range(lo, hi, BLOCK_N):
        k = tl.load(k_ptrs + start_n * stride_n)
        s = tl.dot(q, tl.trans(k))
        if ON_DIAGONAL:
            visible = offs_m[:, None] >= (start_n + offs_n)[None, :]
            s = tl.where(visible, s * qk_scale, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(s, 1))
            s = s - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            s = s * qk_scale - m_new[:, None]
        p = tl.math.exp2(s)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs + start_n * stride_n)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, sm_scale,
                    stride_z, stride_h, stride_n, H, SEQ,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * stride_z + (zh % H).to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_n + offs_d[None, :])
    k_ptrs = k_ptr + base + offs_n[:, None] * stride_n + offs_d[None, :]
    v_ptrs = v_ptr + base + offs_n[:, None] * stride_n + offs_d[None, :]
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x * log2(e))
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        # Keys before this block's first query are visible to every row: no mask.
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_n, 0, start_m * BLOCK_M,
                                     offs_m, qk_scale, BLOCK_N, False)
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_n, start_m * BLOCK_M,
                                     (start_m + 1) * BLOCK_M, offs_m, qk_scale, BLOCK_N, True)
    else:
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_n, 0, SEQ,
                                     offs_m, qk_scale, BLOCK_N, False)
    acc = acc / l_i[:, None]
    tl.store(lse_ptr + zh.to(tl.int64) * SEQ + offs_m, m_i + tl.math.log2(l_i))
    tl.store(o_ptr + base + offs_m[:, None] * stride_n + offs_d[None, :], acc.to(o_ptr.dtype.element_ty))
