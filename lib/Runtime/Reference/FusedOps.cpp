//===- FusedOps.cpp - Reference semantics of the fused ops ----------------===//
//
// poot.rope and poot.attention evaluated directly, the way PootFusedOps.td
// describes them, so the oracle runs a fused graph as readily as the chain of
// primitives it came from.
//
// Numerics follow the evaluator's two modes. Native: every step is computed
// in f32 (f64 for f64 values), each product, sum, exp and tanh rounded to f32
// as an f32 kernel would, sums in index order, and the result rounded once to
// the storage dtype. Reference: everything in double, nothing rounded.
//
// Each step is formed in double and then rounded to f32 where the mode says
// so: for +, -, *, / of f32 values that is exactly the f32 operation (double
// has more than 2p + 2 bits), and it keeps the compiler from contracting a
// multiply and an add into one fused step.
//
//===----------------------------------------------------------------------===//

#include "Reference/FusedOps.h"
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

using FusedContext = EqnContext;


/// The stored value of a finished element: f32 math rounded once more to
/// the storage dtype in native mode, the exact double in reference mode.
double store(const Step &step, DType dtype, double v) {
  if (!step.f32 || dtype == DType::F32)
    return step(v);
  return roundTo(dtype, step(v));
}



/// True when `from` broadcasts to exactly `to` (numpy broadcast_to).
bool broadcastsTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != to[lead + d])
      return false;
  return true;
}

/// Row-major strides of `from` laid over `to`, 0 on broadcast dims.
Shape broadcastStrides(const Shape &from, const Shape &to) {
  Shape strides(to.size(), 0);
  int64_t stride = 1;
  size_t lead = to.size() - from.size();
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    strides[lead + d] = from[d] == 1 ? 0 : stride;
    stride *= from[d];
  }
  return strides;
}

std::string describe(const Tensor &t) { return t.type().toString(); }

} // namespace

//===----------------------------------------------------------------------===//
// rope
//===----------------------------------------------------------------------===//

Status evalRope(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                const std::vector<TensorType> &resultTypes, NumericMode mode,
                std::vector<Tensor> &results) {
  FusedContext ctx{eqn, operands, resultTypes, mode};
  if (operands.size() != 3)
    return ctx.invalid("expects 3 operands (x, cos, sin), got " +
                       std::to_string(operands.size()));
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       std::to_string(resultTypes.size()));
  const Tensor &x = *operands[0];
  const Tensor &cosT = *operands[1];
  const Tensor &sinT = *operands[2];

  Status status;
  const Attr *styleAttr =
      ctx.required("style", Attr::Kind::String, "a string", status);
  if (!styleAttr)
    return status;
  const Attr *dimAttr =
      ctx.required("rotary_dim", Attr::Kind::Int, "an integer", status);
  if (!dimAttr)
    return status;
  const std::string &style = styleAttr->s;
  bool half = style == "half";
  if (!half && style != "interleaved")
    return ctx.invalid("style must be \"half\" or \"interleaved\", got \"" +
                       style + "\"");

  DType dtype = x.dtype();
  if (!isFloat(dtype))
    return ctx.invalid("x must be a float tensor, got " + describe(x));
  if (x.rank() < 1)
    return ctx.invalid("x must have rank >= 1, got " + describe(x));
  int64_t d = x.shape().back();
  int64_t r = dimAttr->i;
  if (r < 2 || r > d || r % 2 != 0)
    return ctx.invalid("rotary_dim must be even and in [2, " +
                       std::to_string(d) + "], got " + std::to_string(r));
  Shape rotShape = x.shape();
  rotShape.back() = r;
  for (const Tensor *table : {&cosT, &sinT}) {
    const char *name = table == &cosT ? "cos" : "sin";
    if (table->dtype() != dtype)
      return ctx.invalid(std::string(name) + " must be " + dtypeName(dtype) +
                         " like x, got " + describe(*table));
    if (!broadcastsTo(table->shape(), rotShape))
      return ctx.invalid(std::string(name) + " " + describe(*table) +
                         " does not broadcast to the rotary part " +
                         shapeString(rotShape));
  }

  Step step{ctx.roundsToF32(dtype)};
  Tensor out(x.type());
  Shape cosStrides = broadcastStrides(cosT.shape(), rotShape);
  Shape sinStrides = broadcastStrides(sinT.shape(), rotShape);
  // Walk the rows of x (all dims but the last) with an odometer, tracking
  // where each row's cos/sin entries start.
  int64_t rows = d == 0 ? 0 : x.size() / d;
  int64_t outerRank = x.rank() - 1;
  Shape index(outerRank, 0);
  int64_t cosRow = 0, sinRow = 0;
  int64_t cosLast = cosStrides.back(), sinLast = sinStrides.back();
  for (int64_t row = 0; row < rows; ++row) {
    const double *xr = x.values().data() + row * d;
    double *o = out.values().data() + row * d;
    for (int64_t c = 0; c < r; ++c) {
      double rot;
      if (half)
        rot = c < r / 2 ? -xr[c + r / 2] : xr[c - r / 2];
      else
        rot = c % 2 == 0 ? -xr[c + 1] : xr[c - 1];
      double cv = cosT.at(cosRow + c * cosLast);
      double sv = sinT.at(sinRow + c * sinLast);
      o[c] = store(step, dtype, step(step(xr[c] * cv) + step(rot * sv)));
    }
    for (int64_t c = r; c < d; ++c)
      o[c] = xr[c];
    for (int64_t k = outerRank - 1; k >= 0; --k) {
      ++index[k];
      cosRow += cosStrides[k];
      sinRow += sinStrides[k];
      if (index[k] < x.shape()[k])
        break;
      cosRow -= cosStrides[k] * index[k];
      sinRow -= sinStrides[k] * index[k];
      index[k] = 0;
    }
  }
  results.clear();
  results.push_back(std::move(out));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

