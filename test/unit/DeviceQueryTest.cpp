//===- DeviceQueryTest.cpp - Device facts read from live devices ----------===//
//
// The facts the runtime reads from this machine's devices are sane and
// agree with what an opened device reports. The Vulkan and CUDA tests skip
// where there is no such device (lavapipe gives CI a Vulkan one).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/DeviceQuery.h"
#include "poot/Runtime/VulkanDevice.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace poot::rt;

namespace {

void print(const LiveDeviceFacts &live) {
  const poot::DeviceFacts &f = live.facts;
  std::cout << live.kind << ": " << live.description << "\n  units "
            << f.computeUnits << ", workgroup memory " << f.workgroupMemoryBytes
            << " (opt-in " << live.workgroupMemoryOptInBytes << "), workgroup "
            << f.maxWorkgroupSize << ", subgroup " << f.subgroupSize << " ["
            << live.minSubgroupSize << ", " << live.maxSubgroupSize << "]"
            << (f.fixedSubgroup ? " fixed" : "") << ", grid " << live.maxGrid[0]
            << "x" << live.maxGrid[1] << "x" << live.maxGrid[2]
            << ", buffer " << f.maxBufferBytes << ", memory " << f.memoryBytes
            << " in " << live.heaps.size() << " heap(s), f16 " << f.f16Storage
            << ", bf16 " << f.bf16Storage << ", int64 " << f.int64 << "\n";
}

TEST(DeviceQuery, VulkanFactsAreSane) {
  LiveDeviceFacts live;
  Status s = queryVulkanFacts(live);
  if (s.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << s.toString();
  ASSERT_TRUE(s.isOk()) << s.toString();
  print(live);
  const poot::DeviceFacts &f = live.facts;
  EXPECT_EQ(live.kind, "vulkan");
  EXPECT_EQ(f.target, "spirv");
  EXPECT_FALSE(f.name.empty());
  EXPECT_NE(live.description.find(f.name), std::string::npos);
  EXPECT_GE(f.computeUnits, 1);
  // The minimums every Vulkan compute device guarantees.
  EXPECT_GE(f.workgroupMemoryBytes, 16384);
  EXPECT_EQ(live.workgroupMemoryOptInBytes, f.workgroupMemoryBytes);
  EXPECT_GE(f.maxWorkgroupSize, 128);
  for (int i = 0; i < 3; ++i)
    EXPECT_GE(live.maxGrid[i], 65535) << "axis " << i;
  EXPECT_EQ(f.maxGridX, live.maxGrid[0]);
  EXPECT_EQ(f.maxGridY, live.maxGrid[1]);
  EXPECT_GE(live.maxWorkgroupDims[0], 128);
  EXPECT_GE(f.maxBufferBytes, int64_t(1) << 27);
  ASSERT_FALSE(live.heaps.empty());
  EXPECT_GT(f.memoryBytes, 0);
  EXPECT_GE(f.subgroupSize, 1);
  EXPECT_LE(live.minSubgroupSize, f.subgroupSize);
  EXPECT_GE(live.maxSubgroupSize, f.subgroupSize);
  if (f.fixedSubgroup)
    EXPECT_EQ(live.minSubgroupSize, live.maxSubgroupSize);
  // bf16 needs 16-bit storage access, which f16 needs too.
  EXPECT_TRUE(!f.f16Storage || f.bf16Storage);
}

TEST(DeviceQuery, VulkanFactsMatchTheOpenedDevice) {
  LiveDeviceFacts live;
  Status s = queryVulkanFacts(live);
  if (s.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << s.toString();
  ASSERT_TRUE(s.isOk()) << s.toString();
  std::unique_ptr<VulkanDevice> device;
  ASSERT_TRUE(VulkanDevice::create(device).isOk());
  const poot::DeviceFacts &f = device->facts();
  EXPECT_EQ(live.facts.name, f.name);
  EXPECT_EQ(live.description, device->description());
  EXPECT_EQ(live.facts.workgroupMemoryBytes, f.workgroupMemoryBytes);
  EXPECT_EQ(live.facts.maxWorkgroupSize, f.maxWorkgroupSize);
  EXPECT_EQ(live.facts.subgroupSize, f.subgroupSize);
  EXPECT_EQ(live.facts.f16Storage, f.f16Storage);
  EXPECT_EQ(live.facts.int64, f.int64);
  EXPECT_EQ(live.facts.memoryBytes, f.memoryBytes);
  EXPECT_EQ(live.maxWorkgroupDims, device->maxWorkgroupDims());
}

TEST(DeviceQuery, VulkanIndexOutOfRange) {
  LiveDeviceFacts live;
  Status s = queryVulkanFacts(live, 1 << 20);
  if (s.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << s.toString();
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_EQ(queryVulkanFacts(live, -1).code(), ErrorCode::InvalidArgument);
}

TEST(DeviceQuery, CudaFactsAreSaneOrUnsupported) {
  LiveDeviceFacts live;
  Status s = queryCudaFacts(live);
  if (s.code() == ErrorCode::Unsupported) {
    EXPECT_FALSE(s.message().empty());
    GTEST_SKIP() << s.toString();
  }
  ASSERT_TRUE(s.isOk()) << s.toString();
  print(live);
  const poot::DeviceFacts &f = live.facts;
  EXPECT_EQ(live.kind, "cuda");
  EXPECT_EQ(f.target, "nvvm");
  EXPECT_EQ(f.name, "sm_" + std::to_string(live.computeCapability));
  EXPECT_GE(live.computeCapability, 50);
  EXPECT_GT(f.computeUnits, 0);
  EXPECT_EQ(f.subgroupSize, 32);
  EXPECT_TRUE(f.fixedSubgroup);
  EXPECT_EQ(f.workgroupMemoryBytes, 48 * 1024);
  EXPECT_GE(live.workgroupMemoryOptInBytes, f.workgroupMemoryBytes);
  EXPECT_GE(f.maxWorkgroupSize, 1024);
  EXPECT_EQ(live.maxWorkgroupDims[0], 1024);
  EXPECT_GE(f.maxGridX, (int64_t(1) << 31) - 1);
  EXPECT_GE(f.maxGridY, 65535);
  EXPECT_GT(f.memoryBytes, 0);
  EXPECT_NE(live.description.find(f.name), std::string::npos);
}

TEST(DeviceQuery, HostFacts) {
  LiveDeviceFacts live;
  Status s = queryHostFacts(live);
  ASSERT_TRUE(s.isOk()) << s.toString();
  print(live);
  EXPECT_EQ(live.kind, "cpu");
  EXPECT_EQ(live.facts.name, "cpu");
  EXPECT_EQ(live.facts.target, "cpu");
  EXPECT_GE(live.facts.computeUnits, 1);
  EXPECT_GT(live.facts.memoryBytes, 0);
  EXPECT_GT(live.facts.workgroupMemoryBytes, 0);
}

TEST(DeviceQuery, ByKind) {
  LiveDeviceFacts live;
  ASSERT_TRUE(queryDeviceFacts("cpu", live).isOk());
  EXPECT_EQ(live.kind, "cpu");
  Status s = queryDeviceFacts("hip", live);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("hip"), std::string::npos);
}

} // namespace
