//===- SparseKernels.cpp - poot.block_topk and poot.selected_attention ----===//
//
// Simple kernels of the block-selected sparse form, with the oracle's
// semantics (lib/Runtime/SparseOps.cpp):
//
// - block_topk: one thread per (batch row, query row, block). A block's
//   score is the max of its keys' scores with the future keys at -inf (NaN
//   wins, as reduce_max has it); the thread ranks its block against every
//   other block of the row by topk's order (descending, NaN above every
//   number, ties to the lower id) and, when the rank is below k, writes
//   its id there. The ranks are a permutation, so every slot is written
//   once, exactly as the oracle's stable sort orders them.
// - selected_attention: one thread per output element (batch row, head,
//   query row, channel). It walks the blocks in increasing order, visits
//   the keys of the selected blocks and of the row's own block up to its
//   position (at most (K + 1) ratio keys), and forms the max-subtracted
//   softmax in two passes: the max, then the weights and the channel's
//   sum. Scores follow the contract (scale, softcap), every sum in f32; a
//   row with no visible key is 0/0. A paged read word outside the pool is
//   an error, reported through the error word.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace poot;
using namespace poot::codegen;
using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// The query position of row `i` of batch row `bi`: pos (scalar or per
/// batch row) + i, or i without pos.
Value queryPosition(KernelBuilder &k, Value pos, bool perRow, Value bi,
                    Value i) {
  if (!pos)
    return i;
  Value p = k.loadIndex(pos, perRow ? bi : k.idx(0));
  return k.add(p, i);
}

Value orI(KernelBuilder &k, Value x, Value y) {
  return k.b.create<arith::OrIOp>(k.loc, x, y);
}
Value andI(KernelBuilder &k, Value x, Value y) {
  return k.b.create<arith::AndIOp>(k.loc, x, y);
}
Value notI(KernelBuilder &k, Value x) {
  return k.b.create<arith::XOrIOp>(k.loc, x, k.i1(true));
}

} // namespace

FailureOr<std::vector<Launch>>
poot::codegen::buildBlockTopKKernel(Operation *operation,
                                    gpu::GPUModuleOp module,
                                    const TargetHooks &target,
                                    StringRef name) {
  auto op = cast<BlockTopKOp>(operation);
  auto st = cast<RankedTensorType>(op.getScores().getType());
  Type et = st.getElementType();
  int64_t b = st.getDimSize(0), lq = st.getDimSize(1), lk = st.getDimSize(2);
  int64_t ratio = op.getRatio(), kk = op.getK();
  int64_t numBlocks = lk / ratio;
  bool hasPos = op.getPos() != nullptr;
  bool perRow = hasPos &&
                cast<RankedTensorType>(op.getPos().getType()).getRank() == 1;

  SmallVector<Type> types(op->getOperandTypes());
  types.push_back(op.getType());
  KernelBuilder k(module, op.getLoc(), target, name, types);
  OpBuilder &bld = k.b;
  Location loc = op.getLoc();
  Value scores = k.arg(0), pos = hasPos ? k.arg(1) : Value();
  Value out = k.arg(op->getNumOperands());
  int64_t total = b * lq * numBlocks;
  k.forEach(total, [&](Value flat) {
    Value j = k.rem(flat, numBlocks);
    Value row = k.div(flat, numBlocks); // bi * lq + i
    Value bi = k.div(row, lq), i = k.rem(row, lq);
    Value qpos = queryPosition(k, pos, perRow, bi, i);
    Value rowBase = k.mul(row, k.idx(lk));
    // The block's score: max over its keys, future keys -inf, NaN wins.
    auto blockScore = [&](Value block) {
      Value first = k.mul(block, k.idx(ratio));
      auto m = k.loopCarry(
          k.idx(0), k.idx(ratio), k.idx(1), ValueRange{k.f32(-kInf)},
          [&](Value r, ValueRange acc) -> SmallVector<Value> {
            Value t = k.add(first, r);
            Value s = k.load(scores, k.add(rowBase, t), et);
            s = k.select(k.cmp(Pred::sgt, t, qpos), k.f32(-kInf), s);
            return {bld.create<arith::MaximumFOp>(loc, acc[0], s)};
          });
      return m[0];
    };
    Value v = blockScore(j);
    Value vNan = bld.create<arith::CmpFOp>(loc, FPred::UNO, v, v);
    auto rank = k.loopCarry(
        k.idx(0), k.idx(numBlocks), k.idx(1), ValueRange{k.idx(0)},
        [&](Value q, ValueRange acc) -> SmallVector<Value> {
          Value u = blockScore(q);
          Value lower = k.cmp(Pred::ult, q, j);
          Value uNan = bld.create<arith::CmpFOp>(loc, FPred::UNO, u, u);
          Value above = bld.create<arith::CmpFOp>(loc, FPred::OGT, u, v);
          Value same = bld.create<arith::CmpFOp>(loc, FPred::OEQ, u, v);
          Value numeric = orI(k, above, andI(k, same, lower));
          Value before = k.select(uNan, orI(k, notI(k, vNan), lower),
                                  andI(k, notI(k, vNan), numeric));
          return {k.select(before, k.add(acc[0], k.idx(1)), acc[0])};
        });
    k.when(k.cmp(Pred::ult, rank[0], k.idx(kk)), [&] {
      Value at = k.add(k.mul(row, k.idx(kk)), rank[0]);
      Value id = bld.create<arith::IndexCastOp>(loc, bld.getI32Type(), j);
      k.store(id, out, at, bld.getI32Type());
    });
  });
  return std::vector<Launch>{k.finish(total, operandRoles(op))};
}

