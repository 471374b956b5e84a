// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.onnx (torch 2.3, symbolic_opset14.scaled_dot_product_attention) of
// F.scaled_dot_product_attention(q, k, v, is_causal=True) on f16:
// _attention_scale is 1 / Sqrt(Cast(D)) computed in the graph, then
// Sqrt(scale) multiplies q and Transpose(k) apart; _causal_attention_mask
// is Trilu(Expand(1.0, [L, S])) folded to a table, Where(Equal(mask, 0),
// -inf, 0) added; Softmax(axis=-1) in f16. B = 1, H = 2, L = 5, D = 80.

// CHECK-LABEL: func.func @onnx_sdpa_causal_sqrt_split_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.1118{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.1118{{[0-9]*}}, causal{{$}}
func.func @onnx_sdpa_causal_sqrt_split_f16(%q: tensor<1x2x5x80xf16>, %k: tensor<1x2x5x80xf16>,
                                           %v: tensor<1x2x5x80xf16>) -> tensor<1x2x5x80xf16> {
  %d = poot.constant dense<80.0> : tensor<f16>
  %sd = poot.sqrt %d : tensor<f16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %scale = poot.div %one, %sd : tensor<f16>, tensor<f16>
  %ss = poot.sqrt %scale : tensor<f16>
  %qs = poot.mul %q, %ss : tensor<1x2x5x80xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x80xf16>
  %kts = poot.mul %kt, %ss : tensor<1x2x80x5xf16>, tensor<f16>
  %s = poot.matmul %qs, %kts : tensor<1x2x5x80xf16>, tensor<1x2x80x5xf16>
  %tri = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<5x5xf16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %hid = poot.compare eq, %tri, %zero : tensor<5x5xf16>, tensor<f16>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %am = poot.select %hid, %ninf, %zero : tensor<5x5xi1>, tensor<f16>, tensor<f16>
  %sm = poot.add %s, %am : tensor<1x2x5x5xf16>, tensor<5x5xf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf16>
  %x = poot.sub %sm, %m : tensor<1x2x5x5xf16>, tensor<1x2x5x1xf16>
  %e = poot.exp %x : tensor<1x2x5x5xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf16>
  %p = poot.div %e, %z : tensor<1x2x5x5xf16>, tensor<1x2x5x1xf16>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf16>, tensor<1x2x5x80xf16>
  return %o : tensor<1x2x5x80xf16>
}
