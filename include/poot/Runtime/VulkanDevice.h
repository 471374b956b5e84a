//===- VulkanDevice.h - Compute on a Vulkan device --------------*- C++ -*-===//
//
// The runtime's Vulkan device: buffers, compute kernels built from SPIR-V
// words, and dispatches submitted in order. The Vulkan loader is opened with
// dlopen when a device is first created, so a binary that uses this class
// still starts on a machine without Vulkan; there create() reports
// Unsupported and callers (and tests) fall back or skip.
//
// Kernels follow the ABI of the SPIR-V the compiler emits: argument i of a
// kernel is one storage buffer at descriptor set 0, binding i; the workgroup
// size is the one the module's entry point declares. Buffers live in
// host-visible, coherent memory that stays mapped, so uploads and downloads
// are memcpy.
//
// Objects created by a device (buffers, kernels) share its Vulkan state, so
// they may outlive the VulkanDevice object itself. One device may be used
// from several threads: submissions are serialised inside it.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_VULKANDEVICE_H
#define POOT_RUNTIME_VULKANDEVICE_H

#include "poot/Plan/DeviceFacts.h"
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

namespace vulkan_detail {
struct Context;
} // namespace vulkan_detail

/// A storage buffer, in the device's own memory where it has any: mapped
/// for its whole life where that memory is host-visible (unified memory,
/// lavapipe, resizable BAR), otherwise filled and read back through a
/// staging buffer (a discrete GPU; POOT_VULKAN_STAGING=1 in the environment
/// forces this path on any device, for tests). Move-only; an empty
/// (default-constructed) buffer is not valid.
class VulkanBuffer {
public:
  VulkanBuffer();
  ~VulkanBuffer();
  VulkanBuffer(VulkanBuffer &&other) noexcept;
  VulkanBuffer &operator=(VulkanBuffer &&other) noexcept;
  VulkanBuffer(const VulkanBuffer &) = delete;
  VulkanBuffer &operator=(const VulkanBuffer &) = delete;

  bool valid() const { return impl_ != nullptr; }
  /// Bytes the buffer holds (as asked for, not as rounded by the driver).
  int64_t size() const;
  /// The host mapping, or null for a buffer in device-only memory.
  /// Writing through it while a dispatch that uses the buffer runs is a
  /// race; between dispatches it is the fastest access.
  void *data() const;
  /// Whether the host maps the buffer (data() is its memory).
  bool mapped() const;

  /// Copies `bytes` from `src` to the buffer at `offset`.
  Status upload(const void *src, int64_t bytes, int64_t offset = 0);
  /// Copies `bytes` at `offset` of the buffer to `dst`.
  Status download(void *dst, int64_t bytes, int64_t offset = 0) const;

  struct Impl;

private:
  friend class VulkanDevice;
  std::unique_ptr<Impl> impl_;
};

/// One buffer-to-buffer copy on the device (VulkanDevice::copyBuffers).
struct VulkanBufferCopy {
  const VulkanBuffer *src = nullptr;
  int64_t srcOffset = 0;
  const VulkanBuffer *dst = nullptr;
  int64_t dstOffset = 0;
  int64_t bytes = 0;
};

/// A compute pipeline built from one entry point of a SPIR-V module, with a
/// descriptor-set layout of `numBuffers()` storage buffers. Move-only.
class VulkanKernel {
public:
  VulkanKernel();
  ~VulkanKernel();
  VulkanKernel(VulkanKernel &&other) noexcept;
  VulkanKernel &operator=(VulkanKernel &&other) noexcept;
  VulkanKernel(const VulkanKernel &) = delete;
  VulkanKernel &operator=(const VulkanKernel &) = delete;

  bool valid() const { return impl_ != nullptr; }
  const std::string &entry() const;
  int numBuffers() const;
  /// The workgroup size the module declares for the entry point.
  std::array<int64_t, 3> workgroupSize() const;
  /// Workgroup memory the module's Workgroup variables take (an estimate
  /// without padding: the driver decides the exact layout).
  int64_t workgroupMemoryBytes() const;

  struct Impl;

private:
  friend class VulkanDevice;
  std::unique_ptr<Impl> impl_;
};

/// One kernel argument: a whole buffer or a range of one. The offset must
/// be a multiple of VulkanDevice::storageBufferOffsetAlignment(), and the
/// range no longer than DeviceFacts::maxBufferBytes.
struct VulkanBinding {
  VulkanBinding(const VulkanBuffer &buffer) : buffer(&buffer) {}
  VulkanBinding(const VulkanBuffer &buffer, int64_t offset, int64_t bytes)
      : buffer(&buffer), offset(offset), bytes(bytes) {}

