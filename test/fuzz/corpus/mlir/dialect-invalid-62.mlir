func.func @result_unknown(%a: tensor<i32>) -> (tensor<i32> {poot.slot = "pos"}) {
  return %a : tensor<i32>
}
