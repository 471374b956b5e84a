// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF LlamaAttention 4.30 eager in bf16: w = q @ k^T / sqrt(d); w = w + mask
// (the _make_causal_mask float mask, finfo(bf16).min above the diagonal);
// w = torch.max(w, torch.tensor(torch.finfo(w.dtype).min)); softmax(dim=-1,
// dtype=float32).to(bf16); @ v. Prefill, MHA, B = 1, H = 4, L = 6, D = 64.

// CHECK-LABEL: func.func @hf_llama430_max_clamp_bf16
// The clamp at finfo(bf16).min changes no row that keeps a visible key, and
// the causal mask proves every row keeps key 0: it peels off.
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.*}} {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal
func.func @hf_llama430_max_clamp_bf16(%q: tensor<1x4x6x64xbf16>, %k: tensor<1x4x6x64xbf16>,
                                      %v: tensor<1x4x6x64xbf16>) -> tensor<1x4x6x64xbf16> {
  %full = poot.constant dense<-3.38953139E+38> : tensor<6x6xbf16>
  %cond = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %c1 = poot.add %cond, %one : tensor<6xi64>, tensor<i64>
  %c1v = poot.reshape %c1 : tensor<6xi64> -> tensor<6x1xi64>
  %lt = poot.compare lt, %cond, %c1v : tensor<6xi64>, tensor<6x1xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %tri = poot.select %lt, %zero, %full : tensor<6x6xi1>, tensor<bf16>, tensor<6x6xbf16>
  %m4 = poot.reshape %tri : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x64xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x6x64xbf16>, tensor<1x4x64x6xbf16>
  %c = poot.constant dense<8.0> : tensor<bf16>
  %w = poot.div %s, %c : tensor<1x4x6x6xbf16>, tensor<bf16>
  %wm = poot.add %w, %m4 : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %wc = poot.max %wm, %min : tensor<1x4x6x6xbf16>, tensor<bf16>
  %w32 = poot.convert %wc : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %m = poot.reduce_max %w32 {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %w32, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x6x6xbf16>, tensor<1x4x6x64xbf16>
  return %o : tensor<1x4x6x64xbf16>
}
