//===- Evaluator.cpp - The reference evaluator (the oracle) ---------------===//
//
// One host implementation of every poot op over eqn records, plus the run
// contract around it: bindings are checked before anything runs, eqns are
// evaluated into a private value table, validation witnesses are checked, and
// only then are outputs and state buffers published, so a failed run leaves
// the caller's tensors exactly as they were.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Evaluator.h"

#include "Reference/FusedOps.h"
#include "Reference/SparseOps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>
#include <unordered_map>

namespace poot::rt {

namespace {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

/// Prints a tensor element for a message: integral values without a fraction
/// so "index 9" reads like the index it is.
std::string formatNumber(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e17)
    return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

bool isInteger(DType dtype) { return !isFloat(dtype); }

/// Converts an integral double to int64_t without the undefined behaviour a
/// plain cast has outside the range (2^63 appears after saturation).
int64_t toInt64(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9223372036854775808.0)
    return std::numeric_limits<int64_t>::max();
  if (v < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// Holds an int64 result as a double. The doubles nearest INT64_MAX round up
/// to 2^63, which the i64 wrap would turn into INT64_MIN; the largest double
/// below 2^63 is the honest approximation.
double fromInt64(int64_t v) {
  double d = static_cast<double>(v);
  return d >= 9223372036854775808.0 ? 9223372036854774784.0 : d;
}

// Wrapping integer arithmetic: signed overflow is undefined in C++, unsigned
// is modular, and two's complement wrap is exactly the modular result.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}
int64_t wrapNeg(int64_t a) {
  return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
}

/// Maps a possibly negative axis onto [0, rank); false when out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return false;
  out = axis;
  return true;
}

Shape rowMajorStrides(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// numpy broadcasting of several shapes; false when they are incompatible.
bool broadcastShapes(const std::vector<const Shape *> &shapes, Shape &out) {
  size_t rank = 0;
  for (const Shape *s : shapes)
    rank = std::max(rank, s->size());
  out.assign(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t dim = 1;
    for (const Shape *s : shapes) {
      if (d + s->size() < rank)
        continue; // this shape has no dim here: it is right-aligned
      int64_t sd = (*s)[d + s->size() - rank];
      if (sd == 1)
        continue;
      if (dim == 1)
        dim = sd;
      else if (sd != dim)
        return false;
    }
    out[d] = dim;
  }
  return true;
}

/// Walks a result shape in row-major order while tracking the flat offset of
/// each operand broadcast into it; stretched dims get stride 0 so the walk
/// never needs to divide.
class BroadcastWalker {
public:
  BroadcastWalker(const Shape &result, const std::vector<const Shape *> &inputs)
      : shape_(result), index_(result.size(), 0), offsets_(inputs.size(), 0) {
    for (const Shape *s : inputs) {
      Shape native = rowMajorStrides(*s);
      Shape st(result.size(), 0);
      size_t lead = result.size() - s->size();
      for (size_t d = 0; d < s->size(); ++d)
        st[lead + d] = (*s)[d] == 1 ? 0 : native[d];
      strides_.push_back(std::move(st));
    }
  }

  int64_t offset(size_t k) const { return offsets_[k]; }

  void next() {
    for (int64_t d = static_cast<int64_t>(shape_.size()) - 1; d >= 0; --d) {
      ++index_[d];
      for (size_t k = 0; k < offsets_.size(); ++k)
        offsets_[k] += strides_[k][d];
      if (index_[d] < shape_[d])
        return;
      for (size_t k = 0; k < offsets_.size(); ++k)
        offsets_[k] -= strides_[k][d] * index_[d];
      index_[d] = 0;
    }
  }

private:
  Shape shape_;
  Shape index_;
  std::vector<int64_t> offsets_;
  std::vector<Shape> strides_;
};

/// Splits a flat row-major index into a multi-index.
void unravel(int64_t flat, const Shape &shape, Shape &index) {
  index.resize(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    int64_t dim = shape[d];
    index[d] = dim == 0 ? 0 : flat % dim;
    flat = dim == 0 ? 0 : flat / dim;
  }
}

//===----------------------------------------------------------------------===//
// The per-eqn context
//===----------------------------------------------------------------------===//

/// What one kernel invocation sees: the eqn, its operands and declared result
/// types, the numeric mode, and where results go. Every error it builds
/// carries the eqn's location.
class OpContext {
public:
  OpContext(const Eqn &eqn, const std::vector<const Tensor *> &operands,
            const std::vector<TensorType> &resultTypes, NumericMode mode,
            std::vector<Tensor> &results)
      : eqn(eqn), operands(operands), resultTypes(resultTypes), mode(mode),
        results(results) {}

  const Eqn &eqn;
  const std::vector<const Tensor *> &operands;
  const std::vector<TensorType> &resultTypes;
  NumericMode mode;
  std::vector<Tensor> &results;

  const Tensor &operand(size_t i) const { return *operands[i]; }

  Status error(ErrorCode code, const std::string &message) const {
    if (eqn.location.empty())
      return Status(code, message);
    return Status(code, eqn.location + ": " + message);
  }
  Status invalid(const std::string &message) const {
    return error(ErrorCode::InvalidArgument, eqn.op + ": " + message);
  }

  /// Checks operand and result counts; with `atLeast` the operand count is a
  /// minimum (variadic ops check the rest once they know the rank).
  Status expectCounts(size_t numOperands, size_t numResults,
                      bool atLeast = false) const {
    if (atLeast ? operands.size() < numOperands
                : operands.size() != numOperands)
      return invalid("expects " + std::string(atLeast ? "at least " : "") +
                     std::to_string(numOperands) + " operand(s), got " +
                     std::to_string(operands.size()));
    if (resultTypes.size() != numResults)
      return invalid("expects " + std::to_string(numResults) +
                     " result(s), got " + std::to_string(resultTypes.size()));
    return Status::ok();
  }

  const Attr *findAttr(const char *name, Attr::Kind kind, const char *what,
                       Status &status) const {
    const Attr *a = eqn.attr(name);
    if (!a) {
      status = invalid(std::string("missing attribute '") + name + "'");
      return nullptr;
    }
    if (a->kind != kind) {
      status = invalid(std::string("attribute '") + name + "' must be " + what);
      return nullptr;
    }
    return a;
  }

  Status intAttr(const char *name, int64_t &out) const {
    Status status;
    if (const Attr *a = findAttr(name, Attr::Kind::Int, "an integer", status))
      out = a->i;
    return status;
  }

  /// An optional integer attribute: `fallback` when absent.
  Status intAttrOr(const char *name, int64_t fallback, int64_t &out) const {
    if (!eqn.attr(name)) {
      out = fallback;
      return Status::ok();
    }
    return intAttr(name, out);
  }

  Status intsAttr(const char *name, std::vector<int64_t> &out) const {
    Status status;
    if (const Attr *a =
            findAttr(name, Attr::Kind::Ints, "an integer list", status))
      out = a->ints;
    return status;
  }

  Status stringAttr(const char *name, std::string &out) const {
    Status status;
    if (const Attr *a = findAttr(name, Attr::Kind::String, "a string", status))
      out = a->s;
    return status;
  }

  /// Rounds a freshly computed value to `dtype` the way the mode says: native
  /// float kernels compute in f32 (f64 for f64) and store in the dtype, the
  /// reference mode keeps the exact double; integers always wrap.
  double finish(DType dtype, double v) const {
    if (!isFloat(dtype))
      return roundTo(dtype, v);
    if (mode == NumericMode::Reference || dtype == DType::F64)
      return v;
    double f = static_cast<double>(static_cast<float>(v));
    return dtype == DType::F32 ? f : roundTo(dtype, f);
  }

  /// Converts one element between dtypes with convert's semantics.
  double convertValue(DType from, DType to, double v) const {
    if (to == DType::I1)
      return v != 0.0 ? 1.0 : 0.0; // NaN is nonzero, hence true
    if (isFloat(to))
      return finish(to, v);
    if (isFloat(from)) {
      if (std::isnan(v))
        return 0.0;
      double t = std::trunc(v);
      // i64's max is not a double; its largest double below 2^63 is, and it
      // keeps the saturated value inside the type.
      double lo = to == DType::I32 ? -2147483648.0 : -9223372036854775808.0;
      double hi = to == DType::I32 ? 2147483647.0 : 9223372036854774784.0;
      return std::min(std::max(t, lo), hi);
    }
    return roundTo(to, v);
  }

  /// Appends the next result after checking it against the declared type, so
  /// a record whose types disagree with the op's semantics is caught here
  /// rather than corrupting later eqns.
  Status produce(Tensor t) {
    size_t i = results.size();
    if (i >= resultTypes.size())
      return invalid("produced more results than declared");
    if (t.type() != resultTypes[i])
      return invalid("result " + std::to_string(i) + " is " +
                     t.type().toString() + " but the record declares " +
                     resultTypes[i].toString());
    results.push_back(std::move(t));
    return Status::ok();
  }

  Status expectSameDtype(const Tensor &a, const Tensor &b) const {
    if (a.dtype() != b.dtype())
      return invalid(std::string("operand dtypes differ: ") +
                     dtypeName(a.dtype()) + " vs " + dtypeName(b.dtype()));
    return Status::ok();
  }

  Status expectIntegerIndex(const Tensor &t, const char *what) const {
    if (!isInteger(t.dtype()) || t.dtype() == DType::I1)
      return invalid(std::string(what) + " must be an i32 or i64 tensor, got " +
                     t.type().toString());
    return Status::ok();
  }
};

using Kernel = Status (*)(OpContext &);

//===----------------------------------------------------------------------===//
// Creation and conversion
//===----------------------------------------------------------------------===//

Status evalConstant(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(0, 1));
  Status status;
  const Attr *a = ctx.findAttr("value", Attr::Kind::Tensor, "a tensor", status);
  if (!a)
    return status;
  const Tensor &value = a->tensor;
  const TensorType &type = ctx.resultTypes[0];
  int64_t n = numElements(type.shape);
  // A one-element payload is a splat; anything else must fill the result.
  if (value.size() != n && value.size() != 1)
    return ctx.invalid("value holds " + std::to_string(value.size()) +
                       " element(s) but " + type.toString() + " needs " +
                       std::to_string(n));
  Tensor out(type);
  for (int64_t i = 0; i < n; ++i)
    out.at(i) = ctx.convertValue(value.dtype(), type.dtype,
                                 value.at(value.size() == 1 ? 0 : i));
  return ctx.produce(std::move(out));
}

Status evalIota(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(0, 1));
  int64_t dim = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("dim", dim));
  const TensorType &type = ctx.resultTypes[0];
  int64_t axis = 0;
  if (!normalizeAxis(dim, static_cast<int64_t>(type.shape.size()), axis))
    return ctx.invalid("dim " + std::to_string(dim) + " out of range for " +
                       type.toString());
  Tensor out(type);
  Shape index;
  for (int64_t i = 0; i < out.size(); ++i) {
    unravel(i, type.shape, index);
    out.at(i) = ctx.finish(type.dtype, static_cast<double>(index[axis]));
  }
  return ctx.produce(std::move(out));
}

