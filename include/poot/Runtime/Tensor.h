//===- Tensor.h - Host tensors of the runtime -------------------*- C++ -*-===//
//
// A host tensor: element type, static shape and values. Values are held as
// doubles whatever the element type; every op rounds its results to the
// element type (f32, f16, bf16, integer wrap), so a tensor always holds values
// its dtype can represent. That keeps one implementation per op for every
// dtype and lets the f64 reference mode skip the rounding.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_TENSOR_H
#define POOT_RUNTIME_TENSOR_H

#include "poot/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace poot::rt {

enum class DType : uint8_t { F32, F16, BF16, F64, I32, I64, I1 };

/// "f32", "bf16", "i1", ...
const char *dtypeName(DType dtype);
/// Parses a dtype name; returns false when it is not one.
bool parseDType(const std::string &name, DType &out);
bool isFloat(DType dtype);
/// Bytes of one element in storage (i1 is one byte).
int64_t dtypeBytes(DType dtype);

/// Rounds `value` to the nearest value of `dtype` (round to nearest even for
/// floats, two's complement wrap for integers, nonzero -> 1 for i1).
double roundTo(DType dtype, double value);

/// IEEE binary16 / bfloat16 bit conversions (round to nearest even).
uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBf16Bits(float value);
float bf16BitsToFloat(uint16_t bits);
/// bfloat16 bits of `value` rounded once from the double (the bits of
/// roundTo(BF16, value)), on the bits directly where bf16 is normal.
uint16_t doubleToBf16Bits(double value);

using Shape = std::vector<int64_t>;

/// The most elements one tensor may have: 2^37, so that its values (held as
/// doubles) and its raw storage both stay within 2^40 bytes. Every partial
/// product of the dims of a shape within it fits, so strides cannot overflow.
inline constexpr int64_t kMaxElements = int64_t(1) << 37;

/// The number of elements of `shape`, or -1 when a dim is negative or the
/// product of its nonzero dims does not fit int64 (checked arithmetic).
int64_t numElements(const Shape &shape);
/// "[1, 8, 1, 64]"
std::string shapeString(const Shape &shape);

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorType &other) const { return !(*this == other); }
  /// "tensor<1x8x1x64xf32>"
  std::string toString() const;
};

/// Whether the runtime can hold a tensor of `type`: InvalidArgument for a
/// negative dim or a count that overflows, Unsupported past kMaxElements
/// (counting the nonzero dims, so a zero dim does not hide huge ones).
Status checkTensorType(const TensorType &type);

class Tensor {
public:
  Tensor() = default;
  /// A tensor of `type` with every element zero.
  explicit Tensor(TensorType type);
  Tensor(TensorType type, std::vector<double> values);
  /// A tensor of `type` with every element zero, or a typed error when
  /// checkTensorType refuses `type` or its memory cannot be allocated
  /// (Unsupported): what paths reached from files and plans use.
  static Status create(TensorType type, Tensor &out);

  const TensorType &type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape &shape() const { return type_.shape; }
  int64_t rank() const { return static_cast<int64_t>(type_.shape.size()); }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }

  double &at(int64_t flatIndex) { return values_[flatIndex]; }
  double at(int64_t flatIndex) const { return values_[flatIndex]; }
  std::vector<double> &values() { return values_; }
  const std::vector<double> &values() const { return values_; }

  /// Row-major strides of the shape, in elements.
  std::vector<int64_t> strides() const;

private:
  TensorType type_;
  std::vector<double> values_;
};

/// A tensor from raw storage: elements in `type`'s dtype, little-endian,
/// row-major (f16/bf16 as 16-bit patterns, i1 as one byte).
Tensor decodeStorage(const TensorType &type, const void *data);
/// Writes `tensor` as raw storage of its dtype (rounding values the f64
/// reference mode left unrounded).
void encodeStorage(const Tensor &tensor, void *data);
/// Bytes of `type` in raw storage, or -1 where numElements gives -1 or the
/// byte count overflows.
int64_t storageBytes(const TensorType &type);

} // namespace poot::rt

#endif // POOT_RUNTIME_TENSOR_H
