//===- TileKernel.cpp - The prefill tile schedule -------------------------===//
//
// Prefill on the matrix tile (Target.h's matrixTile hook), in the manner of
// the flash-attention kernels: a workgroup takes `tileRows` query rows of
// one KV head and walks its keys a tile at a time. Every lane starts
// asynchronous copies of part of a tile's keys and values into workgroup
// memory (Target.h's asyncCopy); with two stages the next tile's copies run
// while each subgroup multiplies its 16 query rows against this one.
//
//===----------------------------------------------------------------------===//

#include "AttentionEmitter.h"
#include "poot/Plan/Planner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace poot;
using namespace poot::codegen;

namespace poot::codegen::attention {

namespace {

/// Everything the body shares: the geometry and the workgroup's place.
struct Tile {
  const Spec &s;
  const Args &a;
  int64_t rows, keys, strideK, strideV, packed;
  Value ks, vs;           ///< workgroup memory: key and value stages
  Value bi, gq, kv;       ///< batch row, head group, its KV head
  Value kBegin, kEnd;     ///< the keys any row of the workgroup sees
  /// The query positions of the workgroup's first and last rows.
  Value qposFirst, qposLast;
  Value id; ///< the workgroup's index (its slot of the tile counts)
};

/// One lane's query row (A for tile rows g, B for g + 8).
struct Row {
  Value valid, head, qi, qpos;
};

Value i32Const(Emitter &e, int64_t v) {
  return e.b.create<arith::ConstantOp>(e.loc, e.b.getI32IntegerAttr(v));
}

/// A vector of 16-bit elements as i32 words.
SmallVector<Value> wordsOf(Emitter &e, Value vec) {
  auto vt = cast<VectorType>(vec.getType());
  int64_t n = vt.getNumElements() / 2;
  Value w = e.b.create<vector::BitCastOp>(
      e.loc, VectorType::get({n}, e.b.getI32Type()), vec);
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(e.b.create<vector::ExtractOp>(e.loc, w, i));
  return out;
}

Value loadVec(Emitter &e, Type et, Value memref, ValueRange indices,
              int64_t n) {
  return e.b.create<vector::LoadOp>(e.loc, VectorType::get({n}, et), memref,
                                    indices);
}

/// Rows of the workgroup's KV head: packed row p is query row p / group of
/// head p % group, so a tile of keys serves every head of the group.
Row rowOf(Emitter &e, const Tile &w, Value p) {
  const Spec &s = w.s;
  Row r;
  r.valid = e.cmpi(arith::CmpIPredicate::ult, p, e.idx(w.packed));
  Value pc = e.imin(p, e.idx(w.packed - 1));
  r.head = e.add(e.mul(w.gq, e.idx(s.group)), e.rem(pc, e.idx(s.group)));
  r.qi = e.div(pc, e.idx(s.group));
  r.qpos = queryPosition(e, s, w.a, w.bi, r.qi);
  return r;
}

/// A lane's share of `items` copies: body(v) for v = tid + i lanes, the
/// last round guarded where the items do not divide the lanes.
void forEachLaneItem(Emitter &e, Value tid, int64_t lanes, int64_t items,
                     llvm::function_ref<void(Value)> body) {
  for (int64_t i = 0; i * lanes < items; ++i) {
    Value v = e.add(tid, e.idx(i * lanes));
    if ((i + 1) * lanes <= items)
      body(v);
    else
      e.when(e.cmpi(arith::CmpIPredicate::ult, v, e.idx(items)),
             [&] { body(v); });
  }
}

/// The element offset of 16-byte chunk `cb` of row `r` in the 128-byte
/// swizzled layout of `rows` rows (startWarpgroupTile): blocks of rows for
/// each 64 channels, chunk cb % 8 of a row stored at cb % 8 ^ r % 8.
Value swizzledOffset(Emitter &e, Value r, Value cb, int64_t rows) {
  Value chunk = e.b.create<arith::XOrIOp>(e.loc, e.rem(cb, e.idx(8)),
                                          e.rem(r, e.idx(8)));
  return e.add(e.mul(e.div(cb, e.idx(8)), e.idx(rows * 64)),
               e.add(e.mul(r, e.idx(64)), e.mul(chunk, e.idx(8))));
}

/// Starts the copy of 8 key channels [c, c + 8) of key `key` (pool row
/// `row` when paged) to ks[at], from k or k_shared.
void copyKey(Emitter &e, const Tile &w, Value key, Value row, Value c,
             Value at) {
  const Spec &s = w.s;
  const TargetHooks &target = e.target;
  auto fromK = [&](Emitter &x) {
    if (s.paged)
      target.asyncCopy(x.b, x.loc, w.ks, {at}, w.a.k, {row, w.kv, c}, 8);
    else
      target.asyncCopy(x.b, x.loc, w.ks, {at}, w.a.k, {w.bi, w.kv, key, c}, 8);
  };
  if (!s.sharedWidth)
    return fromK(e);
  int64_t kd = s.dk - s.sharedWidth;
  auto inK = e.cmpi(arith::CmpIPredicate::ult, c, e.idx(kd));
  auto ifOp = e.b.create<scf::IfOp>(e.loc, inK, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  fromK(e);
  e.b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  target.asyncCopy(e.b, e.loc, w.ks, {at}, w.a.kShared,
                   {w.bi, e.idx(0), key, e.sub(c, e.idx(kd))}, 8);
}

/// Every lane starts copies of part of keys [k0, k0 + keys) into stage
/// `stage` (clamped into the range, so a key past the end copies the last
/// one and is scored -inf): 16 bytes at a time, item v being channels
/// [8 (v % (d/8)), +8) of tile key v / (d/8), so neighbouring lanes copy
/// neighbouring bytes. Where the items do not divide the lanes, the last
/// round's spare lanes copy nothing.
void startTile(Emitter &e, const Tile &w, Value tid, Value k0, Value stage) {
  const Spec &s = w.s;
  const int64_t lanes = s.lanes, keys = w.keys;
  auto keyAt = [&](Value kk) {
    return e.imin(e.add(k0, kk), e.sub(w.kEnd, e.idx(1)));
  };
  auto rows = [&](int64_t width, int64_t stride, Value buffer, bool isKey) {
    const int64_t perKey = width / 8, items = keys * perKey;
    Value base = e.mul(stage, e.idx(keys * stride));
    forEachLaneItem(e, tid, lanes, items, [&](Value v) {
        Value kk = e.div(v, e.idx(perKey));
        Value c = e.mul(e.rem(v, e.idx(perKey)), e.idx(8));
        Value key = keyAt(kk);
        Value row = s.paged ? e.loadPoolRow(w.a.read, ValueRange{w.bi, key},
                                            s.poolSlots)
                            : Value();
        Value at = e.add(base, e.add(e.mul(kk, e.idx(stride)), c));
        if (isKey)
          return copyKey(e, w, key, row, c, at);
        if (s.paged)
          e.target.asyncCopy(e.b, e.loc, buffer, {at}, w.a.v,
                             {row, w.kv, c}, 8);
        else
          e.target.asyncCopy(e.b, e.loc, buffer, {at}, w.a.v,
                             {w.bi, w.kv, key, c}, 8);
    });
  };
  rows(s.dk, w.strideK, w.ks, /*isKey=*/true);
  rows(s.dv, w.strideV, w.vs, /*isKey=*/false);
}

/// Two f32 as one word of two storage elements (the first low).
Value packPair(Emitter &e, Type et, Value x, Value y) {
  Value pair = e.b.create<vector::FromElementsOp>(
      e.loc, VectorType::get({2}, e.b.getF32Type()), ValueRange{x, y});
  pair = e.b.create<arith::TruncFOp>(e.loc, VectorType::get({2}, et), pair);
  return wordsOf(e, pair)[0];
}

/// The max or the sum of a row's values across the 4 lanes of its quad.
Value quadReduce(Emitter &e, Value v, bool max) {
  for (int64_t off : {1, 2}) {
    Value other = e.b.create<gpu::ShuffleOp>(e.loc, v, i32Const(e, off),
                                             i32Const(e, 32),
                                             gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = max ? e.fmax(v, other) : e.add(v, other);
  }
  return v;
}

/// Multiplies the values `vals` points at by `alpha` where `cond` holds
/// (a lane-local branch: the values are the lane's own).
void rescaleIf(Emitter &e, Value cond, Value alpha,
               llvm::ArrayRef<Value *> vals) {
  SmallVector<Type> types(vals.size(), e.b.getF32Type());
  auto ifOp = e.b.create<scf::IfOp>(e.loc, types, cond,
                                    /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> scaled;
    for (Value *v : vals)
      scaled.push_back(e.mul(*v, alpha));
    e.b.create<scf::YieldOp>(e.loc, scaled);
    e.b.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> same;
    for (Value *v : vals)
      same.push_back(*v);
    e.b.create<scf::YieldOp>(e.loc, same);
  }
  for (auto [v, r] : llvm::zip(vals, ifOp.getResults()))
    *v = r;
}

/// Whether key `key` is visible to `row` by the masks the workgroup's key
/// range does not already apply: the range's end, causal and window.
Value visible(Emitter &e, const Tile &w, Value key, const Row &row) {
  const Spec &s = w.s;
  Value in = e.cmpi(arith::CmpIPredicate::ult, key, w.kEnd);
  if (s.causal)
    in = e.b.create<arith::AndIOp>(
        e.loc, in, e.cmpi(arith::CmpIPredicate::sle, key, row.qpos));
  if (s.window)
    in = e.b.create<arith::AndIOp>(
        e.loc, in,
        e.cmpi(arith::CmpIPredicate::slt, e.sub(row.qpos, key),
               e.idx(*s.window)));
  return in;
}

/// The score transform of the tile's entries `sc` (entry i of block blk is
/// row i / 2, key k0 + 8 blk + 2 t + i % 2), up to a positive factor: the
/// softmax's exponent is 2^(v f - max f) with f = tileExponentFactor(s).
/// Without a softcap, a mask tensor or ALiBi the transform is the scale
/// (folded into f) and the masks, and a lane whose two rows see every key
/// of the tile (the tile inside the range and past neither row's causal or
/// window edge, as all but the diagonal tiles are) skips the masks; with
/// them it is the whole transform, times log2 e.
double tileExponentFactor(const Spec &s) {
  const double log2e = 1.4426950408889634;
  bool plain = !s.softcap && !s.hasMask && s.slopes.empty();
  return plain ? s.scale * log2e : 1.0;
}

void scoresToLog2(Emitter &x, const Tile &w, const Row (&rows)[2], Value k0,
                  Value t, SmallVector<SmallVector<Value, 4>> &sc) {
  const Spec &s = w.s;
  const double log2e = 1.4426950408889634;
  const int64_t blocks = w.keys / 8;
  auto keyOf = [&](Emitter &y, int64_t blk, int64_t i) {
    return y.add(k0, y.add(y.mul(t, y.idx(2)), y.idx(8 * blk + i % 2)));
  };
  if (s.softcap || s.hasMask || !s.slopes.empty()) {
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t i = 0; i < 4; ++i) {
        const Row &row = rows[i / 2];
        Value key = keyOf(x, blk, i);
        Value in = x.cmpi(arith::CmpIPredicate::ult, key, w.kEnd);
        Value safe = x.imin(key, x.sub(w.kEnd, x.idx(1)));
        Value v = scoreOf(x, s, w.a, sc[blk][i], w.bi, row.head, row.qi,
                          safe, row.qpos);
        sc[blk][i] = x.mul(x.select(in, v, x.negInf()), x.f32(log2e));
      }
    return;
  }
  // Whether every key of the tile is visible to every row of the
  // workgroup, decided for the workgroup as a whole: a branch that differs
  // between the lanes of a subgroup would leave them apart at the matrix
  // tile's products, which every lane must issue together.
  Value last = x.add(k0, x.idx(w.keys - 1));
  Value inside = x.cmpi(arith::CmpIPredicate::ult, last, w.kEnd);
  if (s.causal)
    inside = x.b.create<arith::AndIOp>(
        x.loc, inside, x.cmpi(arith::CmpIPredicate::sle, last, w.qposFirst));
  if (s.window)
    inside = x.b.create<arith::AndIOp>(
        x.loc, inside,
        x.cmpi(arith::CmpIPredicate::slt, x.sub(w.qposLast, k0),
               x.idx(*s.window)));
  SmallVector<Type> types(blocks * 4, x.b.getF32Type());
  auto ifOp = x.b.create<scf::IfOp>(x.loc, types, inside,
                                    /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(x.b);
  x.b.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> all;
  for (int64_t blk = 0; blk < blocks; ++blk)
    for (int64_t i = 0; i < 4; ++i)
      all.push_back(sc[blk][i]);
  x.b.create<scf::YieldOp>(x.loc, all);
  x.b.setInsertionPointToStart(ifOp.elseBlock());
  all.clear();
  for (int64_t blk = 0; blk < blocks; ++blk)
    for (int64_t i = 0; i < 4; ++i)
      all.push_back(x.select(visible(x, w, keyOf(x, blk, i), rows[i / 2]),
                             sc[blk][i], x.negInf()));
  x.b.create<scf::YieldOp>(x.loc, all);
  for (int64_t blk = 0; blk < blocks; ++blk)
    for (int64_t i = 0; i < 4; ++i)
      sc[blk][i] = ifOp.getResult(blk * 4 + i);
}

/// With the tile counts on (Spec::countTiles), one more key tile visited:
/// lane 0 adds one to the workgroup's own count (no other workgroup
/// touches it, so no atomics).
void countTile(Emitter &e, const Tile &w, Value tid) {
  if (!w.a.tiles)
    return;
  e.when(e.cmpi(arith::CmpIPredicate::eq, tid, e.idx(0)), [&] {
    Value n = e.b.create<memref::LoadOp>(e.loc, w.a.tiles, ValueRange{w.id});
    Value one = e.b.create<arith::ConstantIntOp>(e.loc, 1, 32);
    e.b.create<memref::StoreOp>(
        e.loc, e.b.create<arith::AddIOp>(e.loc, n, one), w.a.tiles,
        ValueRange{w.id});
  });
}

/// Split-KV: row `row`'s unnormalised state for this split, in the
/// combine's layout ((row (b, head group, query row) x splits + split) x
/// group + head in group, then o[dv], m, l), m taken from the exponent's
/// domain (2^(v f)) to the natural one (e^m). A row that saw nothing leaves
/// (0, -inf, 0).
void writePartial(Emitter &e, const Tile &w, const Row &row, Value split,
                  Value t, Value m, Value l,
                  llvm::function_ref<Value(int64_t, int64_t)> o) {
  const Spec &s = w.s;
  OpBuilder &b = e.b;
  const int64_t groups = s.hq / s.group;
  Value gRow = e.add(e.mul(e.add(e.mul(w.bi, e.idx(groups)), w.gq),
                           e.idx(s.lq)),
                     row.qi);
  Value hl = e.rem(row.head, e.idx(s.group));
  Value slot = e.add(e.mul(e.add(e.mul(gRow, e.idx(s.splits)), split),
                           e.idx(s.group)),
                     hl);
  Value base = e.mul(slot, e.idx(s.dv + 2));
  for (int64_t i = 0; i < s.dv / 8; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value c = e.add(e.idx(8 * i + j), e.mul(t, e.idx(2)));
      b.create<memref::StoreOp>(e.loc, o(i, j), w.a.scratch,
                                ValueRange{e.add(base, c)});
    }
  e.when(e.cmpi(arith::CmpIPredicate::eq, t, e.idx(0)), [&] {
    Value mNat = e.mul(m, e.f32(tileExponentFactor(s) * 0.6931471805599453));
    b.create<memref::StoreOp>(e.loc, mNat, w.a.scratch,
                              ValueRange{e.add(base, e.idx(s.dv))});
    b.create<memref::StoreOp>(e.loc, l, w.a.scratch,
                              ValueRange{e.add(base, e.idx(s.dv + 1))});
  });
}

/// Places workgroup `id` (split-major: id % splits is its split): its
/// batch row, head group and KV head, and the keys its rows see; returns
/// its first packed row and sets `split`.
Value placeWorkgroup(Emitter &e, Tile &w, Value id, Value &split) {
  const Spec &s = w.s;
  const Args &a = w.a;
  const int64_t R = w.rows, G = s.group;
  // Workgroups of the last (causally heaviest) row blocks go first.
  const int64_t groups = s.hq / G, rowBlocks = (w.packed + R - 1) / R;
  w.id = id;
  // Split-KV: workgroup id serves split id % splits of its rows.
  split = e.rem(id, e.idx(s.splits));
  id = e.div(id, e.idx(s.splits));
  if (const int64_t U = s.tileUnits) {
    // Dealt across U compute units: the device starts workgroups 0 .. U - 1
    // one a unit, then U .. 2U - 1, and so on, so each round of U takes
    // the next U blocks in weight order, alternately from the heavy end
    // and from the light end of the round, and a unit's blocks of two
    // rounds weigh about the same in sum (heaviest first alone gives the
    // first units the heaviest block of every round).
    const int64_t total = s.b * groups * rowBlocks;
    Value round = e.div(id, e.idx(U)), pos = e.rem(id, e.idx(U));
    Value first = e.mul(round, e.idx(U));
    Value size = e.imin(e.idx(U), e.sub(e.idx(total), first));
    Value odd = e.cmpi(arith::CmpIPredicate::ne,
                       e.rem(round, e.idx(2)), e.idx(0));
    Value back = e.sub(e.sub(size, e.idx(1)), pos);
    id = e.add(first, e.b.create<arith::SelectOp>(e.loc, odd, back, pos));
  }
  Value heads = e.idx(s.b * groups);
  Value rb = e.sub(e.idx(rowBlocks - 1), e.div(id, heads));
  Value rest = e.rem(id, heads);
  w.bi = e.div(rest, e.idx(groups));
  w.gq = e.rem(rest, e.idx(groups));
  w.kv = G == s.nRep ? w.gq : e.div(e.mul(w.gq, e.idx(G)), e.idx(s.nRep));
  Value p0 = e.mul(rb, e.idx(R));
  Value pLast = e.imin(e.add(p0, e.idx(R - 1)), e.idx(w.packed - 1));
  Value qposFirst = queryPosition(e, s, a, w.bi, e.div(p0, e.idx(G)));
  Value qposLast = queryPosition(e, s, a, w.bi, e.div(pLast, e.idx(G)));
  w.qposFirst = qposFirst;
  w.qposLast = qposLast;
  w.kEnd = e.idx(s.lk);
  if (s.hasLen) {
    Value len = e.loadIndex(a.len, ValueRange{w.bi});
    w.kEnd = e.imin(e.imax(len, e.idx(0)), e.idx(s.lk));
  }
  if (s.causal)
    w.kEnd = e.imin(w.kEnd, e.imax(e.add(qposLast, e.idx(1)), e.idx(0)));
  w.kBegin = e.idx(0);
  if (s.window)
    w.kBegin = e.imin(e.imax(e.sub(qposFirst, e.idx(*s.window - 1)),
                             e.idx(0)),
                      w.kEnd);
  if (s.split) {
    // The workgroup's range cut into `splits` chunks at run time.
    Value chunk = e.div(e.add(e.sub(w.kEnd, w.kBegin), e.idx(s.splits - 1)),
                        e.idx(s.splits));
    w.kBegin = e.imin(e.add(w.kBegin, e.mul(split, chunk)), w.kEnd);
    w.kEnd = e.imin(e.add(w.kBegin, chunk), w.kEnd);
  }
  return p0;
}

/// The online softmax of one tile for the lane's two rows, with 2^x: the
/// scores `sc` (in the exponent's domain, scoresToLog2) become weights,
/// the carried m (st[0, 1]) and l (st[2, 3]) advance, and the row's
/// accumulators (st[4 + 4 i + 2 r + {0, 1}] for value block i) are
/// rescaled, once a tile and only where the row's max grew: by a branch
/// of the lane's own, or (`branchless`) by a product with the row's factor
/// (1 where the max did not grow), which keeps the subgroup converged for
/// the warpgroup tile's products that follow (they must be issued by every
/// lane of a subgroup together).
void softmaxTile(Emitter &x, const Spec &s, SmallVector<Value> &st,
                 SmallVector<SmallVector<Value, 4>> &sc,
                 bool branchless = false) {
  OpBuilder &nb = x.b;
  Location l = x.loc;
  const int64_t blocks = sc.size(), vBlocks = s.dv / 8;
  for (int64_t r = 0; r < 2; ++r) {
    Value mx = x.negInf();
    for (int64_t blk = 0; blk < blocks; ++blk)
      mx = x.fmax(mx, x.fmax(sc[blk][2 * r], sc[blk][2 * r + 1]));
    mx = quadReduce(x, mx, /*max=*/true);
    Value mNew = x.fmax(st[r], mx);
    // Nothing visible yet: weights against 0 (all of them 0).
    Value ref = x.select(x.cmpf(arith::CmpFPredicate::OEQ, mNew, x.negInf()),
                         x.f32(0), mNew);
    // 2^(v f - ref f): a product and a sum the backend may contract into
    // one fused multiply-add an entry.
    Value f = x.f32(tileExponentFactor(s));
    Value negRef = x.mul(ref, x.f32(-tileExponentFactor(s)));
    auto contract = arith::FastMathFlagsAttr::get(
        nb.getContext(), arith::FastMathFlags::contract);
    auto weight = [&](Value v) {
      Value prod = nb.create<arith::MulFOp>(l, v, f, contract);
      Value sum = nb.create<arith::AddFOp>(l, prod, negRef, contract);
      return x.target.exp2(nb, l, sum, /*flushSubnormals=*/true);
    };
    Value alpha = weight(st[r]);
    // Branchless, l and the accumulators take one factor: 1 exactly where
    // the max did not grow, as the branch would leave them.
    Value grew, factor = alpha;
    if (branchless) {
      grew = x.cmpf(arith::CmpFPredicate::OGT, mNew, st[r]);
      factor = x.select(grew, alpha, x.f32(1));
    }
    Value lNew = x.mul(st[2 + r], factor);
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t j = 0; j < 2; ++j) {
        Value &p = sc[blk][2 * r + j];
        p = weight(p);
        lNew = x.add(lNew, p);
      }
    if (!grew)
      grew = x.cmpf(arith::CmpFPredicate::OGT, mNew, st[r]);
    st[r] = mNew;
    st[2 + r] = lNew;
    SmallVector<Value *> row;
    for (int64_t i = 0; i < vBlocks; ++i)
      for (int64_t j = 0; j < 2; ++j)
        row.push_back(&st[4 + 4 * i + 2 * r + j]);
    if (!branchless) {
      rescaleIf(x, grew, alpha, row);
      continue;
    }
    for (Value *v : row)
      *v = x.mul(*v, factor);
  }
}

/// The weights as A words of the matrix tile, 16 keys (score blocks 2 kk,
/// 2 kk + 1) a step: ordered (block, row), which is the tile's (g, 2t),
/// (g+8, 2t), (g, 2t+8), (g+8, 2t+8). No data moves: a score's tile
/// position is its weight's.
SmallVector<SmallVector<Value, 4>>
weightWords(Emitter &x, Type et, SmallVector<SmallVector<Value, 4>> &sc) {
  SmallVector<SmallVector<Value, 4>> pw(sc.size() / 2);
  for (size_t kk = 0; kk < pw.size(); ++kk)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t r = 0; r < 2; ++r) {
        auto &p = sc[2 * kk + half];
        pw[kk].push_back(packPair(x, et, p[2 * r], p[2 * r + 1]));
      }
  return pw;
}

/// Normalises and stores the lane's two rows (channels 8 i + 2 t, + 1 of
/// each value block i), or writes their partials for the combine.
void finishRows(Emitter &e, const Tile &w, const Row (&rows)[2], Value split,
                Value t, SmallVector<Value> &st) {
  const Spec &s = w.s;
  OpBuilder &b = e.b;
  Location loc = e.loc;
  for (int64_t r = 0; r < 2; ++r) {
    Value lSum = quadReduce(e, st[2 + r], /*max=*/false);
    const Row &row = rows[r];
    if (s.split) {
      e.when(row.valid, [&] {
        writePartial(e, w, row, split, t, st[r], lSum,
                     [&](int64_t i, int64_t j) {
                       return st[4 + 4 * i + 2 * r + j];
                     });
      });
      continue;
    }
    e.when(row.valid, [&] {
      for (int64_t i = 0; i < s.dv / 8; ++i) {
        Value pair = b.create<vector::FromElementsOp>(
            loc, VectorType::get({2}, b.getF32Type()),
            ValueRange{normalised(e, s, st[4 + 4 * i + 2 * r], lSum, st[r]),
                       normalised(e, s, st[4 + 4 * i + 2 * r + 1], lSum,
                                  st[r])});
        pair = b.create<arith::TruncFOp>(loc, VectorType::get({2}, s.storage),
                                         pair);
        Value c = e.add(e.idx(8 * i), e.mul(t, e.idx(2)));
        b.create<vector::StoreOp>(loc, pair, w.a.out,
                                  ValueRange{w.bi, row.head, row.qi, c});
      }
    });
  }
}

/// The carried state's start: m and l of both rows, then dv / 2
/// accumulators.
SmallVector<Value> initialState(Emitter &e, const Spec &s) {
  SmallVector<Value> init{e.negInf(), e.negInf(), e.f32(0), e.f32(0)};
  for (int64_t i = 0; i < s.dv / 2; ++i)
    init.push_back(e.f32(0));
  return init;
}

/// Bytes of one operand buffer of the warpgroup form: `width` channels of
/// `keys` keys as 128-byte rows of 64 channels, one block of rows (an atom
/// column) for each 64 channels, the last one partly used.
int64_t warpgroupBufferBytes(int64_t keys, int64_t width) {
  return (width + 63) / 64 * keys * 128;
}

/// The warpgroup form's copies of keys [k0, k0 + keys) (clamped as
/// startTile's are) into `buffer`, keys and values alike, in the 128-byte
/// swizzled layout the warpgroup tile reads: channel c of tile key kk at
/// byte (c / 64) keys 128 + kk 128 + ((c % 64) / 8 ^ kk % 8) 16 + (c % 8) 2,
/// i.e. 128-byte rows (one key, 64 channels) whose 16-byte chunks are
/// permuted by the row's position among 8, so that 8 rows of one chunk
/// column sit on distinct banks. Neighbouring lanes copy neighbouring
/// 16-byte chunks of one key (coalesced reads); the 8 chunks of a row land
/// in distinct chunks of one 128-byte row (no bank conflicts).
void startWarpgroupTile(Emitter &e, const Tile &w, Value tid, Value k0,
                        bool isKey, int64_t stageElements = 0,
                        Value stage = Value()) {
  const Spec &s = w.s;
  const int64_t lanes = s.lanes, keys = w.keys;
  const int64_t width = isKey ? s.dk : s.dv, perKey = width / 8;
  const int64_t items = keys * perKey;
  // Where a key's chunks divide the lanes into whole keys, and each round
  // moves a lane by a multiple of 8 keys (widths 32, 64 and 128 on 128
  // lanes), a lane copies the same chunk column of keys kk0, kk0 + step,
  // ... and lands them at one swizzled chunk, so its rounds are one
  // address plus constants (Target.h's asyncCopyRounds): one instruction a
  // copy on sm_90 against 13 to 14 with the per-key index arithmetic.
  // Keys past the range are written as zeros, not copies of the last key:
  // they score -inf and weigh 0 either way, and zero values keep 0 * v
  // finite. Paged keys and split keys (two sources) take the general path.
  const int64_t step = lanes % perKey == 0 ? lanes / perKey : 0;
  if (step && step % 8 == 0 && keys % step == 0 && !s.paged &&
      !(isKey && s.sharedWidth)) {
    Value kk0 = e.div(tid, e.idx(perKey)), cb = e.rem(tid, e.idx(perKey));
    Value at = swizzledOffset(e, kk0, cb, keys);
    if (stage)
      at = e.add(at, e.mul(stage, e.idx(stageElements)));
    Value key0 = e.add(k0, kk0);
    e.target.asyncCopyRounds(e.b, e.loc, isKey ? w.ks : w.vs, at, step * 64,
                             isKey ? w.a.k : w.a.v,
                             {w.bi, w.kv, key0, e.mul(cb, e.idx(8))},
                             /*srcDim=*/2, step, keys / step,
                             e.sub(w.kEnd, key0), 8);
    return;
  }
  forEachLaneItem(e, tid, lanes, items, [&](Value v) {
      Value kk = e.div(v, e.idx(perKey)), cb = e.rem(v, e.idx(perKey));
      Value c = e.mul(cb, e.idx(8));
      Value key = e.imin(e.add(k0, kk), e.sub(w.kEnd, e.idx(1)));
      Value row = s.paged ? e.loadPoolRow(w.a.read, ValueRange{w.bi, key},
                                          s.poolSlots)
                          : Value();
      Value at = swizzledOffset(e, kk, cb, keys);
      if (stage)
        at = e.add(at, e.mul(stage, e.idx(stageElements)));
      if (isKey)
        return copyKey(e, w, key, row, c, at);
      if (s.paged)
        e.target.asyncCopy(e.b, e.loc, w.vs, {at}, w.a.v, {row, w.kv, c}, 8);
      else
        e.target.asyncCopy(e.b, e.loc, w.vs, {at}, w.a.v,
                           {w.bi, w.kv, key, c}, 8);
  });
}

/// What the warpgroup form's loops issue: the score products of one key
/// buffer, the value products, and the copies into the buffers.
struct WarpgroupParts {
  Emitter &e;
  const Spec &s;
  const Tile &w;
  Value tid;
  /// q as A words, loaded once (emitWarpgroupBody), or (qs) staged once
  /// in workgroup memory in the keys' swizzled layout, a block of 64 rows
  /// for each warpgroup, this lane's warpgroup's block `qBlock` bytes in.
  SmallVector<SmallVector<Value, 4>> qa;
  Value qs, qBlock;
  int64_t keys = 0, scoreParts = 1, scoreKeys = 0;
  /// Bytes of one key buffer (the second, if any, follows the first).
  int64_t keyStageBytes = 0;

