//===- ScoreLayout.cpp - Layout normal form of the attention scores -------===//
//
// Front ends put layout ops anywhere between the two matmuls of an
// attention: einsum layouts keep the scores [b, q, h, k] and transpose them
// back for P . V; BLOOM and GPT-Neo multiply over a flattened b*h batch and
// view the scores as [b, h, q, k] for the masks only (fairseq views them
// back before the softmax); old ONNX exports run Softmax on a [b*h*q, k]
// view between two reshapes; decode graphs drop the unit query axis; some
// write P . V as (V^T . P^T)^T. The normal form has no layout op between the
// first matmul and the second: the scores are laid out [.., Lq, Lk] as the
// first matmul produces them and P . V reads them there.
//
// Every pattern here moves layout ops towards the first matmul (or, for
// P . V, out past the second), so they never undo each other:
//
// - RelabelScoreChain, rooted at a transpose (any permutation) or at a
//   rank-increasing reshape that keeps the last (key) axis, whose operand is
//   a score chain: elementwise ops, selects, compares and converts,
//   reductions with keepdim, broadcasts, back to the first matmul or to
//   another layout op on it. The layout op is moved above the chain: every
//   chain op is rebuilt in the new layout (a reduction's axis relabelled),
//   every other input is brought to it, and at the top the layout op
//   composes with the one there or is absorbed by the matmul. The proof, op
//   by op, that this is a relabelling:
//     * an elementwise op commutes with any data movement that is applied
//       to all its operands alike (each operand, broadcast numpy-style,
//       is moved with the same map);
//     * a transpose relabels any reduction axis (axis a becomes inv(perm)[a]);
//     * a reshape that keeps the last axis K maps every row of K elements
//       to one row of K elements (row-major order within the prefix is the
//       same), so a reduction over the last axis commutes with it; one over
//       any other axis does not, and stops the rewrite;
//     * an input of another shape is moved by dim groups (the runs of prefix
//       dims whose products match on both sides): a group it holds in full
//       is relabelled, one it broadcasts (all 1) stays broadcast, and one it
//       broadcasts in part is broadcast in full first. A transposed input
//       that only moves unit dims is reshaped instead, and one computed from
//       iotas and splat constants alone (a mask built from indices) is
//       rebuilt with each iota running along its permuted dim, so the mask
//       readers still see the indices;
//     * transpose(matmul(a, b), p) is matmul(a', b') when p permutes the
//       batch dims among themselves and keeps the last two (or swaps them:
//       matmul(b'^T, a'^T)); reshape(matmul(a, b)) is matmul(a', b') when
//       the reshape keeps the last two dims and regroups the batch only
//       (an operand transposed within its last two dims is regrouped under
//       its transpose, so a repeat_kv behind k^T stays readable);
//     * a reshape that splits the rows of the product, [.., M, N] to
//       [.., M1, M2, N] (rows m1 * M2 + m2, as multi-query attention with
//       heads merged into the rows has them), is the product of a viewed
//       [.., M1, M2, D] with b viewed [.., 1, D, N]: one factor becomes a
//       batch axis b is broadcast over. The factor the masks vary along is
//       kept as the rows (the outer one by default; then the product is
//       taken on a transposed and transposed back), a choice of labels
//       only.
//   Anything else (a reshape that changes the key axis, a permutation that
//   moves the key axis into the batch, a value read outside the chain) is
//   left where it is, and the attention matcher names the op in its decline.
//
// - TransposedPVProduct: transpose(matmul(a, p), perm) with the
//   probabilities p on the right is transpose(matmul(p^T, a^T), perm'),
//   perm' = swap . perm ((X . Y)^T = Y^T . X^T batch by batch); the outer
//   transpose is dropped when perm' is the identity.
//
// - LiftBatchReshapeThroughMatmul: matmul(reshape(p), v) where the reshape
//   only merges batch dims of the probabilities p (BLOOM's view back to
//   [b*h, q, k] before bmm) is reshape(matmul(p, v')), v' regrouped into
//   p's batch dims. v must broadcast into p's batch, not the other way.
//
// - SplitProbabilitiesAtPV: matmul(p, v) where the chain behind p holds a
//   reshape that merges batch dims and keeps the rows and keys (fairseq:
//   the masked [b, h, q, k] view merged back to [b*h, q, k] before the
//   softmax): p is relabelled into the unmerged view by the proof above,
//   the merge composing away, and the product is taken there, v regrouped,
//   then reshaped back.
//
// - MergedRowsAtPV: matmul(reshape(p), v) where the reshape merges split
//   rows of the probabilities back ([.., M1, M2, N] to [.., M, N]) is the
//   product on p itself against v viewed [.., 1, N, Dv], reshaped back; on
//   p transposed (and transposed back) where the chain starts with the
//   transpose a row split left, so the two meet and compose away.
//
// - MergeBatchAxesAtPV: matmul(p, v) of rank 5 or more whose batch dims
//   are all plain batch axes (nothing broadcast over them, no operand a
//   broadcast): the leading dims merge into one, p's chain is relabelled
//   by that merge (the same proof; masks regrouped), and the product is
//   taken at rank 4 and viewed back. The one pattern that lowers the
//   rank: the matcher reads rank 4, or rank 5 only as grouped-query
//   attention, and merging keeps a grouped form (keys shared over an
//   axis) out of its reach, so it never meets SplitProbabilitiesAtPV's
//   split (which needs a merge on the chain; after this one there is
//   none).
//
// - SumOfScoreProducts: a1 . b1 + a2 . b2 of one shape is
//   concat(a1, a2) . concat(b1, b2) over the joined contraction (DeepSeek-V3's
//   absorbed MLA scores).
//
// - MatmulBatchBroadcast: matmul(a, broadcast(b)) where the broadcast only
//   widens batch dims of size 1 to the other operand's (k.expand(B, ...)
//   of a key cache shared by every batch row) is matmul(a, b): the matmul
//   broadcasts its batch dims itself, and the attention matcher then sees
//   keys and values of batch 1, which it reads once for every row. (The
//   one pattern here that fires on any matmul: it changes no layout.)
//
// The others fire only on chains that hold or feed a softmax (an exp whose values
// are summed), so other matmuls, and MLP chains with a sigmoid's exp, keep
// their layout.
//
//===----------------------------------------------------------------------===//

#include "ScoreLayout.h"

#include "poot/Dialect/PootDialect.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <cassert>
#include <functional>
#include <optional>
#include <string>

using namespace mlir;
using namespace poot;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

int64_t normAxis(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }

bool allOnes(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t d) { return d == 1; });
}

SmallVector<int64_t> identityPerm(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// Elementwise ops (numpy broadcasting) that may sit in a score chain.
bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, SelectOp,
             CompareOp, AndOp, OrOp, NotOp, ExpOp, LogOp, TanhOp, NegOp,
             AbsOp, SqrtOp, RsqrtOp, ConvertOp>(op);
}

bool isReduction(Operation *op) {
  return isa<ReduceMaxOp, ReduceSumOp, ReduceMinOp>(op);
}

bool keepdimOf(Operation *op) {
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    return r.getKeepdim();
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return r.getKeepdim();
  if (auto r = dyn_cast<ReduceMinOp>(op))
    return r.getKeepdim();
  return false;
}

int64_t axisOf(Operation *op) {
  int64_t rank = typeOf(op->getOperand(0)).getRank();
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    return normAxis(static_cast<int64_t>(r.getAxis()), rank);
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return normAxis(static_cast<int64_t>(r.getAxis()), rank);
  if (auto r = dyn_cast<ReduceMinOp>(op))
    return normAxis(static_cast<int64_t>(r.getAxis()), rank);
  return -1;
}

bool isLayout(Operation *op) { return isa<TransposeOp, ReshapeOp>(op); }

/// The ops a score chain is walked through: elementwise ops, reductions,
/// broadcasts and layout ops.
bool isChainLike(Operation *op) {
  return isElementwise(op) || isReduction(op) || isLayout(op) ||
         isa<BroadcastOp>(op);
}

/// Whether `v` is computed from an op `target` accepts through chain-like
/// ops. Memoised per op: softmax chains share values (x - max(x)), and an
/// unmemoised walk is exponential in their depth.
bool computedFrom(Value v, llvm::function_ref<bool(Operation *)> target) {
  llvm::DenseMap<Operation *, bool> memo;
  std::function<bool(Value, int)> walk = [&](Value x, int depth) -> bool {
    Operation *def = x.getDefiningOp();
    if (!def || depth > 32)
      return false;
    if (target(def))
      return true;
    if (!isChainLike(def))
      return false;
    if (auto it = memo.find(def); it != memo.end())
      return it->second;
    bool r = llvm::any_of(def->getOperands(),
                          [&](Value y) { return walk(y, depth + 1); });
    memo[def] = r;
    return r;
  };
  return walk(v, 0);
}

/// Whether `op` is the exp of a softmax: one whose values (through float
/// converts and a where-mask select) are summed. The exp of a sigmoid or a
/// SiLU is not, so MLP chains keep their layout.
bool isSoftmaxExp(Operation *op) {
  if (!isa<ExpOp>(op))
    return false;
  SmallVector<Value> work{op->getResult(0)};
  for (size_t i = 0; i < work.size() && i < 8; ++i)
    for (Operation *user : work[i].getUsers()) {
      if (isa<ReduceSumOp>(user))
        return true;
      if (isa<ConvertOp, SelectOp>(user))
        work.push_back(user->getResult(0));
    }
  return false;
}

/// Whether `v` is computed from a matmul through chain and layout ops.
bool reachesMatmul(Value v) {
  return computedFrom(v, [](Operation *o) { return isa<MatmulOp>(o); });
}

/// Whether `v` is computed from a softmax's exp through chain and layout
/// ops (the probabilities, seen from P . V).
bool holdsExp(Value v) { return computedFrom(v, isSoftmaxExp); }

