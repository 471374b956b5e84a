//===- AttentionEmitter.cpp - Shared pieces of the attention kernels ------===//
//
// The query position, the score transform in the contract's order
// (s = (q.k) scale -> softcap -> + mask (tensor, causal/window from pos,
// ALiBi); a -inf score adds nothing) and the folds of unnormalised partial
// states (o, m, l) by the e^(m_i - M) weighting, shared by every kernel
// family: the lane fold of the streaming schedule, the subgroup fold of the
// channel and matrix-tile schedules, and the split-KV combine, as its own
// kernel or fused into the last workgroup of a row (each workgroup takes a
// ticket on its row's counter after publishing its partial; the one that
// draws the last folds the row and sets the counter back to zero).
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

Value normalised(Emitter &e, const Spec &s, Value sum, Value bigL,
                 Value bigM) {
  Value o = e.div(sum, bigL);
  if (!s.zeroEmptyRows)
    return o;
  return e.select(e.cmpf(arith::CmpFPredicate::OEQ, bigM, e.negInf()),
                  e.f32(0), o);
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
/// as the contract says (0 under zero_empty_rows, which `publish` applies).
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
      [&](Emitter &x, Value hl, Value c, Value sum, Value bigL, Value bigM) {
        Value h = x.add(x.mul(g, x.idx(s.group)), hl);
        x.storeAs(normalised(x, s, sum, bigL, bigM), out,
                  ValueRange{bi, h, qi, c});
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
          x.storeAs(normalised(x, s, sum, bigL, bigM), a.out,
                    ValueRange{bi, h, qi, c});
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

} // namespace poot::codegen::attention
