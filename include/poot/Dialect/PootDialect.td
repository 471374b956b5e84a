//===- PootDialect.td - The poot dialect -------------------*- tablegen -*-===//
//
// The dialect of primitive attention eqns and the fused ops poot forms from
// them.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_DIALECT_TD
#define POOT_DIALECT_TD

include "mlir/IR/OpBase.td"

def Poot_Dialect : Dialect {
  let name = "poot";
  let cppNamespace = "::poot";
  let summary = "Primitive attention eqns and the fused ops formed from them";
  let description = [{
    A model graph is a `func.func` over statically shaped tensors whose body
    is made of primitive eqns: matmul, transpose, softmax written out as
    max/sub/exp/sum/div, repeat_kv as reshape/broadcast/reshape, masks from
    iota/compare/select, cache writes as dynamic_update_slice or
    scatter_update. Argument and result attributes (`poot.slot`,
    `poot.range`, `poot.state`, `poot.validation`, `poot.name`) say what each
    input and output is; the dialect verifies them on the function.
  }];
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  // Inherent attributes live in the attribute dictionary so type inference
  // can read them while the op is still being parsed.
  let usePropertiesForAttributes = 0;
}

class Poot_Op<string mnemonic, list<Trait> traits = []>
    : Op<Poot_Dialect, mnemonic, traits>;

#endif // POOT_DIALECT_TD
