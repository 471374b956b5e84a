//===- SparseOps.cpp - Reference semantics of the sparse ops --------------===//
//
// poot.block_topk and poot.selected_attention evaluated the way
// PootSparseOps.td describes them, so the oracle runs a block-selected graph
// as readily as the mask chain it came from. The selection must agree with
// the chain bit for bit (a different tie break picks a different block and
// changes the answer by far more than any tolerance), so block_topk repeats
// reduce_max's NaN rule and topk's order exactly. The attention visits only
// the visible keys, in increasing key order.
//
// Numerics follow the evaluator's two modes, as FusedOps.cpp does for
// poot.attention: Native computes every step in f32 (f64 for f64 values),
// rounding each product, sum, exp and tanh to f32 and the result once to the
// storage dtype; Reference computes in double and rounds nothing.
//
//===----------------------------------------------------------------------===//

#include "Reference/SparseOps.h"
#include "Reference/EqnContext.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace poot::rt::detail {

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const int64_t kMinI64 = std::numeric_limits<int64_t>::min();
const int64_t kMaxI64 = std::numeric_limits<int64_t>::max();

using SparseContext = EqnContext;


/// The stored value of a finished element (see FusedOps.cpp).
double store(const Step &step, DType dtype, double v) {
  if (!step.f32 || dtype == DType::F32)
    return step(v);
  return roundTo(dtype, step(v));
}



std::string describe(const Tensor &t) { return t.type().toString(); }
std::string str(int64_t v) { return std::to_string(v); }

/// Reads the position operand: a scalar or one per batch row. Positions are
/// kept well inside int64 so pos + i cannot overflow.
Status readPositions(const SparseContext &ctx, const Tensor *pos, int64_t batch,
                     std::vector<int64_t> &out) {
  out.assign(1, 0);
  if (!pos)
    return Status::ok();
  bool perRow = pos->rank() == 1 && pos->shape()[0] == batch;
  if (!isIndexType(pos->dtype()) || (pos->rank() != 0 && !perRow))
    return ctx.invalid("pos must be an i32/i64 scalar (0-d) or [" + str(batch) +
                       "], got " + describe(*pos));
  out.clear();
  for (int64_t i = 0; i < pos->size(); ++i)
    out.push_back(clampToInt64(pos->at(i), kMinI64 / 4, kMaxI64 / 4));
  return Status::ok();
}

int64_t positionOf(const std::vector<int64_t> &pos, int64_t b, int64_t i) {
  return pos[pos.size() == 1 ? 0 : b] + i;
}

} // namespace

//===----------------------------------------------------------------------===//
// block_topk
//===----------------------------------------------------------------------===//

Status evalBlockTopK(const Eqn &eqn,
                     const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     NumericMode mode, std::vector<Tensor> &results) {
  SparseContext ctx{eqn, operands, resultTypes, mode};
  if (operands.size() != 1 && operands.size() != 2)
    return ctx.invalid("expects 1 or 2 operands (scores, [pos]), got " +
                       str(static_cast<int64_t>(operands.size())));
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       str(static_cast<int64_t>(resultTypes.size())));
  int64_t ratio = 0, k = 0;
  POOT_RETURN_IF_ERROR(ctx.requiredInt("ratio", ratio));
  POOT_RETURN_IF_ERROR(ctx.requiredInt("k", k));
  const Tensor &scores = *operands[0];
  if (!isFloat(scores.dtype()) || scores.rank() != 3)
    return ctx.invalid("scores must be a float [B, Lq, Lk], got " +
                       describe(scores));
  int64_t b = scores.shape()[0], lq = scores.shape()[1], lk = scores.shape()[2];
  if (ratio < 1 || lk % ratio != 0)
    return ctx.invalid("ratio must divide the " + str(lk) + " keys, got " +
                       str(ratio));
  int64_t numBlocks = lk / ratio;
  if (k < 1 || k > numBlocks)
    return ctx.invalid("k must be in [1, " + str(numBlocks) + "], got " +
                       str(k));
  std::vector<int64_t> pos;
  POOT_RETURN_IF_ERROR(
      readPositions(ctx, operands.size() == 2 ? operands[1] : nullptr, b, pos));
  TensorType want{DType::I32, {b, lq, k}};
  if (resultTypes[0] != want)
    return ctx.invalid("result must be " + want.toString() +
                       ", the record declares " + resultTypes[0].toString());

  Tensor out(want);
  std::vector<double> blockScore(numBlocks);
  std::vector<int64_t> order(numBlocks);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < lq; ++i) {
      int64_t qpos = positionOf(pos, bi, i);
      const double *row = scores.values().data() + (bi * lq + i) * lk;
      // The chain's select then reduce_max: a future key is -inf, and NaN
      // wins the max once it is seen.
      for (int64_t j = 0; j < numBlocks; ++j) {
        auto keyScore = [&](int64_t t) { return t > qpos ? -kInf : row[t]; };
        double m = keyScore(j * ratio);
        for (int64_t r = 1; r < ratio && !std::isnan(m); ++r) {
          double s = keyScore(j * ratio + r);
          if (std::isnan(s) || s > m)
            m = s;
        }
        blockScore[j] = m;
      }
      // topk's order: descending, NaN above every number, ties to the lower
      // id (a stable sort on "ranks strictly above").
      for (int64_t j = 0; j < numBlocks; ++j)
        order[j] = j;
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        double u = blockScore[p], v = blockScore[q];
        if (std::isnan(u))
          return !std::isnan(v);
        if (std::isnan(v))
          return false;
        return u > v;
      });
      for (int64_t j = 0; j < k; ++j)
        out.at((bi * lq + i) * k + j) = static_cast<double>(order[j]);
    }
  results.clear();
  results.push_back(std::move(out));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// selected_attention
