//===- SoftmaxForm.h - The softmax normal forms the fusions read -*- C++
//-*-===//
//
// A small matcher library over poot's primitive ops (usable with MLIR's
// matchPattern and m_Op) and the readers built on it: the softmax's
// normaliser (a division by the sum, or the log-sum-exp subtracted inside
// the exp), the row shifts a softmax is invariant to (a max over the scores,
// seen through its scale and converts), and the empty-row guards front ends
// put on the probabilities. The readers only recognise; what a shift or a
// guard needs proven against the rest of the chain (which value a max is
// taken over, whether a row can be empty) is left to the caller, which
// knows the chain.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PASSES_SOFTMAXFORM_H
#define POOT_PASSES_SOFTMAXFORM_H

#include "Explain.h"

#include "poot/Dialect/PootDialect.h"
#include "poot/Dialect/PootRangeAnalysis.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace poot::match {

//===----------------------------------------------------------------------===//
// Value helpers
//===----------------------------------------------------------------------===//

inline mlir::RankedTensorType typeOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// Looks through float-to-float converts (bf16 graphs compute the softmax in
/// f32 between two converts).
mlir::Value stripFloatConvert(mlir::Value v);

/// Looks through broadcasts.
mlir::Value stripBroadcast(mlir::Value v);

/// Looks through broadcasts, float converts and reshapes that only add or
/// drop unit dims: the value a row constant is computed as.
mlir::Value stripRowView(mlir::Value v);

/// A splat constant seen through broadcast, reshape and convert.
std::optional<double> splatOf(mlir::Value v);

inline bool isSplat(mlir::Value v, double x) {
  auto s = splatOf(v);
  return s && *s == x;
}

/// The elements of `v` (row-major) where it is computed from constants and
/// iotas alone, by elementwise arithmetic, converts, broadcasts and
/// reshapes, each result rounded to its element type; nullopt for anything
/// else or past `limit` elements. ALiBi's slopes and a rotary table's
/// frequencies are often computed so in the graph, from a head or channel
/// arange.
std::optional<llvm::SmallVector<double>> constantElements(mlir::Value v,
                                                          int64_t limit = 4096);

/// Bounds [lo, hi] holding every element of a float value, each finite,
/// where it is computed from constants, integers of a proven range, bool
/// conditions, and the layout, select, convert and add/sub/mul/max/min/neg/
/// abs ops over them, each op's result rounded to its element type (an
/// overflow to inf gives nullopt). A float input has no bound. A mask built
/// as `(1 - convert(m)) * finfo.min` from a 0/1 integer input is bounded,
/// so it never makes a score -inf.
std::optional<std::pair<double, double>>
finiteBound(mlir::Value v, const poot::RangeOracle &oracle);

/// Whether a score plus one value from each of `bounds` stays finite when
/// summed in each float type of `types` (rounded to nearest, a sum
/// overflows only past the largest finite value by half an ulp). The score
/// is taken as any value of magnitude up to 2^96 or the largest finite
/// value of the narrowest type, whichever is less. Two finfo.min padding
/// masks added overflow to -inf; one finfo.min beside an f32 score does
/// not.
bool sumStaysFinite(llvm::ArrayRef<std::pair<double, double>> bounds,
                    llvm::ArrayRef<mlir::Type> types);

/// The key axis of a value of rank `rank`: its last.
inline bool isLastAxis(int64_t axis, int64_t rank) {
  return axis == rank - 1 || axis == -1;
}

/// Whether `c`, broadcast against `frame` (right-aligned), is the same along
/// the frame's last (key) axis: one value per row.
bool isRowConstant(mlir::Value c, mlir::RankedTensorType frame);

//===----------------------------------------------------------------------===//
// Matchers for matchPattern / m_Op
//===----------------------------------------------------------------------===//

namespace detail {
/// Matches `inner` on the op behind a value seen through float converts.
template <typename Inner> struct ThroughConvert {
  Inner inner;
  bool match(mlir::Value v) {
    mlir::Operation *def = stripFloatConvert(v).getDefiningOp();
    return def && inner.match(def);
  }
};

/// A splat constant (through broadcast, reshape, convert), captured.
struct SplatValue {
  double *out;
  bool match(mlir::Value v) {
    auto s = splatOf(v);
    if (s && out)
      *out = *s;
    return s.has_value();
  }
};

/// A reduction of `OpTy` over the last axis that keeps it, whose operand
/// matches `inner`.
template <typename OpTy, typename Inner> struct KeyReduce {
  Inner inner;
  bool match(mlir::Operation *op) {
    auto r = llvm::dyn_cast<OpTy>(op);
    if (!r || !r.getKeepdim() ||
        !isLastAxis(r.getAxis(), typeOf(r.getX()).getRank()))
      return false;
    return mlir::detail::matchOperandOrValueAtIndex(op, 0, inner);
  }
};
} // namespace detail

