//===- AttentionKernel.cpp - poot.attention -> gpu-dialect kernels --------===//
//
// The streaming schedule: one workgroup of `lanes` threads per (batch row,
// head group, query row). Each lane strides over the keys (t = lane, lane +
// lanes, ...) keeping, per query head of its group, a running max m, a
// denominator l and an accumulator o[dv] in workgroup memory (not in
// dynamically indexed private arrays, which some SPIR-V drivers reject).
// After one barrier every lane folds the lanes' partials over a slice of the
// output channels: M = max m_i, out[c] = sum o_i[c] e^(m_i - M) / sum l_i
// e^(m_i - M).
//
// The split-KV schedule runs the same body over one chunk of keys per
// (row, split) and writes the unnormalised (o, m, l) of the chunk to a
// scratch buffer; a chunk that saw no visible key writes the neutral
// (0, -inf, 0). A combine kernel then folds a row's splits with the same
// e^(m_i - M) weighting. Where the target has a device-scope fence, the
// combine can instead run at the end of the partial kernel (fused_combine):
// each workgroup takes a ticket on its row's counter after publishing its
// partial, and the one that draws the last ticket folds the row and sets
// the counter back to zero for the next launch.
//
// Scores follow the contract: s = (q.k) scale -> softcap -> + mask (tensor,
// causal/window from pos, ALiBi) -> softmax; a -inf score adds nothing; a
// row with no visible key is 0/0. All arithmetic is f32; storage is the op's
// dtype. The live length is clamped into [0, Lk] before it bounds a loop.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/Generator.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace poot;
using namespace poot::codegen;

TargetHooks::~TargetHooks() = default;

Value TargetHooks::exp(OpBuilder &b, Location loc, Value x) const {
  return b.create<math::ExpOp>(loc, x);
}

Value TargetHooks::tanh(OpBuilder &b, Location loc, Value x) const {
  return b.create<math::TanhOp>(loc, x);
}

SmallVector<Value, 4> TargetHooks::matrixTile(OpBuilder &, Location loc,
                                              Type, ValueRange, ValueRange,
                                              ValueRange) const {
  llvm::report_fatal_error("matrixTile called on a target without one");
}

void TargetHooks::deviceFence(OpBuilder &, Location) const {
  llvm::report_fatal_error("deviceFence called on a target without one");
}

Attribute LLVMTargetHooks::globalMemorySpace(MLIRContext *ctx) const {
  return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
}

Value LLVMTargetHooks::allocWorkgroup(OpBuilder &b, Location loc,
                                      gpu::GPUFuncOp fn,
                                      ArrayRef<int64_t> shape,
                                      Type elementType) const {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buffer = fn.addWorkgroupAttribution(
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(), space),
      loc);
  // Every buffer starts 16-byte aligned, as the kernels' vector accesses
  // need (otherwise each is aligned only to its element, and one of odd
  // size misaligns the next).
  fn.setWorkgroupAttributionAttr(fn.getNumWorkgroupAttributions() - 1,
                                 "llvm.align", b.getI64IntegerAttr(16));
  return buffer;
}

void LLVMTargetHooks::setWorkgroupSize(gpu::GPUFuncOp fn,
                                       int64_t lanes) const {
  fn.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(
      fn.getContext(), {static_cast<int32_t>(lanes), 1, 1}));
}

bool LLVMTargetHooks::canStore(Type storage) const {
  return storage.isF32() || storage.isF16() || storage.isBF16() ||
         storage.isInteger(32) || storage.isInteger(64);
}

Value LLVMTargetHooks::tanh(OpBuilder &b, Location loc, Value x) const {
  Value one = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1.0));
  Value two = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(2.0));
  Value e2x = exp(b, loc, b.create<arith::MulFOp>(loc, x, two));
  Value frac =
      b.create<arith::DivFOp>(loc, two, b.create<arith::AddFOp>(loc, e2x, one));
  return b.create<arith::SubFOp>(loc, one, frac);
}

void LLVMTargetHooks::prepareModule(ModuleOp module) const {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
}

