//===- MatrixKernel.cpp - The matrix-tile attention schedule -------------===//
//
// The matrix-tile schedule: bf16/f16 decode of grouped heads on the
// target's subgroup matrix tile (Target.h's matrixTile hook): scores and
// weighted values as tile products of 16 keys by up to 8 heads.
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
                s.paged ? x.loadPoolRow(a.read, ValueRange{bi, key}, s.poolSlots) : Value();
            for (int64_t j = 0; j < kChunks; ++j)
              tl.kvec[r].push_back(loadKey(x, key, row, j));
          }
          const int64_t offsets[4] = {0, 1, 8, 9};
          for (int64_t k = 0; k < 4; ++k) {
            Value key = clamp(
                x.add(base, x.add(x.mul(t, x.idx(2)), x.idx(offsets[k]))),
                nullptr);
            Value row =
                s.paged ? x.loadPoolRow(a.read, ValueRange{bi, key}, s.poolSlots) : Value();
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

} // namespace poot::codegen::attention
