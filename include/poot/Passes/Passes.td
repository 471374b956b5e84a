//===- Passes.td - poot passes -----------------------------*- tablegen -*-===//
#ifndef POOT_PASSES_TD
#define POOT_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestIntRange : Pass<"poot-test-int-range", "mlir::func::FuncOp"> {
  let summary = "Annotate each op with the integer ranges the analysis proves";
  let description = [{
    Runs IntegerRangeAnalysis (seeded with declared `poot.range`s) and writes
    the proven signed range of every integer result into a `ranges` string
    attribute on its op, `?` where nothing is proven. Used by lit tests to pin
    what the fusion proofs can rely on.

    ```mlir
    %0 = poot.iota {dim = 0 : i64} : tensor<8xi32>
    // becomes
    %0 = poot.iota {dim = 0 : i64, ranges = "[0, 7]"} : tensor<8xi32>
    ```
  }];
  let dependentDialects = ["poot::PootDialect"];
}

def Canonicalize : Pass<"poot-canonicalize", "mlir::func::FuncOp"> {
  let summary = "Bring a graph to the normal forms the fusion matchers expect";
  let description = [{
    Runs the poot folds plus the normalising patterns exported by
    `populateCanonicalizePatterns`: transpose chains compose, reshape and
    broadcast chains collapse, scalar constants broadcast once, a division by
    a constant becomes a multiply by its reciprocal only where that is exact,
    masks selected with a -inf fill stay selects, and repeat_kv spelled as a
    repeat-interleave gather becomes reshape/broadcast/reshape.

    ```mlir
    %1 = poot.transpose %0 {perm = array<i64: 0, 2, 1, 3>}
    %2 = poot.transpose %1 {perm = array<i64: 0, 1, 3, 2>}
    // becomes one transpose with the composed permutation
    %2 = poot.transpose %0 {perm = array<i64: 0, 2, 3, 1>}
    ```
  }];
  let dependentDialects = ["poot::PootDialect"];
}

def RopeFusion : Pass<"poot-rope", "mlir::func::FuncOp"> {
  let summary = "Replace rotary-embedding chains with poot.rope";
  let description = [{
    Recognises rotate-half (`x * cos + concat(-x2, x1) * sin`) and
    interleaved RoPE chains, including a partial rotary width where the
    channels past `rotary_dim` pass through a slice and a concat, and
    replaces each with `poot.rope`.

    ```mlir
    %r = poot.add %xc, %rs ...  // x*cos + rotate_half(x)*sin
    // becomes
    %r = poot.rope %x, %cos, %sin {rotary_dim = 64 : i64, style = "half"}
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "Report every candidate: its form when fused, its reason when not">
  ];
  let dependentDialects = ["poot::PootDialect"];
}

def AttentionFusion : Pass<"poot-attention", "mlir::func::FuncOp"> {
  let summary = "Replace attention chains with poot.attention";
  let description = [{
    Finds `softmax(transform(q . k) + mask) . v` chains, rooted at the second
    matmul, in the spellings front ends write (scale on q, k, both or the
    scores, as mul or div; K transposed by a transpose or laid out
    transposed; masks added or selected; repeat_kv by reshape/broadcast/
    reshape or by a head gather; MQA by matmul broadcast; softmax with or
    without the max subtraction, as div or reciprocal multiply) and replaces
    each with one `poot.attention`. Paged keys (gather through a read map)
    fuse only when the read map is proven inside the pool; the live form only
    when 1 <= len <= Lk is proven, a clamp counting only when its guard's
    witness is a validation output. A mask filled with a large finite
    negative value (finfo.min, -1e9, -10000) is read as -inf only where the
    two give the same result (docs/numerics.md); unbatched [H, L, D]
    operands fuse as B = 1, JAX's grouped rank-5 [B, Hkv, n, L, D] einsum
    as n_rep = n. A chain in another score order is
    declined with its reason (`explain=true`, or `--poot-explain`, prints
    every candidate as a remark).

    ```mlir
    %s  = poot.matmul %q, %kt ...      // then mul scale, add mask,
    ...                                // reduce_max, sub, exp, reduce_sum, div
    %o  = poot.matmul %p, %v ...
    // becomes
    %o = poot.attention %q, %k, %v mask(%m : ...) {n_rep = 4, scale = 0.125}
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "Report every candidate: its form when fused, its reason when not">
  ];
  let dependentDialects = ["poot::PootDialect"];
}

def BlockSelect : Pass<"poot-block-select", "mlir::func::FuncOp"> {
  let summary = "Replace sparse block selection + masked attention with "
                "poot.block_topk and poot.selected_attention";
  let description = [{
    Runs after `poot-attention`. A sparse indexer's graph reaches it as a
    `poot.attention` whose tensor mask is the block selection the tracer
    spells out: the indexer's per-key scores hidden past the query position
    (`t > pos + i` selects -inf), their maximum over blocks of `ratio` keys,
    the indices of the top K blocks by `poot.topk`, and the mask
    `select((any_k(top[k] == t / ratio) or t / ratio == (pos + i) / ratio)
    and t <= pos + i, 0, -inf)`. The pattern proves the mask is exactly that
    (in any order of the and/or terms, through not and De Morgan, with the
    hits counted by a max or a sum, the causal bound as a mask term or as the
    attention's own `causal` flag at the same position) by reading every
    integer and boolean value of the mask as a function of the batch row,
    the query row and the key. It then replaces the attention with
    `poot.block_topk` on the indexer scores and `poot.selected_attention`,
    which visits at most `(K + 1) * ratio` keys per row instead of Lk; the
    mask, the block maxima and the top-k die with it. Dense and paged keys
    fuse; a live length, a split key, a sliding window, ALiBi, extra mask
    terms, another block layout or disagreeing positions are declined with
    their reason (`explain=true`, or `--poot-explain`, prints every candidate
    as a remark) and keep the dense attention, which computes the same
    function.

    ```mlir
    %sh = poot.select %hidden, %ninf, %s     // s: indexer scores [B, 1, Lq, Lk]
    %sb = poot.reshape %sh ... -> tensor<2x1x1x16x4xf32>
    %bs = poot.reduce_max %sb {axis = 4 : i64}
    %vals, %top = poot.topk %bs {k = 2 : i64}
    ...                                      // hits, own block, and t <= pos
    %mask = poot.select %vis, %zero, %ninf
    %o = poot.attention %q, %k, %v mask(%mask : tensor<2x1x1x64xf32>)
           {n_rep = 2 : i64, scale = 0.125 : f64}
    // becomes
    %s3 = poot.reshape %s : tensor<2x1x1x64xf32> -> tensor<2x1x64xf32>
    %blocks = poot.block_topk %s3 pos(%pos : tensor<i32>)
           {k = 2 : i64, ratio = 4 : i64}
           : tensor<2x1x64xf32> -> tensor<2x1x2xi32>
    %o = poot.selected_attention %q, %k, %v, %blocks pos(%pos : tensor<i32>)
           {n_rep = 2 : i64, ratio = 4 : i64, scale = 0.125 : f64}
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "Report every candidate: its form when fused, its reason when not">
  ];
  let dependentDialects = ["poot::PootDialect"];
}

#endif // POOT_PASSES_TD
