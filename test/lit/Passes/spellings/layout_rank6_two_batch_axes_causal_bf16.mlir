// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Scores of rank 6 with two plain batch axes before the heads, as a video
// model batches clips and frames ([B, T, N, H, L, D]: every (clip, frame)
// has its own keys and values), bf16, causal within each frame by iotas
// laid out over the last two axes, the softmax upcast to f32 and the
// probabilities cast back before P . V. The leading three axes merge into
// one batch axis of 2 * 3 * 2 = 12; the iota mask is read as causal after
// the merge. MHA, 2 heads, L = 6, D = 40.
// CHECK-LABEL: func.func @layout_rank6_two_batch_axes_causal_bf16
// CHECK: %[[O:.+]] = poot.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]*}} : f64} : tensor<12x2x6x40xbf16>, tensor<12x2x6x40xbf16>, tensor<12x2x6x40xbf16> -> tensor<12x2x6x40xbf16>
// CHECK-NOT: poot.exp
// CHECK: poot.reshape %[[O]] : tensor<12x2x6x40xbf16> -> tensor<2x3x2x2x6x40xbf16>
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal{{$}}
func.func @layout_rank6_two_batch_axes_causal_bf16(%q: tensor<2x3x2x2x6x40xbf16>, %k: tensor<2x3x2x2x6x40xbf16>,
                                                   %v: tensor<2x3x2x2x6x40xbf16>) -> tensor<2x3x2x2x6x40xbf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 3, 5, 4>} : tensor<2x3x2x2x6x40xbf16>
  %s = poot.matmul %q, %kt : tensor<2x3x2x2x6x40xbf16>, tensor<2x3x2x2x40x6xbf16>
  %sf = poot.convert %s : tensor<2x3x2x2x6x6xbf16> -> tensor<2x3x2x2x6x6xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %sf, %c : tensor<2x3x2x2x6x6xf32>, tensor<f32>
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %keep = poot.compare ge, %row, %col : tensor<6x6xi32>, tensor<6x6xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<6x6xi1>, tensor<2x3x2x2x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 5 : i64, keepdim} : tensor<2x3x2x2x6x6xf32>
  %d = poot.sub %sm, %m : tensor<2x3x2x2x6x6xf32>, tensor<2x3x2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x3x2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 5 : i64, keepdim} : tensor<2x3x2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x3x2x2x6x6xf32>, tensor<2x3x2x2x6x1xf32>
  %pb = poot.convert %p : tensor<2x3x2x2x6x6xf32> -> tensor<2x3x2x2x6x6xbf16>
  %o = poot.matmul %pb, %v : tensor<2x3x2x2x6x6xbf16>, tensor<2x3x2x2x6x40xbf16>
  return %o : tensor<2x3x2x2x6x40xbf16>
}
