//===- PootOps.cpp - Verifiers, type inference and folders ----------------===//
//
// Shape rules of the primitive ops. Result types are inferred where the op
// determines them, and each rule that fails says what it expected and what it
// got, at the op's location.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "InferInputs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>

using namespace mlir;
using namespace poot;

#include "poot/Dialect/PootEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// Prints a shape as [1, 8, 64].
struct ShapeStr {
  ArrayRef<int64_t> dims;
};

template <typename Stream>
Stream &operator<<(Stream &os, ShapeStr shape) {
  os << "[";
  llvm::interleaveComma(shape.dims, os);
  os << "]";
  return os;
}

RankedTensorType tensorOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// numpy broadcasting of two shapes, or failure.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Normalises a possibly negative axis against `rank`.
FailureOr<int64_t> normaliseAxis(std::optional<Location> loc, int64_t axis,
                                 int64_t rank, StringRef what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return emitOptionalError(loc, "expected ", what, " in [", -rank, ", ",
                             rank, "), got ", axis);
  return a;
}

LogicalResult inferBroadcast(std::optional<Location> loc, Value lhs, Value rhs,
                             Type elementType,
                             SmallVectorImpl<Type> &inferred) {
  auto lt = tensorOf(lhs), rt = tensorOf(rhs);
  auto shape = broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return emitOptionalError(loc, "expected broadcastable shapes, got ",
                             ShapeStr{lt.getShape()}, " and ",
                             ShapeStr{rt.getShape()});
  inferred.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// constant, iota
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor constant, got ",
                             adaptor.getValue().getType());
  inferred.push_back(type);
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult IotaOp::verify() {
  int64_t rank = getType().getRank();
  // The attribute is an i64 that ODS hands back unsigned: read it signed,
  // so a negative dim is reported as written.
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError() << "expected dim in [0, " << rank << "), got "
                         << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// convert, reshape
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "expected result shape " << ShapeStr{in.getShape()}
                         << ", got " << ShapeStr{out.getShape()};
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "expected result element type "
                         << in.getElementType() << ", got "
                         << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "expected " << in.getNumElements()
                         << " result elements, got " << out.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  // reshape(reshape(x)) is one reshape of x.
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    return dense.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// transpose, broadcast, slice, concat
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOptionalError(loc, "expected perm of length ", in.getRank(),
                             ", got ", perm.size());
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOptionalError(loc, "expected perm to be a permutation of [0, ",
                               in.getRank(), "), got ", ShapeStr{perm});
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return getX();
  return {};
}

LogicalResult BroadcastOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (static_cast<int64_t>(shape.size()) < in.getRank())
    return emitOptionalError(loc, "expected target rank >= ", in.getRank(),
                             ", got ", shape.size());
  size_t lead = shape.size() - in.getRank();
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t d = in.getDimSize(i);
    if (d != 1 && d != shape[lead + i])
      return emitOptionalError(loc, "expected shape ", ShapeStr{in.getShape()},
                               " to broadcast to ", ShapeStr{shape},
                               ", got dim ", i, " of size ", d);
  }
  for (int64_t d : shape)
    if (d <= 0)
      return emitOptionalError(loc, "expected positive target dims, got ",
                               ShapeStr{shape});
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getX()))
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult SliceOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    step = adaptor.getStep();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return emitOptionalError(loc, "expected start, limit and step of length ",
                             rank, ", got ", start.size(), ", ", limit.size(),
                             " and ", step.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (step[i] < 1)
      return emitOptionalError(loc, "expected step >= 1 on dim ", i, ", got ",
                               step[i]);
    if (start[i] < 0 || start[i] >= limit[i] || limit[i] > in.getDimSize(i))
      return emitOptionalError(loc, "expected 0 <= start < limit <= ",
                               in.getDimSize(i), " on dim ", i, ", got [",
                               start[i], ", ", limit[i], ")");
    shape.push_back((limit[i] - start[i] + step[i] - 1) / step[i]);
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

LogicalResult ConcatOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "expected at least one input, got none");
  auto first = tensorOf(inputs.front());
  auto axis = normaliseAxis(loc, adaptor.getAxis(), first.getRank(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    auto t = tensorOf(input);
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "expected element type ",
                               first.getElementType(), " for input ", i + 1,
                               ", got ", t.getElementType());
    if (t.getRank() != first.getRank())
      return emitOptionalError(loc, "expected rank ", first.getRank(),
                               " for input ", i + 1, ", got ", t.getRank());
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == *axis)
        continue;
      if (t.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, "expected dim ", d, " of input ", i + 1,
                                 " to be ", first.getDimSize(d), ", got ",
                                 t.getDimSize(d));
    }
    shape[*axis] += t.getDimSize(*axis);
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// dynamic_slice, dynamic_update_slice, gather, scatter_update
//===----------------------------------------------------------------------===//

