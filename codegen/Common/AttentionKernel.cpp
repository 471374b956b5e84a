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
// e^(m_i - M) weighting.
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

Attribute LLVMTargetHooks::globalMemorySpace(MLIRContext *ctx) const {
  return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
}

Value LLVMTargetHooks::allocWorkgroup(OpBuilder &b, Location loc,
                                      gpu::GPUFuncOp fn,
                                      ArrayRef<int64_t> shape,
                                      Type elementType) const {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return fn.addWorkgroupAttribution(
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(), space),
      loc);
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
  int64_t sharedWidth = 0; ///< width of k_shared (split key), else 0
  int64_t maskB = 0, maskH = 0;
  bool paged = false, hasMask = false, hasLen = false, hasPos = false;
  bool posPerRow = false, causal = false, split = false;
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
  Value q, k, kShared, v, read, mask, len, pos, out, scratch;
};

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
  Value dv = e.idx(s.dv), dk = e.idx(s.dk), group = e.idx(s.group);
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
  Value qpos = qi;
  if (s.hasPos) {
    Value p = s.posPerRow ? e.loadIndex(a.pos, ValueRange{bi})
                          : e.loadIndex(a.pos, ValueRange{});
    qpos = e.add(p, qi);
  }

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
                     Value kEnd, Value partials, Value scratchBase) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const int64_t S = s.subgroup, W = s.lanes / S, G = s.group;
  const int64_t V = s.vector, L = s.keyLanes, P = S / L, U = s.unroll;
  const int64_t nk = s.dk / (L * V), nv = s.dv / (L * V);
  const int64_t kd = s.dk - s.sharedWidth;
  Value lane = e.rem(tid, e.idx(S)), warp = e.div(tid, e.idx(S));
  Value slot = e.div(lane, e.idx(L)), j = e.rem(lane, e.idx(L));

  Value qpos = qi;
  if (s.hasPos) {
    Value p = s.posPerRow ? e.loadIndex(a.pos, ValueRange{bi})
                          : e.loadIndex(a.pos, ValueRange{});
    qpos = e.add(p, qi);
  }
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

  // Fold the subgroups: thread i takes (head, channel) pairs i, i + lanes...
  Value c0 = e.idx(0), c1 = e.idx(1), cW = e.idx(W), dv = e.idx(s.dv);
  e.loop(tid, e.idx(G * s.dv), e.idx(s.lanes), [&](Value pair) {
    Value hl = e.div(pair, dv), c = e.rem(pair, dv);
    auto slot = [&](Value w) {
      return e.mul(e.add(e.mul(w, e.idx(G)), hl), width);
    };
    auto mOf = [&](Value w) -> Value {
      return b.create<memref::LoadOp>(loc, partials,
                                      ValueRange{e.add(slot(w), dv)});
    };
    Value bigM = e.loopCarry(c0, cW, c1, e.negInf(), [&](Value w, Value acc) {
      return e.fmax(acc, mOf(w));
    });
    Value bigL = e.loopCarry(c0, cW, c1, e.f32(0), [&](Value w, Value acc) {
      Value lw = b.create<memref::LoadOp>(
          loc, partials, ValueRange{e.add(slot(w), e.add(dv, c1))});
      return e.add(acc, e.mul(lw, e.exp(e.sub(mOf(w), bigM))));
    });
    Value sum = e.loopCarry(c0, cW, c1, e.f32(0), [&](Value w, Value acc) {
      Value o = b.create<memref::LoadOp>(loc, partials,
                                         ValueRange{e.add(slot(w), c)});
      return e.add(acc, e.mul(o, e.exp(e.sub(mOf(w), bigM))));
    });
    Value h = e.add(e.mul(gq, e.idx(G)), hl);
    if (!scratchBase) {
      e.storeAs(e.div(sum, bigL), a.out, ValueRange{bi, h, qi, c});
      return;
    }
    // A partial that saw no visible key publishes the neutral (0, -inf, 0).
    Value empty = e.cmpf(arith::CmpFPredicate::OEQ, bigM, e.negInf());
    Value at = e.mul(e.add(scratchBase, hl), width);
    b.create<memref::StoreOp>(loc, e.select(empty, e.f32(0), sum), a.scratch,
                              ValueRange{e.add(at, c)});
    e.when(e.cmpi(arith::CmpIPredicate::eq, c, c0), [&] {
      b.create<memref::StoreOp>(loc, bigM, a.scratch,
                                ValueRange{e.add(at, dv)});
      b.create<memref::StoreOp>(loc, e.select(empty, e.f32(0), bigL),
                                a.scratch, ValueRange{e.add(at, e.add(dv, c1))});
    });
  });
}

