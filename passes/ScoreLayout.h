//===- ScoreLayout.h - Layout normal form of the attention scores -*- C++
//-*-===//
//
// Patterns of poot-canonicalize that bring the layout ops found between the
// two matmuls of an attention (transposes and reshapes around the scores and
// the softmax) to one place: none left between the first matmul and the
// second, the scores laid out [.., Lq, Lk] as the first matmul produces them.
// Each rewrite is a relabelling of axes proven op by op; a layout op that is
// not one (a reshape that changes the key axis, a permutation the matmul
// cannot absorb) is left where it is, and the attention matcher names it.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PASSES_SCORELAYOUT_H
#define POOT_PASSES_SCORELAYOUT_H

#include "mlir/IR/PatternMatch.h"

namespace poot {

void populateScoreLayoutPatterns(mlir::RewritePatternSet &patterns);

} // namespace poot

#endif // POOT_PASSES_SCORELAYOUT_H
