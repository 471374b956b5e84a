// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of tf_gpt2_mul_mask_stable_softmax's uniform shift: the splat
// (5) is added to the scores before the Gemma2 softcap, not after it.
// tanh((s + 5) / 50) * 50 does not move every score of a row alike, so
// the add is no row shift and drops only after the scale and softcap;
// here it is a bias before the softcap, which the fused op has no place
// for: declined, and the graph runs unfused.

// CHECK-LABEL: func.func @nm_splat_shift_before_softcap
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: a mask is added before the scale or softcap
func.func @nm_splat_shift_before_softcap(%q: tensor<1x4x2x256xf32>, %k: tensor<1x2x12x256xf32>,
                          %v: tensor<1x2x12x256xf32>,
                          %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 11>})
    -> tensor<1x4x2x256xf32> {
  %c = poot.constant dense<0.0625> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x4x2x256xf32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x12x256xf32> -> tensor<1x2x1x12x256xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 12, 256>} : tensor<1x2x1x12x256xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x12x256xf32> -> tensor<1x4x12x256xf32>
  %v5 = poot.reshape %v : tensor<1x2x12x256xf32> -> tensor<1x2x1x12x256xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 12, 256>} : tensor<1x2x1x12x256xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x12x256xf32> -> tensor<1x4x12x256xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x256xf32>
  %w = poot.matmul %qs, %kt : tensor<1x4x2x256xf32>, tensor<1x4x256x12xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %eps = poot.constant dense<5.0> : tensor<f32>
  %we = poot.add %w, %eps : tensor<1x4x2x12xf32>, tensor<f32>
  %w1 = poot.div %we, %cap : tensor<1x4x2x12xf32>, tensor<f32>
  %w2 = poot.tanh %w1 : tensor<1x4x2x12xf32>
  %w3 = poot.mul %w2, %cap : tensor<1x4x2x12xf32>, tensor<f32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %qpos = poot.add %i, %p4 : tensor<1x1x2x1xi32>, tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x1x12xi32>, tensor<1x1x2x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %mask = poot.select %hid, %ninf, %zero : tensor<1x1x2x12xi1>, tensor<f32>, tensor<f32>
  %wm = poot.add %w3, %mask : tensor<1x4x2x12xf32>, tensor<1x1x2x12xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<1x4x2x12xf32>
  %d = poot.sub %wm, %m : tensor<1x4x2x12xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x12xf32>
  %p = poot.div %e, %z : tensor<1x4x2x12xf32>, tensor<1x4x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x2x12xf32>, tensor<1x4x12x256xf32>
  return %o : tensor<1x4x2x256xf32>
}
