// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF DistilBERT MultiHeadSelfAttention: q = q / sqrt(dim_per_head);
// scores = q @ k^T; mask = (mask == 0).view(bs, 1, 1, k_len).expand_as(scores);
// scores = scores.masked_fill(mask, finfo(f32).min); softmax(dim=-1); @ v.
// The fill is finfo.min: a score added to it rounds back to the fill, so
// the select is the additive mask select(mask == 0, finfo.min, 0), also on a
// row the padding hides whole (every key then scores the fill, an average
// of v either way). B = 4, H = 2, L = 3, D = 64: with 3 keys a row with no
// kept key is likely among the 4 batch rows.

// CHECK-LABEL: func.func @distilbert_masked_fill_finfo_padding_f32
// CHECK-SAME: %[[Q:[^:]+]]: tensor<4x2x3x64xf32>, %[[K:[^:]+]]: tensor<4x2x3x64xf32>, %[[V:[^:]+]]: tensor<4x2x3x64xf32>, %[[AM:[^:]+]]: tensor<4x3xi32>
// CHECK: %[[HID:.+]] = poot.compare eq
// CHECK: %[[SEL:.+]] = poot.select %{{.+}}, %{{.+}}, %{{.+}} : tensor<4x1x1x3xi1>
// CHECK: %[[MB:.+]] = poot.broadcast %[[SEL]] {shape = array<i64: 4, 1, 3, 3>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[MB]] : tensor<4x1x3x3xf32>) {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, tensor mask
func.func @distilbert_masked_fill_finfo_padding_f32(%q: tensor<4x2x3x64xf32>, %k: tensor<4x2x3x64xf32>,
                                                    %v: tensor<4x2x3x64xf32>,
                                                    %am: tensor<4x3xi32> {poot.range = array<i64: 0, 2>})
    -> tensor<4x2x3x64xf32> {
  %c = poot.constant dense<8.0> : tensor<f32>
  %qs = poot.div %q, %c : tensor<4x2x3x64xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x3x64xf32>
  %s = poot.matmul %qs, %kt : tensor<4x2x3x64xf32>, tensor<4x2x64x3xf32>
  %am4 = poot.reshape %am : tensor<4x3xi32> -> tensor<4x1x1x3xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %hid = poot.compare eq, %am4, %zero : tensor<4x1x1x3xi32>, tensor<i32>
  %hidb = poot.broadcast %hid {shape = array<i64: 4, 2, 3, 3>} : tensor<4x1x1x3xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %hidb, %min, %s : tensor<4x2x3x3xi1>, tensor<f32>, tensor<4x2x3x3xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %d = poot.sub %sm, %m : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %e = poot.exp %d : tensor<4x2x3x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %p = poot.div %e, %z : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x2x3x3xf32>, tensor<4x2x3x64xf32>
  return %o : tensor<4x2x3x64xf32>
}
