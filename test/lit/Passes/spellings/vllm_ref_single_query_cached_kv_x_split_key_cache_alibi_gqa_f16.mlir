// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// vLLM tests/kernels/attention/test_attention.py,
// ref_single_query_cached_kv_attention (the reference of the paged-attention
// decode kernel test) with ALiBi, f16, one sequence. The caches are in the
// kernel's layout: key_cache [num_blocks, Hkv, head_size / x, block_size, x]
// (x = 16 / sizeof(f16) = 8) and value_cache [num_blocks, Hkv, head_size,
// block_size]. For each key position j < seq_len:
//   block_number = block_table[j // block_size]; block_offset = j % block_size
//   k = key_cache[block_number, :, :, block_offset, :].reshape(Hkv, head_size)
//   v = value_cache[block_number, :, :, block_offset]
// stacked along a new leading axis; keys and values
// torch.repeat_interleave(.., num_queries_per_kv, dim=1); the ALiBi bias
// alibi_slopes.view(-1, 1, 1) * (arange(seq_len) - seq_len + 1).float();
// ref_masked_attention: scale * einsum("qhd,khd->hqk", q, k).float() +
// bias, softmax(dim=-1).to(f16), einsum("hqk,khd->qhd", w, v). Every
// (block, offset) pair read is the pool slot block * block_size + offset of
// the cache viewed [num_blocks * block_size, Hkv, head_size], so the stack
// is a gather of those slots; the block table is a run-time input declared
// inside the 8 blocks. The slopes are the model's constants (2^-2, 2^-4,
// 2^-6, 2^-8). seq_len 10, block_size 4, Hq 4, Hkv 2, head_size 16.
//
// Strongest form: the pool read through the slot map (paged), n_rep 2,
// scale 1/4, alibi_slopes from the constant slopes, no tensor mask.

