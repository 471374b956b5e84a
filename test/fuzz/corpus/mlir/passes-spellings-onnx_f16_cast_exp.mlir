func.func @onnx_f16_cast_exp(%q: tensor<1x2x3x32xf16>, %k: tensor<1x2x8x32xf16>,
                             %v: tensor<1x2x8x32xf16>) -> tensor<1x2x3x32xf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf16>
  %s = poot.matmul %q, %kt : tensor<1x2x3x32xf16>, tensor<1x2x32x8xf16>
  %c = poot.constant dense<0.1768> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf16>, tensor<f16>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf16>
  %d = poot.sub %ss, %m : tensor<1x2x3x8xf16>, tensor<1x2x3x1xf16>
  %d32 = poot.convert %d : tensor<1x2x3x8xf16> -> tensor<1x2x3x8xf32>
  %e32 = poot.exp %d32 : tensor<1x2x3x8xf32>
  %e = poot.convert %e32 : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf16>
  %p = poot.div %e, %z : tensor<1x2x3x8xf16>, tensor<1x2x3x1xf16>
  %o = poot.matmul %p, %v : tensor<1x2x3x8xf16>, tensor<1x2x8x32xf16>
  return %o : tensor<1x2x3x32xf16>
}