/// Whether `v` reaches a softmax's exp through its users (chain and layout
/// ops).
bool feedsExp(Value v) {
  llvm::DenseMap<Operation *, bool> memo;
  std::function<bool(Value, int)> walk = [&](Value x, int depth) -> bool {
    if (depth > 12)
      return false;
    for (Operation *user : x.getUsers()) {
      if (isSoftmaxExp(user))
        return true;
      if (!isChainLike(user) || user->getNumResults() != 1)
        continue;
      auto it = memo.find(user);
      bool r = it != memo.end() ? it->second
                                : (memo[user] = walk(user->getResult(0),
                                                     depth + 1));
      if (r)
        return true;
    }
    return false;
  };
  return walk(v, 0);
}

/// The runs of dims whose products match between two shapes of one element
/// count: [6, 4] and [2, 3, 4] group as {6}-{2, 3} and {4}-{4}. Each group is
/// (begin, end) in `a` and (begin, end) in `b`.
struct DimGroup {
  int64_t a0, a1, b0, b1;
};
std::optional<SmallVector<DimGroup>> dimGroups(ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b) {
  SmallVector<DimGroup> out;
  int64_t i = 0, j = 0, na = a.size(), nb = b.size();
  while (i < na || j < nb) {
    DimGroup g{i, i, j, j};
    int64_t pa = 1, pb = 1;
    if (i < na)
      pa *= a[i++];
    if (j < nb)
      pb *= b[j++];
    while (pa != pb) {
      if (pa < pb && i < na)
        pa *= a[i++];
      else if (pb < pa && j < nb)
        pb *= b[j++];
      else
        return std::nullopt;
    }
    g.a1 = i;
    g.b1 = j;
    out.push_back(g);
  }
  return out;
}

/// Whether `shape`, aligned to the right of `prefix ++ [keep dims]`,
/// broadcasts into `prefix`: each of its prefix dims is 1 or the prefix's.
bool fitsPrefix(ArrayRef<int64_t> shape, ArrayRef<int64_t> prefix,
                int64_t keep) {
  int64_t rank = prefix.size() + keep;
  int64_t lead = rank - static_cast<int64_t>(shape.size());
  if (lead < 0)
    return false;
  for (int64_t i = 0; i < static_cast<int64_t>(prefix.size()); ++i) {
    if (i < lead)
      continue;
    int64_t d = shape[i - lead];
    if (d != 1 && d != prefix[i])
      return false;
  }
  return true;
}

/// Moves `v` (broadcastable into `from` in its first dims, see fitsPrefix;
/// the rest of v's dims are kept) from the prefix `from` to the prefix `to`
/// by dim groups. `keep` trailing dims of v are carried over unchanged.
Value regroup(PatternRewriter &rewriter, Location loc, Value v,
              ArrayRef<int64_t> from, ArrayRef<int64_t> to, int64_t keep) {
  auto t = typeOf(v);
  assert(fitsPrefix(t.getShape(), from, keep) && "value does not fit the "
                                                 "prefix it is moved from");
  int64_t rank = from.size() + keep;
  SmallVector<int64_t> padded(rank - t.getRank(), 1);
  llvm::append_range(padded, t.getShape());
  ArrayRef<int64_t> prefix = ArrayRef<int64_t>(padded).take_front(from.size());
  ArrayRef<int64_t> tail = ArrayRef<int64_t>(padded).drop_front(from.size());
  auto groups = dimGroups(from, to);
  assert(groups && "prefixes of different element counts");
  SmallVector<int64_t> full(prefix), target;
  bool broadcast = false;
  for (const DimGroup &g : *groups) {
    ArrayRef<int64_t> held = prefix.slice(g.a0, g.a1 - g.a0);
    ArrayRef<int64_t> src = from.slice(g.a0, g.a1 - g.a0);
    ArrayRef<int64_t> dst = to.slice(g.b0, g.b1 - g.b0);
    if (held == src) {
      llvm::append_range(target, dst);
    } else if (allOnes(held)) {
      target.append(dst.size(), 1);
    } else {
      for (int64_t k = g.a0; k < g.a1; ++k)
        full[k] = from[k];
      broadcast = true;
      llvm::append_range(target, dst);
    }
  }
  llvm::append_range(full, tail);
  llvm::append_range(target, tail);
  if (broadcast) {
    if (static_cast<int64_t>(t.getRank()) != rank)
      v = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(padded, t.getElementType()), v);
    v = rewriter.create<BroadcastOp>(loc, v, full);
  }
  if (typeOf(v).getShape() == ArrayRef<int64_t>(target))
    return v;
  return rewriter.create<ReshapeOp>(
      loc, RankedTensorType::get(target, t.getElementType()), v);
}

/// A matmul operand (rank from.size() + 2) regrouped from the batch `from`
/// to the batch `to`. Under a transpose that keeps the batch dims in place
/// (k^T), the transpose's operand is regrouped and transposed again: a
/// batch regroup commutes with a permute of the last two dims, and the
/// key's own layout ops (repeat_kv) then compose with the regroup.
Value regroupOperand(PatternRewriter &rewriter, Location loc, Value v,
                     ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  int64_t r = from.size() + 2;
  if (auto tr = v.getDefiningOp<TransposeOp>();
      tr && typeOf(v).getRank() == r) {
    ArrayRef<int64_t> p = tr.getPerm();
    bool batchFixed = true;
    for (int64_t i = 0; i < r - 2; ++i)
      batchFixed &= p[i] == i;
    if (batchFixed) {
      Value x = regroup(rewriter, loc, tr.getX(), from, to, 2);
      int64_t nb = to.size();
      SmallVector<int64_t> q = identityPerm(nb);
      q.push_back(nb + p[r - 2] - (r - 2));
      q.push_back(nb + p[r - 1] - (r - 2));
      if (llvm::equal(q, llvm::seq<int64_t>(0, nb + 2)))
        return x;
      return rewriter.create<TransposeOp>(loc, x, q);
    }
  }
  return regroup(rewriter, loc, v, from, to, 2);
}

/// The relabelling a layout op applies: a permutation, or a reshape from
/// `in` to `out` that keeps the last axis.
struct Relabel {
  bool transpose = false;
  SmallVector<int64_t> perm, inv;
  SmallVector<int64_t> in, out;
  int64_t rank = 0; ///< rank of the chain (the layout op's operand)

  int64_t outRank() const {
    return transpose ? rank : static_cast<int64_t>(out.size());
  }

  /// The type a chain value of type `t` has once relabelled.
  std::optional<RankedTensorType> mapType(RankedTensorType t) const {
    if (t.getRank() != rank)
      return std::nullopt;
    SmallVector<int64_t> shape;
    if (transpose) {
      for (int64_t p : perm)
        shape.push_back(t.getDimSize(p));
      return RankedTensorType::get(shape, t.getElementType());
    }
    // Reshape: the value holds every prefix group in full or not at all
    // (a keepdim reduction over the keys leaves the prefix whole).
    auto groups = dimGroups(ArrayRef<int64_t>(in).drop_back(),
                            ArrayRef<int64_t>(out).drop_back());
    if (!groups)
      return std::nullopt;
    for (const DimGroup &g : *groups) {
      auto held = t.getShape().slice(g.a0, g.a1 - g.a0);
      auto src = ArrayRef<int64_t>(in).slice(g.a0, g.a1 - g.a0);
      if (held == src) {
        llvm::append_range(shape,
                           ArrayRef<int64_t>(out).slice(g.b0, g.b1 - g.b0));
      } else if (allOnes(held)) {
        shape.append(g.b1 - g.b0, 1);
      } else {
        return std::nullopt;
      }
    }
    shape.push_back(t.getDimSize(rank - 1));
    return RankedTensorType::get(shape, t.getElementType());
  }

  /// The relabelled reduction axis, if the reduction commutes.
  std::optional<int64_t> mapAxis(int64_t axis) const {
    if (transpose)
      return inv[axis];
    if (axis == rank - 1)
      return static_cast<int64_t>(out.size()) - 1;
    return std::nullopt;
  }

  /// A reshape from `from` to `to` that keeps the last axis and splits
  /// prefix dims (rank grows), or nullopt.
  static std::optional<Relabel> split(ArrayRef<int64_t> from,
                                      ArrayRef<int64_t> to) {
    if (to.size() <= from.size() || from.empty() ||
        to.back() != from.back() ||
        !dimGroups(from.drop_back(), to.drop_back()))
      return std::nullopt;
    Relabel rl;
    rl.rank = from.size();
    rl.in = llvm::to_vector(from);
    rl.out = llvm::to_vector(to);
    return rl;
  }
};

/// The two factors of a reshape from `in` [batch.., M, N] to `out`
/// [batch.., M1, M2, N] that splits the rows M = M1 * M2 (M2 above 1; M1
/// may be 1, a unit axis put in front of the rows) and keeps the batch and
/// the last axis; nullopt for any other reshape.
std::optional<std::pair<int64_t, int64_t>> rowSplit(ArrayRef<int64_t> in,
                                                    ArrayRef<int64_t> out) {
  int64_t r = in.size();
  if (r < 2 || static_cast<int64_t>(out.size()) != r + 1 ||
      in.take_front(r - 2) != out.take_front(r - 2) ||
      in.back() != out.back())
    return std::nullopt;
  int64_t m1 = out[r - 2], m2 = out[r - 1];
  if (m1 < 1 || m2 < 2 || m1 * m2 != in[r - 2])
    return std::nullopt;
  return std::pair{m1, m2};
}

/// `v` with leading unit dims up to `rank`.
Value padRank(PatternRewriter &rewriter, Location loc, Value v, int64_t rank) {
  auto t = typeOf(v);
  if (t.getRank() >= rank)
    return v;
  SmallVector<int64_t> padded(rank - t.getRank(), 1);
  llvm::append_range(padded, t.getShape());
  return rewriter.create<ReshapeOp>(
      loc, RankedTensorType::get(padded, t.getElementType()), v);
}

/// `v` [.., X, Y] viewed [.., X1, X2, Y] (or [.., 1, X, Y] with no split).
Value splitAt(PatternRewriter &rewriter, Location loc, Value v,
              ArrayRef<int64_t> parts) {
  auto t = typeOf(v);
  SmallVector<int64_t> shape(t.getShape().drop_back(2));
  llvm::append_range(shape, parts);
  shape.push_back(t.getShape().back());
  return rewriter.create<ReshapeOp>(
      loc, RankedTensorType::get(shape, t.getElementType()), v);
}

