// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, hand-written: torch.where(keep.any(-1, keepdim=True), p, 0)
// (any() as a sum over the mask cast to int, > 0) after a softmax whose
// scores are selected with -inf by the same key-padding mask [B, 1, 1, Lk].
// A row with no kept key is 0. The mask is the only one on the scores, so
// the rows the guard zeroes are exactly the rows with no visible key.
// MHA, B = 4, H = 1, Lq = 2, Lk = 3, D = 16 (the seeded mask hides every
// key of some rows).
//
// Strongest form: the padding as a tensor mask, with zero_empty_rows.

// CHECK-LABEL: func.func @torch_where_any_keep_padding_zero_empty_rows
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<4x1x2x3xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}

func.func @torch_where_any_keep_padding_zero_empty_rows(%q: tensor<4x1x2x16xf32>, %k: tensor<4x1x3x16xf32>,
                                %v: tensor<4x1x3x16xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x1x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x1x3x16xf32>
  %s = poot.matmul %q, %kt : tensor<4x1x2x16xf32>, tensor<4x1x16x3xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x1x2x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x1x1x3xi1>, tensor<4x1x2x3xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<4x1x2x3xf32>
  %d = poot.sub %x, %m : tensor<4x1x2x3xf32>, tensor<4x1x2x1xf32>
  %e = poot.exp %d : tensor<4x1x2x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x1x2x3xf32>
  %p = poot.div %e, %z : tensor<4x1x2x3xf32>, tensor<4x1x2x1xf32>
  %ki = poot.convert %keep : tensor<4x1x1x3xi1> -> tensor<4x1x1x3xi32>
  %n = poot.reduce_sum %ki {axis = 3 : i64, keepdim} : tensor<4x1x1x3xi32>
  %izero = poot.constant dense<0> : tensor<i32>
  %any = poot.compare gt, %n, %izero : tensor<4x1x1x1xi32>, tensor<i32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %any, %p, %zero : tensor<4x1x1x1xi1>, tensor<4x1x2x3xf32>, tensor<f32>
  %o = poot.matmul %ps, %v : tensor<4x1x2x3xf32>, tensor<4x1x3x16xf32>
  return %o : tensor<4x1x2x16xf32>
}