namespace {

/// The operand groups of poot.attention in ODS order.
enum Group { kQ, kK, kKShared, kV, kRead, kMask, kLen, kPos, kNumGroups };
const char *const kGroupNames[kNumGroups] = {"q",    "k",    "k_shared", "v",
                                             "read", "mask", "len",      "pos"};

/// Assigns the operands to their groups from "operandSegmentSizes". Without
/// that attribute only the all-dense form (q, k, v) is unambiguous.
Status assignGroups(const FusedContext &ctx,
                    const Tensor *(&groups)[kNumGroups]) {
  for (const Tensor *&g : groups)
    g = nullptr;
  const auto &operands = ctx.operands;
  Status status;
  const Attr *sizes = ctx.attr("operandSegmentSizes", Attr::Kind::Ints,
                               "an integer list", status);
  if (!status.isOk())
    return status;
  std::vector<int64_t> counts;
  if (sizes) {
    counts = sizes->ints;
  } else if (operands.size() == 3) {
    counts = {1, 1, 0, 1, 0, 0, 0, 0};
  } else {
    return ctx.invalid("missing attribute 'operandSegmentSizes' (needed to "
                       "tell which of " +
                       std::to_string(operands.size()) +
                       " operands are present)");
  }
  if (counts.size() != kNumGroups)
    return ctx.invalid("operandSegmentSizes must have 8 entries [q, k, "
                       "k_shared, v, read, mask, len, pos], got " +
                       std::to_string(counts.size()));
  size_t total = 0;
  for (int g = 0; g < kNumGroups; ++g) {
    bool required = g == kQ || g == kK || g == kV;
    if (counts[g] != 1 && (required || counts[g] != 0))
      return ctx.invalid(std::string("operandSegmentSizes gives ") +
                         kGroupNames[g] + " " + std::to_string(counts[g]) +
                         " operand(s), expected " +
                         (required ? "1" : "0 or 1"));
    total += static_cast<size_t>(counts[g]);
  }
  if (total != operands.size())
    return ctx.invalid("operandSegmentSizes accounts for " +
                       std::to_string(total) + " operands, the eqn has " +
                       std::to_string(operands.size()));
  size_t next = 0;
  for (int g = 0; g < kNumGroups; ++g)
    if (counts[g] == 1)
      groups[g] = operands[next++];
  return Status::ok();
}

/// Everything the inner loops need, validated.
struct AttentionPlan {
  int64_t b = 0, hq = 0, lq = 0, dk = 0, hkv = 0, lk = 0, dv = 0;
  int64_t kd = 0;     ///< channels of k itself (dk minus the shared part)
  int64_t shared = 0; ///< channels of k_shared
  int64_t pool = 0;   ///< pool slots S (paged)
  int64_t nRep = 1;
  double scale = 1.0;
  bool hasSoftcap = false;
  double softcap = 0.0;
  bool causal = false;
  /// A row with no visible key is 0 (zero_empty_rows), not 0/0.
  bool zeroEmptyRows = false;
  bool hasWindow = false;
  int64_t window = 0;
  std::vector<double> slopes; ///< empty when there is no ALiBi term
  /// Position of query row 0, per batch row (one entry when shared).
  std::vector<int64_t> pos{0};
};

Status readAttributes(const FusedContext &ctx, AttentionPlan &p) {
  Status status;
  if (const Attr *a =
          ctx.required("scale", Attr::Kind::Float, "a float", status))
    p.scale = a->f;
  else
    return status;
  if (const Attr *a =
          ctx.required("n_rep", Attr::Kind::Int, "an integer", status))
    p.nRep = a->i;
  else
    return status;
  if (const Attr *a =
          ctx.attr("softcap", Attr::Kind::Float, "a float", status)) {
    p.hasSoftcap = true;
    p.softcap = a->f;
    if (!(p.softcap > 0.0))
      return ctx.invalid("softcap must be > 0, got " + std::to_string(a->f));
  }
  POOT_RETURN_IF_ERROR(status);
  if (const Attr *a =
          ctx.attr("causal", Attr::Kind::Int, "a unit (integer) flag", status))
    p.causal = a->i != 0;
  POOT_RETURN_IF_ERROR(status);
  if (const Attr *a = ctx.attr("zero_empty_rows", Attr::Kind::Int,
                               "a unit (integer) flag", status))
    p.zeroEmptyRows = a->i != 0;
  POOT_RETURN_IF_ERROR(status);
  if (const Attr *a =
          ctx.attr("window", Attr::Kind::Int, "an integer", status)) {
    p.hasWindow = true;
    p.window = a->i;
    if (p.window < 1)
      return ctx.invalid("window must be >= 1, got " +
                         std::to_string(p.window));
  }
  POOT_RETURN_IF_ERROR(status);
  if (const Attr *a = ctx.attr("alibi_slopes", Attr::Kind::Floats,
                               "a float list", status)) {
    p.slopes = a->floats;
    if (p.slopes.empty())
      return ctx.invalid("alibi_slopes is empty");
  }
  return status;
}

Status checkShapes(const FusedContext &ctx,
                   const Tensor *const (&g)[kNumGroups], AttentionPlan &p) {
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
  for (int i : {kK, kKShared, kV, kMask})
    if (g[i] && g[i]->dtype() != dtype)
      return ctx.invalid(std::string(kGroupNames[i]) + " must be " +
                         dtypeName(dtype) + " like q, got " + describe(*g[i]));
  if (p.nRep < 1 || p.hq % p.nRep != 0)
    return ctx.invalid("n_rep must divide the " + std::to_string(p.hq) +
                       " query heads, got " + std::to_string(p.nRep));
  p.hkv = p.hq / p.nRep;

  if (const Tensor *read = g[kRead]) {
    if (g[kKShared])
      return ctx.invalid("a paged key (read map) cannot have k_shared");
    if (!isIndexType(read->dtype()) || read->rank() != 2 ||
        read->shape()[0] != p.b)
      return ctx.invalid("read must be an i32/i64 map [" + std::to_string(p.b) +
                         ", Lk], got " + describe(*read));
    p.lk = read->shape()[1];
    if (k.rank() != 3 || k.shape()[1] != p.hkv || k.shape()[2] != p.dk)
      return ctx.invalid("paged k must be a pool [S, " + std::to_string(p.hkv) +
                         ", " + std::to_string(p.dk) + "], got " + describe(k));
    p.pool = k.shape()[0];
    if (v.rank() != 3 || v.shape()[0] != p.pool || v.shape()[1] != p.hkv)
      return ctx.invalid("paged v must be a pool [" + std::to_string(p.pool) +
                         ", " + std::to_string(p.hkv) + ", Dv], got " +
                         describe(v));
    p.dv = v.shape()[2];
    p.kd = p.dk;
    for (int64_t i = 0; i < read->size(); ++i) {
      double w = read->at(i);
      if (!(w >= 0 && w < static_cast<double>(p.pool)))
        return ctx.error(
            ErrorCode::IndexOutOfRange,
            "read word " + std::to_string(clampToInt64(w, kMinI64, kMaxI64)) +
                " (row " + std::to_string(i / std::max<int64_t>(p.lk, 1)) +
                ", key " + std::to_string(i % std::max<int64_t>(p.lk, 1)) +
                ") outside the pool [0, " + std::to_string(p.pool) + ")");
    }
  } else {
    if (k.rank() != 4 || v.rank() != 4)
      return ctx.invalid("k and v must be rank 4, got " + describe(k) +
                         " and " + describe(v));
    p.lk = k.shape()[2];
    p.kd = p.dk;
    if (const Tensor *ks = g[kKShared]) {
      if (ks->rank() != 4 || ks->shape()[0] != p.b || ks->shape()[1] != 1 ||
          ks->shape()[2] != p.lk || ks->shape()[3] > p.dk)
        return ctx.invalid("k_shared must be [" + std::to_string(p.b) +
                           ", 1, " + std::to_string(p.lk) + ", s] with s <= " +
                           std::to_string(p.dk) + ", got " + describe(*ks));
      p.shared = ks->shape()[3];
      p.kd = p.dk - p.shared;
    }
    if (k.shape()[0] != p.b || k.shape()[1] != p.hkv || k.shape()[3] != p.kd)
      return ctx.invalid("k must be [" + std::to_string(p.b) + ", " +
                         std::to_string(p.hkv) + ", Lk, " +
                         std::to_string(p.kd) + "], got " + describe(k));
    if (v.shape()[0] != p.b || v.shape()[1] != p.hkv || v.shape()[2] != p.lk)
      return ctx.invalid("v must be [" + std::to_string(p.b) + ", " +
                         std::to_string(p.hkv) + ", " + std::to_string(p.lk) +
                         ", Dv], got " + describe(v));
    p.dv = v.shape()[3];
  }

  if (const Tensor *mask = g[kMask]) {
    const Shape &m = mask->shape();
    bool ok = mask->rank() == 4 && (m[0] == p.b || m[0] == 1) &&
              (m[1] == p.hq || m[1] == 1) && m[2] == p.lq && m[3] == p.lk;
    if (!ok)
      return ctx.invalid("mask must be [" + std::to_string(p.b) + "|1, " +
                         std::to_string(p.hq) + "|1, " + std::to_string(p.lq) +
                         ", " + std::to_string(p.lk) + "], got " +
                         describe(*mask));
  }
  if (const Tensor *len = g[kLen])
    if (!isIndexType(len->dtype()) || len->rank() != 1 ||
        len->shape()[0] != p.b)
      return ctx.invalid("len must be an i32/i64 [" + std::to_string(p.b) +
                         "], got " + describe(*len));
  if (const Tensor *pos = g[kPos]) {
    bool perRow = pos->rank() == 1 && pos->shape()[0] == p.b;
    if (!isIndexType(pos->dtype()) || (pos->rank() != 0 && !perRow))
      return ctx.invalid("pos must be an i32/i64 scalar (0-d) or [" +
                         std::to_string(p.b) + "], got " + describe(*pos));
    p.pos.clear();
    for (int64_t i = 0; i < pos->size(); ++i)
      p.pos.push_back(clampToInt64(pos->at(i), kMinI64 / 4, kMaxI64 / 4));
  }
  if (!p.slopes.empty() && static_cast<int64_t>(p.slopes.size()) != p.hq)
    return ctx.invalid("alibi_slopes must have " + std::to_string(p.hq) +
                       " entries (one per query head), got " +
                       std::to_string(p.slopes.size()));
  TensorType want{dtype, {p.b, p.hq, p.lq, p.dv}};
  if (ctx.resultTypes[0] != want)
    return ctx.invalid("result must be " + want.toString() +
                       ", the record declares " +
                       ctx.resultTypes[0].toString());
  return Status::ok();
}

} // namespace