/// The permutation of rank `rank` that swaps dims rank-3 and rank-2.
SmallVector<int64_t> swapRowsPerm(int64_t rank) {
  SmallVector<int64_t> p = identityPerm(rank);
  std::swap(p[rank - 3], p[rank - 2]);
  return p;
}

/// Which factor of split rows [.., M1, M2, N] the other inputs of the score
/// chain (masks, biases) vary along: true when some input varies along M2
/// and none along M1 without M2 (M2 is then the query axis), false
/// otherwise. Only a choice of labels: either one relabels exactly.
bool innerFactorIsQuery(Value scores) {
  int64_t rank = typeOf(scores).getRank();
  int64_t outerAxis = rank - 3, innerAxis = rank - 2;
  bool outer = false, inner = false;
  llvm::DenseSet<Value> seen{scores};
  SmallVector<Value> work{scores};
  for (size_t i = 0; i < work.size() && i < 64; ++i)
    for (Operation *user : work[i].getUsers()) {
      if (!(isElementwise(user) || isReduction(user) ||
            isa<BroadcastOp>(user)) ||
          user->getNumResults() != 1 || !isTensor(user->getResult(0)))
        continue;
      for (Value y : user->getOperands()) {
        // Values of the chain itself (a row max) say nothing of the labels.
        if (seen.contains(y) || !isTensor(y) ||
            computedFrom(y, [&](Operation *o) {
              return o == scores.getDefiningOp();
            }))
          continue;
        auto t = typeOf(y);
        auto dim = [&](int64_t axis) {
          int64_t k = axis - (rank - t.getRank());
          return k >= 0 && k < t.getRank() ? t.getDimSize(k) : 1;
        };
        bool o = dim(outerAxis) > 1, n = dim(innerAxis) > 1;
        outer |= o && !n;
        inner |= n && !o;
      }
      if (seen.insert(user->getResult(0)).second)
        work.push_back(user->getResult(0));
    }
  return inner && !outer;
}

/// Whether transpose(matmul(a, b), perm) is a matmul of transposed operands:
/// perm keeps the batch dims among themselves and the last two together.
bool matmulAbsorbsPerm(ArrayRef<int64_t> perm) {
  int64_t r = perm.size();
  if (r < 2)
    return false;
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] >= r - 2)
      return false;
  return (perm[r - 2] == r - 2 && perm[r - 1] == r - 1) ||
         (perm[r - 2] == r - 1 && perm[r - 1] == r - 2);
}

/// Whether the matmul `mm` absorbs the relabelling: a batch permutation
/// (with or without the swap of the matrix dims), or a reshape that
/// regroups the batch and keeps the rows.
bool matmulAbsorbs(MatmulOp mm, const Relabel &rl) {
  if (rl.transpose)
    return matmulAbsorbsPerm(rl.perm);
  // Split rows: one factor becomes a batch axis of the product (see
  // buildRelabel).
  if (rowSplit(rl.in, rl.out))
    return typeOf(mm.getLhs()).getRank() <= rl.rank &&
           typeOf(mm.getRhs()).getRank() <= rl.rank;
  if (rl.rank < 2 || rl.in[rl.rank - 2] != rl.out[rl.out.size() - 2] ||
      !dimGroups(ArrayRef<int64_t>(rl.in).drop_back(2),
                 ArrayRef<int64_t>(rl.out).drop_back(2)))
    return false;
  ArrayRef<int64_t> batch = ArrayRef<int64_t>(rl.in).drop_back(2);
  return fitsPrefix(typeOf(mm.getLhs()).getShape(), batch, 2) &&
         fitsPrefix(typeOf(mm.getRhs()).getShape(), batch, 2);
}

/// `v` (rank of `perm`) transposed by `perm`, rebuilt when it is an index
/// expression: iotas and splat constants combined by elementwise ops, as
/// masks are built. Each iota then runs along its permuted dim, so the mask
/// readers, which read iotas in the score frame, see the same indices.
/// Null when `v` is not one (the caller transposes it instead).
Value transposeIndexTree(PatternRewriter &rewriter, Location loc, Value v,
                         const Relabel &rl, llvm::DenseMap<Value, Value> &done,
                         int depth = 0) {
  if (!isTensor(v) || typeOf(v).getRank() != rl.rank || depth > 8)
    return nullptr;
  if (auto it = done.find(v); it != done.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return nullptr;
  auto type = *rl.mapType(typeOf(v));
  Value r;
  if (auto iota = dyn_cast<IotaOp>(def)) {
    r = rewriter.create<IotaOp>(
        loc, type, static_cast<uint64_t>(rl.inv[iota.getDim()]));
  } else if (auto c = dyn_cast<ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !dense.isSplat())
      return nullptr;
    r = rewriter.create<ConstantOp>(
        loc, type,
        DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
  } else if (isElementwise(def)) {
    SmallVector<Value> operands;
    for (Value x : def->getOperands()) {
      if (!isTensor(x))
        return nullptr;
      auto xt = typeOf(x);
      if (allOnes(xt.getShape()) && xt.getRank() <= rl.rank) {
        operands.push_back(x);
        continue;
      }
      Value moved = transposeIndexTree(rewriter, loc, x, rl, done, depth + 1);
      if (!moved)
        return nullptr;
      operands.push_back(moved);
    }
    OperationState state(def->getLoc(), def->getName());
    state.addOperands(operands);
    state.addAttributes(def->getAttrs());
    state.addTypes(type);
    r = rewriter.create(state)->getResult(0);
  } else {
    return nullptr;
  }
  done[v] = r;
  return r;
}

/// What lies behind a value to relabel: chain ops (rebuilt), sources (a
/// matmul or a layout op on the way to one: absorbed or composed), leaves
/// (moved as inputs).
enum Kind { Leaf, Chain, Source };

struct ChainPlan {
  llvm::DenseMap<Operation *, Kind> kind;
  SmallVector<Operation *> order; ///< chain ops and sources, in block order
  Kind topKind = Leaf;
  bool hasExp = false;
};

/// Classifies what lies behind `x` and checks that relabelling it by `rl`
/// is one: every chain op commutes with the relabelling, every matmul
/// source absorbs it, and no chain value (nor `x`, other than by `reader`)
/// is read outside the chain, where the old layout would be needed.
FailureOr<ChainPlan> planRelabel(Value x, const Relabel &rl,
                                 Operation *reader, std::string &why) {
  ChainPlan plan;
  Operation *top = x.getDefiningOp();
  if (!top) {
    why = "operand is an argument";
    return failure();
  }
  auto &kind = plan.kind;
  std::function<Kind(Operation *, int)> classify = [&](Operation *o,
                                                       int depth) -> Kind {
    if (auto it = kind.find(o); it != kind.end())
      return it->second;
    Kind k = Leaf;
    bool rankOk = o->getNumResults() == 1 && isTensor(o->getResult(0)) &&
                  typeOf(o->getResult(0)).getRank() == rl.rank &&
                  rl.mapType(typeOf(o->getResult(0))).has_value() &&
                  llvm::all_of(o->getOperands(), isTensor);
    if (rankOk && isa<MatmulOp>(o)) {
      k = Source;
    } else if (rankOk && isLayout(o) && reachesMatmul(o->getOperand(0))) {
      k = Source;
    } else if (rankOk && depth < 64) {
      bool chainOp = isElementwise(o);
      if (isReduction(o))
        chainOp = keepdimOf(o) && rl.mapAxis(axisOf(o)).has_value();
      if (auto b = dyn_cast<BroadcastOp>(o))
        chainOp = typeOf(b.getX()).getRank() == rl.rank &&
                  rl.mapType(typeOf(b.getX())).has_value();
      if (chainOp)
        for (Value v : o->getOperands())
          if (Operation *d = v.getDefiningOp())
            if (classify(d, depth + 1) != Leaf)
              k = Chain;
    }
    kind[o] = k;
    return k;
  };
  plan.topKind = classify(top, 0);
  if (plan.topKind == Leaf) {
    why = "operand is not a score chain";
    return failure();
  }
  if (plan.topKind == Source && !isa<MatmulOp>(top)) {
    why = "nothing to move through";
    return failure();
  }
  for (auto [o, k] : kind) {
    if (k == Leaf)
      continue;
    plan.order.push_back(o);
    plan.hasExp |= k == Chain && isSoftmaxExp(o);
    if (auto mm = dyn_cast<MatmulOp>(o); mm && !matmulAbsorbs(mm, rl)) {
      why = "the matmul cannot absorb the relabelling";
      return failure();
    }
  }
  // Nothing outside may read a chain value: it would need the old layout.
  for (auto [o, k] : kind) {
    if (k != Chain && o != top)
      continue;
    for (Operation *user : o->getResult(0).getUsers())
      if (o == top ? user != reader : kind.lookup(user) != Chain) {
        why = "a chain value is read outside the chain";
        return failure();
      }
  }
  if (llvm::any_of(plan.order, [&](Operation *o) {
        return o->getBlock() != reader->getBlock();
      })) {
    why = "chain spans blocks";
    return failure();
  }
  llvm::sort(plan.order, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return plan;
}

/// Builds `x` relabelled by `rl` as `plan` says, before the current
/// insertion point. Every type is the relabelled one by construction
/// (planRelabel has checked each op maps).
Value buildRelabel(PatternRewriter &rewriter, Location loc, Value x,
                   const Relabel &rl, const ChainPlan &plan,
                   bool innerRows = false) {
  llvm::DenseMap<Value, Value> indexTrees;
  // An input from outside the chain, moved to the new layout.
  auto leaf = [&](Value v) -> Value {
    auto t = typeOf(v);
    if (allOnes(t.getShape()) && t.getRank() <= rl.outRank())
      return v;
    if (!rl.transpose)
      return regroup(rewriter, loc, v, ArrayRef<int64_t>(rl.in).drop_back(),
                     ArrayRef<int64_t>(rl.out).drop_back(), 1);
    SmallVector<int64_t> padded(rl.rank - t.getRank(), 1);
    llvm::append_range(padded, t.getShape());
    SmallVector<int64_t> moved;
    int64_t last = -1;
    bool order = true; // the permutation keeps the non-unit dims in order
    for (int64_t p : rl.perm) {
      moved.push_back(padded[p]);
      if (padded[p] != 1) {
        order &= p > last;
        last = p;
      }
    }
    // Only unit dims move, and to where numpy broadcasting puts them.
    if (order && (ArrayRef<int64_t>(moved) == t.getShape() ||
                  ArrayRef<int64_t>(moved) == ArrayRef<int64_t>(padded)))
      return v;
    if (t.getRank() == rl.rank)
      if (Value tree = transposeIndexTree(rewriter, loc, v, rl, indexTrees))
        return tree;
    if (order)
      return rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(moved, t.getElementType()), v);
    if (t.getRank() < rl.rank)
      v = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(padded, t.getElementType()), v);
    return rewriter.create<TransposeOp>(loc, v, rl.perm);
  };
  llvm::DenseMap<Value, Value> moved;
  auto get = [&](Value v) {
    auto it = moved.find(v);
    return it != moved.end() ? it->second : leaf(v);
  };
  // (a . b) relabelled: a and b brought to rank `rank` (padRank), then
  // moved.
  auto padTo = [&](Value v, int64_t rank) {
    return padRank(rewriter, loc, v, rank);
  };
  for (Operation *o : plan.order) {
    auto type = *rl.mapType(typeOf(o->getResult(0)));
    Value result;
    if (auto mm = dyn_cast<MatmulOp>(o)) {
      Value a = padTo(mm.getLhs(), rl.rank), b = padTo(mm.getRhs(), rl.rank);
      if (rl.transpose) {
        SmallVector<int64_t> p(rl.perm);
        bool swap = p[rl.rank - 2] == rl.rank - 1;
        if (swap)
          std::swap(p[rl.rank - 2], p[rl.rank - 1]);
        auto permute = [&](Value v) -> Value {
          if (llvm::equal(p, llvm::seq<int64_t>(0, rl.rank)))
            return v;
          return rewriter.create<TransposeOp>(loc, v, p);
        };
        a = permute(a);
        b = permute(b);
        if (swap) {
          SmallVector<int64_t> s = identityPerm(rl.rank);
          std::swap(s[rl.rank - 2], s[rl.rank - 1]);
          Value at = rewriter.create<TransposeOp>(loc, a, s);
          Value bt = rewriter.create<TransposeOp>(loc, b, s);
          a = bt;
          b = at;
        }
      } else if (auto split = rowSplit(rl.in, rl.out)) {
        // Rows m1 * M2 + m2 of a . b: row m2 of a viewed [.., M1, M2, D]
        // times b viewed [.., 1, D, N], broadcast over the new axis M1.
        // With the outer factor as the query rows (the default), the
        // product is taken over a transposed to [.., M2, M1, D] and
        // transposed back; P . V meets that transpose (MergedRowsAtPV).
        // Scores with no batch dims ([S, T], one head) viewed [1, S, T]
        // gain a batch axis of one: the product is taken there as it is.
        a = splitAt(rewriter, loc, a, {split->first, split->second});
        b = splitAt(rewriter, loc, b,
                    {1, typeOf(b).getShape().drop_back().back()});
        if (!innerRows && (split->first != 1 || rl.rank > 2)) {
          SmallVector<int64_t> swap = swapRowsPerm(rl.rank + 1);
          a = rewriter.create<TransposeOp>(loc, a, swap);
          Value product = rewriter.create<MatmulOp>(o->getLoc(), a, b);
          result = rewriter.create<TransposeOp>(loc, product, swap);
        }
      } else {
        ArrayRef<int64_t> from = ArrayRef<int64_t>(rl.in).drop_back(2);
        ArrayRef<int64_t> to = ArrayRef<int64_t>(rl.out).drop_back(2);
        a = regroupOperand(rewriter, loc, a, from, to);
        b = regroupOperand(rewriter, loc, b, from, to);
      }
      if (!result)
        result = rewriter.create<MatmulOp>(o->getLoc(), a, b);
    } else if (plan.kind.lookup(o) == Source) {
      if (auto tr = dyn_cast<TransposeOp>(o); tr && rl.transpose) {
        SmallVector<int64_t> p;
        for (int64_t i : rl.perm)
          p.push_back(tr.getPerm()[i]);
        result = rewriter.create<TransposeOp>(o->getLoc(), tr.getX(), p);
      } else if (auto rs = dyn_cast<ReshapeOp>(o); rs && !rl.transpose) {
        result = rewriter.create<ReshapeOp>(o->getLoc(), type, rs.getX());
      } else {
        result = leaf(o->getResult(0));
      }
    } else {
      SmallVector<Value> operands;
      for (Value v : o->getOperands())
        operands.push_back(get(v));
      OperationState state(o->getLoc(), o->getName());
      state.addOperands(operands);
      for (NamedAttribute a : o->getAttrs()) {
        if (a.getName() == "axis" && isReduction(o)) {
          state.addAttribute(
              "axis", rewriter.getI64IntegerAttr(*rl.mapAxis(axisOf(o))));
        } else if (a.getName() == "shape" && isa<BroadcastOp>(o)) {
          state.addAttribute("shape",
                             rewriter.getDenseI64ArrayAttr(type.getShape()));
        } else {
          state.addAttribute(a.getName(), a.getValue());
        }
      }
      state.addTypes(type);
      result = rewriter.create(state)->getResult(0);
    }
    assert(typeOf(result) == type && "relabelled type mismatch");
    moved[o->getResult(0)] = result;
  }
  return moved.lookup(x);
}

