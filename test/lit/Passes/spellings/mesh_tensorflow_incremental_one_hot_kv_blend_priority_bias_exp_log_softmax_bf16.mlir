// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Mesh TensorFlow (mesh_tensorflow/transformer/transformer_layers.py,
// SelfAttention.call and compute_bias; transformer/attention.py
// attention; ops.py softmax / log_softmax / reduce_logsumexp), one step of
// Unitransformer.sample_autoregressive in context.mode == "incremental",
// activation_dtype bfloat16. The layer's q, k and v for the new token have
// no length dim ([batch, heads, d_kv]); the cache is updated by blending:
// one_hot = mtf.one_hot(position, memory_length, bf16), k = old_k * (1 -
// one_hot) + k * one_hot (mtf orders k * one_hot as [batch, heads, d_kv,
// memory_length] and the add aligns it by name), v alike. With the
// default relative_attention_type = None the only bias is the priority
// visibility: read_priority = the step number, write_priority =
// range(length) renamed to memory_length, visible = read_priority >=
// write_priority, bias = cast(logical_not(visible), bf16) * -1e9. With
// fold_scaling_into_initializer there is no scale (the 1/sqrt(d_kv) is
// in the query weights). attention() with float32_logits: q and k cast to
// f32; logits = einsum over d_kv (a [b, h, 1, d] x [b, h, d, m] product
// viewed [b, h, m]); logits += cast(bias, f32); mtf.softmax = exp(x -
// reduce_logsumexp(x)) with reduce_logsumexp = log(sum(exp(x - max))) +
// max; weights cast to bf16; einsum with v over memory_length. B = 2,
// 4 heads, d_kv = 16, memory_length 10, the position an input.
// The bias hides t > pos with a finite fill, and key 0 is visible for
// every pos >= 0, so it is exactly the causal mask at pos; the strongest
// form is causal from pos, scale 1, over the blended keys and values.

// CHECK-LABEL: func.func @mesh_tensorflow_incremental_one_hot_kv_blend_priority_bias_exp_log_softmax_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|log}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i32>) {causal, n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|log}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, causal from pos{{$}}
func.func @mesh_tensorflow_incremental_one_hot_kv_blend_priority_bias_exp_log_softmax_bf16(
    %q: tensor<2x4x16xbf16>, %k_new: tensor<2x4x16xbf16>, %v_new: tensor<2x4x16xbf16>,
    %old_k: tensor<2x4x10x16xbf16>, %old_v: tensor<2x4x10x16xbf16>,
    %position: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<2x4x16xbf16> {
  // one_hot = mtf.one_hot(context.position, memory_length, dtype=bf16)
  %mpos = poot.iota {dim = 0 : i64} : tensor<10xi32>
  %hot = poot.compare eq, %mpos, %position : tensor<10xi32>, tensor<i32>
  %one_hot = poot.convert %hot : tensor<10xi1> -> tensor<10xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %inv_one_hot = poot.sub %one, %one_hot : tensor<bf16>, tensor<10xbf16>
  %inv4 = poot.reshape %inv_one_hot : tensor<10xbf16> -> tensor<1x1x10x1xbf16>
  %hot4 = poot.reshape %one_hot : tensor<10xbf16> -> tensor<1x1x1x10xbf16>
  // k = old_k * inv_one_hot + k * one_hot
  %ko = poot.mul %old_k, %inv4 : tensor<2x4x10x16xbf16>, tensor<1x1x10x1xbf16>
  %kn4 = poot.reshape %k_new : tensor<2x4x16xbf16> -> tensor<2x4x16x1xbf16>
  %kh = poot.mul %kn4, %hot4 : tensor<2x4x16x1xbf16>, tensor<1x1x1x10xbf16>
  %kht = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x10xbf16>
  %k = poot.add %ko, %kht : tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>
  // v = old_v * inv_one_hot + v * one_hot
  %vo = poot.mul %old_v, %inv4 : tensor<2x4x10x16xbf16>, tensor<1x1x10x1xbf16>
  %vn4 = poot.reshape %v_new : tensor<2x4x16xbf16> -> tensor<2x4x16x1xbf16>
  %vh = poot.mul %vn4, %hot4 : tensor<2x4x16x1xbf16>, tensor<1x1x1x10xbf16>
  %vht = poot.transpose %vh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x10xbf16>
  %v = poot.add %vo, %vht : tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>
  // compute_bias: visible = read_priority >= write_priority (renamed);
  // visibility_mask_to_attention_bias: cast(logical_not(visible), bf16) * -1e9
  %visible = poot.compare ge, %position, %mpos : tensor<i32>, tensor<10xi32>
  %hidden = poot.not %visible : tensor<10xi1>
  %hf = poot.convert %hidden : tensor<10xi1> -> tensor<10xbf16>
  %big = poot.constant dense<-1.0e+09> : tensor<bf16>
  %bias = poot.mul %hf, %big : tensor<10xbf16>, tensor<bf16>
  // attention(): float32_logits, logits = us_einsum([q, k], reduced_dims=[d_kv])
  %kf = poot.convert %k : tensor<2x4x10x16xbf16> -> tensor<2x4x10x16xf32>
  %qf = poot.convert %q : tensor<2x4x16xbf16> -> tensor<2x4x16xf32>
  %q4 = poot.reshape %qf : tensor<2x4x16xf32> -> tensor<2x4x1x16xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x10x16xf32>
  %l4 = poot.matmul %q4, %kt : tensor<2x4x1x16xf32>, tensor<2x4x16x10xf32>
  %logits0 = poot.reshape %l4 : tensor<2x4x1x10xf32> -> tensor<2x4x10xf32>
  // logits += mtf.cast(bias, logits.dtype)
  %biasf = poot.convert %bias : tensor<10xbf16> -> tensor<10xf32>
  %logits = poot.add %logits0, %biasf : tensor<2x4x10xf32>, tensor<10xf32>
  // mtf.softmax: exp(x - reduce_logsumexp(x))
  %mx = poot.reduce_max %logits {axis = 2 : i64, keepdim} : tensor<2x4x10xf32>
  %xs = poot.sub %logits, %mx : tensor<2x4x10xf32>, tensor<2x4x1xf32>
  %ex = poot.exp %xs : tensor<2x4x10xf32>
  %se = poot.reduce_sum %ex {axis = 2 : i64, keepdim} : tensor<2x4x10xf32>
  %lg = poot.log %se : tensor<2x4x1xf32>
  %lse = poot.add %lg, %mx : tensor<2x4x1xf32>, tensor<2x4x1xf32>
  %lsm = poot.sub %logits, %lse : tensor<2x4x10xf32>, tensor<2x4x1xf32>
  %w = poot.exp %lsm : tensor<2x4x10xf32>
  // weights = mtf.cast(weights, v.dtype); outputs = mtf.einsum([weights, v])
  %wb = poot.convert %w : tensor<2x4x10xf32> -> tensor<2x4x10xbf16>
  %w4 = poot.reshape %wb : tensor<2x4x10xbf16> -> tensor<2x4x1x10xbf16>
  %o4 = poot.matmul %w4, %v : tensor<2x4x1x10xbf16>, tensor<2x4x10x16xbf16>
  %o = poot.reshape %o4 : tensor<2x4x1x16xbf16> -> tensor<2x4x16xbf16>
  return %o : tensor<2x4x16xbf16>
}
