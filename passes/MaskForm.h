//===- MaskForm.h - Normal forms of index and mask expressions --*- C++ -*-===//
//
// Patterns of poot-canonicalize that bring the masks front ends build to
// the iota/compare form the attention matcher reads for its meaning: a
// constant integer tensor that is an arange along one axis becomes an iota
// (ONNX Range is imported as a constant), a constant band table (a tril
// buffer, a sliding-window table) sliced at run-time positions becomes the
// compare of indices it tabulates, and the boolean bookkeeping around masks
// (a 0/1 integer mask cast back to bool, `and` with true, a compare of a
// select of two constants) folds away.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PASSES_MASKFORM_H
#define POOT_PASSES_MASKFORM_H

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace poot {

void populateMaskFormPatterns(mlir::RewritePatternSet &patterns);

/// Whether `v` is mask arithmetic over integers or bools (an integer or
/// bool value, a convert of one, or add, subtract, multiply and select
/// over such values and splats): the mask forms keep such arithmetic
/// before a broadcast, where it was built, so the layout hoists leave it.
bool isMaskArithmetic(mlir::Value v);

/// For a reshape from `in` to `out` that only inserts or drops unit dims,
/// the non-unit dims of each, in order and pairwise of one size; nullopt
/// when the reshape moves data otherwise.
std::optional<std::pair<llvm::SmallVector<int64_t>, llvm::SmallVector<int64_t>>>
unitDimMap(mlir::RankedTensorType in, mlir::RankedTensorType out);

} // namespace poot

#endif // POOT_PASSES_MASKFORM_H
