func.func @arith(%a: tensor<4xi64> {poot.range = array<i64: -3, 5>}) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %n = poot.neg %a : tensor<4xi64>
  %b = poot.abs %a : tensor<4xi64>
  %two = poot.constant dense<2> : tensor<4xi64>
  %m = poot.mul %a, %two : tensor<4xi64>, tensor<4xi64>
  %x = poot.max %a, %two : tensor<4xi64>, tensor<4xi64>
  return %n, %b, %m, %x : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
