func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = poot.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32>
  %1 = poot.broadcast %0 {shape = array<i64: 2, 3>} : tensor<2x3xf32>
  %2 = poot.reshape %1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = poot.convert %2 : tensor<2x3xf32> -> tensor<2x3xf32>
  %zero = poot.constant dense<0.0> : tensor<2x3xf32>
  %4 = poot.add %3, %zero : tensor<2x3xf32>, tensor<2x3xf32>
  %one = poot.constant dense<1.0> : tensor<2x3xf32>
  %5 = poot.mul %4, %one : tensor<2x3xf32>, tensor<2x3xf32>
  %6 = poot.concat %5 {axis = 0 : i64} : tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}
