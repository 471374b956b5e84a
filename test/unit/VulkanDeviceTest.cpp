//===- VulkanDeviceTest.cpp - Tests of the Vulkan device ------------------===//
//
// Runs small GLSL compute shaders (compiled to SPIR-V at build time) on the
// first Vulkan device, lavapipe in CI, and checks every value they produce:
// a 1-D and a 2-D grid, workgroup memory with barriers, f16 buffers,
// subgroup arithmetic, one kernel dispatched many times, dependent
// dispatches in one submission, their timing with timestamp queries,
// copies between and within buffers, and the refusals that must come back as
// Status values before anything reaches the driver. Without a loader or a
// device the tests skip; without glslangValidator at build time the ones
// that need shaders skip.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Bench.h"
#include "poot/Runtime/VulkanDevice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

using namespace poot::rt;

namespace {

/// IEEE half from float, round to nearest even (normals and zero only,
/// which is all these tests produce).
uint16_t toHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if ((bits & 0x7fffffffu) == 0)
    return static_cast<uint16_t>(sign);
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) |
                  (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;
  return static_cast<uint16_t>(half);
}

float fromHalf(uint16_t half) {
  uint32_t sign = (half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits = sign;
  if (exponent != 0)
    bits |= ((exponent - 15 + 127) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// One device for the whole suite: creating a lavapipe device starts LLVM,
/// which is slow enough to matter when every test does it.
class VulkanDeviceTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    createStatus_ = new Status(VulkanDevice::create(device_));
  }
  static void TearDownTestSuite() {
    device_.reset();
    delete createStatus_;
    createStatus_ = nullptr;
  }

  void SetUp() override {
    if (createStatus_->code() == ErrorCode::Unsupported)
      GTEST_SKIP() << createStatus_->toString();
    ASSERT_TRUE(createStatus_->isOk()) << createStatus_->toString();
  }

  VulkanDevice &device() { return *device_; }

  /// Reads build-dir/shaders/`name`.spv; false when the shaders were not
  /// built (glslangValidator missing at configure time).
  static bool loadShader(const std::string &name,
                         std::vector<uint32_t> &words) {
#ifdef POOT_VULKAN_SHADER_DIR
    std::ifstream in(std::string(POOT_VULKAN_SHADER_DIR) + "/" + name + ".spv",
                     std::ios::binary);
    if (!in)
      return false;
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    words.resize(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    return !words.empty();
#else
    (void)name;
    (void)words;
    return false;
#endif
  }

  /// A kernel from a test shader, built or skipped.
  void kernel(const std::string &name, int numBuffers, VulkanKernel &out) {
    std::vector<uint32_t> words;
    if (!loadShader(name, words))
      GTEST_SKIP() << "test shader " << name
                   << ".spv was not built (no glslangValidator)";
    Status status = device().createKernel(words, "main", numBuffers, out);
    ASSERT_TRUE(status.isOk()) << status.toString();
  }

  /// A buffer holding `values`.
  template <typename T>
  void buffer(const std::vector<T> &values, VulkanBuffer &out) {
    int64_t bytes = static_cast<int64_t>(values.size() * sizeof(T));
    Status status = device().createBuffer(bytes, out);
    ASSERT_TRUE(status.isOk()) << status.toString();
    status = out.upload(values.data(), bytes);
    ASSERT_TRUE(status.isOk()) << status.toString();
  }

  template <typename T> std::vector<T> read(const VulkanBuffer &from) {
    std::vector<T> values(from.size() / sizeof(T));
    Status status = from.download(values.data(), from.size());
    EXPECT_TRUE(status.isOk()) << status.toString();
    return values;
  }

  struct SaxpyParams {
    float a;
    uint32_t n;
  };
  struct AffineParams {
    float a, b;
    uint32_t n;
  };

  static std::unique_ptr<VulkanDevice> device_;
  static Status *createStatus_;
};

std::unique_ptr<VulkanDevice> VulkanDeviceTest::device_;
Status *VulkanDeviceTest::createStatus_ = nullptr;

int64_t groupsFor(int64_t n, int64_t per) { return (n + per - 1) / per; }

/// Builds a kernel from a test shader, leaving the test when that skipped
/// or failed (GTEST_SKIP and ASSERT only leave the helper itself).
#define BUILD_KERNEL(name, numBuffers, out)                                    \
  do {                                                                         \
    kernel(name, numBuffers, out);                                             \
    if (IsSkipped() || HasFatalFailure())                                      \
      return;                                                                  \
  } while (false)

TEST_F(VulkanDeviceTest, ReportsFacts) {
  const poot::DeviceFacts &f = device().facts();
  std::cout << "device: " << device().description() << "\n"
            << "  name " << f.name << ", target " << f.target
            << ", computeUnits " << f.computeUnits << "\n"
            << "  workgroupMemoryBytes " << f.workgroupMemoryBytes
            << ", maxWorkgroupSize " << f.maxWorkgroupSize << " (dims "
            << device().maxWorkgroupDims()[0] << "x"
            << device().maxWorkgroupDims()[1] << "x"
            << device().maxWorkgroupDims()[2] << "), subgroupSize "
            << f.subgroupSize << "\n"
            << "  maxGridX " << f.maxGridX << ", maxGridY " << f.maxGridY
            << ", maxBufferBytes " << f.maxBufferBytes << ", memoryBytes "
            << f.memoryBytes << "\n"
            << "  f16Storage " << f.f16Storage << " (16-bit storage "
            << device().storageBuffer16Bit() << ", shaderFloat16 "
            << device().shaderFloat16() << "), bf16Storage " << f.bf16Storage
            << ", subgroupArithmetic " << device().subgroupArithmetic()
            << ", offset alignment "
            << device().storageBufferOffsetAlignment() << "\n";
  EXPECT_EQ(f.target, "spirv");
  EXPECT_FALSE(f.name.empty());
  EXPECT_GE(f.computeUnits, 1);
  // The minimums every Vulkan 1.x compute device guarantees.
  EXPECT_GE(f.workgroupMemoryBytes, 16384);
  EXPECT_GE(f.maxWorkgroupSize, 128);
  EXPECT_GE(f.maxGridX, 65535);
  EXPECT_GE(f.maxGridY, 65535);
  EXPECT_GE(f.maxBufferBytes, int64_t(1) << 27);
  EXPECT_GT(f.memoryBytes, 0);
  EXPECT_GE(f.subgroupSize, 1);
  // bf16 travels as 16-bit words: it needs 16-bit storage access only.
  EXPECT_EQ(f.bf16Storage, device().storageBuffer16Bit());
  // The planner's 64-bit integers are the device's shaderInt64, enabled.
  EXPECT_EQ(f.int64, device().shaderInt64());
  EXPECT_EQ(device().features().shaderInt64, device().shaderInt64());
}

/// A module of the capabilities `caps` alone (a header and OpCapability
/// instructions): all checkSpirvFeatures reads.
std::vector<uint32_t> capabilityModule(const std::vector<uint32_t> &caps) {
  std::vector<uint32_t> words = {0x07230203, 0x00010000, 0, 1, 0};
  for (uint32_t cap : caps)
    words.insert(words.end(), {(2u << 16) | 17u, cap});
  words.insert(words.end(), {(3u << 16) | 14u, 0, 1}); // OpMemoryModel
  return words;
}

TEST(VulkanFeatures, EachCapabilityNeedsItsFeature) {
  VulkanFeatures none;
  // Shader (1) and the subgroup capabilities are core: nothing to check.
  EXPECT_TRUE(checkSpirvFeatures(capabilityModule({1, 61, 65}), none).isOk());
  Status s = checkSpirvFeatures(capabilityModule({1, 11}), none);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("Int64"), std::string::npos) << s.toString();
  EXPECT_NE(s.message().find("shaderInt64"), std::string::npos)
      << s.toString();
  VulkanFeatures int64;
  int64.shaderInt64 = true;
  EXPECT_TRUE(checkSpirvFeatures(capabilityModule({1, 11}), int64).isOk());
  // 16-bit storage needs its own feature, whatever else is there.
  s = checkSpirvFeatures(capabilityModule({1, 11, 4433}), int64);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("storageBuffer16BitAccess"), std::string::npos)
      << s.toString();
  EXPECT_EQ(checkSpirvFeatures({1, 2, 3}, int64).code(), ErrorCode::Malformed);
}

