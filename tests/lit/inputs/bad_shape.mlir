func.func @k(%x: !tile.ptr<f32>) {
  %r = "tile.range"() {start = 0 : i32, end = 8 : i32} : () -> tensor<8xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<8x!tile.ptr<f32>>
  %xp = "tile.addptr"(%xs, %r) : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32>>
  %v = "tile.load"(%xp) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8x!tile.ptr<f32>>) -> tensor<16xf32>
  return
}
