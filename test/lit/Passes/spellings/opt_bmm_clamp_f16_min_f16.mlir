// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF OPTAttention (4.3x) in f16: q = q_proj(x) * head_dim^-0.5 (here on
// the [B * H, L, D] view); w = torch.bmm(q, k^T) viewed [B, H, L, L];
// w = w + attention_mask (the causal mask of _make_causal_mask,
// select(t > i, finfo(f16).min, 0)); w = torch.max(w, finfo(f16).min);
// viewed back; softmax(dim=-1, dtype=f32).to(f16); torch.bmm(p, v).
// The clamp at -65504 changes nothing in a row that keeps a visible key.
// B = 1, H = 2, L = 5, D = 64.

// CHECK-LABEL: func.func @opt_bmm_clamp_f16_min_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal
func.func @opt_bmm_clamp_f16_min_f16(%q: tensor<2x5x64xf16>, %k: tensor<2x5x64xf16>,
                                     %v: tensor<2x5x64xf16>) -> tensor<2x5x64xf16> {
  %c = poot.constant dense<0.125> : tensor<f16>
  %qs = poot.mul %q, %c : tensor<2x5x64xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x64xf16>
  %w = poot.matmul %qs, %kt : tensor<2x5x64xf16>, tensor<2x64x5xf16>
  %w4 = poot.reshape %w : tensor<2x5x5xf16> -> tensor<1x2x5x5xf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x5xi32>, tensor<1x1x5x1xi32>
  %min = poot.constant dense<-65504.0> : tensor<f16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %cm = poot.select %hid, %min, %zero : tensor<1x1x5x5xi1>, tensor<f16>, tensor<f16>
  %wm = poot.add %w4, %cm : tensor<1x2x5x5xf16>, tensor<1x1x5x5xf16>
  %cl = poot.max %wm, %min : tensor<1x2x5x5xf16>, tensor<f16>
  %w3 = poot.reshape %cl : tensor<1x2x5x5xf16> -> tensor<2x5x5xf16>
  %wf = poot.convert %w3 : tensor<2x5x5xf16> -> tensor<2x5x5xf32>
  %m = poot.reduce_max %wf {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %d = poot.sub %wf, %m : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %ph = poot.convert %p : tensor<2x5x5xf32> -> tensor<2x5x5xf16>
  %o = poot.matmul %ph, %v : tensor<2x5x5xf16>, tensor<2x5x64xf16>
  return %o : tensor<2x5x64xf16>
}
