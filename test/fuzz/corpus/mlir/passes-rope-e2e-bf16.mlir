module {
  func.func @rope(%arg0: tensor<1x4x8x16xbf16> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x16xbf16> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]]]]> : tensor<1x1x1x4xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x4xf32>
    %6 = poot.reshape %5 : tensor<1x1x8x4xf32> -> tensor<1x1x8x4x1xf32>
    %7 = poot.broadcast %6 {shape = array<i64: 1, 1, 8, 4, 2>} : tensor<1x1x8x4x1xf32>
    %8 = poot.reshape %7 : tensor<1x1x8x4x2xf32> -> tensor<1x1x8x8xf32>
    %9 = poot.cos %8 : tensor<1x1x8x8xf32>
    %10 = poot.convert %9 : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xbf16>
    %11 = poot.sin %8 : tensor<1x1x8x8xf32>
    %12 = poot.convert %11 : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xbf16>
    %13 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xbf16>
    %14 = poot.slice %13 {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x8xbf16>
    %15 = poot.slice %13 {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x8x8xbf16>
    %16 = poot.neg %15 : tensor<1x4x8x4xbf16>
    %17 = poot.reshape %16 : tensor<1x4x8x4xbf16> -> tensor<1x4x8x4x1xbf16>
    %18 = poot.reshape %14 : tensor<1x4x8x4xbf16> -> tensor<1x4x8x4x1xbf16>
    %19 = poot.concat %17, %18 {axis = 4 : i64} : tensor<1x4x8x4x1xbf16>, tensor<1x4x8x4x1xbf16>
    %20 = poot.reshape %19 : tensor<1x4x8x4x2xbf16> -> tensor<1x4x8x8xbf16>
    %21 = poot.mul %13, %10 : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
    %22 = poot.mul %20, %12 : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
    %23 = poot.add %21, %22 : tensor<1x4x8x8xbf16>, tensor<1x4x8x8xbf16>
    %24 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xbf16>
    %25 = poot.concat %23, %24 {axis = 3 : i64} : tensor<1x4x8x8xbf16>, tensor<1x4x8x8xbf16>
    return %25 : tensor<1x4x8x16xbf16>
  }
}
