//===- CudaDevice.cpp - Compute on a CUDA device --------------------------===//
//
// The driver is reached only through dlopen("libcuda.so.1") and the CudaApi
// table of the entry points we call, looked up by the versioned symbol names
// CudaSymbols.def lists (the names cuda.h's #defines resolve to). The few
// driver types are declared in CudaDevice.h and the enumerators here rather
// than taken from cuda.h: that keeps the build free of the CUDA toolkit, and
// the driver ABI these declarations describe has been stable since CUDA 4
// (the _v2 entry points are the 64-bit ones).
//
// A device retains the primary context of its CUdevice and makes it current
// at the start of every call, so a device may be used from whichever thread
// holds it. Everything is enqueued on one non-blocking stream: uploads and
// downloads are asynchronous copies followed by a stream synchronisation,
// because a synchronous copy runs on the legacy stream, which a non-blocking
// stream is not ordered with.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/DeviceQuery.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <type_traits>

using namespace poot::rt;

//===----------------------------------------------------------------------===//
// Driver types and entry points
//===----------------------------------------------------------------------===//

namespace poot::rt::cuda_detail {

using CUresult = CudaApi::CUresult;
using CUdevice = CudaApi::CUdevice;
using CUdeviceptr = CudaApi::CUdeviceptr;
using CUcontext = CudaApi::CUcontext;
using CUmodule = CudaApi::CUmodule;
using CUfunction = CudaApi::CUfunction;
using CUstream = CudaApi::CUstream;
using CUevent = CudaApi::CUevent;
using CUgraph = CudaApi::CUgraph;
using CUgraphExec = CudaApi::CUgraphExec;
using CUgraphNode = CudaApi::CUgraphNode;

// The enumerators we pass, with cuda.h's values.
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
};
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
enum : unsigned {
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0,
};
enum : int { CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };


// CudaApi spells its fields out for an installed header to stand alone;
// the same table built from CudaSymbols.def must have the same layout: every
// entry a field of its type at its place, and no field that is not an entry.
struct ListedApi {
#define POOT_CUDA_SYMBOL(name, params, ...) CUresult(*name) params;
#include "Cuda/CudaSymbols.def"
  int version;
};
#define POOT_CUDA_SYMBOL(name, params, ...)                                    \
  static_assert(std::is_same_v<decltype(CudaApi::name), CUresult(*) params> && \
                    offsetof(CudaApi, name) == offsetof(ListedApi, name),      \
                "CudaApi::" #name " is not CudaSymbols.def's entry");
#include "Cuda/CudaSymbols.def"
static_assert(sizeof(CudaApi) == sizeof(ListedApi) &&
                  offsetof(CudaApi, version) == offsetof(ListedApi, version),
              "CudaApi has fields CudaSymbols.def does not list");

/// One device's driver state: the retained primary context and the stream.
/// Buffers, modules and graphs hold on to it, so it goes after the last.
struct Context {
  std::shared_ptr<const CudaApi> api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;

  Context() = default;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  /// Makes the context current on the calling thread.
  Status makeCurrent() const;
  /// `given`, or the device's stream for nullptr.
  CUstream pick(CUstream given) const { return given ? given : stream; }
};

struct ModuleState {
  std::shared_ptr<Context> ctx;
  CUmodule module = nullptr;
  ~ModuleState() {
    if (module && ctx->makeCurrent().isOk())
      ctx->api->cuModuleUnload(module);
  }
};

} // namespace poot::rt::cuda_detail

using namespace poot::rt::cuda_detail;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string resultText(const CudaApi &api, CUresult result) {
  const char *name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name)
    return name;
  return "CUresult " + std::to_string(result);
}

/// "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX". The runtime's codes have no
/// "device failed" entry: what the driver or device cannot do is
/// Unsupported, a module or name it refuses is Malformed or UnknownName, an
/// argument it refuses is InvalidArgument, and a failure of the device
/// itself (out of memory, a fault in a kernel) is Io, the nearest to "the
/// hardware did not complete the work".
Status cuError(const CudaApi &api, const char *call, CUresult result) {
  ErrorCode code = ErrorCode::Io;
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_INSUFFICIENT_DRIVER:
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_NOT_SUPPORTED:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    code = ErrorCode::Unsupported;
    break;
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
    code = ErrorCode::Malformed;
    break;
  case CUDA_ERROR_NOT_FOUND:
    code = ErrorCode::UnknownName;
    break;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    code = ErrorCode::InvalidArgument;
    break;
  default:
    break;
  }
  return Status(code, std::string(call) + ": " + resultText(api, result));
}

