// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF FalconAttention 4.33 eager, the ALiBi branch: matmul_result =
// query_layer_ @ key_layer_.transpose(-1, -2) in bf16, viewed [B, H, q, kv];
// attention_scores.to(float32); attention_logits = attention_scores +
// alibi.view(B, H, 1, -1); attention_logits *= self.inv_norm_factor (the
// ALiBi bias is added BEFORE the scale); F.softmax(attention_logits +
// attention_mask_float, dim=-1, dtype=bf16) with attention_mask_float =
// (mask * 1.0).masked_fill(mask, -1e9) of the bool causal mask
// (seq_ids[:, None] < seq_ids[None, :]); probs @ value_layer_.
// build_alibi_tensor without padding: slopes (0.25^(h+1) for 4 heads) in bf16
// times arange_tensor = (ones.cumsum(-1) - 1) * ones, which an export folds
// to the constant [0, 1, ..., kv-1]. Prefill, B = 1, H = 4, L = 5, D = 32.

// The bias added before the scale is distributed over it:
// (s + alibi) * c = s * c + alibi * c. The folded table slope * t is linear
// along the keys, so it is ALiBi with the slopes times c (0.25 c, ...).
// masked_fill on (mask * 1.0) is select(mask, -1e9, 0); the -1e9 (as bf16
// rounds it) hides keys under a bias that spreads by 0.18 over a row, and
// every row keeps its diagonal: causal.
// CHECK-LABEL: func.func @falcon_alibi_before_scale_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x5x32xbf16>, %[[K:[^:]+]]: tensor<1x4x5x32xbf16>, %[[V:[^:]+]]: tensor<1x4x5x32xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {alibi_slopes = array<f64: 0.0441941{{[0-9]+}}, 0.0110485{{[0-9]+}}, 0.00276213{{[0-9]+}}, 6.905339{{[0-9]+}}E-4>, causal, n_rep = 1 : i64, scale = 0.17677{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, causal, alibi; a bias added before the scale, multiplied by it{{$}}
func.func @falcon_alibi_before_scale_bf16(%q: tensor<1x4x5x32xbf16>, %k: tensor<1x4x5x32xbf16>,
                                          %v: tensor<1x4x5x32xbf16>) -> tensor<1x4x5x32xbf16> {
  %ar = poot.constant dense<[[[0.0, 1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x5xbf16>
  %slopes = poot.constant dense<[[[0.25], [0.0625], [0.015625], [0.00390625]]]> : tensor<1x4x1xbf16>
  %alibi = poot.mul %slopes, %ar : tensor<1x4x1xbf16>, tensor<1x1x5xbf16>
  %alibi3 = poot.reshape %alibi : tensor<1x4x5xbf16> -> tensor<4x1x5xbf16>
  %alibi4 = poot.reshape %alibi3 : tensor<4x1x5xbf16> -> tensor<1x4x1x5xbf16>
  %alibif = poot.convert %alibi4 : tensor<1x4x1x5xbf16> -> tensor<1x4x1x5xf32>
  %seq = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %sr = poot.reshape %seq : tensor<5xi64> -> tensor<5x1xi64>
  %sc = poot.reshape %seq : tensor<5xi64> -> tensor<1x5xi64>
  %hid = poot.compare lt, %sr, %sc : tensor<5x1xi64>, tensor<1x5xi64>
  %hf = poot.convert %hid : tensor<5x5xi1> -> tensor<5x5xf32>
  %neg = poot.constant dense<-1.0e9> : tensor<f32>
  %mf = poot.select %hid, %neg, %hf : tensor<5x5xi1>, tensor<f32>, tensor<5x5xf32>
  %mfb = poot.convert %mf : tensor<5x5xf32> -> tensor<5x5xbf16>
  %mf4 = poot.reshape %mfb : tensor<5x5xbf16> -> tensor<1x1x5x5xbf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x5x32xbf16>, tensor<1x4x32x5xbf16>
  %s32 = poot.convert %s : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %sa = poot.add %s32, %alibif : tensor<1x4x5x5xf32>, tensor<1x4x1x5xf32>
  %inv = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %sa, %inv : tensor<1x4x5x5xf32>, tensor<f32>
  %mff = poot.convert %mf4 : tensor<1x1x5x5xbf16> -> tensor<1x1x5x5xf32>
  %sm = poot.add %ss, %mff : tensor<1x4x5x5xf32>, tensor<1x1x5x5xf32>
  %smb = poot.convert %sm : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %m = poot.reduce_max %smb {axis = 3 : i64, keepdim} : tensor<1x4x5x5xbf16>
  %d = poot.sub %smb, %m : tensor<1x4x5x5xbf16>, tensor<1x4x5x1xbf16>
  %e = poot.exp %d : tensor<1x4x5x5xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xbf16>
  %p = poot.div %e, %z : tensor<1x4x5x5xbf16>, tensor<1x4x5x1xbf16>
  %o = poot.matmul %p, %v : tensor<1x4x5x5xbf16>, tensor<1x4x5x32xbf16>
  return %o : tensor<1x4x5x32xbf16>
}