// Not the strongest form yet (the one above). Today (sound, checked against
// the oracle): ALiBi and the grouping are read, but the slot gather of the
// x-split cache stays a gathered view, not a paged read.
// CHECK-LABEL: func.func @vllm_ref_single_query_cached_kv_x_split_key_cache_alibi_gqa_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, alibi
func.func @vllm_ref_single_query_cached_kv_x_split_key_cache_alibi_gqa_f16(
    %query: tensor<1x4x16xf16>, %key_cache: tensor<8x2x2x4x8xf16>, %value_cache: tensor<8x2x16x4xf16>,
    %block_tables: tensor<1x3xi32> {poot.range = array<i64: 0, 8>}) -> tensor<1x4x16xf16> {
  // block_number = block_table[j // block_size], block_offset = j % block_size
  %j = poot.iota {dim = 0 : i64} : tensor<10xi32>
  %bs = poot.constant dense<4> : tensor<i32>
  %jb = poot.div %j, %bs : tensor<10xi32>, tensor<i32>
  %jbs = poot.mul %jb, %bs : tensor<10xi32>, tensor<i32>
  %off = poot.sub %j, %jbs : tensor<10xi32>, tensor<10xi32>
  %bt = poot.reshape %block_tables : tensor<1x3xi32> -> tensor<3xi32>
  %bn = poot.gather %bt[%jb] {axis = 0 : i64} : tensor<3xi32>, tensor<10xi32>
  %bn4 = poot.mul %bn, %bs : tensor<10xi32>, tensor<i32>
  %slot = poot.add %bn4, %off : tensor<10xi32>, tensor<10xi32>
  // key_cache[block_number, :, :, block_offset, :].reshape(Hkv, head_size), stacked
  %kc = poot.transpose %key_cache {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<8x2x2x4x8xf16>
  %kpool = poot.reshape %kc : tensor<8x4x2x2x8xf16> -> tensor<32x2x16xf16>
  %keys = poot.gather %kpool[%slot] {axis = 0 : i64} : tensor<32x2x16xf16>, tensor<10xi32>
  // value_cache[block_number, :, :, block_offset], stacked
  %vc = poot.transpose %value_cache {perm = array<i64: 0, 3, 1, 2>} : tensor<8x2x16x4xf16>
  %vpool = poot.reshape %vc : tensor<8x4x2x16xf16> -> tensor<32x2x16xf16>
  %values = poot.gather %vpool[%slot] {axis = 0 : i64} : tensor<32x2x16xf16>, tensor<10xi32>
  // torch.repeat_interleave(keys, 2, dim=1)
  %k4 = poot.reshape %keys : tensor<10x2x16xf16> -> tensor<10x2x1x16xf16>
  %k4b = poot.broadcast %k4 {shape = array<i64: 10, 2, 2, 16>} : tensor<10x2x1x16xf16>
  %kr = poot.reshape %k4b : tensor<10x2x2x16xf16> -> tensor<10x4x16xf16>
  %v4 = poot.reshape %values : tensor<10x2x16xf16> -> tensor<10x2x1x16xf16>
  %v4b = poot.broadcast %v4 {shape = array<i64: 10, 2, 2, 16>} : tensor<10x2x1x16xf16>
  %vr = poot.reshape %v4b : tensor<10x2x2x16xf16> -> tensor<10x4x16xf16>
  // alibi_bias = alibi_slopes.view(-1, 1, 1) * (arange(seq_len) - seq_len + 1).float().view(1, 1, -1)
  %pid = poot.iota {dim = 0 : i64} : tensor<10xi32>
  %c9 = poot.constant dense<9> : tensor<i32>
  %rel = poot.sub %pid, %c9 : tensor<10xi32>, tensor<i32>
  %relf = poot.convert %rel : tensor<10xi32> -> tensor<10xf32>
  %relv = poot.reshape %relf : tensor<10xf32> -> tensor<1x1x10xf32>
  %slopes = poot.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf32>
  %sv = poot.reshape %slopes : tensor<4xf32> -> tensor<4x1x1xf32>
  %alibi = poot.mul %sv, %relv : tensor<4x1x1xf32>, tensor<1x1x10xf32>
  // q = query[i].unsqueeze(0); scale * einsum("qhd,khd->hqk", q, keys).float()
  %qh = poot.transpose %query {perm = array<i64: 1, 0, 2>} : tensor<1x4x16xf16>
  %kh = poot.transpose %kr {perm = array<i64: 1, 2, 0>} : tensor<10x4x16xf16>
  %s = poot.matmul %qh, %kh : tensor<4x1x16xf16>, tensor<4x16x10xf16>
  %sf = poot.convert %s : tensor<4x1x10xf16> -> tensor<4x1x10xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %scale, %sf : tensor<f32>, tensor<4x1x10xf32>
  // + attn_mask.float()
  %sa = poot.add %ss, %alibi : tensor<4x1x10xf32>, tensor<4x1x10xf32>
  // torch.softmax(attn_weights, dim=-1).to(value.dtype)
  %mx = poot.reduce_max %sa {axis = 2 : i64, keepdim} : tensor<4x1x10xf32>
  %d = poot.sub %sa, %mx : tensor<4x1x10xf32>, tensor<4x1x1xf32>
  %e = poot.exp %d : tensor<4x1x10xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x1x10xf32>
  %p = poot.div %e, %z : tensor<4x1x10xf32>, tensor<4x1x1xf32>
  %ph = poot.convert %p : tensor<4x1x10xf32> -> tensor<4x1x10xf16>
  // einsum("hqk,khd->qhd", attn_weights, value)
  %vh = poot.transpose %vr {perm = array<i64: 1, 0, 2>} : tensor<10x4x16xf16>
  %o = poot.matmul %ph, %vh : tensor<4x1x10xf16>, tensor<4x10x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 1, 0, 2>} : tensor<4x1x16xf16>
  return %ot : tensor<1x4x16xf16>
}
