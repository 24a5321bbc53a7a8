// The tile dialect parses, verifies and prints back (generic form).
// RUN: %tilec opt %s --stage tile | FileCheck %s
// RUN: not %tilec opt %S/inputs/bad_shape.mlir --stage tile 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %tilec opt %S/inputs/bad_reduce.mlir --stage tile 2>&1 | FileCheck %s --check-prefix=BAD-AXIS
// RUN: not %tilec opt %S/inputs/bad_reduce_shape.mlir --stage tile 2>&1 | FileCheck %s --check-prefix=BAD-REDUCE
// RUN: not %tilec opt %S/inputs/bad_scan_shape.mlir --stage tile 2>&1 | FileCheck %s --check-prefix=BAD-SCAN

// CHECK: "tile.program_id"() {axis = 0 : i32} : () -> i32
// CHECK: "tile.range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<8xi32>
// CHECK: "tile.load"
// BAD: error: 'tile.load' {{.*}}pointer and value shapes differ
// BAD-AXIS: error: 'tile.reduce' {{.*}}axis out of range
// BAD-REDUCE: error: 'tile.reduce' {{.*}}a reduction's result shape is not its operands' without the axis
// BAD-SCAN: error: 'tile.scan' {{.*}}a scan's result shape differs from its operands'
func.func @k(%x: !tile.ptr<f32>) {
  %p = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %r = "tile.range"() {start = 0 : i32, end = 8 : i32} : () -> tensor<8xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<8x!tile.ptr<f32>>
  %xp = "tile.addptr"(%xs, %r) : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
  %v = "tile.load"(%xp) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8x!tile.ptr<f32>>) -> tensor<8xf32>
  "tile.store"(%xp, %v) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<8x!tile.ptr<f32>>, tensor<8xf32>) -> ()
  return
}
