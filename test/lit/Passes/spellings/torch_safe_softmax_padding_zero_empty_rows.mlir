// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch's _safe_softmax (torch/_decomp, what scaled_dot_product_attention's
// math path computes since 2.5) under a key-padding mask, a boolean input
// [B, 1, 1, Lk] selected with -inf: where(max == -inf, 0, softmax). A batch
// row whose keys are all padding is 0 (the seeded mask hides every key of
// some rows: Lk = 3). The guard tests the very scores the softmax
// normalises, so it zeroes exactly the rows with no visible key.
// MHA, B = 4, H = 2, Lq = 2, Lk = 3, D = 16.
//
// Strongest form: the padding as a tensor mask (nothing bounds it), with
// zero_empty_rows.

// CHECK-LABEL: func.func @torch_safe_softmax_padding_zero_empty_rows
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<4x1x2x3xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}

func.func @torch_safe_softmax_padding_zero_empty_rows(%q: tensor<4x2x2x16xf32>, %k: tensor<4x2x3x16xf32>,
                                   %v: tensor<4x2x3x16xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x2x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x3x16xf32>
  %s = poot.matmul %q, %kt : tensor<4x2x2x16xf32>, tensor<4x2x16x3xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x2x2x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x1x1x3xi1>, tensor<4x2x2x3xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<4x2x2x3xf32>
  %d = poot.sub %x, %m : tensor<4x2x2x3xf32>, tensor<4x2x2x1xf32>
  %e = poot.exp %d : tensor<4x2x2x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x2x3xf32>
  %p = poot.div %e, %z : tensor<4x2x2x3xf32>, tensor<4x2x2x1xf32>
  %empty = poot.compare eq, %m, %ninf : tensor<4x2x2x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %empty, %zero, %p : tensor<4x2x2x1xi1>, tensor<f32>, tensor<4x2x2x3xf32>
  %o = poot.matmul %ps, %v : tensor<4x2x2x3xf32>, tensor<4x2x3x16xf32>
  return %o : tensor<4x2x2x16xf32>
}
