// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, HF GPT-OSS eager_attention_forward: attention sinks. w = q @ k^T
// * scaling + causal mask; sinks = module.sinks.reshape(1, -1, 1, 1)
// .expand(B, -1, Lq, -1); combined = cat([w, sinks], dim=-1); combined -=
// combined.max(-1, keepdim=True); probs = softmax(combined, -1);
// scores = probs[..., :-1]: the sink column takes part of every row's weight,
// so the kept weights do not sum to 1. Not attention; must decline.
// repeat_kv GQA 4/2, B = 1, L = 5, D = 32.

// CHECK-LABEL: func.func @nm_gpt_oss_attention_sinks
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.slice' at line {{[0-9]+}} between the softmax and P . V
func.func @nm_gpt_oss_attention_sinks(%q: tensor<1x4x5x32xf32>, %k: tensor<1x2x5x32xf32>,
                                      %v: tensor<1x2x5x32xf32>, %sinks: tensor<4xf32>)
    -> tensor<1x4x5x32xf32> {
  %k5 = poot.reshape %k : tensor<1x2x5x32xf32> -> tensor<1x2x1x5x32xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x5x32xf32> -> tensor<1x4x5x32xf32>
  %v5 = poot.reshape %v : tensor<1x2x5x32xf32> -> tensor<1x2x1x5x32xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x5x32xf32> -> tensor<1x4x5x32xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x32xf32>, tensor<1x4x32x5xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %vis = poot.compare le, %t, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %cm = poot.select %vis, %zero, %min : tensor<5x5xi1>, tensor<f32>, tensor<f32>
  %w = poot.add %ss, %cm : tensor<1x4x5x5xf32>, tensor<5x5xf32>
  %s4 = poot.reshape %sinks : tensor<4xf32> -> tensor<1x4x1x1xf32>
  %sb = poot.broadcast %s4 {shape = array<i64: 1, 4, 5, 1>} : tensor<1x4x1x1xf32>
  %cb = poot.concat %w, %sb {axis = 3 : i64} : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %m = poot.reduce_max %cb {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %d = poot.sub %cb, %m : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %m2 = poot.reduce_max %d {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %d2 = poot.sub %d, %m2 : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d2 : tensor<1x4x5x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %p = poot.div %e, %z : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %pk = poot.slice %p {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x6xf32>
  %o = poot.matmul %pk, %vr : tensor<1x4x5x5xf32>, tensor<1x4x5x32xf32>
  return %o : tensor<1x4x5x32xf32>
}
