//===- Tensor.cpp - Host tensors of the runtime ---------------------------===//
//
// Element types, rounding to a dtype and the binary16/bfloat16 bit codecs.
// Rounding is done from double directly so that roundTo is a single correctly
// rounded step; callers that want the f32-then-storage double rounding of a
// native kernel ask for it explicitly.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace poot::rt {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::I1:
    return "i1";
  }
  return "?";
}

bool parseDType(const std::string &name, DType &out) {
  static const DType all[] = {DType::F32, DType::F16, DType::BF16, DType::F64,
                              DType::I32, DType::I64, DType::I1};
  for (DType d : all) {
    if (name == dtypeName(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::F64;
}

int64_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I1:
    return 1;
  }
  return 0;
}

/// Rounds a finite or infinite `value` to a binary format with `precision`
/// significand bits (hidden bit included) and exponent range [emin, emax],
/// ties to even. Working on the double directly avoids the double rounding a
/// detour through float would introduce for f16 and bf16.
static double roundToBinary(double value, int precision, int emin, int emax) {
  if (std::isnan(value) || std::isinf(value) || value == 0.0)
    return value;
  double mag = std::fabs(value);
  int exp = 0;
  std::frexp(mag, &exp); // mag = m * 2^exp with m in [0.5, 1)
  // Below the normal range the quantum stops shrinking: that is what makes
  // subnormals come out right.
  int quantumExp = std::max(exp - 1, emin) - (precision - 1);
  double scaled = std::ldexp(mag, -quantumExp);
  // nearbyint follows the current rounding mode, which is ties-to-even
  // unless someone changed it; rint-based code elsewhere assumes the same.
  double rounded = std::ldexp(std::nearbyint(scaled), quantumExp);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - precision), emax);
  if (rounded > maxFinite)
    rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, value);
}

static double roundHalf(double v) { return roundToBinary(v, 11, -14, 15); }
static double roundBf16(double v) { return roundToBinary(v, 8, -126, 127); }

/// Wraps an integral double into the two's complement range of `bits` bits.
static double wrapInt(double v, int bits) {
  if (!std::isfinite(v))
    return 0.0;
  double x = std::nearbyint(v);
  double modulus = std::ldexp(1.0, bits);
  double half = std::ldexp(1.0, bits - 1);
  if (x >= -half && x < half)
    return x;
  // fmod is exact, so even huge values wrap to the right residue.
  double r = std::fmod(x, modulus);
  if (r >= half)
    r -= modulus;
  else if (r < -half)
    r += modulus;
  return r;
}

double roundTo(DType dtype, double value) {
  switch (dtype) {
  case DType::F64:
    return value;
  case DType::F32:
    return static_cast<double>(static_cast<float>(value));
  case DType::F16:
    return roundHalf(value);
  case DType::BF16:
    return roundBf16(value);
  case DType::I32:
    return wrapInt(value, 32);
  case DType::I64:
    return wrapInt(value, 64);
  case DType::I1:
    return value != 0.0 ? 1.0 : 0.0;
  }
  return value;
}

/// Encodes `value` as binary16, rounding once from the double.
static uint16_t doubleToHalfBits(double value) {
  uint64_t dbits;
  std::memcpy(&dbits, &value, sizeof(dbits));
  uint16_t sign = static_cast<uint16_t>((dbits >> 48) & 0x8000u);
  if (std::isnan(value)) {
    // Keep the top of the payload and force the quiet bit so the result is
    // still a NaN even when the kept payload bits are all zero.
    uint16_t payload = static_cast<uint16_t>((dbits >> 42) & 0x3FFu);
    return static_cast<uint16_t>(sign | 0x7C00u | 0x200u | payload);
  }
  double r = std::fabs(roundHalf(value));
  if (std::isinf(r))
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (r < std::ldexp(1.0, -14)) // subnormal or zero: an exact multiple of 2^-24
    return static_cast<uint16_t>(sign |
                                 static_cast<uint16_t>(std::ldexp(r, 24)));
  int exp = 0;
  std::frexp(r, &exp);
  int unbiased = exp - 1;
  uint16_t mant =
      static_cast<uint16_t>(std::ldexp(r, -unbiased) * 1024.0 - 1024.0);
  return static_cast<uint16_t>(sign | ((unbiased + 15) << 10) | mant);
}

uint16_t floatToHalfBits(float value) { return doubleToHalfBits(value); }