Status evalConvert(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  TensorType type{ctx.resultTypes[0].dtype, x.shape()};
  Tensor out(type);
  for (int64_t i = 0; i < x.size(); ++i)
    out.at(i) = ctx.convertValue(x.dtype(), type.dtype, x.at(i));
  return ctx.produce(std::move(out));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Status evalReshape(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  const TensorType &type = ctx.resultTypes[0];
  if (numElements(type.shape) != x.size())
    return ctx.invalid("cannot reshape " + x.type().toString() + " to " +
                       type.toString());
  return ctx.produce(Tensor({x.dtype(), type.shape}, x.values()));
}

Status evalTranspose(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  std::vector<int64_t> perm;
  POOT_RETURN_IF_ERROR(ctx.intsAttr("perm", perm));
  int64_t rank = x.rank();
  std::vector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (size_t j = 0; valid && j < perm.size(); ++j) {
    valid = perm[j] >= 0 && perm[j] < rank && !seen[perm[j]];
    if (valid)
      seen[perm[j]] = true;
  }
  if (!valid)
    return ctx.invalid("perm " + shapeString(perm) +
                       " is not a permutation of rank " + std::to_string(rank));
  Shape shape(rank);
  for (int64_t j = 0; j < rank; ++j)
    shape[j] = x.shape()[perm[j]];
  Tensor out({x.dtype(), shape});
  Shape xStrides = x.strides();
  Shape index;
  for (int64_t i = 0; i < out.size(); ++i) {
    unravel(i, shape, index);
    int64_t src = 0;
    for (int64_t j = 0; j < rank; ++j)
      src += index[j] * xStrides[perm[j]];
    out.at(i) = x.at(src);
  }
  return ctx.produce(std::move(out));
}

Status evalBroadcast(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  std::vector<int64_t> shape;
  POOT_RETURN_IF_ERROR(ctx.intsAttr("shape", shape));
  bool valid = x.shape().size() <= shape.size();
  size_t lead = valid ? shape.size() - x.shape().size() : 0;
  for (size_t d = 0; valid && d < x.shape().size(); ++d)
    valid = x.shape()[d] == 1 || x.shape()[d] == shape[lead + d];
  for (int64_t d : shape)
    valid = valid && d >= 0;
  if (!valid)
    return ctx.invalid("cannot broadcast " + x.type().toString() + " to " +
                       shapeString(shape));
  Tensor out({x.dtype(), shape});
  BroadcastWalker walk(shape, {&x.shape()});
  for (int64_t i = 0; i < out.size(); ++i, walk.next())
    out.at(i) = x.at(walk.offset(0));
  return ctx.produce(std::move(out));
}

Status evalSlice(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  int64_t rank = x.rank();
  std::vector<int64_t> start, limit, step;
  POOT_RETURN_IF_ERROR(ctx.intsAttr("start", start));
  POOT_RETURN_IF_ERROR(ctx.intsAttr("limit", limit));
  if (ctx.eqn.attr("step"))
    POOT_RETURN_IF_ERROR(ctx.intsAttr("step", step));
  else
    step.assign(rank, 1);
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return ctx.invalid("start/limit/step must each have " +
                       std::to_string(rank) + " entries");
  Shape shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 1)
      return ctx.invalid("step " + std::to_string(step[d]) + " on dim " +
                         std::to_string(d) + " must be >= 1");
    // numpy's rules for a positive step: negatives count from the end, then
    // both bounds clamp into [0, dim].
    int64_t dim = x.shape()[d];
    auto fix = [dim](int64_t v) {
      if (v < 0)
        v += dim;
      return std::min(std::max<int64_t>(v, 0), dim);
    };
    start[d] = fix(start[d]);
    limit[d] = fix(limit[d]);
    shape[d] =
        limit[d] > start[d] ? (limit[d] - start[d] + step[d] - 1) / step[d] : 0;
  }
  Tensor out({x.dtype(), shape});
  Shape xStrides = x.strides();
  Shape index;
  for (int64_t i = 0; i < out.size(); ++i) {
    unravel(i, shape, index);
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += (start[d] + index[d] * step[d]) * xStrides[d];
    out.at(i) = x.at(src);
  }
  return ctx.produce(std::move(out));
}

