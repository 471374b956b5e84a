func.func @fold_unary() -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %d = poot.constant dense<96.0> : tensor<f32>
  %r = poot.rsqrt %d : tensor<f32>
  %z = poot.constant dense<0.0> : tensor<2xf32>
  %one = poot.constant dense<1.0> : tensor<2xf32>
  %e = poot.exp %z : tensor<2xf32>
  %t = poot.tanh %z : tensor<2xf32>
  %l = poot.log %one : tensor<2xf32>
  %m2 = poot.constant dense<-2> : tensor<i32>
  %a = poot.abs %m2 : tensor<i32>
  %n = poot.neg %a : tensor<i32>
  %s = poot.sin %z : tensor<2xf32>
  %c = poot.cos %z : tensor<2xf32>
  return %r, %e, %t, %l, %n, %s, %c : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>
}
