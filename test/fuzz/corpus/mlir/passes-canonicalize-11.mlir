func.func @reduce_keepdim(%x: tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  %s = poot.reduce_sum %x {axis = -1 : i64} : tensor<2x3x4xf32>
  %s3 = poot.reshape %s : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %m = poot.reduce_max %x {axis = 2 : i64} : tensor<2x3x4xf32>
  %m3 = poot.reshape %m : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return %s3, %m3 : tensor<2x3x1xf32>, tensor<2x3x1xf32>
}
