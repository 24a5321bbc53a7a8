# bench/kernels/matmul_i8.py — int8 matmul into int32 (tl.dot of int8 tiles); not in the
# bench.sh suite, timed by hand to compare the VNNI path (host with AVX-512 VNNI) with the
# generic one (--target x86-64-v4 has no VNNI):
#   tilec run bench/kernels/matmul_i8.py -k mm8 --grid 128 --target host a_ptr=a.npy b_ptr=b.npy \
#     c_ptr=c.npy M=1024 N=1024 K=1024 BM=64 BN=128 BK=32 --repeat 20
# with a, b int8 1024x1024 and c int32 .npy files.
import triton
import triton.language as tl


@triton.jit
def mm8(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    tn = tl.cdiv(N, BN)
    pm = pid // tn
    pn = pid % tn
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc, out_dtype=tl.int32)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