Status evalAttention(const Eqn &eqn,
                     const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     NumericMode mode, std::vector<Tensor> &results) {
  FusedContext ctx{eqn, operands, resultTypes, mode};
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       std::to_string(resultTypes.size()));
  const Tensor *g[kNumGroups];
  POOT_RETURN_IF_ERROR(assignGroups(ctx, g));
  AttentionPlan p;
  POOT_RETURN_IF_ERROR(readAttributes(ctx, p));
  POOT_RETURN_IF_ERROR(checkShapes(ctx, g, p));

  const Tensor &q = *g[kQ], &k = *g[kK], &v = *g[kV];
  const Tensor *kShared = g[kKShared], *read = g[kRead], *mask = g[kMask],
               *len = g[kLen];
  DType dtype = q.dtype();
  Step step{ctx.roundsToF32(dtype)};
  // Constants enter an f32 kernel as f32 values.
  double scale = step(p.scale);
  double softcap = step(p.softcap);
  std::vector<double> slopes;
  for (double s : p.slopes)
    slopes.push_back(step(s));

  Tensor out(resultTypes[0]);
  std::vector<double> scores(p.lk);
  std::vector<const double *> keyRows(p.lk), sharedRows(p.lk), valueRows(p.lk);
  std::vector<double> acc(p.dv);
  int64_t maskB = mask ? mask->shape()[0] : 0,
          maskH = mask ? mask->shape()[1] : 0;

  for (int64_t b = 0; b < p.b; ++b) {
    int64_t live = p.lk;
    if (len)
      live = clampToInt64(len->at(b), 0, p.lk);
    for (int64_t h = 0; h < p.hq; ++h) {
      int64_t kv = h / p.nRep;
      // Where key t and value t of this (row, key head) live.
      for (int64_t t = 0; t < live; ++t) {
        if (read) {
          int64_t slot = static_cast<int64_t>(read->at(b * p.lk + t));
          keyRows[t] = k.values().data() + (slot * p.hkv + kv) * p.dk;
          valueRows[t] = v.values().data() + (slot * p.hkv + kv) * p.dv;
        } else {
          keyRows[t] = k.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.kd;
          valueRows[t] =
              v.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.dv;
          if (kShared)
            sharedRows[t] =
                kShared->values().data() + (b * p.lk + t) * p.shared;
        }
      }
      for (int64_t i = 0; i < p.lq; ++i) {
        const double *qRow =
            q.values().data() + ((b * p.hq + h) * p.lq + i) * p.dk;
        double *o = out.values().data() + ((b * p.hq + h) * p.lq + i) * p.dv;
        if (live == 0) {
          // No key visited: 0/0 for every channel (0 under
          // zero_empty_rows).
          std::fill(o, o + p.dv, p.zeroEmptyRows ? 0.0 : kNaN);
          continue;
        }
        int64_t qpos = p.pos[p.pos.size() == 1 ? 0 : b] + i;
        const double *maskRow =
            mask ? mask->values().data() +
                       (((maskB == 1 ? 0 : b) * maskH + (maskH == 1 ? 0 : h)) *
                            p.lq +
                        i) *
                           p.lk
                 : nullptr;
        double m = -kInf;
        for (int64_t t = 0; t < live; ++t) {
          double dot = 0.0;
          for (int64_t c = 0; c < p.kd; ++c)
            dot = step(dot + step(qRow[c] * keyRows[t][c]));
          for (int64_t c = 0; c < p.shared; ++c)
            dot = step(dot + step(qRow[p.kd + c] * sharedRows[t][c]));
          double s = step(dot * scale);
          if (p.hasSoftcap)
            s = step(softcap * step(std::tanh(step(s / softcap))));
          if (maskRow)
            s = step(s + maskRow[t]);
          if (p.causal && t > qpos)
            s = -kInf;
          if (p.hasWindow && qpos - t >= p.window)
            s = -kInf;
          if (!slopes.empty())
            s = step(s + step(slopes[h] * static_cast<double>(t - qpos)));
          scores[t] = s;
          // NaN wins, as reduce_max has it.
          if (std::isnan(s) || std::isnan(m))
            m = kNaN;
          else if (s > m)
            m = s;
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        double l = 0.0;
        for (int64_t t = 0; t < live; ++t) {
          double w = step(std::exp(step(scores[t] - m)));
          l = step(l + w);
          for (int64_t c = 0; c < p.dv; ++c)
            acc[c] = step(acc[c] + step(w * valueRows[t][c]));
        }
        // Every score -inf: the row has no visible key.
        bool empty = p.zeroEmptyRows && m == -kInf;
        for (int64_t c = 0; c < p.dv; ++c)
          o[c] = empty ? 0.0 : store(step, dtype, acc[c] / l);
      }
    }
  }
  results.clear();
  results.push_back(std::move(out));
  return Status::ok();
}


