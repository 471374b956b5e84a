//===- HeadMap.h - Head maps: repeat_kv in every spelling -------*- C++ -*-===//
//
// A head map re-indexes one axis of a tensor: out[.., h, ..] = base[.., m[h],
// ..] for a map m from the out axis into the base axis. GQA's repeat_kv is
// one (m[h] = h / n_rep), and so are the spellings front ends write for it:
//
// - reshape -> broadcast -> reshape around a unit dim next to the axis
//   (the unit after it interleaves, m[h] = h / n; before it tiles,
//   m[h] = h % Hkv);
// - a gather along the axis with a rank-1 index known at compile time
//   (a constant, or one computed from iota);
// - a broadcast of a unit axis (one key head read by every query head).
//
// readHeadMap recognises one level of such a map; poot-canonicalize moves
// the maps next to the attention's matmuls (HeadMap.cpp: transposes above
// them, head-invariant elementwise ops below them, flattened batch*heads
// split, concatenated copies read as maps) and the attention matcher
// composes the levels it finds into one map and proves it a grouping.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PASSES_HEADMAP_H
#define POOT_PASSES_HEADMAP_H

#include "poot/Dialect/PootDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace poot::heads {

/// One level of a head map: `out` reads `base` re-indexed along `axis`.
struct HeadMapLevel {
  enum Kind { Repeat, Gather, Broadcast } kind = Repeat;
  int64_t axis = 0;
  /// What the spelling reads: the base, or a value of another shape holding
  /// the base's elements in row-major order (then a reshape of it is the
  /// base).
  mlir::Value src;
  /// The base: `out`'s type with the axis sized to the base's heads.
  mlir::RankedTensorType baseType;
  /// m[h] for every index h of `out`'s axis, each in [0, base heads).
  llvm::SmallVector<int64_t> map;

  /// The base as a value of the graph, or null when only `src` exists.
  mlir::Value base() const {
    return src.getType() == baseType ? src : mlir::Value();
  }
  /// The base, reshaped from `src` when needed.
  mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc) const;
};

/// Evaluates a rank-0/1 integer index expression (constants, iota, integer
/// arithmetic, broadcasts, reshapes, integer converts) at compile time.
std::optional<llvm::SmallVector<int64_t>> evalIndex(mlir::Value v);

/// Recognises one level of a head map producing `out` (any axis; the level
/// says which). Nothing for a value that is no head map, or whose map would
/// read outside its base (a gather index out of range stays a run-time
/// error, so it is never read as a map).
std::optional<HeadMapLevel> readHeadMap(mlir::Value out);

/// `base` (of `level.baseType`, possibly with other dims permuted or
/// changed) re-indexed along `axis` by the level's map, in the level's own
/// spelling; `outType` is the result.
mlir::Value rebuildHeadMap(mlir::OpBuilder &b, mlir::Location loc,
                           const HeadMapLevel &level, mlir::Value base,
                           int64_t axis, mlir::RankedTensorType outType);

/// The canonical forms of head maps (poot-canonicalize).
void populateHeadMapPatterns(mlir::RewritePatternSet &patterns);

} // namespace poot::heads

#endif // POOT_PASSES_HEADMAP_H
