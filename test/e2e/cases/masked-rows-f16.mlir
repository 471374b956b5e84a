// An MQA decode (4 query heads on one KV head, D = 128, 1024 keys, f16) with an additive mask
// input, for rows the mask hides: sweep.sh binds a mask that hides every key
// of batch row 0 (its output is NaN, as the unfused softmax's 0/0), every
// key but the last 124 of row 1 (most split-KV chunks see no key), and a
// scattered few of row 2.
func.func @masked_rows_f16(%q: tensor<3x4x1x128xf16> {poot.name = "q"},
                           %k: tensor<3x1x1024x128xf16> {poot.name = "k"},
                           %v: tensor<3x1x1024x128xf16> {poot.name = "v"},
                           %mask: tensor<3x1x1x1024xf16> {poot.name = "mask"})
    -> tensor<3x4x1x128xf16> {
  %k5 = poot.reshape %k : tensor<3x1x1024x128xf16> -> tensor<3x1x1x1024x128xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 3, 1, 4, 1024, 128>} : tensor<3x1x1x1024x128xf16>
  %kr = poot.reshape %kb : tensor<3x1x4x1024x128xf16> -> tensor<3x4x1024x128xf16>
  %v5 = poot.reshape %v : tensor<3x1x1024x128xf16> -> tensor<3x1x1x1024x128xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 3, 1, 4, 1024, 128>} : tensor<3x1x1x1024x128xf16>
  %vr = poot.reshape %vb : tensor<3x1x4x1024x128xf16> -> tensor<3x4x1024x128xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<3x4x1024x128xf16>
  %s = poot.matmul %q, %kt : tensor<3x4x1x128xf16>, tensor<3x4x128x1024xf16>
  %c = poot.constant dense<0.0883883476> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<3x4x1x1024xf16>, tensor<f16>
  %sm = poot.add %ss, %mask : tensor<3x4x1x1024xf16>, tensor<3x1x1x1024xf16>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<3x4x1x1024xf16>
  %d = poot.sub %sm, %m : tensor<3x4x1x1024xf16>, tensor<3x4x1x1xf16>
  %e = poot.exp %d : tensor<3x4x1x1024xf16>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<3x4x1x1024xf16>
  %p = poot.div %e, %z : tensor<3x4x1x1024xf16>, tensor<3x4x1x1xf16>
  %o = poot.matmul %p, %vr : tensor<3x4x1x1024xf16>, tensor<3x4x1024x128xf16>
  return %o : tensor<3x4x1x128xf16>
}