Status evalConcat(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1, /*atLeast=*/true));
  int64_t axisAttr = 0, axis = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("axis", axisAttr));
  const Tensor &first = ctx.operand(0);
  if (!normalizeAxis(axisAttr, first.rank(), axis))
    return ctx.invalid("axis " + std::to_string(axisAttr) +
                       " out of range for rank " +
                       std::to_string(first.rank()));
  Shape shape = first.shape();
  shape[axis] = 0;
  for (const Tensor *t : ctx.operands) {
    bool same = t->dtype() == first.dtype() && t->rank() == first.rank();
    for (int64_t d = 0; same && d < first.rank(); ++d)
      same = d == axis || t->shape()[d] == first.shape()[d];
    if (!same)
      return ctx.invalid("cannot concatenate " + t->type().toString() +
                         " with " + first.type().toString() + " on axis " +
                         std::to_string(axis));
    shape[axis] += t->shape()[axis];
  }
  Tensor out({first.dtype(), shape});
  // Each operand contributes a contiguous run of axis*inner elements per
  // outer index, so the copy is a sequence of block copies.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < first.rank(); ++d)
    inner *= shape[d];
  int64_t dst = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor *t : ctx.operands) {
      int64_t block = t->shape()[axis] * inner;
      for (int64_t j = 0; j < block; ++j)
        out.at(dst++) = t->at(o * block + j);
    }
  }
  return ctx.produce(std::move(out));
}

/// Reads the scalar start operands of dynamic_slice/dynamic_update_slice and
/// clamps each so the window [start, start + size) fits the dim, as XLA does.
Status readStarts(OpContext &ctx, size_t firstStart, const Shape &dims,
                  const Shape &sizes, Shape &starts) {
  starts.assign(dims.size(), 0);
  for (size_t d = 0; d < dims.size(); ++d) {
    const Tensor &s = ctx.operand(firstStart + d);
    if (s.size() != 1)
      return ctx.invalid("start operand " + std::to_string(d) +
                         " must be a scalar, got " + s.type().toString());
    POOT_RETURN_IF_ERROR(ctx.expectIntegerIndex(s, "a start operand"));
    if (sizes[d] < 0 || sizes[d] > dims[d])
      return ctx.invalid("size " + std::to_string(sizes[d]) + " on dim " +
                         std::to_string(d) + " exceeds the operand's " +
                         std::to_string(dims[d]));
    starts[d] =
        std::min(std::max<int64_t>(toInt64(s.at(0)), 0), dims[d] - sizes[d]);
  }
  return Status::ok();
}

Status evalDynamicSlice(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1, /*atLeast=*/true));
  const Tensor &x = ctx.operand(0);
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1 + x.rank(), 1));
  std::vector<int64_t> sizes;
  POOT_RETURN_IF_ERROR(ctx.intsAttr("sizes", sizes));
  if (static_cast<int64_t>(sizes.size()) != x.rank())
    return ctx.invalid("sizes must have " + std::to_string(x.rank()) +
                       " entries");
  Shape starts;
  POOT_RETURN_IF_ERROR(readStarts(ctx, 1, x.shape(), sizes, starts));
  Tensor out({x.dtype(), sizes});
  Shape xStrides = x.strides();
  Shape index;
  for (int64_t i = 0; i < out.size(); ++i) {
    unravel(i, sizes, index);
    int64_t src = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      src += (starts[d] + index[d]) * xStrides[d];
    out.at(i) = x.at(src);
  }
  return ctx.produce(std::move(out));
}

Status evalDynamicUpdateSlice(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1, /*atLeast=*/true));
  const Tensor &x = ctx.operand(0);
  const Tensor &update = ctx.operand(1);
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2 + x.rank(), 1));
  POOT_RETURN_IF_ERROR(ctx.expectSameDtype(x, update));
  if (update.rank() != x.rank())
    return ctx.invalid("update " + update.type().toString() +
                       " does not match the rank of " + x.type().toString());
  Shape starts;
  POOT_RETURN_IF_ERROR(readStarts(ctx, 2, x.shape(), update.shape(), starts));
  Tensor out = x;
  Shape xStrides = x.strides();
  Shape index;
  for (int64_t i = 0; i < update.size(); ++i) {
    unravel(i, update.shape(), index);
    int64_t dst = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      dst += (starts[d] + index[d]) * xStrides[d];
    out.at(dst) = update.at(i);
  }
  return ctx.produce(std::move(out));
}

Status evalGather(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1));
  const Tensor &x = ctx.operand(0);
  const Tensor &idx = ctx.operand(1);
  POOT_RETURN_IF_ERROR(ctx.expectIntegerIndex(idx, "the index operand"));
  int64_t axisAttr = 0, axis = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("axis", axisAttr));
  if (!normalizeAxis(axisAttr, x.rank(), axis))
    return ctx.invalid("axis " + std::to_string(axisAttr) +
                       " out of range for " + x.type().toString());
  int64_t bound = x.shape()[axis];
  for (int64_t i = 0; i < idx.size(); ++i) {
    double v = idx.at(i);
    if (!(v >= 0 && v < static_cast<double>(bound)))
      return ctx.error(ErrorCode::IndexOutOfRange,
                       "gather index " + formatNumber(v) + " outside [0, " +
                           std::to_string(bound) + ") on axis " +
                           std::to_string(axis));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d)
    inner *= x.shape()[d];
  Shape shape(x.shape().begin(), x.shape().begin() + axis);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), x.shape().begin() + axis + 1, x.shape().end());
  Tensor out({x.dtype(), shape});
  int64_t dst = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < idx.size(); ++k) {
      int64_t row = toInt64(idx.at(k));
      for (int64_t j = 0; j < inner; ++j)
        out.at(dst++) = x.at((o * bound + row) * inner + j);
    }
  return ctx.produce(std::move(out));
}

