// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// DeepSeek-V3 inference/model.py MLA, attn_impl = "absorb" (prefill):
// q_nope already absorbed by wkv_b into the latent width c [b, s, h, c];
// scores = (einsum("bshc,btc->bsht", q_nope, kv_cache) +
//           einsum("bshr,btr->bsht", q_pe, pe_cache)) * softmax_scale;
// scores += mask.unsqueeze(1) with mask = full((s, s), -inf).triu_(1);
// scores.softmax(dim=-1, dtype=float32); x = einsum("bsht,btc->bshc",
// scores, kv_cache). One latent key/value row shared by every head (MQA);
// the key is [kv_cache, pe_cache], the value kv_cache alone. The einsums
// lower to head-major matmuls transposed back to bsht.
// B = 1, s = t = 5, h = 4, c = 64, rope r = 16, scale 192^-1/2.

// The sum of the two score products is one product over the concatenated
// channels, concat(q_nope, q_pe) . concat(kv, pe)^T; the key is then the
// split MLA key (the latent kv, and pe shared by every head), one key head
// for the four query heads: n_rep 4, causal, the latent read once as the
// key and once as the value.
// CHECK-LABEL: func.func @deepseek_v3_mla_absorb
// CHECK-SAME: %[[QN:[^:]+]]: tensor<1x5x4x64xf32>, %[[QP:[^:]+]]: tensor<1x5x4x16xf32>, %[[KV:[^:]+]]: tensor<1x5x64xf32>, %[[PE:[^:]+]]: tensor<1x5x16xf32>
// CHECK-DAG: %[[KV4:.+]] = poot.reshape %[[KV]] : tensor<1x5x64xf32> -> tensor<1x1x5x64xf32>
// CHECK-DAG: %[[PE4:.+]] = poot.reshape %[[PE]] : tensor<1x5x16xf32> -> tensor<1x1x5x16xf32>
// CHECK-DAG: %[[QC:.+]] = poot.concat %[[QN]], %[[QP]] {axis = 3 : i64}
// CHECK: %[[Q:.+]] = poot.transpose %[[QC]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x80xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KV4]], %[[KV4]] k_shared(%[[PE4]] : tensor<1x1x5x16xf32>) {causal, n_rep = 4 : i64, scale = 0.0721687{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[X:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: return %[[X]]
// EXPLAIN: remark: attention fused: split attention, n_rep 4, scale 0.0721688, causal{{$}}
func.func @deepseek_v3_mla_absorb(%qn: tensor<1x5x4x64xf32>, %qp: tensor<1x5x4x16xf32>,
                                  %kv: tensor<1x5x64xf32>, %pe: tensor<1x5x16xf32>)
    -> tensor<1x5x4x64xf32> {
  %qnh = poot.transpose %qn {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x64xf32>
  %kv4 = poot.reshape %kv : tensor<1x5x64xf32> -> tensor<1x1x5x64xf32>
  %kvt = poot.transpose %kv4 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x64xf32>
  %s1h = poot.matmul %qnh, %kvt : tensor<1x4x5x64xf32>, tensor<1x1x64x5xf32>
  %s1 = poot.transpose %s1h {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x5xf32>
  %qph = poot.transpose %qp {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xf32>
  %pe4 = poot.reshape %pe : tensor<1x5x16xf32> -> tensor<1x1x5x16xf32>
  %pet = poot.transpose %pe4 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s2h = poot.matmul %qph, %pet : tensor<1x4x5x16xf32>, tensor<1x1x16x5xf32>
  %s2 = poot.transpose %s2h {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x5xf32>
  %s = poot.add %s1, %s2 : tensor<1x5x4x5xf32>, tensor<1x5x4x5xf32>
  %c = poot.constant dense<0.0721687824> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x5x4x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %dd = poot.sub %t, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %dd, %one : tensor<5x5xi64>, tensor<i64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %mask = poot.select %up, %ninf, %zero : tensor<5x5xi1>, tensor<f32>, tensor<f32>
  %m3 = poot.reshape %mask : tensor<5x5xf32> -> tensor<5x1x5xf32>
  %sm = poot.add %ss, %m3 : tensor<1x5x4x5xf32>, tensor<5x1x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x5x4x5xf32>
  %d = poot.sub %sm, %m : tensor<1x5x4x5xf32>, tensor<1x5x4x1xf32>
  %e = poot.exp %d : tensor<1x5x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x5x4x5xf32>
  %p = poot.div %e, %z : tensor<1x5x4x5xf32>, tensor<1x5x4x1xf32>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x5xf32>
  %xh = poot.matmul %ph, %kv4 : tensor<1x4x5x5xf32>, tensor<1x1x5x64xf32>
  %x = poot.transpose %xh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x64xf32>
  return %x : tensor<1x5x4x64xf32>
}
