//===- CudaDevice.h - Compute on a CUDA device ------------------*- C++ -*-===//
//
// The runtime's CUDA device, over the driver API: device memory, modules
// loaded from PTX text, kernel launches on one stream, CUDA graphs captured
// from a sequence of launches, and event timing for the benchmark. The
// driver (libcuda.so.1) is opened with dlopen when a device is first
// created, so a binary that uses this class builds without the CUDA headers
// and starts on a machine without CUDA; there create() reports Unsupported
// and callers (and tests) fall back or skip.
//
// Every driver entry point the device calls sits in one table of function
// pointers (CudaApi). create() fills it from libcuda.so.1; createWith()
// takes one from the caller, which is how the tests run the device and the
// runner (argument packing, launch geometry, graph capture, error wrapping)
// on a machine without a GPU.
//
// Kernels follow the ABI of the PTX the compiler emits (MLIR's bare-pointer
// memref calling convention): parameter i of a kernel is one device pointer,
// the i-th buffer of the launch; the block is `lanes` threads along x; the
// kernels declare their shared memory statically, so no launch passes any
// dynamic shared memory.
//
// Everything runs on the device's own stream (a non-blocking one, never the
// legacy default stream) unless a call names another: uploads and downloads
// are ordered with the launches around them and wait for themselves, a
// launch only enqueues. Objects created by a device (buffers, modules,
// kernels, graphs) share its driver state, so they may outlive the
// CudaDevice object itself. A device is meant to be used from one thread at
// a time.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_CUDADEVICE_H
#define POOT_RUNTIME_CUDADEVICE_H

#include "poot/Plan/DeviceFacts.h"
#include "poot/Runtime/Bench.h" // medianOf, for the timings below
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

/// The driver's handle types, declared as cuda.h declares them so that code
/// including both sees one type.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;

namespace poot::rt {

/// A CUDA stream. Wherever the API takes one, nullptr means the device's own
/// stream (not the legacy default stream).
using CudaStream = ::CUstream_st *;

/// The driver entry points the device calls, with the driver's C signatures
/// and cuda.h's names for its types (CUresult and CUdevice are ints,
/// CUdeviceptr a 64-bit integer). The fields are the entries of
/// lib/Runtime/Cuda/CudaSymbols.def in order, which also says the symbols
/// each is loaded from; the build checks that the two agree.
struct CudaApi {
  using CUresult = int;
  using CUdevice = int;
  using CUdeviceptr = unsigned long long;
  using CUcontext = ::CUctx_st *;
  using CUmodule = ::CUmod_st *;
  using CUfunction = ::CUfunc_st *;
  using CUstream = ::CUstream_st *;
  using CUevent = ::CUevent_st *;
  using CUgraph = ::CUgraph_st *;
  using CUgraphExec = ::CUgraphExec_st *;
  using CUgraphNode = ::CUgraphNode_st *;

  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length,
                              CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context,
                                       CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction function) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute,
                                 int value) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr device, const void *host,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *host, CUdeviceptr device,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr device, const void *host,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *host, CUdeviceptr device, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr device, unsigned char value,
                         size_t bytes) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr device, unsigned char value,
                              size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent stop) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphGetNodes)(CUgraph graph, CUgraphNode *nodes,
                              size_t *count) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  /// Optional (may stay null; new in CUDA 12.4): the offset and size of
  /// parameter `index`, INVALID_VALUE past the last one.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index,
                                 size_t *offset, size_t *size) = nullptr;
  /// The driver's version as cuDriverGetVersion says it (13000 for CUDA
  /// 13.0), 0 where unknown; the description shows it. loadApi() reads it
  /// once; a table the caller builds sets it itself.
  int version = 0;
};

namespace cuda_detail {
struct Context;
struct ModuleState;
} // namespace cuda_detail

/// Device memory. Move-only; an empty (default-constructed) buffer is not
/// valid. Freed when the last owner goes.
class CudaDeviceBuffer {
public:
  CudaDeviceBuffer();
  ~CudaDeviceBuffer();
  CudaDeviceBuffer(CudaDeviceBuffer &&other) noexcept;
  CudaDeviceBuffer &operator=(CudaDeviceBuffer &&other) noexcept;
  CudaDeviceBuffer(const CudaDeviceBuffer &) = delete;
  CudaDeviceBuffer &operator=(const CudaDeviceBuffer &) = delete;

  bool valid() const { return impl_ != nullptr; }
  /// Bytes the buffer holds.
  int64_t size() const;
  /// The device address (a CUdeviceptr), 0 for an empty buffer.
  uint64_t devicePointer() const;

