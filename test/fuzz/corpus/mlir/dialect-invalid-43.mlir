func.func @reduce_axis(%a: tensor<4x2xf32>) {
  %0 = poot.reduce_sum %a {axis = -3 : i64} : tensor<4x2xf32>
  return
}