namespace {

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
  int64_t sharedWidth = 0; ///< width of k_shared (split key), else 0
  int64_t maskB = 0, maskH = 0;
  bool paged = false, hasMask = false, hasLen = false, hasPos = false;
  bool posPerRow = false, causal = false, split = false;
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
    return isa<IndexType>(x.getType()) ? b.create<arith::AddIOp>(loc, x, y).getResult()
                                       : b.create<arith::AddFOp>(loc, x, y).getResult();
  }
  Value sub(Value x, Value y) {
    return isa<IndexType>(x.getType()) ? b.create<arith::SubIOp>(loc, x, y).getResult()
                                       : b.create<arith::SubFOp>(loc, x, y).getResult();
  }
  Value mul(Value x, Value y) {
    return isa<IndexType>(x.getType()) ? b.create<arith::MulIOp>(loc, x, y).getResult()
                                       : b.create<arith::MulFOp>(loc, x, y).getResult();
  }
  Value div(Value x, Value y) {
    return isa<IndexType>(x.getType()) ? b.create<arith::DivUIOp>(loc, x, y).getResult()
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
  void storeAs(Value f32Value, Value memref, ValueRange indices) {
    Type et = cast<MemRefType>(memref.getType()).getElementType();
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
  Value q, k, kShared, v, read, mask, len, pos, out, scratch, counters;
};

/// The position of query row qi of batch row bi: pos (per batch row or
/// shared) + qi, or qi without positions.
Value queryPosition(Emitter &e, const Spec &s, const Args &a, Value bi,
                    Value qi) {
  if (!s.hasPos)
    return qi;
  Value p = s.posPerRow ? e.loadIndex(a.pos, ValueRange{bi})
                        : e.loadIndex(a.pos, ValueRange{});
  return e.add(p, qi);
}

/// Emits, for the keys [kBegin, kEnd) of (b, group g, query row i), the
/// lanes' online softmax into workgroup state, then the lane fold. With
/// `scratchRow` the fold writes the unnormalised (o, m, l) there instead of
/// the normalised output.
void emitStreamingBody(Emitter &e, const Spec &s, const Args &a, Value lane,
                       Value bi, Value gq, Value kv, Value qi, Value kBegin,
                       Value kEnd, Value mState, Value lState, Value oState,
                       Value scratchBase) {
  OpBuilder &b = e.b;
  Value c0 = e.idx(0), c1 = e.idx(1), lanes = e.idx(s.lanes);
  Value dv = e.idx(s.dv), group = e.idx(s.group);
  Value kd = e.idx(s.dk - s.sharedWidth);

  // Each lane starts empty: m = -inf, l = 0, o = 0 (its own slots only).
  e.loop(c0, group, c1, [&](Value h) {
    Value slot = e.add(e.mul(h, lanes), lane);
    b.create<memref::StoreOp>(e.loc, e.negInf(), mState, ValueRange{slot});
    b.create<memref::StoreOp>(e.loc, e.f32(0), lState, ValueRange{slot});
    e.loop(c0, dv, c1, [&](Value c) {
      b.create<memref::StoreOp>(e.loc, e.f32(0), oState,
                                ValueRange{e.add(e.mul(slot, dv), c)});
    });
  });

  // The query position of row qi: pos (per batch row or shared) + qi.
  Value qpos = queryPosition(e, s, a, bi, qi);

  Value start = e.add(kBegin, lane);
  e.loop(start, kEnd, lanes, [&](Value t) {
    // The key row: dense [b, g, t], paged pool [read[b, t], g], split adds
    // k_shared [b, 0, t].
    Value row = s.paged ? e.loadIndex(a.read, ValueRange{bi, t}) : Value();
    auto keyAt = [&](Value d) -> Value {
      if (s.paged)
        return e.loadF32(a.k, ValueRange{row, kv, d});
      return e.loadF32(a.k, ValueRange{bi, kv, t, d});
    };
    auto valueAt = [&](Value c) -> Value {
      if (s.paged)
        return e.loadF32(a.v, ValueRange{row, kv, c});
      return e.loadF32(a.v, ValueRange{bi, kv, t, c});
    };
    e.loop(c0, group, c1, [&](Value hl) {
      Value h = e.add(e.mul(gq, group), hl); // query head
      // s = q . k over the per-head part, then the shared part.
      Value dot = e.loopCarry(c0, kd, c1, e.f32(0), [&](Value d, Value acc) {
        Value qv = e.loadF32(a.q, ValueRange{bi, h, qi, d});
        return e.add(acc, e.mul(qv, keyAt(d)));
      });
      if (s.sharedWidth) {
        dot = e.loopCarry(c0, e.idx(s.sharedWidth), c1, dot,
                          [&](Value d, Value acc) {
                            Value qv = e.loadF32(a.q, ValueRange{bi, h, qi,
                                                                 e.add(kd, d)});
                            Value kv = e.loadF32(a.kShared,
                                                 ValueRange{bi, c0, t, d});
                            return e.add(acc, e.mul(qv, kv));
                          });
      }
      Value score = e.mul(dot, e.f32(s.scale));
      if (s.softcap) {
        Value c = e.f32(*s.softcap);
        score = e.mul(c, e.tanh(e.div(score, c)));
      }
      if (s.hasMask) {
        Value mb = s.maskB == 1 ? c0 : bi;
        Value mh = s.maskH == 1 ? c0 : h;
        score = e.add(score, e.loadF32(a.mask, ValueRange{mb, mh, qi, t}));
      }
      if (!s.slopes.empty()) {
        // slope[h] by a select chain over the heads (constants in code).
        Value slope = e.f32(s.slopes.back());
        for (int64_t j = static_cast<int64_t>(s.slopes.size()) - 2; j >= 0; --j)
          slope = e.select(e.cmpi(arith::CmpIPredicate::eq, h, e.idx(j)),
                           e.f32(s.slopes[j]), slope);
        Value rel = b.create<arith::IndexCastOp>(e.loc, b.getI32Type(),
                                                 e.sub(t, qpos));
        Value relF = b.create<arith::SIToFPOp>(e.loc, b.getF32Type(), rel);
        score = e.add(score, e.mul(slope, relF));
      }
      if (s.causal)
        score = e.select(e.cmpi(arith::CmpIPredicate::sgt, t, qpos),
                         e.negInf(), score);
      if (s.window)
        score = e.select(e.cmpi(arith::CmpIPredicate::sge, e.sub(qpos, t),
                                e.idx(*s.window)),
                         e.negInf(), score);
      // A -inf score adds exactly nothing: skip the update.
      Value visible = e.cmpf(arith::CmpFPredicate::UNE, score, e.negInf());
      e.when(visible, [&] {
        Value slot = e.add(e.mul(hl, lanes), lane);
        Value mOld = b.create<memref::LoadOp>(e.loc, mState, ValueRange{slot});
        Value mNew = e.fmax(mOld, score);
        Value rescale = e.exp(e.sub(mOld, mNew)); // 0 while m was -inf
        Value w = e.exp(e.sub(score, mNew));
        Value lOld = b.create<memref::LoadOp>(e.loc, lState, ValueRange{slot});
        b.create<memref::StoreOp>(e.loc, e.add(e.mul(lOld, rescale), w),
                                  lState, ValueRange{slot});
        b.create<memref::StoreOp>(e.loc, mNew, mState, ValueRange{slot});
        e.loop(c0, dv, c1, [&](Value c) {
          Value at = e.add(e.mul(slot, dv), c);
          Value o = b.create<memref::LoadOp>(e.loc, oState, ValueRange{at});
          b.create<memref::StoreOp>(
              e.loc, e.add(e.mul(o, rescale), e.mul(w, valueAt(c))), oState,
              ValueRange{at});
        });
      });
    });
  });

  b.create<gpu::BarrierOp>(e.loc);

  // Fold the lanes: per head of the group, each lane takes channels
  // c = lane, lane + lanes, ... (and lane 0 the (m, l) pair of a partial).
  e.loop(c0, group, c1, [&](Value hl) {
    Value base = e.mul(hl, lanes);
    Value bigM = e.loopCarry(c0, lanes, c1, e.negInf(), [&](Value i, Value acc) {
      return e.fmax(acc, b.create<memref::LoadOp>(e.loc, mState,
                                                  ValueRange{e.add(base, i)}));
    });
    // The weight of lane i: e^(m_i - M); a lane that saw nothing has
    // m_i = -inf and weight 0 unless every lane is empty (then NaN, 0/0).
    auto weight = [&](Value i) {
      Value mi = b.create<memref::LoadOp>(e.loc, mState,
                                          ValueRange{e.add(base, i)});
      return e.exp(e.sub(mi, bigM));
    };
    Value bigL = e.loopCarry(c0, lanes, c1, e.f32(0), [&](Value i, Value acc) {
      Value li = b.create<memref::LoadOp>(e.loc, lState,
                                          ValueRange{e.add(base, i)});
      return e.add(acc, e.mul(li, weight(i)));
    });
    Value h = e.add(e.mul(gq, group), hl);
    Value empty = e.cmpf(arith::CmpFPredicate::OEQ, bigM, e.negInf());
    e.loop(lane, dv, lanes, [&](Value c) {
      Value sum = e.loopCarry(c0, lanes, c1, e.f32(0), [&](Value i, Value acc) {
        Value at = e.add(e.mul(e.add(base, i), dv), c);
        Value o = b.create<memref::LoadOp>(e.loc, oState, ValueRange{at});
        return e.add(acc, e.mul(o, weight(i)));
      });
      if (!scratchBase) {
        e.storeAs(e.div(sum, bigL), a.out, ValueRange{bi, h, qi, c});
        return;
      }
      // A partial that saw no visible key publishes the neutral (0,-inf,0).
      Value at = e.add(e.mul(e.add(scratchBase, hl), e.idx(s.dv + 2)), c);
      b.create<memref::StoreOp>(e.loc, e.select(empty, e.f32(0), sum),
                                a.scratch, ValueRange{at});
    });
    if (scratchBase) {
      e.when(e.cmpi(arith::CmpIPredicate::eq, lane, c0), [&] {
        Value at = e.mul(e.add(scratchBase, hl), e.idx(s.dv + 2));
        b.create<memref::StoreOp>(e.loc, bigM, a.scratch,
                                  ValueRange{e.add(at, dv)});
        b.create<memref::StoreOp>(e.loc, e.select(empty, e.f32(0), bigL),
                                  a.scratch,
                                  ValueRange{e.add(at, e.add(dv, c1))});
      });
    }
  });
}

/// The score transform of one key for query head `h` (contract order).
Value scoreOf(Emitter &e, const Spec &s, const Args &a, Value dot, Value bi,
              Value h, Value qi, Value t, Value qpos) {
  Value c0 = e.idx(0);
  Value score = e.mul(dot, e.f32(s.scale));
  if (s.softcap) {
    Value c = e.f32(*s.softcap);
    score = e.mul(c, e.tanh(e.div(score, c)));
  }
  if (s.hasMask) {
    Value mb = s.maskB == 1 ? c0 : bi;
    Value mh = s.maskH == 1 ? c0 : h;
    score = e.add(score, e.loadF32(a.mask, ValueRange{mb, mh, qi, t}));
  }
  if (!s.slopes.empty()) {
    Value slope = e.f32(s.slopes.back());
    for (int64_t j = static_cast<int64_t>(s.slopes.size()) - 2; j >= 0; --j)
      slope = e.select(e.cmpi(arith::CmpIPredicate::eq, h, e.idx(j)),
                       e.f32(s.slopes[j]), slope);
    Value rel = e.b.create<arith::IndexCastOp>(e.loc, e.b.getI32Type(),
                                               e.sub(t, qpos));
    Value relF = e.b.create<arith::SIToFPOp>(e.loc, e.b.getF32Type(), rel);
    score = e.add(score, e.mul(slope, relF));
  }
  if (s.causal)
    score = e.select(e.cmpi(arith::CmpIPredicate::sgt, t, qpos), e.negInf(),
                     score);
  if (s.window)
    score = e.select(
        e.cmpi(arith::CmpIPredicate::sge, e.sub(qpos, t), e.idx(*s.window)),
        e.negInf(), score);
  return score;
}

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
                    publish) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto ld = [&](Value memref, Value at) -> Value {
    return b.create<memref::LoadOp>(loc, memref, ValueRange{at});
  };
  e.loop(tid, e.idx(G), e.idx(lanes), [&](Value hl) {
    SmallVector<Value> m(n), l(n);
    for (int64_t i = 0; i < n; ++i) {
      Value at = stateAt(e, i, hl);
      m[i] = ld(src, e.add(at, e.idx(dv)));
      l[i] = ld(src, e.add(at, e.idx(dv + 1)));
    }
    Value bigM = e.negInf();
    for (int64_t i = 0; i < n; ++i)
      bigM = e.fmax(bigM, m[i]);
    Value bigL = e.f32(0);
    Value row = e.mul(hl, e.idx(n));
    for (int64_t i = 0; i < n; ++i) {
      Value w = e.exp(e.sub(m[i], bigM));
      bigL = e.add(bigL, e.mul(l[i], w));
      b.create<memref::StoreOp>(loc, w, fold,
                                ValueRange{e.add(row, e.idx(i))});
    }
    b.create<memref::StoreOp>(loc, bigL, fold,
                              ValueRange{e.add(hl, e.idx(G * n))});
    b.create<memref::StoreOp>(loc, bigM, fold,
                              ValueRange{e.add(hl, e.idx(G * n + G))});
  });
  b.create<gpu::BarrierOp>(loc);
  Value dvIdx = e.idx(dv);
  e.loop(tid, e.idx(G * dv), e.idx(lanes), [&](Value pair) {
    Value hl = e.div(pair, dvIdx), c = e.rem(pair, dvIdx);
    Value row = e.mul(hl, e.idx(n));
    SmallVector<Value> o(n);
    for (int64_t i = 0; i < n; ++i)
      o[i] = ld(src, e.add(stateAt(e, i, hl), c));
    Value sum = e.f32(0);
    for (int64_t i = 0; i < n; ++i)
      sum = e.add(sum, e.mul(o[i], ld(fold, e.add(row, e.idx(i)))));
    publish(e, hl, c, sum, ld(fold, e.add(hl, e.idx(G * n))),
            ld(fold, e.add(hl, e.idx(G * n + G))));
  });
}

