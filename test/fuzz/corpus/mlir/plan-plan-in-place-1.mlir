func.func @shared(%cache: tensor<4x8xf32>, %row: tensor<1x8xf32>, %p: tensor<i32>,
                  %slots: tensor<1xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = poot.constant dense<0> : tensor<i32>
  %0 = poot.dynamic_update_slice %cache[%p, %z], %row : tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>
  %1 = poot.neg %cache : tensor<4x8xf32>
  %2 = poot.scatter_update %1[%slots], %row : tensor<4x8xf32>, tensor<1xi32>, tensor<1x8xf32>
  return %0, %2, %cache : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