/// The relabelling a layout op applies, or nullopt (a merging reshape, one
/// that changes the key axis, an identity).
std::optional<Relabel> relabelOf(Operation *op) {
  auto xt = typeOf(op->getOperand(0));
  auto rt = typeOf(op->getResult(0));
  if (auto tr = dyn_cast<TransposeOp>(op)) {
    Relabel rl;
    rl.transpose = true;
    rl.rank = xt.getRank();
    rl.perm = llvm::to_vector(tr.getPerm());
    rl.inv.resize(rl.perm.size());
    for (int64_t i = 0; i < rl.rank; ++i)
      rl.inv[rl.perm[i]] = i;
    if (llvm::equal(rl.perm, llvm::seq<int64_t>(0, rl.rank)))
      return std::nullopt;
    return rl;
  }
  // Only a reshape that splits prefix dims (rank grows) and keeps the key
  // axis: the normal form has the most dims, so merges are never pushed
  // and the two directions cannot undo each other.
  return Relabel::split(xt.getShape(), rt.getShape());
}

/// The binary elementwise ops a view may be taken for (see viewedChain).
bool isViewedBinary(Operation *op) {
  return op && isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op);
}

/// A view taken for a few binary ops and undone after them:
/// outer = reshape(op_n(.. op_1(reshape(x), y_1) .., y_n)), x of outer's
/// type, each op elementwise with one use. The ops in order (op_1 first)
/// and, for each, which operand carries the chain; x, or null.
struct ViewedChain {
  Value x;
  SmallVector<Operation *> ops;
  SmallVector<int> side;
};
std::optional<ViewedChain> viewedChain(ReshapeOp outer) {
  ViewedChain vc;
  Value cur = outer.getX();
  auto viewType = typeOf(cur);
  for (int depth = 0; depth < 4; ++depth) {
    Operation *e = cur.getDefiningOp();
    if (!isViewedBinary(e) || !e->hasOneUse() ||
        e->getResult(0).getType() != viewType)
      return std::nullopt;
    int found = -1;
    for (int side = 0; side < 2 && found < 0; ++side) {
      Value v = e->getOperand(side);
      if (v.getType() != viewType)
        continue;
      auto in = v.getDefiningOp<ReshapeOp>();
      if (in && in.getX().getType() == outer.getType()) {
        vc.ops.insert(vc.ops.begin(), e);
        vc.side.insert(vc.side.begin(), side);
        vc.x = in.getX();
        return vc;
      }
    }
    // Go on through the operand that is itself such an op.
    for (int side = 0; side < 2 && found < 0; ++side) {
      Operation *d = e->getOperand(side).getDefiningOp();
      if (isViewedBinary(d) && d->getResult(0).getType() == viewType)
        found = side;
    }
    if (found < 0)
      return std::nullopt;
    vc.ops.insert(vc.ops.begin(), e);
    vc.side.insert(vc.side.begin(), found);
    cur = e->getOperand(found);
  }
  return std::nullopt;
}

/// Whether `outer` undoes a view taken for a few binary ops
/// (ElementwiseInBatchView's sandwich, which the layout moves leave to it).
bool undoesViewForFewOps(ReshapeOp outer) {
  auto vc = viewedChain(outer);
  return vc && reachesMatmul(vc->x) && feedsExp(outer.getResult());
}

struct RelabelScoreChain : public RewritePattern {
  RelabelScoreChain(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isLayout(op) || !isTensor(op->getOperand(0)))
      return failure();
    auto rl = relabelOf(op);
    if (!rl)
      return rewriter.notifyMatchFailure(op, "not a permutation, nor a split "
                                             "keeping the keys");
    // A view taken for one binary op and undone right after is left to
    // ElementwiseInBatchView: the scores keep the product's layout.
    if (op->hasOneUse()) {
      Operation *e = *op->getUsers().begin();
      for (int depth = 0; depth < 4 && e && e->hasOneUse(); ++depth) {
        Operation *next = *e->getUsers().begin();
        if (auto back = dyn_cast<ReshapeOp>(next)) {
          if (undoesViewForFewOps(back))
            return rewriter.notifyMatchFailure(op, "a view undone after a "
                                                   "few ops");
          break;
        }
        e = isViewedBinary(next) ? next : nullptr;
      }
    }
    Value x = op->getOperand(0);
    std::string why;
    auto plan = planRelabel(x, *rl, op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    // Directly on a matmul: absorbed only into the scores' matmul (the
    // layout the scores are read in); P . V's own layout is its output's.
    if (plan->topKind == Source && !feedsExp(op->getResult(0)))
      return rewriter.notifyMatchFailure(op, "not scores");
    if (plan->topKind == Chain && !plan->hasExp &&
        !feedsExp(op->getResult(0)))
      return rewriter.notifyMatchFailure(op, "not around a softmax");
    // A split of the product's rows takes the factor the masks vary along
    // as the query rows (only a choice of labels: both are exact).
    bool innerRows = !rl->transpose && rowSplit(rl->in, rl->out) &&
                     innerFactorIsQuery(op->getResult(0));
    rewriter.setInsertionPoint(op);
    Value repl =
        buildRelabel(rewriter, op->getLoc(), x, *rl, *plan, innerRows);
    rewriter.replaceOp(op, repl);
    return success();
  }
};