TEST_F(VulkanDeviceTest, ListsDevicesAndRefusesBadIndex) {
  std::vector<std::string> names;
  Status status = VulkanDevice::listDevices(names);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], device().facts().name);
  std::unique_ptr<VulkanDevice> other;
  status = VulkanDevice::create(other, static_cast<int>(names.size()));
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_EQ(other, nullptr);
  status = VulkanDevice::create(other, -1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
}

TEST_F(VulkanDeviceTest, Saxpy100k) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  EXPECT_EQ(saxpy.workgroupSize(), (std::array<int64_t, 3>{64, 1, 1}));
  const uint32_t n = 100000;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.5f;
    y[i] = static_cast<float>(i % 7) - 3.0f;
  }
  VulkanBuffer xb, yb, pb;
  buffer(x, xb);
  buffer(y, yb);
  buffer(std::vector<SaxpyParams>{{3.0f, n}}, pb);
  Status status = device().dispatch(saxpy, {xb, yb, pb}, groupsFor(n, 64));
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> got = read<float>(yb);
  int wrong = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (got[i] != 3.0f * x[i] + y[i] && ++wrong <= 5)
      ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", expected "
                    << 3.0f * x[i] + y[i];
  EXPECT_EQ(wrong, 0);
}

TEST_F(VulkanDeviceTest, Spirv13Module) {
  // Before SPIR-V 1.4 an entry point does not list its buffers; the reader
  // finds them through the functions it reaches, and must still refuse a
  // layout that lacks one.
  std::vector<uint32_t> words;
  if (!loadShader("saxpy-spirv13", words))
    GTEST_SKIP() << "test shaders were not built";
  ASSERT_EQ(words[1], 0x00010300u);
  VulkanKernel saxpy;
  Status status = device().createKernel(words, "main", 2, saxpy);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("binding 2"), std::string::npos)
      << status.message();
  status = device().createKernel(words, "main", 3, saxpy);
  ASSERT_TRUE(status.isOk()) << status.toString();
  const uint32_t n = 1000;
  VulkanBuffer xb, yb, pb;
  buffer(std::vector<float>(n, 2.0f), xb);
  buffer(std::vector<float>(n, 1.0f), yb);
  buffer(std::vector<SaxpyParams>{{4.0f, n}}, pb);
  status = device().dispatch(saxpy, {xb, yb, pb}, groupsFor(n, 64));
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(read<float>(yb), std::vector<float>(n, 9.0f));
}

