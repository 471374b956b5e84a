//===- ShapeFold.h - Host tensors the ONNX importer folds -------*- C++ -*-===//
//
// Values the importer knows at import time: constants, initializers kept as
// constants, and everything computed from them and from the bound shapes
// (Shape -> Gather -> Concat -> Reshape chains). A HostTensor holds such a
// value on the host; the fold functions evaluate the ops of shape
// subgraphs on them with ONNX semantics, so those subgraphs never reach the
// graph. A fold that does not apply returns std::nullopt with a reason, and
// the importer emits the op instead.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_FRONTEND_ONNX_SHAPEFOLD_H
#define POOT_LIB_FRONTEND_ONNX_SHAPEFOLD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace poot::onnx {

/// The element types poot graphs hold.
enum class ElemKind { F32, F16, BF16, F64, I32, I64, Bool };

bool isFloatKind(ElemKind kind);
/// "f32", "i64", "bool", ...
const char *kindName(ElemKind kind);
/// The ElemKind of an ONNX TensorProto data type, or std::nullopt.
std::optional<ElemKind> kindFromOnnx(int32_t dataType);
/// The name of an ONNX TensorProto data type ("FLOAT", "UINT8", ...).
std::string onnxTypeName(int32_t dataType);

/// A tensor known at import time. Float kinds keep their values in `f`
/// (already rounded to the kind), integer kinds and bool in `i`.
struct HostTensor {
  ElemKind kind = ElemKind::I64;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> f;
  std::vector<int64_t> i;

  bool isFloat() const { return isFloatKind(kind); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  double getF(int64_t k) const {
    return isFloat() ? f[k] : static_cast<double>(i[k]);
  }
  int64_t getI(int64_t k) const {
    return isFloat() ? static_cast<int64_t>(f[k]) : i[k];
  }
  /// Sets element k from a double (rounded to the kind) or an integer.
  void setF(int64_t k, double v);
  void setI(int64_t k, int64_t v);
  /// Whether every element equals the first.
  bool isSplat() const;

  static HostTensor zeros(ElemKind kind, llvm::ArrayRef<int64_t> shape);
  static HostTensor fromInts(llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<int64_t> values,
                             ElemKind kind = ElemKind::I64);
};

/// `value` rounded to the precision of a float `kind`.
double roundToKind(ElemKind kind, double value);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape);

/// numpy broadcasting of two shapes, or std::nullopt.
std::optional<llvm::SmallVector<int64_t, 4>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The most elements a folded tensor may have; larger results are emitted.
inline constexpr int64_t kFoldLimit = int64_t(1) << 16;

/// Elementwise folds with numpy broadcasting. `op` is the ONNX op type:
/// Add, Sub, Mul, Div, Pow, Max, Min, Mod, Equal, Less, LessOrEqual,
/// Greater, GreaterOrEqual, And, Or, Xor. std::nullopt when `op` is not one
/// of these or the shapes do not broadcast.
std::optional<HostTensor> foldBinary(llvm::StringRef op, const HostTensor &a,
                                     const HostTensor &b);
/// Neg, Abs, Sqrt, Reciprocal, Not, Exp, Log, Sin, Cos, Tanh, Sigmoid,
/// Floor, Ceil, IsNaN, Relu.
std::optional<HostTensor> foldUnary(llvm::StringRef op, const HostTensor &x);
/// Cast to `kind` (float to integer truncates toward zero).
HostTensor foldCast(const HostTensor &x, ElemKind kind);
/// where(cond, a, b) with broadcasting.
std::optional<HostTensor> foldWhere(const HostTensor &cond,
                                    const HostTensor &a, const HostTensor &b);
/// Layout folds; their arguments are already checked and normalised.
HostTensor foldReshape(const HostTensor &x, llvm::ArrayRef<int64_t> shape);
HostTensor foldTranspose(const HostTensor &x, llvm::ArrayRef<int64_t> perm);
HostTensor foldBroadcast(const HostTensor &x, llvm::ArrayRef<int64_t> shape);
/// One index list per axis (each in range): the result takes, on every
/// axis, the listed positions in order (Slice with any step).
HostTensor foldTake(const HostTensor &x,
                    llvm::ArrayRef<std::vector<int64_t>> positions);
/// numpy take along `axis` with in-range indices.
HostTensor foldGather(const HostTensor &x, const HostTensor &indices,
                      int64_t axis);
HostTensor foldConcat(llvm::ArrayRef<const HostTensor *> inputs, int64_t axis);
/// Reduction over one axis: Sum, Max, Min, Prod, Mean.
HostTensor foldReduce(llvm::StringRef op, const HostTensor &x, int64_t axis,
                      bool keepdim);
/// Lower (upper = false) or upper triangle with diagonal offset k of the
/// last two axes; the rest becomes zero.
HostTensor foldTrilu(const HostTensor &x, bool upper, int64_t k);

} // namespace poot::onnx

#endif // POOT_LIB_FRONTEND_ONNX_SHAPEFOLD_H