/// Folds row `row`'s split partials from `scratch` into the normalised
/// output (the combine's work), with `fold` as the weights' workgroup
/// memory (group * (splits + 2) floats).
void foldRow(Emitter &e, const Spec &s, Value scratch, Value out, Value fold,
             Value tid, Value row, Value bi, Value g, Value qi) {
  foldStates(
      e, tid, s.lanes, s.group, s.splits, s.dv, scratch, fold,
      [&](Emitter &x, int64_t sp, Value hl) {
        Value at = x.add(x.mul(row, x.idx(s.splits)), x.idx(sp));
        return x.mul(x.add(x.mul(at, x.idx(s.group)), hl), x.idx(s.dv + 2));
      },
      [&](Emitter &x, Value hl, Value c, Value sum, Value bigL, Value) {
        Value h = x.add(x.mul(g, x.idx(s.group)), hl);
        x.storeAs(x.div(sum, bigL), out, ValueRange{bi, h, qi, c});
      });
}

/// The fused combine, after a workgroup has written its partial: thread 0
/// publishes it (barrier, then a device-scope fence) and takes a ticket on
/// the row's counter; the workgroup that draws ticket splits - 1 has every
/// partial of the row visible (a second fence), folds them, and sets the
/// counter back to zero. `fold` holds the weights and, past them, the
/// ticket's verdict for the workgroup.
void foldRowIfLast(Emitter &e, const Spec &s, Value scratch, Value counters,
                   Value out, Value fold, Value tid, Value row, Value bi,
                   Value g, Value qi) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value verdict = e.idx(s.group * (s.splits + 2));
  Value first = e.cmpi(arith::CmpIPredicate::eq, tid, e.idx(0));
  b.create<gpu::BarrierOp>(loc);
  e.when(first, [&] {
    e.target.deviceFence(b, loc);
    Value one = b.create<arith::ConstantIntOp>(loc, 1, 32);
    Value ticket = b.create<memref::AtomicRMWOp>(
        loc, arith::AtomicRMWKind::addi, one, counters, ValueRange{row});
    Value last = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, ticket,
        b.create<arith::ConstantIntOp>(loc, s.splits - 1, 32));
    b.create<memref::StoreOp>(loc, e.select(last, e.f32(1), e.f32(0)), fold,
                              ValueRange{verdict});
    e.when(last, [&] { e.target.deviceFence(b, loc); });
  });
  b.create<gpu::BarrierOp>(loc);
  Value isLast = e.cmpf(arith::CmpFPredicate::ONE,
                        b.create<memref::LoadOp>(loc, fold, ValueRange{verdict}),
                        e.f32(0));
  e.when(isLast, [&] {
    foldRow(e, s, scratch, out, fold, tid, row, bi, g, qi);
    e.when(first, [&] {
      b.create<memref::StoreOp>(loc, b.create<arith::ConstantIntOp>(loc, 0, 32),
                                counters, ValueRange{row});
    });
  });
}

