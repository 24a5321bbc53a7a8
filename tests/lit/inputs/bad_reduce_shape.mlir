// A reduction along axis 0 of an 8x4 tile gives 4 values, not 8 (dialects/verify.c).
func.func private @add(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  return %s : f32
}
func.func @k(%x: tensor<8x4xf32>) {
  %r = "tile.reduce"(%x) {axis = 0 : i32, combine = @add, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x4xf32>) -> tensor<8xf32>
  return
}