LogicalResult DynamicSliceOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (static_cast<int64_t>(adaptor.getStarts().size()) != in.getRank())
    return emitOptionalError(loc, "expected ", in.getRank(), " starts, got ",
                             adaptor.getStarts().size());
  if (static_cast<int64_t>(sizes.size()) != in.getRank())
    return emitOptionalError(loc, "expected sizes of length ", in.getRank(),
                             ", got ", sizes.size());
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (sizes[i] < 1 || sizes[i] > in.getDimSize(i))
      return emitOptionalError(loc, "expected size in [1, ", in.getDimSize(i),
                               "] on dim ", i, ", got ", sizes[i]);
  inferred.push_back(RankedTensorType::get(sizes, in.getElementType()));
  return success();
}

LogicalResult DynamicUpdateSliceOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  auto upd = tensorOf(adaptor.getUpdate());
  if (upd.getElementType() != in.getElementType())
    return emitOptionalError(loc, "expected update element type ",
                             in.getElementType(), ", got ",
                             upd.getElementType());
  if (upd.getRank() != in.getRank())
    return emitOptionalError(loc, "expected update rank ", in.getRank(),
                             ", got ", upd.getRank());
  if (static_cast<int64_t>(adaptor.getStarts().size()) != in.getRank())
    return emitOptionalError(loc, "expected ", in.getRank(), " starts, got ",
                             adaptor.getStarts().size());
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (upd.getDimSize(i) > in.getDimSize(i))
      return emitOptionalError(loc, "expected update dim ", i, " <= ",
                               in.getDimSize(i), ", got ", upd.getDimSize(i));
  inferred.push_back(in);
  return success();
}

LogicalResult GatherOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  auto idx = tensorOf(adaptor.getIdx());
  auto axis = normaliseAxis(loc, adaptor.getAxis(), in.getRank(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(in.getShape().take_front(*axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, in.getShape().drop_front(*axis + 1));
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ScatterUpdateOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  auto idx = tensorOf(adaptor.getIdx());
  auto upd = tensorOf(adaptor.getUpdates());
  if (idx.getRank() != 1)
    return emitOptionalError(loc, "expected a rank-1 index, got rank ",
                             idx.getRank());
  SmallVector<int64_t> expected{idx.getDimSize(0)};
  llvm::append_range(expected, in.getShape().drop_front());
  if (upd.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(loc, "expected updates of shape ",
                             ShapeStr{expected}, ", got ",
                             ShapeStr{upd.getShape()});
  if (upd.getElementType() != in.getElementType())
    return emitOptionalError(loc, "expected updates element type ",
                             in.getElementType(), ", got ",
                             upd.getElementType());
  inferred.push_back(in);
  return success();
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOptionalError(loc, "expected operands of rank >= 2, got ",
                             a.getRank(), " and ", b.getRank());
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "expected one element type, got ",
                             a.getElementType(), " and ", b.getElementType());
  int64_t k = a.getShape().back();
  int64_t kb = b.getShape()[b.getRank() - 2];
  if (k != kb)
    return emitOptionalError(loc, "expected contracting dims to match, got ",
                             k, " and ", kb);
  auto batch = broadcastShapes(a.getShape().drop_back(2),
                               b.getShape().drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc, "expected broadcastable batch dims, got ",
                             ShapeStr{a.getShape().drop_back(2)}, " and ",
                             ShapeStr{b.getShape().drop_back(2)});
  SmallVector<int64_t> shape(*batch);
  shape.push_back(a.getShape()[a.getRank() - 2]);
  shape.push_back(b.getShape().back());
  inferred.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define POOT_BINARY_INFER(OP)                                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr attributes, OpaqueProperties properties,                  \
      RegionRange regions, SmallVectorImpl<Type> &inferred) {                  \
    Adaptor adaptor(operands, attributes, properties, regions);                \
    if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))   \
      return failure();                                                        \
    Type lt = tensorOf(adaptor.getLhs()).getElementType();                     \
    Type rt = tensorOf(adaptor.getRhs()).getElementType();                     \
    if (lt != rt)                                                              \
      return emitOptionalError(loc, "expected one element type, got ", lt,     \
                               " and ", rt);                                   \
    return inferBroadcast(loc, adaptor.getLhs(), adaptor.getRhs(), lt,         \
                          inferred);                                           \
  }
POOT_BINARY_INFER(AddOp)
POOT_BINARY_INFER(SubOp)
POOT_BINARY_INFER(MulOp)
POOT_BINARY_INFER(DivOp)
POOT_BINARY_INFER(MaxOp)
POOT_BINARY_INFER(MinOp)
POOT_BINARY_INFER(PowOp)
POOT_BINARY_INFER(AndOp)
POOT_BINARY_INFER(OrOp)
#undef POOT_BINARY_INFER

