//===- TensorTest.cpp - Tests of dtypes, rounding and Status --------------===//
//
// The rounding rules here decide what every native-mode op result is, so the
// corner cases (ties, subnormals, overflow, NaN, integer wrap) are pinned
// down bit for bit.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Tensor.h"
#include "poot/Runtime/Status.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace poot::rt;

namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

const double kInf = std::numeric_limits<double>::infinity();

TEST(TensorTest, DTypeNamesRoundTrip) {
  for (DType d : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32,
                  DType::I64, DType::I1}) {
    DType parsed = DType::F32;
    ASSERT_TRUE(parseDType(dtypeName(d), parsed)) << dtypeName(d);
    EXPECT_EQ(parsed, d);
  }
  DType unused;
  EXPECT_FALSE(parseDType("f8", unused));
  EXPECT_TRUE(isFloat(DType::BF16));
  EXPECT_FALSE(isFloat(DType::I1));
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_EQ(dtypeBytes(DType::I1), 1);
  EXPECT_EQ(dtypeBytes(DType::I64), 8);
}

TEST(TensorTest, ShapesAndStrides) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 0, 3}), 0);
  EXPECT_EQ(shapeString({1, 8, 1, 64}), "[1, 8, 1, 64]");
  EXPECT_EQ(shapeString({}), "[]");
  EXPECT_EQ((TensorType{DType::F32, {1, 8, 1, 64}}.toString()),
            "tensor<1x8x1x64xf32>");
  EXPECT_EQ((TensorType{DType::I32, {}}.toString()), "tensor<i32>");
  Tensor t(TensorType{DType::F16, {2, 3, 4}});
  EXPECT_EQ(t.size(), 24);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4, 1}));
  for (double v : t.values())
    EXPECT_EQ(v, 0.0);
}

TEST(TensorTest, HalfExactValues) {
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7BFF); // largest finite
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400); // min normal
  EXPECT_EQ(halfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0x7C00), std::numeric_limits<float>::infinity());
}

TEST(TensorTest, HalfRoundsToNearestEven) {
  // Halfway between 1 and the next half (1 + 2^-10): ties go to even 1.0.
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): rounds up.
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie rounds up.
  EXPECT_EQ(
      floatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
      0x3C01);
}

TEST(TensorTest, HalfSubnormals) {
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);
  // Half the smallest subnormal is a tie between 0 and 2^-24: even is 0.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  // 1.5 * 2^-24 is a tie between 0x0001 and 0x0002: even is 0x0002.
  EXPECT_EQ(floatToHalfBits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(floatToHalfBits(-std::ldexp(1.0f, -24)), 0x8001);
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)),
            0x0400);
  EXPECT_EQ(roundTo(DType::F16, std::ldexp(1.0, -26)), 0.0);
}

TEST(TensorTest, HalfOverflowAndNaN) {
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7BFF); // below the midpoint
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00); // tie rounds to even = inf
  EXPECT_EQ(floatToHalfBits(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalfBits(-1e10f), 0xFC00);
  EXPECT_EQ(roundTo(DType::F16, 70000.0), kInf);
  uint16_t nan = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  // A signalling NaN whose payload lives only in the low bits stays a NaN.
  EXPECT_TRUE(
      std::isnan(halfBitsToFloat(floatToHalfBits(fromBits(0x7F800001)))));
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(roundTo(DType::F16, std::nan(""))));
}

TEST(TensorTest, HalfAllBitPatternsRoundTrip) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = halfBitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToHalfBits(f), bits) << std::hex << bits;
    ASSERT_EQ(roundTo(DType::F16, f), static_cast<double>(f));
  }
}

