func.func @constants() -> (tensor<i32> {poot.name = "len_40"},
                           tensor<i32> {poot.name = "len_3"},
                           tensor<i32> {poot.name = "len_200"},
                           tensor<2x4xf32> {poot.name = "row_2x4"},
                           tensor<1x4xi32> {poot.name = "row_i32"},
                           tensor<1x4xf32> {poot.name = "row"}) {
  %a = poot.constant dense<40> : tensor<i32>
  %b = poot.constant dense<3> : tensor<i32>
  %c = poot.constant dense<200> : tensor<i32>
  %d = poot.constant dense<0.5> : tensor<2x4xf32>
  %e = poot.constant dense<7> : tensor<1x4xi32>
  %f = poot.constant dense<[[0.25, -1.0, 2.0, 0.125]]> : tensor<1x4xf32>
  return %a, %b, %c, %d, %e, %f : tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x4xf32>, tensor<1x4xi32>, tensor<1x4xf32>
}
