# The tutorial-style matmul, examples/matmul/matmul.py (the one copy; this file holds only the
# checks): A and B tiles (2-D pointer tiles from offs[:, None] * stride + offs[None, :],
# advanced by `+=` in the K loop) load as row-wise vector loads, the K loop carries the
# pointers as scalars, and tl.dot becomes a register-blocked FMA kernel. The lines of the A
# and B tiles the next iteration loads (the pointers plus the loop's step) are prefetched
# into L2 (locality 2: a whole dot runs before they are read), not while this iteration's
# tiles are packed but a share per register block: 8 of A's 128 and 8 of B's 128 lines in
# each of the 16 blocks of 4 rows x 64 columns.
# RUN: %tilec compile %S/../../examples/matmul/matmul.py -k matmul_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32, 8" --target x86-64-v4 --emit vector | FileCheck %s

# CHECK-NOT: vector.gather
# CHECK-NOT: vector.scatter
# CHECK: scf.for {{.*}} iter_args({{.*}}) -> (i64, i64)
# CHECK-NOT: memref.prefetch
# CHECK: vector.maskedload {{.*}} vector<16xf32>
# CHECK-NOT: memref.prefetch
# CHECK: vector.load {{.*}} vector<16xf32>
# CHECK-NOT: memref.prefetch
# CHECK: scf.for {{.*}} step %c4
# CHECK-COUNT-16: memref.prefetch {{.*}} read, locality<2>, data
# CHECK-NOT: memref.prefetch
# CHECK: math.fma {{.*}} : vector<16xf32>
# CHECK: math.fma {{.*}} : vector<16xf32>
# CHECK: vector.maskedstore
# CHECK-NOT: vector.gather
