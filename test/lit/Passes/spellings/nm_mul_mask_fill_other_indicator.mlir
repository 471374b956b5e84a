// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of tf_gpt2_mul_mask_stable_softmax: the scores are multiplied
// by the causal indicator b, but the fill is taken over the complement of
// another one (t <= i + 1): on the key just after the diagonal both terms
// are zeros, so that key scores 0, neither its score nor the fill.
// w * b - F * (1 - b') is a select of w only when b' is b itself; this
// stays unfused.

// CHECK-LABEL: func.func @nm_mul_mask_fill_other_indicator
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: 'poot.mul' at line {{[0-9]+}} scales the scores by a factor that is not a constant: no scale the fused op takes{{$}}
func.func @nm_mul_mask_fill_other_indicator(%q: tensor<1x2x5x40xf32>, %k: tensor<1x2x5x40xf32>,
                                           %v: tensor<1x2x5x40xf32>) -> tensor<1x2x5x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x40xf32>
  %w0 = poot.matmul %q, %kt : tensor<1x2x5x40xf32>, tensor<1x2x40x5xf32>
  %sd = poot.constant dense<6.32455532> : tensor<f32>
  %w = poot.div %w0, %sd : tensor<1x2x5x5xf32>, tensor<f32>
  %ri = poot.iota {dim = 0 : i64} : tensor<5x1xi32>
  %cj = poot.iota {dim = 0 : i64} : tensor<5xi32>
  %off = poot.constant dense<0> : tensor<i32>
  %cjo = poot.add %cj, %off : tensor<5xi32>, tensor<i32>
  %m = poot.compare ge, %ri, %cjo : tensor<5x1xi32>, tensor<5xi32>
  %bf = poot.convert %m : tensor<5x5xi1> -> tensor<5x5xf32>
  %b = poot.reshape %bf : tensor<5x5xf32> -> tensor<1x1x5x5xf32>
  %wb = poot.mul %w, %b : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %two = poot.constant dense<-1> : tensor<i32>
  %cj2 = poot.add %cj, %two : tensor<5xi32>, tensor<i32>
  %m2 = poot.compare ge, %ri, %cj2 : tensor<5x1xi32>, tensor<5xi32>
  %bf2 = poot.convert %m2 : tensor<5x5xi1> -> tensor<5x5xf32>
  %b2 = poot.reshape %bf2 : tensor<5x5xf32> -> tensor<1x1x5x5xf32>
  %nb = poot.sub %one, %b2 : tensor<f32>, tensor<1x1x5x5xf32>
  %big = poot.constant dense<1.0e+04> : tensor<f32>
  %pen = poot.mul %big, %nb : tensor<f32>, tensor<1x1x5x5xf32>
  %wm = poot.sub %wb, %pen : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  %eps = poot.constant dense<1.0e-09> : tensor<f32>
  %we = poot.add %wm, %eps : tensor<1x2x5x5xf32>, tensor<f32>
  %mx = poot.reduce_max %we {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %we, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x40xf32>
  return %o : tensor<1x2x5x40xf32>
}