/// After the key loop of a subgroup schedule: workgroup memory `partials`
/// holds each subgroup's unnormalised state [subgroup][head][dv + 2]; the
/// subgroups fold into the normalised output, or with `scratchBase` into
/// the chunk's partial (the neutral (0, -inf, 0) when it saw nothing).
void foldSubgroups(Emitter &e, const Spec &s, const Args &a, Value tid,
                   Value bi, Value gq, Value qi, Value partials, Value fold,
                   Value scratchBase) {
  const int64_t W = s.partialSlots(), G = s.group;
  foldStates(
      e, tid, s.lanes, G, W, s.dv, partials, fold,
      [&](Emitter &x, int64_t w, Value hl) {
        return x.mul(x.add(x.idx(w * G), hl), x.idx(s.dv + 2));
      },
      [&](Emitter &x, Value hl, Value c, Value sum, Value bigL, Value bigM) {
        Value h = x.add(x.mul(gq, x.idx(G)), hl);
        if (!scratchBase) {
          x.storeAs(x.div(sum, bigL), a.out, ValueRange{bi, h, qi, c});
          return;
        }
        Value empty = x.cmpf(arith::CmpFPredicate::OEQ, bigM, x.negInf());
        Value dv = x.idx(s.dv);
        Value at = x.mul(x.add(scratchBase, hl), x.idx(s.dv + 2));
        x.b.create<memref::StoreOp>(x.loc, x.select(empty, x.f32(0), sum),
                                    a.scratch, ValueRange{x.add(at, c)});
        x.when(x.cmpi(arith::CmpIPredicate::eq, c, x.idx(0)), [&] {
          x.b.create<memref::StoreOp>(x.loc, bigM, a.scratch,
                                      ValueRange{x.add(at, dv)});
          x.b.create<memref::StoreOp>(
              x.loc, x.select(empty, x.f32(0), bigL), a.scratch,
              ValueRange{x.add(at, x.add(dv, x.idx(1)))});
        });
      });
}

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
                     Value scratchBase) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const int64_t S = s.subgroup, W = s.lanes / S, G = s.group;
  const int64_t V = s.vector, L = s.keyLanes, P = S / L, U = s.unroll;
  const int64_t nk = s.dk / (L * V), nv = s.dv / (L * V);
  const int64_t kd = s.dk - s.sharedWidth;
  Value lane = e.rem(tid, e.idx(S)), warp = e.div(tid, e.idx(S));
  Value slot = e.div(lane, e.idx(L)), j = e.rem(lane, e.idx(L));

  Value qpos = queryPosition(e, s, a, bi, qi);
  // The first channel of this lane's vector i.
  auto channel = [&](Emitter &x, int64_t i) -> Value {
    return x.mul(x.add(j, x.idx(i * L)), x.idx(V));
  };
  // V elements from `indices` on (the last index is the first channel), as
  // f32: one vector load when V > 1.
  auto loadVector = [&](Emitter &x, Value memref, SmallVector<Value> indices,
                        SmallVector<Value> &into) {
    if (V == 1) {
      into.push_back(x.loadF32(memref, indices));
      return;
    }
    Type et = cast<MemRefType>(memref.getType()).getElementType();
    Value vec = x.b.create<vector::LoadOp>(
        x.loc, VectorType::get({V}, et), memref, indices);
    for (int64_t el = 0; el < V; ++el) {
      Value v = x.b.create<vector::ExtractOp>(x.loc, vec, el);
      if (!v.getType().isF32())
        v = x.b.create<arith::ExtFOp>(x.loc, x.b.getF32Type(), v);
      into.push_back(v);
    }
  };

  // q of every head of the group, in registers: qreg[h][i V + el].
  SmallVector<SmallVector<Value>> qreg(G);
  SmallVector<Value> heads(G);
  for (int64_t hl = 0; hl < G; ++hl) {
    heads[hl] = e.add(e.mul(gq, e.idx(G)), e.idx(hl));
    for (int64_t i = 0; i < nk; ++i)
      loadVector(e, a.q, {bi, heads[hl], qi, channel(e, i)}, qreg[hl]);
  }

  // Carried per head: m, l, then nv V accumulator channels.
  const int64_t per = 2 + nv * V;
  SmallVector<Value> init;
  for (int64_t hl = 0; hl < G; ++hl) {
    init.push_back(e.negInf());
    init.push_back(e.f32(0));
    for (int64_t c = 0; c < nv * V; ++c)
      init.push_back(e.f32(0));
  }
  auto loop = b.create<scf::ForOp>(
      loc, kBegin, kEnd, e.idx(W * P * U), init,
      [&](OpBuilder &nb, Location l, Value tile, ValueRange carried) {
        Emitter x(nb, l, e.target);
        // This group's keys of the step, clamped into the chunk.
        SmallVector<Value> keys, valid;
        for (int64_t u = 0; u < U; ++u) {
          Value t = x.add(tile, x.add(x.mul(x.add(x.idx(u * W), warp),
                                            x.idx(P)),
                                      slot));
          Value in = x.cmpi(arith::CmpIPredicate::ult, t, kEnd);
          valid.push_back(in);
          keys.push_back(x.select(in, t, kBegin));
        }
        // All loads first: U keys' and values' vectors in flight.
        SmallVector<SmallVector<Value>> kreg(U), vreg(U);
        for (int64_t u = 0; u < U; ++u) {
          Value t = keys[u];
          Value row =
              s.paged ? x.loadIndex(a.read, ValueRange{bi, t}) : Value();
          for (int64_t i = 0; i < nk; ++i) {
            Value c = channel(x, i);
            if (s.sharedWidth && i * L * V >= kd) {
              loadVector(x, a.kShared, {bi, x.idx(0), t, x.sub(c, x.idx(kd))},
                         kreg[u]);
              continue;
            }
            if (s.sharedWidth && (i * L + L) * V > kd) {
              // Vectors of this row straddle k and k_shared lane by lane:
              // each lane reads its own side.
              Value inK = x.cmpi(arith::CmpIPredicate::ult, c, x.idx(kd));
              SmallVector<Value> fromK, fromShared;
              Value ck = x.select(inK, c, x.idx(0));
              Value cs = x.select(inK, x.idx(0), x.sub(c, x.idx(kd)));
              if (s.paged)
                loadVector(x, a.k, {row, kv, ck}, fromK);
              else
                loadVector(x, a.k, {bi, kv, t, ck}, fromK);
              loadVector(x, a.kShared, {bi, x.idx(0), t, cs}, fromShared);
              for (int64_t el = 0; el < V; ++el)
                kreg[u].push_back(x.select(inK, fromK[el], fromShared[el]));
              continue;
            }
            if (s.paged)
              loadVector(x, a.k, {row, kv, c}, kreg[u]);
            else
              loadVector(x, a.k, {bi, kv, t, c}, kreg[u]);
          }
          for (int64_t i = 0; i < nv; ++i) {
            Value c = channel(x, i);
            if (s.paged)
              loadVector(x, a.v, {row, kv, c}, vreg[u]);
            else
              loadVector(x, a.v, {bi, kv, t, c}, vreg[u]);
          }
        }
        // Scores: the dot of each (key, head), summed across the L lanes
        // of the group (every lane ends with the whole dot).
        SmallVector<SmallVector<Value>> score(U, SmallVector<Value>(G));
        for (int64_t u = 0; u < U; ++u)
          for (int64_t hl = 0; hl < G; ++hl) {
            Value dot = x.f32(0);
            for (int64_t c = 0; c < nk * V; ++c)
              dot = x.add(dot, x.mul(qreg[hl][c], kreg[u][c]));
            for (int64_t off = L / 2; off >= 1; off /= 2) {
              Value o32 =
                  nb.create<arith::ConstantOp>(l, nb.getI32IntegerAttr(off));
              Value w32 =
                  nb.create<arith::ConstantOp>(l, nb.getI32IntegerAttr(S));
              auto shuffle = nb.create<gpu::ShuffleOp>(l, dot, o32, w32,
                                                       gpu::ShuffleMode::XOR);
              dot = x.add(dot, shuffle.getShuffleResult());
            }
            Value sc = scoreOf(x, s, a, dot, bi, heads[hl], qi, keys[u], qpos);
            score[u][hl] = x.select(valid[u], sc, x.negInf());
          }
        // One online-softmax step over the U scores of each head; a -inf
        // score adds exactly nothing, a head with nothing visible yet keeps
        // (-inf, 0, 0).
        SmallVector<Value> next;
        for (int64_t hl = 0; hl < G; ++hl) {
          Value m = carried[hl * per], lsum = carried[hl * per + 1];
          Value mNew = m;
          for (int64_t u = 0; u < U; ++u)
            mNew = x.fmax(mNew, score[u][hl]);
          Value dead = x.cmpf(arith::CmpFPredicate::OEQ, mNew, x.negInf());
          Value rescale = x.select(dead, x.f32(1), x.exp(x.sub(m, mNew)));
          SmallVector<Value> w(U);
          Value lNew = x.mul(lsum, rescale);
          for (int64_t u = 0; u < U; ++u) {
            Value hidden =
                x.cmpf(arith::CmpFPredicate::OEQ, score[u][hl], x.negInf());
            w[u] = x.select(hidden, x.f32(0),
                            x.exp(x.sub(score[u][hl], mNew)));
            lNew = x.add(lNew, w[u]);
          }
          next.push_back(mNew);
          next.push_back(lNew);
          for (int64_t c = 0; c < nv * V; ++c) {
            Value acc = x.mul(carried[hl * per + 2 + c], rescale);
            for (int64_t u = 0; u < U; ++u)
              acc = x.add(acc, x.mul(w[u], vreg[u][c]));
            next.push_back(acc);
          }
        }
        nb.create<scf::YieldOp>(l, next);
      });

  // Fold the groups of each subgroup: lanes j of every group own the same
  // channels, so partners are `L`, `2L`, ... lanes apart.
  SmallVector<Value> state(loop.getResults().begin(), loop.getResults().end());
  for (int64_t off = L; off < S; off *= 2) {
    Value o32 = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(off));
    Value w32 = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(S));
    auto partner = [&](Value v) {
      return b.create<gpu::ShuffleOp>(loc, v, o32, w32, gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    for (int64_t hl = 0; hl < G; ++hl) {
      Value m = state[hl * per], mo = partner(m);
      Value bigM = e.fmax(m, mo);
      Value dead = e.cmpf(arith::CmpFPredicate::OEQ, bigM, e.negInf());
      Value wa = e.select(dead, e.f32(0), e.exp(e.sub(m, bigM)));
      Value wb = e.select(dead, e.f32(0), e.exp(e.sub(mo, bigM)));
      state[hl * per] = bigM;
      for (int64_t c = 1; c < per; ++c) {
        Value mine = state[hl * per + c];
        state[hl * per + c] =
            e.add(e.mul(mine, wa), e.mul(partner(mine), wb));
      }
    }
  }
  // A dead head folded with wa = wb = 0 keeps l = 0 and o = 0: the fold
  // below sees m = -inf and contributes nothing for it.

  // Each subgroup's state to workgroup memory: [warp][head][dv + 2], from
  // the lanes of its first group.
  Value width = e.idx(s.dv + 2);
  e.when(e.cmpi(arith::CmpIPredicate::eq, slot, e.idx(0)), [&] {
    for (int64_t hl = 0; hl < G; ++hl) {
      Value base = e.mul(e.add(e.mul(warp, e.idx(G)), e.idx(hl)), width);
      for (int64_t i = 0; i < nv; ++i)
        for (int64_t el = 0; el < V; ++el)
          b.create<memref::StoreOp>(
              loc, state[hl * per + 2 + i * V + el], partials,
              ValueRange{e.add(base, e.add(channel(e, i), e.idx(el)))});
      e.when(e.cmpi(arith::CmpIPredicate::eq, lane, e.idx(0)), [&] {
        b.create<memref::StoreOp>(loc, state[hl * per], partials,
                                  ValueRange{e.add(base, e.idx(s.dv))});
        b.create<memref::StoreOp>(loc, state[hl * per + 1], partials,
                                  ValueRange{e.add(base, e.idx(s.dv + 1))});
      });
    }
  });
  b.create<gpu::BarrierOp>(loc);
  foldSubgroups(e, s, a, tid, bi, gq, qi, partials, fold, scratchBase);
}

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
                    Value scratchBase) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const int64_t S = s.subgroup, W = s.lanes / S, G = s.group, U = s.unroll;
  const int64_t V = s.vector, VV = s.valueVector;
  const int64_t steps = s.dk / 16, tiles = s.dv / 16;
  const int64_t kChunks = s.dk / (4 * V), vChunks = tiles / VV;
  Type et = s.storage;
  Type i32 = b.getI32Type();
  Value lane = e.rem(tid, e.idx(S)), warp = e.div(tid, e.idx(S));
  Value g = e.div(lane, e.idx(4)), t = e.rem(lane, e.idx(4));

  Value qpos = queryPosition(e, s, a, bi, qi);
  auto i32c = [&](OpBuilder &ob, Location l, int64_t v) -> Value {
    return ob.create<arith::ConstantOp>(l, ob.getI32IntegerAttr(v));
  };
  // Two elements as one word (the first in the low half).
  auto word = [&](Emitter &x, Value pair) -> Value {
    Value w = x.b.create<vector::BitCastOp>(x.loc, VectorType::get({1}, i32),
                                            pair);
    return x.b.create<vector::ExtractOp>(x.loc, w, 0);
  };
  // Elements o, o + 1 of a loaded vector as one word.
  auto pairOf = [&](Emitter &x, Value vec, int64_t o) -> Value {
    Value pair = x.b.create<vector::ExtractStridedSliceOp>(
        x.loc, vec, ArrayRef<int64_t>{o}, ArrayRef<int64_t>{2},
        ArrayRef<int64_t>{1});
    return word(x, pair);
  };
  // Element o of two loaded vectors of `n` as one word.
  auto zipOf = [&](Emitter &x, Value lo, Value hi, int64_t o,
                   int64_t n) -> Value {
    Value pair = x.b.create<vector::ShuffleOp>(x.loc, lo, hi,
                                               ArrayRef<int64_t>{o, n + o});
    return word(x, pair);
  };
  auto load = [&](Emitter &x, Value memref, SmallVector<Value> indices,
                  int64_t n) -> Value {
    return x.b.create<vector::LoadOp>(x.loc, VectorType::get({n}, et), memref,
                                      indices);
  };
  // The first channel of this lane's key vector j.
  auto kChannel = [&](Emitter &x, int64_t j) -> Value {
    return x.add(x.mul(t, x.idx(V)), x.idx(j * 4 * V));
  };
  // Chunk j of a key row (`row`: its pool row when paged).
  auto loadKey = [&](Emitter &x, Value key, Value row, int64_t j) -> Value {
    if (s.paged)
      return load(x, a.k, {row, kv, kChannel(x, j)}, V);
    return load(x, a.k, {bi, kv, key, kChannel(x, j)}, V);
  };
  // The value channel of value tile i's row g (r = 0) or g + 8 (r = 1).
  auto valueChannel = [&](Emitter &x, int64_t i, int64_t r) -> Value {
    return x.add(x.mul(g, x.idx(VV)),
                 x.idx(r * (s.dv / 2) + (i / VV) * 8 * VV + i % VV));
  };
  // Chunk c of run r of a value row.
  auto loadValue = [&](Emitter &x, Value key, Value row, int64_t r,
                       int64_t c) -> Value {
    Value ch = valueChannel(x, c * VV, r);
    if (s.paged)
      return load(x, a.v, {row, kv, ch}, VV);
    return load(x, a.v, {bi, kv, key, ch}, VV);
  };
  // The lane's list position l -> (chunk, offset).
  auto at = [&](int64_t l) { return std::make_pair(l / V, l % V); };

  // q as B words: head g (clamped; zero past the group), step s's words
  // hold list positions 4s, 4s+1 and 4s+2, 4s+3.
  Value inGroup = e.cmpi(arith::CmpIPredicate::ult, g, e.idx(G));
  Value qHead = e.add(e.mul(gq, e.idx(G)), e.imin(g, e.idx(G - 1)));
  SmallVector<Value> qChunk;
  for (int64_t j = 0; j < kChunks; ++j)
    qChunk.push_back(load(e, a.q, {bi, qHead, qi, kChannel(e, j)}, V));
  SmallVector<Value> qWord;
  Value zero32 = i32c(b, loc, 0);
  for (int64_t st = 0; st < steps; ++st)
    for (int64_t half = 0; half < 2; ++half) {
      auto [c, o] = at(4 * st + 2 * half);
      qWord.push_back(e.select(inGroup, pairOf(e, qChunk[c], o), zero32));
    }

  // Carried: m, l of heads 2t, 2t+1, then o^T by value tile (4 each).
  SmallVector<Value> init{e.negInf(), e.negInf(), e.f32(0), e.f32(0)};
  for (int64_t i = 0; i < tiles * 4; ++i)
    init.push_back(e.f32(0));
  auto loop = b.create<scf::ForOp>(
      loc, e.add(kBegin, e.mul(warp, e.idx(16))), kEnd, e.idx(W * 16 * U),
      init, [&](OpBuilder &nb, Location l, Value step, ValueRange carried) {
        Emitter x(nb, l, e.target);
        SmallVector<Value> state(carried.begin(), carried.end());
        auto clamp = [&](Value key, Value *valid) {
          Value in = x.cmpi(arith::CmpIPredicate::ult, key, kEnd);
          if (valid)
            *valid = in;
          return x.select(in, key, kBegin);
        };
        // Every load of the step first: U tiles' key and value vectors.
        struct Tile {
          Value keys[2], valid[2];
          SmallVector<Value> kvec[2];
          SmallVector<Value> vvec[4]; // [key][run * vChunks + c]
        };
        std::vector<Tile> tilesOf(U);
        for (int64_t u = 0; u < U; ++u) {
          Tile &tl = tilesOf[u];
          Value base = x.add(step, x.idx(u * W * 16));
          for (int64_t r = 0; r < 2; ++r) {
            tl.keys[r] = x.add(base, x.add(g, x.idx(8 * r)));
            Value key = clamp(tl.keys[r], &tl.valid[r]);
            Value row =
                s.paged ? x.loadIndex(a.read, ValueRange{bi, key}) : Value();
            for (int64_t j = 0; j < kChunks; ++j)
              tl.kvec[r].push_back(loadKey(x, key, row, j));
          }
          const int64_t offsets[4] = {0, 1, 8, 9};
          for (int64_t k = 0; k < 4; ++k) {
            Value key = clamp(
                x.add(base, x.add(x.mul(t, x.idx(2)), x.idx(offsets[k]))),
                nullptr);
            Value row =
                s.paged ? x.loadIndex(a.read, ValueRange{bi, key}) : Value();
            for (int64_t r = 0; r < 2; ++r)
              for (int64_t c = 0; c < vChunks; ++c)
                tl.vvec[k].push_back(loadValue(x, key, row, r, c));
          }
        }
        for (int64_t u = 0; u < U; ++u) {
          Tile &tl = tilesOf[u];
          // S^T = K q^T over dk / 16 steps.
          SmallVector<Value> acc(4, x.f32(0));
          for (int64_t st = 0; st < steps; ++st) {
            auto [c0, o0] = at(4 * st);
            auto [c1, o1] = at(4 * st + 2);
            SmallVector<Value> aw{pairOf(x, tl.kvec[0][c0], o0),
                                  pairOf(x, tl.kvec[1][c0], o0),
                                  pairOf(x, tl.kvec[0][c1], o1),
                                  pairOf(x, tl.kvec[1][c1], o1)};
            acc = x.target.matrixTile(
                nb, l, et, aw, ValueRange{qWord[2 * st], qWord[2 * st + 1]},
                acc);
          }
          // Scores of (key r, head 2t + h); columns past the group -inf.
          Value sc[2][2];
          for (int64_t r = 0; r < 2; ++r)
            for (int64_t h = 0; h < 2; ++h) {
              Value hl = x.add(x.mul(t, x.idx(2)), x.idx(h));
              Value head = x.add(x.mul(gq, x.idx(G)),
                                 x.imin(hl, x.idx(G - 1)));
              Value key = x.select(tl.valid[r], tl.keys[r], kBegin);
              Value v = scoreOf(x, s, a, acc[2 * r + h], bi, head, qi, key,
                                qpos);
              Value live = nb.create<arith::AndIOp>(
                  l, tl.valid[r],
                  x.cmpi(arith::CmpIPredicate::ult, hl, x.idx(G)));
              sc[r][h] = x.select(live, v, x.negInf());
            }
          // Per head: the tile's max over its 16 keys, one rescale.
          Value p[2][2];
          for (int64_t h = 0; h < 2; ++h) {
            Value mx = x.fmax(sc[0][h], sc[1][h]);
            for (int64_t off : {4, 8, 16}) {
              auto sh = nb.create<gpu::ShuffleOp>(l, mx, i32c(nb, l, off),
                                                  i32c(nb, l, S),
                                                  gpu::ShuffleMode::XOR);
              mx = x.fmax(mx, sh.getShuffleResult());
            }
            Value m = state[h], mNew = x.fmax(m, mx);
            Value dead = x.cmpf(arith::CmpFPredicate::OEQ, mNew, x.negInf());
            Value rescale = x.select(dead, x.f32(1), x.exp(x.sub(m, mNew)));
            Value lNew = x.mul(state[2 + h], rescale);
            for (int64_t r = 0; r < 2; ++r) {
              Value hidden =
                  x.cmpf(arith::CmpFPredicate::OEQ, sc[r][h], x.negInf());
              p[r][h] = x.select(hidden, x.f32(0),
                                 x.exp(x.sub(sc[r][h], mNew)));
              lNew = x.add(lNew, p[r][h]);
            }
            state[h] = mNew;
            state[2 + h] = lNew;
            for (int64_t i = 0; i < tiles; ++i)
              for (int64_t r = 0; r < 2; ++r) {
                Value &o = state[4 + i * 4 + 2 * r + h];
                o = x.mul(o, rescale);
              }
          }
          // P^T as B words: this lane's (keys 2t, 2t+1 | 2t+8, 2t+9; head
          // g) sit in lanes 8t + g/2 and 8t + 4 + g/2 (their rows g' = 2t,
          // 2t+1), in the half g % 2 of the words they pack.
          Value packed[2];
          for (int64_t r = 0; r < 2; ++r) {
            Value pair = nb.create<vector::FromElementsOp>(
                l, VectorType::get({2}, nb.getF32Type()),
                ValueRange{p[r][0], p[r][1]});
            pair = nb.create<arith::TruncFOp>(l, VectorType::get({2}, et),
                                              pair);
            packed[r] = word(x, pair);
          }
          Value srcA = nb.create<arith::IndexCastOp>(
              l, i32, x.add(x.mul(t, x.idx(8)), x.div(g, x.idx(2))));
          Value srcB = nb.create<arith::AddIOp>(l, srcA, i32c(nb, l, 4));
          Value odd = x.cmpi(arith::CmpIPredicate::ne,
                             x.rem(g, x.idx(2)), x.idx(0));
          auto fetch = [&](Value v, Value src) {
            return nb
                .create<gpu::ShuffleOp>(l, v, src, i32c(nb, l, S),
                                        gpu::ShuffleMode::IDX)
                .getShuffleResult();
          };
          Value mask16 = i32c(nb, l, 0xffff), sh16 = i32c(nb, l, 16);
          Value himask = i32c(nb, l, static_cast<int32_t>(0xffff0000u));
          SmallVector<Value> pw;
          for (int64_t r = 0; r < 2; ++r) {
            Value lo = fetch(packed[r], srcA), hi = fetch(packed[r], srcB);
            Value even = nb.create<arith::OrIOp>(
                l, nb.create<arith::AndIOp>(l, lo, mask16),
                nb.create<arith::ShLIOp>(l, hi, sh16));
            Value oddw = nb.create<arith::OrIOp>(
                l, nb.create<arith::ShRUIOp>(l, lo, sh16),
                nb.create<arith::AndIOp>(l, hi, himask));
            pw.push_back(x.select(odd, oddw, even));
          }
          // o^T += V^T P^T, one product per 16 value channels.
          for (int64_t i = 0; i < tiles; ++i) {
            int64_t c = i / VV, o = i % VV;
            auto v = [&](int64_t k, int64_t r) {
              return tl.vvec[k][r * vChunks + c];
            };
            SmallVector<Value> aw{zipOf(x, v(0, 0), v(1, 0), o, VV),
                                  zipOf(x, v(0, 1), v(1, 1), o, VV),
                                  zipOf(x, v(2, 0), v(3, 0), o, VV),
                                  zipOf(x, v(2, 1), v(3, 1), o, VV)};
            SmallVector<Value> cAcc(state.begin() + 4 + i * 4,
                                    state.begin() + 8 + i * 4);
            SmallVector<Value> d = x.target.matrixTile(nb, l, et, aw, pw, cAcc);
            for (int64_t k = 0; k < 4; ++k)
              state[4 + i * 4 + k] = d[k];
          }
        }
        nb.create<scf::YieldOp>(l, state);
      });

  SmallVector<Value> state(loop.getResults().begin(), loop.getResults().end());
  // l summed across g (m is already the same there).
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t off : {4, 8, 16}) {
      auto sh = b.create<gpu::ShuffleOp>(loc, state[2 + h], i32c(b, loc, off),
                                         i32c(b, loc, S),
                                         gpu::ShuffleMode::XOR);
      state[2 + h] = e.add(state[2 + h], sh.getShuffleResult());
    }
  // The subgroup's state to workgroup memory [slot][head][dv + 2]: each
  // lane its o^T entries, the lanes of row g = 0 the (m, l) of their heads.
  Value width = e.idx(s.dv + 2);
  auto baseOf = [&](Emitter &x, Value slot, Value hl) {
    return x.mul(x.add(x.mul(slot, x.idx(G)), hl), width);
  };
  auto writeState = [&](Value slot, ArrayRef<Value> st) {
    for (int64_t h = 0; h < 2; ++h) {
      Value hl = e.add(e.mul(t, e.idx(2)), e.idx(h));
      e.when(e.cmpi(arith::CmpIPredicate::ult, hl, e.idx(G)), [&] {
        Value base = baseOf(e, slot, hl);
        for (int64_t i = 0; i < tiles; ++i)
          for (int64_t r = 0; r < 2; ++r)
            b.create<memref::StoreOp>(
                loc, st[4 + i * 4 + 2 * r + h], partials,
                ValueRange{e.add(base, valueChannel(e, i, r))});
        e.when(e.cmpi(arith::CmpIPredicate::eq, g, e.idx(0)), [&] {
          b.create<memref::StoreOp>(loc, st[h], partials,
                                    ValueRange{e.add(base, e.idx(s.dv))});
          b.create<memref::StoreOp>(loc, st[2 + h], partials,
                                    ValueRange{e.add(base, e.idx(s.dv + 1))});
        });
      });
    }
  };
  if (!s.pairFold) {
    writeState(warp, state);
    b.create<gpu::BarrierOp>(loc);
    foldSubgroups(e, s, a, tid, bi, gq, qi, partials, fold, scratchBase);
    return;
  }
  // Pairwise first (the partials hold half the subgroups): subgroup
  // w + W/2 leaves its state in slot w, subgroup w folds it into its
  // registers (the same entries, lane for lane) and writes the pair's
  // state there; the barrier between the reads and the writes keeps a lane
  // from overwriting (m, l) another lane of its subgroup still reads.
  Value half = e.idx(W / 2);
  e.when(e.cmpi(arith::CmpIPredicate::uge, warp, half),
         [&] { writeState(e.sub(warp, half), state); });
  b.create<gpu::BarrierOp>(loc);
  SmallVector<Type> types(state.size(), b.getF32Type());
  auto pair = b.create<scf::IfOp>(
      loc, types, e.cmpi(arith::CmpIPredicate::ult, warp, half),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(pair.thenBlock());
    SmallVector<Value> merged(state.begin(), state.end());
    for (int64_t h = 0; h < 2; ++h) {
      // Heads past the group read a valid slot and are never written.
      Value hl = e.imin(e.add(e.mul(t, e.idx(2)), e.idx(h)), e.idx(G - 1));
      Value base = baseOf(e, warp, hl);
      auto ld = [&](Value at) -> Value {
        return b.create<memref::LoadOp>(loc, partials, ValueRange{at});
      };
      Value mo = ld(e.add(base, e.idx(s.dv)));
      Value lo = ld(e.add(base, e.idx(s.dv + 1)));
      Value bigM = e.fmax(state[h], mo);
      Value dead = e.cmpf(arith::CmpFPredicate::OEQ, bigM, e.negInf());
      Value wa = e.select(dead, e.f32(0), e.exp(e.sub(state[h], bigM)));
      Value wb = e.select(dead, e.f32(0), e.exp(e.sub(mo, bigM)));
      merged[h] = bigM;
      merged[2 + h] = e.add(e.mul(state[2 + h], wa), e.mul(lo, wb));
      for (int64_t i = 0; i < tiles; ++i)
        for (int64_t r = 0; r < 2; ++r) {
          int64_t k = 4 + i * 4 + 2 * r + h;
          Value other = ld(e.add(base, valueChannel(e, i, r)));
          merged[k] = e.add(e.mul(state[k], wa), e.mul(other, wb));
        }
    }
    b.create<scf::YieldOp>(loc, merged);
    b.setInsertionPointToStart(pair.elseBlock());
    b.create<scf::YieldOp>(loc, state);
  }
  SmallVector<Value> pairState(pair.getResults().begin(),
                               pair.getResults().end());
  b.create<gpu::BarrierOp>(loc);
  e.when(e.cmpi(arith::CmpIPredicate::ult, warp, half),
         [&] { writeState(warp, pairState); });
  b.create<gpu::BarrierOp>(loc);
  foldSubgroups(e, s, a, tid, bi, gq, qi, partials, fold, scratchBase);
}

