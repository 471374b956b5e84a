//===- HipDevice.cpp - Compute on a ROCm (HIP) device ---------------------===//
//
// HIP is reached only through dlopen("libamdhip64.so") and the HipApi table
// of the entry points we call, looked up by the symbol names HipSymbols.def
// lists. The few HIP enumerators we pass or test are declared here with
// HIP's values rather than taken from its headers, which keeps the build
// free of ROCm.
//
// The device selects its ordinal (hipSetDevice) at the start of every call
// that reaches HIP, so it may be used from whichever thread holds it.
// Launches go on the null stream, and the copies HIP makes synchronous are
// ordered with them there.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/HipDevice.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <type_traits>

using namespace poot::rt;

namespace poot::rt::hip_detail {

using Error = HipApi::Error;

// The enumerators we pass or test, with hip_runtime_api.h's values.
enum : Error {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInsufficientDriver = 35,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorNotFound = 500,
  hipErrorLaunchOutOfResources = 701,
  hipErrorNotSupported = 801,
};
// hipDeviceAttribute_t: the CUDA-compatible block, in HIP's order.
enum : int {
  hipDeviceAttributeL2CacheSize = 19,
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeWarpSize = 87,
};

// HipApi spells its fields out for an installed header to stand alone; the
// same table built from HipSymbols.def must have the same layout: every
// entry a field of its type at its place, and no field that is not an entry.
struct ListedApi {
#define POOT_HIP_SYMBOL(name, returns, params, ...) returns(*name) params;
#include "Hip/HipSymbols.def"
};
#define POOT_HIP_SYMBOL(name, returns, params, ...)                            \
  static_assert(std::is_same_v<decltype(HipApi::name), returns(*) params> &&   \
                    offsetof(HipApi, name) == offsetof(ListedApi, name),       \
                "HipApi::" #name " is not HipSymbols.def's entry");
#include "Hip/HipSymbols.def"
static_assert(sizeof(HipApi) == sizeof(ListedApi),
              "HipApi has fields HipSymbols.def does not list");

/// One device: the API table and the ordinal every call selects.
struct Context {
  std::shared_ptr<const HipApi> api;
  int device = 0;

  Status select() const;
};

struct ModuleState {
  std::shared_ptr<Context> ctx;
  HipModuleHandle *module = nullptr;
  ~ModuleState() {
    if (module && ctx->select().isOk())
      ctx->api->hipModuleUnload(module);
  }
};

} // namespace poot::rt::hip_detail

using namespace poot::rt::hip_detail;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string errorText(const HipApi &api, Error error) {
  const char *name = api.hipGetErrorName ? api.hipGetErrorName(error) : nullptr;
  const char *text =
      api.hipGetErrorString ? api.hipGetErrorString(error) : nullptr;
  std::string out = name ? name : "hipError_t " + std::to_string(error);
  if (text && *text && (!name || std::strcmp(name, text) != 0))
    out += std::string(" (") + text + ")";
  return out;
}

/// "hipModuleLoadData: hipErrorNoBinaryForGpu (...)". As on CUDA: what the
/// runtime or device cannot do is Unsupported, an image or name it refuses
/// is Malformed or UnknownName, an argument it refuses InvalidArgument, and
/// a failure of the device itself (out of memory, a fault) is Io.
Status hipError(const HipApi &api, const char *call, Error error) {
  ErrorCode code = ErrorCode::Io;
  switch (error) {
  case hipErrorInsufficientDriver:
  case hipErrorNoDevice:
  case hipErrorInvalidDevice:
  case hipErrorNoBinaryForGpu:
  case hipErrorNotSupported:
  case hipErrorNotInitialized:
    code = ErrorCode::Unsupported;
    break;
  case hipErrorInvalidImage:
  case hipErrorInvalidKernelFile:
  case hipErrorSharedObjectInitFailed:
    code = ErrorCode::Malformed;
    break;
  case hipErrorNotFound:
  case hipErrorInvalidDeviceFunction:
    code = ErrorCode::UnknownName;
    break;
  case hipErrorInvalidValue:
  case hipErrorInvalidConfiguration:
  case hipErrorLaunchOutOfResources:
    code = ErrorCode::InvalidArgument;
    break;
  default:
    break;
  }
  return Status(code, std::string(call) + ": " + errorText(api, error));
}

#define POOT_HIP_CHECK(api, call, expr)                                        \
  do {                                                                         \
    Error pootError_ = (expr);                                                 \
    if (pootError_ != hipSuccess)                                              \
      return hipError(api, call, pootError_);                                  \
  } while (false)

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

//===----------------------------------------------------------------------===//
// The HIP runtime
//===----------------------------------------------------------------------===//

void *lookup(void *handle, std::initializer_list<const char *> symbols) {
  for (const char *symbol : symbols)
    if (void *fn = dlsym(handle, symbol))
      return fn;
  return nullptr;
}

/// Whether every entry point the device needs is there; names the first
/// missing one.
Status checkComplete(const HipApi &api) {
#define POOT_HIP_SYMBOL(name, returns, params, ...)                            \
  if (!api.name)                                                               \
    return Status(ErrorCode::Unsupported, "the HIP runtime has no " #name);
#define POOT_HIP_OPTIONAL_SYMBOL(name, returns, params, ...)
#include "Hip/HipSymbols.def"
  return Status::ok();
}

/// The architecture name in HIP's device-properties struct: the one
/// NUL-terminated string in it that starts with "gfx" (gcnArchName), cut at
/// its feature suffix. Found by content, not offset, because the struct's
/// layout differs between ROCm releases.
std::string archFromProperties(const HipApi &api, int device) {
  if (!api.hipGetDeviceProperties)
    return "";
  std::vector<char> props(16384, 0);
  if (api.hipGetDeviceProperties(props.data(), device) != hipSuccess)
    return "";
  for (size_t i = 0; i + 4 < props.size(); ++i) {
    if ((i == 0 || props[i - 1] == 0) && std::strncmp(&props[i], "gfx", 3) == 0) {
      std::string arch(&props[i], strnlen(&props[i], props.size() - i));
      return arch.substr(0, arch.find(':'));
    }
  }
  return "";
}

} // namespace

Status Context::select() const {
  POOT_HIP_CHECK(*api, "hipSetDevice", api->hipSetDevice(device));
  return Status::ok();
}

Status HipDevice::loadApi(std::shared_ptr<const HipApi> &out) {
  struct Loaded {
    std::shared_ptr<HipApi> api;
    Status status;
  };
  // Loaded once per process; the handle is never closed (the runtime keeps
  // threads and atexit handlers of its own).
  static const Loaded loaded = [] {
    Loaded result;
    void *handle = nullptr;
    // dlerror's text lives only until the next dl call: copied at once.
    std::string why;
    for (const char *name : {"libamdhip64.so", "libamdhip64.so.6",
                             "libamdhip64.so.5"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      const char *error = dlerror();
      if (why.empty() && error)
        why = error;
    }
    if (!handle) {
      result.status = Status(ErrorCode::Unsupported,
                             "no HIP runtime (libamdhip64.so): " +
                                 (why.empty() ? "dlopen failed" : why));
      return result;
    }
    auto api = std::make_shared<HipApi>();
#define POOT_HIP_SYMBOL(name, returns, params, ...)                            \
  api->name =                                                                  \
      reinterpret_cast<decltype(api->name)>(lookup(handle, {__VA_ARGS__}));
#include "Hip/HipSymbols.def"
    result.status = checkComplete(*api);
    if (!result.status.isOk())
      return result;
    if (Error e = api->hipInit(0); e != hipSuccess) {
      result.status = Status(ErrorCode::Unsupported,
                             "no usable HIP device (hipInit: " +
                                 errorText(*api, e) + ")");
      return result;
    }
    result.api = std::move(api);
    return result;
  }();
  if (!loaded.status.isOk())
    return loaded.status;
  out = loaded.api;
  return Status::ok();
}

Status HipDevice::deviceCount(int &count) {
  count = 0;
  std::shared_ptr<const HipApi> api;
  POOT_RETURN_IF_ERROR(loadApi(api));
  Error e = api->hipGetDeviceCount(&count);
  if (e == hipErrorNoDevice) {
    count = 0;
    return Status::ok();
  }
  POOT_HIP_CHECK(*api, "hipGetDeviceCount", e);
  return Status::ok();
}

Status HipDevice::create(std::unique_ptr<HipDevice> &out, int ordinal) {
  std::shared_ptr<const HipApi> api;
  POOT_RETURN_IF_ERROR(loadApi(api));
  return createWith(std::move(api), out, ordinal);
}

Status HipDevice::createWith(std::shared_ptr<const HipApi> api,
                             std::unique_ptr<HipDevice> &out, int ordinal) {
  if (!api)
    return Status(ErrorCode::InvalidArgument, "no HIP entry points");
  POOT_RETURN_IF_ERROR(checkComplete(*api));
  int count = 0;
  Error e = api->hipGetDeviceCount(&count);
  if (e != hipSuccess && e != hipErrorNoDevice)
    return hipError(*api, "hipGetDeviceCount", e);
  if (ordinal < 0 || ordinal >= count)
    return Status(ErrorCode::Unsupported,
                  count == 0 ? std::string("no HIP device")
                             : "no HIP device " + std::to_string(ordinal) +
                                   " (there are " + std::to_string(count) +
                                   ")");
  auto ctx = std::make_shared<Context>();
  ctx->api = api;
  ctx->device = ordinal;
  POOT_RETURN_IF_ERROR(ctx->select());

  std::unique_ptr<HipDevice> device(new HipDevice());
  DeviceFacts &f = device->facts_;
  auto attribute = [&](int which, int64_t &value) -> Status {
    int v = 0;
    POOT_HIP_CHECK(*api, "hipDeviceGetAttribute",
                   api->hipDeviceGetAttribute(&v, which, ordinal));
    value = v;
    return Status::ok();
  };
  std::string arch = archFromProperties(*api, ordinal);
  f.name = arch.empty() ? "amdgpu" : arch;
  f.target = "rocdl";
  POOT_RETURN_IF_ERROR(
      attribute(hipDeviceAttributeMultiprocessorCount, f.computeUnits));
  POOT_RETURN_IF_ERROR(attribute(hipDeviceAttributeMaxSharedMemoryPerBlock,
                                 f.workgroupMemoryBytes));
  POOT_RETURN_IF_ERROR(
      attribute(hipDeviceAttributeMaxThreadsPerBlock, f.maxWorkgroupSize));
  POOT_RETURN_IF_ERROR(attribute(hipDeviceAttributeWarpSize, f.subgroupSize));
  POOT_RETURN_IF_ERROR(attribute(hipDeviceAttributeMaxGridDimX, f.maxGridX));
  POOT_RETURN_IF_ERROR(attribute(hipDeviceAttributeMaxGridDimY, f.maxGridY));
  // A wavefront's width is fixed per architecture (and per compiled code
  // object on RDNA), so the channel schedule may be built around it.
  f.fixedSubgroup = true;
  f.vectorLoadBytes = 16; // global_load_dwordx4
  size_t total = 0;
  POOT_HIP_CHECK(*api, "hipDeviceTotalMem",
                 api->hipDeviceTotalMem(&total, ordinal));
  f.memoryBytes = static_cast<int64_t>(total);
  f.maxBufferBytes = f.memoryBytes;
  char name[256] = {0};
  POOT_HIP_CHECK(*api, "hipDeviceGetName",
                 api->hipDeviceGetName(name, sizeof(name) - 1, ordinal));
  char gib[32];
  std::snprintf(gib, sizeof(gib), "%.1f GiB",
                static_cast<double>(total) / (1ll << 30));
  device->description_ = std::string(name) + " (" + f.name + ", " +
                         std::to_string(f.computeUnits) + " CUs, " + gib + ")";
  device->context_ = std::move(ctx);
  out = std::move(device);
  return Status::ok();
}

HipDevice::~HipDevice() = default;

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

struct HipDeviceBuffer::Impl {
  std::shared_ptr<Context> ctx;
  void *ptr = nullptr;
  int64_t size = 0;

  ~Impl() {
    if (ptr && ctx->select().isOk())
      ctx->api->hipFree(ptr);
  }
};

HipDeviceBuffer::HipDeviceBuffer() = default;
HipDeviceBuffer::~HipDeviceBuffer() = default;
HipDeviceBuffer::HipDeviceBuffer(HipDeviceBuffer &&other) noexcept = default;
HipDeviceBuffer &
HipDeviceBuffer::operator=(HipDeviceBuffer &&other) noexcept = default;

int64_t HipDeviceBuffer::size() const { return impl_ ? impl_->size : 0; }
void *HipDeviceBuffer::devicePointer() const {
  return impl_ ? impl_->ptr : nullptr;
}

Status HipDeviceBuffer::upload(const void *src, int64_t bytes, int64_t offset) {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "upload to an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("upload", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.select());
  POOT_HIP_CHECK(*ctx.api, "hipMemcpyHtoD",
                 ctx.api->hipMemcpyHtoD(static_cast<char *>(impl_->ptr) + offset,
                                        const_cast<void *>(src), bytes));
  return Status::ok();
}

Status HipDeviceBuffer::download(void *dst, int64_t bytes,
                                 int64_t offset) const {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "download from an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("download", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.select());
  POOT_HIP_CHECK(*ctx.api, "hipMemcpyDtoH",
                 ctx.api->hipMemcpyDtoH(
                     dst, static_cast<char *>(impl_->ptr) + offset, bytes));
  return Status::ok();
}

Status HipDeviceBuffer::copyFrom(const HipDeviceBuffer &src, int64_t srcOffset,
                                 int64_t offset, int64_t bytes) {
  if (!impl_ || !src.impl_)
    return Status(ErrorCode::InvalidArgument, "a copy with an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("copy", srcOffset, bytes, src.impl_->size));
  POOT_RETURN_IF_ERROR(checkRange("copy", offset, bytes, impl_->size));
  if (bytes == 0)
    return Status::ok();
  const Context &ctx = *impl_->ctx;
  POOT_RETURN_IF_ERROR(ctx.select());
  POOT_HIP_CHECK(*ctx.api, "hipMemcpyDtoD",
                 ctx.api->hipMemcpyDtoD(
                     static_cast<char *>(impl_->ptr) + offset,
                     static_cast<char *>(src.impl_->ptr) + srcOffset, bytes));
  return Status::ok();
}

Status HipDevice::createBuffer(int64_t bytes, HipDeviceBuffer &out) {
  if (bytes <= 0)
    return Status(ErrorCode::InvalidArgument,
                  "a device buffer of " + std::to_string(bytes) + " bytes");
  const Context &ctx = *context_;
  POOT_RETURN_IF_ERROR(ctx.select());
  auto impl = std::make_unique<HipDeviceBuffer::Impl>();
  impl->ctx = context_;
  POOT_HIP_CHECK(*ctx.api, "hipMalloc",
                 ctx.api->hipMalloc(&impl->ptr, static_cast<size_t>(bytes)));
  impl->size = bytes;
  out.impl_ = std::move(impl);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

struct HipKernel::Impl {
  std::shared_ptr<ModuleState> module;
  HipFunctionHandle *function = nullptr;
  std::string name;
};

HipKernel::HipKernel() = default;
HipKernel::~HipKernel() = default;
HipKernel::HipKernel(HipKernel &&other) noexcept = default;
HipKernel &HipKernel::operator=(HipKernel &&other) noexcept = default;

const std::string &HipKernel::name() const {
  static const std::string none;
  return impl_ ? impl_->name : none;
}

HipModule::HipModule() = default;
HipModule::~HipModule() = default;
HipModule::HipModule(HipModule &&other) noexcept = default;
HipModule &HipModule::operator=(HipModule &&other) noexcept = default;

Status HipModule::kernel(const std::string &name, HipKernel &out) const {
  if (!state_)
    return Status(ErrorCode::InvalidArgument, "kernel of an empty module");
  const Context &ctx = *state_->ctx;
  POOT_RETURN_IF_ERROR(ctx.select());
  auto impl = std::make_unique<HipKernel::Impl>();
  impl->module = state_;
  impl->name = name;
  POOT_HIP_CHECK(*ctx.api, "hipModuleGetFunction",
                 ctx.api->hipModuleGetFunction(&impl->function, state_->module,
                                               name.c_str()));
  out.impl_ = std::move(impl);
  return Status::ok();
}

Status HipDevice::createModule(const std::string &codeObject, HipModule &out) {
  // An AMDGPU code object is an ELF file; anything else is refused here
  // rather than by the loader's less telling error.
  if (codeObject.size() < 20 || codeObject.compare(0, 4, "\x7f" "ELF") != 0)
    return Status(ErrorCode::Malformed,
                  "not an AMDGPU code object (no ELF header)");
  const Context &ctx = *context_;
  POOT_RETURN_IF_ERROR(ctx.select());
  auto state = std::make_shared<ModuleState>();
  state->ctx = context_;
  Error e = ctx.api->hipModuleLoadData(&state->module, codeObject.data());
  if (e != hipSuccess) {
    Status s = hipError(*ctx.api, "hipModuleLoadData", e);
    if (e == hipErrorNoBinaryForGpu || e == hipErrorInvalidImage)
      return Status(s.code(), s.message() + ": the code object is not for "
                                            "this device (" +
                                  facts_.name + ")");
    return s;
  }
  out.state_ = std::move(state);
  return Status::ok();
}

Status HipDevice::checkLaunch(const HipKernel &kernel, int64_t gridX,
                              int64_t gridY, int64_t lanes) const {
  if (!kernel.impl_)
    return Status(ErrorCode::InvalidArgument, "launch of an empty kernel");
  if (gridX < 1 || gridY < 1 || gridX > facts_.maxGridX ||
      gridY > facts_.maxGridY)
    return Status(ErrorCode::InvalidArgument,
                  kernel.name() + ": grid " + std::to_string(gridX) + " x " +
                      std::to_string(gridY) + " outside the device's " +
                      std::to_string(facts_.maxGridX) + " x " +
                      std::to_string(facts_.maxGridY));
  if (lanes < 1 || lanes > facts_.maxWorkgroupSize)
    return Status(ErrorCode::InvalidArgument,
                  kernel.name() + ": " + std::to_string(lanes) +
                      " threads a workgroup, the device allows " +
                      std::to_string(facts_.maxWorkgroupSize));
  return Status::ok();
}

Status HipDevice::issueLaunch(const HipKernel &kernel,
                              const std::vector<void *> &pointers,
                              int64_t gridX, int64_t gridY, int64_t lanes) {
  // kernelParams holds one pointer per parameter, to where its value is:
  // here, to each buffer's device pointer.
  std::vector<void *> values = pointers;
  std::vector<void *> params(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    params[i] = &values[i];
  const Context &ctx = *context_;
  POOT_RETURN_IF_ERROR(ctx.select());
  POOT_HIP_CHECK(*ctx.api, "hipModuleLaunchKernel",
                 ctx.api->hipModuleLaunchKernel(
                     kernel.impl_->function, static_cast<unsigned>(gridX),
                     static_cast<unsigned>(gridY), 1,
                     static_cast<unsigned>(lanes), 1, 1, 0, nullptr,
                     params.empty() ? nullptr : params.data(), nullptr));
  return Status::ok();
}

Status HipDevice::launch(const HipKernel &kernel,
                         const std::vector<HipDeviceBuffer *> &args,
                         int64_t gridX, int64_t gridY, int64_t lanes) {
  POOT_RETURN_IF_ERROR(checkLaunch(kernel, gridX, gridY, lanes));
  std::vector<void *> pointers(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || !args[i]->valid())
      return Status(ErrorCode::InvalidArgument,
                    kernel.name() + ": argument " + std::to_string(i) +
                        " is not a device buffer");
    pointers[i] = args[i]->devicePointer();
  }
  return issueLaunch(kernel, pointers, gridX, gridY, lanes);
}

Status HipDevice::synchronize() {
  const Context &ctx = *context_;
  POOT_RETURN_IF_ERROR(ctx.select());
  POOT_HIP_CHECK(*ctx.api, "hipStreamSynchronize",
                 ctx.api->hipStreamSynchronize(nullptr));
  return Status::ok();
}