//===----------------------------------------------------------------------===//

namespace {

/// The operand groups of poot.selected_attention in ODS order.
enum Group { kQ, kK, kV, kBlocks, kRead, kPos, kNumGroups };
const char *const kGroupNames[kNumGroups] = {"q",      "k",    "v",
                                             "blocks", "read", "pos"};

/// Assigns the operands to their groups from "operandSegmentSizes". Without
/// that attribute only the dense form without pos (4 operands) is
/// unambiguous.
Status assignGroups(const SparseContext &ctx,
                    const Tensor *(&groups)[kNumGroups]) {
  for (const Tensor *&g : groups)
    g = nullptr;
  const auto &operands = ctx.operands;
  Status status;
  const Attr *sizes = ctx.attr("operandSegmentSizes", Attr::Kind::Ints,
                               "an integer list", status);
  POOT_RETURN_IF_ERROR(status);
  std::vector<int64_t> counts;
  if (sizes)
    counts = sizes->ints;
  else if (operands.size() == 4)
    counts = {1, 1, 1, 1, 0, 0};
  else
    return ctx.invalid("missing attribute 'operandSegmentSizes' (needed to "
                       "tell which of " +
                       str(static_cast<int64_t>(operands.size())) +
                       " operands are present)");
  if (counts.size() != kNumGroups)
    return ctx.invalid("operandSegmentSizes must have 6 entries [q, k, v, "
                       "blocks, read, pos], got " +
                       str(static_cast<int64_t>(counts.size())));
  size_t total = 0;
  for (int g = 0; g < kNumGroups; ++g) {
    bool required = g < kRead;
    if (counts[g] != 1 && (required || counts[g] != 0))
      return ctx.invalid(std::string("operandSegmentSizes gives ") +
                         kGroupNames[g] + " " + str(counts[g]) +
                         " operand(s), expected " +
                         (required ? "1" : "0 or 1"));
    total += static_cast<size_t>(counts[g]);
  }
  if (total != operands.size())
    return ctx.invalid(
        "operandSegmentSizes accounts for " + str(static_cast<int64_t>(total)) +
        " operands, the eqn has " + str(static_cast<int64_t>(operands.size())));
  size_t next = 0;
  for (int g = 0; g < kNumGroups; ++g)
    if (counts[g] == 1)
      groups[g] = operands[next++];
  return Status::ok();
}

/// Everything the inner loops need, validated.
struct SelectedPlan {
  int64_t b = 0, hq = 0, lq = 0, dk = 0, hkv = 0, lk = 0, dv = 0;
  int64_t pool = 0; ///< pool slots S (paged)
  int64_t nRep = 1, ratio = 1, selected = 0;
  double scale = 1.0;
  bool hasSoftcap = false;
  double softcap = 0.0;
  std::vector<int64_t> pos{0};
};

Status readAttributes(const SparseContext &ctx, SelectedPlan &p) {
  Status status;
  const Attr *scale = ctx.attr("scale", Attr::Kind::Float, "a float", status);
  POOT_RETURN_IF_ERROR(status);
  if (!scale)
    return ctx.invalid("missing attribute 'scale'");
  p.scale = scale->f;
  POOT_RETURN_IF_ERROR(ctx.requiredInt("n_rep", p.nRep));
  POOT_RETURN_IF_ERROR(ctx.requiredInt("ratio", p.ratio));
  if (const Attr *a =
          ctx.attr("softcap", Attr::Kind::Float, "a float", status)) {
    p.hasSoftcap = true;
    p.softcap = a->f;
    if (!(p.softcap > 0.0))
      return ctx.invalid("softcap must be > 0, got " + std::to_string(a->f));
  }
  return status;
}

Status checkShapes(const SparseContext &ctx,
                   const Tensor *const (&g)[kNumGroups], SelectedPlan &p) {
  const Tensor &q = *g[kQ], &k = *g[kK], &v = *g[kV];
  DType dtype = q.dtype();
  if (!isFloat(dtype))
    return ctx.invalid("q must be a float tensor, got " + describe(q));
  if (q.rank() != 4)
    return ctx.invalid("q must be [B, Hq, Lq, Dk], got " + describe(q));
  p.b = q.shape()[0];
  p.hq = q.shape()[1];
  p.lq = q.shape()[2];
  p.dk = q.shape()[3];
  for (int i : {kK, kV})
    if (g[i]->dtype() != dtype)
      return ctx.invalid(std::string(kGroupNames[i]) + " must be " +
                         dtypeName(dtype) + " like q, got " + describe(*g[i]));
  if (p.nRep < 1 || p.hq % p.nRep != 0)
    return ctx.invalid("n_rep must divide the " + str(p.hq) +
                       " query heads, got " + str(p.nRep));
  p.hkv = p.hq / p.nRep;

  if (const Tensor *read = g[kRead]) {
    if (!isIndexType(read->dtype()) || read->rank() != 2 ||
        read->shape()[0] != p.b)
      return ctx.invalid("read must be an i32/i64 map [" + str(p.b) +
                         ", Lk], got " + describe(*read));
    p.lk = read->shape()[1];
    if (k.rank() != 3 || k.shape()[1] != p.hkv || k.shape()[2] != p.dk)
      return ctx.invalid("paged k must be a pool [S, " + str(p.hkv) + ", " +
                         str(p.dk) + "], got " + describe(k));
    p.pool = k.shape()[0];
    if (v.rank() != 3 || v.shape()[0] != p.pool || v.shape()[1] != p.hkv)
      return ctx.invalid("paged v must be a pool [" + str(p.pool) + ", " +
                         str(p.hkv) + ", Dv], got " + describe(v));
    p.dv = v.shape()[2];
    // Every word, visited or not: the chain gathers the whole view, so a
    // word outside the pool fails it whichever keys the mask keeps.
    for (int64_t i = 0; i < read->size(); ++i) {
      double w = read->at(i);
      if (!(w >= 0 && w < static_cast<double>(p.pool)))
        return ctx.error(ErrorCode::IndexOutOfRange,
                         "read word " + str(clampToInt64(w, kMinI64, kMaxI64)) +
                             " (row " + str(i / std::max<int64_t>(p.lk, 1)) +
                             ", key " + str(i % std::max<int64_t>(p.lk, 1)) +
                             ") outside the pool [0, " + str(p.pool) + ")");
    }
  } else {
    if (k.rank() != 4 || v.rank() != 4)
      return ctx.invalid("k and v must be rank 4, got " + describe(k) +
                         " and " + describe(v));
    p.lk = k.shape()[2];
    if (k.shape()[0] != p.b || k.shape()[1] != p.hkv || k.shape()[3] != p.dk)
      return ctx.invalid("k must be [" + str(p.b) + ", " + str(p.hkv) +
                         ", Lk, " + str(p.dk) + "], got " + describe(k));
    if (v.shape()[0] != p.b || v.shape()[1] != p.hkv || v.shape()[2] != p.lk)
      return ctx.invalid("v must be [" + str(p.b) + ", " + str(p.hkv) + ", " +
                         str(p.lk) + ", Dv], got " + describe(v));
    p.dv = v.shape()[3];
  }
  if (p.ratio < 1 || p.lk % p.ratio != 0)
    return ctx.invalid("ratio must divide the " + str(p.lk) + " keys, got " +
                       str(p.ratio));
  const Tensor &blocks = *g[kBlocks];
  if (!isIndexType(blocks.dtype()) || blocks.rank() != 3 ||
      blocks.shape()[0] != p.b || blocks.shape()[1] != p.lq ||
      blocks.shape()[2] < 1)
    return ctx.invalid("blocks must be an integer [" + str(p.b) + ", " +
                       str(p.lq) + ", K] with K >= 1, got " + describe(blocks));
  p.selected = blocks.shape()[2];
  POOT_RETURN_IF_ERROR(readPositions(ctx, g[kPos], p.b, p.pos));
  TensorType want{dtype, {p.b, p.hq, p.lq, p.dv}};
  if (ctx.resultTypes[0] != want)
    return ctx.invalid("result must be " + want.toString() +
                       ", the record declares " +
                       ctx.resultTypes[0].toString());
  return Status::ok();
}

/// The keys row (b, i) visits, in increasing order: the selected blocks and
/// the own block, each cut at the row's position.
void visibleKeys(const SelectedPlan &p, const Tensor &blocks, int64_t b,
                 int64_t i, std::vector<int64_t> &ids,
                 std::vector<int64_t> &keys) {
  keys.clear();
  int64_t qpos = positionOf(p.pos, b, i);
  if (qpos < 0)
    return; // every key is past the row
  int64_t numBlocks = p.lk / p.ratio;
  ids.clear();
  for (int64_t j = 0; j < p.selected; ++j) {
    double id = blocks.at((b * p.lq + i) * p.selected + j);
    // An id outside the blocks names no key, as `id == t / ratio` holds for
    // no t in the chain.
    if (id >= 0 && id < static_cast<double>(numBlocks))
      ids.push_back(static_cast<int64_t>(id));
  }
  if (qpos / p.ratio < numBlocks)
    ids.push_back(qpos / p.ratio);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (int64_t j : ids) {
    int64_t end = std::min((j + 1) * p.ratio, qpos + 1);
    for (int64_t t = j * p.ratio; t < end; ++t)
      keys.push_back(t);
  }
}

} // namespace

