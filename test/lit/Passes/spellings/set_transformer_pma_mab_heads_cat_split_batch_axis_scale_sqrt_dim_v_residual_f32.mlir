// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Set Transformer (juho-lee/set_transformer at 6fdae7f, modules.py, PMA.forward
// -> MAB.forward, ln=False), f32: pooling by multihead attention, the
// learned seeds S [1, k, dim] repeated over the batch as the queries.
// MAB: Q = fc_q(Q); K, V = fc_k(K), fc_v(K) (Linear with bias);
// dim_split = dim_V // num_heads; the heads are moved to the batch axis
// head-major: Q_ = torch.cat(Q.split(dim_split, 2), 0) ([heads * B, n,
// dim_split], head outer), K_ and V_ likewise; A = torch.softmax(Q_.bmm(
// K_.transpose(1, 2)) / math.sqrt(self.dim_V), 2) -- the scale is the
// full width dim_V, not the head width; O = torch.cat((Q_ + A.bmm(V_))
// .split(Q.size(0), 0), 2) (the query residual added per head before the
// heads go back to channels). fc_o and the relu residual follow outside.
// B = 2, k = 2 seeds, set size 6, dim = dim_V = 32, 4 heads of 8.
//
// Strongest form: one fused op (the heads taken from the head-major
// batch), scale 1/sqrt(32), n_rep 1, no mask; the Q_ residual stays a plain
// add on the output.

