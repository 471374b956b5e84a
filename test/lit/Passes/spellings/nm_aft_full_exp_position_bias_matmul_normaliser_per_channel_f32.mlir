// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, the Attention Free Transformer as rish-16/aft-pytorch writes
// it (aft_pytorch/aft_pytorch.py, AFTFull.forward), f32: Q, K, V [B, T,
// hidden] from three linears; temp_wbias = self.wbias[:T, :T].unsqueeze(0)
// (a learned [max_seqlen, max_seqlen] position bias); Q_sig =
// torch.sigmoid(Q); temp = torch.exp(temp_wbias) @ torch.mul(torch.exp(K),
// V); weighted = temp / (torch.exp(temp_wbias) @ torch.exp(K)); Yt =
// torch.mul(Q_sig, weighted). It has the look of attention (an exp of a
// [T, T] matrix, a product with the values, a division by a product that
// normalises it), but the weights of query t on key t' in channel c are
// exp(w[t, t'] + K[t', c]): every channel has its own weights, there is no
// q . k product, no max and no row sum of the [T, T] exponentials (the
// normaliser is exp(w) . exp(K), not sum(exp(w))), and the query only
// gates the result. Reading it as softmax(w) . (exp(K) * V) or as any
// attention over a [T, T] probability matrix would be wrong: nothing may
// fuse. B = 2, T = 8 of max_seqlen 10, hidden = 16.

// CHECK-LABEL: func.func @nm_aft_full_exp_position_bias_matmul_normaliser_per_channel_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined:
func.func @nm_aft_full_exp_position_bias_matmul_normaliser_per_channel_f32(
    %Q: tensor<2x8x16xf32>, %K: tensor<2x8x16xf32>, %V: tensor<2x8x16xf32>,
    %wbias: tensor<10x10xf32>) -> tensor<2x8x16xf32> {
  // temp_wbias = self.wbias[:T, :T].unsqueeze(0)
  %w = poot.slice %wbias {start = array<i64: 0, 0>, limit = array<i64: 8, 8>, step = array<i64: 1, 1>} : tensor<10x10xf32>
  %tw = poot.reshape %w : tensor<8x8xf32> -> tensor<1x8x8xf32>
  // Q_sig = torch.sigmoid(Q)
  %nq = poot.neg %Q : tensor<2x8x16xf32>
  %enq = poot.exp %nq : tensor<2x8x16xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %one, %enq : tensor<f32>, tensor<2x8x16xf32>
  %qsig = poot.div %one, %den : tensor<f32>, tensor<2x8x16xf32>
  // temp = exp(temp_wbias) @ (exp(K) * V)
  %ew = poot.exp %tw : tensor<1x8x8xf32>
  %ek = poot.exp %K : tensor<2x8x16xf32>
  %ekv = poot.mul %ek, %V : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %temp = poot.matmul %ew, %ekv : tensor<1x8x8xf32>, tensor<2x8x16xf32>
  // weighted = temp / (exp(temp_wbias) @ exp(K))
  %norm = poot.matmul %ew, %ek : tensor<1x8x8xf32>, tensor<2x8x16xf32>
  %weighted = poot.div %temp, %norm : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  // Yt = Q_sig * weighted
  %yt = poot.mul %qsig, %weighted : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %yt : tensor<2x8x16xf32>
}