//===----------------------------------------------------------------------===//
// attention in parts (context parallelism across devices)
//===----------------------------------------------------------------------===//

Status describeAttention(const Eqn &eqn,
                         const std::vector<const Tensor *> &operands,
                         const std::vector<TensorType> &resultTypes,
                         AttentionDims &out) {
  FusedContext ctx{eqn, operands, resultTypes, NumericMode::Native};
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       std::to_string(resultTypes.size()));
  const Tensor *g[kNumGroups];
  POOT_RETURN_IF_ERROR(assignGroups(ctx, g));
  AttentionPlan p;
  POOT_RETURN_IF_ERROR(readAttributes(ctx, p));
  POOT_RETURN_IF_ERROR(checkShapes(ctx, g, p));
  AttentionDims d;
  d.b = p.b;
  d.hq = p.hq;
  d.hkv = p.hkv;
  d.lq = p.lq;
  d.lk = p.lk;
  d.dk = p.dk;
  d.dv = p.dv;
  d.paged = g[kRead] != nullptr;
  d.kShared = g[kKShared] != nullptr;
  d.causal = p.causal;
  d.zeroEmptyRows = p.zeroEmptyRows;
  d.dtype = g[kQ]->dtype();
  for (int64_t b = 0; b < p.b; ++b) {
    d.pos.push_back(p.pos[p.pos.size() == 1 ? 0 : b]);
    d.live.push_back(g[kLen] ? clampToInt64(g[kLen]->at(b), 0, p.lk) : p.lk);
  }
  out = std::move(d);
  return Status::ok();
}