TEST_F(VulkanDeviceTest, Grid2d100k) {
  VulkanKernel grid;
  BUILD_KERNEL("grid2d", 3, grid);
  EXPECT_EQ(grid.workgroupSize(), (std::array<int64_t, 3>{8, 8, 1}));
  // 400 x 250 = 100000; neither is a multiple of 8, so edge groups are
  // partly idle.
  const uint32_t width = 401, height = 250;
  const uint32_t n = width * height;
  std::vector<float> src(n);
  for (uint32_t i = 0; i < n; ++i)
    src[i] = static_cast<float>(i % 13);
  VulkanBuffer in, out, params;
  buffer(src, in);
  buffer(std::vector<float>(n, -1.0f), out);
  buffer(std::vector<uint32_t>{width, height}, params);
  Status status = device().dispatch(grid, {in, out, params},
                                    groupsFor(width, 8), groupsFor(height, 8));
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> got = read<float>(out);
  int wrong = 0;
  for (uint32_t yy = 0; yy < height; ++yy)
    for (uint32_t xx = 0; xx < width; ++xx) {
      uint32_t i = yy * width + xx;
      float want = src[i] + static_cast<float>(xx) * 1000.0f +
                   static_cast<float>(yy);
      if (got[i] != want && ++wrong <= 5)
        ADD_FAILURE() << "(" << xx << ", " << yy << ") = " << got[i]
                      << ", expected " << want;
    }
  EXPECT_EQ(wrong, 0);
}

TEST_F(VulkanDeviceTest, WorkgroupMemoryReduction) {
  VulkanKernel reduce;
  BUILD_KERNEL("reduce", 3, reduce);
  EXPECT_EQ(reduce.workgroupMemoryBytes(), 256 * 4);
  const uint32_t n = 100000;
  const int64_t groups = groupsFor(n, 256);
  std::vector<uint32_t> src(n);
  for (uint32_t i = 0; i < n; ++i)
    src[i] = (i * 2654435761u) >> 20; // scattered, sums stay below 2^32
  VulkanBuffer in, sums, params;
  buffer(src, in);
  buffer(std::vector<uint32_t>(groups, 0xdeadbeefu), sums);
  buffer(std::vector<uint32_t>{n}, params);
  Status status = device().dispatch(reduce, {in, sums, params}, groups);
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<uint32_t> got = read<uint32_t>(sums);
  for (int64_t g = 0; g < groups; ++g) {
    uint32_t want = 0;
    for (uint32_t i = g * 256; i < std::min<uint32_t>(n, (g + 1) * 256); ++i)
      want += src[i];
    ASSERT_EQ(got[g], want) << "workgroup " << g;
  }
}

TEST_F(VulkanDeviceTest, F16StorageBuffers) {
  if (!device().storageBuffer16Bit())
    GTEST_SKIP() << "device has no 16-bit storage buffer access";
  VulkanKernel f16;
  BUILD_KERNEL("f16storage", 3, f16);
  const uint32_t n = 4099;
  std::vector<uint16_t> src(n);
  for (uint32_t i = 0; i < n; ++i)
    src[i] = toHalf(static_cast<float>(static_cast<int>(i % 511) - 255) / 8);
  VulkanBuffer in, out, params;
  buffer(src, in);
  buffer(std::vector<uint16_t>(n, 0), out);
  buffer(std::vector<uint32_t>{n}, params);
  Status status = device().dispatch(f16, {in, out, params}, groupsFor(n, 64));
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<uint16_t> got = read<uint16_t>(out);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(fromHalf(got[i]), fromHalf(src[i]) * 2.0f + 1.0f)
        << "element " << i;
}

