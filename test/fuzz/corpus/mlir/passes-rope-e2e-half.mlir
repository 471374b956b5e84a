module {
  func.func @rope(%arg0: tensor<1x4x8x40xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<1x4x8x40xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.convert %2 : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.630957365, 0.398107171, 0.251188636, 0.158489317, 1.000000e-01, 0.0630957335, 0.0398107171, 0.0251188651, 0.0158489328, 0.00999999977, 0.00630957354, 0.00398107152, 0.00251188641, 0.00158489321, 1.000000e-03, 6.30957366E-4, 3.98107164E-4, 2.51188641E-4, 1.58489318E-4]]]]> : tensor<1x1x1x20xf32>
    %5 = poot.mul %3, %4 : tensor<1x1x8x1xf32>, tensor<1x1x1x20xf32>
    %6 = poot.concat %5, %5 {axis = 3 : i64} : tensor<1x1x8x20xf32>, tensor<1x1x8x20xf32>
    %7 = poot.cos %6 : tensor<1x1x8x40xf32>
    %8 = poot.sin %6 : tensor<1x1x8x40xf32>
    %9 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 20>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x40xf32>
    %10 = poot.slice %arg0 {limit = array<i64: 1, 4, 8, 40>, start = array<i64: 0, 0, 0, 20>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x40xf32>
    %11 = poot.neg %10 : tensor<1x4x8x20xf32>
    %12 = poot.concat %11, %9 {axis = 3 : i64} : tensor<1x4x8x20xf32>, tensor<1x4x8x20xf32>
    %13 = poot.mul %arg0, %7 : tensor<1x4x8x40xf32>, tensor<1x1x8x40xf32>
    %14 = poot.mul %12, %8 : tensor<1x4x8x40xf32>, tensor<1x1x8x40xf32>
    %15 = poot.add %13, %14 : tensor<1x4x8x40xf32>, tensor<1x4x8x40xf32>
    return %15 : tensor<1x4x8x40xf32>
  }
}
