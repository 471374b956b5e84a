//===- Tracer.h - Builds primitive poot graphs from C++ ---------*- C++ -*-===//
//
// The tracer is how model graphs come into poot from C++: a Tracer owns one
// module with one func.func, declares its inputs and outputs with the graph
// graph conventions (slots, declared ranges, state pairs, validation
// witnesses, binding names) and emits primitive poot ops through thin typed
// helpers. The building blocks in `ops` state attention, RoPE, paged caches,
// split keys and sparse block selection op for op in the decomposition the
// rewrite passes recognise; the model builders (Models.h) compose them.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_TRACE_TRACER_H
#define POOT_TRACE_TRACER_H

#include "poot/Dialect/PootDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poot::trace {

/// Storage dtype of a graph's float tensors.
enum class DType { F32, F16, BF16 };

/// The MLIR element type of `dtype`.
mlir::Type getFloatType(mlir::MLIRContext *ctx, DType dtype);

/// Parses "f32", "f16" or "bf16".
std::optional<DType> parseDType(llvm::StringRef text);

/// How RoPE pairs channels: the two halves (rotate_half) or neighbours.
enum class RopeStyle { Half, Interleaved };

/// A declared half-open value range [lo, hi) of an integer input.
struct DeclaredRange {
  int64_t lo;
  int64_t hi;
};

/// Builds one func.func of primitive poot ops inside its own module.
///
/// Inputs and outputs are declared as the graph is traced, in the order the
/// caller wants them bound; `finish` fixes the function signature, attaches
/// the argument and result attributes and verifies the module.
class Tracer {
public:
  /// Starts an empty function `funcName`. Loads the poot and func dialects
  /// into `ctx`.
  Tracer(mlir::MLIRContext &ctx, llvm::StringRef funcName);

  mlir::MLIRContext *getContext() { return ctx; }
  mlir::OpBuilder &getBuilder() { return builder; }

  //===--------------------------------------------------------------------===//
  // Types and shapes
  //===--------------------------------------------------------------------===//

  mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape,
                                    mlir::Type elementType);
  mlir::Type f32Type();
  mlir::Type i32Type();
  mlir::Type i1Type();

  static mlir::RankedTensorType typeOf(mlir::Value value);
  static llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);
  static mlir::Type elementTypeOf(mlir::Value value);
  static int64_t rankOf(mlir::Value value);

  //===--------------------------------------------------------------------===//
  // Graph interface
  //===--------------------------------------------------------------------===//

  /// A plain input, bound by `name`.
  mlir::Value input(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                    mlir::Type elementType);

  /// An integer input that fills slot `slot` ("pos", "len", "slot_map",
  /// "write_map"), with an optional declared range the binder checks.
  mlir::Value slotInput(llvm::StringRef name, llvm::StringRef slot,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                        std::optional<DeclaredRange> range = std::nullopt);

  /// The incoming half of state buffer `name`; the outgoing half is declared
  /// with `stateOutput`.
  mlir::Value stateInput(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                         mlir::Type elementType);

  /// A plain output, bound by `name`.
  void output(llvm::StringRef name, mlir::Value value);

  /// The outgoing half of state buffer `name`, updated in place.
  void stateOutput(llvm::StringRef name, mlir::Value value);

  /// A validation witness (an i1 tensor): the run fails when it is false.
  void validationOutput(llvm::StringRef name, mlir::Value witness);

  /// Closes the function and verifies the module. Every state input must
  /// have its output. On failure the diagnostics went to the context's
  /// handler and the result is null.
  mlir::OwningOpRef<mlir::ModuleOp> finish();

  /// Sets the location name of the ops traced from now on (for example
  /// "l3.attention"), so diagnostics and printed locations point at the part
  /// of the model that produced an op.
  void setScope(llvm::StringRef scope);

  //===--------------------------------------------------------------------===//
  // Constants
  //===--------------------------------------------------------------------===//

  /// A constant with the given elements (row-major), float or integer.
  mlir::Value constant(mlir::DenseElementsAttr value);
  mlir::Value constantF(llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                        llvm::ArrayRef<double> values);
  mlir::Value constantI(llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                        llvm::ArrayRef<int64_t> values);

  /// A 0-d constant of `elementType` (float or integer; infinities allowed).
  mlir::Value scalar(double value, mlir::Type elementType);

  /// A 0-d constant broadcast explicitly (poot.broadcast) to `shape`.
  mlir::Value splat(double value, llvm::ArrayRef<int64_t> shape,
                    mlir::Type elementType);

  /// `splat(value)` in the shape and element type of `like`.
  mlir::Value splatLike(double value, mlir::Value like);

  //===--------------------------------------------------------------------===//
  // Primitive ops (one helper per poot op)
  //===--------------------------------------------------------------------===//

  mlir::Value iota(llvm::ArrayRef<int64_t> shape, int64_t dim,
                   mlir::Type elementType);
  mlir::Value convert(mlir::Value x, mlir::Type elementType);
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);
  mlir::Value broadcast(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  /// Static slice; an empty `step` means 1 on every axis.
  mlir::Value slice(mlir::Value x, llvm::ArrayRef<int64_t> start,
                    llvm::ArrayRef<int64_t> limit,
                    llvm::ArrayRef<int64_t> step = {});
  mlir::Value concat(mlir::ValueRange inputs, int64_t axis);
  mlir::Value dynamicSlice(mlir::Value x, mlir::ValueRange starts,
                           llvm::ArrayRef<int64_t> sizes);
  mlir::Value dynamicUpdateSlice(mlir::Value x, mlir::Value update,
                                 mlir::ValueRange starts);
  mlir::Value gather(mlir::Value x, mlir::Value idx, int64_t axis);
  mlir::Value scatterUpdate(mlir::Value x, mlir::Value idx,
                            mlir::Value updates);
  mlir::Value matmul(mlir::Value lhs, mlir::Value rhs);

  mlir::Value add(mlir::Value lhs, mlir::Value rhs);
  mlir::Value sub(mlir::Value lhs, mlir::Value rhs);
  mlir::Value mul(mlir::Value lhs, mlir::Value rhs);
  mlir::Value div(mlir::Value lhs, mlir::Value rhs);
  mlir::Value max(mlir::Value lhs, mlir::Value rhs);
  mlir::Value min(mlir::Value lhs, mlir::Value rhs);
  mlir::Value pow(mlir::Value lhs, mlir::Value rhs);
  mlir::Value compare(ComparePredicate predicate, mlir::Value lhs,
                      mlir::Value rhs);
  mlir::Value select(mlir::Value cond, mlir::Value onTrue, mlir::Value onFalse);
  mlir::Value logicalAnd(mlir::Value lhs, mlir::Value rhs);
  mlir::Value logicalOr(mlir::Value lhs, mlir::Value rhs);
  mlir::Value logicalNot(mlir::Value x);

  mlir::Value exp(mlir::Value x);
  mlir::Value log(mlir::Value x);
  mlir::Value tanh(mlir::Value x);
  mlir::Value neg(mlir::Value x);
  mlir::Value sin(mlir::Value x);
  mlir::Value cos(mlir::Value x);
  mlir::Value sqrt(mlir::Value x);
  mlir::Value rsqrt(mlir::Value x);
  mlir::Value abs(mlir::Value x);

  /// Reductions over one axis; a negative axis counts from the back.
  mlir::Value reduceSum(mlir::Value x, int64_t axis, bool keepdim);
  mlir::Value reduceMax(mlir::Value x, int64_t axis, bool keepdim);
  mlir::Value reduceMin(mlir::Value x, int64_t axis, bool keepdim);

  /// (values, i32 indices) of the k largest along the last axis.
  std::pair<mlir::Value, mlir::Value> topk(mlir::Value x, int64_t k);

  /// (clamped into [lo, hi], 0-d i1 witness that nothing was clamped).
  std::pair<mlir::Value, mlir::Value> indexGuard(mlir::Value idx, int64_t lo,
                                                 int64_t hi);

  //===--------------------------------------------------------------------===//
  // numpy-style conveniences
  //===--------------------------------------------------------------------===//

  /// `x` itself when it already has `shape`, else poot.broadcast to it.
  mlir::Value broadcastTo(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  /// x * c, x + c, x / c with the scalar broadcast explicitly to x's shape.
  mlir::Value mulScalar(mlir::Value x, double c);
  mlir::Value addScalar(mlir::Value x, double c);
  mlir::Value divScalar(mlir::Value x, double c);
  /// `convert` unless `x` already has `elementType`.
  mlir::Value convertIfNeeded(mlir::Value x, mlir::Type elementType);

private:
  struct Port {
    std::string name;
    mlir::Value value;
    std::string slot;
    std::optional<DeclaredRange> range;
    std::string state;
    bool validation = false;
  };

  mlir::Value addArgument(Port port, mlir::RankedTensorType type);
  int64_t normaliseAxis(mlir::Value x, int64_t axis);

  template <typename OpTy, typename... Args> OpTy create(Args &&...args) {
    return builder.create<OpTy>(loc, std::forward<Args>(args)...);
  }

  mlir::MLIRContext *ctx;
  mlir::OpBuilder builder;
  mlir::Location loc;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp fn;
  std::vector<Port> inputs;
  std::vector<Port> outputs;
};

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// The decompositions the tracer records (the seed's ops::...). Each takes
/// and returns values of the graph being traced; none declares inputs or
/// outputs, so a model and a one-block test graph share them.
namespace ops {

/// Where the query rows sit in the key sequence. Positions are i32 tensors of
/// shape [Bp, 1, Lq, 1] with Bp = 1 (shared) or B (one per batch row), so
/// every mask broadcasts them against key positions [1, 1, 1, Lk].
///
/// `pos` is a 0-d or [B] i32 tensor: query row i sits at pos + i.
mlir::Value queryPositionsFrom(Tracer &t, mlir::Value pos, int64_t queryLen);
/// Prefill: query row i sits at i (an iota).
mlir::Value queryPositionsFromZero(Tracer &t, int64_t queryLen);

/// The score transform and mask of an attention block.
struct AttentionOptions {
  /// Multiplies q.k; 0 means 1/sqrt(Dk).
  double scale = 0.0;
  /// softcap * tanh(s / softcap), applied after the scale.
  std::optional<double> softcap;
  /// Sliding window: a key is visible when qpos - window < kpos <= qpos.
  std::optional<int64_t> window;
  /// ALiBi slopes per query head; the mask gains a head axis (Hm = Hq).
  bool alibi = false;
  /// Converts the scores to f32 for the softmax and the probabilities back
  /// to the storage dtype, as front ends do for f16/bf16 models.
  bool softmaxInF32 = true;
};

/// repeat_kv: [B, Hkv, L, D] -> [B, Hkv*nRep, L, D] as reshape -> broadcast
/// -> reshape; `kv` itself when nRep == 1.
mlir::Value repeatKv(Tracer &t, mlir::Value kv, int64_t nRep);

/// Max-subtracted softmax over the last axis: reduce_max keepdim, sub, exp,
/// reduce_sum keepdim, div.
mlir::Value softmax(Tracer &t, mlir::Value scores);

/// i1 [Bp, 1, Lq, Lk], true where a key is hidden from a query row: past
/// the row's position (causal) or, with a window, at or before
/// qpos - window.
mlir::Value hiddenKeys(Tracer &t, mlir::Value qpos, int64_t keyLen,
                       std::optional<int64_t> window);

/// select(hidden, -inf, 0) in `elementType`: the additive form of a mask.
mlir::Value additiveMask(Tracer &t, mlir::Value hidden, mlir::Type elementType);

/// The standard ALiBi slopes of `numHeads` heads (geometric for a power of
/// two, interleaved with the next power's slopes otherwise).
std::vector<double> alibiSlopes(int64_t numHeads);

/// ALiBi bias [Bp, Hq, Lq, Lk] = slope[h] * (kpos - qpos) in `elementType`.
mlir::Value alibiBias(Tracer &t, mlir::Value qpos, int64_t numHeads,
                      int64_t keyLen, mlir::Type elementType);

/// The additive mask [B, Hm, Lq, Lk] of a dense attention: causal (plus
/// window) from `qpos`, plus ALiBi when asked for (Hm = Hq, else 1).
mlir::Value attentionMask(Tracer &t, mlir::Value qpos, int64_t batch,
                          int64_t numHeads, int64_t keyLen,
                          const AttentionOptions &options,
                          mlir::Type elementType);

/// The attention chain after the keys are in place: repeat_kv, scores =
/// matmul(q, transpose(k)), * scale, softcap, + mask (when given), softmax,
/// matmul with v. q [B, Hq, Lq, Dk], k [B, Hkv, Lk, Dk], v [B, Hkv, Lk, Dv],
/// mask [B, Hm, Lq, Lk] -> [B, Hq, Lq, Dv]. `scoreSelect`, when given, is an
/// i1 that keeps a score (else -inf), applied after the mask (live form).
mlir::Value attentionCore(Tracer &t, mlir::Value q, mlir::Value k,
                          mlir::Value v, mlir::Value mask,
                          const AttentionOptions &options,
                          mlir::Value scoreSelect = {});

/// The new state of both caches and the attention output.
struct CachedAttention {
  mlir::Value out;
  mlir::Value kCache;
  mlir::Value vCache;
};

/// Writes the new rows k, v [B, Hkv, Lq, D] of a fixed-capacity cache at
/// (0, 0, pos, 0): one dynamic_update_slice each.
std::pair<mlir::Value, mlir::Value> writeCache(Tracer &t, mlir::Value kCache,
                                               mlir::Value vCache,
                                               mlir::Value k, mlir::Value v,
                                               mlir::Value pos);

/// Decode over a fixed-capacity cache (ops::attention_masked): the two cache
/// writes at the 0-d `pos`, then attention over the whole capacity with the
/// causal mask built from `pos` against an iota. `qpos`, when given, is the
/// caller's `queryPositionsFrom(pos)`, so a model traces it once.
CachedAttention attentionMasked(Tracer &t, mlir::Value q, mlir::Value k,
                                mlir::Value v, mlir::Value kCache,
                                mlir::Value vCache, mlir::Value pos,
                                const AttentionOptions &options,
                                mlir::Value qpos = {});

/// Every query row of the prompt against the prompt (ops::attention_prefill):
/// the causal mask from two iotas.
mlir::Value attentionPrefill(Tracer &t, mlir::Value q, mlir::Value k,
                             mlir::Value v, const AttentionOptions &options);

/// Attention result and the witness of the length guard.
struct LiveAttention {
  mlir::Value out;
  mlir::Value witness;
};

/// The live form (ops::attention_live): `len` [B] i32 is guarded into
/// [1, Lk] (the witness must become a validation output), the inactive K and
/// V rows are selected to zero before either matmul and the inactive scores
/// to -inf before the softmax. `mask`, when given, is added first.
LiveAttention attentionLive(Tracer &t, mlir::Value q, mlir::Value k,
                            mlir::Value v, mlir::Value len, mlir::Value mask,
                            const AttentionOptions &options);

/// cos and sin tables [Bp, 1, Lq, rotaryDim] in `elementType` for query
/// positions `qpos` [Bp, 1, Lq, 1], computed in the graph in f32 from the
/// positions and the inverse frequencies theta^(-2i/rotaryDim).
std::pair<mlir::Value, mlir::Value> ropeTables(Tracer &t, mlir::Value qpos,
                                               int64_t rotaryDim, double theta,
                                               RopeStyle style,
                                               mlir::Type elementType);

/// Rotates the first `rotaryDim` channels of x [..., D] by the tables; the
/// other channels pass through (slice + concat).
mlir::Value rope(Tracer &t, mlir::Value x, mlir::Value cos, mlir::Value sin,
                 RopeStyle style, int64_t rotaryDim);

/// Paged write: the new rows [N, ...] go into pool [S, ...] at the slots of
/// `writeMap` [N] (-1 writes nothing) with one scatter_update.
mlir::Value pagedWrite(Tracer &t, mlir::Value pool, mlir::Value rows,
                       mlir::Value writeMap);

/// k or v [B, H, Lq, D] in token-major rows [B*Lq, H, D] for `pagedWrite`:
/// row b*Lq + i is token i of batch row b, the write map's order.
mlir::Value tokenRows(Tracer &t, mlir::Value kv);

/// Paged read of a K or V pool [S, Hkv, D] through `readMap` [B, cap]:
/// gather -> [B, cap, Hkv, D], transpose -> [B, Hkv, cap, D].
mlir::Value pagedRead(Tracer &t, mlir::Value pool, mlir::Value readMap);

/// The MLA split key: concat(kNope [B, H, L, Dk-s], broadcast(kPe [B, 1, L,
/// s] to [B, H, L, s])) along the last axis.
mlir::Value splitKey(Tracer &t, mlir::Value kNope, mlir::Value kPe);

/// The sparse block selection of an indexer. Key scores [B, 1, Lq, Lk] are
/// the indexer heads' q.k summed over heads; future keys score -inf; a
/// block's score is the max of its `ratio` key scores; the `topBlocks` best
/// blocks plus the row's own (unfinished) block are visible, always within
/// the causal bound. Returns the additive mask [B, 1, Lq, Lk] (0 or -inf)
/// in `elementType`.
mlir::Value sparseBlockMask(Tracer &t, mlir::Value indexQ, mlir::Value indexK,
                            mlir::Value qpos, int64_t ratio, int64_t topBlocks,
                            mlir::Type elementType);

} // namespace ops

} // namespace poot::trace

#endif // POOT_TRACE_TRACER_H