/// Whether `attr` is a constant splat equal to `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type et = splat.getElementType();
  if (isa<FloatType>(et))
    return splat.getSplatValue<APFloat>().convertToDouble() == value;
  if (et.isSignlessInteger())
    return splat.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(value);
  return false;
}

// x + 0 and x * 1 fold to x when the result keeps x's type.
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOf(adaptor.getRhs(), 0.0))
    return getLhs();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOf(adaptor.getRhs(), 1.0))
    return getLhs();
  return {};
}

// max(x, -inf) and min(x, +inf) fold to x (either side) when the result
// keeps x's type: jnp.max(x, initial=-inf) is lax.max(-inf, reduce_max(x)).
// A NaN x stays NaN either way.
template <typename Op>
static OpFoldResult foldIdentitySide(Op op, Attribute lhs, Attribute rhs,
                                     double identity) {
  if (op.getLhs().getType() == op.getType() && isSplatOf(rhs, identity))
    return op.getLhs();
  if (op.getRhs().getType() == op.getType() && isSplatOf(lhs, identity))
    return op.getRhs();
  return {};
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (!isa<FloatType>(cast<ShapedType>(getType()).getElementType()))
    return {};
  return foldIdentitySide(*this, adaptor.getLhs(), adaptor.getRhs(),
                          -INFINITY);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (!isa<FloatType>(cast<ShapedType>(getType()).getElementType()))
    return {};
  return foldIdentitySide(*this, adaptor.getLhs(), adaptor.getRhs(), INFINITY);
}

LogicalResult CompareOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  Type lt = tensorOf(adaptor.getLhs()).getElementType();
  Type rt = tensorOf(adaptor.getRhs()).getElementType();
  if (lt != rt)
    return emitOptionalError(loc, "expected one element type, got ", lt,
                             " and ", rt);
  return inferBroadcast(loc, adaptor.getLhs(), adaptor.getRhs(),
                        IntegerType::get(ctx, 1), inferred);
}

LogicalResult SelectOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto a = tensorOf(adaptor.getOnTrue()), b = tensorOf(adaptor.getOnFalse());
  auto c = tensorOf(adaptor.getCond());
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "expected one element type, got ",
                             a.getElementType(), " and ", b.getElementType());
  auto ab = broadcastShapes(a.getShape(), b.getShape());
  FailureOr<SmallVector<int64_t>> all = failure();
  if (succeeded(ab))
    all = broadcastShapes(c.getShape(), *ab);
  if (failed(all))
    return emitOptionalError(loc, "expected broadcastable shapes, got ",
                             ShapeStr{c.getShape()}, ", ",
                             ShapeStr{a.getShape()}, " and ",
                             ShapeStr{b.getShape()});
  inferred.push_back(RankedTensorType::get(*all, a.getElementType()));
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCond());
  if (!splat)
    return {};
  Value chosen = splat.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions, topk, index_guard
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> loc, Value x,
                                 int64_t axisAttr, bool keepdim,
                                 SmallVectorImpl<Type> &inferred) {
  auto in = tensorOf(x);
  auto axis = normaliseAxis(loc, axisAttr, in.getRank(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (i != *axis)
      shape.push_back(in.getDimSize(i));
    else if (keepdim)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

#define POOT_REDUCE_INFER(OP)                                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr attributes, OpaqueProperties properties,                  \
      RegionRange regions, SmallVectorImpl<Type> &inferred) {                  \
    Adaptor adaptor(operands, attributes, properties, regions);                \
    if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))   \
      return failure();                                                        \
    return inferReduce(loc, adaptor.getX(), adaptor.getAxis(),                 \
                       adaptor.getKeepdim(), inferred);                        \
  }
POOT_REDUCE_INFER(ReduceSumOp)
POOT_REDUCE_INFER(ReduceMaxOp)
POOT_REDUCE_INFER(ReduceMinOp)
#undef POOT_REDUCE_INFER

LogicalResult TopKOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto in = tensorOf(adaptor.getX());
  if (in.getRank() < 1)
    return emitOptionalError(loc, "expected an operand of rank >= 1, got 0");
  int64_t n = in.getShape().back();
  int64_t k = adaptor.getK();
  if (k < 1 || k > n)
    return emitOptionalError(loc, "expected k in [1, ", n, "], got ", k);
  SmallVector<int64_t> shape(in.getShape());
  shape.back() = k;
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult IndexGuardOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  // The bounds are signed: I64Attr's plain getters read them unsigned.
  int64_t lo = adaptor.getLoAttr().getInt(), hi = adaptor.getHiAttr().getInt();
  if (lo > hi)
    return emitOptionalError(loc, "expected lo <= hi, got [", lo, ", ", hi,
                             "]");
  inferred.push_back(adaptor.getIdx().getType());
  inferred.push_back(RankedTensorType::get({}, IntegerType::get(ctx, 1)));
  return success();
}

#define GET_OP_CLASSES
#include "poot/Dialect/PootOps.cpp.inc"
