# A dot's A operand loaded before the loop whose dot reads it (attention's q, read by
# q @ k^T for every K block) is copied into its buffer once, before the loop, not by the
# dot in every trip: inside the loop only k (read in place by its transpose) and v are
# loaded.
# RUN: %tilec compile %s -k invariant_a -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 32, 16" --target x86-64-v4 --emit vector | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def invariant_a(q_ptr, k_ptr, v_ptr, o_ptr, n, BM: tl.constexpr, D: tl.constexpr):
    rows = tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + rows[:, None] * D + offs_d[None, :])
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, n, BM):
        k = tl.load(k_ptr + (start + rows)[:, None] * D + offs_d[None, :])
        v = tl.load(v_ptr + (start + rows)[:, None] * D + offs_d[None, :])
        acc = tl.dot(tl.dot(q, tl.trans(k)), v, acc)
    tl.store(o_ptr + rows[:, None] * D + offs_d[None, :], acc)

# q's view (the last made: %arg0) is read once, before the loop
# CHECK: llvm.insertvalue %arg0
# CHECK: %[[Q:.*]] = builtin.unrealized_conversion_cast {{.*}} to memref<?xf32>
# CHECK: vector.load %[[Q]]
# CHECK: scf.for {{.*}} : i32 {
# k is read by its transpose (16 rows per 16 x 16 block), then v
# CHECK-NOT: vector.load %[[Q]]
# CHECK-COUNT-16: vector.load %[[K:[0-9]+]][{{.*}}] : memref<?xf32>, vector<16xf32>
# CHECK-NOT: vector.load %[[Q]]
# CHECK: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
# CHECK-NOT: vector.load %[[Q]]
# CHECK: return