// CHECK-LABEL: func.func @set_transformer_pma_mab_heads_cat_split_batch_axis_scale_sqrt_dim_v_residual_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.17677669{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777
func.func @set_transformer_pma_mab_heads_cat_split_batch_axis_scale_sqrt_dim_v_residual_f32(
    %S: tensor<1x2x32xf32>, %X: tensor<2x6x32xf32>,
    %wq_t: tensor<32x32xf32>, %bq: tensor<32xf32>, %wk_t: tensor<32x32xf32>, %bk: tensor<32xf32>,
    %wv_t: tensor<32x32xf32>, %bv: tensor<32xf32>) -> tensor<2x2x32xf32> {
  // self.S.repeat(X.size(0), 1, 1)
  %Sr = poot.broadcast %S {shape = array<i64: 2, 2, 32>} : tensor<1x2x32xf32>
  // Q = self.fc_q(Q); K, V = self.fc_k(K), self.fc_v(K)
  %Q0 = poot.matmul %Sr, %wq_t : tensor<2x2x32xf32>, tensor<32x32xf32>
  %Q = poot.add %Q0, %bq : tensor<2x2x32xf32>, tensor<32xf32>
  %K0 = poot.matmul %X, %wk_t : tensor<2x6x32xf32>, tensor<32x32xf32>
  %K = poot.add %K0, %bk : tensor<2x6x32xf32>, tensor<32xf32>
  %V0 = poot.matmul %X, %wv_t : tensor<2x6x32xf32>, tensor<32x32xf32>
  %V = poot.add %V0, %bv : tensor<2x6x32xf32>, tensor<32xf32>
  // Q_ = torch.cat(Q.split(dim_split, 2), 0)
  %qa = poot.slice %Q {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 2, 8>, step = array<i64: 1, 1, 1>} : tensor<2x2x32xf32>
  %qb = poot.slice %Q {start = array<i64: 0, 0, 8>, limit = array<i64: 2, 2, 16>, step = array<i64: 1, 1, 1>} : tensor<2x2x32xf32>
  %qc = poot.slice %Q {start = array<i64: 0, 0, 16>, limit = array<i64: 2, 2, 24>, step = array<i64: 1, 1, 1>} : tensor<2x2x32xf32>
  %qd = poot.slice %Q {start = array<i64: 0, 0, 24>, limit = array<i64: 2, 2, 32>, step = array<i64: 1, 1, 1>} : tensor<2x2x32xf32>
  %qab = poot.concat %qa, %qb {axis = 0 : i64} : tensor<2x2x8xf32>, tensor<2x2x8xf32>
  %qcd = poot.concat %qc, %qd {axis = 0 : i64} : tensor<2x2x8xf32>, tensor<2x2x8xf32>
  %Q_ = poot.concat %qab, %qcd {axis = 0 : i64} : tensor<4x2x8xf32>, tensor<4x2x8xf32>
  %ka = poot.slice %K {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 6, 8>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %kb = poot.slice %K {start = array<i64: 0, 0, 8>, limit = array<i64: 2, 6, 16>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %kc = poot.slice %K {start = array<i64: 0, 0, 16>, limit = array<i64: 2, 6, 24>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %kd = poot.slice %K {start = array<i64: 0, 0, 24>, limit = array<i64: 2, 6, 32>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %kab = poot.concat %ka, %kb {axis = 0 : i64} : tensor<2x6x8xf32>, tensor<2x6x8xf32>
  %kcd = poot.concat %kc, %kd {axis = 0 : i64} : tensor<2x6x8xf32>, tensor<2x6x8xf32>
  %K_ = poot.concat %kab, %kcd {axis = 0 : i64} : tensor<4x6x8xf32>, tensor<4x6x8xf32>
  %va = poot.slice %V {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 6, 8>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %vb = poot.slice %V {start = array<i64: 0, 0, 8>, limit = array<i64: 2, 6, 16>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %vc = poot.slice %V {start = array<i64: 0, 0, 16>, limit = array<i64: 2, 6, 24>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %vd = poot.slice %V {start = array<i64: 0, 0, 24>, limit = array<i64: 2, 6, 32>, step = array<i64: 1, 1, 1>} : tensor<2x6x32xf32>
  %vab = poot.concat %va, %vb {axis = 0 : i64} : tensor<2x6x8xf32>, tensor<2x6x8xf32>
  %vcd = poot.concat %vc, %vd {axis = 0 : i64} : tensor<2x6x8xf32>, tensor<2x6x8xf32>
  %V_ = poot.concat %vab, %vcd {axis = 0 : i64} : tensor<4x6x8xf32>, tensor<4x6x8xf32>
  // A = torch.softmax(Q_.bmm(K_.transpose(1,2))/math.sqrt(self.dim_V), 2)
  %kt = poot.transpose %K_ {perm = array<i64: 0, 2, 1>} : tensor<8x6x8xf32>
  %s0 = poot.matmul %Q_, %kt : tensor<8x2x8xf32>, tensor<8x8x6xf32>
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<8x2x6xf32>, tensor<f32>
  %mx = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<8x2x6xf32>
  %d = poot.sub %s, %mx : tensor<8x2x6xf32>, tensor<8x2x1xf32>
  %e = poot.exp %d : tensor<8x2x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x2x6xf32>
  %A = poot.div %e, %z : tensor<8x2x6xf32>, tensor<8x2x1xf32>
  // O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
  %av = poot.matmul %A, %V_ : tensor<8x2x6xf32>, tensor<8x6x8xf32>
  %r = poot.add %Q_, %av : tensor<8x2x8xf32>, tensor<8x2x8xf32>
  %r0 = poot.slice %r {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 2, 8>, step = array<i64: 1, 1, 1>} : tensor<8x2x8xf32>
  %r1 = poot.slice %r {start = array<i64: 2, 0, 0>, limit = array<i64: 4, 2, 8>, step = array<i64: 1, 1, 1>} : tensor<8x2x8xf32>
  %r2 = poot.slice %r {start = array<i64: 4, 0, 0>, limit = array<i64: 6, 2, 8>, step = array<i64: 1, 1, 1>} : tensor<8x2x8xf32>
  %r3 = poot.slice %r {start = array<i64: 6, 0, 0>, limit = array<i64: 8, 2, 8>, step = array<i64: 1, 1, 1>} : tensor<8x2x8xf32>
  %o01 = poot.concat %r0, %r1 {axis = 2 : i64} : tensor<2x2x8xf32>, tensor<2x2x8xf32>
  %o23 = poot.concat %r2, %r3 {axis = 2 : i64} : tensor<2x2x8xf32>, tensor<2x2x8xf32>
  %O = poot.concat %o01, %o23 {axis = 2 : i64} : tensor<2x2x16xf32>, tensor<2x2x16xf32>
  return %O : tensor<2x2x32xf32>
}
