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

#endif // POOT_PASSES_TD
