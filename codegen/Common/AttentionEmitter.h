//===- AttentionEmitter.h - The shared emitter of attention kernels -*- C++ -*-===//
//
// What every attention kernel family (streaming, channel, matrix tile, the
// split-KV combine) is built from: the spec read off a planned op, small
// builder helpers over f32 and index arithmetic, the kernel arguments by
// role, and the shared pieces (query position, the score transform, the
// folds of partial states). Private to codegen/Common.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_COMMON_ATTENTIONEMITTER_H
#define POOT_CODEGEN_COMMON_ATTENTIONEMITTER_H

#include "poot/Codegen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <limits>
#include <optional>

namespace poot::codegen::attention {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using llvm::SmallVector;
namespace arith = mlir::arith;
namespace memref = mlir::memref;
namespace scf = mlir::scf;

/// Everything the kernel body needs, read off the op and its schedule.
struct Spec {
  int64_t b, hq, lq, dk, dv, hkv, nRep, lk, group, lanes, splits;
  int64_t gridX = 1; ///< the planner's X extent (past it the grid folds)
  int64_t subgroup = 0; ///< > 0: the channel schedule on subgroups this wide
  int64_t vector = 1;   ///< channel schedule: elements of one vector load
  int64_t keyLanes = 0; ///< channel schedule: lanes that share one key
  int64_t unroll = 1;   ///< channel schedule: keys in flight per group
  bool matrix = false;  ///< the matrix-tile schedule (subgroup is set)
  /// Matrix-tile schedule: subgroups fold pairwise before the partials,
  /// which then hold half of them.
  bool pairFold = false;
  int64_t partialSlots() const {
    return (lanes / subgroup) / (pairFold ? 2 : 1);
  }
  int64_t valueVector = 1; ///< matrix-tile schedule: value vector width
  /// The tile schedule (TileKernel.cpp): query rows of one workgroup and
  /// keys staged per step; 0 otherwise.
  int64_t tileRows = 0, tileKeys = 0, tileStages = 0;
  /// The tile schedule's products on the warpgroup tile (Target.h).
  bool tileWarpgroup = false;
  /// Warpgroup tile: q staged in workgroup memory (the schedule's
  /// tile_shared_query).
  bool tileSharedQuery = false;
  /// Causal row blocks dealt across this many compute units (0: heaviest
  /// first; tile_units).
  int64_t tileUnits = 0;
  /// The tile schedule counts the key tiles each workgroup visits into a
  /// `tiles` buffer (one i32 per workgroup, zero before the launch), on
  /// request (`poot.count_tiles`), so a test can prove what was skipped.
  bool countTiles = false;
  int64_t sharedWidth = 0; ///< width of k_shared (split key), else 0
  int64_t poolSlots = 0;   ///< paged: slots of the K/V pools
  int64_t maskB = 0, maskH = 0;
  bool paged = false, hasMask = false, hasLen = false, hasPos = false;
  bool posPerRow = false, causal = false, split = false;
  /// A row with no visible key is 0, not 0/0 (zero_empty_rows).
  bool zeroEmptyRows = false;
  /// Split: the last workgroup of a row folds its splits (no combine
  /// kernel); a counter per row, zero between launches, finds it.
  bool fusedCombine = false;
  std::optional<int64_t> window;
  std::optional<double> softcap;
  SmallVector<double> slopes;
  double scale = 1.0;
  Type storage;
  int64_t rows() const { return b * (hq / group) * lq; }
};

/// Small builder helpers over f32 and index arithmetic.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const TargetHooks &target)
      : b(b), loc(loc), target(target) {}
  Value idx(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value f32(double v) {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }
  Value add(Value x, Value y) {
    return mlir::isa<mlir::IndexType>(x.getType()) ? b.create<arith::AddIOp>(loc, x, y).getResult()
                                       : b.create<arith::AddFOp>(loc, x, y).getResult();
  }
  Value sub(Value x, Value y) {
    return mlir::isa<mlir::IndexType>(x.getType()) ? b.create<arith::SubIOp>(loc, x, y).getResult()
                                       : b.create<arith::SubFOp>(loc, x, y).getResult();
  }
  Value mul(Value x, Value y) {
    return mlir::isa<mlir::IndexType>(x.getType()) ? b.create<arith::MulIOp>(loc, x, y).getResult()
                                       : b.create<arith::MulFOp>(loc, x, y).getResult();
  }
  Value div(Value x, Value y) {
    return mlir::isa<mlir::IndexType>(x.getType()) ? b.create<arith::DivUIOp>(loc, x, y).getResult()
                                       : b.create<arith::DivFOp>(loc, x, y).getResult();
  }
  Value rem(Value x, Value y) { return b.create<arith::RemUIOp>(loc, x, y); }
  Value exp(Value x) { return target.exp(b, loc, x); }
  Value tanh(Value x) { return target.tanh(b, loc, x); }
  Value fmax(Value x, Value y) { return b.create<arith::MaximumFOp>(loc, x, y); }
  Value imin(Value x, Value y) { return b.create<arith::MinSIOp>(loc, x, y); }
  Value imax(Value x, Value y) { return b.create<arith::MaxSIOp>(loc, x, y); }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return b.create<arith::CmpFOp>(loc, p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return b.create<arith::CmpIOp>(loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return b.create<arith::SelectOp>(loc, c, x, y);
  }
  /// Loads an element as f32 whatever its storage type.
  Value loadF32(Value memref, ValueRange indices) {
    Value v = b.create<memref::LoadOp>(loc, memref, indices);
    if (!v.getType().isF32())
      v = b.create<arith::ExtFOp>(loc, b.getF32Type(), v);
    return v;
  }
  /// Loads an integer element as index.
  Value loadIndex(Value memref, ValueRange indices) {
    Value v = b.create<memref::LoadOp>(loc, memref, indices);
    if (!v.getType().isInteger(32))
      v = b.create<arith::TruncIOp>(loc, b.getI32Type(), v);
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
  }
  /// The pool row a paged read word names, clamped into [0, slots): the
  /// binders refuse a word outside the pool before anything runs, but a
  /// kernel does not rely on a declared range for memory safety (a damaged
  /// plan can widen it), so a bad word reads some row of the pool, never
  /// memory outside it.
  Value loadPoolRow(Value read, ValueRange indices, int64_t slots) {
    Value row = loadIndex(read, indices);
    return imin(imax(row, idx(0)), idx(slots - 1));
  }
  void storeAs(Value f32Value, Value memref, ValueRange indices) {
    Type et = mlir::cast<mlir::MemRefType>(memref.getType()).getElementType();
    Value v = f32Value;
    if (et != v.getType())
      v = b.create<arith::TruncFOp>(loc, et, v);
    b.create<memref::StoreOp>(loc, v, memref, indices);
  }
  /// for (i = lb; i < ub; i += step) { body(i) }
  void loop(Value lb, Value ub, Value step,
            llvm::function_ref<void(Value)> body) {
    auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    body(forOp.getInductionVar());
  }
  /// for with one f32 carried value.
  Value loopCarry(Value lb, Value ub, Value step, Value init,
                  llvm::function_ref<Value(Value, Value)> body) {
    auto forOp = b.create<scf::ForOp>(loc, lb, ub, step, ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value next = body(forOp.getInductionVar(), forOp.getRegionIterArgs()[0]);
    b.create<scf::YieldOp>(loc, next);
    return forOp.getResult(0);
  }
  /// if (cond) { body() }
  void when(Value cond, llvm::function_ref<void()> body) {
    auto ifOp = b.create<scf::IfOp>(loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  }

  OpBuilder &b;
  Location loc;
  const TargetHooks &target;
};

/// The kernel arguments of the streaming body, by role.
struct Args {
  Value q, k, kShared, v, read, mask, len, pos, out, scratch, counters, tiles;
};

//===----------------------------------------------------------------------===//
// Shared pieces (AttentionEmitter.cpp)
//===----------------------------------------------------------------------===//

/// The position of query row qi of batch row bi: pos (per batch row or
/// shared) + qi, or qi without positions.
Value queryPosition(Emitter &e, const Spec &s, const Args &a, Value bi,
                    Value qi);

/// Emits, for the keys [kBegin, kEnd) of (b, group g, query row i), the
/// lanes' online softmax into workgroup state, then the lane fold. With
/// `scratchRow` the fold writes the unnormalised (o, m, l) there instead of
/// the normalised output.
void emitStreamingBody(Emitter &e, const Spec &s, const Args &a, Value lane,
                       Value bi, Value gq, Value kv, Value qi, Value kBegin,
                       Value kEnd, Value mState, Value lState, Value oState,
                       Value scratchBase);

/// The output channel `sum / L` of a row whose running max is `M`; under
/// zero_empty_rows a row that saw no visible key (M = -inf) is 0, not the
/// 0/0 the division gives.
Value normalised(Emitter &e, const Spec &s, Value sum, Value bigL, Value bigM);

/// The score transform of one key for query head `h` (contract order).
Value scoreOf(Emitter &e, const Spec &s, const Args &a, Value dot, Value bi,
              Value h, Value qi, Value t, Value qpos);

/// Folds `n` unnormalised states (o[dv], m, l) of each of `G` heads with
/// the e^(m_i - M) weighting, `lanes` threads at a time. `stateAt(x, i, hl)`
/// is the first float of state i of head hl in `src`; `fold` is workgroup
/// memory of G (n + 2) floats. First a thread per head reads its n (m, l)
/// pairs (all loads issued together, the loops being unrolled here) and
/// leaves the weights e^(m_i - M), then L = sum l_i e^(m_i - M) and M; after
/// a barrier every thread takes (head, channel) pairs tid, tid + lanes, ...
/// and calls `publish(x, hl, c, sum o_i[c] e^(m_i - M), L, M)`. A head whose
/// states all saw nothing has M = -inf, so its weights and L are NaN: 0/0,
/// as the contract says.
void foldStates(Emitter &e, Value tid, int64_t lanes, int64_t G, int64_t n,
                int64_t dv, Value src, Value fold,
                llvm::function_ref<Value(Emitter &, int64_t, Value)> stateAt,
                llvm::function_ref<void(Emitter &, Value, Value, Value, Value,
                                        Value)>
                    publish);

/// Folds row `row`'s split partials from `scratch` into the normalised
/// output (the combine's work), with `fold` as the weights' workgroup
/// memory (group * (splits + 2) floats).
void foldRow(Emitter &e, const Spec &s, Value scratch, Value out, Value fold,
             Value tid, Value row, Value bi, Value g, Value qi);

/// The fused combine, after a workgroup has written its partial: thread 0
/// publishes it (barrier, then a device-scope fence) and takes a ticket on
/// the row's counter; the workgroup that draws ticket splits - 1 has every
/// partial of the row visible (a second fence), folds them, and sets the
/// counter back to zero. `fold` holds the weights and, past them, the
/// ticket's verdict for the workgroup.
void foldRowIfLast(Emitter &e, const Spec &s, Value scratch, Value counters,
                   Value out, Value fold, Value tid, Value row, Value bi,
                   Value g, Value qi);

/// After the key loop of a subgroup schedule: workgroup memory `partials`
/// holds each subgroup's unnormalised state [subgroup][head][dv + 2]; the
/// subgroups fold into the normalised output, or with `scratchBase` into
/// the chunk's partial (the neutral (0, -inf, 0) when it saw nothing).
void foldSubgroups(Emitter &e, const Spec &s, const Args &a, Value tid,
                   Value bi, Value gq, Value qi, Value partials, Value fold,
                   Value scratchBase);

/// The channel schedule: the workgroup's `lanes / S` subgroups walk the
/// keys together. Inside a subgroup, `L` = keyLanes lanes share one key and
/// the S / L groups hold neighbouring keys side by side; lane j of a group
/// owns the vectors of `V` channels starting at (i L + j) V, i = 0, 1, ...,
/// of q, of the key and value rows and of the accumulators, all in
/// registers. One step of the key loop covers W (S / L) U keys: each group
/// loads its U keys' vectors first (so U loads per vector are in flight),
/// then reduces the U x G dot products across its L lanes with shuffles and
/// folds the U scores into the running (m, l, o) with one rescale. After
/// the keys the groups of a subgroup fold their states with shuffles, each
/// subgroup's state goes to workgroup memory and the threads fold the
/// subgroups over the output channels exactly as the lane fold does.
///
/// A key past the chunk's end is loaded from the chunk's first key (in
/// bounds, since the loop runs only over a non-empty chunk) and scored -inf.
/// Vector loads are issued only at multiples of V elements of rows whose
/// widths are multiples of V, so they are aligned to their size.
void emitChannelBody(Emitter &e, const Spec &s, const Args &a, Value tid,
                     Value bi, Value gq, Value kv, Value qi, Value kBegin,
                     Value kEnd, Value partials, Value fold,
                     Value scratchBase);

/// The matrix-tile schedule (bf16/f16 decode of grouped heads, on targets
/// with a subgroup matrix tile, Target.h). Each subgroup takes 16 keys at a
/// time, `unroll` such tiles per step, the workgroup's subgroups side by
/// side. For a tile, with lane = 4 g + t:
///
///  - scores, transposed: S^T (16 keys x 8 heads) = K (16 x dk) q^T, dk / 16
///    tile products. Lane (g, t) loads key rows g and g + 8, dk / 4 channels
///    each, in vectors of V: its j-th vector starts at channel
///    (j 4 + t) V, so the 4 lanes of a quad read 4 V contiguous channels.
///    Step s takes the lane's channels 4s .. 4s+3 of that list for the
///    tile's columns 2t, 2t+1, 2t+8, 2t+9, and q (B, head g) is laid out by
///    the same list, so every step sums matching channels. q stays in
///    registers; heads past the group are zero columns.
///  - the lane then holds S[key g or g+8][head 2t or 2t+1]: the score
///    transform, a max over the tile's keys (shuffles across g), one
///    rescale of (m, l, o) per head and the weights p, rounded to the
///    storage type.
///  - outputs, transposed: o^T (dv x 8 heads) += V^T (dv x 16 keys) P^T
///    (16 keys x 8 heads), one tile product per 16 value channels. P^T's
///    B words (keys 2t, 2t+1 and 2t+8, 2t+9 of head g) are fetched from
///    the lanes holding them with 4 shuffles. Lane (g, t) loads value rows
///    2t, 2t+1, 2t+8, 2t+9, 2 runs of dv / 16 channels each (tile rows g
///    and g + 8) in vectors of VV: run r's i-th channel is
///    r dv/2 + (i / VV) 8 VV + g VV + i % VV, so the 8 lanes of a key read
///    8 VV contiguous channels; each A word pairs one channel of two keys.
///
/// Each lane keeps m per head (equal across g), its own part of l (summed
/// across g after the loop) and its o^T entries. A key past the chunk's end
/// is read from the chunk's first key and scored -inf, as in the channel
/// schedule. The subgroups' states then fold in workgroup memory.
void emitMatrixBody(Emitter &e, const Spec &s, const Args &a, Value tid,
                    Value bi, Value gq, Value kv, Value qi, Value kBegin,
                    Value kEnd, Value partials, Value fold,
                    Value scratchBase);

/// The tile schedule (prefill on the matrix tile; TileKernel.cpp): the
/// whole body of workgroup `id`, which serves `tileRows` query rows of one
/// KV head (the rows of its group's heads interleaved) against every key
/// they see, a tile of `tileKeys` keys at a time staged in workgroup memory
/// that `fn` gains.
void emitTileBody(Emitter &e, const Spec &s, const Args &a,
                  mlir::gpu::GPUFuncOp fn, Value tid, Value id);
/// The tile schedule's workgroups.
int64_t tileWorkgroups(const Spec &s);
/// Bytes of workgroup memory the tile schedule's kernel takes from its
/// launch: its buffers where they pass the target's static limit (the
/// warpgroup form with two warpgroups' q staged), else 0.
int64_t tileDynamicWorkgroupBytes(const Spec &s, const TargetHooks &target);

} // namespace poot::codegen::attention

#endif // POOT_CODEGEN_COMMON_ATTENTIONEMITTER_H