#define POOT_CU_CHECK(api, call, expr)                                         \
  do {                                                                         \
    CUresult pootResult_ = (expr);                                             \
    if (pootResult_ != CUDA_SUCCESS)                                           \
      return cuError(api, call, pootResult_);                                  \
  } while (false)

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

void *lookup(void *handle, std::initializer_list<const char *> symbols) {
  for (const char *symbol : symbols)
    if (void *fn = dlsym(handle, symbol))
      return fn;
  return nullptr;
}

/// The first entry point the device needs that `api` lacks, or null.
const char *missingEntryPoint(const CudaApi &api) {
#define POOT_CUDA_SYMBOL(name, params, ...)                                    \
  if (!api.name)                                                               \
    return #name;
#define POOT_CUDA_OPTIONAL_SYMBOL(name, params, ...)
#include "Cuda/CudaSymbols.def"
  return nullptr;
}

Status checkRange(const char *what, int64_t offset, int64_t bytes,
                  int64_t size) {
  if (offset < 0 || bytes < 0 || offset > size || bytes > size - offset)
    return Status(ErrorCode::InvalidArgument,
                  std::string(what) + " of " + std::to_string(bytes) +
                      " bytes at offset " + std::to_string(offset) +
                      " is outside the buffer of " + std::to_string(size) +
                      " bytes");
  return Status::ok();
}

std::string gibText(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f GiB",
                static_cast<double>(bytes) / (1ll << 30));
  return buf;
}

/// Destroys a pair of events when it goes out of scope.
struct EventPair {
  const CudaApi *api;
  CUevent start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start)
      api->cuEventDestroy(start);
    if (stop)
      api->cuEventDestroy(stop);
  }
};

} // namespace

Context::~Context() {
  if (!context)
    return;
  if (api->cuCtxSetCurrent(context) == CUDA_SUCCESS && stream) {
    api->cuStreamSynchronize(stream);
    api->cuStreamDestroy(stream);
  }
  api->cuDevicePrimaryCtxRelease(device);
}

Status Context::makeCurrent() const {
  POOT_CU_CHECK(*api, "cuCtxSetCurrent", api->cuCtxSetCurrent(context));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

struct CudaDeviceBuffer::Impl {
  std::shared_ptr<Context> ctx;
  CUdeviceptr ptr = 0;
  int64_t size = 0;

  ~Impl() {
    if (ptr && ctx->makeCurrent().isOk())
      ctx->api->cuMemFree(ptr);
  }
};

CudaDeviceBuffer::CudaDeviceBuffer() = default;
CudaDeviceBuffer::~CudaDeviceBuffer() = default;
CudaDeviceBuffer::CudaDeviceBuffer(CudaDeviceBuffer &&other) noexcept =
    default;
CudaDeviceBuffer &
CudaDeviceBuffer::operator=(CudaDeviceBuffer &&other) noexcept = default;

int64_t CudaDeviceBuffer::size() const { return impl_ ? impl_->size : 0; }
uint64_t CudaDeviceBuffer::devicePointer() const {
  return impl_ ? impl_->ptr : 0;
}

Status CudaDeviceBuffer::upload(const void *src, int64_t bytes,
                                int64_t offset) {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "upload to an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("upload", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  POOT_CU_CHECK(
      *ctx.api, "cuMemcpyHtoDAsync",
      ctx.api->cuMemcpyHtoDAsync(impl_->ptr + offset, src, bytes, ctx.stream));
  // The copy reads `src` until it completes, and the caller may reuse it
  // as soon as we return.
  POOT_CU_CHECK(*ctx.api, "cuStreamSynchronize",
                ctx.api->cuStreamSynchronize(ctx.stream));
  return Status::ok();
}

Status CudaDeviceBuffer::download(void *dst, int64_t bytes,
                                  int64_t offset) const {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "download from an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("download", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  POOT_CU_CHECK(
      *ctx.api, "cuMemcpyDtoHAsync",
      ctx.api->cuMemcpyDtoHAsync(dst, impl_->ptr + offset, bytes, ctx.stream));
  POOT_CU_CHECK(*ctx.api, "cuStreamSynchronize",
                ctx.api->cuStreamSynchronize(ctx.stream));
  return Status::ok();
}

Status CudaDeviceBuffer::fill(uint8_t value) {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "fill of an empty buffer");
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  POOT_CU_CHECK(
      *ctx.api, "cuMemsetD8Async",
      ctx.api->cuMemsetD8Async(impl_->ptr, value, impl_->size, ctx.stream));
  POOT_CU_CHECK(*ctx.api, "cuStreamSynchronize",
                ctx.api->cuStreamSynchronize(ctx.stream));
  return Status::ok();
}

