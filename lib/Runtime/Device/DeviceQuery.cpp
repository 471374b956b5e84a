//===- DeviceQuery.cpp - Device facts of the host -------------------------===//
//
// The cpu device's facts read from the host, and the query by device kind.
// The Vulkan and CUDA queries live beside their devices (VulkanDevice.cpp,
// CudaDevice.cpp), which own the dlopen tables they need.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/DeviceQuery.h"

#include <unistd.h>

#include <cstdio>
#include <thread>

using namespace poot::rt;

Status poot::rt::queryHostFacts(LiveDeviceFacts &out) {
  out = LiveDeviceFacts();
  out.kind = "cpu";
  DeviceFacts &f = out.facts;
  f.name = "cpu";
  f.target = "cpu";
  unsigned threads = std::thread::hardware_concurrency();
  f.computeUnits = threads > 0 ? threads : 1;
  // The cpu device runs one fused op at a time in the evaluator; these are
  // the limits of the cpu preset, which no host lowers.
  f.workgroupMemoryBytes = int64_t(1) << 20;
  f.maxWorkgroupSize = 64;
  f.subgroupSize = 1;
  f.maxGridX = f.maxGridY = (int64_t(1) << 31) - 1;
  out.maxGrid = {f.maxGridX, f.maxGridY, f.maxGridY};
  out.maxWorkgroupDims = {f.maxWorkgroupSize, 1, 1};
  out.workgroupMemoryOptInBytes = f.workgroupMemoryBytes;
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return Status(ErrorCode::Unsupported,
                  "the host's physical memory cannot be read "
                  "(sysconf(_SC_PHYS_PAGES))");
  f.memoryBytes = static_cast<int64_t>(pages) * pageSize;
  f.maxBufferBytes = f.memoryBytes;
  out.heaps.push_back({f.memoryBytes, true});
  f.f16Storage = true;
  f.bf16Storage = true;
  f.fixedSubgroup = false;
  char text[96];
  std::snprintf(text, sizeof(text), "host cpu (%lld threads, %.1f GiB)",
                static_cast<long long>(f.computeUnits),
                static_cast<double>(f.memoryBytes) / (int64_t(1) << 30));
  out.description = text;
  return Status::ok();
}

Status poot::rt::queryDeviceFacts(const std::string &kind,
                                  LiveDeviceFacts &out) {
  if (kind == "vulkan")
    return queryVulkanFacts(out);
  if (kind == "cuda")
    return queryCudaFacts(out);
  if (kind == "cpu")
    return queryHostFacts(out);
  out = LiveDeviceFacts();
  return Status(ErrorCode::InvalidArgument,
                "no device query for '" + kind + "' (vulkan, cuda, cpu)");
}