// The bit-level double -> bf16 encoding is the reference rounding, bit for
// bit: random doubles over the whole exponent range, ties, both edges of
// the normal range, infinities, zeros and NaN.
TEST(TensorTest, Bf16EncodingFromDoubleMatchesRounding) {
  auto reference = [](double v) {
    return floatToBf16Bits(static_cast<float>(roundTo(DType::BF16, v)));
  };
  std::vector<double> cases = {0.0, -0.0, 1.0, -1.0, kInf, -kInf,
                               1.0 + std::ldexp(1.0, -8),
                               1.0 + 3 * std::ldexp(1.0, -8),
                               1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),
                               std::ldexp(1.0, -126), std::ldexp(1.0, -127),
                               std::ldexp(1.5, -130), std::ldexp(1.0, -134),
                               std::ldexp(255.0 / 128, 127),
                               std::ldexp(255.5 / 128, 127), 1e39, -1e39,
                               3.3895313892515355e38, 3.40282346e38};
  uint64_t state = 7;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t bits = state;
    double v;
    std::memcpy(&v, &bits, sizeof(v));
    if (!std::isnan(v) && std::fabs(v) > 1e-60 && std::fabs(v) < 1e60)
      cases.push_back(v);
    // Values near bf16's range and near ties.
    double near = std::ldexp(1.0 + static_cast<double>(state >> 44) /
                                       static_cast<double>(1ull << 20),
                             static_cast<int>(state % 270) - 135);
    cases.push_back((state >> 63) ? -near : near);
  }
  for (double v : cases)
    ASSERT_EQ(doubleToBf16Bits(v), reference(v)) << v;
  uint16_t nan = doubleToBf16Bits(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(nan)));
}

