module {
  func.func @rope(%arg0: tensor<1x4x8x16xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x16xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.316227764, 1.000000e-01, 0.0316227749, 0.00999999977, 0.00316227763, 1.000000e-03, 3.16227757E-4]]]]> : tensor<1x1x1x8xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x8xf32>
    %6 = poot.reshape %5 : tensor<1x1x8x8xf32> -> tensor<1x1x8x8x1xf32>
    %7 = poot.broadcast %6 {shape = array<i64: 1, 1, 8, 8, 2>} : tensor<1x1x8x8x1xf32>
    %8 = poot.reshape %7 : tensor<1x1x8x8x2xf32> -> tensor<1x1x8x16xf32>
    %9 = poot.cos %8 : tensor<1x1x8x16xf32>
    %10 = poot.sin %8 : tensor<1x1x8x16xf32>
    %11 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x16xf32>
    %12 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x16xf32>
    %13 = poot.neg %12 : tensor<1x4x8x8xf32>
    %14 = poot.reshape %13 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8x1xf32>
    %15 = poot.reshape %11 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8x1xf32>
    %16 = poot.concat %14, %15 {axis = 4 : i64} : tensor<1x4x8x8x1xf32>, tensor<1x4x8x8x1xf32>
    %17 = poot.reshape %16 : tensor<1x4x8x8x2xf32> -> tensor<1x4x8x16xf32>
    %18 = poot.mul %arg0, %9 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>
    %19 = poot.mul %17, %10 : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>
    %20 = poot.add %18, %19 : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
    return %20 : tensor<1x4x8x16xf32>
  }
}
