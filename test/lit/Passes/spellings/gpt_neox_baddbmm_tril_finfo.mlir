// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPTNeoXAttention._attn (4.3x eager): q, k viewed [B*H, L, D];
// attn_scores = baddbmm(zeros(B*H, q, k), q, k.transpose(1, 2), beta=1.0,
// alpha=1 / norm_factor), viewed [B, H, q, k]; causal_mask =
// self.bias[:, :, k - q : k, :k] (a registered bool tril buffer);
// where(causal_mask, attn_scores, torch.tensor(finfo.min)); softmax(dim=-1);
// matmul with v [B, H, k, D]. Prefill, B = 1, H = 4, L = 6, D = 40 (a
// buffer of 16 positions).

// CHECK-LABEL: func.func @gpt_neox_baddbmm_tril_finfo
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal
func.func @gpt_neox_baddbmm_tril_finfo(%q: tensor<1x4x6x40xf32>, %k: tensor<1x4x6x40xf32>,
                                       %v: tensor<1x4x6x40xf32>) -> tensor<1x4x6x40xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %q3 = poot.reshape %q : tensor<1x4x6x40xf32> -> tensor<4x6x40xf32>
  %k3 = poot.reshape %k : tensor<1x4x6x40xf32> -> tensor<4x6x40xf32>
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<4x6x40xf32>
  %qk = poot.matmul %q3, %kt : tensor<4x6x40xf32>, tensor<4x40x6xf32>
  %alpha = poot.constant dense<0.158113882> : tensor<f32>
  %qka = poot.mul %qk, %alpha : tensor<4x6x6xf32>, tensor<f32>
  %zeros = poot.constant dense<0.0> : tensor<4x6x6xf32>
  %bd = poot.add %zeros, %qka : tensor<4x6x6xf32>, tensor<4x6x6xf32>
  %s4 = poot.reshape %bd : tensor<4x6x6xf32> -> tensor<1x4x6x6xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %cm, %s4, %mv : tensor<1x1x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x40xf32>
  return %o : tensor<1x4x6x40xf32>
}