void AttentionPartial::reset(int64_t nb, int64_t nhq, int64_t nrows,
                             int64_t ndv) {
  b = nb;
  hq = nhq;
  rows = nrows;
  dv = ndv;
  m.assign(static_cast<size_t>(b * hq * rows), -kInf);
  l.assign(m.size(), 0.0);
  acc.assign(m.size() * static_cast<size_t>(dv), 0.0);
}

Status evalAttentionPartial(const Eqn &eqn,
                            const std::vector<const Tensor *> &operands,
                            const std::vector<TensorType> &resultTypes,
                            NumericMode mode, const AttentionShard &shard,
                            AttentionPartial &out) {
  FusedContext ctx{eqn, operands, resultTypes, mode};
  if (resultTypes.size() != 1)
    return ctx.invalid("expects 1 result, got " +
                       std::to_string(resultTypes.size()));
  const Tensor *g[kNumGroups];
  POOT_RETURN_IF_ERROR(assignGroups(ctx, g));
  AttentionPlan p;
  POOT_RETURN_IF_ERROR(readAttributes(ctx, p));
  POOT_RETURN_IF_ERROR(checkShapes(ctx, g, p));
  if (shard.rowBegin < 0 || shard.rowEnd < shard.rowBegin ||
      shard.rowEnd > p.lq || shard.keyBegin < 0 ||
      shard.keyEnd < shard.keyBegin || shard.keyEnd > p.lk)
    return ctx.invalid("shard rows [" + std::to_string(shard.rowBegin) + ", " +
                       std::to_string(shard.rowEnd) + ") keys [" +
                       std::to_string(shard.keyBegin) + ", " +
                       std::to_string(shard.keyEnd) + ") outside the op's " +
                       std::to_string(p.lq) + " rows and " +
                       std::to_string(p.lk) + " keys");
  int64_t blockKeys = shard.keyEnd - shard.keyBegin;
  bool fromBlock = shard.kBlock || shard.vBlock;
  if (fromBlock) {
    if (g[kRead] || g[kKShared])
      return ctx.invalid("a travelling key block needs a dense key without "
                         "k_shared");
    if (!shard.kBlock || !shard.vBlock ||
        shard.kBlock->shape() != Shape{p.b, p.hkv, blockKeys, p.kd} ||
        shard.vBlock->shape() != Shape{p.b, p.hkv, blockKeys, p.dv})
      return ctx.invalid("key block of the wrong shape for keys [" +
                         std::to_string(shard.keyBegin) + ", " +
                         std::to_string(shard.keyEnd) + ")");
  }

  const Tensor &q = *g[kQ], &k = *g[kK], &v = *g[kV];
  const Tensor *kShared = g[kKShared], *read = g[kRead], *mask = g[kMask],
               *len = g[kLen];
  Step step{ctx.roundsToF32(q.dtype())};
  double scale = step(p.scale);
  double softcap = step(p.softcap);
  std::vector<double> slopes;
  for (double s : p.slopes)
    slopes.push_back(step(s));

  int64_t rows = shard.rowEnd - shard.rowBegin;
  AttentionPartial part;
  part.reset(p.b, p.hq, rows, p.dv);
  part.f32 = step.f32;
  std::vector<double> scores(static_cast<size_t>(blockKeys));
  std::vector<const double *> keyRows(blockKeys), sharedRows(blockKeys),
      valueRows(blockKeys);
  int64_t maskB = mask ? mask->shape()[0] : 0,
          maskH = mask ? mask->shape()[1] : 0;

  for (int64_t b = 0; b < p.b; ++b) {
    int64_t live = p.lk;
    if (len)
      live = clampToInt64(len->at(b), 0, p.lk);
    // Keys of this shard the row visits: [keyBegin, end).
    int64_t end = std::min(shard.keyEnd, live);
    int64_t n = std::max<int64_t>(0, end - shard.keyBegin);
    for (int64_t h = 0; h < p.hq; ++h) {
      int64_t kv = h / p.nRep;
      for (int64_t j = 0; j < n; ++j) {
        int64_t t = shard.keyBegin + j;
        if (fromBlock) {
          keyRows[j] = shard.kBlock->values().data() +
                       ((b * p.hkv + kv) * blockKeys + j) * p.kd;
          valueRows[j] = shard.vBlock->values().data() +
                         ((b * p.hkv + kv) * blockKeys + j) * p.dv;
        } else if (read) {
          int64_t slot = static_cast<int64_t>(read->at(b * p.lk + t));
          keyRows[j] = k.values().data() + (slot * p.hkv + kv) * p.dk;
          valueRows[j] = v.values().data() + (slot * p.hkv + kv) * p.dv;
        } else {
          keyRows[j] = k.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.kd;
          valueRows[j] =
              v.values().data() + ((b * p.hkv + kv) * p.lk + t) * p.dv;
          if (kShared)
            sharedRows[j] =
                kShared->values().data() + (b * p.lk + t) * p.shared;
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        int64_t i = shard.rowBegin + r;
        size_t row = static_cast<size_t>((b * p.hq + h) * rows + r);
        const double *qRow =
            q.values().data() + ((b * p.hq + h) * p.lq + i) * p.dk;
        int64_t qpos = p.pos[p.pos.size() == 1 ? 0 : b] + i;
        const double *maskRow =
            mask ? mask->values().data() +
                       (((maskB == 1 ? 0 : b) * maskH + (maskH == 1 ? 0 : h)) *
                            p.lq +
                        i) *
                           p.lk
                 : nullptr;
        double m = -kInf;
        for (int64_t j = 0; j < n; ++j) {
          int64_t t = shard.keyBegin + j;
          double dot = 0.0;
          for (int64_t c = 0; c < p.kd; ++c)
            dot = step(dot + step(qRow[c] * keyRows[j][c]));
          for (int64_t c = 0; c < p.shared; ++c)
            dot = step(dot + step(qRow[p.kd + c] * sharedRows[j][c]));
          double s = step(dot * scale);
          if (p.hasSoftcap)
            s = step(softcap * step(std::tanh(step(s / softcap))));
          if (maskRow)
            s = step(s + maskRow[t]);
          if (p.causal && t > qpos)
            s = -kInf;
          if (p.hasWindow && qpos - t >= p.window)
            s = -kInf;
          if (!slopes.empty())
            s = step(s + step(slopes[h] * static_cast<double>(t - qpos)));
          scores[j] = s;
          if (std::isnan(s) || std::isnan(m))
            m = kNaN;
          else if (s > m)
            m = s;
        }
        part.m[row] = m;
        // A part that sees no key (none visited, or every score -inf)
        // stays (-inf, 0, 0): it weighs nothing in the merge.
        if (m == -kInf)
          continue;
        double l = 0.0;
        double *acc = part.acc.data() + row * static_cast<size_t>(p.dv);
        for (int64_t j = 0; j < n; ++j) {
          double w = step(std::exp(step(scores[j] - m)));
          l = step(l + w);
          for (int64_t c = 0; c < p.dv; ++c)
            acc[c] = step(acc[c] + step(w * valueRows[j][c]));
        }
        part.l[row] = l;
      }
    }
  }
  out = std::move(part);
  return Status::ok();
}

void mergeAttentionPartials(AttentionPartial &into,
                            const AttentionPartial &from) {
  Step step{into.f32};
  size_t rows = into.m.size();
  size_t dv = static_cast<size_t>(into.dv);
  for (size_t r = 0; r < rows; ++r) {
    double m1 = into.m[r], m2 = from.m[r];
    double *a1 = into.acc.data() + r * dv;
    const double *a2 = from.acc.data() + r * dv;
    if (std::isnan(m1) || std::isnan(m2)) {
      into.m[r] = kNaN;
      into.l[r] = kNaN;
      std::fill(a1, a1 + dv, kNaN);
      continue;
    }
    if (m2 == -kInf)
      continue; // `from` saw no key here
    if (m1 == -kInf) {
      into.m[r] = m2;
      into.l[r] = from.l[r];
      std::copy(a2, a2 + dv, a1);
      continue;
    }
    double mx = std::max(m1, m2);
    double c1 = step(std::exp(step(m1 - mx)));
    double c2 = step(std::exp(step(m2 - mx)));
    into.m[r] = mx;
    into.l[r] = step(step(into.l[r] * c1) + step(from.l[r] * c2));
    for (size_t c = 0; c < dv; ++c)
      a1[c] = step(step(a1[c] * c1) + step(a2[c] * c2));
  }
}

void finishAttentionPartial(const AttentionPartial &partial, DType dtype,
                            NumericMode mode, bool zeroEmptyRows,
                            double *out) {
  Step step{mode == NumericMode::Native && dtype != DType::F64};
  size_t dv = static_cast<size_t>(partial.dv);
  for (size_t r = 0; r < partial.m.size(); ++r) {
    double l = partial.l[r];
    bool empty = zeroEmptyRows && partial.m[r] == -kInf;
    for (size_t c = 0; c < dv; ++c)
      out[r * dv + c] =
          empty ? 0.0 : store(step, dtype, partial.acc[r * dv + c] / l);
  }
}

} // namespace poot::rt::detail