Status CudaDeviceBuffer::copyFrom(const CudaDeviceBuffer &src,
                                  int64_t srcOffset, int64_t offset,
                                  int64_t bytes) {
  if (!impl_ || !src.impl_)
    return Status(ErrorCode::InvalidArgument, "a copy with an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("copy", srcOffset, bytes, src.impl_->size));
  POOT_RETURN_IF_ERROR(checkRange("copy", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  POOT_CU_CHECK(*ctx.api, "cuMemcpyDtoDAsync",
                ctx.api->cuMemcpyDtoDAsync(impl_->ptr + offset,
                                           src.impl_->ptr + srcOffset, bytes,
                                           ctx.stream));
  POOT_CU_CHECK(*ctx.api, "cuStreamSynchronize",
                ctx.api->cuStreamSynchronize(ctx.stream));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

struct CudaKernel::Impl {
  std::shared_ptr<ModuleState> module;
  CUfunction function = nullptr;
  std::string name;
  int numParams = -1;
  int64_t maxThreads = 0;
  int64_t sharedBytes = 0;
  int64_t registers = 0;
  /// The dynamic shared memory the function is allowed (set before the
  /// first launch that needs more than the default 48 KiB).
  int64_t dynamicAllowed = 48 * 1024;
};

CudaKernel::CudaKernel() = default;
CudaKernel::~CudaKernel() = default;
CudaKernel::CudaKernel(CudaKernel &&other) noexcept = default;
CudaKernel &CudaKernel::operator=(CudaKernel &&other) noexcept = default;

const std::string &CudaKernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->name : empty;
}
int CudaKernel::numParams() const { return impl_ ? impl_->numParams : -1; }
int64_t CudaKernel::maxThreadsPerBlock() const {
  return impl_ ? impl_->maxThreads : 0;
}
int64_t CudaKernel::staticSharedBytes() const {
  return impl_ ? impl_->sharedBytes : 0;
}
int64_t CudaKernel::registers() const { return impl_ ? impl_->registers : 0; }

CudaModule::CudaModule() = default;
CudaModule::~CudaModule() = default;
CudaModule::CudaModule(CudaModule &&other) noexcept = default;
CudaModule &CudaModule::operator=(CudaModule &&other) noexcept = default;

Status CudaModule::kernel(const std::string &name, CudaKernel &out) const {
  if (!state_)
    return Status(ErrorCode::InvalidArgument,
                  "kernel '" + name + "' looked up in an empty module");
  const Context &ctx = *state_->ctx;
  const CudaApi &api = *ctx.api;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  auto impl = std::make_unique<CudaKernel::Impl>();
  impl->module = state_;
  impl->name = name;
  CUresult r = api.cuModuleGetFunction(&impl->function, state_->module,
                                       name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return Status(ErrorCode::UnknownName,
                  "cuModuleGetFunction: the module has no kernel '" + name +
                      "'");
  POOT_CU_CHECK(api, "cuModuleGetFunction", r);
  int value = 0;
  POOT_CU_CHECK(api, "cuFuncGetAttribute",
                api.cuFuncGetAttribute(
                    &value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                    impl->function));
  impl->maxThreads = value;
  POOT_CU_CHECK(api, "cuFuncGetAttribute",
                api.cuFuncGetAttribute(&value,
                                       CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                       impl->function));
  impl->sharedBytes = value;
  POOT_CU_CHECK(api, "cuFuncGetAttribute",
                api.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                       impl->function));
  impl->registers = value;
  // The parameter count, where the driver can tell it: a launch with too
  // few pointers would let the kernel read garbage as an address. The
  // index past the last parameter is refused with INVALID_VALUE.
  if (api.cuFuncGetParamInfo) {
    int count = 0;
    size_t offset = 0, size = 0;
    while (count < 4096 &&
           api.cuFuncGetParamInfo(impl->function, count, &offset, &size) ==
               CUDA_SUCCESS)
      ++count;
    impl->numParams = count;
  }
  out.impl_ = std::move(impl);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

struct CudaGraph::Impl {
  std::shared_ptr<Context> ctx;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  int64_t nodes = 0;

  ~Impl() {
    if (!ctx->makeCurrent().isOk())
      return;
    if (exec)
      ctx->api->cuGraphExecDestroy(exec);
    if (graph)
      ctx->api->cuGraphDestroy(graph);
  }
};

CudaGraph::CudaGraph() = default;
CudaGraph::~CudaGraph() = default;
CudaGraph::CudaGraph(CudaGraph &&other) noexcept = default;
CudaGraph &CudaGraph::operator=(CudaGraph &&other) noexcept = default;

int64_t CudaGraph::numNodes() const { return impl_ ? impl_->nodes : 0; }

Status CudaGraph::replay(CudaStream stream) const {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "replay of an empty graph");
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.makeCurrent());
  POOT_CU_CHECK(*ctx.api, "cuGraphLaunch",
                ctx.api->cuGraphLaunch(impl_->exec, ctx.pick(stream)));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

CudaDevice::~CudaDevice() = default;

CudaStream CudaDevice::stream() const {
  return context_ ? context_->stream : nullptr;
}

Status CudaDevice::loadApi(std::shared_ptr<const CudaApi> &out) {
  struct Loaded {
    std::shared_ptr<CudaApi> api;
    Status status;
  };
  // Loaded once per process. The handle is never closed: the driver keeps
  // threads and atexit handlers of its own.
  static const Loaded loaded = [] {
    Loaded result;
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      result.status = Status(ErrorCode::Unsupported,
                             std::string("no CUDA driver (libcuda.so.1): ") +
                                 (why ? why : "dlopen failed"));
      return result;
    }
    auto api = std::make_shared<CudaApi>();
#define POOT_CUDA_SYMBOL(name, params, ...)                                    \
  api->name =                                                                  \
      reinterpret_cast<decltype(api->name)>(lookup(handle, {__VA_ARGS__}));
#include "Cuda/CudaSymbols.def"
    if (const char *missing = missingEntryPoint(*api)) {
      result.status = Status(ErrorCode::Unsupported,
                             std::string("the CUDA driver (libcuda.so.1) is "
                                         "too old: it has no ") +
                                 missing);
      return result;
    }
    // Whatever cuInit says, there is no device to use: a driver without a
    // GPU (a container's stub, a machine whose kernel module is not
    // loaded) fails here with NO_DEVICE, STUB_LIBRARY or the like.
    if (CUresult r = api->cuInit(0); r != CUDA_SUCCESS) {
      result.status = Status(ErrorCode::Unsupported,
                             "no usable CUDA device (cuInit: " +
                                 resultText(*api, r) + ")");
      return result;
    }
    if (api->cuDriverGetVersion(&api->version) != CUDA_SUCCESS)
      api->version = 0;
    result.api = std::move(api);
    return result;
  }();
  if (!loaded.status.isOk())
    return loaded.status;
  out = loaded.api;
  return Status::ok();
}

Status CudaDevice::deviceCount(int &count) {
  count = 0;
  std::shared_ptr<const CudaApi> api;
  POOT_RETURN_IF_ERROR(loadApi(api));
  POOT_CU_CHECK(*api, "cuDeviceGetCount", api->cuDeviceGetCount(&count));
  return Status::ok();
}

Status poot::rt::queryCudaFacts(LiveDeviceFacts &out, int ordinal) {
  out = LiveDeviceFacts();
  out.kind = "cuda";
  std::shared_ptr<const CudaApi> api;
  POOT_RETURN_IF_ERROR(CudaDevice::loadApi(api));
  int count = 0;
  POOT_CU_CHECK(*api, "cuDeviceGetCount", api->cuDeviceGetCount(&count));
  if (count == 0)
    return Status(ErrorCode::Unsupported, "no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return Status(ErrorCode::InvalidArgument,
                  "CUDA device ordinal " + std::to_string(ordinal) +
                      " is out of range: the driver sees " +
                      std::to_string(count) + " device(s)");
  // Attributes need no context: nothing is retained or left current.
  CUdevice device = 0;
  POOT_CU_CHECK(*api, "cuDeviceGet", api->cuDeviceGet(&device, ordinal));
  auto attribute = [&](int which, int64_t &value) -> Status {
    int v = 0;
    POOT_CU_CHECK(*api, "cuDeviceGetAttribute",
                  api->cuDeviceGetAttribute(&v, which, device));
    value = v;
    return Status::ok();
  };
  DeviceFacts &f = out.facts;
  int64_t major = 0, minor = 0;
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, minor));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, f.computeUnits));
  // Generated kernels declare their shared memory statically, which is
  // capped at the per-block default; the opt-in carve-out needs dynamic
  // shared memory.
  POOT_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                                 f.workgroupMemoryBytes));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                out.workgroupMemoryOptInBytes));
  out.workgroupMemoryOptInBytes =
      std::max(out.workgroupMemoryOptInBytes, f.workgroupMemoryBytes);
  f.dynamicWorkgroupMemoryBytes = out.workgroupMemoryOptInBytes;
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f.maxWorkgroupSize));
  const int blockDims[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                            CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                            CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  const int gridDims[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int i = 0; i < 3; ++i) {
    POOT_RETURN_IF_ERROR(attribute(blockDims[i], out.maxWorkgroupDims[i]));
    POOT_RETURN_IF_ERROR(attribute(gridDims[i], out.maxGrid[i]));
  }
  f.maxGridX = out.maxGrid[0];
  f.maxGridY = out.maxGrid[1];
  POOT_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, f.subgroupSize));
  out.minSubgroupSize = out.maxSubgroupSize = f.subgroupSize;
  f.fixedSubgroup = true; // a warp is always warpSize lanes
  size_t total = 0;
  POOT_CU_CHECK(*api, "cuDeviceTotalMem",
                api->cuDeviceTotalMem(&total, device));
  f.memoryBytes = static_cast<int64_t>(total);
  f.maxBufferBytes = f.memoryBytes;
  out.heaps.push_back({f.memoryBytes, true});
  f.f16Storage = true;
  f.bf16Storage = true;
  out.computeCapability = static_cast<int>(major * 10 + minor);
  f.matrixTile = major >= 8; // mma.sync m16n8k16 f16/bf16
  f.asyncCopy = major >= 8;  // cp.async and ldmatrix
  f.deviceFence = major >= 7; // fence.acq_rel.gpu
  f.warpgroupTile = major == 9 && minor == 0; // wgmma (sm_90a)
  f.vectorLoadBytes = 16;     // ld.global.v4 of 32-bit words
  f.name = "sm_" + std::to_string(out.computeCapability);
  f.target = "nvvm";

  char name[256] = {};
  POOT_CU_CHECK(*api, "cuDeviceGetName",
                api->cuDeviceGetName(name, sizeof(name) - 1, device));
  out.description = std::string(name) + " (" + f.name + ", " +
                    std::to_string(f.computeUnits) + " SMs, " +
                    gibText(f.memoryBytes) + "), driver " +
                    std::to_string(api->version / 1000) + "." +
                    std::to_string(api->version % 1000 / 10);
  return Status::ok();
}

