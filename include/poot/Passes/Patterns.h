//===- Patterns.h - Exported rewrite patterns of the poot passes -*- C++ -*-===//
//
// Each pass is a thin driver over patterns populated here, so other passes
// and the library can reuse them.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PASSES_PATTERNS_H
#define POOT_PASSES_PATTERNS_H

#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <string>

namespace poot {

/// Called for each fusion candidate with the op it is rooted at, whether it
/// fused, and the form it fused to or the reason it declined.
using ExplainFn =
    std::function<void(mlir::Operation *root, bool fused, const std::string &)>;

/// Drives fusion patterns (what a fusion pass does): with `explain`, a fusion
/// is reported as a remark "<what> fused: ..." when it happens, and a
/// decline "<what> declined: ..." once, after the driver settles, for the
/// candidates still standing (those the rewrite erased are forgotten, and
/// `stillCandidate`, when given, filters the rest).
mlir::LogicalResult applyFusionPatterns(
    mlir::Operation *root, llvm::StringRef what, bool explain,
    llvm::function_ref<void(mlir::RewritePatternSet &, ExplainFn)> populate,
    llvm::function_ref<bool(mlir::Operation *)> stillCandidate = nullptr);

/// The normal forms the matchers rely on (poot-canonicalize).
void populateCanonicalizePatterns(mlir::RewritePatternSet &patterns);

/// Rotate-half and interleaved RoPE chains -> poot.rope (poot-rope).
void populateRopeFusionPatterns(mlir::RewritePatternSet &patterns,
                                ExplainFn explain = nullptr);

/// Attention chains -> poot.attention in every form (poot-attention).
void populateAttentionFusionPatterns(mlir::RewritePatternSet &patterns,
                                     ExplainFn explain = nullptr);

/// Sparse block selection and its masked attention -> poot.block_topk +
/// poot.selected_attention (poot-block-select).
void populateBlockSelectPatterns(mlir::RewritePatternSet &patterns,
                                 ExplainFn explain = nullptr);

} // namespace poot

#endif // POOT_PASSES_PATTERNS_H