  /// Copies `bytes` from host memory at `src` to the buffer at `offset`,
  /// after everything already enqueued on the device's stream, and waits.
  Status upload(const void *src, int64_t bytes, int64_t offset = 0);
  /// Copies `bytes` at `offset` of the buffer to host memory at `dst`,
  /// after everything already enqueued on the device's stream, and waits.
  Status download(void *dst, int64_t bytes, int64_t offset = 0) const;
  /// Sets every byte to `value`, in order on the device's stream, and waits.
  Status fill(uint8_t value);
  /// Copies `bytes` of `src` (a buffer of the same device) from
  /// `srcOffset` into this buffer at `offset`, device to device, in order
  /// on the device's stream, and waits.
  Status copyFrom(const CudaDeviceBuffer &src, int64_t srcOffset,
                  int64_t offset, int64_t bytes);

  struct Impl;

private:
  friend class CudaDevice;
  std::unique_ptr<Impl> impl_;
};

/// One kernel of a loaded module. Holds its module loaded. Move-only.
class CudaKernel {
public:
  CudaKernel();
  ~CudaKernel();
  CudaKernel(CudaKernel &&other) noexcept;
  CudaKernel &operator=(CudaKernel &&other) noexcept;
  CudaKernel(const CudaKernel &) = delete;
  CudaKernel &operator=(const CudaKernel &) = delete;

  bool valid() const { return impl_ != nullptr; }
  const std::string &name() const;
  /// The kernel's parameter count, or -1 where the driver cannot say
  /// (cuFuncGetParamInfo is new in CUDA 12.4).
  int numParams() const;
  /// The most threads a block of this kernel may have (its register use
  /// can make that fewer than the device's limit).
  int64_t maxThreadsPerBlock() const;
  /// Shared memory the kernel declares statically.
  int64_t staticSharedBytes() const;
  /// Registers per thread.
  int64_t registers() const;

  struct Impl;

private:
  friend class CudaDevice;
  friend class CudaModule;
  std::unique_ptr<Impl> impl_;
};

/// A module loaded from PTX. Move-only; kernels looked up from it keep the
/// module loaded after the CudaModule object is gone.
class CudaModule {
public:
  CudaModule();
  ~CudaModule();
  CudaModule(CudaModule &&other) noexcept;
  CudaModule &operator=(CudaModule &&other) noexcept;
  CudaModule(const CudaModule &) = delete;
  CudaModule &operator=(const CudaModule &) = delete;

  bool valid() const { return state_ != nullptr; }
  /// The kernel (a PTX `.entry`) called `name`; UnknownName when the module
  /// has none.
  Status kernel(const std::string &name, CudaKernel &out) const;

private:
  friend class CudaDevice;
  std::shared_ptr<cuda_detail::ModuleState> state_;
};

/// A captured sequence of launches, instantiated and ready to replay.
/// Move-only.
class CudaGraph {
public:
  CudaGraph();
  ~CudaGraph();
  CudaGraph(CudaGraph &&other) noexcept;
  CudaGraph &operator=(CudaGraph &&other) noexcept;
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;

  bool valid() const { return impl_ != nullptr; }
  /// The number of nodes (launches) captured.
  int64_t numNodes() const;
  /// Enqueues one replay of the whole sequence on `stream` (nullptr: the
  /// device's stream) without waiting for it.
  Status replay(CudaStream stream = nullptr) const;

  struct Impl;

private:
  friend class CudaDevice;
  std::unique_ptr<Impl> impl_;
};

/// A CUDA device with its primary context and one stream. As a GpuDevice
/// (CudaGpu.cpp) it runs launches on its stream, records them as CUDA
/// graphs and times them with events.
class CudaDevice final : public GpuDevice {
public:
  ~CudaDevice() override;
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  /// Opens device `ordinal` in the driver's order. Unsupported when there is
  /// no driver (libcuda.so.1) or no device.
  static Status create(std::unique_ptr<CudaDevice> &out, int ordinal = 0);
  /// Opens device `ordinal` through `api` instead of libcuda.so.1 (the table
  /// must have every entry point but cuFuncGetParamInfo; cuInit is the
  /// caller's to have called).
  static Status createWith(std::shared_ptr<const CudaApi> api,
                           std::unique_ptr<CudaDevice> &out, int ordinal = 0);
  /// The number of CUDA devices; Unsupported without a driver.
  static Status deviceCount(int &count);
  /// The driver's entry points (loaded, and cuInit run, once per process),
  /// or Unsupported with the reason they cannot be loaded.
  static Status loadApi(std::shared_ptr<const CudaApi> &out);

  /// Limits in the planner's terms: name "sm_90" from the compute
  /// capability, target "nvvm", multiprocessors as compute units, the
  /// opt-in shared memory per block, warp size as the subgroup size.
  const DeviceFacts &facts() const override { return facts_; }
  /// "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, 60 MiB L2), driver 13.0".
  const std::string &description() const override { return description_; }
  /// The compute capability as major * 10 + minor (90 for sm_90).
  int computeCapability() const { return computeCapability_; }
  /// Bytes of L2 cache.
  int64_t l2CacheBytes() const { return l2Bytes_; }
  /// The device's own stream.
  CudaStream stream() const;

