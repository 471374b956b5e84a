//===- HipDevice.h - Compute on a ROCm (HIP) device -------------*- C++ -*-===//
//
// The runtime's HIP device, over HIP's module API: device memory, modules
// loaded from AMDGPU code objects (the compiler's `hsaco`), kernel launches
// on the device's null stream. The HIP runtime (libamdhip64.so) is opened
// with dlopen when a device is first created, so a binary that uses this
// class builds without ROCm and starts on a machine without it; there
// create() reports Unsupported and callers (and tests) fall back or skip.
//
// Every HIP entry point the device calls sits in one table of function
// pointers (HipApi). create() fills it from libamdhip64.so; createWith()
// takes one from the caller, which is how the tests check argument packing,
// launch geometry and error wrapping on a machine without an AMD GPU.
//
// Kernels follow the ABI of the code objects the compiler emits (MLIR's
// bare-pointer memref calling convention, as on CUDA): parameter i of a
// kernel is one device pointer, the i-th buffer of the launch; the block is
// `lanes` threads along x; LDS is declared statically, so no launch passes
// dynamic shared memory. A device is meant to be used from one thread at a
// time.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_HIPDEVICE_H
#define POOT_RUNTIME_HIPDEVICE_H

#include "poot/Plan/DeviceFacts.h"
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

/// HIP's handle types, declared as opaque pointers (the HIP headers are not
/// needed to build).
struct HipModuleHandle;
struct HipFunctionHandle;
struct HipStreamHandle;

/// The HIP entry points the device calls, with HIP's C signatures
/// (hipError_t is an int; hipDevice_t an int; hipDeviceptr_t a void *). The
/// fields are the entries of lib/Runtime/Hip/HipSymbols.def in order, which
/// also says the symbols each is loaded from; the build checks that the two
/// agree.
struct HipApi {
  using Error = int;
  Error (*hipInit)(unsigned flags) = nullptr;
  Error (*hipGetDeviceCount)(int *count) = nullptr;
  Error (*hipSetDevice)(int device) = nullptr;
  Error (*hipDeviceGetAttribute)(int *value, int attribute,
                                 int device) = nullptr;
  Error (*hipDeviceGetName)(char *name, int length, int device) = nullptr;
  Error (*hipDeviceTotalMem)(size_t *bytes, int device) = nullptr;
  Error (*hipModuleLoadData)(HipModuleHandle **module,
                             const void *image) = nullptr;
  Error (*hipModuleUnload)(HipModuleHandle *module) = nullptr;
  Error (*hipModuleGetFunction)(HipFunctionHandle **function,
                                HipModuleHandle *module,
                                const char *name) = nullptr;
  Error (*hipModuleLaunchKernel)(HipFunctionHandle *function, unsigned gridX,
                                 unsigned gridY, unsigned gridZ,
                                 unsigned blockX, unsigned blockY,
                                 unsigned blockZ, unsigned sharedBytes,
                                 HipStreamHandle *stream, void **params,
                                 void **extra) = nullptr;
  Error (*hipMalloc)(void **pointer, size_t bytes) = nullptr;
  Error (*hipFree)(void *pointer) = nullptr;
  Error (*hipMemcpyHtoD)(void *device, void *host, size_t bytes) = nullptr;
  Error (*hipMemcpyDtoH)(void *host, void *device, size_t bytes) = nullptr;
  Error (*hipMemcpyDtoD)(void *dst, void *src, size_t bytes) = nullptr;
  Error (*hipStreamSynchronize)(HipStreamHandle *stream) = nullptr;
  const char *(*hipGetErrorName)(Error error) = nullptr;
  const char *(*hipGetErrorString)(Error error) = nullptr;
  /// Optional (may stay null): fills HIP's device-properties struct, whose
  /// layout changes between ROCm releases; the device only looks for the
  /// architecture name ("gfx942:sramecc+:xnack-") in it.
  Error (*hipGetDeviceProperties)(void *properties, int device) = nullptr;
};

namespace hip_detail {
struct Context;
struct ModuleState;
} // namespace hip_detail

/// Device memory. Move-only; freed when the last owner goes.
class HipDeviceBuffer {
public:
  HipDeviceBuffer();
  ~HipDeviceBuffer();
  HipDeviceBuffer(HipDeviceBuffer &&other) noexcept;
  HipDeviceBuffer &operator=(HipDeviceBuffer &&other) noexcept;
  HipDeviceBuffer(const HipDeviceBuffer &) = delete;
  HipDeviceBuffer &operator=(const HipDeviceBuffer &) = delete;

  bool valid() const { return impl_ != nullptr; }
  int64_t size() const;
  /// The device address, null for an empty buffer.
  void *devicePointer() const;
  /// Copies `bytes` from `src` to the buffer at `offset` and waits.
  Status upload(const void *src, int64_t bytes, int64_t offset = 0);
  /// Copies `bytes` at `offset` of the buffer to `dst` and waits.
  Status download(void *dst, int64_t bytes, int64_t offset = 0) const;
  /// Copies `bytes` of `src` (a buffer of the same device) from
  /// `srcOffset` into this buffer at `offset`, device to device.
  Status copyFrom(const HipDeviceBuffer &src, int64_t srcOffset,
                  int64_t offset, int64_t bytes);

