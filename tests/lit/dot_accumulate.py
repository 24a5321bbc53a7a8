# Where a dot's register blocks start and end. A dot into zeros (`tl.dot(a, b)`) starts
# from the zero constant, with no tile of zeros written first; `acc += tl.dot(a, b)` is
# the dot accumulating into acc (as Triton's combine pass: add(acc, dot(a, b, 0)) ->
# dot(a, b, acc)), so no add follows it; and `acc = acc * scale[:, None]` before
# `acc = tl.dot(..., acc)` (attention's rescaling) is computed where the blocks load the
# carried acc, in place in its buffer: no pass of its own, no copy back.
# RUN: %tilec compile %s -k acc_forms -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, 16, 32, 16" --target x86-64-v4 --emit vector | FileCheck %s
# The pipeline's dot-combine step does the rewrite: the front end's tile IR has the add, the
# IR after the step (--emit dot-combine) has the dot accumulating into the carried acc.
# RUN: %tilec compile %s -k acc_forms -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, 16, 32, 16" --emit tile | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k acc_forms -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, 16, 32, 16" --emit dot-combine | FileCheck %s --check-prefix=COMBINED
import triton
import triton.language as tl


@triton.jit
def acc_forms(a_ptr, b_ptr, s_ptr, c_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        s = tl.dot(a, b)
        scale = tl.load(s_ptr + rm + k0)
        acc = acc * scale[:, None]
        acc += tl.dot(a, b)
        tl.store(s_ptr + rm[:, None] * N + rn[None, :], s)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

# acc's zeros, once, before the loop
# CHECK: vector.store %cst, %[[ACC:[a-z_0-9]+]][
# CHECK: scf.for {{.*}} : i32 {
# CHECK-NOT: vector.store %cst
# s: from zeros
# CHECK: scf.for {{.*}} iter_args(%{{.*}} = %cst, %{{.*}} = %cst, %{{.*}} = %cst, %{{.*}} = %cst
# CHECK: math.fma
# acc: loaded, scaled, accumulated, stored back where it was read
# CHECK: %[[V:.*]] = vector.load %[[ACC]][%[[I:.*]]] : memref<512xf32>, vector<16xf32>
# CHECK: %[[S:.*]] = arith.mulf %[[V]],
# CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[S]],
# CHECK: math.fma
# CHECK: vector.store %{{.*}}, %[[ACC]][%[[I]]]
# no add after the dot; the next read of acc is the store after the loop
# CHECK-NOT: arith.addf
# CHECK: vector.load %[[ACC]]
# CHECK-NOT: arith.addf

# TILE: %[[Z:[0-9]+]] = "tile.dot"(%{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO:[0-9]+]])
# TILE: %[[D:[0-9]+]] = "tile.dot"(%{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO2:[0-9]+]])
# TILE-NEXT: %[[SUM:[0-9]+]] = arith.addf %{{[0-9]+}}, %[[D]]
# TILE: scf.yield %[[SUM]]

# COMBINED: %[[SCALED:[0-9]+]] = arith.mulf %arg6,
# COMBINED: %[[D:[0-9]+]] = "tile.dot"(%{{[0-9]+}}, %{{[0-9]+}}, %[[SCALED]])
# COMBINED-NOT: arith.addf
# COMBINED: scf.yield %[[D]]
