// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// vLLM 0.6 tests/kernels/utils.py ref_masked_attention on one unpadded
// sequence [L, H, D]: keys and values torch.repeat_interleave(.., 2, dim=1)
// first (as the prefix-prefill tests do); attn_weights = scale *
// torch.einsum("qhd,khd->hqk", q, k).float(); + attn_mask, the traced
// constant torch.triu(torch.ones(L, L) * -inf, diagonal=1) in bf16;
// softmax(dim=-1).to(bf16); torch.einsum("hqk,khd->qhd", w, v).
// GQA 4/2, L = 5, D = 80.

// CHECK-LABEL: func.func @vllm_ref_masked_attention_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: {causal, n_rep = 2 : i64, scale = 0.1118{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.1118{{[0-9]*}}, causal{{$}}
func.func @vllm_ref_masked_attention_gqa_bf16(%q: tensor<5x4x80xbf16>, %k: tensor<5x2x80xbf16>,
                                              %v: tensor<5x2x80xbf16>) -> tensor<5x4x80xbf16> {
  %idx = poot.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
  %kr = poot.gather %k[%idx] {axis = 1 : i64} : tensor<5x2x80xbf16>, tensor<4xi64>
  %vr = poot.gather %v[%idx] {axis = 1 : i64} : tensor<5x2x80xbf16>, tensor<4xi64>
  %qh = poot.transpose %q {perm = array<i64: 1, 0, 2>} : tensor<5x4x80xbf16>
  %kh = poot.transpose %kr {perm = array<i64: 1, 2, 0>} : tensor<5x4x80xbf16>
  %s = poot.matmul %qh, %kh : tensor<4x5x80xbf16>, tensor<4x80x5xbf16>
  %sf = poot.convert %s : tensor<4x5x5xbf16> -> tensor<4x5x5xf32>
  %c = poot.constant dense<0.111803398> : tensor<f32>
  %ss = poot.mul %c, %sf : tensor<f32>, tensor<4x5x5xf32>
  %tri = poot.constant dense<[[0x0000, 0xFF80, 0xFF80, 0xFF80, 0xFF80], [0x0000, 0x0000, 0xFF80, 0xFF80, 0xFF80], [0x0000, 0x0000, 0x0000, 0xFF80, 0xFF80], [0x0000, 0x0000, 0x0000, 0x0000, 0xFF80], [0x0000, 0x0000, 0x0000, 0x0000, 0x0000]]> : tensor<5x5xbf16>
  %trf = poot.convert %tri : tensor<5x5xbf16> -> tensor<5x5xf32>
  %sm = poot.add %ss, %trf : tensor<4x5x5xf32>, tensor<5x5xf32>
  %mx = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %e = poot.exp %d : tensor<4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %p = poot.div %e, %z : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %pb = poot.convert %p : tensor<4x5x5xf32> -> tensor<4x5x5xbf16>
  %vh = poot.transpose %vr {perm = array<i64: 1, 0, 2>} : tensor<5x4x80xbf16>
  %oh = poot.matmul %pb, %vh : tensor<4x5x5xbf16>, tensor<4x5x80xbf16>
  %o = poot.transpose %oh {perm = array<i64: 1, 0, 2>} : tensor<4x5x80xbf16>
  return %o : tensor<5x4x80xbf16>
}
