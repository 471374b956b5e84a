// Every primitive op family the example graphs leave out (pow, log, sqrt,
// min/max, integer neg/abs/pow/matmul/reductions, dynamic_slice, float iota,
// float-to-int convert, strided slice, three-way concat, or, f16 exp): the
// simple kernels lower for every target and match the oracle on the device.
func.func @all(%a: tensor<3x4xf32>, %b: tensor<4xf32>, %i: tensor<3x4xi32> {poot.range = array<i64: -5, 6>}, %p: tensor<i32> {poot.range = array<i64: -2, 9>}, %h: tensor<3x4xf16>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<3xf32>, tensor<3xi32>, tensor<3x4xi32>, tensor<2x3xf32>, tensor<3x12xf32>, tensor<3x4xi1>, tensor<5x4xf32>, tensor<3x4xi32>, tensor<3x4xf16>, tensor<3x4xf32>, tensor<4xi32>) {
  %0 = poot.pow %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %ab = poot.abs %a : tensor<3x4xf32>
  %1 = poot.log %ab : tensor<3x4xf32>
  %2 = poot.sqrt %ab : tensor<3x4xf32>
  %s = poot.add %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>
  %3 = poot.min %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %4 = poot.max %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %ni = poot.neg %i : tensor<3x4xi32>
  %ai = poot.abs %ni : tensor<3x4xi32>
  %5 = poot.dynamic_slice %a[%p, %p] {sizes = array<i64: 2, 2>} : tensor<3x4xf32>, tensor<i32>, tensor<i32>
  %6 = poot.iota {dim = 1 : i64} : tensor<3x4xf32>
  %7 = poot.convert %a : tensor<3x4xf32> -> tensor<3x4xi32>
  %big = poot.mul %a, %a : tensor<3x4xf32>, tensor<3x4xf32>
  %8 = poot.reduce_min %a {axis = 1 : i64} : tensor<3x4xf32>
  %9 = poot.reduce_max %i {axis = 1 : i64} : tensor<3x4xi32>
  %i2 = poot.iota {dim = 0 : i64} : tensor<4x4xi32>
  %ii = poot.matmul %i, %i2 : tensor<3x4xi32>, tensor<4x4xi32>
  %10 = poot.slice %a {start = array<i64: 0, 1>, limit = array<i64: 3, 4>, step = array<i64: 2, 1>} : tensor<3x4xf32>
  %11 = poot.concat %a, %a, %6 {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  %lt = poot.compare lt, %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %ge = poot.compare ge, %i, %ni : tensor<3x4xi32>, tensor<3x4xi32>
  %12 = poot.or %lt, %ge : tensor<3x4xi1>, tensor<3x4xi1>
  %upd = poot.dynamic_update_slice %11[%p, %p], %a : tensor<3x12xf32>, tensor<3x4xf32>, tensor<i32>, tensor<i32>
  %bc = poot.broadcast %b {shape = array<i64: 5, 4>} : tensor<4xf32>
  %ip = poot.pow %i, %ai : tensor<3x4xi32>, tensor<3x4xi32>
  %hh = poot.exp %h : tensor<3x4xf16>
  %tr = poot.tanh %a : tensor<3x4xf32>
  %cs = poot.reduce_sum %i {axis = 0 : i64} : tensor<3x4xi32>
  return %0, %s, %3, %ai, %5, %6, %7, %8, %9, %ii, %10, %upd, %12, %bc, %ip, %hh, %tr, %cs : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<3xf32>, tensor<3xi32>, tensor<3x4xi32>, tensor<2x3xf32>, tensor<3x12xf32>, tensor<3x4xi1>, tensor<5x4xf32>, tensor<3x4xi32>, tensor<3x4xf16>, tensor<3x4xf32>, tensor<4xi32>
}
