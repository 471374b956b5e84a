module {
  func.func @rope(%arg0: tensor<1x4x8x96xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x96xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.562341332, 0.316227764, 0.177827939, 1.000000e-01, 0.0562341325, 0.0316227749, 0.0177827943, 0.00999999977, 0.00562341325, 0.00316227763, 0.00177827943, 1.000000e-03, 5.62341302E-4, 3.16227757E-4, 1.7782794E-4]]]]> : tensor<1x1x1x16xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x16xf32>
    %6 = poot.concat %5, %5 {axis = 3 : i64} : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
    %7 = poot.cos %6 : tensor<1x1x8x32xf32>
    %8 = poot.sin %6 : tensor<1x1x8x32xf32>
    %9 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x96xf32>
    %10 = poot.slice %9 {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x32xf32>
    %11 = poot.slice %9 {limit = array<i64: 1, 4, 8, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x32xf32>
    %12 = poot.neg %11 : tensor<1x4x8x16xf32>
    %13 = poot.concat %12, %10 {axis = 3 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
    %14 = poot.mul %9, %7 : tensor<1x4x8x32xf32>, tensor<1x1x8x32xf32>
    %15 = poot.mul %13, %8 : tensor<1x4x8x32xf32>, tensor<1x1x8x32xf32>
    %16 = poot.add %14, %15 : tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>
    %17 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 96>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x96xf32>
    %18 = poot.concat %16, %17 {axis = 3 : i64} : tensor<1x4x8x32xf32>, tensor<1x4x8x64xf32>
    return %18 : tensor<1x4x8x96xf32>
  }
}
