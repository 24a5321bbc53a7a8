# A transposed tile (attention's q @ k.T, a linear layer's x @ w.T) is written to a buffer of
# its own 16 x 16 blocks at a time on AVX-512: 16 row loads, 4 stages of 8 shuffle pairs
# (bit h of the row and the column index exchanged per stage), 16 row stores; the dot reads
# that buffer as an ordinary B. No gather (the transpose read a gather per 16 elements).
# On NVPTX the transpose stays a read at the permuted index where it is consumed.
# RUN: %tilec compile %s -k nt -s "*fp32:16, *fp32:16, *fp32:16, 16, 64, 32" --target x86-64-v4 --emit vector | FileCheck %s
# RUN: %tilec compile %s -k nt -s "*fp32:16, *fp32:16, *fp32:16, 16, 64, 32" --target x86-64-v3 --emit vector | FileCheck %s --check-prefix=AVX2
import triton
import triton.language as tl


@triton.jit
def nt(a_ptr, w_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    w = tl.load(w_ptr + rn[:, None] * K + rk[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, tl.trans(w)))

# CHECK-NOT: vector.gather
# w's [64, 32] -> [32, 64]: 4 x 2 blocks
# CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
# CHECK-COUNT-16: vector.load {{.*}} vector<16xf32>
# CHECK: vector.shuffle {{.*}} [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30]
# CHECK: vector.shuffle {{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31]
# CHECK: vector.shuffle {{.*}} [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
# CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27]
# CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
# CHECK-COUNT-16: vector.store {{.*}} vector<16xf32>
# CHECK: math.fma {{.*}} : vector<16xf32>
# CHECK-NOT: vector.gather

# x86-64-v3 (AVX2) takes 8 x 8 blocks in 3 stages
# AVX2-NOT: vector.gather
# AVX2: scf.for %{{.*}} = %c0 to %c32 step %c1
# AVX2-COUNT-8: vector.load {{.*}} vector<8xf32>
# AVX2: vector.shuffle {{.*}} [0, 8, 2, 10, 4, 12, 6, 14]
# AVX2: vector.shuffle {{.*}} [0, 1, 8, 9, 4, 5, 12, 13]
# AVX2: vector.shuffle {{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
# AVX2-COUNT-8: vector.store {{.*}} vector<8xf32>
# AVX2-NOT: vector.gather
