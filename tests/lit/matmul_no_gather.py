# The tutorial-style matmul: A and B tiles (2-D pointer tiles from offs[:, None] * stride
# + offs[None, :], advanced by `+=` in the K loop) load as row-wise vector loads, the K
# loop carries the pointers as scalars, and tl.dot becomes a register-blocked FMA kernel.
# While packing this iteration's A and B tiles, the rows the next iteration loads (the
# pointers plus the loop's step) are prefetched.
# RUN: %tilec compile %s -k matmul_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32, 8" --target x86-64-v4 --emit vector | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))

# CHECK-NOT: vector.gather
# CHECK-NOT: vector.scatter
# CHECK: scf.for {{.*}} iter_args({{.*}}) -> (i64, i64)
# CHECK: memref.prefetch {{.*}} read, locality<3>, data
# CHECK: vector.maskedload {{.*}} vector<16xf32>
# CHECK: memref.prefetch {{.*}} read, locality<3>, data
# CHECK: vector.load {{.*}} vector<16xf32>
# CHECK: math.fma {{.*}} : vector<16xf32>
# CHECK: math.fma {{.*}} : vector<16xf32>
# CHECK: vector.maskedstore
# CHECK-NOT: vector.gather