TEST_F(VulkanDeviceTest, F16Arithmetic) {
  if (!device().facts().f16Storage)
    GTEST_SKIP() << "device has no Float16 with 16-bit storage";
  VulkanKernel f16;
  BUILD_KERNEL("f16math", 3, f16);
  const uint32_t n = 1000;
  std::vector<uint16_t> src(n);
  for (uint32_t i = 0; i < n; ++i)
    src[i] = toHalf(static_cast<float>(i) / 4);
  VulkanBuffer in, out, params;
  buffer(src, in);
  buffer(std::vector<uint16_t>(n, 0), out);
  buffer(std::vector<uint32_t>{n}, params);
  Status status = device().dispatch(f16, {in, out, params}, groupsFor(n, 64));
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<uint16_t> got = read<uint16_t>(out);
  // Every value here is exact in f16, so f16 and f32 math agree.
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(fromHalf(got[i]), fromHalf(src[i]) * 0.5f - 3.0f)
        << "element " << i;
}

TEST_F(VulkanDeviceTest, SubgroupAdd) {
  if (!device().subgroupArithmetic())
    GTEST_SKIP() << "device has no subgroup arithmetic in compute";
  VulkanKernel sub;
  BUILD_KERNEL("subgroup", 3, sub);
  const uint32_t n = 64 * 32;
  std::vector<uint32_t> src(n);
  for (uint32_t i = 0; i < n; ++i)
    src[i] = i;
  int64_t size = device().facts().subgroupSize;
  VulkanBuffer in, sums, seen;
  buffer(src, in);
  buffer(std::vector<uint32_t>(n, 0), sums);
  buffer(std::vector<uint32_t>{0}, seen);
  Status status = device().dispatch(sub, {in, sums, seen}, n / 64);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(read<uint32_t>(seen)[0], size);
  // Subgroups are consecutive invocations, so sum k covers [k*size, ...).
  std::vector<uint32_t> got = read<uint32_t>(sums);
  for (int64_t k = 0; k < n / size; ++k) {
    uint32_t want = 0;
    for (int64_t i = k * size; i < (k + 1) * size; ++i)
      want += src[i];
    ASSERT_EQ(got[k], want) << "subgroup " << k;
  }
}

TEST_F(VulkanDeviceTest, RefusesGridPastLimit) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  VulkanBuffer xb, yb, pb;
  buffer(std::vector<float>(64, 1.0f), xb);
  buffer(std::vector<float>(64, 0.0f), yb);
  buffer(std::vector<SaxpyParams>{{1.0f, 64}}, pb);
  const poot::DeviceFacts &f = device().facts();
  Status status = device().dispatch(saxpy, {xb, yb, pb}, f.maxGridX + 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(status.message().find(std::to_string(f.maxGridX + 1) + "x1x1"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(std::to_string(f.maxGridX)),
            std::string::npos)
      << status.message();
  status = device().dispatch(saxpy, {xb, yb, pb}, 1, f.maxGridY + 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  status = device().dispatch(saxpy, {xb, yb, pb}, -1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  // Nothing ran.
  EXPECT_EQ(read<float>(yb), std::vector<float>(64, 0.0f));
}

TEST_F(VulkanDeviceTest, RefusesBadBindings) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  VulkanBuffer xb, yb, pb;
  buffer(std::vector<float>(64, 1.0f), xb);
  buffer(std::vector<float>(64, 0.0f), yb);
  buffer(std::vector<SaxpyParams>{{1.0f, 64}}, pb);
  Status status = device().dispatch(saxpy, {xb, yb}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("binds 2 buffers; the kernel takes 3"),
            std::string::npos)
      << status.message();
  VulkanBuffer empty;
  status = device().dispatch(saxpy, {xb, yb, empty}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  status = device().dispatch(saxpy, {xb, VulkanBinding(yb, 0, 257), pb}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  status = device().dispatch(saxpy, {xb, VulkanBinding(yb, 256, -1), pb}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  int64_t align = device().storageBufferOffsetAlignment();
  if (align > 1) {
    status = device().dispatch(saxpy, {xb, VulkanBinding(yb, 1, 4), pb}, 1);
    EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
    EXPECT_NE(status.message().find("alignment"), std::string::npos);
  }
  VulkanKernel none;
  status = device().dispatch(none, {}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_EQ(read<float>(yb), std::vector<float>(64, 0.0f));
}

TEST_F(VulkanDeviceTest, RefusesBadModules) {
  std::vector<uint32_t> words;
  if (!loadShader("saxpy", words))
    GTEST_SKIP() << "test shaders were not built";
  VulkanKernel k;
  Status status = device().createKernel({1, 2, 3}, "main", 3, k);
  EXPECT_EQ(status.code(), ErrorCode::Malformed) << status.toString();
  status = device().createKernel({0xdeadbeef, 0, 0, 0, 0}, "main", 3, k);
  EXPECT_EQ(status.code(), ErrorCode::Malformed) << status.toString();
  // An instruction whose word count runs past the end of the module.
  std::vector<uint32_t> cut(words.begin(), words.begin() + 6);
  cut[5] = (0xffffu << 16) | (cut[5] & 0xffffu);
  status = device().createKernel(cut, "main", 3, k);
  EXPECT_EQ(status.code(), ErrorCode::Malformed) << status.toString();

  status = device().createKernel(words, "saxpy", 3, k);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("'main'"), std::string::npos)
      << status.message();
  // The module reads binding 2; a layout of two buffers does not have it.
  status = device().createKernel(words, "main", 2, k);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("binding 2"), std::string::npos)
      << status.message();
  EXPECT_FALSE(k.valid());

  // Make the workgroup wider than the device allows. glslang states the
  // size twice, as LocalSize and as the WorkgroupSize built-in constant
  // (which wins), so both are rewritten.
  std::vector<uint32_t> big = words;
  const uint32_t wide =
      static_cast<uint32_t>(device().maxWorkgroupDims()[0] + 1);
  uint32_t builtIn = 0, firstComponent = 0;
  int patched = 0;
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t at = 5; at < big.size() && (big[at] >> 16) != 0;
         at += big[at] >> 16) {
      uint32_t op = big[at] & 0xffff;
      if (pass == 0 && op == 16 && big[at + 2] == 17) { // LocalSize
        big[at + 3] = wide;
        ++patched;
      } else if (pass == 0 && op == 71 && big[at + 2] == 11 &&
                 big[at + 3] == 25) { // BuiltIn WorkgroupSize
        builtIn = big[at + 1];
      } else if (pass == 1 && op == 44 && big[at + 2] == builtIn) {
        firstComponent = big[at + 3];
      } else if (pass == 2 && op == 43 && big[at + 2] == firstComponent) {
        big[at + 3] = wide;
        ++patched;
      }
    }
  }
  ASSERT_EQ(patched, builtIn ? 2 : 1);
  status = device().createKernel(big, "main", 3, k);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("workgroup size"), std::string::npos)
      << status.message();
}

TEST_F(VulkanDeviceTest, ReusesOneKernel) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  const uint32_t n = 10000;
  VulkanBuffer xb, yb, pb;
  buffer(std::vector<float>(n, 1.0f), xb);
  buffer(std::vector<float>(n, 0.0f), yb);
  buffer(std::vector<SaxpyParams>{{1.0f, n}}, pb);
  for (int step = 0; step < 100; ++step) {
    Status status = device().dispatch(saxpy, {xb, yb, pb}, groupsFor(n, 64));
    ASSERT_TRUE(status.isOk()) << "step " << step << ": " << status.toString();
  }
  EXPECT_EQ(read<float>(yb), std::vector<float>(n, 100.0f));
}