Status CudaDevice::create(std::unique_ptr<CudaDevice> &out, int ordinal) {
  out.reset();
  std::shared_ptr<const CudaApi> api;
  POOT_RETURN_IF_ERROR(loadApi(api));
  return createWith(std::move(api), out, ordinal);
}

Status CudaDevice::createWith(std::shared_ptr<const CudaApi> api,
                              std::unique_ptr<CudaDevice> &out, int ordinal) {
  out.reset();
  if (!api)
    return Status(ErrorCode::InvalidArgument, "no CUDA entry points");
  if (const char *missing = missingEntryPoint(*api))
    return Status(ErrorCode::Unsupported,
                  std::string("the CUDA entry points lack ") + missing);
  int count = 0;
  POOT_CU_CHECK(*api, "cuDeviceGetCount", api->cuDeviceGetCount(&count));
  if (count == 0)
    return Status(ErrorCode::Unsupported, "no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return Status(ErrorCode::InvalidArgument,
                  "CUDA device ordinal " + std::to_string(ordinal) +
                      " is out of range: the driver sees " +
                      std::to_string(count) + " device(s)");

  auto ctx = std::make_shared<Context>();
  ctx->api = api;
  POOT_CU_CHECK(*api, "cuDeviceGet", api->cuDeviceGet(&ctx->device, ordinal));
  auto attribute = [&](int which, int64_t &value) -> Status {
    int v = 0;
    POOT_CU_CHECK(*api, "cuDeviceGetAttribute",
                  api->cuDeviceGetAttribute(&v, which, ctx->device));
    value = v;
    return Status::ok();
  };
  int64_t major = 0, minor = 0;
  std::unique_ptr<CudaDevice> device(new CudaDevice());
  DeviceFacts &f = device->facts_;
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, minor));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, f.computeUnits));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                f.workgroupMemoryBytes));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f.maxWorkgroupSize));
  POOT_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, f.subgroupSize));
  f.fixedSubgroup = true; // every CUDA device runs 32-lane warps
  POOT_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, f.maxGridX));
  POOT_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, f.maxGridY));
  POOT_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device->l2Bytes_));
  size_t total = 0;
  POOT_CU_CHECK(*api, "cuDeviceTotalMem",
                api->cuDeviceTotalMem(&total, ctx->device));
  f.memoryBytes = static_cast<int64_t>(total);
  f.maxBufferBytes = f.memoryBytes;
  f.f16Storage = true;
  f.bf16Storage = true;
  device->computeCapability_ = static_cast<int>(major * 10 + minor);
  f.matrixTile = major >= 8; // mma.sync m16n8k16 f16/bf16
  f.asyncCopy = major >= 8;  // cp.async and ldmatrix
  f.deviceFence = major >= 7; // fence.acq_rel.gpu
  f.warpgroupTile = major == 9 && minor == 0; // wgmma (sm_90a)
  f.vectorLoadBytes = 16;     // ld.global.v4 of 32-bit words
  f.name = "sm_" + std::to_string(device->computeCapability_);
  f.target = "nvvm";

  char name[256] = {};
  POOT_CU_CHECK(*api, "cuDeviceGetName",
                api->cuDeviceGetName(name, sizeof(name) - 1, ctx->device));
  char mib[32];
  std::snprintf(mib, sizeof(mib), "%lld MiB L2",
                static_cast<long long>(device->l2Bytes_ >> 20));
  device->description_ =
      std::string(name) + " (" + f.name + ", " +
      std::to_string(f.computeUnits) + " SMs, " + gibText(f.memoryBytes) +
      ", " + mib + "), driver " + std::to_string(api->version / 1000) + "." +
      std::to_string(api->version % 1000 / 10);

  POOT_CU_CHECK(*api, "cuDevicePrimaryCtxRetain",
                api->cuDevicePrimaryCtxRetain(&ctx->context, ctx->device));
  POOT_RETURN_IF_ERROR(ctx->makeCurrent());
  CUresult r = api->cuStreamCreate(&ctx->stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    ctx->stream = nullptr;
    return cuError(*api, "cuStreamCreate", r);
  }
  device->context_ = std::move(ctx);
  out = std::move(device);
  return Status::ok();
}