Status evalScatterUpdate(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(3, 1));
  const Tensor &x = ctx.operand(0);
  const Tensor &idx = ctx.operand(1);
  const Tensor &updates = ctx.operand(2);
  POOT_RETURN_IF_ERROR(ctx.expectIntegerIndex(idx, "the index operand"));
  POOT_RETURN_IF_ERROR(ctx.expectSameDtype(x, updates));
  if (x.rank() < 1 || idx.rank() != 1)
    return ctx.invalid("expects an operand of rank >= 1 and a 1-D index, got " +
                       x.type().toString() + " and " + idx.type().toString());
  Shape expected = {idx.shape()[0]};
  expected.insert(expected.end(), x.shape().begin() + 1, x.shape().end());
  if (updates.shape() != expected)
    return ctx.invalid("updates must have shape " + shapeString(expected) +
                       ", got " + shapeString(updates.shape()));
  int64_t rows = x.shape()[0];
  int64_t rowSize = rows == 0 ? 0 : x.size() / rows;
  std::vector<int64_t> writer(rows, -1);
  for (int64_t i = 0; i < idx.size(); ++i) {
    double v = idx.at(i);
    if (v == -1)
      continue; // an unused slot: the caller had nothing to write
    if (!(v >= 0 && v < static_cast<double>(rows)))
      return ctx.error(ErrorCode::IndexOutOfRange,
                       "scatter_update index " + formatNumber(v) + " (entry " +
                           std::to_string(i) + ") outside [0, " +
                           std::to_string(rows) + ") on axis 0");
    int64_t row = toInt64(v);
    if (writer[row] >= 0)
      return ctx.invalid(
          "slot " + std::to_string(row) + " written twice (entries " +
          std::to_string(writer[row]) + " and " + std::to_string(i) + ")");
    writer[row] = i;
  }
  Tensor out = x;
  for (int64_t row = 0; row < rows; ++row)
    if (writer[row] >= 0)
      for (int64_t j = 0; j < rowSize; ++j)
        out.at(row * rowSize + j) = updates.at(writer[row] * rowSize + j);
  return ctx.produce(std::move(out));
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Native float accumulation: each partial sum is rounded to f32, the way a
/// kernel with an f32 accumulator adds in index order. The sum is formed in
/// double and rounded once, which equals the f32 addition and keeps the
/// compiler from fusing it with a neighbouring multiply.
float addF32(float acc, double v) {
  return static_cast<float>(static_cast<double>(acc) + v);
}

Status evalMatmul(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1));
  const Tensor &a = ctx.operand(0);
  const Tensor &b = ctx.operand(1);
  // The result takes a's dtype, so two float dtypes may meet here; an
  // integer operand against a float one has no sensible accumulator.
  if (isFloat(a.dtype()) != isFloat(b.dtype()))
    return ctx.invalid(std::string("cannot multiply ") + dtypeName(a.dtype()) +
                       " by " + dtypeName(b.dtype()));
  if (a.rank() < 2 || b.rank() < 2)
    return ctx.invalid("operands must have rank >= 2, got " +
                       a.type().toString() + " and " + b.type().toString());
  int64_t m = a.shape()[a.rank() - 2], k = a.shape()[a.rank() - 1];
  int64_t kb = b.shape()[b.rank() - 2], n = b.shape()[b.rank() - 1];
  Shape aBatch(a.shape().begin(), a.shape().end() - 2);
  Shape bBatch(b.shape().begin(), b.shape().end() - 2);
  Shape batch;
  if (k != kb || !broadcastShapes({&aBatch, &bBatch}, batch))
    return ctx.invalid("cannot multiply " + a.type().toString() + " by " +
                       b.type().toString());
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  DType dtype = a.dtype();
  Tensor out({dtype, shape});
  bool floatAcc =
      ctx.mode == NumericMode::Native && isFloat(dtype) && dtype != DType::F64;
  BroadcastWalker walk(batch, {&aBatch, &bBatch});
  int64_t batches = numElements(batch);
  int64_t dst = 0;
  for (int64_t bi = 0; bi < batches; ++bi, walk.next()) {
    int64_t aBase = walk.offset(0) * m * k;
    int64_t bBase = walk.offset(1) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        if (!isFloat(dtype)) {
          int64_t acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc = wrapAdd(acc, wrapMul(toInt64(a.at(aBase + i * k + p)),
                                       toInt64(b.at(bBase + p * n + j))));
          sum = fromInt64(acc);
        } else if (floatAcc) {
          float acc = 0.0f;
          for (int64_t p = 0; p < k; ++p) {
            // The product of two f32 values is exact in double; rounding it
            // once gives the f32 product.
            float prod = static_cast<float>(a.at(aBase + i * k + p) *
                                            b.at(bBase + p * n + j));
            acc = addF32(acc, prod);
          }
          sum = acc;
        } else {
          for (int64_t p = 0; p < k; ++p)
            sum += a.at(aBase + i * k + p) * b.at(bBase + p * n + j);
        }
        out.at(dst++) = ctx.finish(dtype, sum);
      }
  }
  return ctx.produce(std::move(out));
}

enum class BinaryKind { Add, Sub, Mul, Div, Max, Min, Pow };

/// Integer power by squaring; wraps like repeated multiplication would.
int64_t intPow(int64_t base, int64_t exp) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

template <BinaryKind K> Status evalBinary(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1));
  const Tensor &a = ctx.operand(0);
  const Tensor &b = ctx.operand(1);
  POOT_RETURN_IF_ERROR(ctx.expectSameDtype(a, b));
  Shape shape;
  if (!broadcastShapes({&a.shape(), &b.shape()}, shape))
    return ctx.invalid("cannot broadcast " + a.type().toString() + " with " +
                       b.type().toString());
  DType dtype = a.dtype();
  bool floating = isFloat(dtype);
  Tensor out({dtype, shape});
  BroadcastWalker walk(shape, {&a.shape(), &b.shape()});
  for (int64_t i = 0; i < out.size(); ++i, walk.next()) {
    double x = a.at(walk.offset(0)), y = b.at(walk.offset(1));
    double r = 0.0;
    if (floating) {
      switch (K) {
      case BinaryKind::Add:
        r = x + y;
        break;
      case BinaryKind::Sub:
        r = x - y;
        break;
      case BinaryKind::Mul:
        r = x * y;
        break;
      case BinaryKind::Div:
        r = x / y;
        break;
      // std::max would drop a NaN in one operand; the ops propagate it.
      case BinaryKind::Max:
        r = std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
        break;
      case BinaryKind::Min:
        r = std::isnan(x) || std::isnan(y) ? std::nan("") : std::min(x, y);
        break;
      case BinaryKind::Pow:
        r = std::pow(x, y);
        break;
      }
    } else {
      int64_t p = toInt64(x), q = toInt64(y), v = 0;
      switch (K) {
      case BinaryKind::Add:
        v = wrapAdd(p, q);
        break;
      case BinaryKind::Sub:
        v = wrapSub(p, q);
        break;
      case BinaryKind::Mul:
        v = wrapMul(p, q);
        break;
      case BinaryKind::Div:
        if (q == 0)
          return ctx.invalid("integer division by zero at flat index " +
                             std::to_string(i));
        // INT64_MIN / -1 traps in hardware; its wrapped result is itself.
        v = q == -1 ? wrapNeg(p) : p / q;
        break;
      case BinaryKind::Max:
        v = std::max(p, q);
        break;
      case BinaryKind::Min:
        v = std::min(p, q);
        break;
      case BinaryKind::Pow:
        if (q < 0)
          return ctx.invalid("integer pow with negative exponent " +
                             std::to_string(q) + " at flat index " +
                             std::to_string(i));
        v = intPow(p, q);
        break;
      }
      r = fromInt64(v);
    }
    out.at(i) = ctx.finish(dtype, r);
  }
  return ctx.produce(std::move(out));
}