  /// The operands in the swizzled layout (startWarpgroupTile). Keys, read
  /// with the channels along k: step m's 16 channels start 32 m bytes into
  /// their 128-byte rows (m / 4 atom columns on), groups of 8 keys (along
  /// n) 1024 bytes apart. Values, the channels along n: step kk's 16 keys
  /// start 2048 kk bytes on, groups of 8 keys (along k) 1024 bytes apart,
  /// atom columns of 64 channels (along n) 128 keys bytes apart.
  ///
  /// Where the value products would have the score products' shape
  /// (m64n64k16: dv equal to the tile's keys), each score product is
  /// issued as two of half the keys (part p: keys [32 p, + 32), 4096 p
  /// bytes on, 4 groups of 8 keys), so the two sets of products differ in
  /// shape. With one shape for both, NVIDIA's PTX assembler put the weights
  /// (the value products' A words) in q's registers (the score products'
  /// A words), product by product, though the next tile's scores still
  /// read q: from the second tile on, the scores were the last tile's
  /// weights against the keys (wrong results on the H200 at dv = 64,
  /// causal or not). The halves cost under 1% there.
  Value keyOperand(Emitter &x, int64_t m, int64_t part, Value stage) const {
    Value at = x.idx(m / 4 * keys * 128 + part * scoreKeys * 128 + m % 4 * 32);
    if (stage)
      at = x.add(at, x.mul(stage, x.idx(keyStageBytes)));
    return e.target.warpgroupOperand(x.b, x.loc, w.ks, at,
                                     /*leadingBytes=*/16,
                                     /*strideBytes=*/1024);
  }
  /// q's step m of 16 channels of the lane's warpgroup, laid out as the
  /// keys are (64 rows).
  Value queryOperand(Emitter &x, int64_t m) const {
    return e.target.warpgroupOperand(
        x.b, x.loc, qs, x.add(qBlock, x.idx(m / 4 * 64 * 128 + m % 4 * 32)),
        /*leadingBytes=*/16,
        /*strideBytes=*/1024);
  }
  /// Starts the copies of the workgroup's query rows (packed rows p0 on,
  /// clamped to the last) into qs, 64 rows a block in the keys' swizzled
  /// layout; they land with the first tile's keys.
  void copyQueries(Emitter &x, Value p0) const {
    const int64_t perRow = s.dk / 8;
    const int64_t block = warpgroupBufferBytes(64, s.dk) / 2;
    forEachLaneItem(x, tid, s.lanes, w.rows * perRow, [&](Value v) {
      Value r = x.div(v, x.idx(perRow)), cb = x.rem(v, x.idx(perRow));
      Row row = rowOf(x, w, x.add(p0, r));
      Value at = x.add(x.mul(x.div(r, x.idx(64)), x.idx(block)),
                       swizzledOffset(x, x.rem(r, x.idx(64)), cb, 64));
      e.target.asyncCopy(x.b, x.loc, qs, {at}, w.a.q,
                         {w.bi, row.head, row.qi, x.mul(cb, x.idx(8))}, 8);
    });
  }
  Value valueOperand(Emitter &x, int64_t kk) const {
    return e.target.warpgroupOperand(x.b, x.loc, w.vs, x.idx(2048 * kk),
                                     /*leadingBytes=*/keys * 128,
                                     /*strideBytes=*/1024);
  }
  /// Issues the score products of key buffer `stage` (null: the only one)
  /// from zero accumulators; the results may be read after a wait. Part
  /// p's accumulators are entries [p scoreKeys / 2, + scoreKeys / 2): the
  /// lane's entries of its keys, in order.
  SmallVector<Value> scores(Emitter &x, Value stage) const {
    SmallVector<Value> acc(keys / 2, x.f32(0));
    e.target.warpgroupFence(x.b, x.loc);
    for (int64_t m = 0; m < s.dk / 16; ++m)
      for (int64_t part = 0; part < scoreParts; ++part) {
        const int64_t first = part * scoreKeys / 2;
        ValueRange in = ValueRange(acc).slice(first, scoreKeys / 2);
        Value kOperand = keyOperand(x, m, part, stage);
        SmallVector<Value> d =
            qs ? e.target.warpgroupTileSharedA(
                     x.b, x.loc, s.storage, scoreKeys, /*transposeB=*/false,
                     queryOperand(x, m), kOperand, in)
               : e.target.warpgroupTile(x.b, x.loc, s.storage, scoreKeys,
                                        /*transposeB=*/false, qa[m],
                                        kOperand, in);
        std::copy(d.begin(), d.end(), acc.begin() + first);
      }
    return acc;
  }
  /// Issues o += P V from the weights' A words `pw`.
  SmallVector<Value> values(Emitter &x,
                            SmallVector<SmallVector<Value, 4>> &pw,
                            SmallVector<Value> o) const {
    e.target.warpgroupFence(x.b, x.loc);
    for (int64_t kk = 0; kk < keys / 16; ++kk)
      o = e.target.warpgroupTile(x.b, x.loc, s.storage, s.dv,
                                 /*transposeB=*/true, pw[kk],
                                 valueOperand(x, kk), o);
    return o;
  }
  /// Starts the copies of tile k0's keys into key buffer `stage`, or of
  /// its values, where k0 is a tile of the workgroup's range.
  void copyKeys(Emitter &x, Value k0, Value stage = Value()) const {
    x.when(x.cmpi(arith::CmpIPredicate::ult, k0, w.kEnd), [&] {
      startWarpgroupTile(x, w, tid, k0, true, keyStageBytes / 2, stage);
    });
  }
  void copyValues(Emitter &x, Value k0) const {
    x.when(x.cmpi(arith::CmpIPredicate::ult, k0, w.kEnd),
           [&] { startWarpgroupTile(x, w, tid, k0, false); });
  }
  /// Waits until at most `pending` copy groups are in flight, and makes
  /// the landed ones visible to the products of every subgroup.
  /// (The wait counts groups; the group it names is only the op's token:
  /// the last one closed, in the same block as the wait or one around it.)
  void landed(Emitter &x, int64_t pending) const {
    e.target.asyncWait(x.b, x.loc, lastGroup, pending);
    e.target.warpgroupOperandFence(x.b, x.loc);
    x.b.create<gpu::BarrierOp>(x.loc);
  }
  /// Closes the copies started since the last group into a group.
  /// Tile k0's softmax on its scores `acc` (st carries m, l and the
  /// accumulators), then, once one copy group at most is in flight (the
  /// tile's values landed), its value products, waited for.
  void softmaxAndValues(Emitter &x, const Row (&rows)[2], Value t, Value k0,
                        ArrayRef<Value> acc, SmallVector<Value> &st) const {
    countTile(x, w, tid);
    SmallVector<SmallVector<Value, 4>> sc(keys / 8);
    for (int64_t blk = 0; blk < keys / 8; ++blk)
      sc[blk].assign(acc.begin() + 4 * blk, acc.begin() + 4 * blk + 4);
    scoresToLog2(x, w, rows, k0, t, sc);
    softmaxTile(x, s, st, sc, /*branchless=*/true);
    SmallVector<SmallVector<Value, 4>> pw = weightWords(x, s.storage, sc);
    landed(x, 1);
    SmallVector<Value> o =
        values(x, pw, SmallVector<Value>(st.begin() + 4, st.end()));
    e.target.warpgroupCommitAndWait(x.b, x.loc, 0);
    std::copy(o.begin(), o.end(), st.begin() + 4);
  }
  void closeCopies(Emitter &x) const {
    lastGroup = e.target.asyncGroup(x.b, x.loc, {});
  }
  mutable Value lastGroup;
  Value p0; ///< the workgroup's first packed row
};

/// One key buffer and one value buffer: the next tile's keys are copied
/// while this tile's softmax and value products run, its values while the
/// next tile's scores do; each product is waited for as it is issued.
SmallVector<Value> warpgroupLoop(Emitter &e, const WarpgroupParts &parts,
                                 const Row (&rows)[2], Value t,
                                 SmallVector<Value> init) {
  const Tile &w = parts.w;
  const Spec &s = parts.s;
  const int64_t keys = parts.keys;
  const TargetHooks &target = e.target;
  // The first tile's keys (and q, where it is staged) as a group; its
  // values are closed into a group at the top of the loop, as every later
  // tile's are.
  if (parts.qs)
    parts.copyQueries(e, parts.p0);
  parts.copyKeys(e, w.kBegin);
  parts.closeCopies(e);
  parts.copyValues(e, w.kBegin);
  auto loop = e.b.create<scf::ForOp>(
      e.loc, w.kBegin, w.kEnd, e.idx(keys), init,
      [&](OpBuilder &nb, Location l, Value k0, ValueRange carried) {
        Emitter x(nb, l, target);
        SmallVector<Value> st(carried.begin(), carried.end());
        Value next = x.add(k0, x.idx(keys));
        // In flight: this tile's keys, then its values. Wait for the keys.
        parts.closeCopies(x);
        parts.landed(x, 1);
        SmallVector<Value> acc = parts.scores(x, Value());
        target.warpgroupCommitAndWait(nb, l, 0);
        // Every subgroup has read the keys: the next tile's may land.
        nb.create<gpu::BarrierOp>(l);
        parts.copyKeys(x, next);
        parts.closeCopies(x);
        // This tile's values (the next tile's keys may stay in flight).
        parts.softmaxAndValues(x, rows, t, k0, acc, st);
        // Every subgroup has read the values: the next tile's may land.
        nb.create<gpu::BarrierOp>(l);
        parts.copyValues(x, next);
        nb.create<scf::YieldOp>(l, st);
      });
  return SmallVector<Value>(loop.getResults());
}

/// Two key buffers (tile i's in buffer i % 2) and one value buffer, the
/// score products of tile j + 1 issued before tile j's softmax, so the
/// tensor cores compute them while the lanes compute the softmax. At the
/// top of iteration j the copy groups in flight are at most: tile j + 1's
/// keys, tile j's values, tile j + 2's keys; each iteration closes tile
/// j + 1's values and tile j + 3's keys (into the buffer tile j + 1's
/// scores have just left). The scores of tile j come into the iteration
/// from the one before (or from before the loop, for the first).
SmallVector<Value> pipelinedWarpgroupLoop(Emitter &e,
                                          const WarpgroupParts &parts,
                                          const Row (&rows)[2], Value t,
                                          SmallVector<Value> init) {
  const Tile &w = parts.w;
  const Spec &s = parts.s;
  const int64_t keys = parts.keys;
  const TargetHooks &target = e.target;
  auto tileAt = [&](Emitter &x, int64_t i) {
    return x.add(w.kBegin, x.idx(i * keys));
  };
  // Before the loop: the first two tiles' keys and the first tile's
  // values, the first tile's scores, then the third tile's keys into the
  // first buffer, which the scores have left.
  parts.copyKeys(e, tileAt(e, 0), e.idx(0));
  parts.closeCopies(e);
  parts.copyKeys(e, tileAt(e, 1), e.idx(1));
  parts.closeCopies(e);
  parts.copyValues(e, tileAt(e, 0));
  parts.closeCopies(e);
  parts.landed(e, 2);
  SmallVector<Value> first = parts.scores(e, e.idx(0));
  target.warpgroupCommitAndWait(e.b, e.loc, 0);
  e.b.create<gpu::BarrierOp>(e.loc);
  parts.copyKeys(e, tileAt(e, 2), e.idx(0));
  parts.closeCopies(e);
  const int64_t numState = static_cast<int64_t>(init.size());
  init.append(first.begin(), first.end());
  auto loop = e.b.create<scf::ForOp>(
      e.loc, w.kBegin, w.kEnd, e.idx(keys), init,
      [&](OpBuilder &nb, Location l, Value k0, ValueRange carried) {
        Emitter x(nb, l, target);
        SmallVector<Value> st(carried.begin(), carried.begin() + numState);
        SmallVector<Value> acc(carried.begin() + numState, carried.end());
        Value j = x.div(x.sub(k0, w.kBegin), x.idx(keys));
        Value next = x.add(k0, x.idx(keys));
        Value nextStage = x.rem(x.add(j, x.idx(1)), x.idx(2));
        // Tile j + 1's keys, then its scores, in flight while this tile's
        // softmax runs. Past the last tile they are issued all the same
        // (on whatever the buffer holds; nothing writes it then) and never
        // read: a branch around them would have the assembler serialise
        // the products.
        parts.landed(x, 2);
        SmallVector<Value> ahead = parts.scores(x, nextStage);
        target.warpgroupCommit(nb, l);
        // This tile's values (tile j + 2's keys may stay in flight).
        parts.softmaxAndValues(x, rows, t, k0, acc, st);
        // Every subgroup is done with this tile's values and tile j + 1's
        // keys: tile j + 1's values and tile j + 3's keys may land.
        nb.create<gpu::BarrierOp>(l);
        parts.copyValues(x, next);
        parts.closeCopies(x);
        parts.copyKeys(x, x.add(next, x.idx(2 * keys)), nextStage);
        parts.closeCopies(x);
        SmallVector<Value> yield = st;
        yield.append(ahead.begin(), ahead.end());
        nb.create<scf::YieldOp>(l, yield);
      });
  return SmallVector<Value>(loop.getResults().begin(),
                            loop.getResults().begin() + numState);
}

/// The tile schedule on the warpgroup tile (Target.h): the workgroup is
/// one warpgroup of 64 rows, whose 4 subgroups hold their 16 rows in the
/// matrix tile's layout, as in emitTileBody, but each product spans all
/// 64 rows: scores 64 x keys from q (A words in registers, natural channel
/// order) against the staged keys, dk / 16 products; weighted values 64 x
/// dv from the weights (A words, as emitTileBody makes them) against the
/// staged values read transposed, keys / 16 products. With one key buffer
/// (tile_stages 1) warpgroupLoop runs the tiles, with two
/// pipelinedWarpgroupLoop. The accumulators of both products are the
/// lane's entries in emitTileBody's order, so the softmax and the epilogue
/// are shared.
void emitWarpgroupBody(Emitter &e, const Spec &s, const Args &a,
                       gpu::GPUFuncOp fn, Value tid, Value id) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type et = s.storage;
  const int64_t keys = s.tileKeys, G = s.group;
  const int64_t stages = s.tileStages;
  const TargetHooks &target = e.target;
  Tile w{s, a, s.tileRows, keys, s.dk, s.dv, G * s.lq};
  // The swizzled layout repeats every 1024 bytes, from a 1024-byte
  // boundary (each buffer's size is a multiple of 1024). Past the target's
  // static limit the buffers are views, in the same order, of the
  // workgroup memory the launch gives (tileDynamicWorkgroupBytes).
  const int64_t keyStageBytes = warpgroupBufferBytes(keys, s.dk);
  const int64_t valueBytes = warpgroupBufferBytes(keys, s.dv);
  const bool dynamic = tileDynamicWorkgroupBytes(s, target) > 0;
  auto buffer = [&](int64_t offset, int64_t bytes) {
    return dynamic ? target.dynamicWorkgroup(b, loc, offset, {bytes / 2}, et)
                   : target.allocWorkgroup(b, loc, fn, {bytes / 2}, et,
                                           /*align=*/1024);
  };
  w.ks = buffer(0, stages * keyStageBytes);
  w.vs = buffer(stages * keyStageBytes, valueBytes);
  Value split;
  Value p0 = placeWorkgroup(e, w, id, split);

