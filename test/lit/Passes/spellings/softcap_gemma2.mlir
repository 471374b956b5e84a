// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Gemma 2 eager: q * query_pre_attn_scalar^-0.5, w = q @ k^T, the logit
// softcap w = tanh(w / 50) * 50, + the causal mask from iota and pos, GQA 4/2
// by repeat_kv; D = 256, Lq = 2.

// CHECK-LABEL: func.func @softcap_gemma2
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x2x256xf32>, %[[K:[^:]+]]: tensor<1x2x12x256xf32>, %[[V:[^:]+]]: tensor<1x2x12x256xf32>, %[[POS:[^:]+]]: tensor<i32>
// out = softmax(50 tanh((q . k) / 16 / 50), keys t <= pos + i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 2 : i64, scale = 6.250000e-02 : f64, softcap = 5.000000e+01 : f64}
// CHECK-NOT: poot.tanh
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @softcap_gemma2(%q: tensor<1x4x2x256xf32>, %k: tensor<1x2x12x256xf32>,
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
  %w1 = poot.div %w, %cap : tensor<1x4x2x12xf32>, tensor<f32>
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
