//===- Storage.cpp - Tensors to and from raw device storage ---------------===//

#include "poot/Runtime/Tensor.h"

#include <cstring>

using namespace poot::rt;

int64_t poot::rt::storageBytes(const TensorType &type) {
  int64_t n = numElements(type.shape), bytes;
  if (n < 0 || __builtin_mul_overflow(n, dtypeBytes(type.dtype), &bytes))
    return -1;
  return bytes;
}

Tensor poot::rt::decodeStorage(const TensorType &type, const void *data) {
  Tensor t(type);
  const unsigned char *p = static_cast<const unsigned char *>(data);
  for (int64_t i = 0; i < t.size(); ++i) {
    double v = 0;
    switch (type.dtype) {
    case DType::F32: { float f; std::memcpy(&f, p + 4 * i, 4); v = f; break; }
    case DType::F64: std::memcpy(&v, p + 8 * i, 8); break;
    case DType::F16: { uint16_t h; std::memcpy(&h, p + 2 * i, 2); v = halfBitsToFloat(h); break; }
    case DType::BF16: { uint16_t h; std::memcpy(&h, p + 2 * i, 2); v = bf16BitsToFloat(h); break; }
    case DType::I32: { int32_t x; std::memcpy(&x, p + 4 * i, 4); v = x; break; }
    case DType::I64: { int64_t x; std::memcpy(&x, p + 8 * i, 8); v = static_cast<double>(x); break; }
    case DType::I1: v = p[i] ? 1 : 0; break;
    }
    t.at(i) = v;
  }
  return t;
}

void poot::rt::encodeStorage(const Tensor &t, void *data) {
  unsigned char *p = static_cast<unsigned char *>(data);
  if (t.dtype() == DType::BF16) {
    // The common case of large caches, on the bits (the same result).
    for (int64_t i = 0; i < t.size(); ++i) {
      uint16_t h = doubleToBf16Bits(t.at(i));
      std::memcpy(p + 2 * i, &h, 2);
    }
    return;
  }
  for (int64_t i = 0; i < t.size(); ++i) {
    double v = roundTo(t.dtype(), t.at(i));
    switch (t.dtype()) {
    case DType::F32: { float f = static_cast<float>(v); std::memcpy(p + 4 * i, &f, 4); break; }
    case DType::F64: std::memcpy(p + 8 * i, &v, 8); break;
    case DType::F16: { uint16_t h = floatToHalfBits(static_cast<float>(v)); std::memcpy(p + 2 * i, &h, 2); break; }
    case DType::BF16: { uint16_t h = floatToBf16Bits(static_cast<float>(v)); std::memcpy(p + 2 * i, &h, 2); break; }
    case DType::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p + 4 * i, &x, 4); break; }
    case DType::I64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p + 8 * i, &x, 8); break; }
    case DType::I1: p[i] = v != 0 ? 1 : 0; break;
    }
  }
}
