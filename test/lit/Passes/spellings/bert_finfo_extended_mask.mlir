// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF BertSelfAttention (eager) with get_extended_attention_mask: the 2-D
// int attention_mask input becomes (1.0 - mask[:, None, None, :].to(f32)) *
// finfo(f32).min; transpose_for_scores views [B, L, H*D] as [B, L, H, D] and
// permutes (0, 2, 1, 3); scores = q @ k^T / sqrt(D) + extended mask;
// softmax(dim=-1); @ v; permute(0, 2, 1, 3).view(B, L, H*D).
// B = 2, L = 6, H = 2, D = 40.

// CHECK-LABEL: func.func @bert_finfo_extended_mask
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x6xf32>) {n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, tensor mask
func.func @bert_finfo_extended_mask(%xq: tensor<2x6x80xf32>, %xk: tensor<2x6x80xf32>,
                                    %xv: tensor<2x6x80xf32>, %am: tensor<2x6xi64> {poot.range = array<i64: 0, 2>})
    -> tensor<2x6x80xf32> {
  %q4 = poot.reshape %xq : tensor<2x6x80xf32> -> tensor<2x6x2x40xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf32>
  %k4 = poot.reshape %xk : tensor<2x6x80xf32> -> tensor<2x6x2x40xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf32>
  %v4 = poot.reshape %xv : tensor<2x6x80xf32> -> tensor<2x6x2x40xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf32>
  %am4 = poot.reshape %am : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x6xi64> -> tensor<2x1x1x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x1x6xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %min : tensor<2x1x1x6xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x6x40xf32>, tensor<2x2x40x6xf32>
  %c = poot.constant dense<6.32455532> : tensor<f32>
  %w = poot.div %s, %c : tensor<2x2x6x6xf32>, tensor<f32>
  %wm = poot.add %w, %ext : tensor<2x2x6x6xf32>, tensor<2x1x1x6xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %wm, %m : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x40xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x40xf32>
  %o3 = poot.reshape %ot : tensor<2x6x2x40xf32> -> tensor<2x6x80xf32>
  return %o3 : tensor<2x6x80xf32>
}
