// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF OlmoAttention eager with config.clip_qkv = 8: query_states.clamp_(min=
// -clip_qkv, max=clip_qkv), key_states and value_states likewise, before the
// head views; w = q @ k^T * scaling + causal_mask (decode: where(t <= pos,
// 0, finfo.min)); softmax(dim=-1, f32); @ v. MHA, B = 1, H = 4, Lk = 9,
// D = 32.

// CHECK-LABEL: func.func @olmo_clip_qkv_decode
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, causal from pos
func.func @olmo_clip_qkv_decode(%q: tensor<1x4x1x32xf32>, %k: tensor<1x4x9x32xf32>,
                                %v: tensor<1x4x9x32xf32>,
                                %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x4x1x32xf32> {
  %hi = poot.constant dense<8.0> : tensor<f32>
  %lo = poot.constant dense<-8.0> : tensor<f32>
  %q1 = poot.max %q, %lo : tensor<1x4x1x32xf32>, tensor<f32>
  %qc = poot.min %q1, %hi : tensor<1x4x1x32xf32>, tensor<f32>
  %k1 = poot.max %k, %lo : tensor<1x4x9x32xf32>, tensor<f32>
  %kc = poot.min %k1, %hi : tensor<1x4x9x32xf32>, tensor<f32>
  %v1 = poot.max %v, %lo : tensor<1x4x9x32xf32>, tensor<f32>
  %vc = poot.min %v1, %hi : tensor<1x4x9x32xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x9xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x9xi32>, tensor<1x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %cm = poot.select %vis, %zero, %min : tensor<1x1x1x9xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %kc {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x9x32xf32>
  %s = poot.matmul %qc, %kt : tensor<1x4x1x32xf32>, tensor<1x4x32x9xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x9xf32>, tensor<f32>
  %sm = poot.add %ss, %cm : tensor<1x4x1x9xf32>, tensor<1x1x1x9xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x1x9xf32>
  %d = poot.sub %sm, %m : tensor<1x4x1x9xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x9xf32>
  %p = poot.div %e, %z : tensor<1x4x1x9xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vc : tensor<1x4x1x9xf32>, tensor<1x4x9x32xf32>
  return %o : tensor<1x4x1x32xf32>
}