FailureOr<Spec> readSpec(AttentionOp op, const TargetHooks &target) {
  auto schedule = op->getAttrOfType<AttentionScheduleAttr>(attrs::kSchedule);
  if (!schedule)
    return op.emitError("expected a #poot.attention_schedule: run poot-plan "
                        "first");
  Spec s;
  auto q = op.getQ().getType();
  s.b = q.getDimSize(0);
  s.hq = q.getDimSize(1);
  s.lq = q.getDimSize(2);
  s.dk = q.getDimSize(3);
  s.dv = op.getType().getDimSize(3);
  s.nRep = op.getNRep();
  s.hkv = s.hq / s.nRep;
  s.lk = op.getKeyLength();
  s.storage = q.getElementType();
  if (!target.canStore(s.storage))
    return op.emitError() << "DtypeLowering: target " << target.name()
                          << " cannot store " << s.storage << " buffers";
  // The attribute's verifier holds the schedule's own invariants and the
  // op's verifier that its head group divides n_rep; what is left here
  // depends on the target.
  s.group = schedule.getGroup();
  s.lanes = schedule.getLanes();
  s.gridX = schedule.getGridX();
  s.subgroup = schedule.getSubgroup();
  s.vector = schedule.getVector();
  s.keyLanes = schedule.getKeyLanes() > 0 ? schedule.getKeyLanes()
                                           : s.subgroup;
  s.unroll = schedule.getUnroll();
  s.matrix = schedule.getMatrix();
  s.valueVector = schedule.getValueVector();
  s.pairFold = schedule.getPairFold();
  s.splits = schedule.getSplits();
  s.split = schedule.getSplit();
  s.fusedCombine = schedule.getFusedCombine();
  if (s.fusedCombine && !target.hasDeviceFence())
    return op.emitError() << "expected a target with a device-scope fence "
                             "for a combine fused into the partials, target "
                          << target.name() << " has none";
  s.scale = op.getScale().convertToDouble();
  if (auto cap = op.getSoftcap())
    s.softcap = cap->convertToDouble();
  s.paged = op.getRead() != nullptr;
  if (auto shared = op.getKShared())
    s.sharedWidth = cast<RankedTensorType>(shared.getType()).getDimSize(3);
  if (auto mask = op.getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    s.hasMask = true;
    s.maskB = mt.getDimSize(0);
    s.maskH = mt.getDimSize(1);
  }
  s.hasLen = op.getLen() != nullptr;
  if (auto pos = op.getPos()) {
    s.hasPos = true;
    s.posPerRow = cast<RankedTensorType>(pos.getType()).getRank() == 1;
  }
  s.causal = op.getCausal();
  if (auto w = op.getWindow())
    s.window = static_cast<int64_t>(*w);
  if (auto slopes = op.getAlibiSlopes())
    s.slopes.assign(slopes->begin(), slopes->end());
  if (s.matrix) {
    if (!target.hasMatrixTile(s.storage))
      return op.emitError() << "expected a target with a subgroup matrix "
                               "tile for "
                            << s.storage << ", target " << target.name()
                            << " has none";
    if (s.subgroup != 32 || s.group > 8 || (s.pairFold && s.lanes % 64) ||
        s.lanes % 32 || s.vector < 2 ||
        s.sharedWidth || s.dk % 16 || s.dv % 16 || (s.dk / 4) % s.vector ||
        (s.dv / 16) % s.valueVector)
      return op.emitError()
             << "expected a matrix-tile schedule of subgroups of 32, at most "
                "8 heads, a key of one part and widths in 16-channel steps "
                "divisible by its vectors, got subgroup "
             << s.subgroup << ", " << s.group << " heads, widths " << s.dk
             << "/" << s.dv << ", vectors " << s.vector << "/"
             << s.valueVector;
  } else if (s.subgroup) {
    int64_t row = s.keyLanes * s.vector;
    if (s.keyLanes < 1 || s.subgroup % s.keyLanes || s.lanes % s.subgroup ||
        s.dk % row || s.dv % row || (s.dk - s.sharedWidth) % s.vector)
      return op.emitError()
             << "expected key and value widths divisible by " << row
             << " (key lanes " << s.keyLanes << " of vectors of " << s.vector
             << ") within subgroups of " << s.subgroup;
  }
  return s;
}

