// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF BloomAttention 4.3x eager in f16 with the ALiBi tensor built in the
// graph: build_alibi_tensor for 8 heads, slopes 0.5^(h+1), times
// arange_tensor = (ones.cumsum(-1) - 1) * ones (folded to [0 .. kv-1]),
// reshaped [B*H, 1, kv]; matmul_result = alibi.baddbmm(batch1=q, batch2=k,
// beta=1.0, alpha=inv_norm_factor) with q [B*H, q, D], k [B*H, D, kv];
// view [B, H, q, kv]; to(float) (f16 input); masked_fill(causal_mask,
// finfo(f32).min) with the bool mask seq_ids[:, None] < seq_ids[None, :];
// softmax(dim=-1, dtype=f32).to(f16); view [B*H, q, kv]; bmm with v.
// The bias is slope * t (key position only), not slope * (t - i).
// Prefill, B = 1, H = 8, L = 4, D = 40.

// CHECK-LABEL: func.func @bloom_alibi_key_only_f16
// The folded table slope * t is linear along the keys in every head: ALiBi
// (slope * (t - i) up to slope * i, constant along the row).
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}}, %{{.+}}, %{{.+}} {alibi_slopes = array<f64: 5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03>, causal, n_rep = 1 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158081, causal, alibi
func.func @bloom_alibi_key_only_f16(%q: tensor<8x4x40xf16>, %k: tensor<8x40x4xf16>,
                                    %v: tensor<8x4x40xf16>) -> tensor<8x4x40xf16> {
  %ar = poot.constant dense<[[[0.0, 1.0, 2.0, 3.0]]]> : tensor<1x1x4xf32>
  %slopes = poot.constant dense<[[[0.5], [0.25], [0.125], [0.0625], [0.03125], [0.015625], [0.0078125], [0.00390625]]]> : tensor<1x8x1xf32>
  %sb = poot.convert %slopes : tensor<1x8x1xf32> -> tensor<1x8x1xbf16>
  %arb = poot.convert %ar : tensor<1x1x4xf32> -> tensor<1x1x4xbf16>
  %alibi = poot.mul %sb, %arb : tensor<1x8x1xbf16>, tensor<1x1x4xbf16>
  %alibi3 = poot.reshape %alibi : tensor<1x8x4xbf16> -> tensor<8x1x4xbf16>
  %alibih = poot.convert %alibi3 : tensor<8x1x4xbf16> -> tensor<8x1x4xf16>
  %s = poot.matmul %q, %k : tensor<8x4x40xf16>, tensor<8x40x4xf16>
  %c = poot.constant dense<0.158113882> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<8x4x4xf16>, tensor<f16>
  %sa = poot.add %alibih, %ss : tensor<8x1x4xf16>, tensor<8x4x4xf16>
  %s4 = poot.reshape %sa : tensor<8x4x4xf16> -> tensor<1x8x4x4xf16>
  %s32 = poot.convert %s4 : tensor<1x8x4x4xf16> -> tensor<1x8x4x4xf32>
  %seq = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %sr = poot.reshape %seq : tensor<4xi64> -> tensor<4x1xi64>
  %sc = poot.reshape %seq : tensor<4xi64> -> tensor<1x4xi64>
  %hid = poot.compare lt, %sr, %sc : tensor<4x1xi64>, tensor<1x4xi64>
  %h4 = poot.reshape %hid : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %h4, %min, %s32 : tensor<1x1x4x4xi1>, tensor<f32>, tensor<1x8x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x8x4x4xf32>, tensor<1x8x4x1xf32>
  %e = poot.exp %d : tensor<1x8x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x4x4xf32>
  %p = poot.div %e, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x1xf32>
  %ph = poot.convert %p : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf16>
  %p3 = poot.reshape %ph : tensor<1x8x4x4xf16> -> tensor<8x4x4xf16>
  %o = poot.matmul %p3, %v : tensor<8x4x4xf16>, tensor<8x4x40xf16>
  return %o : tensor<8x4x40xf16>
}