Status CudaDevice::createBuffer(int64_t bytes, CudaDeviceBuffer &out) {
  if (bytes <= 0)
    return Status(ErrorCode::InvalidArgument,
                  "a buffer of " + std::to_string(bytes) +
                      " bytes: the size must be positive");
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  auto impl = std::make_unique<CudaDeviceBuffer::Impl>();
  impl->ctx = context_;
  CUresult r = context_->api->cuMemAlloc(&impl->ptr, bytes);
  if (r != CUDA_SUCCESS) {
    impl->ptr = 0;
    Status s = cuError(*context_->api, "cuMemAlloc", r);
    return Status(s.code(), s.message() + " (" + std::to_string(bytes) +
                                " bytes)");
  }
  impl->size = bytes;
  out.impl_ = std::move(impl);
  return Status::ok();
}

Status CudaDevice::createModule(const std::string &ptx, CudaModule &out) {
  // The driver reads PTX up to its NUL: one already there (MLIR appends
  // one) is as good as the one c_str() adds, but text after an embedded
  // NUL would silently vanish.
  size_t end = ptx.size();
  while (end > 0 && ptx[end - 1] == '\0')
    --end;
  if (end == 0)
    return Status(ErrorCode::InvalidArgument, "the PTX module is empty");
  if (ptx.find('\0') < end)
    return Status(ErrorCode::Malformed,
                  "the PTX module holds a NUL byte at offset " +
                      std::to_string(ptx.find('\0')) + ": it is not PTX text");
  std::string text = ptx.substr(0, end);

  const CudaApi &api = *context_->api;
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  // The JIT's error log says which line of the PTX it refused.
  char errorLog[8192] = {};
  char infoLog[4096] = {};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog,
                    reinterpret_cast<void *>(static_cast<uintptr_t>(
                        sizeof(errorLog) - 1)),
                    infoLog,
                    reinterpret_cast<void *>(static_cast<uintptr_t>(
                        sizeof(infoLog) - 1))};
  auto state = std::make_shared<ModuleState>();
  state->ctx = context_;
  CUresult r = api.cuModuleLoadDataEx(&state->module, text.c_str(), 4,
                                      options, values);
  if (r != CUDA_SUCCESS) {
    state->module = nullptr;
    Status s = cuError(api, "cuModuleLoadDataEx", r);
    std::string log = errorLog;
    while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
      log.pop_back();
    return Status(s.code(), log.empty() ? s.message()
                                        : s.message() + ": " + log);
  }
  out.state_ = std::move(state);
  return Status::ok();
}

