//===- ShapeFold.cpp - Import-time evaluation of shape subgraphs ----------===//
//
// The host side of the ONNX importer: element kinds, HostTensor, and the
// folds of the ops shape subgraphs are made of. Every fold follows the ONNX
// semantics of its op (integer division truncates, comparisons give bool,
// casts from float to integer truncate toward zero); float results are
// rounded to their kind after each op, as the graph would compute them.
//
//===----------------------------------------------------------------------===//

#include "ShapeFold.h"

#include "poot/Runtime/Tensor.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <limits>

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace poot::onnx {

bool isFloatKind(ElemKind kind) {
  return kind == ElemKind::F32 || kind == ElemKind::F16 ||
         kind == ElemKind::BF16 || kind == ElemKind::F64;
}

const char *kindName(ElemKind kind) {
  switch (kind) {
  case ElemKind::F32:
    return "f32";
  case ElemKind::F16:
    return "f16";
  case ElemKind::BF16:
    return "bf16";
  case ElemKind::F64:
    return "f64";
  case ElemKind::I32:
    return "i32";
  case ElemKind::I64:
    return "i64";
  case ElemKind::Bool:
    return "bool";
  }
  return "?";
}

std::optional<ElemKind> kindFromOnnx(int32_t dataType) {
  switch (dataType) {
  case ::onnx::TensorProto::FLOAT:
    return ElemKind::F32;
  case ::onnx::TensorProto::FLOAT16:
    return ElemKind::F16;
  case ::onnx::TensorProto::BFLOAT16:
    return ElemKind::BF16;
  case ::onnx::TensorProto::DOUBLE:
    return ElemKind::F64;
  case ::onnx::TensorProto::INT32:
    return ElemKind::I32;
  case ::onnx::TensorProto::INT64:
    return ElemKind::I64;
  case ::onnx::TensorProto::BOOL:
    return ElemKind::Bool;
  default:
    return std::nullopt;
  }
}

std::string onnxTypeName(int32_t dataType) {
  if (::onnx::TensorProto::DataType_IsValid(dataType))
    return ::onnx::TensorProto::DataType_Name(
        static_cast<::onnx::TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

double roundToKind(ElemKind kind, double value) {
  switch (kind) {
  case ElemKind::F32:
    return static_cast<double>(static_cast<float>(value));
  case ElemKind::F16:
    return rt::roundTo(rt::DType::F16, value);
  case ElemKind::BF16:
    return rt::roundTo(rt::DType::BF16, value);
  default:
    return value;
  }
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// An integer of `kind` wrapped to its width (bool: nonzero is 1).
static int64_t wrapInt(ElemKind kind, int64_t v) {
  if (kind == ElemKind::Bool)
    return v != 0 ? 1 : 0;
  if (kind == ElemKind::I32)
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  return v;
}

/// Float to integer: truncate toward zero, saturate, NaN gives 0 (the
/// convert op's semantics).
static int64_t floatToInt(ElemKind kind, double v) {
  if (std::isnan(v))
    return 0;
  if (kind == ElemKind::Bool)
    return v != 0.0 ? 1 : 0;
  double lo = kind == ElemKind::I32 ? -2147483648.0 : -9223372036854775808.0;
  double hi = kind == ElemKind::I32 ? 2147483647.0 : 9223372036854775807.0;
  if (v <= lo)
    return static_cast<int64_t>(lo);
  if (v >= hi)
    return kind == ElemKind::I32 ? 2147483647
                                 : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::trunc(v));
}

void HostTensor::setF(int64_t k, double v) {
  if (isFloat())
    f[k] = roundToKind(kind, v);
  else
    i[k] = floatToInt(kind, v);
}

void HostTensor::setI(int64_t k, int64_t v) {
  if (isFloat())
    f[k] = roundToKind(kind, static_cast<double>(v));
  else
    i[k] = wrapInt(kind, v);
}

bool HostTensor::isSplat() const {
  if (isFloat()) {
    for (double v : f)
      if (!(v == f.front() || (std::isnan(v) && std::isnan(f.front()))) ||
          std::signbit(v) != std::signbit(f.front()))
        return false;
    return true;
  }
  for (int64_t v : i)
    if (v != i.front())
      return false;
  return true;
}

HostTensor HostTensor::zeros(ElemKind kind, ArrayRef<int64_t> shape) {
  HostTensor t;
  t.kind = kind;
  t.shape.assign(shape.begin(), shape.end());
  if (t.isFloat())
    t.f.assign(t.numel(), 0.0);
  else
    t.i.assign(t.numel(), 0);
  return t;
}

HostTensor HostTensor::fromInts(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> values, ElemKind kind) {
  HostTensor t = zeros(kind, shape);
  for (size_t k = 0; k < values.size(); ++k)
    t.setI(static_cast<int64_t>(k), values[k]);
  return t;
}

SmallVector<int64_t, 4> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::optional<SmallVector<int64_t, 4>> broadcastShapes(ArrayRef<int64_t> a,
                                                       ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t, 4> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[k] = da == 1 ? db : da;
  }
  return out;
}

/// For each element of `outShape`, the flat index of the element of a
/// tensor of `inShape` that broadcasting reads.
static std::vector<int64_t> broadcastIndex(ArrayRef<int64_t> inShape,
                                           ArrayRef<int64_t> outShape) {
  int64_t n = 1;
  for (int64_t d : outShape)
    n *= d;
  std::vector<int64_t> index(n);
  SmallVector<int64_t, 4> inStrides = stridesOf(inShape);
  size_t offset = outShape.size() - inShape.size();
  SmallVector<int64_t, 4> pos(outShape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < inShape.size(); ++d)
      if (inShape[d] != 1)
        flat += pos[d + offset] * inStrides[d];
    index[k] = flat;
    for (int64_t d = static_cast<int64_t>(outShape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < outShape[d])
        break;
      pos[d] = 0;
    }
  }
  return index;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

std::optional<HostTensor> foldBinary(StringRef op, const HostTensor &a,
                                     const HostTensor &b) {
  auto shape = broadcastShapes(a.shape, b.shape);
  if (!shape)
    return std::nullopt;
  bool compare = op == "Equal" || op == "Less" || op == "LessOrEqual" ||
                 op == "Greater" || op == "GreaterOrEqual";
  bool logical = op == "And" || op == "Or" || op == "Xor";
  bool arith = op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
               op == "Pow" || op == "Max" || op == "Min" || op == "Mod";
  if (!compare && !logical && !arith)
    return std::nullopt;
  ElemKind kind = compare || logical ? ElemKind::Bool : a.kind;
  HostTensor out = HostTensor::zeros(kind, *shape);
  std::vector<int64_t> ia = broadcastIndex(a.shape, *shape);
  std::vector<int64_t> ib = broadcastIndex(b.shape, *shape);
  bool floats = a.isFloat() || b.isFloat();
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    if (floats) {
      double x = a.getF(ia[k]), y = b.getF(ib[k]);
      double r;
      if (op == "Add")
        r = x + y;
      else if (op == "Sub")
        r = x - y;
      else if (op == "Mul")
        r = x * y;
      else if (op == "Div")
        r = x / y;
      else if (op == "Pow")
        r = std::pow(x, y);
      else if (op == "Max")
        r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      else if (op == "Min")
        r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      else if (op == "Mod")
        r = std::fmod(x, y);
      else if (op == "Equal")
        r = x == y;
      else if (op == "Less")
        r = x < y;
      else if (op == "LessOrEqual")
        r = x <= y;
      else if (op == "Greater")
        r = x > y;
      else if (op == "GreaterOrEqual")
        r = x >= y;
      else
        return std::nullopt;
      out.setF(k, r);
      continue;
    }
    int64_t x = a.i[ia[k]], y = b.i[ib[k]];
    int64_t r;
    // Wrapping arithmetic, as the graph's integer ops.
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    if (op == "Add")
      r = wrap(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
    else if (op == "Sub")
      r = wrap(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
    else if (op == "Mul")
      r = wrap(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
    else if (op == "Div" || op == "Mod") {
      if (y == 0)
        return std::nullopt;
      if (op == "Div")
        r = x / y;
      else {
        // ONNX Mod (fmod = 0): the sign of the divisor.
        r = x % y;
        if (r != 0 && ((r < 0) != (y < 0)))
          r += y;
      }
    } else if (op == "Pow") {
      if (y < 0)
        return std::nullopt;
      r = 1;
      for (int64_t e = 0; e < y; ++e)
        r = wrap(static_cast<uint64_t>(r) * static_cast<uint64_t>(x));
    } else if (op == "Max")
      r = std::max(x, y);
    else if (op == "Min")
      r = std::min(x, y);
    else if (op == "Equal")
      r = x == y;
    else if (op == "Less")
      r = x < y;
    else if (op == "LessOrEqual")
      r = x <= y;
    else if (op == "Greater")
      r = x > y;
    else if (op == "GreaterOrEqual")
      r = x >= y;
    else if (op == "And")
      r = (x != 0) && (y != 0);
    else if (op == "Or")
      r = (x != 0) || (y != 0);
    else
      r = (x != 0) != (y != 0);
    out.setI(k, r);
  }
  return out;
}

std::optional<HostTensor> foldUnary(StringRef op, const HostTensor &x) {
  HostTensor out = HostTensor::zeros(op == "IsNaN" ? ElemKind::Bool : x.kind,
                                     x.shape);
  for (int64_t k = 0, n = x.numel(); k < n; ++k) {
    if (!x.isFloat()) {
      int64_t v = x.i[k];
      if (op == "Neg")
        out.setI(k, static_cast<int64_t>(0ull - static_cast<uint64_t>(v)));
      else if (op == "Abs")
        out.setI(k, v < 0 ? -v : v);
      else if (op == "Not" && x.kind == ElemKind::Bool)
        out.setI(k, v == 0);
      else if (op == "Relu")
        out.setI(k, v < 0 ? 0 : v);
      else if (op == "Sign")
        out.setI(k, v > 0 ? 1 : (v < 0 ? -1 : 0));
      else if (op == "IsNaN")
        out.setI(k, 0);
      else
        return std::nullopt;
      continue;
    }
    double v = x.f[k];
    double r;
    if (op == "Neg")
      r = -v;
    else if (op == "Abs")
      r = std::fabs(v);
    else if (op == "Sqrt")
      r = std::sqrt(v);
    else if (op == "Reciprocal")
      r = 1.0 / v;
    else if (op == "Exp")
      r = std::exp(v);
    else if (op == "Log")
      r = std::log(v);
    else if (op == "Sin")
      r = std::sin(v);
    else if (op == "Cos")
      r = std::cos(v);
    else if (op == "Tanh")
      r = std::tanh(v);
    else if (op == "Sigmoid")
      r = 1.0 / (1.0 + std::exp(-v));
    else if (op == "Floor")
      r = std::floor(v);
    else if (op == "Ceil")
      r = std::ceil(v);
    else if (op == "Relu")
      r = v < 0 ? 0.0 : v;
    else if (op == "Sign")
      r = v > 0 ? 1.0 : (v < 0 ? -1.0 : v);
    else if (op == "IsNaN") {
      out.setI(k, std::isnan(v) ? 1 : 0);
      continue;
    } else
      return std::nullopt;
    out.setF(k, r);
  }
  return out;
}

HostTensor foldCast(const HostTensor &x, ElemKind kind) {
  HostTensor out = HostTensor::zeros(kind, x.shape);
  for (int64_t k = 0, n = x.numel(); k < n; ++k) {
    if (x.isFloat())
      out.setF(k, x.f[k]);
    else
      out.setI(k, x.i[k]);
  }
  return out;
}

std::optional<HostTensor> foldWhere(const HostTensor &cond,
                                    const HostTensor &a, const HostTensor &b) {
  auto ab = broadcastShapes(a.shape, b.shape);
  if (!ab)
    return std::nullopt;
  auto shape = broadcastShapes(cond.shape, *ab);
  if (!shape)
    return std::nullopt;
  HostTensor out = HostTensor::zeros(a.kind, *shape);
  std::vector<int64_t> ic = broadcastIndex(cond.shape, *shape);
  std::vector<int64_t> ia = broadcastIndex(a.shape, *shape);
  std::vector<int64_t> ib = broadcastIndex(b.shape, *shape);
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    bool c = cond.getI(ic[k]) != 0;
    const HostTensor &src = c ? a : b;
    int64_t at = c ? ia[k] : ib[k];
    if (out.isFloat())
      out.f[k] = src.getF(at);
    else
      out.i[k] = src.getI(at);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

HostTensor foldReshape(const HostTensor &x, ArrayRef<int64_t> shape) {
  HostTensor out = x;
  out.shape.assign(shape.begin(), shape.end());
  return out;
}

/// A tensor of `shape` whose element k is x's element `index[k]`.
static HostTensor gatherFlat(const HostTensor &x, ArrayRef<int64_t> shape,
                             const std::vector<int64_t> &index) {
  HostTensor out = HostTensor::zeros(x.kind, shape);
  for (size_t k = 0; k < index.size(); ++k) {
    if (x.isFloat())
      out.f[k] = x.f[index[k]];
    else
      out.i[k] = x.i[index[k]];
  }
  return out;
}

/// Walks every multi-index of `shape` in row-major order.
template <typename Fn> static void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t, 4> pos(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(k, ArrayRef<int64_t>(pos));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
}

HostTensor foldTranspose(const HostTensor &x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t, 4> shape;
  for (int64_t p : perm)
    shape.push_back(x.shape[p]);
  SmallVector<int64_t, 4> inStrides = stridesOf(x.shape);
  std::vector<int64_t> index(x.numel());
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t flat = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      flat += pos[d] * inStrides[perm[d]];
    index[k] = flat;
  });
  return gatherFlat(x, shape, index);
}

HostTensor foldBroadcast(const HostTensor &x, ArrayRef<int64_t> shape) {
  return gatherFlat(x, shape, broadcastIndex(x.shape, shape));
}

HostTensor foldTake(const HostTensor &x,
                    ArrayRef<std::vector<int64_t>> positions) {
  SmallVector<int64_t, 4> shape;
  for (const auto &p : positions)
    shape.push_back(static_cast<int64_t>(p.size()));
  SmallVector<int64_t, 4> inStrides = stridesOf(x.shape);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> index(n);
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t flat = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      flat += positions[d][pos[d]] * inStrides[d];
    index[k] = flat;
  });
  return gatherFlat(x, shape, index);
}

HostTensor foldGather(const HostTensor &x, const HostTensor &indices,
                      int64_t axis) {
  SmallVector<int64_t, 4> shape(x.shape.begin(), x.shape.begin() + axis);
  shape.append(indices.shape.begin(), indices.shape.end());
  shape.append(x.shape.begin() + axis + 1, x.shape.end());
  SmallVector<int64_t, 4> inStrides = stridesOf(x.shape);
  int64_t idxRank = indices.rank();
  SmallVector<int64_t, 4> idxStrides = stridesOf(indices.shape);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> index(n);
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t flat = 0;
    for (int64_t d = 0; d < axis; ++d)
      flat += pos[d] * inStrides[d];
    int64_t at = 0;
    for (int64_t d = 0; d < idxRank; ++d)
      at += pos[axis + d] * idxStrides[d];
    flat += indices.getI(at) * inStrides[axis];
    for (int64_t d = axis + 1; d < x.rank(); ++d)
      flat += pos[d - 1 + idxRank] * inStrides[d];
    index[k] = flat;
  });
  return gatherFlat(x, shape, index);
}