TEST_F(VulkanDeviceTest, DispatchesInOrderInOneSubmission) {
  VulkanKernel affine, saxpy;
  BUILD_KERNEL("affine", 2, affine);
  BUILD_KERNEL("saxpy", 3, saxpy);
  const uint32_t n = 50000;
  VulkanBuffer y, x, steps[3], sp;
  buffer(std::vector<float>(n, 1.0f), y);
  buffer(std::vector<float>(n, 0.0f), x);
  buffer(std::vector<AffineParams>{{2.0f, 1.0f, n}}, steps[0]);  // y*2+1
  buffer(std::vector<AffineParams>{{3.0f, -4.0f, n}}, steps[1]); // y*3-4
  buffer(std::vector<AffineParams>{{0.5f, 0.0f, n}}, steps[2]);  // y/2
  buffer(std::vector<SaxpyParams>{{10.0f, n}}, sp);
  // x = 10*y + x reads y after the steps; then y changes again, which the
  // x result must not see.
  std::vector<VulkanDispatch> list;
  int64_t g = groupsFor(n, 128);
  list.push_back({&affine, {y, steps[0]}, g, 1, 1});
  list.push_back({&affine, {y, steps[1]}, g, 1, 1});
  list.push_back({&affine, {y, steps[2]}, g, 1, 1});
  list.push_back({&saxpy, {y, x, sp}, groupsFor(n, 64), 1, 1});
  list.push_back({&affine, {y, steps[0]}, g, 1, 1});
  Status status = device().dispatchAll(list);
  ASSERT_TRUE(status.isOk()) << status.toString();
  // ((1*2+1)*3-4)/2 = 2.5; x = 25; y = 2.5*2+1 = 6.
  EXPECT_EQ(read<float>(x), std::vector<float>(n, 25.0f));
  EXPECT_EQ(read<float>(y), std::vector<float>(n, 6.0f));

  // A refusal anywhere in the list means nothing runs at all.
  list.push_back({&affine, {y}, g, 1, 1});
  status = device().dispatchAll(list);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("dispatch 5"), std::string::npos)
      << status.message();
  EXPECT_EQ(read<float>(y), std::vector<float>(n, 6.0f));
}