/// transpose(matmul(a, p), perm) with the probabilities on the right:
/// transpose(matmul(p^T, a^T), swap . perm), each operand swapped in its own
/// rank.
struct TransposedPVProduct : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto mm = op.getX().getDefiningOp<MatmulOp>();
    if (!mm || !mm->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a single-use matmul");
    if (!holdsExp(mm.getRhs()) || holdsExp(mm.getLhs()))
      return rewriter.notifyMatchFailure(op, "not (V^T . P^T)^T");
    int64_t r = op.getType().getRank();
    Location loc = op.getLoc();
    auto swapOwn = [&](Value v) -> Value {
      SmallVector<int64_t> s = identityPerm(typeOf(v).getRank());
      std::swap(s[s.size() - 1], s[s.size() - 2]);
      return rewriter.create<TransposeOp>(loc, v, s);
    };
    Value product = rewriter.create<MatmulOp>(mm.getLoc(), swapOwn(mm.getRhs()),
                                              swapOwn(mm.getLhs()));
    // x = product^T: x dim j is product dim swap[j].
    SmallVector<int64_t> swap = identityPerm(r), perm;
    std::swap(swap[r - 1], swap[r - 2]);
    for (int64_t p : op.getPerm())
      perm.push_back(swap[p]);
    if (llvm::equal(perm, llvm::seq<int64_t>(0, r)))
      rewriter.replaceOp(op, product);
    else
      rewriter.replaceOpWithNewOp<TransposeOp>(op, product, perm);
    return success();
  }
};

/// The scores times (or divided by) a tensor that varies only along their
/// batch dims, matmul(a, b) * t with t's last two dims 1 (a temperature per
/// head: Swin V2's clamped, exponentiated logit_scale): matmul(a * t, b),
/// the factor on q, where the fused op reads it as part of q. Row i of
/// a . b times t[h] is (t[h] * a_i) . b. A splat is left to the scale.
template <typename OpTy>
struct BatchFactorOnScores : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isDiv = std::is_same_v<OpTy, DivOp>;
    for (int side = 0; side < (isDiv ? 1 : 2); ++side) {
      auto mm = op->getOperand(side).template getDefiningOp<MatmulOp>();
      Value t = op->getOperand(1 - side);
      if (!mm || !mm->hasOneUse() || mm.getType() != op.getType())
        continue;
      auto tt = typeOf(t), at = typeOf(mm.getLhs());
      int64_t r = mm.getType().getRank();
      if (tt.getRank() > r || at.getRank() != r || r < 3 ||
          tt.getElementType() != at.getElementType() ||
          llvm::all_of(tt.getShape(), [](int64_t d) { return d == 1; }))
        continue;
      // t broadcasts into the product's batch dims only.
      SmallVector<int64_t> padded(r - tt.getRank(), 1);
      llvm::append_range(padded, tt.getShape());
      bool batchOnly = padded[r - 1] == 1 && padded[r - 2] == 1;
      for (int64_t i = 0; i < r - 2 && batchOnly; ++i)
        batchOnly = padded[i] == 1 || padded[i] == at.getDimSize(i);
      if (!batchOnly || !feedsExp(op.getResult()))
        continue;
      Location loc = op.getLoc();
      Value a = rewriter.create<OpTy>(loc, at, mm.getLhs(), t);
      rewriter.replaceOpWithNewOp<MatmulOp>(op, a, mm.getRhs());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no batch factor on a product");
  }
};

/// matmul(a, p) with the probabilities on the right and no transpose after
/// it (Apple's attention for the Neural Engine: V . P^T over key-major
/// scores, the output laid out [.., D, Lq]): transpose(matmul(p^T, a^T)),
/// the product with the probabilities on the left the matcher roots at,
/// transposed into the graph's layout. Element (d, i) of a . p is
/// sum_t a[d, t] p[t, i], which is element (i, d) of p^T . a^T.
struct ProbabilitiesOnTheRight : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    if (!holdsExp(mm.getRhs()) || holdsExp(mm.getLhs()))
      return rewriter.notifyMatchFailure(mm, "not a . P");
    int64_t r = mm.getType().getRank();
    if (r < 2 || typeOf(mm.getLhs()).getRank() != r ||
        typeOf(mm.getRhs()).getRank() != r)
      return rewriter.notifyMatchFailure(mm, "operands of other ranks");
    Location loc = mm.getLoc();
    SmallVector<int64_t> s = identityPerm(r);
    std::swap(s[r - 1], s[r - 2]);
    Value pT = rewriter.create<TransposeOp>(loc, mm.getRhs(), s);
    Value aT = rewriter.create<TransposeOp>(loc, mm.getLhs(), s);
    Value product = rewriter.create<MatmulOp>(loc, pT, aT);
    rewriter.replaceOpWithNewOp<TransposeOp>(mm, product, s);
    return success();
  }
};

/// matmul(reshape(p), v) where the reshape merges batch dims of p and keeps
/// its last two: reshape(matmul(p, v')), v' regrouped into p's batch dims.
struct LiftBatchReshapeThroughMatmul : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    auto rs = mm.getLhs().getDefiningOp<ReshapeOp>();
    if (!rs)
      return rewriter.notifyMatchFailure(mm, "lhs is not a reshape");
    auto pt = typeOf(rs.getX()), lt = typeOf(rs.getResult());
    auto vt = typeOf(mm.getRhs());
    if (pt.getRank() <= lt.getRank() || lt.getRank() < 3 ||
        vt.getRank() > lt.getRank())
      return rewriter.notifyMatchFailure(mm, "not a batch merge");
    int64_t pr = pt.getRank(), lr = lt.getRank();
    if (pt.getDimSize(pr - 1) != lt.getDimSize(lr - 1) ||
        pt.getDimSize(pr - 2) != lt.getDimSize(lr - 2))
      return rewriter.notifyMatchFailure(mm, "the reshape moves the rows or "
                                             "keys");
    auto from = lt.getShape().drop_back(2), to = pt.getShape().drop_back(2);
    if (!dimGroups(from, to))
      return rewriter.notifyMatchFailure(mm, "batch does not regroup");
    // [.., 1, M, N] merged to [.., M, N] are split rows too: MergedRowsAtPV
    // takes them in the layout the scores' product has.
    if (rowSplit(lt.getShape(), pt.getShape()))
      return rewriter.notifyMatchFailure(mm, "merged rows");
    // v must broadcast into the merged batch of p, not the other way: a
    // batch p broadcasts over has no place in p's own batch dims.
    if (!fitsPrefix(vt.getShape(), from, 2))
      return rewriter.notifyMatchFailure(mm, "v's batch is not within p's");
    if (!holdsExp(rs.getX()))
      return rewriter.notifyMatchFailure(mm, "lhs is not probabilities");
    Location loc = mm.getLoc();
    Value v = mm.getRhs();
    if (vt.getRank() < lr) {
      SmallVector<int64_t> padded(lr - vt.getRank(), 1);
      llvm::append_range(padded, vt.getShape());
      v = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(padded, vt.getElementType()), v);
    }
    v = regroupOperand(rewriter, loc, v, from, to);
    Value out = rewriter.create<MatmulOp>(loc, rs.getX(), v);
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// The operand of a batch merge under `x` (x = reshape(X), or transpose(
/// reshape(X)) by a permutation of the last two dims: k^T of a merged k),
/// with that transpose taken on X instead; null where x is neither, or the
/// reshape changes more than the batch dims.
Value unmergedOperand(PatternRewriter *rewriter, Location loc, Value x) {
  auto t = typeOf(x);
  int64_t r = t.getRank();
  auto tr = x.getDefiningOp<TransposeOp>();
  bool swapped = false;
  if (tr) {
    ArrayRef<int64_t> p = tr.getPerm();
    for (int64_t i = 0; i < r - 2; ++i)
      if (p[i] != i)
        return nullptr;
    swapped = p[r - 2] == r - 1;
    x = tr.getX();
  }
  auto rs = x.getDefiningOp<ReshapeOp>();
  if (!rs)
    return nullptr;
  auto src = typeOf(rs.getX());
  int64_t sr = src.getRank();
  if (sr <= r || src.getShape().take_back(2) != typeOf(x).getShape().take_back(2) ||
      !dimGroups(src.getShape().drop_back(2), typeOf(x).getShape().drop_back(2)))
    return nullptr;
  if (!rewriter || !swapped)
    return rs.getX();
  SmallVector<int64_t> perm = identityPerm(sr);
  std::swap(perm[sr - 2], perm[sr - 1]);
  return rewriter->create<TransposeOp>(loc, rs.getX(), perm);
}

/// The batch dims of A and B where `mm` is matmul(reshape(A), reshape(B))
/// with both reshapes merging the same batch dims (see
/// UnmergedScoreProduct); empty otherwise.
SmallVector<int64_t> unmergedBatch(MatmulOp mm) {
  Value a = unmergedOperand(nullptr, mm.getLoc(), mm.getLhs());
  Value b = unmergedOperand(nullptr, mm.getLoc(), mm.getRhs());
  if (!a || !b)
    return {};
  auto at = typeOf(a), bt = typeOf(b);
  // Up to rank 4, the rank the matcher reads (MergeBatchAxesAtPV merges
  // plain batch axes above it: the two must not undo each other).
  if (at.getRank() != bt.getRank() || at.getRank() > 4 ||
      at.getShape().drop_back(2) != bt.getShape().drop_back(2))
    return {};
  return llvm::to_vector(at.getShape().drop_back(2));
}

