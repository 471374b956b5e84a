// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// RoPE applied to the keys after repeat_kv (q and k rotated together as
// [B, Hq, L, D]): k_rot = k_r * cos + rotate_half(k_r) * sin with k_r the
// repeated keys and cos, sin [1, 1, L, D] the same for every head.
// poot-canonicalize moves the repeat below the rotation (each op of it
// reads the same elements of every copy), so RoPE runs on the 2 key heads
// and the attention reads them once. Decode at pos; GQA 8/2, D = 96,
// B = 1, Lk = 10 (the rotation over the whole cache, as some ports do).

// CHECK-LABEL: func.func @gqa_rope_after_repeat
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x1x96xf32>, %[[K:[^:]+]]: tensor<1x2x10x96xf32>, %[[V:[^:]+]]: tensor<1x2x10x96xf32>, %[[COS:[^:]+]]: tensor<1x1x10x96xf32>, %[[SIN:[^:]+]]: tensor<1x1x10x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[KR:.+]] = poot.rope %[[K]], %[[COS]], %[[SIN]] {rotary_dim = 96 : i64, style = "half"} : tensor<1x2x10x96xf32>
// CHECK-NOT: poot.broadcast
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KR]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @gqa_rope_after_repeat(%q: tensor<1x8x1x96xf32>, %k: tensor<1x2x10x96xf32>,
                                 %v: tensor<1x2x10x96xf32>, %cos: tensor<1x1x10x96xf32>,
                                 %sin: tensor<1x1x10x96xf32>,
                                 %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<1x8x1x96xf32> {
  %k5 = poot.reshape %k : tensor<1x2x10x96xf32> -> tensor<1x2x1x10x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 10, 96>} : tensor<1x2x1x10x96xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x10x96xf32> -> tensor<1x8x10x96xf32>
  %v5 = poot.reshape %v : tensor<1x2x10x96xf32> -> tensor<1x2x1x10x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 10, 96>} : tensor<1x2x1x10x96xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x10x96xf32> -> tensor<1x8x10x96xf32>
  %x1 = poot.slice %kr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 10, 48>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x10x96xf32>
  %x2 = poot.slice %kr {start = array<i64: 0, 0, 0, 48>, limit = array<i64: 1, 8, 10, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x10x96xf32>
  %n2 = poot.neg %x2 : tensor<1x8x10x48xf32>
  %rot = poot.concat %n2, %x1 {axis = 3 : i64} : tensor<1x8x10x48xf32>, tensor<1x8x10x48xf32>
  %kc = poot.mul %kr, %cos : tensor<1x8x10x96xf32>, tensor<1x1x10x96xf32>
  %ks = poot.mul %rot, %sin : tensor<1x8x10x96xf32>, tensor<1x1x10x96xf32>
  %krot = poot.add %kc, %ks : tensor<1x8x10x96xf32>, tensor<1x8x10x96xf32>
  %kt = poot.transpose %krot {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x10x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x1x96xf32>, tensor<1x8x96x10xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x1x10xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x10xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x1x10xi1>, tensor<1x8x1x10xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x1x10xf32>
  %d = poot.sub %sm, %m : tensor<1x8x1x10xf32>, tensor<1x8x1x1xf32>
  %e = poot.exp %d : tensor<1x8x1x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x1x10xf32>
  %p = poot.div %e, %z : tensor<1x8x1x10xf32>, tensor<1x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x1x10xf32>, tensor<1x8x10x96xf32>
  return %o : tensor<1x8x1x96xf32>
}
