func.func @fold_scale_chain() -> tensor<f32> {
  %d = poot.constant dense<64> : tensor<i64>
  %df = poot.convert %d : tensor<i64> -> tensor<f32>
  %s = poot.sqrt %df : tensor<f32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %s : tensor<f32>, tensor<f32>
  %q = poot.sqrt %r : tensor<f32>
  return %q : tensor<f32>
}
