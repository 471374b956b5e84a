module {
  func.func @rope(%arg0: tensor<1x4x8x64xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x64xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.562341332, 0.316227764, 0.177827939, 1.000000e-01, 0.0562341325, 0.0316227749, 0.0177827943, 0.00999999977, 0.00562341325, 0.00316227763, 0.00177827943, 1.000000e-03, 5.62341302E-4, 3.16227757E-4, 1.7782794E-4]]]]> : tensor<1x1x1x16xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x16xf32>
    %6 = poot.reshape %5 : tensor<1x1x8x16xf32> -> tensor<1x1x8x16x1xf32>
    %7 = poot.broadcast %6 {shape = array<i64: 1, 1, 8, 16, 2>} : tensor<1x1x8x16x1xf32>
    %8 = poot.reshape %7 : tensor<1x1x8x16x2xf32> -> tensor<1x1x8x32xf32>
    %9 = poot.cos %8 : tensor<1x1x8x32xf32>
    %10 = poot.sin %8 : tensor<1x1x8x32xf32>
    %11 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x64xf32>
    %12 = poot.slice %11 {limit = array<i64: 1, 4, 8, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x32xf32>
    %13 = poot.slice %11 {limit = array<i64: 1, 4, 8, 32>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x32xf32>
    %14 = poot.neg %13 : tensor<1x4x8x16xf32>
    %15 = poot.reshape %14 : tensor<1x4x8x16xf32> -> tensor<1x4x8x16x1xf32>
    %16 = poot.reshape %12 : tensor<1x4x8x16xf32> -> tensor<1x4x8x16x1xf32>
    %17 = poot.concat %15, %16 {axis = 4 : i64} : tensor<1x4x8x16x1xf32>, tensor<1x4x8x16x1xf32>
    %18 = poot.reshape %17 : tensor<1x4x8x16x2xf32> -> tensor<1x4x8x32xf32>
    %19 = poot.mul %11, %9 : tensor<1x4x8x32xf32>, tensor<1x1x8x32xf32>
    %20 = poot.mul %18, %10 : tensor<1x4x8x32xf32>, tensor<1x1x8x32xf32>
    %21 = poot.add %19, %20 : tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>
    %22 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 64>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x64xf32>
    %23 = poot.concat %21, %22 {axis = 3 : i64} : tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32>
    return %23 : tensor<1x4x8x64xf32>
  }
}