float halfBitsToFloat(uint16_t bits) {
  bool negative = bits & 0x8000u;
  int exp = (bits >> 10) & 0x1F;
  int mant = bits & 0x3FF;
  float mag;
  if (exp == 0) {
    mag = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    if (mant == 0) {
      mag = std::numeric_limits<float>::infinity();
    } else {
      // Carry the payload into the f32 mantissa so a round trip keeps it.
      uint32_t fbits = 0x7F800000u | (static_cast<uint32_t>(mant) << 13);
      std::memcpy(&mag, &fbits, sizeof(mag));
    }
  } else {
    mag = std::ldexp(static_cast<float>(1024 + mant), exp - 25);
  }
  return negative ? -mag : mag;
}

uint16_t floatToBf16Bits(float value) {
  uint32_t fbits;
  std::memcpy(&fbits, &value, sizeof(fbits));
  if (std::isnan(value))
    return static_cast<uint16_t>((fbits >> 16) | 0x40u);
  // bf16 is the top half of an f32, so RNE is adding just under half an ulp
  // plus the lsb of the kept part; a carry into the exponent is the correct
  // rounding up, including overflow to inf.
  uint32_t lsb = (fbits >> 16) & 1u;
  fbits += 0x7FFFu + lsb;
  return static_cast<uint16_t>(fbits >> 16);
}

uint16_t doubleToBf16Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  uint64_t mag = bits & 0x7FFFFFFFFFFFFFFFull;
  int exp = static_cast<int>(mag >> 52) - 1023;
  if (std::isnan(value) || exp < -126)
    // NaN, zero and bf16's subnormal range: the general path.
    return floatToBf16Bits(static_cast<float>(roundTo(DType::BF16, value)));
  // Round to nearest even at the 7th fraction bit; a carry into the
  // exponent is the right rounding up, past bf16's range it is infinity
  // (as is an infinite input).
  uint64_t lsb = (mag >> 45) & 1u;
  mag = (mag + (1ull << 44) - 1 + lsb) >> 45;
  int64_t biased = static_cast<int64_t>(mag >> 7) - 1023 + 127;
  if (biased >= 255)
    return static_cast<uint16_t>(sign | 0x7F80u);
  return static_cast<uint16_t>(sign | (biased << 7) | (mag & 0x7Fu));
}

float bf16BitsToFloat(uint16_t bits) {
  uint32_t fbits = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &fbits, sizeof(value));
  return value;
}

/// The product of the nonzero dims of `shape` and whether a dim is zero;
/// false when a dim is negative or the product overflows int64.
static bool nonzeroProduct(const Shape &shape, int64_t &product,
                           bool &hasZero) {
  product = 1;
  hasZero = false;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d == 0) {
      hasZero = true;
      continue;
    }
    if (__builtin_mul_overflow(product, d, &product))
      return false;
  }
  return true;
}

int64_t numElements(const Shape &shape) {
  int64_t product;
  bool hasZero;
  if (!nonzeroProduct(shape, product, hasZero))
    return -1;
  return hasZero ? 0 : product;
}

Status checkTensorType(const TensorType &type) {
  int64_t product;
  bool hasZero;
  for (int64_t d : type.shape)
    if (d < 0)
      return Status(ErrorCode::InvalidArgument,
                    type.toString() + " has a negative dim");
  if (!nonzeroProduct(type.shape, product, hasZero))
    return Status(ErrorCode::InvalidArgument,
                  type.toString() + ": its element count overflows int64");
  if (product > kMaxElements)
    return Status(ErrorCode::Unsupported,
                  type.toString() + " has " + std::to_string(product) +
                      (hasZero ? " elements in its nonzero dims"
                               : " elements") +
                      ", past the runtime's limit of 2^37");
  return Status::ok();
}

std::string shapeString(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string TensorType::toString() const {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + dtypeName(dtype) + ">";
}

Tensor::Tensor(TensorType type)
    : type_(std::move(type)),
      values_(
          static_cast<size_t>(std::max<int64_t>(numElements(type_.shape), 0)),
          0.0) {}

Tensor::Tensor(TensorType type, std::vector<double> values)
    : type_(std::move(type)), values_(std::move(values)) {}

Status Tensor::create(TensorType type, Tensor &out) {
  POOT_RETURN_IF_ERROR(checkTensorType(type));
  // The one place an allocation failure becomes a value: the size is sane,
  // but the machine may still not have the memory.
  try {
    out = Tensor(type);
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported,
                  "out of memory allocating " + type.toString());
  }
  return Status::ok();
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> result(type_.shape.size(), 1);
  for (int64_t i = rank() - 2; i >= 0; --i)
    result[i] = result[i + 1] * type_.shape[i + 1];
  return result;
}

} // namespace poot::rt