  const VulkanBuffer *buffer;
  int64_t offset = 0;
  int64_t bytes = -1; ///< -1: from offset to the end of the buffer
};

/// One dispatch of a sequence: a kernel, its arguments in binding order and
/// the number of workgroups along x, y, z.
struct VulkanDispatch {
  const VulkanKernel *kernel = nullptr;
  std::vector<VulkanBinding> bindings;
  int64_t groupsX = 1;
  int64_t groupsY = 1;
  int64_t groupsZ = 1;
};

/// The optional device features that a SPIR-V kernel's capabilities may
/// need. VulkanDevice::create enables each one the device has, so these are
/// both what a device has and what its kernels may use.
struct VulkanFeatures {
  bool shaderInt64 = false;                        ///< capability Int64
  bool shaderInt16 = false;                        ///< Int16
  bool shaderInt8 = false;                         ///< Int8
  bool shaderFloat64 = false;                      ///< Float64
  bool shaderFloat16 = false;                      ///< Float16
  bool storageBuffer16BitAccess = false;           ///< the same name
  bool uniformAndStorageBuffer16BitAccess = false; ///< the same name
  bool storageBuffer8BitAccess = false;            ///< the same name
  bool uniformAndStorageBuffer8BitAccess = false;  ///< the same name
};

/// Ok when every capability `spirv` declares (OpCapability) that needs one
/// of the features above finds it in `features`; otherwise Unsupported
/// naming the capability and the missing feature (a driver given such a
/// module may fail in any way, or not at all until it runs). Capabilities
/// outside that list are left to the driver. Malformed when the words are
/// not a SPIR-V module.
Status checkSpirvFeatures(const std::vector<uint32_t> &spirv,
                          const VulkanFeatures &features);

/// A Vulkan physical device with a logical device and one compute queue. As
/// a GpuDevice (VulkanGpu.cpp) it runs a sequence of launches as one
/// submission and times it with timestamp queries; a plan runs whole
/// (resident) by default.
class VulkanDevice final : public GpuDevice {
public:
  ~VulkanDevice() override;
  VulkanDevice(const VulkanDevice &) = delete;
  VulkanDevice &operator=(const VulkanDevice &) = delete;

  /// Opens device `index` in the loader's order (discrete GPUs first on
  /// current loaders). Unsupported when there is no loader or no device.
  static Status create(std::unique_ptr<VulkanDevice> &out, int index = 0);
  /// The names of the devices the loader sees, in create()'s index order.
  static Status listDevices(std::vector<std::string> &names);

  /// Limits and capabilities in the planner's terms (target "spirv").
  const DeviceFacts &facts() const override { return facts_; }
  /// "llvmpipe (LLVM 15.0.6, 256 bits), Vulkan 1.3.230, Mesa 22.3.6 ...".
  const std::string &description() const override { return description_; }
  /// The device's Vulkan version as VK_MAKE_API_VERSION packs it.
  uint32_t apiVersion() const { return apiVersion_; }
  /// The optional features the device has, each enabled on it.
  const VulkanFeatures &features() const { return features_; }
  /// Whether kernels may load and store 16-bit values in storage buffers
  /// (StorageBuffer16BitAccess; enabled on the device when supported).
  bool storageBuffer16Bit() const { return features_.storageBuffer16BitAccess; }
  /// Whether kernels may compute in f16 (Float16; enabled when supported).
  bool shaderFloat16() const { return features_.shaderFloat16; }
  /// Whether kernels may hold 64-bit integers (Int64; enabled when
  /// supported). DeviceFacts::int64 says the same to the planner.
  bool shaderInt64() const { return features_.shaderInt64; }
  /// Whether subgroup arithmetic (GroupNonUniformArithmetic) is available in
  /// compute shaders.
  bool subgroupArithmetic() const { return subgroupArithmetic_; }
  /// Required alignment of a VulkanBinding's offset.
  int64_t storageBufferOffsetAlignment() const { return offsetAlignment_; }
  /// The largest workgroup along x, y, z (the total is maxWorkgroupSize).
  const std::array<int64_t, 3> &maxWorkgroupDims() const {
    return maxWorkgroupDims_;
  }

  /// Allocates a buffer of `bytes` (> 0). A buffer may be larger than one
  /// binding may address (DeviceFacts::maxBufferBytes): bind ranges of it.
  Status createBuffer(int64_t bytes, VulkanBuffer &out);

