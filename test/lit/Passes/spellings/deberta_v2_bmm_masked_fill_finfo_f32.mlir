// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF DebertaV2 DisentangledSelfAttention without relative attention: the
// heads flattened into the batch [B * H, L, D]; scale = sqrt(D *
// scale_factor); scores = torch.bmm(q, k^T / scale); viewed [B, H, L, L];
// the mask from get_attention_mask, m[:, None, None, :] *
// m[:, None, :, None] (a padded query row keeps no key), as bool;
// scores.masked_fill(~mask, finfo(f32).min); softmax(dim=-1); viewed back
// [B * H, L, L]; torch.bmm(p, v). B = 2, H = 2, L = 4, D = 64.

// CHECK-LABEL: func.func @deberta_v2_bmm_masked_fill_finfo_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x4x4xf32>) {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, tensor mask
func.func @deberta_v2_bmm_masked_fill_finfo_f32(%q: tensor<4x4x64xf32>, %k: tensor<4x4x64xf32>,
                                                %v: tensor<4x4x64xf32>,
                                                %am: tensor<2x4xi32> {poot.range = array<i64: 0, 2>})
    -> tensor<4x4x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x4x64xf32>
  %sc = poot.constant dense<8.0> : tensor<f32>
  %kts = poot.div %kt, %sc : tensor<4x64x4xf32>, tensor<f32>
  %s = poot.matmul %q, %kts : tensor<4x4x64xf32>, tensor<4x64x4xf32>
  %s4 = poot.reshape %s : tensor<4x4x4xf32> -> tensor<2x2x4x4xf32>
  %mk = poot.reshape %am : tensor<2x4xi32> -> tensor<2x1x1x4xi32>
  %mq = poot.reshape %am : tensor<2x4xi32> -> tensor<2x1x4x1xi32>
  %mm = poot.mul %mk, %mq : tensor<2x1x1x4xi32>, tensor<2x1x4x1xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %keep = poot.compare ne, %mm, %zero : tensor<2x1x4x4xi32>, tensor<i32>
  %hid = poot.not %keep : tensor<2x1x4x4xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %hid, %min, %s4 : tensor<2x1x4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %p = poot.div %e, %z : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %p3 = poot.reshape %p : tensor<2x2x4x4xf32> -> tensor<4x4x4xf32>
  %o = poot.matmul %p3, %v : tensor<4x4x4xf32>, tensor<4x4x64xf32>
  return %o : tensor<4x4x64xf32>
}