  struct Impl;

private:
  friend class HipDevice;
  std::unique_ptr<Impl> impl_;
};

/// One kernel of a loaded module; holds its module loaded. Move-only.
class HipKernel {
public:
  HipKernel();
  ~HipKernel();
  HipKernel(HipKernel &&other) noexcept;
  HipKernel &operator=(HipKernel &&other) noexcept;
  HipKernel(const HipKernel &) = delete;
  HipKernel &operator=(const HipKernel &) = delete;

  bool valid() const { return impl_ != nullptr; }
  const std::string &name() const;

  struct Impl;

private:
  friend class HipDevice;
  friend class HipModule;
  std::unique_ptr<Impl> impl_;
};

/// A module loaded from an AMDGPU code object. Move-only.
class HipModule {
public:
  HipModule();
  ~HipModule();
  HipModule(HipModule &&other) noexcept;
  HipModule &operator=(HipModule &&other) noexcept;
  HipModule(const HipModule &) = delete;
  HipModule &operator=(const HipModule &) = delete;

  bool valid() const { return state_ != nullptr; }
  /// The kernel called `name`; UnknownName when the module has none.
  Status kernel(const std::string &name, HipKernel &out) const;

private:
  friend class HipDevice;
  std::shared_ptr<hip_detail::ModuleState> state_;
};

/// A HIP device. As a GpuDevice (HipGpu.cpp) it runs launches in order on
/// its null stream; it neither records nor times.
class HipDevice final : public GpuDevice {
public:
  ~HipDevice() override;
  HipDevice(const HipDevice &) = delete;
  HipDevice &operator=(const HipDevice &) = delete;

  /// Opens device `ordinal` through libamdhip64.so. Unsupported when there
  /// is no HIP runtime or no device.
  static Status create(std::unique_ptr<HipDevice> &out, int ordinal = 0);
  /// Opens device `ordinal` through `api` instead of libamdhip64.so (the
  /// table must have every entry point but hipGetDeviceProperties).
  static Status createWith(std::shared_ptr<const HipApi> api,
                           std::unique_ptr<HipDevice> &out, int ordinal = 0);
  /// The number of HIP devices; Unsupported without the HIP runtime.
  static Status deviceCount(int &count);
  /// The HIP runtime's entry points (loaded once per process), or
  /// Unsupported with the reason it cannot be loaded.
  static Status loadApi(std::shared_ptr<const HipApi> &out);

  /// Limits in the planner's terms: name = the architecture ("gfx942", or
  /// "amdgpu" where the runtime does not say), target "rocdl", compute
  /// units, LDS per workgroup, wavefront size as the subgroup size.
  const DeviceFacts &facts() const override { return facts_; }
  /// "AMD Instinct MI300X (gfx942, 304 CUs, 192.0 GiB)".
  const std::string &description() const override { return description_; }

  /// Allocates `bytes` (> 0) of device memory; its contents are undefined.
  Status createBuffer(int64_t bytes, HipDeviceBuffer &out);
  /// Loads a module from an AMDGPU code object (ELF bytes). A code object
  /// for another architecture comes back Unsupported.
  Status createModule(const std::string &codeObject, HipModule &out);
  /// Enqueues one launch of `kernel` on the device's null stream: `gridX`
  /// x `gridY` workgroups of `lanes` threads, parameter i the device
  /// pointer of args[i]. The grid and block are checked against the limits
  /// first, so a refused launch never reaches HIP. Does not wait.
  Status launch(const HipKernel &kernel,
                const std::vector<HipDeviceBuffer *> &args, int64_t gridX,
                int64_t gridY, int64_t lanes);
  /// Waits for everything enqueued.
  Status synchronize();

  // GpuDevice (HipGpu.cpp): a code object loads only on the architecture
  // it was built for.
  const char *kind() const override { return "hip"; }
  Status allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) override;
  Status loadModule(const Plan &plan,
                    std::unique_ptr<GpuModule> &out) override;
  int64_t argOffsetAlignment() const override { return 256; }
  Status run(const std::vector<GpuLaunch> &launches) override;
  Status copy(const std::vector<GpuCopy> &copies) override;

private:
  HipDevice() = default;
  /// The checks of launch() that do not look at the arguments' buffers.
  Status checkLaunch(const HipKernel &kernel, int64_t gridX, int64_t gridY,
                     int64_t lanes) const;
  /// hipModuleLaunchKernel with device addresses as the parameters, after
  /// checkLaunch.
  Status issueLaunch(const HipKernel &kernel,
                     const std::vector<void *> &pointers, int64_t gridX,
                     int64_t gridY, int64_t lanes);

  std::shared_ptr<hip_detail::Context> context_;
  DeviceFacts facts_;
  std::string description_;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_HIPDEVICE_H