/// `inner` behind float converts: m_Cvt(m_Op<ExpOp>(...)).
template <typename Inner> auto m_Cvt(Inner inner) {
  return detail::ThroughConvert<Inner>{inner};
}
/// A splat constant, its value captured into `out` when given.
inline auto m_Splat(double *out = nullptr) { return detail::SplatValue{out}; }
/// A keepdim reduction over the key axis: m_KeyReduce<ReduceSumOp>(...).
template <typename OpTy, typename Inner> auto m_KeyReduce(Inner inner) {
  return detail::KeyReduce<OpTy, Inner>{inner};
}

//===----------------------------------------------------------------------===//
// The softmax
//===----------------------------------------------------------------------===//

/// A value subtracted from the scores inside the exp.
struct Shift {
  mlir::Value value;   ///< constant along the key axis
  mlir::Operation *at; ///< the op that subtracts it
};

/// The normaliser of a softmax and what it leaves to read.
struct SoftmaxForm {
  /// The exponent's argument as the normaliser leaves it: the scores with
  /// any shifts still on them (the score reader peels those).
  mlir::Value input;
  /// exp(x - logsumexp(x)) (or exp(log_softmax(x))): no division.
  bool logSumExp = false;
  /// Shifts the normaliser itself subtracts (the m of m + log(sum(exp(x -
  /// m)))), to be proven like the others.
  llvm::SmallVector<Shift> shifts;
  /// jnp.sum(e, where=mask): the sum is of select(sumMask, e, 0) (or of
  /// select(sumMask, 0, e) when !sumKeepsTrue). It is the sum of e exactly
  /// when the scores are -inf wherever the select drops e, which the caller
  /// proves from the score masks.
  mlir::Value sumMask;
  bool sumKeepsTrue = true;
  mlir::Operation *sumOp = nullptr;
};

/// Recognises the normaliser whose probabilities are `p`: exp(s) / sum(exp(s))
/// (or times 1 / sum), or exp(s - lse(s)) with lse(s) = log(sum(exp(s))) or
/// m + log(sum(exp(s - m))), all over the key axis with keepdim. On failure
/// `why` names the first op that breaks it.
mlir::FailureOr<SoftmaxForm> readSoftmax(mlir::Value p, std::string &why);

/// What a shift is, once read.
struct ShiftSource {
  /// The values it is a max over (each a keepdim max over the key axis, or
  /// a max over every element); empty for a finite constant.
  llvm::SmallVector<mlir::Value> maxOver;
};

/// Reads a row constant `c` that `at` subtracts from scores of type
/// `frame`: a finite splat, a max over the key axis (and possibly other
/// axes: a global max), a positive multiple or a convert of one, or JAX's
/// select(isfinite(m), m, 0) of them. Names the op that breaks it in `why`.
mlir::FailureOr<ShiftSource> readShift(mlir::Value c,
                                       mlir::RankedTensorType frame,
                                       mlir::Operation *at, std::string &why);

//===----------------------------------------------------------------------===//
// Empty-row guards on the probabilities
//===----------------------------------------------------------------------===//

/// A select that zeroes the probabilities of whole rows.
struct RowGuard {
  enum Kind {
    /// Zero where the row of `scores` is all -inf (PyTorch's _safe_softmax:
    /// where(max == -inf, 0, p), or all(x == -inf)).
    EmptyScores,
    /// Zero where no element of the row of `cond` says visible
    /// (where(any(keep), p, 0)).
    NoVisibleKey,
    /// Zero where `cond` hides a key (where(mask, p, 0) after the softmax,
    /// as jax.nn.softmax(x, where=mask) ends): the identity where the
    /// scores are masked by the same condition and the row keeps a key.
    SameMask,
  } kind;
  mlir::Operation *op; ///< the select
  mlir::Value guarded; ///< the probabilities under it
  mlir::Value scores;  ///< EmptyScores: the scores whose row max is tested
  mlir::Value cond;    ///< NoVisibleKey, SameMask: the key condition
  bool visibleWhenTrue = true;
};

/// Reads `v` as an empty-row guard or a mask on the probabilities. Returns
/// nothing when `v` is no select zeroing some of them by a condition of its
/// own; a failure (with `why`) for a per-row condition that does not say
/// "the row is empty".
std::optional<mlir::FailureOr<RowGuard>> readRowGuard(mlir::Value v,
                                                      std::string &why);

/// The predicate with its operands exchanged (a < b is b > a).
ComparePredicate swapped(ComparePredicate p);

} // namespace poot::match

#endif // POOT_PASSES_SOFTMAXFORM_H
