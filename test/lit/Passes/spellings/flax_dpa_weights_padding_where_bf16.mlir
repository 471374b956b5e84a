// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// flax.linen.dot_product_attention on bf16 [B, L, H, D] with the mask of
// nn.make_attention_mask(pad, pad) ([B, 1, L, L], the query and the key
// padding anded, so a padded query row keeps no key):
// query = query / sqrt(depth).astype(bf16); w = einsum('...qhd,...khd->...hqk');
// w = jnp.where(mask, w, finfo(bf16).min); jax.nn.softmax (x - max, exp,
// / sum, in bf16); einsum('...hqk,...khd->...qhd'). The bf16 finfo.min
// absorbs any score added to it, so the where is the additive tensor mask.
// B = 2, L = 4, H = 2, D = 32.

// CHECK-LABEL: func.func @flax_dpa_weights_padding_where_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x4x4xbf16>) {n_rep = 1 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.1767{{[0-9]*}}, tensor mask
func.func @flax_dpa_weights_padding_where_bf16(%q: tensor<2x4x2x32xbf16>, %k: tensor<2x4x2x32xbf16>,
                                               %v: tensor<2x4x2x32xbf16>, %pad: tensor<2x4xi1>)
    -> tensor<2x4x2x32xbf16> {
  %sd = poot.constant dense<5.65625> : tensor<bf16>
  %qs = poot.div %q, %sd : tensor<2x4x2x32xbf16>, tensor<bf16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x32xbf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x4x2x32xbf16>
  %w = poot.matmul %qh, %kt : tensor<2x2x4x32xbf16>, tensor<2x2x32x4xbf16>
  %pq = poot.reshape %pad : tensor<2x4xi1> -> tensor<2x1x4x1xi1>
  %pk = poot.reshape %pad : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %mask = poot.and %pq, %pk : tensor<2x1x4x1xi1>, tensor<2x1x1x4xi1>
  %min = poot.constant dense<0xFF7F> : tensor<bf16>
  %wm = poot.select %mask, %w, %min : tensor<2x1x4x4xi1>, tensor<2x2x4x4xbf16>, tensor<bf16>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x4x4xbf16>
  %d = poot.sub %wm, %m : tensor<2x2x4x4xbf16>, tensor<2x2x4x1xbf16>
  %e = poot.exp %d : tensor<2x2x4x4xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xbf16>
  %p = poot.div %e, %z : tensor<2x2x4x4xbf16>, tensor<2x2x4x1xbf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x32xbf16>
  %oh = poot.matmul %p, %vh : tensor<2x2x4x4xbf16>, tensor<2x2x4x32xbf16>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x32xbf16>
  return %o : tensor<2x4x2x32xbf16>
}