  Value lane = e.rem(tid, e.idx(32)), warp = e.div(tid, e.idx(32));
  Value g = e.div(lane, e.idx(4)), t = e.rem(lane, e.idx(4));
  Value pA = e.add(p0, e.add(e.mul(warp, e.idx(16)), g));
  Row rows[2] = {rowOf(e, w, pA), rowOf(e, w, e.add(pA, e.idx(8)))};

  WarpgroupParts parts{e, s, w, tid};
  parts.p0 = p0;
  parts.keys = keys;
  parts.scoreParts = s.dv == keys ? 2 : 1;
  parts.scoreKeys = keys / parts.scoreParts;
  parts.keyStageBytes = keyStageBytes;
  // q as A words in natural order: step m's words are rows g and g + 8 at
  // channels 16 m + 2 t (+1), then at 16 m + 8 + 2 t (+1).
  // With q staged, a lane holds the accumulators (dv / 2), the scores
  // (keys / 2) and little else: 128 registers, so four workgroups a
  // compute unit (65536 registers; 4 x 48 KiB of workgroup memory on
  // sm_90) instead of the three q's registers allowed. Asked for only
  // where the score transform is the scale alone and both tiles copy in
  // rounds, without split-KV partials: ptxas then fits 128 without spills
  // (130 unconstrained at dk = dv = 128), where a softcap, ALiBi, the
  // per-copy addresses of width 96 or the partials' epilogue spilled 8 to
  // 216 bytes.
  if (s.tileSharedQuery) {
    parts.qs = buffer(stages * keyStageBytes + valueBytes,
                      w.rows / 64 * warpgroupBufferBytes(64, s.dk));
    parts.qBlock = e.mul(e.div(warp, e.idx(4)),
                         e.idx(warpgroupBufferBytes(64, s.dk)));
    auto rounds = [&](int64_t width) {
      return s.lanes % (width / 8) == 0 &&
             (s.lanes / (width / 8)) % 8 == 0;
    };
    const bool plain = !s.softcap && !s.hasMask && s.slopes.empty();
    if (plain && rounds(s.dk) && rounds(s.dv) && !s.paged &&
        !s.sharedWidth && !s.split)
      target.setWorkgroupsPerUnit(fn, 512 / s.lanes);
  }
  else
    parts.qa.resize(s.dk / 16);
  for (int64_t m = 0; m < static_cast<int64_t>(parts.qa.size()); ++m)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t r = 0; r < 2; ++r) {
        Value c = e.add(e.mul(t, e.idx(2)), e.idx(16 * m + 8 * half));
        Value v = loadVec(e, et, a.q, {w.bi, rows[r].head, rows[r].qi, c}, 2);
        parts.qa[m].push_back(wordsOf(e, v)[0]);
      }

