# Fused attention forward with online softmax in base 2 (tests/lang, family "attention").
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, seq_len, sm_scale,
                    BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, CAUSAL: tl.constexpr):
    # q, k, v, o: [heads, seq_len, D]; grid = (cdiv(seq_len, BM), heads)
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * seq_len * D
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    qk_scale = sm_scale * 1.44269504
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    hi = seq_len
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BM, seq_len)
    for start_n in range(0, hi, BN):
        offs_n = start_n + tl.arange(0, BN)
        kmask = offs_n[:, None] < seq_len
        k = tl.load(k_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=kmask, other=0.0)
        v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=kmask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        ok = offs_n[None, :] < seq_len
        if CAUSAL:
            ok = ok & (offs_m[:, None] >= offs_n[None, :])
        qk = tl.where(ok, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    # l_i started at 1 with m_i = -inf: alpha = 0 on the first block wipes it
    acc = acc / l_i[:, None]
    tl.store(lse_ptr + head * seq_len + offs_m, m_i + tl.math.log2(l_i), mask=offs_m < seq_len)
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], acc, mask=offs_m[:, None] < seq_len)


@triton.jit
def scores_rows_kernel(q_ptr, kt_ptr, v_ptr, o_ptr, amax_ptr, n_keys, BM: tl.constexpr, BN: tl.constexpr,
                       D: tl.constexpr):
    # One key block of fp16 scores read only by row reductions and the next dot's A (on nvptx
    # they stay in the MMA fragments when BM >= 16 x warps): K given transposed ([D, n]
    # row-major, so B is not tl.trans), keys past n_keys masked with -inf, the row argmax,
    # and p @ v with p = exp(s - max) / sum.
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    kt = tl.load(kt_ptr + offs_d[:, None] * BN + offs_n[None, :])
    s = tl.dot(q, kt)
    s = tl.where((offs_n < n_keys)[None, :], s, float("-inf"))
    m = tl.max(s, 1)
    i = tl.argmax(s, 1)
    p = tl.exp(s - m[:, None])
    p = p / tl.sum(p, 1)[:, None]
    v = tl.load(v_ptr + offs_n[:, None] * D + offs_d[None, :])
    o = tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], o)
    tl.store(amax_ptr + offs_m, i)


@triton.jit
def row_state_kernel(q_ptr, k_ptr, o_ptr, m_ptr, c_ptr, trace_ptr, n_keys, BM: tl.constexpr, BN: tl.constexpr,
                     D: tl.constexpr, TRACE: tl.constexpr):
    # Per-row state carried across a key loop beside a tl.dot accumulator (nvptx: in the
    # quads' registers when BM >= 16 x warps, "row vectors" of backend/nvptx_frags.c): the
    # running max starts from memory (m_ptr), an int32 count of the blocks that raised it, and
    # acc = sum of exp2(s - m) @ k rescaled by exp2(m_old - m_new). TRACE also stores the
    # running max of every block from inside the loop (a store reads the row vector: it then
    # stays in shared memory).
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.load(m_ptr + offs_m)
    c_i = tl.zeros([BM], dtype=tl.int32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, n_keys, BN):
        k = tl.load(k_ptr + (start + offs_n)[:, None] * D + offs_d[None, :])
        s = tl.dot(q, tl.trans(k))
        mx = tl.max(s, 1)
        m_new = tl.maximum(m_i, mx)
        c_i = c_i + tl.where(mx > m_i, 1, 0)
        p = tl.math.exp2(s - m_new[:, None])
        acc = tl.dot(p.to(tl.float16), k, acc * tl.math.exp2(m_i - m_new)[:, None])
        if TRACE:
            tl.store(trace_ptr + (start // BN) * (tl.num_programs(0) * BM) + offs_m, m_new)
        m_i = m_new
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc)
    tl.store(m_ptr + offs_m, m_i)
    tl.store(c_ptr + offs_m, c_i)


@triton.jit
def many_loops_kernel(q_ptr, k_ptr, o_ptr, n_keys, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr,
                      PASSES: tl.constexpr):
    # PASSES online-softmax loops one after the other (nvptx: each keeps its scores, row
    # vectors and accumulator in registers; the records of a finished loop's make room for
    # the next one's): out = sum over p of softmax2(q k^T (p + 1)) @ k.
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    out = tl.zeros([BM, D], dtype=tl.float32)
    for p in tl.static_range(PASSES):
        m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BM], dtype=tl.float32)
        acc = tl.zeros([BM, D], dtype=tl.float32)
        for start in range(0, n_keys, BN):
            k = tl.load(k_ptr + (start + offs_n)[:, None] * D + offs_d[None, :])
            s = tl.dot(q, tl.trans(k)) * (p + 1.0)
            m_new = tl.maximum(m_i, tl.max(s, 1))
            pr = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(pr, 1)
            acc = tl.dot(pr.to(tl.float16), k, acc * alpha[:, None])
            m_i = m_new
        out += acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], out)