HostTensor foldConcat(ArrayRef<const HostTensor *> inputs, int64_t axis) {
  SmallVector<int64_t, 4> shape(inputs.front()->shape);
  shape[axis] = 0;
  for (const HostTensor *t : inputs)
    shape[axis] += t->shape[axis];
  HostTensor out = HostTensor::zeros(inputs.front()->kind, shape);
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t along = pos[axis];
    for (const HostTensor *t : inputs) {
      if (along >= t->shape[axis]) {
        along -= t->shape[axis];
        continue;
      }
      SmallVector<int64_t, 4> strides = stridesOf(t->shape);
      int64_t flat = 0;
      for (size_t d = 0; d < pos.size(); ++d)
        flat += (static_cast<int64_t>(d) == axis ? along : pos[d]) *
                strides[d];
      if (out.isFloat())
        out.f[k] = t->getF(flat);
      else
        out.i[k] = t->getI(flat);
      break;
    }
  });
  return out;
}

HostTensor foldReduce(StringRef op, const HostTensor &x, int64_t axis,
                      bool keepdim) {
  SmallVector<int64_t, 4> shape(x.shape);
  int64_t extent = shape[axis];
  shape[axis] = 1;
  HostTensor out = HostTensor::zeros(x.kind, shape);
  SmallVector<int64_t, 4> inStrides = stridesOf(x.shape);
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t base = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      base += pos[d] * inStrides[d];
    if (x.isFloat()) {
      double acc = op == "Prod" ? 1.0
                   : op == "Max" ? -INFINITY
                   : op == "Min" ? INFINITY
                                 : 0.0;
      for (int64_t j = 0; j < extent; ++j) {
        double v = x.f[base + j * inStrides[axis]];
        if (op == "Sum" || op == "Mean")
          acc += v;
        else if (op == "Prod")
          acc *= v;
        else if (op == "Max")
          acc = std::isnan(v) || v > acc ? v : acc;
        else
          acc = std::isnan(v) || v < acc ? v : acc;
      }
      if (op == "Mean")
        acc /= static_cast<double>(extent);
      out.setF(k, acc);
      return;
    }
    int64_t acc = op == "Prod"  ? 1
                  : op == "Max" ? std::numeric_limits<int64_t>::min()
                  : op == "Min" ? std::numeric_limits<int64_t>::max()
                                : 0;
    for (int64_t j = 0; j < extent; ++j) {
      int64_t v = x.i[base + j * inStrides[axis]];
      if (op == "Sum" || op == "Mean")
        acc += v;
      else if (op == "Prod")
        acc *= v;
      else if (op == "Max")
        acc = std::max(acc, v);
      else
        acc = std::min(acc, v);
    }
    if (op == "Mean")
      acc /= extent;
    out.setI(k, acc);
  });
  if (!keepdim)
    out.shape.erase(out.shape.begin() + axis);
  return out;
}

HostTensor foldTrilu(const HostTensor &x, bool upper, int64_t k) {
  HostTensor out = x;
  int64_t rank = x.rank();
  forEachIndex(x.shape, [&](int64_t flat, ArrayRef<int64_t> pos) {
    int64_t row = pos[rank - 2], col = pos[rank - 1];
    bool keep = upper ? col - row >= k : col - row <= k;
    if (keep)
      return;
    if (out.isFloat())
      out.f[flat] = 0.0;
    else
      out.i[flat] = 0;
  });
  return out;
}

} // namespace poot::onnx
