func.func @reduce_no_axis(%x: tensor<2x3xf32>) {
  %0 = poot.reduce_sum %x {keepdim} : tensor<2x3xf32>
  return
}