  /// Builds the pipeline of entry point `entry` of a SPIR-V module whose
  /// arguments are `numBuffers` storage buffers at set 0, bindings
  /// 0..numBuffers-1. The module is checked first (well formed, a
  /// GLCompute entry point of that name, bindings within range, workgroup
  /// size and memory within the device's limits, every capability's
  /// feature enabled: checkSpirvFeatures).
  Status createKernel(const std::vector<uint32_t> &spirv,
                      const std::string &entry, int numBuffers,
                      VulkanKernel &out);

  /// Runs one dispatch and waits for it.
  Status dispatch(const VulkanKernel &kernel,
                  const std::vector<VulkanBinding> &bindings, int64_t groupsX,
                  int64_t groupsY = 1, int64_t groupsZ = 1);

  /// Runs the dispatches in order in one submission, each one seeing every
  /// write of the ones before it, and waits for the last. Everything is
  /// checked before anything is recorded: on a refusal nothing runs.
  Status dispatchAll(const std::vector<VulkanDispatch> &dispatches);

  /// Ok when the device can time dispatches: its compute queue writes
  /// timestamps (timestampValidBits of its family, which
  /// timestampComputeAndGraphics promises for every compute family) and
  /// the timer has a period. Otherwise Unsupported, naming the reason.
  Status timestampSupport() const;
  /// Nanoseconds one timestamp tick takes (VkPhysicalDeviceLimits::
  /// timestampPeriod).
  double timestampPeriod() const { return timestampPeriod_; }

  /// Bytes flushCache() writes: 256 MiB, or a quarter of the largest
  /// device-local heap and no more than one allocation may hold where the
  /// device has less.
  int64_t cacheFlushBytes() const;

  /// Times `iterations` runs of `dispatches` on the device: each run is one
  /// submission, recorded as dispatchAll records it, between two timestamp
  /// queries (vkCmdWriteTimestamp after everything before it completed),
  /// waited for before the next; with `flushCache`, a vkCmdFillBuffer of
  /// cacheFlushBytes() over a device buffer of its own comes first in each
  /// submission, outside the timestamps and finished before the first
  /// dispatch starts. Each run's microseconds (ticks times
  /// timestampPeriod) go to `microseconds`. Unsupported (timestampSupport)
  /// without timestamps; the dispatches are checked as dispatchAll checks
  /// them.
  Status timeDispatches(const std::vector<VulkanDispatch> &dispatches,
                        int iterations, bool flushCache,
                        std::vector<double> &microseconds);

  // GpuDevice (VulkanGpu.cpp).
  const char *kind() const override { return "vulkan"; }
  Status allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) override;
  Status loadModule(const Plan &plan,
                    std::unique_ptr<GpuModule> &out) override;
  int64_t argOffsetAlignment() const override { return offsetAlignment_; }
  Status run(const std::vector<GpuLaunch> &launches) override;
  Status copy(const std::vector<GpuCopy> &copies) override;
  /// Performs `copies` in order in one submission (vkCmdCopyBuffer) and
  /// waits. The ranges were checked by the caller (GpuDevice::copy).
  Status copyBuffers(const std::vector<VulkanBufferCopy> &copies);
  Status timingSupport() const override { return timestampSupport(); }
  Status time(const std::vector<GpuLaunch> &launches, int iterations,
              bool flushCache, std::vector<double> &microseconds) override;
  using GpuDevice::time;
  bool residentByDefault() const override { return true; }

private:
  VulkanDevice() = default;
  /// The launches as dispatches, every argument checked to be this
  /// device's.
  Status toDispatches(const std::vector<GpuLaunch> &launches,
                      std::vector<VulkanDispatch> &out) const;
  Status checkDispatch(const VulkanDispatch &dispatch, size_t position) const;
  /// The Vulkan side of dispatchAll and timeDispatches (VulkanDevice.cpp).
  Status submitDispatches(const std::vector<VulkanDispatch> &dispatches,
                          int iterations, bool flushCache,
                          std::vector<double> *microseconds);

  std::shared_ptr<vulkan_detail::Context> context_;
  DeviceFacts facts_;
  std::string description_;
  uint32_t apiVersion_ = 0;
  VulkanFeatures features_;
  bool subgroupArithmetic_ = false;
  int64_t offsetAlignment_ = 1;
  int64_t maxAllocationBytes_ = 0;
  std::array<int64_t, 3> maxWorkgroupDims_ = {1, 1, 1};
  std::array<int64_t, 3> maxGroups_ = {1, 1, 1};
  double timestampPeriod_ = 0;
  uint32_t timestampValidBits_ = 0;
  bool timestampComputeAndGraphics_ = false;
  /// Written by timeDispatches' cache flush; made on first use and kept.
  VulkanBuffer flushBuffer_;
  uint32_t flushValue_ = 0;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_VULKANDEVICE_H
