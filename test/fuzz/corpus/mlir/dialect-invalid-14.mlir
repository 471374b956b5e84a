func.func @concat_rank(%x: tensor<4xf32>, %y: tensor<4x1xf32>) {
  %0 = poot.concat %x, %y {axis = 0 : i64} : tensor<4xf32>, tensor<4x1xf32>
  return
}
