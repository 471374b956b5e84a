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

namespace poot {

void populateMaskFormPatterns(mlir::RewritePatternSet &patterns);

} // namespace poot

#endif // POOT_PASSES_MASKFORM_H