TEST(TensorTest, Bf16Rounding) {
  EXPECT_EQ(floatToBf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(bf16BitsToFloat(0x3F80), 1.0f);
  // Ties: 1 + 2^-8 sits halfway between 1.0 and 1 + 2^-7; even is 1.0.
  EXPECT_EQ(floatToBf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(floatToBf16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(
      floatToBf16Bits(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
      0x3F81);
  // Subnormal tie 0x00018000 -> 0x0002 (even), 0x00008000 -> 0.
  EXPECT_EQ(floatToBf16Bits(fromBits(0x00018000)), 0x0002);
  EXPECT_EQ(floatToBf16Bits(fromBits(0x00008000)), 0x0000);
  // FLT_MAX is past the midpoint above bf16's largest finite: inf.
  EXPECT_EQ(floatToBf16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBf16Bits(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(floatToBf16Bits(fromBits(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(roundTo(DType::BF16, 1e39), kInf);
  uint16_t nan = floatToBf16Bits(fromBits(0x7F800001));
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(nan)));
  EXPECT_TRUE(std::isnan(roundTo(DType::BF16, std::nan(""))));
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(roundTo(DType::BF16, 3.0 * std::ldexp(1.0, -134)),
            std::ldexp(1.0, -132)); // subnormal tie to even
}

TEST(TensorTest, RoundToIsASingleRoundingFromDouble) {
  // Via float this would first become the tie 1 + 2^-11 and then 1.0; the
  // correctly rounded f16 value is 1 + 2^-10.
  double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(roundTo(DType::F16, v), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(roundTo(DType::F32, 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(roundTo(DType::F64, 0.1), 0.1);
  EXPECT_EQ(roundTo(DType::F32, 1e39), kInf);
}

TEST(TensorTest, IntegerRoundingWraps) {
  EXPECT_EQ(roundTo(DType::I32, 2147483648.0), -2147483648.0);
  EXPECT_EQ(roundTo(DType::I32, -2147483649.0), 2147483647.0);
  EXPECT_EQ(roundTo(DType::I32, 4294967296.0 + 5), 5.0);
  EXPECT_EQ(roundTo(DType::I32, -7.0), -7.0);
  EXPECT_EQ(roundTo(DType::I32, 1e20),
            roundTo(DType::I32, std::fmod(1e20, 4294967296.0)));
  EXPECT_EQ(roundTo(DType::I64, 9223372036854775808.0), -9223372036854775808.0);
  EXPECT_EQ(roundTo(DType::I64, 123456789012.0), 123456789012.0);
  EXPECT_EQ(roundTo(DType::I1, 5.0), 1.0);
  EXPECT_EQ(roundTo(DType::I1, -1.0), 1.0);
  EXPECT_EQ(roundTo(DType::I1, 0.0), 0.0);
  EXPECT_EQ(roundTo(DType::I1, -0.0), 0.0);
}

// Element counts are checked products: a shape whose count passes int64
// (the fuzzers' .npy headers, a plan dim clamped to INT64_MIN) is -1 or a
// typed error, never undefined behaviour or a wrapped small count.
TEST(TensorTest, ElementCountsAreChecked) {
  const int64_t big = int64_t(1) << 48;
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({0, 5}), 0);
  EXPECT_EQ(numElements({big, big}), -1);
  // A zero dim does not hide dims whose product overflows.
  EXPECT_EQ(numElements({big, big, 0}), -1);
  EXPECT_EQ(numElements({0, big, big}), -1);
  EXPECT_EQ(numElements({2, -3}), -1);
  EXPECT_EQ(numElements({std::numeric_limits<int64_t>::min(), 4}), -1);
  EXPECT_EQ(numElements({int64_t(1) << 32, int64_t(1) << 32}), -1);

  EXPECT_EQ(storageBytes({DType::F32, {2, 3}}), 24);
  EXPECT_EQ(storageBytes({DType::F32, {big, big}}), -1);
  EXPECT_EQ(storageBytes({DType::F64, {int64_t(1) << 61}}), -1);

  EXPECT_TRUE(checkTensorType({DType::F32, {2, 3}}).isOk());
  EXPECT_TRUE(checkTensorType({DType::F32, {0, 4}}).isOk());
  EXPECT_TRUE(checkTensorType({DType::F32, {kMaxElements}}).isOk());
  EXPECT_EQ(checkTensorType({DType::F32, {2, -1}}).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(checkTensorType({DType::F32, {big, big, 0}}).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(checkTensorType({DType::F32, {kMaxElements + 1}}).code(),
            ErrorCode::Unsupported);
  EXPECT_EQ(checkTensorType({DType::F32, {65536, 65536, 65536}}).code(),
            ErrorCode::Unsupported);
  // Past the limit in its nonzero dims even with a zero among them.
  EXPECT_EQ(checkTensorType({DType::F32, {kMaxElements, 2, 0}}).code(),
            ErrorCode::Unsupported);
}

TEST(TensorTest, CreateRefusesWhatCannotBeHeld) {
  Tensor t;
  ASSERT_TRUE(Tensor::create({DType::I32, {2, 2}}, t).isOk());
  EXPECT_EQ(t.size(), 4);
  EXPECT_EQ(t.at(3), 0.0);
  Tensor untouched({DType::F32, {1}}, {7.0});
  EXPECT_EQ(Tensor::create({DType::F32, {-1}}, untouched).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(Tensor::create({DType::F32, {int64_t(1) << 38}}, untouched).code(),
            ErrorCode::Unsupported);
  EXPECT_EQ(untouched.at(0), 7.0);
}

TEST(StatusTest, CodesAndMessages) {
  Status ok = Status::ok();
  EXPECT_TRUE(ok.isOk());
  EXPECT_FALSE(static_cast<bool>(ok));
  EXPECT_EQ(ok.toString(), "ok");
  Status bad(ErrorCode::RangeViolation, "input 'pos': value 9");
  EXPECT_FALSE(bad.isOk());
  EXPECT_TRUE(static_cast<bool>(bad));
  EXPECT_EQ(bad.code(), ErrorCode::RangeViolation);
  EXPECT_EQ(bad.toString(), "range-violation: input 'pos': value 9");
  EXPECT_STREQ(errorCodeName(ErrorCode::IndexOutOfRange), "index-out-of-range");
  EXPECT_STREQ(errorCodeName(ErrorCode::Malformed), "malformed");
}

} // namespace
