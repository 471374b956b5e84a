// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// DeepSeek-V3 inference/model.py MLA, attn_impl = "absorb", decoding one
// token after 8 cached ones in bf16 (mask is None for seqlen 1):
// scores = (einsum("bshc,btc->bsht", q_nope, kv_cache[:b, :end_pos]) +
//           einsum("bshr,btr->bsht", q_pe, pe_cache[:b, :end_pos])) *
//          softmax_scale, in bf16; scores.softmax(dim=-1,
// dtype=float32).type_as(x); x = einsum("bsht,btc->bshc", scores,
// kv_cache). The einsums lower to head-major matmuls transposed back to
// bsht. B = 2, s = 1, t = 9, h = 8, c = 32, rope r = 16, scale 48^-1/2
// (0.14453125 in bf16).

// One product over the joined channels, the split MLA key: the latent
// (also the value) and the rope key, one head for the eight query heads.
// CHECK-LABEL: func.func @deepseek_v3_mla_absorb_decode_bf16
// CHECK-SAME: %[[QN:[^:]+]]: tensor<2x1x8x32xbf16>, %[[QP:[^:]+]]: tensor<2x1x8x16xbf16>, %[[KV:[^:]+]]: tensor<2x9x32xbf16>, %[[PE:[^:]+]]: tensor<2x9x16xbf16>
// CHECK-DAG: %[[KV4:.+]] = poot.reshape %[[KV]] : tensor<2x9x32xbf16> -> tensor<2x1x9x32xbf16>
// CHECK-DAG: %[[PE4:.+]] = poot.reshape %[[PE]] : tensor<2x9x16xbf16> -> tensor<2x1x9x16xbf16>
// CHECK-DAG: %[[QC:.+]] = poot.concat %[[QN]], %[[QP]] {axis = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{.+}}, %[[KV4]], %[[KV4]] k_shared(%[[PE4]] : tensor<2x1x9x16xbf16>) {n_rep = 8 : i64, scale = 0.14453125 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: split attention, n_rep 8, scale 0.144531{{$}}
func.func @deepseek_v3_mla_absorb_decode_bf16(%qn: tensor<2x1x8x32xbf16>, %qp: tensor<2x1x8x16xbf16>,
                                              %kv: tensor<2x9x32xbf16>, %pe: tensor<2x9x16xbf16>)
    -> tensor<2x1x8x32xbf16> {
  %qnh = poot.transpose %qn {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x8x32xbf16>
  %kv4 = poot.reshape %kv : tensor<2x9x32xbf16> -> tensor<2x1x9x32xbf16>
  %kvt = poot.transpose %kv4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x9x32xbf16>
  %s1h = poot.matmul %qnh, %kvt : tensor<2x8x1x32xbf16>, tensor<2x1x32x9xbf16>
  %s1 = poot.transpose %s1h {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x1x9xbf16>
  %qph = poot.transpose %qp {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x8x16xbf16>
  %pe4 = poot.reshape %pe : tensor<2x9x16xbf16> -> tensor<2x1x9x16xbf16>
  %pet = poot.transpose %pe4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x9x16xbf16>
  %s2h = poot.matmul %qph, %pet : tensor<2x8x1x16xbf16>, tensor<2x1x16x9xbf16>
  %s2 = poot.transpose %s2h {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x1x9xbf16>
  %s = poot.add %s1, %s2 : tensor<2x1x8x9xbf16>, tensor<2x1x8x9xbf16>
  %c = poot.constant dense<0.144337565> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x1x8x9xbf16>, tensor<bf16>
  %sf = poot.convert %ss : tensor<2x1x8x9xbf16> -> tensor<2x1x8x9xf32>
  %m = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<2x1x8x9xf32>
  %d = poot.sub %sf, %m : tensor<2x1x8x9xf32>, tensor<2x1x8x1xf32>
  %e = poot.exp %d : tensor<2x1x8x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x1x8x9xf32>
  %p = poot.div %e, %z : tensor<2x1x8x9xf32>, tensor<2x1x8x1xf32>
  %pb = poot.convert %p : tensor<2x1x8x9xf32> -> tensor<2x1x8x9xbf16>
  %ph = poot.transpose %pb {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x8x9xbf16>
  %xh = poot.matmul %ph, %kv4 : tensor<2x8x1x9xbf16>, tensor<2x1x9x32xbf16>
  %x = poot.transpose %xh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x1x32xbf16>
  return %x : tensor<2x1x8x32xbf16>
}
