// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// DeepMind Sonnet 1 (sonnet/python/modules/relational_memory.py,
// RelationalMemory._multihead_attention, the MHDPA of "Relational
// recurrent neural networks"), f32. _build concatenates the memory and the
// new input along the slots (memory_plus_input, N = mem_slots + 1 = 5);
// one BatchApply(Linear(H * (2 * key_size + head_size))) gives qkv (the
// graph input here), then BatchApply(LayerNorm()) over its whole last axis
// (tf.nn.moments, then tf.nn.batch_normalization: x * (gamma * rsqrt(var +
// 1e-5)) + (beta - mean * gamma * rsqrt(var + 1e-5))); BatchReshape to
// [B, N, H, 2 * key_size + head_size], transpose [0, 2, 1, 3], and
// tf.split(.., [key_size, key_size, head_size], -1) cuts q, k and v out of
// each head's channels; q *= key_size ** -0.5; tf.matmul(q, k,
// transpose_b=True); tf.nn.softmax (last axis); tf.matmul(weights, v);
// transpose [0, 2, 1, 3]; BatchFlatten(preserve_dims=2). key_size = 16,
// head_size = 32 (the values are wider than the keys), H = 2, B = 2.
// No mask: every slot attends to every slot. The strongest form is one
// fused attention of the three slices, scale 0.25, Dv = 32 beside Dk = 16.

// CHECK-LABEL: func.func @sonnet_relational_memory_layer_norm_qkv_split_dv_ne_dk_f32
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x5x16xf32>, tensor<2x2x5x16xf32>, tensor<2x2x5x32xf32> -> tensor<2x2x5x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @sonnet_relational_memory_layer_norm_qkv_split_dv_ne_dk_f32(
    %qkv: tensor<2x5x128xf32>, %gamma: tensor<128xf32>, %beta: tensor<128xf32>)
    -> tensor<2x5x64xf32> {
  // BatchApply(LayerNorm()): [B, N, F] -> [B * N, F], moments over F
  %x = poot.reshape %qkv : tensor<2x5x128xf32> -> tensor<10x128xf32>
  %nf = poot.constant dense<128.0> : tensor<f32>
  %s1 = poot.reduce_sum %x {axis = 1 : i64, keepdim} : tensor<10x128xf32>
  %mean = poot.div %s1, %nf : tensor<10x1xf32>, tensor<f32>
  %dx = poot.sub %x, %mean : tensor<10x128xf32>, tensor<10x1xf32>
  %sq = poot.mul %dx, %dx : tensor<10x128xf32>, tensor<10x128xf32>
  %s2 = poot.reduce_sum %sq {axis = 1 : i64, keepdim} : tensor<10x128xf32>
  %var = poot.div %s2, %nf : tensor<10x1xf32>, tensor<f32>
  %eps = poot.constant dense<1.0e-05> : tensor<f32>
  %ve = poot.add %var, %eps : tensor<10x1xf32>, tensor<f32>
  %inv0 = poot.rsqrt %ve : tensor<10x1xf32>
  %inv = poot.mul %inv0, %gamma : tensor<10x1xf32>, tensor<128xf32>
  %xi = poot.mul %x, %inv : tensor<10x128xf32>, tensor<10x128xf32>
  %mi = poot.mul %mean, %inv : tensor<10x1xf32>, tensor<10x128xf32>
  %off = poot.sub %beta, %mi : tensor<128xf32>, tensor<10x128xf32>
  %ln = poot.add %xi, %off : tensor<10x128xf32>, tensor<10x128xf32>
  %ln3 = poot.reshape %ln : tensor<10x128xf32> -> tensor<2x5x128xf32>
  // BatchReshape([N, H, qkv_size]); transpose [0, 2, 1, 3]
  %r4 = poot.reshape %ln3 : tensor<2x5x128xf32> -> tensor<2x5x2x64xf32>
  %t4 = poot.transpose %r4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x64xf32>
  // tf.split(qkv_transpose, [key_size, key_size, head_size], -1)
  %q = poot.slice %t4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x64xf32>
  %k = poot.slice %t4 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x64xf32>
  %v = poot.slice %t4 {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 2, 2, 5, 64>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x64xf32>
  // q *= key_size ** -0.5
  %c = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x2x5x16xf32>, tensor<f32>
  // tf.matmul(q, k, transpose_b=True)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x16xf32>
  %dp = poot.matmul %qs, %kt : tensor<2x2x5x16xf32>, tensor<2x2x16x5xf32>
  // tf.nn.softmax
  %m = poot.reduce_max %dp {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf32>
  %d = poot.sub %dp, %m : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  %e = poot.exp %d : tensor<2x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf32>
  %w = poot.div %e, %z : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  // tf.matmul(weights, v); transpose [0, 2, 1, 3]; BatchFlatten(preserve_dims=2)
  %o = poot.matmul %w, %v : tensor<2x2x5x5xf32>, tensor<2x2x5x32xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x5x32xf32>
  %out = poot.reshape %ot : tensor<2x5x2x32xf32> -> tensor<2x5x64xf32>
  return %out : tensor<2x5x64xf32>
}