  SmallVector<Value> init = initialState(e, s);
  SmallVector<Value> st;
  if (stages == 1) {
    st = warpgroupLoop(e, parts, rows, t, init);
  } else {
    // A workgroup with no keys to see (a causal or window range that
    // leaves it none) skips the loop's prologue too.
    Value any = e.cmpi(arith::CmpIPredicate::ult, w.kBegin, w.kEnd);
    SmallVector<Type> types(init.size(), b.getF32Type());
    auto ifOp = b.create<scf::IfOp>(loc, types, any, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> out = pipelinedWarpgroupLoop(e, parts, rows, t, init);
      b.create<scf::YieldOp>(loc, out);
      b.setInsertionPointToStart(ifOp.elseBlock());
      b.create<scf::YieldOp>(loc, init);
    }
    st.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  }
  finishRows(e, w, rows, split, t, st);
}

} // namespace

int64_t tileDynamicWorkgroupBytes(const Spec &s, const TargetHooks &target) {
  if (!s.tileWarpgroup)
    return 0;
  int64_t bytes =
      s.tileStages * warpgroupBufferBytes(s.tileKeys, s.dk) +
      warpgroupBufferBytes(s.tileKeys, s.dv) +
      (s.tileSharedQuery ? s.tileRows / 64 * warpgroupBufferBytes(64, s.dk)
                         : 0);
  return bytes > target.staticWorkgroupLimit() ? bytes : 0;
}