/// The scores' product over a merged batch, matmul(reshape(A), reshape(B))
/// with both reshapes merging the same batch dims ([B, H, L, D] viewed
/// [B * H, L, D] for bmm, as BART-family and DETR attention write it): the
/// product taken on A and B, viewed merged. Element for element the same
/// products; the scores then carry the batch and head axes, so a mask
/// added in the [B, H, Lq, Lk] view (BART's attention_mask) is kept per
/// batch row instead of being copied to every head of the merged axis.
/// Only on a score product (its result feeds a softmax's exp).
struct UnmergedScoreProduct : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    if (unmergedBatch(mm).empty())
      return rewriter.notifyMatchFailure(mm, "operands are not merges of one "
                                             "batch");
    if (holdsExp(mm.getLhs()) || holdsExp(mm.getRhs()) ||
        !feedsExp(mm.getResult()))
      return rewriter.notifyMatchFailure(mm, "not the scores' product");
    Location loc = mm.getLoc();
    Value a = unmergedOperand(&rewriter, loc, mm.getLhs());
    Value b = unmergedOperand(&rewriter, loc, mm.getRhs());
    Value out = rewriter.create<MatmulOp>(loc, a, b);
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// matmul(p, v) where the chain behind p holds a reshape that merges batch
/// dims and keeps the rows and keys: p relabelled into the unmerged view
/// (the merge composes away), the product taken there, reshaped back.
struct SplitProbabilitiesAtPV : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The batch-merging reshape behind `p` on its chain, if any.
  static ReshapeOp findMerge(Value p) {
    auto pt = typeOf(p);
    llvm::DenseMap<Operation *, bool> seen;
    std::function<ReshapeOp(Value, int)> walk = [&](Value x,
                                                    int depth) -> ReshapeOp {
      Operation *def = x.getDefiningOp();
      if (!def || depth > 32 || !seen.try_emplace(def, true).second ||
          def->getNumResults() != 1 || !isTensor(def->getResult(0)))
        return nullptr;
      auto t = typeOf(def->getResult(0));
      if (t.getRank() != pt.getRank())
        return nullptr;
      if (auto rs = dyn_cast<ReshapeOp>(def)) {
        auto in = typeOf(rs.getX());
        int64_t r = in.getRank();
        if (r > pt.getRank() && t.getShape() == pt.getShape() &&
            in.getShape().take_back(2) == t.getShape().take_back(2))
          return rs;
        return nullptr;
      }
      if (!isElementwise(def) && !isReduction(def) && !isa<BroadcastOp>(def))
        return nullptr;
      for (Value y : def->getOperands())
        if (isTensor(y))
          if (ReshapeOp found = walk(y, depth + 1))
            return found;
      return nullptr;
    };
    return walk(p, 0);
  }

  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    Value p = mm.getLhs();
    Operation *def = p.getDefiningOp();
    auto pt = typeOf(p), vt = typeOf(mm.getRhs());
    if (!def || isLayout(def) || pt.getRank() < 3 ||
        vt.getRank() > pt.getRank())
      return rewriter.notifyMatchFailure(mm, "not P . V");
    ReshapeOp merge = findMerge(p);
    if (!merge)
      return rewriter.notifyMatchFailure(mm, "no batch merge behind p");
    if (undoesViewForFewOps(merge))
      return rewriter.notifyMatchFailure(mm, "the merge undoes a view for "
                                             "one op");
    auto view = typeOf(merge.getX()).getShape();
    auto rl = Relabel::split(pt.getShape(), view);
    if (!rl)
      return rewriter.notifyMatchFailure(mm, "the view does not keep the "
                                             "keys");
    auto from = pt.getShape().drop_back(2), to = view.drop_back(2);
    if (!fitsPrefix(vt.getShape(), from, 2))
      return rewriter.notifyMatchFailure(mm, "v's batch is not within p's");
    std::string why;
    auto plan = planRelabel(p, *rl, mm, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(mm, why);
    if (plan->topKind != Chain || !plan->hasExp ||
        plan->kind.lookup(merge) != Source)
      return rewriter.notifyMatchFailure(mm, "the merge is not on p's "
                                             "softmax chain");
    Location loc = mm.getLoc();
    rewriter.setInsertionPoint(mm);
    Value p2 = buildRelabel(rewriter, loc, p, *rl, *plan);
    Value v = mm.getRhs();
    if (vt.getRank() < pt.getRank()) {
      SmallVector<int64_t> padded(pt.getRank() - vt.getRank(), 1);
      llvm::append_range(padded, vt.getShape());
      v = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(padded, vt.getElementType()), v);
    }
    v = regroupOperand(rewriter, loc, v, from, to);
    Value out = rewriter.create<MatmulOp>(loc, p2, v);
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// Whether `x` (a matmul operand) is spread by a broadcast, seen through
/// transposes and float converts: keys repeated over a group axis
/// (grouped-query attention at rank 5), which the attention matcher reads
/// as a grouping and a batch merge would hide.
bool spreadByBroadcast(Value x) {
  for (int depth = 0; depth < 8; ++depth) {
    Operation *def = x.getDefiningOp();
    if (!def)
      return false;
    if (isa<BroadcastOp>(def))
      return true;
    if (!isa<TransposeOp, ConvertOp>(def))
      return false;
    x = def->getOperand(0);
  }
  return false;
}

/// matmul(p, v) of rank r >= 5 where every batch dim is a plain batch axis
/// (OpenFold's MSA rows [*, N_seq, H, L, L], Hiera's mask units, Twins'
/// window groups): the leading r - 3 dims merged into one, so the scores
/// are the rank-4 [B', H, Lq, Lk] the attention matcher reads. The chain
/// behind p is relabelled by the merge (the proof of RelabelScoreChain: a
/// reshape that keeps the keys commutes with the chain; the masks are
/// regrouped, broadcast first over a merged group they hold in part), the
/// scores' product absorbs it, and the output is viewed back.
///
/// Only where nothing is broadcast over a batch dim: both products'
/// operands have the scores' batch dims, and neither reads a broadcast.
/// Keys shared over an axis (the grouped einsum [B, Hkv, n, L, D] against
/// [B, Hkv, 1, L, D], or a broadcast to n) are grouped-query attention,
/// which the matcher reads at rank 5 with the group kept.
struct MergeBatchAxesAtPV : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    Value p = mm.getLhs(), v = mm.getRhs();
    auto pt = typeOf(p), vt = typeOf(v);
    int64_t r = pt.getRank();
    if (r < 5 || vt.getRank() != r)
      return rewriter.notifyMatchFailure(mm, "not rank 5 or more");
    ArrayRef<int64_t> batch = pt.getShape().drop_back(2);
    auto sameBatch = [&](Value x) {
      return typeOf(x).getRank() == r &&
             typeOf(x).getShape().drop_back(2) == batch &&
             !spreadByBroadcast(x);
    };
    Operation *def = p.getDefiningOp();
    if (!def || isLayout(def) || !sameBatch(v))
      return rewriter.notifyMatchFailure(mm, "not P . V over one batch");
    Relabel rl;
    rl.rank = r;
    rl.in = llvm::to_vector(pt.getShape());
    int64_t merged = 1;
    for (int64_t i = 0; i < r - 3; ++i)
      merged *= pt.getDimSize(i);
    rl.out = {merged, pt.getDimSize(r - 3), pt.getDimSize(r - 2),
              pt.getDimSize(r - 1)};
    std::string why;
    auto plan = planRelabel(p, rl, mm, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(mm, why);
    if (plan->topKind != Chain || !plan->hasExp)
      return rewriter.notifyMatchFailure(mm, "p is not probabilities");
    for (auto [o, k] : plan->kind) {
      if (k != Source)
        continue;
      auto qk = dyn_cast<MatmulOp>(o);
      if (!qk || !sameBatch(qk.getLhs()) || !sameBatch(qk.getRhs()))
        return rewriter.notifyMatchFailure(mm, "the scores' product is not "
                                               "over the same batch");
    }
    Location loc = mm.getLoc();
    rewriter.setInsertionPoint(mm);
    Value p4 = buildRelabel(rewriter, loc, p, rl, *plan);
    Value v4 = regroupOperand(rewriter, loc, v, batch,
                              ArrayRef<int64_t>(rl.out).drop_back(2));
    Value out = rewriter.create<MatmulOp>(loc, p4, v4);
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// matmul(a, broadcast(b)) (or with a broadcast) whose broadcast only
/// widens batch dims of size 1 to sizes the other operand has there:
/// matmul(a, b).
struct MatmulBatchBroadcast : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value x = side ? mm.getRhs() : mm.getLhs();
      Value other = side ? mm.getLhs() : mm.getRhs();
      auto bc = x.getDefiningOp<BroadcastOp>();
      if (!bc)
        continue;
      auto st = typeOf(bc.getX()), dt = typeOf(x), ot = typeOf(other);
      const int64_t r = dt.getRank();
      if (r < 3 || st.getRank() != r || ot.getRank() != r)
        continue;
      bool batchOnly = true;
      for (int64_t i = 0; i < r && batchOnly; ++i) {
        if (st.getDimSize(i) == dt.getDimSize(i))
          continue;
        // Only a batch dim of 1 widened to the other operand's size there.
        batchOnly = i < r - 2 && st.getDimSize(i) == 1 &&
                    ot.getDimSize(i) == dt.getDimSize(i);
      }
      if (!batchOnly)
        continue;
      Value lhs = side ? other : bc.getX(), rhs = side ? bc.getX() : other;
      rewriter.replaceOpWithNewOp<MatmulOp>(mm, lhs, rhs);
      return success();
    }
    return rewriter.notifyMatchFailure(mm, "no batch-only broadcast operand");
  }
};

