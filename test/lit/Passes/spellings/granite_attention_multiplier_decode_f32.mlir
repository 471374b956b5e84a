// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Granite (models/granite/modeling_granite.py,
// GraniteAttention with eager_attention_forward) decoding one token with a
// DynamicCache after 8 tokens: self.scaling = config.attention_multiplier
// (0.015625 for a head_dim of 64, not 64^-0.5); key/value =
// torch.cat([past, new], dim=-2); repeat_kv by expand/reshape; the
// masking_utils eager mask at L = 1: kv_idx <= q_idx with q_idx =
// cache_position = 8 (traced), where(mask, 0, finfo(f32).min); attn =
// matmul(q, k^T) * scaling + mask; softmax(dim=-1, dtype=f32); @ v.
// GQA 4/2, D = 64, B = 1, f32.

// CHECK-LABEL: func.func @granite_attention_multiplier_decode_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 2 : i64, scale = 1.562500e-02 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.015625, causal at offset 8{{$}}
func.func @granite_attention_multiplier_decode_f32(%q: tensor<1x4x1x64xf32>, %pk: tensor<1x2x8x64xf32>,
                                                   %pv: tensor<1x2x8x64xf32>, %kn: tensor<1x2x1x64xf32>,
                                                   %vn: tensor<1x2x1x64xf32>) -> tensor<1x4x1x64xf32> {
  %k = poot.concat %pk, %kn {axis = 2 : i64} : tensor<1x2x8x64xf32>, tensor<1x2x1x64xf32>
  %v = poot.concat %pv, %vn {axis = 2 : i64} : tensor<1x2x8x64xf32>, tensor<1x2x1x64xf32>
  %cp = poot.constant dense<8> : tensor<1xi64>
  %qi = poot.reshape %cp : tensor<1xi64> -> tensor<1x1x1x1xi64>
  %kv = poot.iota {dim = 3 : i64} : tensor<1x1x1x9xi64>
  %vis = poot.compare le, %kv, %qi : tensor<1x1x1x9xi64>, tensor<1x1x1x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x1x9xi1>, tensor<f32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x9x64xf32> -> tensor<1x2x1x9x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 9, 64>} : tensor<1x2x1x9x64xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x9x64xf32> -> tensor<1x4x9x64xf32>
  %v5 = poot.reshape %v : tensor<1x2x9x64xf32> -> tensor<1x2x1x9x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 9, 64>} : tensor<1x2x1x9x64xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x9x64xf32> -> tensor<1x4x9x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x9x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x64xf32>, tensor<1x4x64x9xf32>
  %c = poot.constant dense<0.015625> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x9xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x4x1x9xf32>, tensor<1x1x1x9xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x4x1x9xf32>
  %d = poot.sub %sm, %m : tensor<1x4x1x9xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x9xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x4x1x9xf32>
  %p = poot.div %e, %z : tensor<1x4x1x9xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x9xf32>, tensor<1x4x9x64xf32>
  return %o : tensor<1x4x1x64xf32>
}
