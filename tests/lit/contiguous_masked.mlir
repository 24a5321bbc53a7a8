// A masked contiguous 1-D load/store (vector add) lowers to unmasked vector loads in a
// loop over full chunks plus one masked tail, and never to a gather.
// RUN: %tilec opt %s --stage vector --target x86-64-v4 | FileCheck %s
// RUN: %tilec opt %s --stage vector --target x86-64-v3 | FileCheck %s --check-prefix=AVX2
// RUN: %tilec opt %s --stage vector --target x86-64-v2 | FileCheck %s --check-prefix=SSE

// CHECK-LABEL: func.func @__tilec_kernel_add
// CHECK-NOT: vector.gather
// CHECK-NOT: vector.scatter
// CHECK: scf.for
// CHECK-NOT: vector.maskedload
// CHECK: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: }
// CHECK: scf.if
// CHECK: vector.create_mask
// CHECK: vector.maskedload
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
// CHECK-NOT: vector.gather

// AVX2: vector.load {{.*}} vector<8xf32>
// AVX2-NOT: vector<16x
// SSE: vector.load {{.*}} vector<4xf32>
// SSE-NOT: vector<8x

func.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32) {
  %p = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 1024 : i32
  %s = arith.muli %p, %c : i32
  %r = "tile.range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %ss = "tile.splat"(%s) : (i32) -> tensor<1024xi32>
  %off = arith.addi %ss, %r : tensor<1024xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
  %m = arith.cmpi slt, %off, %ns : tensor<1024xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xp = "tile.addptr"(%xs, %off) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %ys = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %yp = "tile.addptr"(%ys, %off) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %os = "tile.splat"(%o) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %op = "tile.addptr"(%os, %off) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %xv = "tile.load"(%xp, %m) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
  %yv = "tile.load"(%yp, %m) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
  %sum = arith.addf %xv, %yv : tensor<1024xf32>
  "tile.store"(%op, %sum, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
  return
}