/// matmul(reshape(p), v) where the reshape merges split rows of the
/// probabilities back, [.., M1, M2, N] to [.., M1 * M2, N]: the product
/// taken on p itself against v viewed [.., 1, N, Dv], reshaped back (row
/// m1 * M2 + m2 of the merged p times v is row (m1, m2) of that product).
/// Where the score chain behind p starts with the transpose that
/// SplitProductRows leaves (the query factor M1 as rows), the product is
/// taken on p transposed and transposed back, so that transpose meets the
/// one at the top of the chain and both compose away.
struct MergedRowsAtPV : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Whether a reshape splitting the rows of the scores is still on p's
  /// chain (not yet moved to the product and rewritten there).
  static bool pendingSplit(Value p) {
    return computedFrom(p, [](Operation *o) {
      auto rs = dyn_cast<ReshapeOp>(o);
      return rs &&
             rowSplit(typeOf(rs.getX()).getShape(),
                      rs.getType().getShape()) &&
             reachesMatmul(rs.getX());
    });
  }

  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    auto rs = mm.getLhs().getDefiningOp<ReshapeOp>();
    if (!rs)
      return rewriter.notifyMatchFailure(mm, "lhs is not a reshape");
    Value p = rs.getX();
    auto pt = typeOf(p), lt = typeOf(rs.getResult()), vt = typeOf(mm.getRhs());
    if (!rowSplit(lt.getShape(), pt.getShape()))
      return rewriter.notifyMatchFailure(mm, "not merged rows");
    int64_t lr = lt.getRank();
    if (vt.getRank() > lr ||
        !fitsPrefix(vt.getShape(), lt.getShape().drop_back(2), 2))
      return rewriter.notifyMatchFailure(mm, "v's batch is not within p's");
    if (!holdsExp(p) || pendingSplit(p))
      return rewriter.notifyMatchFailure(mm, "not settled probabilities");
    Location loc = mm.getLoc();
    Value v = splitAt(rewriter, loc, padRank(rewriter, loc, mm.getRhs(), lr),
                      {1, vt.getShape().drop_back().back()});
    // The transposed form only where the relabelling of p by the swap is
    // proven and lands on transposes that the swap undoes.
    SmallVector<int64_t> swap = swapRowsPerm(lr + 1);
    Relabel rl;
    rl.transpose = true;
    rl.rank = lr + 1;
    rl.perm = swap;
    rl.inv = swap;
    std::string why;
    auto plan = planRelabel(p, rl, rs, why);
    bool transposed =
        succeeded(plan) && plan->topKind == Chain && plan->hasExp &&
        llvm::all_of(plan->kind, [&](auto &entry) {
          auto tr = dyn_cast<TransposeOp>(entry.first);
          return entry.second != Source ||
                 (tr && tr.getPerm() == ArrayRef<int64_t>(swap));
        });
    Value out;
    if (transposed) {
      Value pT = rewriter.create<TransposeOp>(loc, p, swap);
      Value o = rewriter.create<MatmulOp>(loc, pT, v);
      out = rewriter.create<TransposeOp>(loc, o, swap);
    } else {
      out = rewriter.create<MatmulOp>(loc, p, v);
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// reshape(op_n(.. op_1(reshape(x), y_1) .., y_n)) where the outer reshape
/// undoes the inner one: op_n(.. op_1(x, y_1') .., y_n') with each y moved
/// into x's layout. Where both reshapes only regroup batch dims (rows and
/// keys stay), y is regrouped: Swin's shifted windows view the scores
/// [B_ / nW, nW, nH, N, N] only to add the per-window mask
/// [1, nW, 1, N, N], which becomes [nW, 1, N, N]. Otherwise y is
/// broadcast to the view and reshaped as the scores are: SAM's decomposed
/// relative positions view [B, Q, K] as [B, qh, qw, kh, kw] to add the
/// row and column terms, which then form one [B, Q, K] bias. Each element
/// meets the same operands either way.
struct ElementwiseInBatchView : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto vc = viewedChain(op);
    if (!vc)
      return rewriter.notifyMatchFailure(op, "not a view undone after a few "
                                             "binary ops");
    // Only scores: other chains (a rotary in a head view) keep their form.
    if (!reachesMatmul(vc->x) || !feedsExp(op.getResult()))
      return rewriter.notifyMatchFailure(op, "not scores");
    auto out = op.getType().getShape();
    auto viewT = typeOf(vc->ops.back()->getResult(0));
    auto view = viewT.getShape();
    // A product over a merged batch whose own batch is the view's is taken
    // in the view instead (UnmergedScoreProduct): the masks then keep it.
    if (auto mm = vc->x.getDefiningOp<MatmulOp>())
      if (ArrayRef<int64_t>(unmergedBatch(mm)) == view.drop_back(2) &&
          view.size() > 2)
        return rewriter.notifyMatchFailure(op, "the product is taken in the "
                                               "view");
    bool batchOnly = out.size() >= 2 && view.size() >= 2 &&
                     out.take_back(2) == view.take_back(2) &&
                     dimGroups(view.drop_back(2), out.drop_back(2));
    Location loc = op.getLoc();
    auto move = [&](Value y) -> Value {
      if (batchOnly && fitsPrefix(typeOf(y).getShape(), view.drop_back(2), 2))
        return regroup(rewriter, loc, y, view.drop_back(2), out.drop_back(2),
                       2);
      Value b = y;
      if (typeOf(y).getShape() != view)
        b = rewriter.create<BroadcastOp>(loc, y, view);
      return rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(out, typeOf(y).getElementType()), b);
    };
    Value cur = vc->x;
    for (auto [e, side] : llvm::zip(vc->ops, vc->side)) {
      Value y = move(e->getOperand(1 - side));
      Value a = side ? y : cur, b = side ? cur : y;
      OperationState state(e->getLoc(), e->getName(), ValueRange{a, b},
                           TypeRange{op.getType()}, e->getAttrs());
      cur = rewriter.create(state)->getResult(0);
    }
    rewriter.replaceOp(op, cur);
    return success();
  }
};

/// `v` with leading unit dims up to `rank`; a transpose of a lower-rank
/// tensor is padded below the transpose (the padded dims keep their place),
/// so k^T stays a transpose of the keys, which the matcher reads.
Value padOperandRank(PatternRewriter &rewriter, Location loc, Value v,
                     int64_t rank) {
  int64_t add = rank - typeOf(v).getRank();
  if (add <= 0)
    return v;
  if (auto tr = v.getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> perm = identityPerm(add);
    for (int64_t p : tr.getPerm())
      perm.push_back(p + add);
    Value src = padRank(rewriter, loc, tr.getX(), rank);
    return rewriter.create<TransposeOp>(loc, src, perm);
  }
  return padRank(rewriter, loc, v, rank);
}

/// The two products of an attention written at one rank: a matmul on a
/// score chain (q . k^T feeding a softmax, or P . V) whose operands differ
/// in rank (numpy broadcasting puts leading unit dims on the lower one:
/// JAX's vmap of a single-head reference over the query heads, q [H, S, D]
/// against k and v [T, D]) gets them explicitly; and a single-head P . V of
/// rank 2 ([S, T] . [T, D]) is taken at rank 3 as one head, [1, S, T] .
/// [1, T, D], reshaped back, the view then carried up the score chain by
/// RelabelScoreChain to the first product. Either is the same product
/// element for element.
struct ScoreProductRank : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    Value a = mm.getLhs(), b = mm.getRhs();
    int64_t ra = typeOf(a).getRank(), rb = typeOf(b).getRank();
    if (ra < 2 || rb < 2 || ra > 4 || rb > 4)
      return rewriter.notifyMatchFailure(mm, "not a matrix product");
    bool pv = holdsExp(a) && !holdsExp(b);
    bool qk = !pv && feedsExp(mm.getResult()) && !holdsExp(a) &&
              !holdsExp(b);
    if (!pv && !qk)
      return rewriter.notifyMatchFailure(mm, "not on a score chain");
    Location loc = mm.getLoc();
    if (ra != rb) {
      int64_t r = std::max(ra, rb);
      Value a2 = padOperandRank(rewriter, loc, a, r);
      Value b2 = padOperandRank(rewriter, loc, b, r);
      rewriter.replaceOpWithNewOp<MatmulOp>(mm, a2, b2);
      return success();
    }
    // One head at rank 2: only P . V is lifted; the view reaches q . k^T
    // through the chain (a q . k^T lifted on its own would leave a reshape
    // between it and the softmax).
    Operation *def = a.getDefiningOp();
    if (!pv || ra != 2 || !def || isLayout(def))
      return rewriter.notifyMatchFailure(mm, "operands of one rank");
    Value a3 = padRank(rewriter, loc, a, 3);
    Value b3 = padRank(rewriter, loc, b, 3);
    Value out = rewriter.create<MatmulOp>(loc, a3, b3);
    rewriter.replaceOpWithNewOp<ReshapeOp>(mm, mm.getType(), out);
    return success();
  }
};

/// a1 . b1 + a2 . b2 with both products over the same batch, rows and
/// columns is one product over the concatenated contraction:
/// concat(a1, a2, -1) . concat(b1, b2, -2). Element (i, j) of the sum is
/// sum_d a1[i, d] b1[d, j] + sum_e a2[i, e] b2[e, j], which is the sum over
/// the joined d ++ e (the same products, added in another order).
/// DeepSeek-V3's absorbed MLA scores the latent and the rotary channels
/// this way.
struct SumOfScoreProducts : public OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  /// concat(x1, x2) along `axis` of the matmul operands; when both are the
  /// same transpose of two tensors, the concat of those tensors along the
  /// axis the transpose moves there, transposed once (k^T stays a
  /// transpose of the concatenated keys, which the matcher reads).
  static Value join(PatternRewriter &rewriter, Location loc, Value x1,
                    Value x2, int64_t axis) {
    auto t1 = x1.getDefiningOp<TransposeOp>();
    auto t2 = x2.getDefiningOp<TransposeOp>();
    if (t1 && t2 && t1.getPerm() == t2.getPerm()) {
      int64_t inner = t1.getPerm()[axis];
      Value cat = rewriter.create<ConcatOp>(
          loc, ValueRange{t1.getX(), t2.getX()}, inner);
      return rewriter.create<TransposeOp>(loc, cat, t1.getPerm());
    }
    return rewriter.create<ConcatOp>(loc, ValueRange{x1, x2}, axis);
  }

  /// Whether `a` and `b` have one rank and element type and the same
  /// dims except along `axis`.
  static bool sameBut(Value a, Value b, int64_t axis) {
    auto ta = typeOf(a), tb = typeOf(b);
    if (ta.getRank() != tb.getRank() ||
        ta.getElementType() != tb.getElementType())
      return false;
    for (int64_t i = 0; i < ta.getRank(); ++i)
      if (i != axis && ta.getDimSize(i) != tb.getDimSize(i))
        return false;
    return true;
  }

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto m1 = add.getLhs().getDefiningOp<MatmulOp>();
    auto m2 = add.getRhs().getDefiningOp<MatmulOp>();
    if (!m1 || !m2 || m1 == m2)
      return rewriter.notifyMatchFailure(add, "not a sum of two products");
    // The add must not broadcast either product (a sum over other rows,
    // columns or batch rows is no single product), and nothing else may
    // read a product on its own.
    if (m1.getType() != add.getType() || m2.getType() != add.getType() ||
        !m1->hasOneUse() || !m2->hasOneUse())
      return rewriter.notifyMatchFailure(add, "products of other shapes, or "
                                              "read elsewhere");
    Value a1 = m1.getLhs(), b1 = m1.getRhs(), a2 = m2.getLhs(),
          b2 = m2.getRhs();
    int64_t r = typeOf(a1).getRank();
    if (r < 2 || typeOf(b1).getRank() != r || !sameBut(a1, a2, r - 1) ||
        !sameBut(b1, b2, r - 2) ||
        typeOf(a1).getElementType() != typeOf(b1).getElementType())
      return rewriter.notifyMatchFailure(add, "operands that do not join");
    if (!feedsExp(add.getResult()))
      return rewriter.notifyMatchFailure(add, "not scores");
    Location loc = add.getLoc();
    Value a = join(rewriter, loc, a1, a2, r - 1);
    Value b = join(rewriter, loc, b1, b2, r - 2);
    rewriter.replaceOpWithNewOp<MatmulOp>(add, a, b);
    return success();
  }
};