Status CudaDevice::checkLaunch(const CudaKernel &kernel, size_t numArgs,
                               int64_t gridX, int64_t gridY, int64_t lanes,
                               int64_t shared) const {
  if (!kernel.impl_)
    return Status(ErrorCode::InvalidArgument, "launch of an empty kernel");
  const CudaKernel::Impl &k = *kernel.impl_;
  if (k.module->ctx != context_)
    return Status(ErrorCode::InvalidArgument,
                  "kernel '" + k.name + "' belongs to another device");
  std::string where = "launch of '" + k.name + "': ";
  if (k.numParams >= 0 && k.numParams != static_cast<int>(numArgs))
    return Status(ErrorCode::InvalidArgument,
                  where + "the kernel takes " + std::to_string(k.numParams) +
                      " parameter(s), the launch passes " +
                      std::to_string(numArgs) + " buffer(s)");
  int64_t maxLanes = std::min(facts_.maxWorkgroupSize, k.maxThreads);
  if (lanes < 1 || lanes > maxLanes)
    return Status(ErrorCode::InvalidArgument,
                  where + std::to_string(lanes) +
                      " threads per block, the kernel allows 1 to " +
                      std::to_string(maxLanes));
  if (gridX < 1 || gridX > facts_.maxGridX || gridY < 1 ||
      gridY > facts_.maxGridY)
    return Status(ErrorCode::InvalidArgument,
                  where + "a grid of " + std::to_string(gridX) + " x " +
                      std::to_string(gridY) + " blocks, the device allows " +
                      std::to_string(facts_.maxGridX) + " x " +
                      std::to_string(facts_.maxGridY));
  if (shared < 0 || k.sharedBytes + shared > facts_.workgroupMemoryBytes)
    return Status(ErrorCode::InvalidArgument,
                  where + std::to_string(shared) +
                      " bytes of dynamic shared memory beside " +
                      std::to_string(k.sharedBytes) +
                      " static, the device allows " +
                      std::to_string(facts_.workgroupMemoryBytes) +
                      " a block");
  return Status::ok();
}

