module {
  func.func @rope(%arg0: tensor<1x4x8x16xf16> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x16xf16> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.316227764, 1.000000e-01, 0.0316227749, 0.00999999977, 0.00316227763, 1.000000e-03, 3.16227757E-4]]]]> : tensor<1x1x1x8xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x8xf32>
    %6 = poot.concat %5, %5 {axis = 3 : i64} : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
    %7 = poot.cos %6 : tensor<1x1x8x16xf32>
    %8 = poot.convert %7 : tensor<1x1x8x16xf32> -> tensor<1x1x8x16xf16>
    %9 = poot.sin %6 : tensor<1x1x8x16xf32>
    %10 = poot.convert %9 : tensor<1x1x8x16xf32> -> tensor<1x1x8x16xf16>
    %11 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xf16>
    %12 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xf16>
    %13 = poot.neg %12 : tensor<1x4x8x8xf16>
    %14 = poot.concat %13, %11 {axis = 3 : i64} : tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>
    %15 = poot.mul %arg0, %8 : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>
    %16 = poot.mul %14, %10 : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>
    %17 = poot.add %15, %16 : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>
    return %17 : tensor<1x4x8x16xf16>
  }
}
