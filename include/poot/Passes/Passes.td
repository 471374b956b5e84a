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
    witness is a validation output. A chain in another score order is
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

#endif // POOT_PASSES_TD