Status CudaDevice::issueLaunch(const CudaKernel &kernel,
                               const std::vector<uint64_t> &pointers,
                               int64_t gridX, int64_t gridY, int64_t lanes,
                               CudaStream stream, int64_t shared) {
  // The driver reads parameter i through params[i] at the call: pointers to
  // our locals are enough, also while a stream is being captured.
  std::vector<CUdeviceptr> values(pointers.begin(), pointers.end());
  std::vector<void *> params(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    params[i] = &values[i];
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  // More than the default 48 KiB of dynamic shared memory is an opt-in of
  // the function, made once (checkLaunch checked the device's maximum).
  CudaKernel::Impl &k = *kernel.impl_;
  if (shared > k.dynamicAllowed) {
    if (!context_->api->cuFuncSetAttribute)
      return Status(ErrorCode::Unsupported,
                    "launch of '" + k.name + "': " + std::to_string(shared) +
                        " bytes of dynamic shared memory need "
                        "cuFuncSetAttribute, which the driver lacks");
    POOT_CU_CHECK(*context_->api, "cuFuncSetAttribute",
                  context_->api->cuFuncSetAttribute(
                      k.function,
                      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      static_cast<int>(shared)));
    k.dynamicAllowed = shared;
  }
  POOT_CU_CHECK(*context_->api, "cuLaunchKernel",
                context_->api->cuLaunchKernel(
                    kernel.impl_->function, static_cast<unsigned>(gridX),
                    static_cast<unsigned>(gridY), 1,
                    static_cast<unsigned>(lanes), 1, 1,
                    static_cast<unsigned>(shared), context_->pick(stream),
                    params.empty() ? nullptr : params.data(), nullptr));
  return Status::ok();
}

Status CudaDevice::launch(const CudaKernel &kernel,
                          const std::vector<CudaDeviceBuffer *> &args,
                          int64_t gridX, int64_t gridY, int64_t lanes,
                          CudaStream stream, int64_t shared) {
  POOT_RETURN_IF_ERROR(
      checkLaunch(kernel, args.size(), gridX, gridY, lanes, shared));
  std::string where = "launch of '" + kernel.impl_->name + "': ";
  std::vector<uint64_t> pointers(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || !args[i]->impl_)
      return Status(ErrorCode::InvalidArgument,
                    where + "argument " + std::to_string(i) +
                        " is an empty buffer");
    if (args[i]->impl_->ctx != context_)
      return Status(ErrorCode::InvalidArgument,
                    where + "argument " + std::to_string(i) +
                        " belongs to another device");
    pointers[i] = args[i]->impl_->ptr;
  }
  return issueLaunch(kernel, pointers, gridX, gridY, lanes, stream, shared);
}

