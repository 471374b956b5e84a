func.func @reduce_reshaped_elsewhere(%x: tensor<2x3x4xf32>) -> tensor<3x2x1xf32> {
  %s = poot.reduce_sum %x {axis = 2 : i64} : tensor<2x3x4xf32>
  %s3 = poot.reshape %s : tensor<2x3xf32> -> tensor<3x2x1xf32>
  return %s3 : tensor<3x2x1xf32>
}
