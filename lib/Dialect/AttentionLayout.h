//===- AttentionLayout.h - The q/k/v layout both attention ops share -*- C++
//-*-===//
//
// poot.attention and poot.selected_attention take q, k and v (dense, or
// paged pools with a read map) the same way; their verifiers check that
// layout through one function. Private to the dialect library.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_DIALECT_ATTENTIONLAYOUT_H
#define POOT_LIB_DIALECT_ATTENTIONLAYOUT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace poot {

/// Checks q [B, Hq, Lq, Dk], k and v of q's element type with Hq / nRep
/// heads: dense [B, Hkv, Lk, D] (k's channels short of Dk by k_shared's,
/// given `kShared` [B, 1, Lk, s]) or, given `read` [B, Lk], pools
/// [S, Hkv, D]. On success sets the key length and the value width.
mlir::LogicalResult
verifyAttentionLayout(mlir::Operation *op, mlir::RankedTensorType q,
                      mlir::RankedTensorType k, mlir::RankedTensorType v,
                      mlir::Value read, mlir::Value kShared, int64_t nRep,
                      int64_t &lk, int64_t &dv);

} // namespace poot

#endif // POOT_LIB_DIALECT_ATTENTIONLAYOUT_H
