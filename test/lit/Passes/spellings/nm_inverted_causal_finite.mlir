// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, the inverted HF condition: torch.where(causal_mask,
// finfo.min, w) (fill where the key IS visible): keys t > i stay, the last
// row keeps no key and, the fill being finite, averages every key. Must not
// be read as causal. The fill absorbs every score, so the select is the
// additive tensor mask select(t <= i, finfo.min, 0), the empty row included
// (an average of v either way): it fuses with that tensor only.
// MHA, B = 1, H = 2, L = 5, D = 32.

// CHECK-LABEL: func.func @nm_inverted_causal_finite
// CHECK-NOT: causal
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, tensor mask; {{.*}}the select fill -3.40282e+38 absorbs every score
func.func @nm_inverted_causal_finite(%q: tensor<1x2x5x32xf32>, %k: tensor<1x2x5x32xf32>,
                                    %v: tensor<1x2x5x32xf32>) -> tensor<1x2x5x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x32xf32>, tensor<1x2x32x5xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %vis = poot.compare le, %t, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %vis, %min, %ss : tensor<5x5xi1>, tensor<f32>, tensor<1x2x5x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x32xf32>
  return %o : tensor<1x2x5x32xf32>
}
