// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, lucidrains/FLASH-pytorch at 0853186, flash_pytorch/
// flash_pytorch.py, GAU.forward (the gated attention unit of "Transformer
// Quality in Linear Time"), causal=True, no rel_pos_bias, f32 (the
// LayerNorm in front is outside; x is its output). v, gate =
// to_hidden(x).chunk(2, -1) (Linear + SiLU); qk = to_qk(x) (Linear + SiLU);
// q, k = OffsetScale (qk * gamma + beta, one pair each); sim = einsum('b i
// d, b j d -> b i j', q, k); causal: sim = sim / (arange(n) + 1)[:, None];
// attn = F.relu(sim) ** 2; then causal_mask = ones(n, n, bool).triu(1) and
// sim = sim.masked_fill(causal_mask, 0.) -- written to sim after attn was
// taken, so the weights stay unmasked; out = einsum('b i j, b j d -> b i
// d', attn, v) * gate. q . k scores with a per-row scale and a weights .
// V matmul, but relu(.)^2 in place of the softmax (no exp, no row
// normaliser): not softmax attention. Must decline. B = 2, n = 6, dim 16,
// query_key_dim 16, hidden 32. SiLU is spelled x * 1 / (1 + exp(-x)).

// CHECK-LABEL: func.func @nm_flash_pytorch_gau_relu_squared_sim_over_position_mask_after_weights_f32
// CHECK-NOT: poot.attention
// EXPLAIN-NOT: attention fused
func.func @nm_flash_pytorch_gau_relu_squared_sim_over_position_mask_after_weights_f32(
    %x: tensor<2x6x16xf32>, %w_hidden_t: tensor<16x64xf32>, %b_hidden: tensor<64xf32>,
    %w_qk_t: tensor<16x16xf32>, %b_qk: tensor<16xf32>,
    %q_gamma: tensor<16xf32>, %q_beta: tensor<16xf32>,
    %k_gamma: tensor<16xf32>, %k_beta: tensor<16xf32>) -> tensor<2x6x32xf32> {
  %one = poot.constant dense<1.0> : tensor<f32>
  // v, gate = self.to_hidden(x).chunk(2, dim = -1)  (Linear, SiLU)
  %h0 = poot.matmul %x, %w_hidden_t : tensor<2x6x16xf32>, tensor<16x64xf32>
  %h1 = poot.add %h0, %b_hidden : tensor<2x6x64xf32>, tensor<64xf32>
  %hn = poot.neg %h1 : tensor<2x6x64xf32>
  %he = poot.exp %hn : tensor<2x6x64xf32>
  %hd = poot.add %he, %one : tensor<2x6x64xf32>, tensor<f32>
  %h = poot.div %h1, %hd : tensor<2x6x64xf32>, tensor<2x6x64xf32>
  %v = poot.slice %h {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 6, 32>, step = array<i64: 1, 1, 1>} : tensor<2x6x64xf32>
  %gate = poot.slice %h {start = array<i64: 0, 0, 32>, limit = array<i64: 2, 6, 64>, step = array<i64: 1, 1, 1>} : tensor<2x6x64xf32>
  // qk = self.to_qk(x)  (Linear, SiLU)
  %g0 = poot.matmul %x, %w_qk_t : tensor<2x6x16xf32>, tensor<16x16xf32>
  %g1 = poot.add %g0, %b_qk : tensor<2x6x16xf32>, tensor<16xf32>
  %gn = poot.neg %g1 : tensor<2x6x16xf32>
  %ge = poot.exp %gn : tensor<2x6x16xf32>
  %gd = poot.add %ge, %one : tensor<2x6x16xf32>, tensor<f32>
  %qk = poot.div %g1, %gd : tensor<2x6x16xf32>, tensor<2x6x16xf32>
  // q, k = self.q_offsetscale(qk), self.k_offsetscale(qk)
  %q0 = poot.mul %qk, %q_gamma : tensor<2x6x16xf32>, tensor<16xf32>
  %q = poot.add %q0, %q_beta : tensor<2x6x16xf32>, tensor<16xf32>
  %k0 = poot.mul %qk, %k_gamma : tensor<2x6x16xf32>, tensor<16xf32>
  %k = poot.add %k0, %k_beta : tensor<2x6x16xf32>, tensor<16xf32>
  // sim = einsum('b i d, b j d -> b i j', q, k); sim / (arange(seq_len) + 1)[:, None]
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %sim0 = poot.matmul %q, %kt : tensor<2x6x16xf32>, tensor<2x16x6xf32>
  %ar = poot.iota {dim = 0 : i64} : tensor<6x1xf32>
  %ar1 = poot.add %ar, %one : tensor<6x1xf32>, tensor<f32>
  %sim = poot.div %sim0, %ar1 : tensor<2x6x6xf32>, tensor<6x1xf32>
  // attn = F.relu(sim) ** 2
  %zero = poot.constant dense<0.0> : tensor<f32>
  %rl = poot.max %sim, %zero : tensor<2x6x6xf32>, tensor<f32>
  %attn = poot.mul %rl, %rl : tensor<2x6x6xf32>, tensor<2x6x6xf32>
  // (the causal masked_fill lands on sim, which nothing reads afterwards)
  // out = einsum('b i j, b j d -> b i d', attn, v); out = out * gate
  %o = poot.matmul %attn, %v : tensor<2x6x6xf32>, tensor<2x6x32xf32>
  %out = poot.mul %o, %gate : tensor<2x6x32xf32>, tensor<2x6x32xf32>
  return %out : tensor<2x6x32xf32>
}
