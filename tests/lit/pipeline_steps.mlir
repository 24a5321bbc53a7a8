// The pipeline's named steps (conversion/pipeline.c), each stopped after by `tilec opt
// --stage STEP` on tile IR text: tile (no step: the input, verified) -> dot-combine
// (add(d, dot(a, b, 0)) becomes dot(a, b, d)) -> single-trip-loops -> analysis -> vector.
// RUN: %tilec opt %s --stage tile | FileCheck %s --check-prefix=TILE
// RUN: %tilec opt %s --stage dot-combine | FileCheck %s --check-prefix=COMBINED
// RUN: %tilec opt %s --stage single-trip-loops | FileCheck %s --check-prefix=COMBINED
// RUN: %tilec opt %s --stage analysis | FileCheck %s --check-prefix=ANALYSIS
// RUN: %tilec opt %s --stage vector | FileCheck %s --check-prefix=VECTOR
// RUN: not %tilec opt %s --stage dot-combined 2>&1 | FileCheck %s --check-prefix=BAD
// acc += tl.dot(a, a) with acc loaded from c, 16x16 fp32 (the front end's IR of that kernel).
module {
  func.func @k(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>) {
    %0 = "tile.range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %1 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32 = arith.constant 16 : i32
    %2 = "tile.splat"(%c16_i32) : (i32) -> tensor<16x1xi32>
    %3 = arith.muli %1, %2 : tensor<16x1xi32>
    %4 = "tile.splat"(%arg0) : (!tile.ptr<f32>) -> tensor<16x1x!tile.ptr<f32>>
    %5 = "tile.addptr"(%4, %3) : (tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f32>>
    %6 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<1x16xi32>
    %7 = "tile.broadcast"(%5) : (tensor<16x1x!tile.ptr<f32>>) -> tensor<16x16x!tile.ptr<f32>>
    %8 = "tile.broadcast"(%6) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %9 = "tile.addptr"(%7, %8) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
    %10 = "tile.load"(%9) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<16x16x!tile.ptr<f32>>) -> tensor<16x16xf32>
    %11 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32_0 = arith.constant 16 : i32
    %12 = "tile.splat"(%c16_i32_0) : (i32) -> tensor<16x1xi32>
    %13 = arith.muli %11, %12 : tensor<16x1xi32>
    %14 = "tile.splat"(%arg1) : (!tile.ptr<f32>) -> tensor<16x1x!tile.ptr<f32>>
    %15 = "tile.addptr"(%14, %13) : (tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f32>>
    %16 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<1x16xi32>
    %17 = "tile.broadcast"(%15) : (tensor<16x1x!tile.ptr<f32>>) -> tensor<16x16x!tile.ptr<f32>>
    %18 = "tile.broadcast"(%16) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %19 = "tile.addptr"(%17, %18) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
    %20 = "tile.load"(%19) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<16x16x!tile.ptr<f32>>) -> tensor<16x16xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %21 = "tile.splat"(%cst) : (f32) -> tensor<16x16xf32>
    %22 = "tile.dot"(%10, %10, %21) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %23 = arith.addf %20, %22 : tensor<16x16xf32>
    %24 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<16x1xi32>
    %c16_i32_1 = arith.constant 16 : i32
    %25 = "tile.splat"(%c16_i32_1) : (i32) -> tensor<16x1xi32>
    %26 = arith.muli %24, %25 : tensor<16x1xi32>
    %27 = "tile.splat"(%arg1) : (!tile.ptr<f32>) -> tensor<16x1x!tile.ptr<f32>>
    %28 = "tile.addptr"(%27, %26) : (tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>) -> tensor<16x1x!tile.ptr<f32>>
    %29 = "tile.reshape"(%0) : (tensor<16xi32>) -> tensor<1x16xi32>
    %30 = "tile.broadcast"(%28) : (tensor<16x1x!tile.ptr<f32>>) -> tensor<16x16x!tile.ptr<f32>>
    %31 = "tile.broadcast"(%29) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %32 = "tile.addptr"(%30, %31) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tile.ptr<f32>>
    "tile.store"(%32, %23) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>) -> ()
    return
  }
}

// TILE: %[[X:[0-9]+]] = "tile.load"(%9)
// TILE: %[[P:[0-9]+]] = "tile.dot"(%[[X]], %[[X]], %{{[0-9]+}})
// TILE: %[[S:[0-9]+]] = arith.addf %{{[0-9]+}}, %[[P]]
// TILE: "tile.store"(%{{[0-9]+}}, %[[S]])

// COMBINED: %[[X:[0-9]+]] = "tile.load"(%9)
// COMBINED: %[[D:[0-9]+]] = "tile.load"(%19)
// COMBINED-NOT: arith.addf
// COMBINED: %[[P:[0-9]+]] = "tile.dot"(%[[X]], %[[X]], %[[D]])
// COMBINED-NOT: arith.addf
// COMBINED: "tile.store"(%{{[0-9]+}}, %[[P]])

// the analyses of the IR after the tile steps: the dot's result is stored, no add is left
// ANALYSIS: axis info per value
// ANALYSIS-NOT: arith.addf

// VECTOR: func.func @__tilec_kernel_k
// VECTOR-NOT: "tile.
// VECTOR: math.fma

// BAD: unknown stage 'dot-combined' (expected tile, dot-combine, single-trip-loops, analysis, vector, llvm-dialect, llvm, asm or ptx)
