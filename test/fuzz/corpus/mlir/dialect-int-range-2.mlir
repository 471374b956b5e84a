func.func @paged_map(%read: tensor<2x16xi32> {poot.slot = "slot_map", poot.range = array<i64: 0, 48>}, %pool: tensor<48x2x8xf32>) -> (tensor<2x16x2x8xf32>, tensor<16xi32>, tensor<2x3xi32>) {
  %row = poot.slice %read {start = array<i64: 0, 0>, limit = array<i64: 1, 16>, step = array<i64: 1, 1>} : tensor<2x16xi32>
  %flat = poot.reshape %row : tensor<1x16xi32> -> tensor<16xi32>
  %kv = poot.gather %pool[%read] {axis = 0 : i64} : tensor<48x2x8xf32>, tensor<2x16xi32>
  %scores = poot.convert %read : tensor<2x16xi32> -> tensor<2x16xf32>
  %v, %i = poot.topk %scores {k = 3 : i64} : tensor<2x16xf32>
  return %kv, %flat, %i : tensor<2x16x2x8xf32>, tensor<16xi32>, tensor<2x3xi32>
}