Status evalCompare(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1));
  const Tensor &a = ctx.operand(0);
  const Tensor &b = ctx.operand(1);
  POOT_RETURN_IF_ERROR(ctx.expectSameDtype(a, b));
  std::string pred;
  POOT_RETURN_IF_ERROR(ctx.stringAttr("predicate", pred));
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  int which = -1;
  for (int p = 0; p < 6; ++p)
    if (pred == names[p])
      which = p;
  if (which < 0)
    return ctx.invalid("unknown predicate '" + pred + "'");
  Shape shape;
  if (!broadcastShapes({&a.shape(), &b.shape()}, shape))
    return ctx.invalid("cannot broadcast " + a.type().toString() + " with " +
                       b.type().toString());
  Tensor out({DType::I1, shape});
  BroadcastWalker walk(shape, {&a.shape(), &b.shape()});
  for (int64_t i = 0; i < out.size(); ++i, walk.next()) {
    // The C++ operators already have IEEE's unordered semantics.
    double x = a.at(walk.offset(0)), y = b.at(walk.offset(1));
    bool r = false;
    switch (which) {
    case 0:
      r = x == y;
      break;
    case 1:
      r = x != y;
      break;
    case 2:
      r = x < y;
      break;
    case 3:
      r = x <= y;
      break;
    case 4:
      r = x > y;
      break;
    case 5:
      r = x >= y;
      break;
    }
    out.at(i) = r ? 1.0 : 0.0;
  }
  return ctx.produce(std::move(out));
}

Status evalSelect(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(3, 1));
  const Tensor &c = ctx.operand(0);
  const Tensor &a = ctx.operand(1);
  const Tensor &b = ctx.operand(2);
  if (c.dtype() != DType::I1)
    return ctx.invalid("condition must be i1, got " + c.type().toString());
  POOT_RETURN_IF_ERROR(ctx.expectSameDtype(a, b));
  Shape shape;
  if (!broadcastShapes({&c.shape(), &a.shape(), &b.shape()}, shape))
    return ctx.invalid("cannot broadcast " + c.type().toString() + ", " +
                       a.type().toString() + " and " + b.type().toString());
  Tensor out({a.dtype(), shape});
  BroadcastWalker walk(shape, {&c.shape(), &a.shape(), &b.shape()});
  for (int64_t i = 0; i < out.size(); ++i, walk.next())
    out.at(i) = c.at(walk.offset(0)) != 0.0 ? a.at(walk.offset(1))
                                            : b.at(walk.offset(2));
  return ctx.produce(std::move(out));
}

template <bool IsAnd> Status evalLogical(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(2, 1));
  const Tensor &a = ctx.operand(0);
  const Tensor &b = ctx.operand(1);
  if (a.dtype() != DType::I1 || b.dtype() != DType::I1)
    return ctx.invalid("operands must be i1, got " + a.type().toString() +
                       " and " + b.type().toString());
  Shape shape;
  if (!broadcastShapes({&a.shape(), &b.shape()}, shape))
    return ctx.invalid("cannot broadcast " + a.type().toString() + " with " +
                       b.type().toString());
  Tensor out({DType::I1, shape});
  BroadcastWalker walk(shape, {&a.shape(), &b.shape()});
  for (int64_t i = 0; i < out.size(); ++i, walk.next()) {
    bool x = a.at(walk.offset(0)) != 0.0, y = b.at(walk.offset(1)) != 0.0;
    out.at(i) = (IsAnd ? (x && y) : (x || y)) ? 1.0 : 0.0;
  }
  return ctx.produce(std::move(out));
}

Status evalNot(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &a = ctx.operand(0);
  if (a.dtype() != DType::I1)
    return ctx.invalid("operand must be i1, got " + a.type().toString());
  Tensor out(a.type());
  for (int64_t i = 0; i < a.size(); ++i)
    out.at(i) = a.at(i) != 0.0 ? 0.0 : 1.0;
  return ctx.produce(std::move(out));
}

enum class UnaryKind { Exp, Log, Tanh, Neg, Sin, Cos, Sqrt, Rsqrt, Abs };

template <UnaryKind K> Status evalUnary(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  DType dtype = x.dtype();
  bool intOk = K == UnaryKind::Neg || K == UnaryKind::Abs;
  if (!isFloat(dtype) && (!intOk || dtype == DType::I1))
    return ctx.invalid("operand must be a float tensor, got " +
                       x.type().toString());
  Tensor out(x.type());
  for (int64_t i = 0; i < x.size(); ++i) {
    double v = x.at(i), r = 0.0;
    if (!isFloat(dtype)) {
      int64_t p = toInt64(v);
      r = fromInt64(K == UnaryKind::Neg || p < 0 ? wrapNeg(p) : p);
    } else {
      switch (K) {
      case UnaryKind::Exp:
        r = std::exp(v);
        break;
      case UnaryKind::Log:
        r = std::log(v);
        break;
      case UnaryKind::Tanh:
        r = std::tanh(v);
        break;
      case UnaryKind::Neg:
        r = -v;
        break;
      case UnaryKind::Sin:
        r = std::sin(v);
        break;
      case UnaryKind::Cos:
        r = std::cos(v);
        break;
      case UnaryKind::Sqrt:
        r = std::sqrt(v);
        break;
      case UnaryKind::Rsqrt:
        r = 1.0 / std::sqrt(v);
        break;
      case UnaryKind::Abs:
        r = std::fabs(v);
        break;
      }
    }
    out.at(i) = ctx.finish(dtype, r);
  }
  return ctx.produce(std::move(out));
}

//===----------------------------------------------------------------------===//
// Reductions and selection
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Max, Min };

