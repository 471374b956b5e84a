func.func @sources() -> (tensor<2x3xf32>, tensor<4x8xi32>, tensor<4xf16>) {
  %c = poot.constant dense<1.5> : tensor<2x3xf32>
  %i = poot.iota {dim = 1 : i64} : tensor<4x8xi32>
  %f = poot.iota {dim = 0 : i64} : tensor<4xf16>
  return %c, %i, %f : tensor<2x3xf32>, tensor<4x8xi32>, tensor<4xf16>
}

func.func @layout(%x: tensor<2x3x4xbf16>, %y: tensor<2x5x4xbf16>) -> (tensor<4x2x3xbf16>, tensor<6x4xbf16>, tensor<7x2x3x4xbf16>, tensor<1x2x2xbf16>, tensor<2x8x4xbf16>, tensor<2x3x4xf32>) {
  %t = poot.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xbf16>
  %r = poot.reshape %x : tensor<2x3x4xbf16> -> tensor<6x4xbf16>
  %b = poot.broadcast %x {shape = array<i64: 7, 2, 3, 4>} : tensor<2x3x4xbf16>
  %s = poot.slice %x {start = array<i64: 1, 0, 0>, limit = array<i64: 2, 3, 4>, step = array<i64: 1, 2, 3>} : tensor<2x3x4xbf16>
  %cat = poot.concat %x, %y {axis = 1 : i64} : tensor<2x3x4xbf16>, tensor<2x5x4xbf16>
  %cv = poot.convert %x : tensor<2x3x4xbf16> -> tensor<2x3x4xf32>
  return %t, %r, %b, %s, %cat, %cv : tensor<4x2x3xbf16>, tensor<6x4xbf16>, tensor<7x2x3x4xbf16>, tensor<1x2x2xbf16>, tensor<2x8x4xbf16>, tensor<2x3x4xf32>
}

func.func @indexing(%cache: tensor<1x2x16x8xf16>, %new: tensor<1x2x1x8xf16>, %pos: tensor<i32>, %pool: tensor<32x2x8xf16>, %read: tensor<3x16xi32>, %write: tensor<4xi32>, %rows: tensor<4x2x8xf16>) -> (tensor<1x2x16x8xf16>, tensor<1x1x4x8xf16>, tensor<3x16x2x8xf16>, tensor<32x2x8xf16>) {
  %z = poot.constant dense<0> : tensor<i32>
  %w = poot.dynamic_update_slice %cache[%z, %z, %pos, %z], %new : tensor<1x2x16x8xf16>, tensor<1x2x1x8xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %d = poot.dynamic_slice %w[%z, %z, %pos, %z] {sizes = array<i64: 1, 1, 4, 8>} : tensor<1x2x16x8xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %g = poot.gather %pool[%read] {axis = 0 : i64} : tensor<32x2x8xf16>, tensor<3x16xi32>
  %s = poot.scatter_update %pool[%write], %rows : tensor<32x2x8xf16>, tensor<4xi32>, tensor<4x2x8xf16>
  return %w, %d, %g, %s : tensor<1x2x16x8xf16>, tensor<1x1x4x8xf16>, tensor<3x16x2x8xf16>, tensor<32x2x8xf16>
}

func.func @arithmetic(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %q: tensor<2x4x1x8xf32>, %k: tensor<1x8x16xf32>, %i: tensor<4xi64>) -> (tensor<2x3x4xf32>, tensor<2x4x1x16xf32>, tensor<2x3x4xi1>, tensor<4xi64>) {
  %0 = poot.add %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32>
  %1 = poot.sub %0, %b : tensor<2x3x4xf32>, tensor<3x1xf32>
  %2 = poot.mul %1, %a : tensor<2x3x4xf32>, tensor<2x1x4xf32>
  %3 = poot.div %2, %b : tensor<2x3x4xf32>, tensor<3x1xf32>
  %4 = poot.max %3, %a : tensor<2x3x4xf32>, tensor<2x1x4xf32>
  %5 = poot.min %4, %a : tensor<2x3x4xf32>, tensor<2x1x4xf32>
  %6 = poot.pow %5, %b : tensor<2x3x4xf32>, tensor<3x1xf32>
  %mm = poot.matmul %q, %k : tensor<2x4x1x8xf32>, tensor<1x8x16xf32>
  %c = poot.compare lt, %6, %a : tensor<2x3x4xf32>, tensor<2x1x4xf32>
  %and = poot.and %c, %c : tensor<2x3x4xi1>, tensor<2x3x4xi1>
  %or = poot.or %and, %c : tensor<2x3x4xi1>, tensor<2x3x4xi1>
  %not = poot.not %or : tensor<2x3x4xi1>
  %sel = poot.select %not, %6, %b : tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<3x1xf32>
  %n = poot.neg %i : tensor<4xi64>
  %ab = poot.abs %n : tensor<4xi64>
  return %sel, %mm, %not, %ab : tensor<2x3x4xf32>, tensor<2x4x1x16xf32>, tensor<2x3x4xi1>, tensor<4xi64>
}

func.func @unary_and_reduce(%x: tensor<2x8xf32>) -> (tensor<2x1xf32>, tensor<8xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = poot.exp %x : tensor<2x8xf32>
  %1 = poot.log %0 : tensor<2x8xf32>
  %2 = poot.tanh %1 : tensor<2x8xf32>
  %3 = poot.neg %2 : tensor<2x8xf32>
  %4 = poot.sin %3 : tensor<2x8xf32>
  %5 = poot.cos %4 : tensor<2x8xf32>
  %6 = poot.sqrt %5 : tensor<2x8xf32>
  %7 = poot.rsqrt %6 : tensor<2x8xf32>
  %8 = poot.abs %7 : tensor<2x8xf32>
  %m = poot.reduce_max %8 {axis = -1 : i64, keepdim} : tensor<2x8xf32>
  %s = poot.reduce_sum %8 {axis = 0 : i64} : tensor<2x8xf32>
  %n = poot.reduce_min %8 {axis = 1 : i64} : tensor<2x8xf32>
  %v, %ix = poot.topk %8 {k = 3 : i64} : tensor<2x8xf32>
  return %m, %s, %n, %v, %ix : tensor<2x1xf32>, tensor<8xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xi32>
}

func.func @guard(%len: tensor<4xi32> {poot.slot = "len", poot.range = array<i64: 0, 64>}) -> (tensor<4xi32>, tensor<i1> {poot.validation}) {
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 16 : i64} : tensor<4xi32>
  %c2, %w2 = poot.index_guard %len {lo = -4 : i64, hi = 3 : i64} : tensor<4xi32>
  return %c, %w : tensor<4xi32>, tensor<i1>
}
