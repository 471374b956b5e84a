func.func @cache(%cache: tensor<2x4096x128xbf16>, %row: tensor<2x1x128xbf16>, %p: tensor<i32>,
                 %pool: tensor<64x2xf32>, %slots: tensor<3xi32>, %rows: tensor<3x2xf32>)
    -> (tensor<2x4096x128xbf16>, tensor<64x2xf32>) {
  %z = poot.constant dense<0> : tensor<i32>
  %0 = poot.dynamic_update_slice %cache[%z, %p, %z], %row : tensor<2x4096x128xbf16>, tensor<2x1x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>
  %1 = poot.scatter_update %pool[%slots], %rows : tensor<64x2xf32>, tensor<3xi32>, tensor<3x2xf32>
  return %0, %1 : tensor<2x4096x128xbf16>, tensor<64x2xf32>
}