template <ReduceKind K> Status evalReduce(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 1));
  const Tensor &x = ctx.operand(0);
  int64_t axisAttr = 0, axis = 0, keepdim = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("axis", axisAttr));
  POOT_RETURN_IF_ERROR(ctx.intAttrOr("keepdim", 0, keepdim));
  if (!normalizeAxis(axisAttr, x.rank(), axis))
    return ctx.invalid("axis " + std::to_string(axisAttr) +
                       " out of range for " + x.type().toString());
  DType dtype = x.dtype();
  int64_t len = x.shape()[axis];
  if (K != ReduceKind::Sum && len == 0 && !isFloat(dtype))
    return ctx.invalid("integer max/min over an empty axis has no value");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d)
    inner *= x.shape()[d];
  Shape shape = x.shape();
  if (keepdim)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  Tensor out({dtype, shape});
  bool floatAcc =
      ctx.mode == NumericMode::Native && isFloat(dtype) && dtype != DType::F64;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      auto elem = [&](int64_t p) { return x.at((o * len + p) * inner + j); };
      double r = 0.0;
      if (K == ReduceKind::Sum) {
        if (!isFloat(dtype)) {
          int64_t acc = 0;
          for (int64_t p = 0; p < len; ++p)
            acc = wrapAdd(acc, toInt64(elem(p)));
          r = fromInt64(acc);
        } else if (floatAcc) {
          float acc = 0.0f;
          for (int64_t p = 0; p < len; ++p)
            acc = addF32(acc, elem(p));
          r = acc;
        } else {
          for (int64_t p = 0; p < len; ++p)
            r += elem(p);
        }
      } else {
        const double inf = std::numeric_limits<double>::infinity();
        r = len == 0 ? (K == ReduceKind::Max ? -inf : inf) : elem(0);
        for (int64_t p = 1; p < len && !std::isnan(r); ++p) {
          double v = elem(p);
          if (std::isnan(v) || (K == ReduceKind::Max ? v > r : v < r))
            r = v;
        }
      }
      out.at(o * inner + j) = ctx.finish(dtype, r);
    }
  return ctx.produce(std::move(out));
}

Status evalTopk(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 2));
  const Tensor &x = ctx.operand(0);
  int64_t k = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("k", k));
  if (x.rank() < 1)
    return ctx.invalid("operand must have rank >= 1");
  int64_t len = x.shape().back();
  if (k < 0 || k > len)
    return ctx.invalid("k = " + std::to_string(k) + " outside [0, " +
                       std::to_string(len) + "]");
  DType indexType = ctx.resultTypes[1].dtype;
  if (indexType != DType::I32 && indexType != DType::I64)
    return ctx.invalid("indices must be i32 or i64, got " +
                       std::string(dtypeName(indexType)));
  Shape shape = x.shape();
  shape.back() = k;
  Tensor values({x.dtype(), shape});
  Tensor indices({indexType, shape});
  int64_t rows = len == 0 ? 0 : x.size() / len;
  std::vector<int64_t> order(len);
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x.values().data() + r * len;
    for (int64_t p = 0; p < len; ++p)
      order[p] = p;
    // A stable sort on "ranks strictly above" keeps equal values in index
    // order, which is the tie rule; NaN ranks above every number.
    std::stable_sort(order.begin(), order.end(), [row](int64_t p, int64_t q) {
      double u = row[p], v = row[q];
      if (std::isnan(u))
        return !std::isnan(v);
      if (std::isnan(v))
        return false;
      return u > v;
    });
    for (int64_t j = 0; j < k; ++j) {
      values.at(r * k + j) = row[order[j]];
      indices.at(r * k + j) = static_cast<double>(order[j]);
    }
  }
  POOT_RETURN_IF_ERROR(ctx.produce(std::move(values)));
  return ctx.produce(std::move(indices));
}

Status evalIndexGuard(OpContext &ctx) {
  POOT_RETURN_IF_ERROR(ctx.expectCounts(1, 2));
  const Tensor &idx = ctx.operand(0);
  int64_t lo = 0, hi = 0;
  POOT_RETURN_IF_ERROR(ctx.intAttr("lo", lo));
  POOT_RETURN_IF_ERROR(ctx.intAttr("hi", hi));
  if (lo > hi)
    return ctx.invalid("empty range [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  Tensor clamped(idx.type());
  bool inside = true;
  double dlo = static_cast<double>(lo), dhi = static_cast<double>(hi);
  for (int64_t i = 0; i < idx.size(); ++i) {
    double v = idx.at(i);
    // Written so NaN counts as outside and clamps to lo.
    bool ok = v >= dlo && v <= dhi;
    inside = inside && ok;
    clamped.at(i) = ok ? v : (v > dhi ? dhi : dlo);
  }
  POOT_RETURN_IF_ERROR(ctx.produce(std::move(clamped)));
  return ctx.produce(Tensor({DType::I1, {}}, {inside ? 1.0 : 0.0}));
}

//===----------------------------------------------------------------------===//
// Fused ops (FusedOps.cpp)
//===----------------------------------------------------------------------===//

using FusedKernel = Status (*)(const Eqn &, const std::vector<const Tensor *> &,
                               const std::vector<TensorType> &, NumericMode,
                               std::vector<Tensor> &);

/// Runs a fused kernel and hands its results through produce(), so they are
/// held to the record's result types like every other op's.
template <FusedKernel K> Status evalFused(OpContext &ctx) {
  std::vector<Tensor> out;
  POOT_RETURN_IF_ERROR(
      K(ctx.eqn, ctx.operands, ctx.resultTypes, ctx.mode, out));
  for (Tensor &t : out)
    POOT_RETURN_IF_ERROR(ctx.produce(std::move(t)));
  return Status::ok();
}

const std::unordered_map<std::string, Kernel> &kernels() {
  static const std::unordered_map<std::string, Kernel> table = {
      {"constant", evalConstant},
      {"iota", evalIota},
      {"convert", evalConvert},
      {"reshape", evalReshape},
      {"transpose", evalTranspose},
      {"broadcast", evalBroadcast},
      {"slice", evalSlice},
      {"concat", evalConcat},
      {"dynamic_slice", evalDynamicSlice},
      {"dynamic_update_slice", evalDynamicUpdateSlice},
      {"gather", evalGather},
      {"scatter_update", evalScatterUpdate},
      {"matmul", evalMatmul},
      {"add", evalBinary<BinaryKind::Add>},
      {"sub", evalBinary<BinaryKind::Sub>},
      {"mul", evalBinary<BinaryKind::Mul>},
      {"div", evalBinary<BinaryKind::Div>},
      {"max", evalBinary<BinaryKind::Max>},
      {"min", evalBinary<BinaryKind::Min>},
      {"pow", evalBinary<BinaryKind::Pow>},
      {"compare", evalCompare},
      {"select", evalSelect},
      {"and", evalLogical<true>},
      {"or", evalLogical<false>},
      {"not", evalNot},
      {"exp", evalUnary<UnaryKind::Exp>},
      {"log", evalUnary<UnaryKind::Log>},
      {"tanh", evalUnary<UnaryKind::Tanh>},
      {"neg", evalUnary<UnaryKind::Neg>},
      {"sin", evalUnary<UnaryKind::Sin>},
      {"cos", evalUnary<UnaryKind::Cos>},
      {"sqrt", evalUnary<UnaryKind::Sqrt>},
      {"rsqrt", evalUnary<UnaryKind::Rsqrt>},
      {"abs", evalUnary<UnaryKind::Abs>},
      {"reduce_sum", evalReduce<ReduceKind::Sum>},
      {"reduce_max", evalReduce<ReduceKind::Max>},
      {"reduce_min", evalReduce<ReduceKind::Min>},
      {"topk", evalTopk},
      {"index_guard", evalIndexGuard},
      {"rope", evalFused<detail::evalRope>},
      {"attention", evalFused<detail::evalAttention>},
      {"block_topk", evalFused<detail::evalBlockTopK>},
      {"selected_attention", evalFused<detail::evalSelectedAttention>},
  };
  return table;
}

/// A shape every kernel can index without surprises: no negative dims.
bool validShape(const Shape &shape) {
  return std::all_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d >= 0; });
}

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