/// The buffer of an operand: its shape and storage type, except that i64
/// positions and lengths travel as i32 (no target needs 64-bit integer
/// storage for them; the runtime narrows them, refusing values that do not
/// fit).
MemRefType bufferType(Value v, Attribute space) {
  auto t = cast<RankedTensorType>(v.getType());
  Type et = t.getElementType();
  if (et.isInteger(64))
    et = IntegerType::get(v.getContext(), 32);
  return MemRefType::get(t.getShape(), et, MemRefLayoutAttrInterface(), space);
}

} // namespace

FailureOr<std::vector<Launch>>
poot::codegen::buildAttentionKernels(AttentionOp op, gpu::GPUModuleOp gpuModule,
                                     const TargetHooks &target) {
  auto specOr = readSpec(op, target);
  if (failed(specOr))
    return failure();
  const Spec &s = *specOr;
  MLIRContext *ctx = op.getContext();
  Attribute space = target.globalMemorySpace(ctx);
  Location loc = op.getLoc();

  // Arguments in a fixed order: the op's operands that are present, then
  // the output, then (split) the scratch.
  SmallVector<Type> argTypes;
  std::vector<std::string> roles;
  auto addArg = [&](Value v, const char *role) {
    if (!v)
      return;
    argTypes.push_back(bufferType(v, space));
    roles.push_back(role);
  };
  addArg(op.getQ(), "q");
  addArg(op.getK(), "k");
  addArg(op.getKShared(), "k_shared");
  addArg(op.getV(), "v");
  addArg(op.getRead(), "read");
  addArg(op.getMask(), "mask");
  addArg(op.getLen(), "len");
  addArg(op.getPos(), "pos");
  addArg(op.getResult(), "out");
  int64_t scratchFloats = s.rows() * s.splits * s.group * (s.dv + 2);
  auto scratchType = MemRefType::get({scratchFloats}, Float32Type::get(ctx),
                                     MemRefLayoutAttrInterface(), space);
  if (s.split) {
    argTypes.push_back(scratchType);
    roles.push_back("scratch");
  }
  if (s.fusedCombine) {
    argTypes.push_back(MemRefType::get({s.rows()}, IntegerType::get(ctx, 32),
                                       MemRefLayoutAttrInterface(), space));
    roles.push_back("counters");
  }

  OpBuilder b(ctx);
  // Before the module's terminator (gpu.module_end).
  Block *body = gpuModule.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&body->back());
  else
    b.setInsertionPointToEnd(body);
  // Kernels are numbered in the order the ops are generated.
  int64_t existing = llvm::range_size(gpuModule.getOps<gpu::GPUFuncOp>());
  std::string base = "attention_" + std::to_string(existing);
  std::vector<Launch> launches;

  // The main kernel: streaming, or the split partials.
  {
    auto fn = b.create<gpu::GPUFuncOp>(
        loc, base + (s.split ? "_partial" : "_stream"),
        FunctionType::get(ctx, argTypes, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    target.setWorkgroupSize(fn, s.lanes);
    OpBuilder kb = OpBuilder::atBlockBegin(&fn.getBody().front());
    Emitter e(kb, loc, target);
    Args a;
    unsigned n = 0;
    for (const std::string &role : roles) {
      Value arg = fn.getArgument(n++);
      if (role == "q") a.q = arg;
      else if (role == "k") a.k = arg;
      else if (role == "k_shared") a.kShared = arg;
      else if (role == "v") a.v = arg;
      else if (role == "read") a.read = arg;
      else if (role == "mask") a.mask = arg;
      else if (role == "len") a.len = arg;
      else if (role == "pos") a.pos = arg;
      else if (role == "out") a.out = arg;
      else if (role == "scratch") a.scratch = arg;
      else if (role == "counters") a.counters = arg;
    }
    Value lane = kb.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value bx = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    Value by = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::y);
    Value gx = kb.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    Value id = e.add(bx, e.mul(by, gx));
    int64_t total = s.rows() * s.splits;
    Value mState, lState, oState, partials, fold, rowFold;
    if (s.fusedCombine)
      rowFold = target.allocWorkgroup(kb, loc, fn, {s.group * (s.splits + 2) + 1},
                                      kb.getF32Type());
    if (s.subgroup) {
      partials = target.allocWorkgroup(
          kb, loc, fn, {s.partialSlots() * s.group * (s.dv + 2)},
          kb.getF32Type());
      fold = target.allocWorkgroup(
          kb, loc, fn, {s.group * (s.partialSlots() + 2)}, kb.getF32Type());
    } else {
      mState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes},
                                     kb.getF32Type());
      lState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes},
                                     kb.getF32Type());
      oState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes * s.dv},
                                     kb.getF32Type());
    }
    e.when(e.cmpi(arith::CmpIPredicate::ult, id, e.idx(total)), [&] {
      Value row = e.div(id, e.idx(s.splits));
      Value split = e.rem(id, e.idx(s.splits));
      int64_t groups = s.hq / s.group;
      Value bi = e.div(row, e.idx(groups * s.lq));
      Value g = e.rem(e.div(row, e.idx(s.lq)), e.idx(groups));
      Value qi = e.rem(row, e.idx(s.lq));
      // The kv head of query-head group g: its first head g * group over
      // n_rep (with a whole group, g itself).
      Value kvHead = s.group == s.nRep
                         ? g
                         : e.div(e.mul(g, e.idx(s.group)), e.idx(s.nRep));
      // The keys this row visits: [0, len) clamped into [0, Lk], cut into
      // `splits` chunks by the live length at run time.
      Value kEnd = e.idx(s.lk);
      if (s.hasLen) {
        Value len = e.loadIndex(a.len, ValueRange{bi});
        kEnd = e.imin(e.imax(len, e.idx(0)), e.idx(s.lk));
      }
      if (s.causal) {
        // Keys past the query's own position are all -inf: the loop stops
        // at qpos + 1 instead of visiting them (the causal skip; the bound
        // is clamped so a position past Lk still reads nothing outside).
        Value qpos = queryPosition(e, s, a, bi, qi);
        Value stop = e.imax(e.add(qpos, e.idx(1)), e.idx(0));
        kEnd = e.imin(kEnd, stop);
      }
      Value chunk = e.div(e.add(kEnd, e.idx(s.splits - 1)), e.idx(s.splits));
      Value kBegin = e.imin(e.mul(split, chunk), kEnd);
      Value kStop = e.imin(e.add(kBegin, chunk), kEnd);
      // A partial's slot in the scratch: ((row * splits + split) * group
      // + head in group) * (dv + 2).
      Value scratchBase;
      if (s.split)
        scratchBase = e.mul(id, e.idx(s.group));
      if (s.matrix)
        emitMatrixBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                       partials, fold, scratchBase);
      else if (s.subgroup)
        emitChannelBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                        partials, fold, scratchBase);
      else
        emitStreamingBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                          mState, lState, oState, scratchBase);
      if (s.fusedCombine)
        foldRowIfLast(e, s, a.scratch, a.counters, a.out, rowFold, lane, row,
                      bi, g, qi);
    });
    kb.create<gpu::ReturnOp>(loc);
    int64_t gridX = std::min<int64_t>(total, s.gridX);
    launches.push_back({fn.getName().str(),
                        {gridX, (total + gridX - 1) / gridX},
                        s.lanes,
                        roles});
  }
  if (!s.split || s.fusedCombine)
    return launches;

  // The combine: one workgroup per row folds the row's splits.
  {
    SmallVector<Type> types{scratchType, bufferType(op.getResult(), space)};
    auto fn = b.create<gpu::GPUFuncOp>(loc, base + "_combine",
                                       FunctionType::get(ctx, types, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    target.setWorkgroupSize(fn, s.lanes);
    OpBuilder kb = OpBuilder::atBlockBegin(&fn.getBody().front());
    Emitter e(kb, loc, target);
    Value scratch = fn.getArgument(0), out = fn.getArgument(1);
    Value fold = target.allocWorkgroup(kb, loc, fn,
                                       {s.group * (s.splits + 2)},
                                       kb.getF32Type());
    Value lane = kb.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value bx = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    Value by = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::y);
    Value gx = kb.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    Value row = e.add(bx, e.mul(by, gx));
    e.when(e.cmpi(arith::CmpIPredicate::ult, row, e.idx(s.rows())), [&] {
      int64_t groups = s.hq / s.group;
      Value bi = e.div(row, e.idx(groups * s.lq));
      Value g = e.rem(e.div(row, e.idx(s.lq)), e.idx(groups));
      Value qi = e.rem(row, e.idx(s.lq));
      foldRow(e, s, scratch, out, fold, lane, row, bi, g, qi);
    });
    kb.create<gpu::ReturnOp>(loc);
    int64_t gridX = std::min<int64_t>(s.rows(), s.gridX);
    launches.push_back({fn.getName().str(),
                        {gridX, (s.rows() + gridX - 1) / gridX},
                        s.lanes,
                        {"scratch", "out"}});
  }
  return launches;
}
