//===- DeviceQuery.h - Device facts read from a live device -----*- C++ -*-===//
//
// The planner's DeviceFacts filled from the device this process can reach,
// rather than from a named preset: the Vulkan limits and features of a
// physical device, the attributes of a CUDA device, or the host itself.
// Nothing here creates a logical device, a context or a queue, so a query is
// cheap and leaves no state behind. The GPU libraries are opened with dlopen
// as the devices do; without them a query reports Unsupported.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_DEVICEQUERY_H
#define POOT_RUNTIME_DEVICEQUERY_H

#include "poot/Plan/DeviceFacts.h"
#include "poot/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace poot::rt {

/// One memory heap of a device (Vulkan memory heaps; CUDA and the host
/// report their one memory).
struct MemoryHeap {
  int64_t bytes = 0;
  bool deviceLocal = false;
};

/// What a query read: the facts the planner uses, and the numbers behind
/// them that the facts summarise.
struct LiveDeviceFacts {
  /// The planner's view. `facts.name` is the device's own name ("llvmpipe
  /// (LLVM 15.0.6, 256 bits)", "sm_90", "cpu"); `facts.target` the code
  /// generator target ("spirv", "nvvm", "cpu").
  DeviceFacts facts;
  std::string kind;        ///< "vulkan", "cuda", "cpu"
  std::string description; ///< one line naming the device, for reports
  /// Workgroup memory one workgroup may have when it asks for more than the
  /// default (CUDA's opt-in shared memory); equal to
  /// facts.workgroupMemoryBytes where there is no such distinction.
  int64_t workgroupMemoryOptInBytes = 0;
  std::array<int64_t, 3> maxWorkgroupDims = {1, 1, 1}; ///< threads per axis
  std::array<int64_t, 3> maxGrid = {1, 1, 1};          ///< workgroups per axis
  /// The range of subgroup widths the device may run (Vulkan 1.3 or
  /// VK_EXT_subgroup_size_control; both facts.subgroupSize without them).
  /// facts.fixedSubgroup is set when the range is one width.
  int64_t minSubgroupSize = 1;
  int64_t maxSubgroupSize = 1;
  std::vector<MemoryHeap> heaps;
  /// CUDA: the compute capability as major * 10 + minor; 0 elsewhere.
  int computeCapability = 0;
};

/// Facts of Vulkan physical device `index` in the loader's order (the
/// device VulkanDevice::create(index) opens). Unsupported without a loader
/// or a device; InvalidArgument for an index past the last device.
Status queryVulkanFacts(LiveDeviceFacts &out, int index = 0);

/// Facts of CUDA device `ordinal`. workgroupMemoryBytes is the shared
/// memory a block may declare statically (what generated kernels use); the
/// opt-in maximum is in workgroupMemoryOptInBytes. Unsupported without a
/// driver or a device.
Status queryCudaFacts(LiveDeviceFacts &out, int ordinal = 0);

/// Facts of the host as the cpu device: its hardware threads as compute
/// units and its physical memory.
Status queryHostFacts(LiveDeviceFacts &out);

/// The first device of `kind`: "vulkan", "cuda" or "cpu"; InvalidArgument
/// for any other kind.
Status queryDeviceFacts(const std::string &kind, LiveDeviceFacts &out);

/// The planner's facts of a live device as text, one "key value" a line
/// (the first line "poot-device-facts 1"), so that a plan can be compiled
/// on one machine against a device another machine has (poot-run-plan
/// --print-device-facts there, poot-compile --device-facts here).
std::string formatDeviceFacts(const LiveDeviceFacts &live);
/// Reads what formatDeviceFacts wrote. InvalidArgument naming the line of
/// a malformed or unknown entry, or a missing one.
Status parseDeviceFacts(const std::string &text, LiveDeviceFacts &out);

} // namespace poot::rt

#endif // POOT_RUNTIME_DEVICEQUERY_H