/// The tensor bound for `input`, from either map; null when unbound.
const Tensor *boundTensor(const GraphInput &input, const Bindings &bindings) {
  auto it = bindings.inputs.find(input.name);
  if (it != bindings.inputs.end())
    return it->second;
  if (!input.state.empty()) {
    auto st = bindings.state.find(input.name);
    if (st != bindings.state.end())
      return st->second;
  }
  return nullptr;
}

/// Index of the input carrying state `state`, or -1.
int stateInput(const Graph &graph, const std::string &state) {
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    if (graph.inputs[i].state == state)
      return static_cast<int>(i);
  return -1;
}

bool validValue(const Graph &graph, int value) {
  return value >= 0 && static_cast<size_t>(value) < graph.values.size();
}

/// Checks one bound tensor against the type the graph declares for it.
Status checkType(const std::string &what, const TensorType &declared,
                 const Tensor &bound) {
  if (bound.dtype() != declared.dtype)
    return Status(ErrorCode::DtypeMismatch, what + ": expected " +
                                                declared.toString() + ", got " +
                                                bound.type().toString());
  if (bound.shape() != declared.shape)
    return Status(ErrorCode::ShapeMismatch, what + ": expected " +
                                                declared.toString() + ", got " +
                                                bound.type().toString());
  if (bound.size() != numElements(declared.shape))
    return Status(ErrorCode::ShapeMismatch,
                  what + ": " + declared.toString() + " holds " +
                      std::to_string(bound.size()) + " values");
  return Status::ok();
}

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

Status evaluateEqn(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                   const std::vector<TensorType> &resultTypes, NumericMode mode,
                   std::vector<Tensor> &results) {
  std::vector<Tensor> produced;
  OpContext ctx(eqn, operands, resultTypes, mode, produced);
  auto it = kernels().find(eqn.op);
  if (it == kernels().end())
    return ctx.error(ErrorCode::Unsupported, "unsupported op '" + eqn.op + "'");
  for (size_t i = 0; i < operands.size(); ++i) {
    const Tensor *t = operands[i];
    if (!t)
      return ctx.invalid("operand " + std::to_string(i) + " is null");
    if (!validShape(t->shape()) || t->size() != numElements(t->shape()))
      return ctx.invalid("operand " + std::to_string(i) + " of type " +
                         t->type().toString() + " holds " +
                         std::to_string(t->size()) + " values");
  }
  for (const TensorType &type : resultTypes)
    if (Status s = checkTensorType(type); !s.isOk())
      return ctx.error(s.code(), "result type: " + s.message());
  POOT_RETURN_IF_ERROR(it->second(ctx));
  if (produced.size() != resultTypes.size())
    return ctx.invalid("produced " + std::to_string(produced.size()) +
                       " results, the record declares " +
                       std::to_string(resultTypes.size()));
  results = std::move(produced);
  return Status::ok();
}

namespace {

bool held(const EqnRunner *runner, const std::string &inputName) {
  return runner && runner->holdsState(inputName);
}

Status checkBindingsFor(const Graph &graph, const Bindings &bindings,
                        const EqnRunner *runner) {
  for (const auto &[name, tensor] : bindings.inputs) {
    (void)tensor;
    if (graph.findInput(name) < 0)
      return Status(ErrorCode::UnknownName,
                    "graph '" + graph.name + "' has no input '" + name + "'");
  }
  for (const auto &[name, tensor] : bindings.state) {
    (void)tensor;
    int i = graph.findInput(name);
    if (i < 0 || graph.inputs[i].state.empty())
      return Status(ErrorCode::UnknownName, "graph '" + graph.name +
                                                "' has no state input '" +
                                                name + "'");
  }

  for (const GraphInput &input : graph.inputs) {
    if (!validValue(graph, input.value))
      return Status(ErrorCode::InvalidArgument,
                    "input '" + input.name + "' refers to value " +
                        std::to_string(input.value) + " of " +
                        std::to_string(graph.values.size()));
    auto in = bindings.inputs.find(input.name);
    auto st = bindings.state.find(input.name);
    bool inInputs = in != bindings.inputs.end();
    bool inState = st != bindings.state.end();
    // Naming the same buffer in both maps is still one binding.
    if (inInputs && inState && in->second != st->second)
      return Status(ErrorCode::InvalidArgument,
                    "input '" + input.name +
                        "' is bound twice, to different tensors in inputs "
                        "and state");
    const Tensor *bound = boundTensor(input, bindings);
    if (!bound && !input.state.empty() && held(runner, input.name))
      continue; // the runner keeps it
    if (!bound)
      return Status(ErrorCode::MissingInput,
                    "input '" + input.name + "' is not bound");
    const TensorType &declared = graph.values[input.value];
    POOT_RETURN_IF_ERROR(
        checkType("input '" + input.name + "'", declared, *bound));
    if (input.range) {
      auto [lo, hi] = *input.range;
      for (int64_t i = 0; i < bound->size(); ++i) {
        double v = bound->at(i);
        if (!(v >= static_cast<double>(lo) && v < static_cast<double>(hi)))
          return Status(ErrorCode::RangeViolation,
                        "input '" + input.name + "': value " + formatNumber(v) +
                            " at flat index " + std::to_string(i) +
                            " outside [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + ")");
      }
    }
    // A write map names each pool slot at most once (-1 drops a row): two
    // rows written to one slot would leave the pool depending on the order
    // of the writes.
    if (input.slot == "write_map") {
      std::map<int64_t, int64_t> firstAt;
      for (int64_t i = 0; i < bound->size(); ++i) {
        auto slot = static_cast<int64_t>(bound->at(i));
        if (slot < 0)
          continue;
        auto [it, fresh] = firstAt.emplace(slot, i);
        if (!fresh)
          return Status(ErrorCode::InvalidArgument,
                        "input '" + input.name + "': pool slot " +
                            std::to_string(slot) + " named twice (flat " +
                            "indices " + std::to_string(it->second) +
                            " and " + std::to_string(i) + ")");
      }
    }
  }

  for (const GraphOutput &output : graph.outputs) {
    if (!validValue(graph, output.value))
      return Status(ErrorCode::InvalidArgument,
                    "output '" + output.name + "' refers to value " +
                        std::to_string(output.value) + " of " +
                        std::to_string(graph.values.size()));
    if (output.state.empty())
      continue;
    int in = stateInput(graph, output.state);
    if (in < 0)
      return Status(ErrorCode::InvalidArgument,
                    "output '" + output.name + "' carries state '" +
                        output.state + "' but no input does");
    const std::string &inputName = graph.inputs[in].name;
    if (held(runner, inputName))
      continue;
    auto st = bindings.state.find(inputName);
    if (st == bindings.state.end() || !st->second)
      return Status(ErrorCode::MissingInput, "state '" + output.state +
                                                 "' has no buffer: bind one "
                                                 "under '" +
                                                 inputName +
                                                 "' in the state bindings");
    POOT_RETURN_IF_ERROR(checkType("state buffer '" + inputName + "'",
                                   graph.values[output.value], *st->second));
  }
  return Status::ok();
}

} // namespace

