// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A float tril buffer (torch.tril(torch.ones(16, 16)) kept in the model's
// bf16) sliced for a chunk of 3 rows at pos, mask = (1 - tril) * -10000
// added onto the scores (BERT/GPT-era additive form). The table reads as
// the band, its 0/1 entries as the condition converted, and the finite
// fill -10000 (-9984 in bf16) hides keys since every row keeps key
// pos + i. Causal from pos. MHA 2 heads, D = 40, B = 2, Lk = 16.

// CHECK-LABEL: func.func @causal_tril_float_table_chunk_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x40xbf16>, %[[K:[^:]+]]: tensor<2x2x16x40xbf16>, %[[V:[^:]+]]: tensor<2x2x16x40xbf16>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{dynamic_slice|select}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_tril_float_table_chunk_bf16(%q: tensor<2x2x3x40xbf16>, %k: tensor<2x2x16x40xbf16>,
                                              %vr: tensor<2x2x16x40xbf16>,
                                              %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 14>})
    -> tensor<2x2x3x40xbf16> {
  %tril = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<16x16xbf16>
  %zero = poot.constant dense<0> : tensor<i32>
  %cm = poot.dynamic_slice %tril[%pos, %zero] {sizes = array<i64: 3, 16>} : tensor<16x16xbf16>, tensor<i32>, tensor<i32>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %inv = poot.sub %one, %cm : tensor<bf16>, tensor<3x16xbf16>
  %big = poot.constant dense<-10000.0> : tensor<bf16>
  %bias = poot.mul %inv, %big : tensor<3x16xbf16>, tensor<bf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x40xbf16>
  %s = poot.matmul %q, %kt : tensor<2x2x3x40xbf16>, tensor<2x2x40x16xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x2x3x16xbf16>, tensor<bf16>
  %sm = poot.add %ss, %bias : tensor<2x2x3x16xbf16>, tensor<3x16xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x3x16xbf16>
  %d = poot.sub %sm, %m : tensor<2x2x3x16xbf16>, tensor<2x2x3x1xbf16>
  %e = poot.exp %d : tensor<2x2x3x16xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x16xbf16>
  %p = poot.div %e, %z : tensor<2x2x3x16xbf16>, tensor<2x2x3x1xbf16>
  %o = poot.matmul %p, %vr : tensor<2x2x3x16xbf16>, tensor<2x2x16x40xbf16>
  return %o : tensor<2x2x3x40xbf16>
}
