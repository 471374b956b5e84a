//===- ChannelKernel.cpp - The channel attention schedule ----------------===//
//
// The channel schedule, for targets whose subgroups have a fixed width:
// subgroups walk the keys together, lanes share a key and hold its channels
// in registers, dot products reduce across lanes with shuffles, and the
// subgroups' states fold through workgroup memory (AttentionEmitter.cpp).
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
///
/// One function because the key loop is one region whose registers (q,
/// the accumulators, the U keys in flight) are arrays of SSA values built
/// and threaded through it; the fold after it is shared
/// (foldSubgroups).
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
              s.paged ? x.loadPoolRow(a.read, ValueRange{bi, t}, s.poolSlots) : Value();
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

} // namespace poot::codegen::attention
