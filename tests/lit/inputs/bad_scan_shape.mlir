// A scan keeps its operands' shape (dialects/verify.c).
func.func private @add(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  return %s : f32
}
func.func @k(%x: tensor<8x4xf32>) {
  %r = "tile.scan"(%x) {axis = 1 : i32, combine = @add, reverse = false, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x4xf32>) -> tensor<8xf32>
  return
}