Status evalSelectedAttention(const Eqn &eqn,
                             const std::vector<const Tensor *> &operands,
                             const std::vector<TensorType> &resultTypes,
                             NumericMode mode, std::vector<Tensor> &results) {
  SparseContext ctx{eqn, operands, resultTypes, mode};
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       str(static_cast<int64_t>(resultTypes.size())));
  const Tensor *g[kNumGroups];
  POOT_RETURN_IF_ERROR(assignGroups(ctx, g));
  SelectedPlan p;
  POOT_RETURN_IF_ERROR(readAttributes(ctx, p));
  POOT_RETURN_IF_ERROR(checkShapes(ctx, g, p));

  const Tensor &q = *g[kQ], &k = *g[kK], &v = *g[kV], &blocks = *g[kBlocks];
  const Tensor *read = g[kRead];
  DType dtype = q.dtype();
  Step step{ctx.roundsToF32(dtype)};
  // Constants enter an f32 kernel as f32 values.
  double scale = step(p.scale);
  double softcap = step(p.softcap);

  Tensor out(resultTypes[0]);
  std::vector<int64_t> ids, keys;
  std::vector<double> scores;
  std::vector<double> acc(p.dv);
  auto keyRow = [&](int64_t b, int64_t kv, int64_t t) {
    if (read) {
      int64_t slot = static_cast<int64_t>(read->at(b * p.lk + t));
      return k.values().data() + (slot * p.hkv + kv) * p.dk;
    }
    return k.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.dk;
  };
  auto valueRow = [&](int64_t b, int64_t kv, int64_t t) {
    if (read) {
      int64_t slot = static_cast<int64_t>(read->at(b * p.lk + t));
      return v.values().data() + (slot * p.hkv + kv) * p.dv;
    }
    return v.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.dv;
  };

  for (int64_t b = 0; b < p.b; ++b)
    for (int64_t i = 0; i < p.lq; ++i) {
      // One selection serves every head of the row.
      visibleKeys(p, blocks, b, i, ids, keys);
      scores.resize(keys.size());
      for (int64_t h = 0; h < p.hq; ++h) {
        int64_t kv = h / p.nRep;
        const double *qRow =
            q.values().data() + ((b * p.hq + h) * p.lq + i) * p.dk;
        double *o = out.values().data() + ((b * p.hq + h) * p.lq + i) * p.dv;
        if (keys.empty()) {
          // No visible key: 0/0 for every channel, as the softmax gives.
          std::fill(o, o + p.dv, kNaN);
          continue;
        }
        double m = -kInf;
        for (size_t n = 0; n < keys.size(); ++n) {
          const double *kRow = keyRow(b, kv, keys[n]);
          double dot = 0.0;
          for (int64_t c = 0; c < p.dk; ++c)
            dot = step(dot + step(qRow[c] * kRow[c]));
          double s = step(dot * scale);
          if (p.hasSoftcap)
            s = step(softcap * step(std::tanh(step(s / softcap))));
          scores[n] = s;
          // NaN wins, as reduce_max has it.
          if (std::isnan(s) || std::isnan(m))
            m = kNaN;
          else if (s > m)
            m = s;
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        double l = 0.0;
        for (size_t n = 0; n < keys.size(); ++n) {
          const double *vRow = valueRow(b, kv, keys[n]);
          double w = step(std::exp(step(scores[n] - m)));
          l = step(l + w);
          for (int64_t c = 0; c < p.dv; ++c)
            acc[c] = step(acc[c] + step(w * vRow[c]));
        }
        for (int64_t c = 0; c < p.dv; ++c)
          o[c] = store(step, dtype, acc[c] / l);
      }
    }
  results.clear();
  results.push_back(std::move(out));
  return Status::ok();
}

} // namespace poot::rt::detail
