// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face transformers, Jukebox (models/deprecated/jukebox/
// modeling_jukebox.py at 0b48592, JukeboxAttention with attn_func
// "transpose_block_attn", the factored sparse-transformer layer of the
// priors), eval in f16, training-style full context (sample=False).
// forward: c_attn output chunk(3, dim=2) (factored_qkv);
// transpose_block_attn: query.view(B, L // block_ctx, block_ctx, E)
// .transpose(1, 2).view(B * block_ctx, L // block_ctx, E) (position
// p = blk * block_ctx + r goes to batch row r, step blk: a strided
// attention over every block_ctx-th token), key and value likewise;
// dense_attn: split_heads (view(.., heads, E / heads); permute(0, 2, 1, 3)
// for q and v, permute(0, 2, 3, 1) for k: keys pre-transposed); _attn in
// eval: matmul(q, k).mul_(scale * scale), scale = 1 / sqrt(sqrt(head_dim));
// .float(); get_mask('autoregressive', q_len, kv_len, ...) = torch.ones(
// q_len, kv_len).tril(max(kv_len - q_len, 0)); w = w * mask + -1e9 * (1 -
// mask); F.softmax(w, -1).type(f16); matmul(v); merge_heads (permute,
// view); view(B, block_ctx, L // block_ctx, E).transpose(1, 2).view(B, L,
// E). B = 1, L = 8, block_ctx = 4 (n_ctx 8 in 2 blocks), E = 32 in 2
// heads of 16.
//
// Strongest form: over the (B * block_ctx) strided batch the mask is the
// causal band (w * 1 + 0 where visible, w * 0 - 1e9 where hidden; every
// row keeps key 0): one causal fused op, scale 1/4, n_rep 1.

// CHECK-LABEL: func.func @hf_jukebox_transpose_block_attn_strided_view_tril_ones_mul_add_neg1e9_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal
func.func @hf_jukebox_transpose_block_attn_strided_view_tril_ones_mul_add_neg1e9_f16(
    %c_attn_out: tensor<1x8x96xf16>) -> tensor<1x8x32xf16> {
  // query, key, value = hidden_states.chunk(3, dim=2)
  %qin = poot.slice %c_attn_out {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 8, 32>, step = array<i64: 1, 1, 1>} : tensor<1x8x96xf16>
  %kin = poot.slice %c_attn_out {start = array<i64: 0, 0, 32>, limit = array<i64: 1, 8, 64>, step = array<i64: 1, 1, 1>} : tensor<1x8x96xf16>
  %vin = poot.slice %c_attn_out {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 8, 96>, step = array<i64: 1, 1, 1>} : tensor<1x8x96xf16>
  // transpose_block_attn: view(B, L // block_ctx, block_ctx, E).transpose(1, 2).view(B * block_ctx, L // block_ctx, E)
  %q4 = poot.reshape %qin : tensor<1x8x32xf16> -> tensor<1x2x4x32xf16>
  %q4t = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xf16>
  %q3 = poot.reshape %q4t : tensor<1x4x2x32xf16> -> tensor<4x2x32xf16>
  %k4 = poot.reshape %kin : tensor<1x8x32xf16> -> tensor<1x2x4x32xf16>
  %k4t = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xf16>
  %k3 = poot.reshape %k4t : tensor<1x4x2x32xf16> -> tensor<4x2x32xf16>
  %v4 = poot.reshape %vin : tensor<1x8x32xf16> -> tensor<1x2x4x32xf16>
  %v4t = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xf16>
  %v3 = poot.reshape %v4t : tensor<1x4x2x32xf16> -> tensor<4x2x32xf16>
  // dense_attn: split_heads (keys permute(0, 2, 3, 1))
  %qh4 = poot.reshape %q3 : tensor<4x2x32xf16> -> tensor<4x2x2x16xf16>
  %q = poot.transpose %qh4 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x2x16xf16>
  %kh4 = poot.reshape %k3 : tensor<4x2x32xf16> -> tensor<4x2x2x16xf16>
  %k = poot.transpose %kh4 {perm = array<i64: 0, 2, 3, 1>} : tensor<4x2x2x16xf16>
  %vh4 = poot.reshape %v3 : tensor<4x2x32xf16> -> tensor<4x2x2x16xf16>
  %v = poot.transpose %vh4 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x2x16xf16>
  // _attn (eval): torch.matmul(query_states, key_states).mul_(scale * scale)
  %w0 = poot.matmul %q, %k : tensor<4x2x2x16xf16>, tensor<4x2x16x2xf16>
  %ss = poot.constant dense<0.25> : tensor<f16>
  %w1 = poot.mul %w0, %ss : tensor<4x2x2x2xf16>, tensor<f16>
  %w = poot.convert %w1 : tensor<4x2x2x2xf16> -> tensor<4x2x2x2xf32>
  // get_mask: torch.ones(query_length, key_value_length).tril(0)
  %r = poot.iota {dim = 0 : i64} : tensor<2x2xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<2x2xi64>
  %lo = poot.compare le, %c, %r : tensor<2x2xi64>, tensor<2x2xi64>
  %one = poot.constant dense<1.0> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %mask = poot.select %lo, %one, %zero : tensor<2x2xi1>, tensor<f32>, tensor<f32>
  // attention_weight * mask + -1e9 * (1 - mask)
  %wm = poot.mul %w, %mask : tensor<4x2x2x2xf32>, tensor<2x2xf32>
  %inv = poot.sub %one, %mask : tensor<f32>, tensor<2x2xf32>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %pen = poot.mul %big, %inv : tensor<f32>, tensor<2x2xf32>
  %x = poot.add %wm, %pen : tensor<4x2x2x2xf32>, tensor<2x2xf32>
  // F.softmax(attention_weight, dim=-1).type(attn_weight_type)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<4x2x2x2xf32>
  %d = poot.sub %x, %mx : tensor<4x2x2x2xf32>, tensor<4x2x2x1xf32>
  %e = poot.exp %d : tensor<4x2x2x2xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x2x2xf32>
  %pf = poot.div %e, %z : tensor<4x2x2x2xf32>, tensor<4x2x2x1xf32>
  %p = poot.convert %pf : tensor<4x2x2x2xf32> -> tensor<4x2x2x2xf16>
  %o = poot.matmul %p, %v : tensor<4x2x2x2xf16>, tensor<4x2x2x16xf16>
  // merge_heads: permute(0, 2, 1, 3).view(.., E)
  %om = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x2x16xf16>
  %o3 = poot.reshape %om : tensor<4x2x2x16xf16> -> tensor<4x2x32xf16>
  // view(B, block_ctx, L // block_ctx, E).transpose(1, 2).view(B, L, E)
  %ob = poot.reshape %o3 : tensor<4x2x32xf16> -> tensor<1x4x2x32xf16>
  %obt = poot.transpose %ob {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x32xf16>
  %out = poot.reshape %obt : tensor<1x2x4x32xf16> -> tensor<1x8x32xf16>
  return %out : tensor<1x8x32xf16>
}