TEST_F(VulkanDeviceTest, TimesDispatchesWithTimestamps) {
  // The benchmark's clock: timestamp queries around one submission. The
  // times must be positive and finite, and ten times the work (saxpy over
  // 10x the elements, 10x the workgroups) must take longer.
  Status support = device().timestampSupport();
  if (support.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << support.toString();
  ASSERT_TRUE(support.isOk()) << support.toString();
  EXPECT_GT(device().timestampPeriod(), 0.0);
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  auto time = [&](uint32_t n, int iterations, bool flush,
                  std::vector<double> &us) {
    VulkanBuffer xb, yb, pb;
    buffer(std::vector<float>(n, 1.0f), xb);
    buffer(std::vector<float>(n, 0.0f), yb);
    buffer(std::vector<SaxpyParams>{{1.0f, n}}, pb);
    std::vector<VulkanDispatch> list = {
        {&saxpy, {xb, yb, pb}, groupsFor(n, 64), 1, 1}};
    Status status = device().timeDispatches(list, iterations, flush, us);
    ASSERT_TRUE(status.isOk()) << status.toString();
    ASSERT_EQ(us.size(), static_cast<size_t>(iterations));
    for (double t : us) {
      EXPECT_TRUE(std::isfinite(t)) << t;
      EXPECT_GT(t, 0.0);
    }
    // Every run ran: y = x added `iterations` times.
    EXPECT_EQ(read<float>(yb)[n - 1], static_cast<float>(iterations));
  };
  std::vector<double> small, large;
  time(200000, 5, /*flush=*/false, small);
  time(2000000, 5, /*flush=*/false, large);
  if (HasFatalFailure())
    return;
  std::sort(small.begin(), small.end());
  std::sort(large.begin(), large.end());
  EXPECT_GT(large[2], small[2]) << "median of 10x the work: " << large[2]
                                << " us against " << small[2] << " us";

  // With the cache flush first in each submission, outside the stamps.
  int64_t flushBytes = device().cacheFlushBytes();
  EXPECT_GT(flushBytes, 0);
  EXPECT_LE(flushBytes, int64_t(256) << 20);
  std::vector<double> flushed;
  time(200000, 2, /*flush=*/true, flushed);
}

TEST_F(VulkanDeviceTest, TimingRefusesBadRequests) {
  if (!device().timestampSupport().isOk())
    GTEST_SKIP() << device().timestampSupport().toString();
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  VulkanBuffer xb;
  buffer(std::vector<float>(64, 1.0f), xb);
  std::vector<double> us = {1.0};
  Status status = device().timeDispatches(
      {{&saxpy, {xb, xb, xb}, 1, 1, 1}}, 0, false, us);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_TRUE(us.empty());
  // A dispatch dispatchAll would refuse is refused here too, before
  // anything runs.
  status = device().timeDispatches({{&saxpy, {xb}, 1, 1, 1}}, 1, false, us);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  EXPECT_TRUE(us.empty());
}

TEST(BenchLine, IsTheSameOnEveryDevice) {
  // What vulkan prints is cuda's line without its graph replay, so the
  // scripts read both alike; the bytes are counted once for both.
  EXPECT_EQ(benchLine(3, "attention_0_partial,attention_0_combine", 12.345,
                      gigabytesPerSecond(2105344, 12.345)),
            "bench eqn 3 attention_0_partial,attention_0_combine: median "
            "12.35 us, 170.5 GB/s");
  EXPECT_EQ(benchLine(0, "add_0", 1.5, 2.0, 1.25),
            "bench eqn 0 add_0: median 1.50 us, 2.0 GB/s, graph replay "
            "median 1.25 us");
  EXPECT_EQ(gigabytesPerSecond(1000, 0.0), 0.0);
  Eqn attention;
  attention.op = "attention";
  attention.operands = {0, 1, 2, 3};
  attention.attrs["operandSegmentSizes"] =
      Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1}); // q, k, v, pos
  TensorType q{DType::BF16, {1, 8, 1, 128}}, kv{DType::BF16, {1, 2, 1024, 128}};
  TensorType pos{DType::I64, {}};
  BenchBytes counted = benchBytes(attention, {q, kv, kv, pos}, {q});
  EXPECT_EQ(counted.read, 2 * 1024 + 2 * (2 * 1024 * 128 * 2));
  EXPECT_EQ(counted.written, 2 * 1024);
  Eqn add;
  add.op = "add";
  TensorType flags{DType::I1, {3}};
  counted = benchBytes(add, {flags, flags}, {flags});
  EXPECT_EQ(counted.read, 2 * 12); // i1 travels as i32 words
  EXPECT_EQ(counted.written, 12);
}