/// The normaliser applied after P . V: div(L(e . v), L'(sum(e))) with e a
/// softmax's exp, the sum over its key axis (keepdim) and L, L' the same
/// layout ops step by step (equal permutations; reshapes that keep the last
/// dim, with one shape for the leading dims). It is L((e / sum(e)) . v):
/// the same real number, rounded otherwise (the fused op normalises after
/// P . V itself), so the softmax matcher sees its probabilities. MaxText's
/// dot_product attention spells it so, in the output layout.
struct NormaliserAfterProduct : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp div,
                                PatternRewriter &rewriter) const override {
    Value x = div.getLhs(), z = div.getRhs();
    if (typeOf(x) != div.getType())
      return rewriter.notifyMatchFailure(div, "the divisor broadcasts x");
    // Peel the two layout chains in step, outermost first.
    SmallVector<Operation *> layout;
    while (true) {
      Operation *xo = x.getDefiningOp(), *zo = z.getDefiningOp();
      if (!xo || !zo || !xo->hasOneUse() || !zo->hasOneUse())
        break;
      if (auto xt = dyn_cast<TransposeOp>(xo)) {
        auto zt = dyn_cast<TransposeOp>(zo);
        if (!zt || zt.getPerm() != xt.getPerm() ||
            xt.getPerm().back() != typeOf(xt.getX()).getRank() - 1)
          break;
        layout.push_back(xo);
        x = xt.getX();
        z = zt.getX();
        continue;
      }
      if (auto xr = dyn_cast<ReshapeOp>(xo)) {
        auto zr = dyn_cast<ReshapeOp>(zo);
        if (!zr)
          break;
        auto xi = typeOf(xr.getX()), xu = typeOf(xr.getResult());
        auto zi = typeOf(zr.getX()), zu = typeOf(zr.getResult());
        if (xi.getShape().drop_back() != zi.getShape().drop_back() ||
            xu.getShape().drop_back() != zu.getShape().drop_back() ||
            xi.getShape().back() != xu.getShape().back() ||
            zi.getShape().back() != 1 || zu.getShape().back() != 1)
          break;
        layout.push_back(xo);
        x = xr.getX();
        z = zr.getX();
        continue;
      }
      break;
    }
    auto pv = x.getDefiningOp<MatmulOp>();
    auto sum = z.getDefiningOp<ReduceSumOp>();
    if (!pv || !sum || !pv->hasOneUse())
      return rewriter.notifyMatchFailure(div, "not a product over a row sum");
    Value e = pv.getLhs();
    auto et = typeOf(e);
    int64_t rank = et.getRank();
    if (sum.getX() != e || !sum.getKeepdim() || sum.getAxis() != rank - 1 ||
        !e.getDefiningOp() || !isSoftmaxExp(e.getDefiningOp()))
      return rewriter.notifyMatchFailure(div, "not the sum of the exp the "
                                              "product weighs");
    auto zt = typeOf(z);
    if (zt.getRank() != rank ||
        zt.getShape().drop_back() != et.getShape().drop_back())
      return rewriter.notifyMatchFailure(div, "a sum of other rows");
    Location loc = div.getLoc();
    Value p = rewriter.create<DivOp>(loc, e, z);
    Value out = rewriter.create<MatmulOp>(loc, p, pv.getRhs());
    for (Operation *op : llvm::reverse(layout)) {
      IRMapping map;
      map.map(op->getOperand(0), out);
      out = rewriter.clone(*op, map)->getResult(0);
    }
    rewriter.replaceOp(div, out);
    return success();
  }
};

} // namespace

namespace {

/// Whether `v` is a score before its softmax: a matmul's output, or an
/// elementwise op of one (scale, softcap, converts, masks), with no exp,
/// reduction or layout op on the way.
bool isRawScores(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (isa<MatmulOp>(def))
    return true;
  if (!isa<AddOp, SubOp, MulOp, DivOp, TanhOp, ConvertOp, SelectOp, MaxOp,
           MinOp, NegOp>(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value x) {
    return typeOf(x).getShape() == typeOf(v).getShape() &&
           isRawScores(x, depth + 1);
  });
}

/// slice(op(x, y, ..)) of the raw scores, the op elementwise and read only
/// by the slice: op(slice'(x), slice'(y), ..), each operand sliced on the
/// dims it does not broadcast (right-aligned); and slice(matmul(a, b)):
/// the product of a sliced on its rows and batch dims with b sliced on its
/// columns and batch dims. Elementwise ops commute with taking elements,
/// and each element of a product is the same dot product whatever else is
/// computed, so both are exact. The slice so reaches the keys and values:
/// exllamav2 keeps a sliding window as the scores' last W columns (and the
/// values' last W rows).
struct SliceOfScoreChain : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    Operation *def = x.getDefiningOp();
    if (!def || !x.hasOneUse() || !isRawScores(x) ||
        !isa<FloatType>(typeOf(x).getElementType()) ||
        !feedsExp(op.getResult()))
      return rewriter.notifyMatchFailure(op, "not a slice of raw scores");
    // A slice met by other scores (a relative bias cut to the keys of the
    // product it is added to) is a bias, not the scores' own window: the
    // matcher reads it as a mask where it is.
    for (Operation *user : op->getUsers())
      for (Value other : user->getOperands())
        if (other != op.getResult() && isRawScores(other))
          return rewriter.notifyMatchFailure(op, "a bias beside the scores");
    auto xt = typeOf(x);
    int64_t rank = xt.getRank();
    ArrayRef<int64_t> start = op.getStart(), limit = op.getLimit(),
                      step = op.getStep();
    Location loc = op.getLoc();
    // The slice of operand `v` of the op: its own dims right-aligned, a
    // broadcast (size 1 where the result is not) dim kept whole.
    auto sliceOperand = [&](Value v, ArrayRef<int64_t> dims) -> Value {
      auto vt = typeOf(v);
      SmallVector<int64_t> s(vt.getRank(), 0), l(vt.getShape()),
          st(vt.getRank(), 1);
      bool any = false;
      for (int64_t d = 0; d < vt.getRank(); ++d) {
        int64_t od = dims[d];
        if (od < 0 || (vt.getDimSize(d) == 1 && xt.getDimSize(od) != 1))
          continue;
        s[d] = start[od];
        l[d] = limit[od];
        st[d] = step[od];
        any |= s[d] != 0 || l[d] != vt.getDimSize(d) || st[d] != 1;
      }
      return any ? rewriter.create<SliceOp>(loc, v, s, l, st).getResult() : v;
    };
    auto aligned = [&](Value v) {
      SmallVector<int64_t> dims;
      int64_t off = rank - typeOf(v).getRank();
      for (int64_t d = 0; d < typeOf(v).getRank(); ++d)
        dims.push_back(d + off);
      return dims;
    };
    if (auto mm = dyn_cast<MatmulOp>(def)) {
      auto at = typeOf(mm.getLhs()), bt = typeOf(mm.getRhs());
      if (at.getRank() < 2 || bt.getRank() < 2)
        return rewriter.notifyMatchFailure(op, "a vector product");
      // a: batch dims right-aligned, then rows (rank - 2), contraction (-).
      SmallVector<int64_t> ad = aligned(mm.getLhs()), bd = aligned(mm.getRhs());
      ad.back() = -1;
      bd[bd.size() - 2] = -1;
      bd.back() = rank - 1;
      Value a = sliceOperand(mm.getLhs(), ad);
      Value b = sliceOperand(mm.getRhs(), bd);
      rewriter.replaceOpWithNewOp<MatmulOp>(op, a, b);
      return success();
    }
    SmallVector<Value> operands;
    for (Value v : def->getOperands())
      operands.push_back(sliceOperand(v, aligned(v)));
    OperationState state(def->getLoc(), def->getName());
    state.addOperands(operands);
    state.addAttributes(def->getAttrs());
    state.addTypes(op.getType());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

} // namespace

void poot::populateScoreLayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<RelabelScoreChain, TransposedPVProduct,
               LiftBatchReshapeThroughMatmul, SplitProbabilitiesAtPV,
               MatmulBatchBroadcast, SumOfScoreProducts, MergedRowsAtPV,
               ScoreProductRank, ElementwiseInBatchView,
               ProbabilitiesOnTheRight, BatchFactorOnScores<MulOp>,
               BatchFactorOnScores<DivOp>, NormaliserAfterProduct,
               SliceOfScoreChain, MergeBatchAxesAtPV, UnmergedScoreProduct>(
      patterns.getContext());
}