FailureOr<Spec> readSpec(AttentionOp op, const TargetHooks &target) {
  auto schedule = op->getAttrOfType<DictionaryAttr>("poot.schedule");
  if (!schedule)
    return op.emitError("expected a poot.schedule: run poot-plan first");
  auto getInt = [&](StringRef name) {
    auto attr = schedule.getAs<IntegerAttr>(name);
    return attr ? attr.getInt() : 0;
  };
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
  auto grouped = schedule.getAs<BoolAttr>("grouped");
  s.group = grouped && grouped.getValue() ? s.nRep : 1;
  if (int64_t g = getInt("group"); g > 0)
    s.group = g;
  if (s.nRep % s.group)
    return op.emitError() << "expected a head group dividing n_rep "
                          << s.nRep << ", got " << s.group;
  s.lanes = getInt("lanes");
  if (auto grid = schedule.getAs<DenseI64ArrayAttr>("grid"); grid && grid.size() == 2)
    s.gridX = grid[0];
  s.subgroup = getInt("subgroup");
  s.vector = std::max<int64_t>(1, getInt("vector"));
  s.keyLanes = getInt("key_lanes") > 0 ? getInt("key_lanes") : s.subgroup;
  s.unroll = std::max<int64_t>(1, getInt("unroll"));
  s.splits = getInt("splits");
  auto kind = schedule.getAs<StringAttr>("kind");
  s.split = kind && kind.getValue() == "split";
  if (s.lanes < 1 || s.splits < 1)
    return op.emitError("expected a schedule with lanes and splits");
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
  if (s.subgroup) {
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
    }
    Value lane = kb.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value bx = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    Value by = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::y);
    Value gx = kb.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    Value id = e.add(bx, e.mul(by, gx));
    int64_t total = s.rows() * s.splits;
    Value mState, lState, oState, partials;
    if (s.subgroup) {
      partials = target.allocWorkgroup(
          kb, loc, fn, {(s.lanes / s.subgroup) * s.group * (s.dv + 2)},
          kb.getF32Type());
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
        Value qpos = qi;
        if (s.hasPos)
          qpos = e.add(s.posPerRow ? e.loadIndex(a.pos, ValueRange{bi})
                                   : e.loadIndex(a.pos, ValueRange{}),
                       qi);
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
      if (s.subgroup)
        emitChannelBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                        partials, scratchBase);
      else
        emitStreamingBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                          mState, lState, oState, scratchBase);
    });
    kb.create<gpu::ReturnOp>(loc);
    int64_t gridX = std::min<int64_t>(total, s.gridX);
    launches.push_back({fn.getName().str(),
                        {gridX, (total + gridX - 1) / gridX},
                        s.lanes,
                        roles});
  }
  if (!s.split)
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
    Value c0 = e.idx(0), c1 = e.idx(1);
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
      Value splits = e.idx(s.splits), width = e.idx(s.dv + 2);
      Value dv = e.idx(s.dv);
      e.loop(c0, e.idx(s.group), c1, [&](Value hl) {
        auto slot = [&](Value sp) {
          return e.mul(e.add(e.mul(e.add(e.mul(row, splits), sp),
                                   e.idx(s.group)),
                             hl),
                       width);
        };
        auto mOf = [&](Value sp) -> Value {
          return kb.create<memref::LoadOp>(loc, scratch,
                                           ValueRange{e.add(slot(sp), dv)});
        };
        Value bigM = e.loopCarry(c0, splits, c1, e.negInf(),
                                 [&](Value sp, Value acc) {
                                   return e.fmax(acc, mOf(sp));
                                 });
        Value bigL = e.loopCarry(
            c0, splits, c1, e.f32(0), [&](Value sp, Value acc) {
              Value l = kb.create<memref::LoadOp>(
                  loc, scratch, ValueRange{e.add(slot(sp), e.add(dv, c1))});
              return e.add(acc, e.mul(l, e.exp(e.sub(mOf(sp), bigM))));
            });
        Value h = e.add(e.mul(g, e.idx(s.group)), hl);
        e.loop(lane, dv, e.idx(s.lanes), [&](Value c) {
          Value sum = e.loopCarry(
              c0, splits, c1, e.f32(0), [&](Value sp, Value acc) {
                Value o = kb.create<memref::LoadOp>(
                    loc, scratch, ValueRange{e.add(slot(sp), c)});
                return e.add(acc, e.mul(o, e.exp(e.sub(mOf(sp), bigM))));
              });
          e.storeAs(e.div(sum, bigL), out, ValueRange{bi, h, qi, c});
        });
      });
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
