// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers MPNet (models/mpnet/modeling_mpnet.py,
// MPNetEncoder.compute_position_bias / relative_position_bucket and
// MPNetSelfAttention.forward), f32, the bucket computed in the graph:
// relative_position = arange(klen)[None, :] - arange(qlen)[:, None];
// n = -relative_position; num_buckets //= 2 (16); ret = (n < 0).long() *
// 16; n = abs(n); max_exact = 8; is_small = n < 8; val_if_large = 8 +
// (log(n.float() / 8) / log(128 / 8) * (16 - 8)).long(); min(val_if_large,
// 15); ret += where(is_small, n, val_if_large);
// relative_attention_bias(rp_bucket) (a gather of the [32, H] table),
// permute([2, 0, 1]).unsqueeze(0).expand(bsz, -1, qlen, klen);
// attention_scores = q @ k^T / sqrt(head_size); += position_bias; +
// attention_mask (get_extended_attention_mask: (1 - mask) * finfo.min);
// softmax(dim=-1); @ v. The bucket depends only on iotas, the bias is a
// table lookup per head and cell: a tensor mask with the padding.
// B = 2, L = 10 (so both bucket branches are taken), H = 2, D = 16.

// CHECK-LABEL: func.func @hf_mpnet_relative_position_bucket_log_gather_bias_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_mpnet_relative_position_bucket_log_gather_bias_f32(
    %xq: tensor<2x10x32xf32>, %xk: tensor<2x10x32xf32>, %xv: tensor<2x10x32xf32>,
    %relative_attention_bias: tensor<32x2xf32>,
    %attention_mask: tensor<2x10xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x10x32xf32> {
  // compute_position_bias: relative_position = memory_position - context_position
  %ctx = poot.iota {dim = 0 : i64} : tensor<10x1xi64>
  %mem = poot.iota {dim = 1 : i64} : tensor<1x10xi64>
  %rel = poot.sub %mem, %ctx : tensor<1x10xi64>, tensor<10x1xi64>
  // relative_position_bucket(relative_position, num_buckets=32, max_distance=128)
  %n0 = poot.neg %rel : tensor<10x10xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %neg = poot.compare lt, %n0, %z : tensor<10x10xi64>, tensor<i64>
  %negl = poot.convert %neg : tensor<10x10xi1> -> tensor<10x10xi64>
  %c16 = poot.constant dense<16> : tensor<i64>
  %ret0 = poot.mul %negl, %c16 : tensor<10x10xi64>, tensor<i64>
  %n = poot.abs %n0 : tensor<10x10xi64>
  %c8 = poot.constant dense<8> : tensor<i64>
  %is_small = poot.compare lt, %n, %c8 : tensor<10x10xi64>, tensor<i64>
  %nf = poot.convert %n : tensor<10x10xi64> -> tensor<10x10xf32>
  %c8f = poot.constant dense<8.0> : tensor<f32>
  %r0 = poot.div %nf, %c8f : tensor<10x10xf32>, tensor<f32>
  %r1 = poot.log %r0 : tensor<10x10xf32>
  %lg = poot.constant dense<2.77258873> : tensor<f32>
  %r2 = poot.div %r1, %lg : tensor<10x10xf32>, tensor<f32>
  %r3 = poot.mul %r2, %c8f : tensor<10x10xf32>, tensor<f32>
  %r4 = poot.convert %r3 : tensor<10x10xf32> -> tensor<10x10xi64>
  %large0 = poot.add %c8, %r4 : tensor<i64>, tensor<10x10xi64>
  %c15 = poot.constant dense<15> : tensor<i64>
  %large = poot.min %large0, %c15 : tensor<10x10xi64>, tensor<i64>
  %pick = poot.select %is_small, %n, %large : tensor<10x10xi1>, tensor<10x10xi64>, tensor<10x10xi64>
  %bucket = poot.add %ret0, %pick : tensor<10x10xi64>, tensor<10x10xi64>
  // values = relative_attention_bias(rp_bucket).permute([2, 0, 1]).unsqueeze(0).expand(...)
  %vals = poot.gather %relative_attention_bias[%bucket] {axis = 0 : i64} : tensor<32x2xf32>, tensor<10x10xi64>
  %valt = poot.transpose %vals {perm = array<i64: 2, 0, 1>} : tensor<10x10x2xf32>
  %val4 = poot.reshape %valt : tensor<2x10x10xf32> -> tensor<1x2x10x10xf32>
  %pbias = poot.broadcast %val4 {shape = array<i64: 2, 2, 10, 10>} : tensor<1x2x10x10xf32>
  // MPNetSelfAttention: q, k, v transpose_for_scores
  %q4 = poot.reshape %xq : tensor<2x10x32xf32> -> tensor<2x10x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x2x16xf32>
  %k4 = poot.reshape %xk : tensor<2x10x32xf32> -> tensor<2x10x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x2x16xf32>
  %v4 = poot.reshape %xv : tensor<2x10x32xf32> -> tensor<2x10x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x2x16xf32>
  // attention_scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x10x16xf32>, tensor<2x2x16x10xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s1 = poot.div %s0, %sq : tensor<2x2x10x10xf32>, tensor<f32>
  // attention_scores += position_bias
  %s2 = poot.add %s1, %pbias : tensor<2x2x10x10xf32>, tensor<2x2x10x10xf32>
  // + extended attention mask: (1.0 - mask[:, None, None, :]) * finfo(f32).min
  %am4 = poot.reshape %attention_mask : tensor<2x10xi64> -> tensor<2x1x1x10xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x10xi64> -> tensor<2x1x1x10xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x1x10xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %fmin : tensor<2x1x1x10xf32>, tensor<f32>
  %x = poot.add %s2, %ext : tensor<2x2x10x10xf32>, tensor<2x1x1x10xf32>
  // nn.functional.softmax(attention_scores, dim=-1); torch.matmul(attention_probs, v)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x10x10xf32>
  %d = poot.sub %x, %mx : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %e = poot.exp %d : tensor<2x2x10x10xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x10x10xf32>
  %p = poot.div %e, %zs : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %c0 = poot.matmul %p, %v : tensor<2x2x10x10xf32>, tensor<2x2x10x16xf32>
  %c1 = poot.transpose %c0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x10x16xf32>
  %o = poot.reshape %c1 : tensor<2x10x2x16xf32> -> tensor<2x10x32xf32>
  return %o : tensor<2x10x32xf32>
}