  /// Allocates `bytes` (> 0) of device memory. Its contents are undefined.
  Status createBuffer(int64_t bytes, CudaDeviceBuffer &out);

  /// Loads a module from PTX text (the output of MLIR's gpu-module-to-binary
  /// ends with a NUL byte; text with or without one is accepted). A module
  /// the driver's JIT refuses comes back Malformed with its error log.
  Status createModule(const std::string &ptx, CudaModule &out);

  /// Enqueues one launch of `kernel` on `stream` (nullptr: the device's
  /// stream): `gridX` x `gridY` blocks of `lanes` threads, parameter i the
  /// device pointer of args[i]. Everything is checked first (the argument
  /// count against the kernel's, the grid and block against the limits),
  /// so a refused launch never reaches the driver. Does not wait.
  /// `shared`: bytes of dynamic shared memory (checked beside the kernel's
  /// static shared memory against the device's opt-in limit; past 48 KiB
  /// the function's limit is raised once).
  Status launch(const CudaKernel &kernel,
                const std::vector<CudaDeviceBuffer *> &args, int64_t gridX,
                int64_t gridY, int64_t lanes, CudaStream stream = nullptr,
                int64_t shared = 0);

  /// Waits for everything enqueued on `stream` (nullptr: the device's).
  Status synchronize(CudaStream stream = nullptr);

  /// Records what `record` enqueues on the stream it is given into a graph
  /// and instantiates it. Nothing runs while capturing; the graph runs on
  /// each replay().
  Status captureGraph(const std::function<Status(CudaStream)> &record,
                      CudaGraph &out);

  /// Evicts the L2 cache: writes a buffer of max(256 MiB, 2 x L2) with
  /// cuMemsetD8 on `stream` (nullptr: the device's). The buffer is
  /// allocated on first use and kept.
  Status flushL2(CudaStream stream = nullptr);

  /// Times `iterations` runs of what `body` enqueues on the device's
  /// stream, each between two events (with an L2 flush before each, outside
  /// the events, when `flushL2` is set), and returns each run's
  /// microseconds in `microseconds`.
  Status timeRuns(int iterations,
                  const std::function<Status(CudaStream)> &body, bool flushL2,
                  std::vector<double> &microseconds);

  // GpuDevice (CudaGpu.cpp). Offsets are 256-byte multiples (what the
  // arena plans); a plan's PTX loads only on a chip at least as new as the
  // one it names.
  const char *kind() const override { return "cuda"; }
  Status allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) override;
  Status loadModule(const Plan &plan,
                    std::unique_ptr<GpuModule> &out) override;
  int64_t argOffsetAlignment() const override { return 256; }
  Status run(const std::vector<GpuLaunch> &launches) override;
  Status copy(const std::vector<GpuCopy> &copies) override;
  Status record(std::vector<GpuLaunch> launches,
                std::unique_ptr<GpuRecording> &out) override;
  Status replay(const GpuRecording &recording) override;
  Status timingSupport() const override { return Status::ok(); }
  Status time(const std::vector<GpuLaunch> &launches, int iterations,
              bool flushCache, std::vector<double> &microseconds) override;
  Status time(const GpuRecording &recording, int iterations, bool flushCache,
              std::vector<double> &microseconds) override;
  bool replaysNatively() const override { return true; }

private:
  CudaDevice() = default;
  /// The checks of launch() that do not look at the arguments' buffers.
  Status checkLaunch(const CudaKernel &kernel, size_t numArgs, int64_t gridX,
                     int64_t gridY, int64_t lanes, int64_t shared = 0) const;
  /// cuLaunchKernel with device addresses as the parameters, after
  /// checkLaunch.
  Status issueLaunch(const CudaKernel &kernel,
                     const std::vector<uint64_t> &pointers, int64_t gridX,
                     int64_t gridY, int64_t lanes, CudaStream stream,
                     int64_t shared = 0);
  /// The GpuLaunches as checked device addresses, before any is issued.
  Status resolve(const std::vector<GpuLaunch> &launches,
                 std::vector<std::vector<uint64_t>> &pointers) const;
  /// Issues resolved launches on `stream` without waiting.
  Status enqueueResolved(const std::vector<GpuLaunch> &launches,
                         const std::vector<std::vector<uint64_t>> &pointers,
                         CudaStream stream);

  std::shared_ptr<cuda_detail::Context> context_;
  DeviceFacts facts_;
  std::string description_;
  int computeCapability_ = 0;
  int64_t l2Bytes_ = 0;
  CudaDeviceBuffer flushBuffer_;
  uint8_t flushValue_ = 0;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_CUDADEVICE_H
