// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF AttentionMaskConverter._make_causal_mask with sliding_window (Mistral /
// Starcoder2 eager, 4.36-4.41): the finfo.min triangle of tgt x tgt, the
// zeros of the static past concatenated in front, then
// context_mask = tril(ones_like(mask, bool), diagonal=past - sliding_window - 1)
// and mask.masked_fill_(context_mask, finfo.min): keys more than W = 3 behind
// the query position are hidden (W + 1 = 4 keys visible). Expanded to
// [B, 1, tgt, tgt + past]; repeat_kv GQA 4/2. Lq = 5 after 4 cached keys,
// D = 40, B = 1.

// CHECK-LABEL: func.func @mistral_make_causal_mask_sliding_past
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 2 : i64, scale = 0.15811{{[0-9]*}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.158114, causal, window 4 at offset 4
func.func @mistral_make_causal_mask_sliding_past(%q: tensor<1x4x5x40xf32>, %k: tensor<1x2x9x40xf32>,
                                                 %v: tensor<1x2x9x40xf32>) -> tensor<1x4x5x40xf32> {
  %full = poot.constant dense<-3.40282347E+38> : tensor<5x5xf32>
  %cond = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %c1 = poot.add %cond, %one : tensor<5xi64>, tensor<i64>
  %c1v = poot.reshape %c1 : tensor<5xi64> -> tensor<5x1xi64>
  %lt = poot.compare lt, %cond, %c1v : tensor<5xi64>, tensor<5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %tri = poot.select %lt, %zero, %full : tensor<5x5xi1>, tensor<f32>, tensor<5x5xf32>
  %zpast = poot.constant dense<0.0> : tensor<5x4xf32>
  %mask = poot.concat %zpast, %tri {axis = 1 : i64} : tensor<5x4xf32>, tensor<5x5xf32>
  %r = poot.iota {dim = 0 : i64} : tensor<5x9xi64>
  %cl = poot.iota {dim = 1 : i64} : tensor<5x9xi64>
  %dg = poot.constant dense<0> : tensor<i64>
  %rd = poot.add %r, %dg : tensor<5x9xi64>, tensor<i64>
  %ctx = poot.compare le, %cl, %rd : tensor<5x9xi64>, tensor<5x9xi64>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mw = poot.select %ctx, %min, %mask : tensor<5x9xi1>, tensor<f32>, tensor<5x9xf32>
  %m4 = poot.reshape %mw : tensor<5x9xf32> -> tensor<1x1x5x9xf32>
  %k5 = poot.reshape %k : tensor<1x2x9x40xf32> -> tensor<1x2x1x9x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 9, 40>} : tensor<1x2x1x9x40xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x9x40xf32> -> tensor<1x4x9x40xf32>
  %v5 = poot.reshape %v : tensor<1x2x9x40xf32> -> tensor<1x2x1x9x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 9, 40>} : tensor<1x2x1x9x40xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x9x40xf32> -> tensor<1x4x9x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x9x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x40xf32>, tensor<1x4x40x9xf32>
  %c = poot.constant dense<6.32455532> : tensor<f32>
  %w = poot.div %s, %c : tensor<1x4x5x9xf32>, tensor<f32>
  %wm = poot.add %w, %m4 : tensor<1x4x5x9xf32>, tensor<1x1x5x9xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<1x4x5x9xf32>
  %d = poot.sub %wm, %m : tensor<1x4x5x9xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x9xf32>
  %p = poot.div %e, %z : tensor<1x4x5x9xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x5x9xf32>, tensor<1x4x9x40xf32>
  return %o : tensor<1x4x5x40xf32>
}