FailureOr<std::vector<Launch>>
poot::codegen::buildSelectedAttentionKernel(Operation *operation,
                                            gpu::GPUModuleOp module,
                                            const TargetHooks &target,
                                            StringRef name) {
  auto op = cast<SelectedAttentionOp>(operation);
  auto qt = cast<RankedTensorType>(op.getQ().getType());
  auto bt = cast<RankedTensorType>(op.getBlocks().getType());
  Type et = qt.getElementType();
  int64_t b = qt.getDimSize(0), hq = qt.getDimSize(1), lq = qt.getDimSize(2),
          dk = qt.getDimSize(3);
  int64_t dv = op.getType().getDimSize(3);
  int64_t nRep = op.getNRep(), hkv = hq / nRep, ratio = op.getRatio();
  int64_t lk = op.getKeyLength(), numBlocks = lk / ratio;
  int64_t selected = bt.getDimSize(2);
  bool paged = op.isPaged();
  int64_t pool = paged ? cast<RankedTensorType>(op.getK().getType()).getDimSize(0)
                       : 0;
  bool hasPos = op.getPos() != nullptr;
  bool perRow = hasPos &&
                cast<RankedTensorType>(op.getPos().getType()).getRank() == 1;
  float scale = static_cast<float>(op.getScale().convertToDouble());
  std::optional<double> softcap;
  if (auto cap = op.getSoftcap())
    softcap = cap->convertToDouble();

  SmallVector<Type> types(op->getOperandTypes());
  types.push_back(op.getType());
  KernelBuilder k(module, op.getLoc(), target, name, types, /*errWord=*/paged);
  OpBuilder &bld = k.b;
  Location loc = op.getLoc();
  unsigned next = 4;
  Value q = k.arg(0), kBuf = k.arg(1), vBuf = k.arg(2), blocks = k.arg(3);
  Value read = paged ? k.arg(next++) : Value();
  Value pos = hasPos ? k.arg(next++) : Value();
  Value out = k.arg(op->getNumOperands());

  int64_t outputs = b * hq * lq * dv;
  int64_t words = paged ? b * lk : 0;
  int64_t total = std::max(outputs, words);
  k.forEach(total, [&](Value flat) {
    if (paged) {
      // Every read word, visited or not, must name a pool slot (the chain
      // gathers the whole view).
      k.when(k.cmp(Pred::ult, flat, k.idx(words)), [&] {
        Value w = k.loadIndex(read, flat);
        Value inside = andI(k, k.cmp(Pred::sge, w, k.idx(0)),
                            k.cmp(Pred::slt, w, k.idx(pool)));
        k.flag(notI(k, inside), kErrIndexOutOfRange);
      });
    }
    k.when(k.cmp(Pred::ult, flat, k.idx(outputs)), [&] {
      Value c = k.rem(flat, dv);
      Value i = k.rem(k.div(flat, dv), lq);
      Value h = k.rem(k.div(flat, dv * lq), hq);
      Value bi = k.div(flat, dv * lq * hq);
      Value kv = k.div(h, nRep);
      Value qpos = queryPosition(k, pos, perRow, bi, i);
      // Keys [0, min(qpos + 1, Lk)); the own block is qpos / ratio.
      Value end = bld.create<arith::MinSIOp>(
          loc, bld.create<arith::MaxSIOp>(loc, k.add(qpos, k.idx(1)), k.idx(0)),
          k.idx(lk));
      Value safePos = bld.create<arith::MaxSIOp>(loc, qpos, k.idx(0));
      Value own = k.select(k.cmp(Pred::sge, qpos, k.idx(0)),
                           k.div(safePos, ratio), k.idx(-1));
      Value blockRow = k.mul(k.add(k.mul(bi, k.idx(lq)), i), k.idx(selected));
      Value qRow = k.mul(k.add(k.mul(k.add(k.mul(bi, k.idx(hq)), h), k.idx(lq)), i),
                         k.idx(dk));
      auto slotOf = [&](Value t) -> Value {
        if (!paged)
          return Value();
        Value w = k.loadIndex(read, k.add(k.mul(bi, k.idx(lk)), t));
        Value inside = andI(k, k.cmp(Pred::sge, w, k.idx(0)),
                            k.cmp(Pred::slt, w, k.idx(pool)));
        return k.select(inside, w, k.idx(0));
      };
      auto keyBase = [&](Value t, Value slot) {
        if (paged)
          return k.mul(k.add(k.mul(slot, k.idx(hkv)), kv), k.idx(dk));
        return k.mul(k.add(k.mul(k.add(k.mul(bi, k.idx(hkv)), kv), k.idx(lk)), t),
                     k.idx(dk));
      };
      auto valueAt = [&](Value t, Value slot) {
        Value base =
            paged ? k.mul(k.add(k.mul(slot, k.idx(hkv)), kv), k.idx(dv))
                  : k.mul(k.add(k.mul(k.add(k.mul(bi, k.idx(hkv)), kv),
                                      k.idx(lk)),
                                t),
                          k.idx(dv));
        return k.load(vBuf, k.add(base, c), et);
      };
      auto score = [&](Value t, Value slot) {
        Value kb = keyBase(t, slot);
        auto dot = k.loopCarry(
            k.idx(0), k.idx(dk), k.idx(1), ValueRange{k.f32(0)},
            [&](Value d, ValueRange acc) -> SmallVector<Value> {
              Value x = k.load(q, k.add(qRow, d), et);
              Value y = k.load(kBuf, k.add(kb, d), et);
              return {bld.create<arith::AddFOp>(
                  loc, acc[0], bld.create<arith::MulFOp>(loc, x, y))};
            });
        Value s = bld.create<arith::MulFOp>(loc, dot[0], k.f32(scale));
        if (softcap) {
          Value cap = k.f32(*softcap);
          s = bld.create<arith::MulFOp>(
              loc, cap,
              target.tanh(bld, loc, bld.create<arith::DivFOp>(loc, s, cap)));
        }
        return s;
      };
      // Whether block j is visible: the own block or one of the selected
      // (an id outside the blocks names nothing; repeats count once).
      auto visible = [&](Value j) {
        auto any = k.loopCarry(
            k.idx(0), k.idx(selected), k.idx(1), ValueRange{k.cmp(Pred::eq, j, own)},
            [&](Value s, ValueRange acc) -> SmallVector<Value> {
              Value id = k.loadIndex(blocks, k.add(blockRow, s));
              return {orI(k, acc[0], k.cmp(Pred::eq, id, j))};
            });
        return any[0];
      };
      // For each visible key in increasing order: body(t, slot, carried).
      auto overKeys = [&](ValueRange init,
                          function_ref<SmallVector<Value>(Value, Value, ValueRange)>
                              body) {
        return k.loopCarry(
            k.idx(0), k.idx(numBlocks), k.idx(1), init,
            [&](Value j, ValueRange acc) -> SmallVector<Value> {
              SmallVector<Type> resultTypes;
              for (Value a : acc)
                resultTypes.push_back(a.getType());
              auto ifOp = bld.create<scf::IfOp>(loc, resultTypes, visible(j),
                                                /*withElseRegion=*/true);
              {
                OpBuilder::InsertionGuard guard(bld);
                bld.setInsertionPointToStart(ifOp.thenBlock());
                Value first = k.mul(j, k.idx(ratio));
                Value stop = bld.create<arith::MinSIOp>(
                    loc, k.add(first, k.idx(ratio)), end);
                auto inner = k.loopCarry(
                    first, bld.create<arith::MaxSIOp>(loc, stop, first),
                    k.idx(1), acc,
                    [&](Value t, ValueRange a) -> SmallVector<Value> {
                      return body(t, slotOf(t), a);
                    });
                bld.create<scf::YieldOp>(loc, inner);
                bld.setInsertionPointToStart(ifOp.elseBlock());
                bld.create<scf::YieldOp>(loc, acc);
              }
              return SmallVector<Value>(ifOp.getResults());
            });
      };
      // Pass 1: the max score (NaN wins).
      auto m = overKeys(ValueRange{k.f32(-kInf)},
                        [&](Value t, Value slot, ValueRange acc) -> SmallVector<Value> {
                          return {bld.create<arith::MaximumFOp>(loc, acc[0],
                                                                score(t, slot))};
                        });
      // Pass 2: l = sum e^(s - m), o = sum e^(s - m) v[c].
      auto lo = overKeys(
          ValueRange{k.f32(0), k.f32(0)},
          [&](Value t, Value slot, ValueRange acc) -> SmallVector<Value> {
            Value w = target.exp(
                bld, loc, bld.create<arith::SubFOp>(loc, score(t, slot), m[0]));
            return {bld.create<arith::AddFOp>(loc, acc[0], w),
                    bld.create<arith::AddFOp>(
                        loc, acc[1],
                        bld.create<arith::MulFOp>(loc, w, valueAt(t, slot)))};
          });
      k.store(bld.create<arith::DivFOp>(loc, lo[1], lo[0]), out, flat, et);
    });
  });
  std::vector<std::string> roles = operandRoles(op);
  if (paged)
    roles.push_back("err");
  return std::vector<Launch>{k.finish(total, roles)};
}