TEST_F(VulkanDeviceTest, BindsRangesOfOneArena) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  // x, y and the parameters as aligned ranges of one buffer, the way a
  // plan's arena is bound.
  const uint32_t n = 1000;
  int64_t align = std::max<int64_t>(device().storageBufferOffsetAlignment(), 4);
  auto up = [&](int64_t v) { return (v + align - 1) / align * align; };
  int64_t xOff = 0, yOff = up(n * 4), pOff = up(yOff + n * 4);
  VulkanBuffer arena;
  Status status = device().createBuffer(pOff + 8, arena);
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  SaxpyParams p = {2.0f, n};
  ASSERT_TRUE(arena.upload(x.data(), n * 4, xOff).isOk());
  ASSERT_TRUE(arena.upload(y.data(), n * 4, yOff).isOk());
  ASSERT_TRUE(arena.upload(&p, sizeof(p), pOff).isOk());
  status = device().dispatch(saxpy,
                             {VulkanBinding(arena, xOff, n * 4),
                              VulkanBinding(arena, yOff, n * 4),
                              VulkanBinding(arena, pOff, -1)},
                             groupsFor(n, 64));
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> got(n);
  ASSERT_TRUE(arena.download(got.data(), n * 4, yOff).isOk());
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 2.0f * x[i] + 1.0f) << "element " << i;
  // x was left alone.
  ASSERT_TRUE(arena.download(got.data(), n * 4, xOff).isOk());
  EXPECT_EQ(got, x);
}

TEST_F(VulkanDeviceTest, RefusesBadBuffers) {
  VulkanBuffer b;
  EXPECT_EQ(device().createBuffer(0, b).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device().createBuffer(INT64_MAX / 2, b).code(),
            ErrorCode::InvalidArgument);
  EXPECT_FALSE(b.valid());
  ASSERT_TRUE(device().createBuffer(16, b).isOk());
  char bytes[32] = {};
  EXPECT_EQ(b.upload(bytes, 17).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(b.upload(bytes, 8, 9).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(b.download(bytes, 4, -1).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(b.upload(bytes, 16).isOk());
  VulkanBuffer none;
  EXPECT_EQ(none.upload(bytes, 1).code(), ErrorCode::InvalidArgument);
}

TEST_F(VulkanDeviceTest, CopiesBetweenAndWithinBuffers) {
  // GpuDevice::copy as a serving engine moves K/V blocks: between two
  // buffers and inside one, in order, each copy seeing the ones before.
  auto make = [&](GpuDevice &on, int64_t n, float first) {
    std::unique_ptr<GpuBuffer> b;
    Status status = on.allocate(n * 4, b);
    EXPECT_TRUE(status.isOk()) << status.toString();
    if (!b)
      return b;
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = first + static_cast<float>(i);
    status = b->upload(values.data(), n * 4, 0);
    EXPECT_TRUE(status.isOk()) << status.toString();
    return b;
  };
  auto floats = [](const GpuBuffer &b) {
    std::vector<float> values(b.size() / 4);
    Status status = b.download(values.data(), b.size(), 0);
    EXPECT_TRUE(status.isOk()) << status.toString();
    return values;
  };
  const int64_t n = 1024;
  auto a = make(device(), n, 0.0f);
  auto b = make(device(), n, 10000.0f);
  ASSERT_TRUE(a && b);
  Status status = device().copy({{a.get(), 0, b.get(), 256 * 4, 128 * 4},
                                 {b.get(), 256 * 4, a.get(), 512 * 4, 128 * 4},
                                 {a.get(), 0, a.get(), 900 * 4, 100 * 4}});
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> wantA(n), wantB(n);
  for (int64_t i = 0; i < n; ++i) {
    wantA[i] = static_cast<float>(i);
    wantB[i] = 10000.0f + static_cast<float>(i);
  }
  for (int64_t i = 0; i < 128; ++i) {
    wantB[256 + i] = static_cast<float>(i); // a[0, 128)
    wantA[512 + i] = static_cast<float>(i); // what the first copy wrote
  }
  for (int64_t i = 0; i < 100; ++i)
    wantA[900 + i] = static_cast<float>(i);
  EXPECT_EQ(floats(*a), wantA);
  EXPECT_EQ(floats(*b), wantB);

  // A refused list copies nothing, the good copy in front of it included.
  std::unique_ptr<VulkanDevice> own;
  ASSERT_TRUE(VulkanDevice::create(own).isOk());
  auto foreign = make(*own, n, -1.0f);
  ASSERT_TRUE(foreign);
  const GpuCopy good{a.get(), 0, b.get(), 0, 64};
  const std::vector<GpuCopy> bad[] = {
      {good, {a.get(), (n - 8) * 4, b.get(), 0, 64}}, // past the source
      {good, {a.get(), 0, b.get(), (n - 8) * 4, 64}}, // past the destination
      {good, {a.get(), 0, a.get(), 32, 64}},          // overlapping
      {good, {a.get(), -4, b.get(), 0, 64}},          // a negative offset
      {good, {foreign.get(), 0, b.get(), 0, 64}},     // another device's
      {good, {a.get(), 0, foreign.get(), 0, 64}},
  };
  for (size_t i = 0; i < std::size(bad); ++i) {
    status = device().copy(bad[i]);
    EXPECT_EQ(status.code(), ErrorCode::InvalidArgument)
        << "list " << i << ": " << status.toString();
  }
  EXPECT_EQ(floats(*a), wantA);
  EXPECT_EQ(floats(*b), wantB);
  EXPECT_EQ(floats(*foreign)[0], -1.0f);
}

TEST_F(VulkanDeviceTest, ObjectsOutliveTheirDevice) {
  std::vector<uint32_t> words;
  if (!loadShader("saxpy", words))
    GTEST_SKIP() << "test shaders were not built";
  std::unique_ptr<VulkanDevice> own;
  ASSERT_TRUE(VulkanDevice::create(own).isOk());
  VulkanBuffer b;
  VulkanKernel k;
  ASSERT_TRUE(own->createBuffer(64, b).isOk());
  ASSERT_TRUE(own->createKernel(words, "main", 3, k).isOk());
  float value = 42.0f;
  ASSERT_TRUE(b.upload(&value, 4).isOk());
  // Objects of one device are refused by another.
  Status status = device().dispatch(k, {b, b, b}, 1);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument) << status.toString();
  own.reset();
  float back = 0;
  ASSERT_TRUE(b.download(&back, 4).isOk());
  EXPECT_EQ(back, 42.0f);
  EXPECT_EQ(k.numBuffers(), 3);
}

TEST_F(VulkanDeviceTest, DispatchesFromSeveralThreads) {
  VulkanKernel saxpy;
  BUILD_KERNEL("saxpy", 3, saxpy);
  const uint32_t n = 4096;
  const int threads = 4, steps = 20;
  std::vector<VulkanBuffer> x(threads), y(threads), p(threads);
  for (int t = 0; t < threads; ++t) {
    buffer(std::vector<float>(n, static_cast<float>(t + 1)), x[t]);
    buffer(std::vector<float>(n, 0.0f), y[t]);
    buffer(std::vector<SaxpyParams>{{1.0f, n}}, p[t]);
  }
  std::vector<Status> results(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int s = 0; s < steps && results[t].isOk(); ++s)
        results[t] =
            device().dispatch(saxpy, {x[t], y[t], p[t]}, groupsFor(n, 64));
    });
  for (std::thread &th : pool)
    th.join();
  for (int t = 0; t < threads; ++t) {
    ASSERT_TRUE(results[t].isOk()) << results[t].toString();
    EXPECT_EQ(read<float>(y[t]),
              std::vector<float>(n, static_cast<float>(steps * (t + 1))));
  }
}

} // namespace