Status CudaDevice::synchronize(CudaStream stream) {
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  POOT_CU_CHECK(*context_->api, "cuStreamSynchronize",
                context_->api->cuStreamSynchronize(context_->pick(stream)));
  return Status::ok();
}

Status CudaDevice::captureGraph(
    const std::function<Status(CudaStream)> &record, CudaGraph &out) {
  const CudaApi &api = *context_->api;
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  CUstream stream = context_->stream;
  // Thread-local mode: only this thread's unsafe calls (a synchronous
  // copy, say) break the capture, not another thread's.
  POOT_CU_CHECK(api, "cuStreamBeginCapture",
                api.cuStreamBeginCapture(stream,
                                         CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  auto impl = std::make_unique<CudaGraph::Impl>();
  impl->ctx = context_;
  Status recorded = record(stream);
  // The capture ends whatever the recording did, or the stream stays in
  // capture mode and refuses everything after.
  CUresult ended = api.cuStreamEndCapture(stream, &impl->graph);
  if (ended != CUDA_SUCCESS)
    impl->graph = nullptr;
  POOT_RETURN_IF_ERROR(recorded);
  if (ended != CUDA_SUCCESS)
    return cuError(api, "cuStreamEndCapture", ended);
  size_t nodes = 0;
  POOT_CU_CHECK(api, "cuGraphGetNodes",
                api.cuGraphGetNodes(impl->graph, nullptr, &nodes));
  impl->nodes = static_cast<int64_t>(nodes);
  CUresult r = api.cuGraphInstantiateWithFlags(&impl->exec, impl->graph, 0);
  if (r != CUDA_SUCCESS) {
    impl->exec = nullptr;
    return cuError(api, "cuGraphInstantiateWithFlags", r);
  }
  out.impl_ = std::move(impl);
  return Status::ok();
}

Status CudaDevice::flushL2(CudaStream stream) {
  if (!flushBuffer_.valid()) {
    int64_t bytes = std::max<int64_t>(256ll << 20, 2 * l2Bytes_);
    POOT_RETURN_IF_ERROR(createBuffer(bytes, flushBuffer_));
  }
  // A changing value, so no layer of the memory system can treat the
  // write as a no-op.
  uint8_t value = ++flushValue_;
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  POOT_CU_CHECK(*context_->api, "cuMemsetD8Async",
                context_->api->cuMemsetD8Async(flushBuffer_.devicePointer(),
                                               value, flushBuffer_.size(),
                                               context_->pick(stream)));
  return Status::ok();
}

Status CudaDevice::timeRuns(int iterations,
                            const std::function<Status(CudaStream)> &body,
                            bool flushL2, std::vector<double> &microseconds) {
  microseconds.clear();
  if (iterations < 1)
    return Status(ErrorCode::InvalidArgument,
                  "timing needs at least one iteration");
  const CudaApi &api = *context_->api;
  POOT_RETURN_IF_ERROR(context_->makeCurrent());
  EventPair events{&api};
  CUresult r = api.cuEventCreate(&events.start, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    events.start = nullptr;
    return cuError(api, "cuEventCreate", r);
  }
  r = api.cuEventCreate(&events.stop, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    events.stop = nullptr;
    return cuError(api, "cuEventCreate", r);
  }
  CUstream stream = context_->stream;
  for (int i = 0; i < iterations; ++i) {
    if (flushL2)
      POOT_RETURN_IF_ERROR(this->flushL2(stream));
    POOT_CU_CHECK(api, "cuEventRecord",
                  api.cuEventRecord(events.start, stream));
    POOT_RETURN_IF_ERROR(body(stream));
    POOT_CU_CHECK(api, "cuEventRecord", api.cuEventRecord(events.stop, stream));
    // One iteration at a time: the next flush must not overlap this run.
    POOT_CU_CHECK(api, "cuEventSynchronize",
                  api.cuEventSynchronize(events.stop));
    float ms = 0;
    POOT_CU_CHECK(api, "cuEventElapsedTime",
                  api.cuEventElapsedTime(&ms, events.start, events.stop));
    microseconds.push_back(static_cast<double>(ms) * 1000.0);
  }
  return Status::ok();
}
