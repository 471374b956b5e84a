//===- StreamingKernel.cpp - The lane-per-key attention schedule ---------===//
//
// The streaming schedule: one workgroup of `lanes` threads per (batch row,
// head group, query row). Each lane strides over the keys (t = lane, lane +
// lanes, ...) keeping, per query head of its group, a running max m, a
// denominator l and an accumulator o[dv] in workgroup memory (not in
// dynamically indexed private arrays, which some SPIR-V drivers reject).
// After one barrier every lane folds the lanes' partials over a slice of the
// output channels: M = max m_i, out[c] = sum o_i[c] e^(m_i - M) / sum l_i
// e^(m_i - M). The split-KV schedule runs the same body over one chunk of
// keys per (row, split) and writes the chunk's unnormalised (o, m, l), or
// the neutral (0, -inf, 0) when it saw no visible key, to a scratch buffer.
//
//===----------------------------------------------------------------------===//

#include "AttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace poot;
using namespace poot::codegen;

namespace poot::codegen::attention {

/// Emits, for the keys [kBegin, kEnd) of (b, group g, query row i), the
/// lanes' online softmax into workgroup state, then the lane fold. With
/// `scratchRow` the fold writes the unnormalised (o, m, l) there instead of
/// the normalised output.
///
/// One function because it builds one straight-line region: the key loop
/// and the lane fold share the state buffers and the scalars read before
/// the loop; split apart, each piece would take a dozen of them as
/// arguments.
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
    Value row = s.paged ? e.loadPoolRow(a.read, ValueRange{bi, t}, s.poolSlots) : Value();
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
        e.storeAs(normalised(e, s, sum, bigL, bigM), a.out,
                  ValueRange{bi, h, qi, c});
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

} // namespace poot::codegen::attention