int64_t tileWorkgroups(const Spec &s) {
  int64_t blocks = (s.group * s.lq + s.tileRows - 1) / s.tileRows;
  return s.b * (s.hq / s.group) * blocks * s.splits;
}

/// The tile schedule (see Planner.h). With lane = 4 g + t of subgroup w,
/// the lane holds tile rows g and g + 8 of the subgroup's 16 rows:
///  - q as A words, loaded once: channel order 32 m + 8 t + 4 h + {0..3}
///    for step 2 m + h of 16 channels, so each lane reads 8 neighbouring
///    channels of a row with one load; the key rows use the same order.
///  - scores S (16 rows x 8 keys) per block of 8 keys, dk / 16 products
///    each; B words from the staged key rows.
///  - the score transform and online softmax on the lane's S entries, the
///    row max and sum across the quad; the weights are rounded to the
///    storage type and become the A words of P (no data moves: a score's
///    tile position is its weight's).
///  - o (16 rows x dv) += P V, one product per 8 value channels and 16
///    keys, B words read transposed from the value rows (Target.h's
///    loadTilesTransposed), 4 words (two steps of 16 keys) a read.
/// Keys sit in the tile's natural order: column n of score block nb is key
/// 8 nb + n, as the weighted values' tiles read them.
/// Keys past the workgroup's range score -inf; a row with no visible key
/// ends as 0/0, as the contract says.
void emitTileBody(Emitter &e, const Spec &s, const Args &a,
                  gpu::GPUFuncOp fn, Value tid, Value id) {
  if (s.tileWarpgroup)
    return emitWarpgroupBody(e, s, a, fn, tid, id);
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type et = s.storage;
  const int64_t R = s.tileRows, keys = s.tileKeys, G = s.group;
  const int64_t kSteps = s.dk / 32, blocks = keys / 8, vBlocks = s.dv / 8;
  const int64_t stages = s.tileStages;
  Tile w{s, a, R, keys, s.dk + tileKeyPad(s.dk), s.dv + tileValuePad(s.dv),
         G * s.lq};
  w.ks = e.target.allocWorkgroup(b, loc, fn, {stages * keys * w.strideK}, et);
  w.vs = e.target.allocWorkgroup(b, loc, fn, {stages * keys * w.strideV}, et);

  Value split;
  Value p0 = placeWorkgroup(e, w, id, split);

  Value lane = e.rem(tid, e.idx(32)), warp = e.div(tid, e.idx(32));
  Value g = e.div(lane, e.idx(4)), t = e.rem(lane, e.idx(4));
  Value pA = e.add(p0, e.add(e.mul(warp, e.idx(16)), g));
  Row rows[2] = {rowOf(e, w, pA), rowOf(e, w, e.add(pA, e.idx(8)))};
  Value t8 = e.mul(t, e.idx(8));

  // q as A words: qw[r][m] holds 4 words of row r's channels 32 m + 8 t.
  SmallVector<Value> qw[2];
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t m = 0; m < kSteps; ++m) {
      Value c = e.add(t8, e.idx(32 * m));
      Value v = loadVec(e, et, a.q, {w.bi, rows[r].head, rows[r].qi, c}, 8);
      llvm::append_range(qw[r], wordsOf(e, v));
    }

  // Carried: m and l of rows g, g + 8, then o by value block (4 each).
  SmallVector<Value> init = initialState(e, s);
  // The first tile's copies; the stage a tile lands in is carried.
  e.when(e.cmpi(arith::CmpIPredicate::ult, w.kBegin, w.kEnd),
         [&] { startTile(e, w, tid, w.kBegin, e.idx(0)); });
  e.target.asyncGroup(b, loc, {});
  init.push_back(e.idx(0));
  auto loop = b.create<scf::ForOp>(
      loc, w.kBegin, w.kEnd, e.idx(keys), init,
      [&](OpBuilder &nb, Location l, Value k0, ValueRange carried) {
        Emitter x(nb, l, e.target);
        SmallVector<Value> st(carried.begin(), carried.end());
        Value stage = st.pop_back_val();
        Value next = x.add(k0, x.idx(keys));
        Value more = x.cmpi(arith::CmpIPredicate::ult, next, w.kEnd);
        Value other = stages == 2 ? x.sub(x.idx(1), stage) : stage;
        // Two stages: the next tile's copies start now, then this one's
        // are waited for (one group may stay in flight); one stage: they
        // started after the last tile's products.
        if (stages == 2)
          x.when(more, [&] { startTile(x, w, tid, next, other); });
        Value group = x.target.asyncGroup(nb, l, {});
        x.target.asyncWait(nb, l, group, stages == 2 ? 1 : 0);
        nb.create<gpu::BarrierOp>(l);
        Value kBase = x.mul(stage, x.idx(keys * w.strideK));
        Value vBase = x.mul(stage, x.idx(keys * w.strideV));
        // Scores: block nb of 8 keys, column g's key row 8 nb + g.
        SmallVector<SmallVector<Value, 4>> sc(blocks);
        for (int64_t blk = 0; blk < blocks; ++blk) {
          Value krow = x.add(x.idx(8 * blk), g);
          // Two accumulators (even and odd steps of 16 channels), so twice
          // as many independent products are in flight.
          SmallVector<Value, 4> acc[2] = {SmallVector<Value, 4>(4, x.f32(0)),
                                          SmallVector<Value, 4>(4, x.f32(0))};
          for (int64_t m = 0; m < kSteps; ++m) {
            Value at = x.add(kBase, x.add(x.mul(krow, x.idx(w.strideK)),
                                          x.add(t8, x.idx(32 * m))));
            SmallVector<Value> kw = wordsOf(x, loadVec(x, et, w.ks, {at}, 8));
            for (int64_t h = 0; h < 2; ++h) {
              SmallVector<Value> aw{qw[0][4 * m + 2 * h], qw[1][4 * m + 2 * h],
                                    qw[0][4 * m + 2 * h + 1],
                                    qw[1][4 * m + 2 * h + 1]};
              acc[h] = x.target.matrixTile(
                  nb, l, et, aw, ValueRange{kw[2 * h], kw[2 * h + 1]}, acc[h]);
            }
          }
          for (int64_t i = 0; i < 4; ++i)
            sc[blk].push_back(x.add(acc[0][i], acc[1][i]));
        }
        countTile(x, w, tid);
        scoresToLog2(x, w, rows, k0, t, sc);
        softmaxTile(x, s, st, sc);
        SmallVector<SmallVector<Value, 4>> pw = weightWords(x, et, sc);
        // Value tiles: lane l names row 32 m + l of the stage (key rows
        // 32 m .. 32 m + 31 as four 8x8 tiles), channels 8 i .. 8 i + 7.
        for (int64_t i = 0; i < vBlocks; ++i) {
          SmallVector<Value> o(st.begin() + 4 + 4 * i,
                               st.begin() + 8 + 4 * i);
          for (int64_t m = 0; m < keys / 32; ++m) {
            Value at = x.add(
                vBase, x.add(x.mul(x.add(lane, x.idx(32 * m)),
                                   x.idx(w.strideV)),
                             x.idx(8 * i)));
            SmallVector<Value, 4> vw =
                x.target.loadTilesTransposed(nb, l, w.vs, {at});
            for (int64_t h = 0; h < 2; ++h) {
              auto d = x.target.matrixTile(nb, l, et, pw[2 * m + h],
                                           ValueRange{vw[2 * h],
                                                      vw[2 * h + 1]},
                                           o);
              o.assign(d.begin(), d.end());
            }
          }
          for (int64_t k = 0; k < 4; ++k)
            st[4 + 4 * i + k] = o[k];
        }
        // Every subgroup is done with this stage before copies overwrite
        // it.
        nb.create<gpu::BarrierOp>(l);
        if (stages == 1)
          x.when(more, [&] { startTile(x, w, tid, next, stage); });
        st.push_back(other);
        nb.create<scf::YieldOp>(l, st);
      });

  SmallVector<Value> st(loop.getResults().begin(), loop.getResults().end());
  st.pop_back();
  finishRows(e, w, rows, split, t, st);
}

} // namespace poot::codegen::attention
