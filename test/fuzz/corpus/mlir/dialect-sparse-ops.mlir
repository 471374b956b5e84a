func.func @block_topk(%s: tensor<2x3x64xf32>, %pos: tensor<i32>, %rows: tensor<2xi64>, %h: tensor<1x16x16xbf16>) -> (tensor<2x3x2xi32>, tensor<2x3x16xi32>, tensor<1x16x1xi32>) {
  %0 = poot.block_topk %s pos(%pos : tensor<i32>) {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  %1 = poot.block_topk %s pos(%rows : tensor<2xi64>) {ratio = 4 : i64, k = 16 : i64} : tensor<2x3x64xf32> -> tensor<2x3x16xi32>
  %2 = poot.block_topk %h {ratio = 16 : i64, k = 1 : i64} : tensor<1x16x16xbf16> -> tensor<1x16x1xi32>
  return %0, %1, %2 : tensor<2x3x2xi32>, tensor<2x3x16xi32>, tensor<1x16x1xi32>
}

func.func @selected_attention(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>, %pos: tensor<2xi32>, %kp: tensor<128x2x32xf32>, %vp: tensor<128x2x16xf32>, %read: tensor<2x64xi32>) -> (tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>) {
  %0 = poot.selected_attention %q, %k, %v, %blocks pos(%pos : tensor<2xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  %1 = poot.selected_attention %q, %kp, %vp, %blocks read(%read : tensor<2x64xi32>) pos(%pos : tensor<2xi32>) {scale = 0.125 : f64, softcap = 50.0 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x2x32xf32>, tensor<128x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  %2 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 64 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return %0, %1, %2 : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
}