TEST(VulkanStaging, DeviceOnlyBuffersGoThroughStaging) {
  // A discrete GPU's fast memory is not host-visible: buffers there are
  // filled and read through a staging buffer. POOT_VULKAN_STAGING=1 puts
  // every buffer there on any device, so this path runs on lavapipe too:
  // a round trip larger than one staging chunk, a dispatch that reads and
  // writes such buffers, and device copies between them.
  setenv("POOT_VULKAN_STAGING", "1", 1);
  std::unique_ptr<VulkanDevice> device;
  Status status = VulkanDevice::create(device);
  unsetenv("POOT_VULKAN_STAGING");
  if (status.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << status.toString();
  ASSERT_TRUE(status.isOk()) << status.toString();
  const int64_t n = (int64_t(70) << 20) / 4; // past the 64 MiB chunk
  VulkanBuffer big;
  ASSERT_TRUE(device->createBuffer(n * 4, big).isOk());
  EXPECT_FALSE(big.mapped());
  EXPECT_EQ(big.data(), nullptr);
  std::vector<float> values(n), back(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = float(i % 100003) - 7.0f;
  ASSERT_TRUE(big.upload(values.data(), n * 4).isOk());
  ASSERT_TRUE(big.download(back.data(), n * 4).isOk());
  EXPECT_EQ(back, values);
  float part[3] = {};
  ASSERT_TRUE(big.download(part, 12, 4 * (n - 3)).isOk());
  EXPECT_EQ(part[2], values[n - 1]);

  std::unique_ptr<GpuBuffer> a, b;
  ASSERT_TRUE(device->allocate(64, a).isOk());
  ASSERT_TRUE(device->allocate(64, b).isOk());
  float in[16], out[16] = {};
  for (int i = 0; i < 16; ++i)
    in[i] = float(i + 1);
  ASSERT_TRUE(a->upload(in, 64).isOk());
  ASSERT_TRUE(device->copy({{a.get(), 0, b.get(), 32, 32},
                            {b.get(), 32, b.get(), 0, 16}})
                  .isOk());
  ASSERT_TRUE(b->download(out, 64).isOk());
  EXPECT_EQ(out[0], 1.0f); // the second copy saw the first
  EXPECT_EQ(out[3], 4.0f);
  EXPECT_EQ(out[8], 1.0f);
  EXPECT_EQ(out[15], 8.0f);
}