Status checkBindings(const Graph &graph, const Bindings &bindings) {
  return checkBindingsFor(graph, bindings, nullptr);
}

Status evaluate(const Graph &graph, const Bindings &bindings, NumericMode mode,
                std::map<std::string, Tensor> &outputs) {
  return evaluate(graph, bindings, mode, outputs, nullptr);
}

EqnRunner::~EqnRunner() = default;

bool EqnRunner::holdsState(const std::string &) const { return false; }

Status EqnRunner::runGraph(const Graph &, std::vector<Tensor> &,
                           std::vector<bool> &, bool &ran) {
  ran = false;
  return Status::ok();
}

namespace {

Status evaluateGraph(const Graph &graph, const Bindings &bindings,
                     NumericMode mode, std::map<std::string, Tensor> &outputs,
                     EqnRunner *runner) {
  POOT_RETURN_IF_ERROR(checkBindingsFor(graph, bindings, runner));

  // The value table is private: inputs are copied in so that state buffers
  // bound as inputs stay untouched until the run has succeeded. State the
  // runner holds is not copied: it is on the device.
  std::vector<Tensor> table(graph.values.size());
  std::vector<bool> defined(graph.values.size(), false);
  std::string heldName;
  for (const GraphInput &input : graph.inputs) {
    defined[input.value] = true;
    if (!input.state.empty() && held(runner, input.name)) {
      heldName = input.name;
      continue;
    }
    table[input.value] = *boundTensor(input, bindings);
  }
  auto heldOutput = [&](const GraphOutput &output) {
    if (output.state.empty())
      return false;
    int in = stateInput(graph, output.state);
    return in >= 0 && held(runner, graph.inputs[in].name);
  };

  bool ranWhole = false;
  if (runner)
    POOT_RETURN_IF_ERROR(runner->runGraph(graph, table, defined, ranWhole));
  if (!ranWhole && !heldName.empty())
    return Status(ErrorCode::Unsupported,
                  "state '" + heldName +
                      "' is held on the device, but the graph did not run "
                      "whole there");
  const std::vector<Eqn> none;
  for (const Eqn &eqn : ranWhole ? none : graph.eqns) {
    std::string where = eqn.location.empty() ? "" : eqn.location + ": ";
    std::vector<const Tensor *> operands;
    for (int v : eqn.operands) {
      if (!validValue(graph, v) || !defined[v])
        return Status(ErrorCode::InvalidArgument,
                      where + eqn.op + ": operand value " + std::to_string(v) +
                          " is not defined before use");
      operands.push_back(&table[v]);
    }
    std::vector<TensorType> resultTypes;
    for (int v : eqn.results) {
      if (!validValue(graph, v))
        return Status(ErrorCode::InvalidArgument,
                      where + eqn.op + ": result value " + std::to_string(v) +
                          " does not exist");
      resultTypes.push_back(graph.values[v]);
    }
    std::vector<Tensor> results;
    bool claimed = false;
    if (runner)
      POOT_RETURN_IF_ERROR(
          runner->run(eqn, operands, resultTypes, results, claimed));
    if (!claimed)
      POOT_RETURN_IF_ERROR(
          evaluateEqn(eqn, operands, resultTypes, mode, results));
    for (size_t i = 0; i < results.size(); ++i) {
      table[eqn.results[i]] = std::move(results[i]);
      defined[eqn.results[i]] = true;
    }
  }

  for (const GraphOutput &output : graph.outputs)
    if (!defined[output.value] && !heldOutput(output))
      return Status(ErrorCode::InvalidArgument,
                    "output '" + output.name + "' is never computed");

  for (const GraphOutput &output : graph.outputs) {
    if (!output.validation)
      continue;
    const Tensor &witness = table[output.value];
    for (int64_t i = 0; i < witness.size(); ++i)
      if (witness.at(i) == 0.0)
        return Status(ErrorCode::ValidationFailed,
                      "validation output '" + output.name +
                          "' is false at flat index " + std::to_string(i));
  }

  // The outputs are gathered first (that allocates, and may run out of
  // memory); the state copies after cannot fail, so publishing is all or
  // nothing.
  std::map<std::string, Tensor> published;
  for (const GraphOutput &output : graph.outputs) {
    const Tensor &value = table[output.value];
    if (!output.state.empty())
      continue;
    if (output.validation && value.dtype() != DType::I1) {
      Tensor witness({DType::I1, value.shape()});
      for (int64_t i = 0; i < value.size(); ++i)
        witness.at(i) = value.at(i) != 0.0 ? 1.0 : 0.0;
      published[output.name] = std::move(witness);
    } else {
      published[output.name] = value;
    }
  }
  for (const GraphOutput &output : graph.outputs) {
    if (output.state.empty() || heldOutput(output))
      continue;
    const Tensor &value = table[output.value];
    const std::string &inputName =
        graph.inputs[stateInput(graph, output.state)].name;
    // Copy into the existing storage: the caller's buffer (and any pointer
    // into its data) stays the same object, only the values change.
    Tensor *buffer = bindings.state.at(inputName);
    std::copy(value.values().begin(), value.values().end(),
              buffer->values().begin());
  }
  outputs.swap(published);
  return Status::ok();
}

} // namespace

Status evaluate(const Graph &graph, const Bindings &bindings, NumericMode mode,
                std::map<std::string, Tensor> &outputs, EqnRunner *runner) {
  // The allocation boundary of a run: the types are checked, but a large
  // graph may still need more memory than the machine has. Nothing has been
  // published when an allocation fails.
  try {
    return evaluateGraph(graph, bindings, mode, outputs, runner);
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported,
                  "graph '" + graph.name + "': out of memory");
  }
}

} // namespace poot::rt
