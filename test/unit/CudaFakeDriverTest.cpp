//===- CudaFakeDriverTest.cpp - The CUDA device over a fake driver --------===//
//
// The CUDA device and PlanRunner run here through a fake CudaApi table, so
// their whole run path is checked without a driver or a GPU. The fake's
// device memory is host memory (cuMemAlloc hands out a host pointer as the
// CUdeviceptr, and the copies and memsets act on it); a module load records
// the PTX and its `.entry` names, which cuModuleGetFunction hands out;
// cuLaunchKernel records each launch (kernel, grid, block, stream, the
// device pointers its parameters point at) and, for the few kernel names
// below, does what the kernel would, so results can be checked; stream
// capture records launches into a graph instead of running them, and a
// graph launch runs them again in order.
//
// Checked: the device's facts and description from its attributes, buffers
// round-tripping, modules and kernels (the JIT's error log, a missing
// name, the parameter count), launches packed in order with the geometry
// asked for, refused launches that never reach the driver, graphs, timing,
// every driver error wrapped as its typed Status; and the runner: operands
// uploaded in storage dtype, launches in order with the planned grid and
// lanes and the buffers in role order, results read back, an error word
// reported as its typed error, a missing kernel or PTX refused, and the
// resident run (one capture, replayed every run, constants uploaded once).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/PlanRunner.h"

#include "HandGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <tuple>

using namespace poot::rt;
using namespace poot::rt::handgraph;

namespace {

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

// cuda.h's values for what the fake returns and reads.
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
};
enum : int {
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/// What the fake driver holds, saw, and answers with.
struct FakeCuda {
  int devices = 1;
  /// Device memory: base address -> bytes.
  std::map<CUdeviceptr, size_t> allocations;
  int freed = 0;
  int copiesToDevice = 0;
  int deviceCopies = 0;
  std::string lastImage;
  int modulesLoaded = 0, modulesUnloaded = 0;
  /// The loaded module's kernels: name -> parameter count.
  std::map<std::string, size_t> entries;
  /// Function handles are 1 + an index into this.
  std::vector<std::string> functions;
  struct Launch {
    std::string function;
    unsigned grid[3], block[3], shared;
    CUstream stream;
    std::vector<CUdeviceptr> args;
    bool extra;
    bool replayed = false;
  };
  /// cuFuncSetAttribute calls: (function, attribute, value).
  std::vector<std::tuple<std::string, int, int>> attributesSet;
  /// Every launch that ran, in order (directly or in a graph's replay).
  std::vector<Launch> launches;
  /// Stream capture: the stream being captured and what it recorded.
  CUstream capturing = nullptr;
  int captureMode = -1;
  std::vector<Launch> recording;
  std::vector<std::vector<Launch>> graphs; ///< handle = 1 + index
  int captures = 0, instantiated = 0, graphLaunches = 0;
  int graphsDestroyed = 0, execsDestroyed = 0;
  CUstream stream = nullptr;
  int streamsCreated = 0, streamsDestroyed = 0;
  int syncs = 0;
  int retained = 0, released = 0;
  int eventsCreated = 0, eventsDestroyed = 0;
  /// What the `check` kernel writes to its error word (0: nothing).
  int32_t faultCode = 0;
  /// Errors to return (0: success).
  CUresult loadError = 0, functionError = 0, allocError = 0, launchError = 0,
           syncError = 0;
  /// Called with each launch that runs, after the kernel's own work.
  std::function<void(const Launch &)> onLaunch;
};

FakeCuda *fake = nullptr;

/// The allocation holding [p, p + bytes), or null.
unsigned char *hostBytes(CUdeviceptr p, size_t bytes) {
  auto it = fake->allocations.upper_bound(p);
  if (it == fake->allocations.begin())
    return nullptr;
  --it;
  if (p + bytes > it->first + it->second)
    return nullptr;
  return reinterpret_cast<unsigned char *>(static_cast<uintptr_t>(p));
}
size_t sizeOf(CUdeviceptr p) {
  auto it = fake->allocations.find(p);
  return it == fake->allocations.end() ? 0 : it->second;
}
float *floats(CUdeviceptr p) {
  return reinterpret_cast<float *>(static_cast<uintptr_t>(p));
}

/// The kernels the fake knows how to run, by name (any other runs as a
/// no-op): add_one(in, out): out = in + 1; add(a, b, out): out = a + b;
/// scale2(in, out): out = 2 in; twice(x): x = 2 x; check(..., err): the
/// fault code into err, when one is set. All over f32, as many elements as
/// the smallest buffer holds.
void runKernel(const FakeCuda::Launch &l) {
  const std::vector<CUdeviceptr> &a = l.args;
  auto count = [&](std::initializer_list<CUdeviceptr> buffers) {
    size_t n = SIZE_MAX;
    for (CUdeviceptr b : buffers)
      n = std::min(n, sizeOf(b) / 4);
    return n;
  };
  if (l.function == "add_one" && a.size() == 2) {
    for (size_t i = 0, n = count({a[0], a[1]}); i < n; ++i)
      floats(a[1])[i] = floats(a[0])[i] + 1;
  } else if (l.function == "add" && a.size() == 3) {
    for (size_t i = 0, n = count({a[0], a[1], a[2]}); i < n; ++i)
      floats(a[2])[i] = floats(a[0])[i] + floats(a[1])[i];
  } else if (l.function == "scale2" && a.size() == 2) {
    for (size_t i = 0, n = count({a[0], a[1]}); i < n; ++i)
      floats(a[1])[i] = 2 * floats(a[0])[i];
  } else if (l.function == "twice" && a.size() == 1) {
    for (size_t i = 0, n = count({a[0]}); i < n; ++i)
      floats(a[0])[i] *= 2;
  } else if (l.function == "check" && !a.empty() && fake->faultCode) {
    std::memcpy(hostBytes(a.back(), 4), &fake->faultCode, 4);
  }
  if (fake->onLaunch)
    fake->onLaunch(l);
}

void run(FakeCuda::Launch l, bool replayed) {
  l.replayed = replayed;
  runKernel(l);
  fake->launches.push_back(std::move(l));
}

CUresult fakeInit(unsigned) { return CUDA_SUCCESS; }
CUresult fakeDriverVersion(int *v) {
  *v = 12040;
  return CUDA_SUCCESS;
}
CUresult fakeCount(int *n) {
  *n = fake->devices;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult fakeName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake GPU", length);
  return CUDA_SUCCESS;
}
CUresult fakeAttribute(int *v, int attribute, CUdevice) {
  static const std::map<int, int> values = {
      {1, 1024},      {2, 1024},  {3, 1024},  {4, 64},     {5, 2147483647},
      {6, 65535},     {7, 65535}, {8, 49152}, {10, 32},    {16, 132},
      {38, 60 << 20}, {75, 9},    {76, 0},    {97, 232448}};
  auto it = values.find(attribute);
  if (it == values.end())
    return CUDA_ERROR_INVALID_VALUE;
  *v = it->second;
  return CUDA_SUCCESS;
}
CUresult fakeTotalMem(size_t *bytes, CUdevice) {
  *bytes = size_t(140) << 30;
  return CUDA_SUCCESS;
}
CUresult fakeRetain(CUcontext *c, CUdevice) {
  ++fake->retained;
  *c = reinterpret_cast<CUcontext>(0xc0);
  return CUDA_SUCCESS;
}
CUresult fakeRelease(CUdevice) {
  ++fake->released;
  return CUDA_SUCCESS;
}
CUresult fakeSetCurrent(CUcontext c) {
  return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fakeCtxSync() { return CUDA_SUCCESS; }

/// Loads "PTX": text that starts with .version, whose `.entry name(` lines
/// name the kernels and whose `.param` lines count their parameters.
/// Anything else is refused with a line in the JIT's error log.
CUresult fakeLoad(CUmodule *module, const void *image, unsigned numOptions,
                  int *options, void **values) {
  std::string text = static_cast<const char *>(image);
  fake->lastImage = text;
  if (fake->loadError)
    return fake->loadError;
  if (text.compare(0, 8, ".version") != 0) {
    char *log = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < numOptions; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        log = static_cast<char *>(values[i]);
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        size = reinterpret_cast<uintptr_t>(values[i]);
    }
    if (log && size)
      std::snprintf(log, size,
                    "ptxas application ptx input, line 1; fatal "
                    "   : Parsing error near '%.8s'\n",
                    text.c_str());
    return CUDA_ERROR_INVALID_PTX;
  }
  fake->entries.clear();
  for (size_t at = text.find(".entry "); at != std::string::npos;
       at = text.find(".entry ", at + 1)) {
    size_t open = text.find('(', at);
    size_t close = text.find(')', open);
    std::string name = text.substr(at + 7, open - at - 7);
    size_t params = 0;
    for (size_t p = text.find(".param", open); p < close;
         p = text.find(".param", p + 1))
      ++params;
    fake->entries[name] = params;
  }
  ++fake->modulesLoaded;
  *module = reinterpret_cast<CUmodule>(0x1000);
  return CUDA_SUCCESS;
}
CUresult fakeUnload(CUmodule) {
  ++fake->modulesUnloaded;
  return CUDA_SUCCESS;
}
CUresult fakeFunction(CUfunction *fn, CUmodule, const char *name) {
  if (fake->functionError)
    return fake->functionError;
  if (!fake->entries.count(name))
    return CUDA_ERROR_NOT_FOUND;
  fake->functions.push_back(name);
  *fn = reinterpret_cast<CUfunction>(fake->functions.size());
  return CUDA_SUCCESS;
}
const std::string &nameOf(CUfunction fn) {
  return fake->functions.at(reinterpret_cast<size_t>(fn) - 1);
}
CUresult fakeFuncAttribute(int *v, int attribute, CUfunction fn) {
  switch (attribute) {
  case 0: // max threads per block: fewer for a register-heavy kernel
    *v = nameOf(fn) == "heavy" ? 256 : 1024;
    return CUDA_SUCCESS;
  case 1: // static shared bytes
    *v = 2048;
    return CUDA_SUCCESS;
  case 4: // registers
    *v = 40;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult fakeFuncSetAttribute(CUfunction fn, int attribute, int value) {
  fake->attributesSet.emplace_back(nameOf(fn), attribute, value);
  return CUDA_SUCCESS;
}
CUresult fakeParamInfo(CUfunction fn, size_t index, size_t *offset,
                       size_t *size) {
  if (index >= fake->entries.at(nameOf(fn)))
    return CUDA_ERROR_INVALID_VALUE;
  *offset = 8 * index;
  *size = 8;
  return CUDA_SUCCESS;
}

CUresult fakeAlloc(CUdeviceptr *p, size_t bytes) {
  if (fake->allocError)
    return fake->allocError;
  void *host = std::calloc(bytes, 1);
  *p = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(host));
  fake->allocations[*p] = bytes;
  return CUDA_SUCCESS;
}
CUresult fakeFree(CUdeviceptr p) {
  if (!fake->allocations.erase(p))
    return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(p)));
  ++fake->freed;
  return CUDA_SUCCESS;
}
/// Copies and memsets: the device never issues them while it captures.
CUresult fakeHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                       CUstream stream) {
  if (stream && stream == fake->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  unsigned char *to = hostBytes(dst, bytes);
  if (!to)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(to, src, bytes);
  ++fake->copiesToDevice;
  return CUDA_SUCCESS;
}
CUresult fakeHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  return fakeHtoDAsync(dst, src, bytes, nullptr);
}
CUresult fakeDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                       CUstream stream) {
  if (stream && stream == fake->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  const unsigned char *from = hostBytes(src, bytes);
  if (!from)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, from, bytes);
  return CUDA_SUCCESS;
}
CUresult fakeDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  return fakeDtoHAsync(dst, src, bytes, nullptr);
}
CUresult fakeDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream stream) {
  if (stream && stream == fake->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  unsigned char *to = hostBytes(dst, bytes);
  const unsigned char *from = hostBytes(src, bytes);
  if (!to || !from)
    return CUDA_ERROR_INVALID_VALUE;
  std::memmove(to, from, bytes);
  ++fake->deviceCopies;
  return CUDA_SUCCESS;
}
CUresult fakeMemsetAsync(CUdeviceptr dst, unsigned char value, size_t bytes,
                         CUstream stream) {
  if (stream && stream == fake->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  unsigned char *to = hostBytes(dst, bytes);
  if (!to)
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(to, value, bytes);
  return CUDA_SUCCESS;
}
CUresult fakeMemset(CUdeviceptr dst, unsigned char value, size_t bytes) {
  return fakeMemsetAsync(dst, value, bytes, nullptr);
}

CUresult fakeLaunch(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                    unsigned bx, unsigned by, unsigned bz, unsigned shared,
                    CUstream stream, void **params, void **extra) {
  if (fake->launchError)
    return fake->launchError;
  FakeCuda::Launch l;
  l.function = nameOf(fn);
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.shared = shared;
  l.stream = stream;
  l.extra = extra != nullptr;
  // The driver reads each parameter's value through its pointer, at the
  // call (also while capturing).
  for (size_t i = 0; params && i < fake->entries.at(l.function); ++i)
    l.args.push_back(*static_cast<CUdeviceptr *>(params[i]));
  if (stream && stream == fake->capturing)
    fake->recording.push_back(std::move(l));
  else
    run(std::move(l), /*replayed=*/false);
  return CUDA_SUCCESS;
}

CUresult fakeEventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(0xe0 + ++fake->eventsCreated);
  return CUDA_SUCCESS;
}
CUresult fakeEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult fakeEventSync(CUevent) { return CUDA_SUCCESS; }
CUresult fakeElapsed(float *ms, CUevent, CUevent) {
  *ms = 0.5f;
  return CUDA_SUCCESS;
}
CUresult fakeEventDestroy(CUevent) {
  ++fake->eventsDestroyed;
  return CUDA_SUCCESS;
}
CUresult fakeStreamCreate(CUstream *s, unsigned flags) {
  if (flags != 1) // CU_STREAM_NON_BLOCKING
    return CUDA_ERROR_INVALID_VALUE;
  *s = reinterpret_cast<CUstream>(0x5000 + ++fake->streamsCreated);
  fake->stream = *s;
  return CUDA_SUCCESS;
}
CUresult fakeStreamSync(CUstream stream) {
  // Synchronising a stream that is being captured breaks the capture.
  if (stream && stream == fake->capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  ++fake->syncs;
  return fake->syncError;
}
CUresult fakeStreamDestroy(CUstream) {
  ++fake->streamsDestroyed;
  return CUDA_SUCCESS;
}
CUresult fakeBeginCapture(CUstream stream, int mode) {
  if (fake->capturing)
    return CUDA_ERROR_INVALID_VALUE;
  fake->capturing = stream;
  fake->captureMode = mode;
  fake->recording.clear();
  ++fake->captures;
  return CUDA_SUCCESS;
}
CUresult fakeEndCapture(CUstream stream, CUgraph *graph) {
  if (stream != fake->capturing)
    return CUDA_ERROR_INVALID_VALUE;
  fake->capturing = nullptr;
  fake->graphs.push_back(std::move(fake->recording));
  fake->recording.clear();
  *graph = reinterpret_cast<CUgraph>(fake->graphs.size());
  return CUDA_SUCCESS;
}
std::vector<FakeCuda::Launch> &graphOf(const void *handle) {
  return fake->graphs.at(reinterpret_cast<size_t>(handle) - 1);
}
CUresult fakeInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  ++fake->instantiated;
  *exec = reinterpret_cast<CUgraphExec>(graph);
  return CUDA_SUCCESS;
}
CUresult fakeGraphNodes(CUgraph graph, CUgraphNode *nodes, size_t *count) {
  if (nodes)
    return CUDA_ERROR_INVALID_VALUE;
  *count = graphOf(graph).size();
  return CUDA_SUCCESS;
}
CUresult fakeGraphLaunch(CUgraphExec exec, CUstream) {
  ++fake->graphLaunches;
  for (const FakeCuda::Launch &l : graphOf(exec))
    run(l, /*replayed=*/true);
  return CUDA_SUCCESS;
}
CUresult fakeExecDestroy(CUgraphExec) {
  ++fake->execsDestroyed;
  return CUDA_SUCCESS;
}
CUresult fakeGraphDestroy(CUgraph) {
  ++fake->graphsDestroyed;
  return CUDA_SUCCESS;
}
CUresult fakeErrorName(CUresult e, const char **name) {
  static const std::map<CUresult, const char *> names = {
      {1, "CUDA_ERROR_INVALID_VALUE"},
      {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {218, "CUDA_ERROR_INVALID_PTX"},
      {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
      {500, "CUDA_ERROR_NOT_FOUND"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
      {719, "CUDA_ERROR_LAUNCH_FAILED"},
      {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"}};
  auto it = names.find(e);
  if (it == names.end())
    return CUDA_ERROR_INVALID_VALUE;
  *name = it->second;
  return CUDA_SUCCESS;
}

std::shared_ptr<CudaApi> fakeApi() {
  auto api = std::make_shared<CudaApi>();
  api->cuInit = fakeInit;
  api->cuDriverGetVersion = fakeDriverVersion;
  api->cuDeviceGetCount = fakeCount;
  api->cuDeviceGet = fakeDeviceGet;
  api->cuDeviceGetName = fakeName;
  api->cuDeviceGetAttribute = fakeAttribute;
  api->cuDeviceTotalMem = fakeTotalMem;
  api->cuDevicePrimaryCtxRetain = fakeRetain;
  api->cuDevicePrimaryCtxRelease = fakeRelease;
  api->cuCtxSetCurrent = fakeSetCurrent;
  api->cuCtxSynchronize = fakeCtxSync;
  api->cuModuleLoadDataEx = fakeLoad;
  api->cuModuleGetFunction = fakeFunction;
  api->cuModuleUnload = fakeUnload;
  api->cuFuncGetAttribute = fakeFuncAttribute;
  api->cuFuncSetAttribute = fakeFuncSetAttribute;
  api->cuMemAlloc = fakeAlloc;
  api->cuMemFree = fakeFree;
  api->cuMemcpyHtoD = fakeHtoD;
  api->cuMemcpyDtoH = fakeDtoH;
  api->cuMemcpyHtoDAsync = fakeHtoDAsync;
  api->cuMemcpyDtoHAsync = fakeDtoHAsync;
  api->cuMemcpyDtoDAsync = fakeDtoDAsync;
  api->cuMemsetD8 = fakeMemset;
  api->cuMemsetD8Async = fakeMemsetAsync;
  api->cuLaunchKernel = fakeLaunch;
  api->cuEventCreate = fakeEventCreate;
  api->cuEventRecord = fakeEventRecord;
  api->cuEventSynchronize = fakeEventSync;
  api->cuEventElapsedTime = fakeElapsed;
  api->cuEventDestroy = fakeEventDestroy;
  api->cuStreamCreate = fakeStreamCreate;
  api->cuStreamSynchronize = fakeStreamSync;
  api->cuStreamDestroy = fakeStreamDestroy;
  api->cuStreamBeginCapture = fakeBeginCapture;
  api->cuStreamEndCapture = fakeEndCapture;
  api->cuGraphInstantiateWithFlags = fakeInstantiate;
  api->cuGraphGetNodes = fakeGraphNodes;
  api->cuGraphLaunch = fakeGraphLaunch;
  api->cuGraphExecDestroy = fakeExecDestroy;
  api->cuGraphDestroy = fakeGraphDestroy;
  api->cuGetErrorName = fakeErrorName;
  api->cuFuncGetParamInfo = fakeParamInfo;
  api->version = 12040;
  return api;
}

/// PTX text as the fake reads it: one `.entry` per kernel with `params`
/// parameters, and the trailing NUL MLIR's output ends with.
std::string ptxOf(const std::vector<std::pair<std::string, int>> &kernels) {
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n";
  for (const auto &[name, params] : kernels) {
    text += "\n.visible .entry " + name + "(\n";
    for (int p = 0; p < params; ++p)
      text += std::string("\t.param .u64 p") + std::to_string(p) +
              (p + 1 < params ? ",\n" : "\n");
    text += ")\n{\n\tret;\n}\n";
  }
  return text + std::string(1, '\0');
}

std::string kernelsPtx() {
  return ptxOf({{"add_one", 2},
                {"add", 3},
                {"scale2", 2},
                {"twice", 1},
                {"heavy", 1},
                {"check", 1}});
}

/// The bytes of the allocation a launch argument points at.
std::vector<unsigned char> bytesAt(CUdeviceptr p) {
  const unsigned char *host = hostBytes(p, sizeOf(p));
  return std::vector<unsigned char>(host, host + sizeOf(p));
}

class FakeCudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    fake = &state;
    Status s = CudaDevice::createWith(fakeApi(), device);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
  void TearDown() override {
    device.reset();
    // Everything the device made is gone with it.
    EXPECT_TRUE(state.allocations.empty());
    EXPECT_EQ(state.modulesUnloaded, state.modulesLoaded);
    EXPECT_EQ(state.released, state.retained);
    EXPECT_EQ(state.streamsDestroyed, state.streamsCreated);
    EXPECT_EQ(state.eventsDestroyed, state.eventsCreated);
    EXPECT_EQ(state.execsDestroyed, state.instantiated);
    EXPECT_EQ(state.graphsDestroyed, static_cast<int>(state.graphs.size()));
    fake = nullptr;
  }
  /// Three 16-byte buffers and the fake module's "add" kernel.
  void addKernel(CudaDeviceBuffer &a, CudaDeviceBuffer &b, CudaDeviceBuffer &c,
                 CudaModule &module, CudaKernel &add) {
    ASSERT_TRUE(device->createBuffer(16, a).isOk());
    ASSERT_TRUE(device->createBuffer(16, b).isOk());
    ASSERT_TRUE(device->createBuffer(16, c).isOk());
    ASSERT_TRUE(device->createModule(kernelsPtx(), module).isOk());
    ASSERT_TRUE(module.kernel("add", add).isOk());
  }
  FakeCuda state;
  std::unique_ptr<CudaDevice> device;
};

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

TEST(CudaFakeDriver, RefusesAnIncompleteTable) {
  FakeCuda state;
  fake = &state;
  std::unique_ptr<CudaDevice> device;
  Status s = CudaDevice::createWith(nullptr, device);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  auto api = fakeApi();
  api->cuLaunchKernel = nullptr;
  s = CudaDevice::createWith(api, device);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "the CUDA entry points lack cuLaunchKernel");
  EXPECT_FALSE(device);
  // The optional entry point may be missing: kernels then cannot say
  // their parameter count, and launches are not checked against it.
  api = fakeApi();
  api->cuFuncGetParamInfo = nullptr;
  s = CudaDevice::createWith(api, device);
  ASSERT_TRUE(s.isOk()) << s.toString();
  CudaModule module;
  ASSERT_TRUE(device->createModule(kernelsPtx(), module).isOk());
  CudaKernel kernel;
  ASSERT_TRUE(module.kernel("add_one", kernel).isOk());
  EXPECT_EQ(kernel.numParams(), -1);
  kernel = CudaKernel();
  module = CudaModule();
  device.reset();
  EXPECT_EQ(state.modulesUnloaded, 1);
  EXPECT_EQ(state.released, 1);
  fake = nullptr;
}

TEST(CudaFakeDriver, NoDeviceOrAnotherOrdinal) {
  FakeCuda state;
  state.devices = 0;
  fake = &state;
  std::unique_ptr<CudaDevice> device;
  Status s = CudaDevice::createWith(fakeApi(), device);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "no CUDA device");
  state.devices = 2;
  s = CudaDevice::createWith(fakeApi(), device, 2);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CUDA device ordinal 2 is out of range: the driver "
                         "sees 2 device(s)");
  EXPECT_FALSE(device);
  EXPECT_EQ(state.retained, 0);
  fake = nullptr;
}

TEST_F(FakeCudaTest, FactsComeFromTheAttributes) {
  const poot::DeviceFacts &f = device->facts();
  EXPECT_EQ(f.name, "sm_90");
  EXPECT_EQ(f.target, "nvvm");
  EXPECT_EQ(f.computeUnits, 132);
  EXPECT_EQ(f.workgroupMemoryBytes, 232448);
  EXPECT_EQ(f.maxWorkgroupSize, 1024);
  EXPECT_EQ(f.subgroupSize, 32);
  EXPECT_TRUE(f.fixedSubgroup);
  EXPECT_EQ(f.maxGridX, 2147483647);
  EXPECT_EQ(f.maxGridY, 65535);
  EXPECT_EQ(f.memoryBytes, int64_t(140) << 30);
  EXPECT_TRUE(f.matrixTile);
  EXPECT_TRUE(f.deviceFence);
  EXPECT_EQ(device->computeCapability(), 90);
  EXPECT_EQ(device->l2CacheBytes(), 60 << 20);
  // The version comes from the table.
  EXPECT_EQ(device->description(),
            "Fake GPU (sm_90, 132 SMs, 140.0 GiB, 60 MiB L2), driver 12.4");
  EXPECT_EQ(device->stream(), state.stream);
  EXPECT_EQ(state.retained, 1);
}

TEST_F(FakeCudaTest, BuffersAreHostMemory) {
  CudaDeviceBuffer buf;
  ASSERT_TRUE(device->createBuffer(16, buf).isOk());
  ASSERT_EQ(sizeOf(buf.devicePointer()), 16u);
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_TRUE(buf.upload(in, 16).isOk());
  EXPECT_EQ(floats(buf.devicePointer())[2], 3.0f);
  ASSERT_TRUE(buf.download(out, 8, 8).isOk());
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 4.0f);
  // Every copy waits for itself.
  EXPECT_EQ(state.syncs, 2);
  ASSERT_TRUE(buf.fill(0xff).isOk());
  EXPECT_EQ(bytesAt(buf.devicePointer()), std::vector<unsigned char>(16, 0xff));
  EXPECT_EQ(buf.upload(in, 16, 4).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(buf.download(out, 20).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device->createBuffer(0, buf).code(), ErrorCode::InvalidArgument);

  state.allocError = CUDA_ERROR_OUT_OF_MEMORY;
  CudaDeviceBuffer big;
  Status s = device->createBuffer(1 << 20, big);
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(),
            "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (1048576 bytes)");
  EXPECT_FALSE(big.valid());
  state.allocError = 0;

  // Freed when the last owner goes.
  CudaDeviceBuffer moved = std::move(buf);
  EXPECT_EQ(state.freed, 0);
  moved = CudaDeviceBuffer();
  EXPECT_EQ(state.freed, 1);
}

TEST_F(FakeCudaTest, CopiesStayOnTheDevice) {
  // GpuDevice::copy goes device to device (cuMemcpyDtoDAsync), never
  // through the host, and refuses a bad list before it copies anything.
  std::unique_ptr<GpuBuffer> a, b;
  ASSERT_TRUE(device->allocate(16, a).isOk());
  ASSERT_TRUE(device->allocate(16, b).isOk());
  float in[4] = {1, 2, 3, 4}, zero[4] = {}, out[4] = {};
  ASSERT_TRUE(a->upload(in, 16).isOk());
  ASSERT_TRUE(b->upload(zero, 16).isOk());
  int toDevice = state.copiesToDevice;
  ASSERT_TRUE(
      device->copy({{a.get(), 8, b.get(), 0, 8}, {a.get(), 0, a.get(), 8, 4}})
          .isOk());
  EXPECT_EQ(state.deviceCopies, 2);
  EXPECT_EQ(state.copiesToDevice, toDevice);
  ASSERT_TRUE(b->download(out, 16).isOk());
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 4.0f);
  EXPECT_EQ(out[2], 0.0f);
  ASSERT_TRUE(a->download(out, 16).isOk());
  EXPECT_EQ(out[2], 1.0f);
  // Out of range, overlapping, or another device's buffer: nothing copied.
  Status s = device->copy({{a.get(), 0, b.get(), 0, 4}, {a.get(), 12, b.get(), 0, 8}});
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message().rfind("copy 1: 8 bytes from 12 to 0 leave", 0), 0u)
      << s.message();
  s = device->copy({{a.get(), 0, a.get(), 4, 8}});
  EXPECT_NE(s.message().find("overlap"), std::string::npos);
  EXPECT_EQ(state.deviceCopies, 2);
}

TEST_F(FakeCudaTest, ModulesLoadFromPtxText) {
  CudaModule module;
  // MLIR's trailing NUL is accepted, and the driver sees the text alone.
  ASSERT_TRUE(device->createModule(kernelsPtx(), module).isOk());
  EXPECT_EQ(state.lastImage, kernelsPtx().substr(0, kernelsPtx().size() - 1));
  CudaKernel kernel;
  ASSERT_TRUE(module.kernel("add", kernel).isOk());
  EXPECT_EQ(kernel.name(), "add");
  EXPECT_EQ(kernel.numParams(), 3);
  EXPECT_EQ(kernel.maxThreadsPerBlock(), 1024);
  EXPECT_EQ(kernel.staticSharedBytes(), 2048);
  EXPECT_EQ(kernel.registers(), 40);

  // A name the module lacks.
  CudaKernel missing;
  Status s = module.kernel("attention_9", missing);
  EXPECT_EQ(s.code(), ErrorCode::UnknownName);
  EXPECT_EQ(s.message(),
            "cuModuleGetFunction: the module has no kernel 'attention_9'");
  EXPECT_FALSE(missing.valid());

  // Text the JIT refuses: Malformed, with the line of its error log.
  CudaModule bad;
  s = device->createModule("garbage in", bad);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_EQ(s.message(), "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX: ptxas "
                         "application ptx input, line 1; fatal    : Parsing "
                         "error near 'garbage '");
  EXPECT_FALSE(bad.valid());
  // A PTX version newer than the driver's JIT.
  state.loadError = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  s = device->createModule(kernelsPtx(), bad);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(),
            "cuModuleLoadDataEx: CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  state.loadError = 0;
  // Refused before the driver sees them.
  std::string seen = state.lastImage;
  EXPECT_EQ(device->createModule(std::string(3, '\0'), bad).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(
      device->createModule(std::string(".version 8.0\0x", 14), bad).code(),
      ErrorCode::Malformed);
  EXPECT_EQ(state.lastImage, seen);
  // The kernel keeps its module loaded after the module object goes.
  module = CudaModule();
  EXPECT_EQ(state.modulesUnloaded, 0);
  kernel = CudaKernel();
  EXPECT_EQ(state.modulesUnloaded, 1);
}

TEST_F(FakeCudaTest, LaunchPacksPointersAndGeometry) {
  CudaDeviceBuffer a, b, c;
  CudaModule module;
  CudaKernel add;
  addKernel(a, b, c, module, add);
  if (HasFatalFailure())
    return;
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  ASSERT_TRUE(b.upload(x, 16).isOk());
  ASSERT_TRUE(c.upload(y, 16).isOk());
  Status s = device->launch(add, {&b, &c, &a}, 6, 4, 256);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.launches.size(), 1u);
  const FakeCuda::Launch &r = state.launches[0];
  EXPECT_EQ(r.function, "add");
  EXPECT_EQ(r.grid[0], 6u);
  EXPECT_EQ(r.grid[1], 4u);
  EXPECT_EQ(r.grid[2], 1u);
  EXPECT_EQ(r.block[0], 256u);
  EXPECT_EQ(r.block[1], 1u);
  EXPECT_EQ(r.block[2], 1u);
  EXPECT_EQ(r.shared, 0u);
  EXPECT_FALSE(r.extra);
  // Nullptr is the device's own stream, never the legacy one.
  EXPECT_EQ(r.stream, device->stream());
  // One parameter per buffer, in the launch's order.
  EXPECT_EQ(r.args,
            (std::vector<CUdeviceptr>{b.devicePointer(), c.devicePointer(),
                                      a.devicePointer()}));
  float sum[4];
  ASSERT_TRUE(a.download(sum, 16).isOk());
  EXPECT_EQ(sum[3], 44.0f);

  // Refused before the driver sees them: the parameter count, a block
  // past the kernel's (or the device's) limit, a grid past the device's,
  // an empty buffer.
  s = device->launch(add, {&a, &b}, 1, 1, 32);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "launch of 'add': the kernel takes 3 parameter(s), "
                         "the launch passes 2 buffer(s)");
  CudaKernel heavy;
  ASSERT_TRUE(module.kernel("heavy", heavy).isOk());
  s = device->launch(heavy, {&a}, 1, 1, 512);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "launch of 'heavy': 512 threads per block, the "
                         "kernel allows 1 to 256");
  EXPECT_EQ(device->launch(add, {&a, &b, &c}, 1, 70000, 32).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(add, {&a, &b, &c}, 0, 1, 32).code(),
            ErrorCode::InvalidArgument);
  CudaDeviceBuffer empty;
  EXPECT_EQ(device->launch(add, {&a, &empty, &c}, 1, 1, 32).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(CudaKernel(), {}, 1, 1, 32).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(state.launches.size(), 1u);
}

TEST_F(FakeCudaTest, DynamicSharedMemoryIsCheckedAndOptedInOnce) {
  CudaDeviceBuffer a, b, c;
  CudaModule module;
  CudaKernel add;
  addKernel(a, b, c, module, add);
  if (HasFatalFailure())
    return;
  // Up to the default 48 KiB: passed as it is, no opt-in.
  Status s = device->launch(add, {&b, &c, &a}, 1, 1, 32, nullptr, 4096);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_TRUE(state.attributesSet.empty());
  // 64 KiB: the function's limit raised once (attribute 8, the maximum
  // dynamic shared size), then every launch passes the bytes.
  for (int i = 0; i < 2; ++i) {
    s = device->launch(add, {&b, &c, &a}, 1, 1, 32, nullptr, 65536);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
  ASSERT_EQ(state.attributesSet.size(), 1u);
  EXPECT_EQ(state.attributesSet[0],
            std::make_tuple(std::string("add"), 8, 65536));
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.launches[0].shared, 4096u);
  EXPECT_EQ(state.launches[2].shared, 65536u);
  // Past the device's opt-in limit (232448 bytes) beside the kernel's 2048
  // static bytes, or negative: refused before the driver sees it.
  s = device->launch(add, {&b, &c, &a}, 1, 1, 32, nullptr, 231000);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "launch of 'add': 231000 bytes of dynamic shared "
                         "memory beside 2048 static, the device allows "
                         "232448 a block");
  EXPECT_EQ(device->launch(add, {&b, &c, &a}, 1, 1, 32, nullptr, -1).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.attributesSet.size(), 1u);
}

TEST_F(FakeCudaTest, DriverErrorsAreTyped) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kernelsPtx(), module).isOk());
  CudaKernel kernel;
  ASSERT_TRUE(module.kernel("twice", kernel).isOk());
  CudaDeviceBuffer a;
  ASSERT_TRUE(device->createBuffer(4, a).isOk());
  state.launchError = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  Status s = device->launch(kernel, {&a}, 1, 1, 64);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "cuLaunchKernel: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  state.launchError = 0;
  // A fault in a kernel surfaces at the next synchronisation.
  state.syncError = CUDA_ERROR_LAUNCH_FAILED;
  s = device->synchronize();
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(), "cuStreamSynchronize: CUDA_ERROR_LAUNCH_FAILED");
  // A code the driver has no name for.
  state.syncError = 999;
  s = device->synchronize();
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(), "cuStreamSynchronize: CUresult 999");
  state.syncError = 0;
  state.functionError = CUDA_ERROR_INVALID_VALUE;
  CudaKernel other;
  s = module.kernel("add", other);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "cuModuleGetFunction: CUDA_ERROR_INVALID_VALUE");
}

TEST_F(FakeCudaTest, GraphsRecordAndReplay) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kernelsPtx(), module).isOk());
  CudaKernel addOne, twice;
  ASSERT_TRUE(module.kernel("add_one", addOne).isOk());
  ASSERT_TRUE(module.kernel("twice", twice).isOk());
  CudaDeviceBuffer in, out;
  ASSERT_TRUE(device->createBuffer(8, in).isOk());
  ASSERT_TRUE(device->createBuffer(8, out).isOk());
  float x[2] = {1, 5};
  ASSERT_TRUE(in.upload(x, 8).isOk());
  CudaGraph graph;
  Status s = device->captureGraph(
      [&](CudaStream stream) -> Status {
        POOT_RETURN_IF_ERROR(
            device->launch(addOne, {&in, &out}, 1, 1, 32, stream));
        return device->launch(twice, {&out}, 2, 1, 64, stream);
      },
      graph);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.captureMode, 1); // thread-local
  EXPECT_EQ(graph.numNodes(), 2);
  EXPECT_TRUE(state.launches.empty()); // nothing runs while capturing
  for (int replay = 0; replay < 2; ++replay) {
    ASSERT_TRUE(graph.replay().isOk());
    ASSERT_TRUE(device->synchronize().isOk());
  }
  ASSERT_EQ(state.launches.size(), 4u);
  EXPECT_EQ(state.launches[0].function, "add_one");
  EXPECT_EQ(state.launches[1].function, "twice");
  EXPECT_EQ(state.launches[1].grid[0], 2u);
  EXPECT_EQ(state.launches[1].block[0], 64u);
  EXPECT_TRUE(state.launches[3].replayed);
  float y[2];
  ASSERT_TRUE(out.download(y, 8).isOk());
  EXPECT_EQ(y[0], 4.0f);
  EXPECT_EQ(y[1], 12.0f);

  // A recording that fails ends the capture all the same, and its error
  // is the one reported.
  CudaGraph failed;
  s = device->captureGraph(
      [&](CudaStream stream) {
        return device->launch(twice, {&in, &out}, 1, 1, 32, stream);
      },
      failed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(failed.valid());
  EXPECT_EQ(state.capturing, nullptr);
  EXPECT_TRUE(device->synchronize().isOk());
  EXPECT_EQ(CudaGraph().replay().code(), ErrorCode::InvalidArgument);
}

TEST_F(FakeCudaTest, TimingGivesOneValuePerRun) {
  std::vector<double> us;
  int bodies = 0;
  Status s = device->timeRuns(
      3,
      [&](CudaStream) {
        ++bodies;
        return Status::ok();
      },
      /*flushL2=*/false, us);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(bodies, 3);
  EXPECT_EQ(us, (std::vector<double>{500, 500, 500}));
  EXPECT_EQ(state.eventsCreated, 2);
  EXPECT_EQ(state.eventsDestroyed, 2);
  EXPECT_EQ(device->timeRuns(0, nullptr, false, us).code(),
            ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// The runner
//===----------------------------------------------------------------------===//

Plan cudaPlan(const std::string &ptx = kernelsPtx(),
              const std::string &target = "cuda:sm_90") {
  Plan p;
  p.device = "h200";
  p.target = target;
  p.ptx = ptx;
  return p;
}

/// Launch `l` of an eqn: `kernel` over a `gridX` x `gridY` grid of `lanes`
/// threads, binding `args`.
void addLaunch(Eqn &e, int64_t l, const std::string &kernel, int64_t gridX,
               int64_t gridY, int64_t lanes, const std::string &args) {
  std::string prefix = "poot.launches." + std::to_string(l) + ".";
  e.attrs[prefix + "kernel"] = Attr::ofString(kernel);
  e.attrs[prefix + "grid"] = Attr::ofInts({gridX, gridY});
  e.attrs[prefix + "lanes"] = Attr::ofInt(lanes);
  e.attrs[prefix + "args"] = Attr::ofString(args);
  e.attrs["poot.launches.count"] = Attr::ofInt(l + 1);
}

Eqn simpleEqn(const std::string &op, std::vector<int> operands,
              std::vector<int> results) {
  Eqn e;
  e.op = op;
  e.location = "model.mlir:9:5";
  e.operands = std::move(operands);
  e.results = std::move(results);
  return e;
}

TEST_F(FakeCudaTest, RunnerUploadsStorageAndLaunchesInOrder) {
  Plan plan = cudaPlan(ptxOf({{"add_one", 2}, {"twice", 1}, {"probe", 3}}));
  PlanRunner runner(*device, plan);
  // Operands in storage dtype (f16 as halves, i1 as i32 words), then three
  // launches in order: out0 = in0 + 1; out0 *= 2; a probe that binds the
  // other operands, in the order `args` lists them.
  Eqn eqn = simpleEqn("fused", {0, 1, 2}, {3});
  addLaunch(eqn, 0, "add_one", 2, 1, 128, "in0,out0");
  addLaunch(eqn, 1, "twice", 1, 3, 64, "out0");
  addLaunch(eqn, 2, "probe", 5, 7, 32, "in2,out0,in1");
  Tensor x({DType::F32, {4}}, {1, 2, 3, -4});
  Tensor h({DType::F16, {3}}, {1, -2, 0.5});
  Tensor flags({DType::I1, {2}}, {1, 0});
  std::vector<std::vector<unsigned char>> probed;
  state.onLaunch = [&](const FakeCuda::Launch &l) {
    if (l.function == "probe")
      for (CUdeviceptr p : l.args)
        probed.push_back(bytesAt(p));
  };
  std::vector<Tensor> results;
  bool claimed = false;
  Status s =
      runner.run(eqn, {&x, &h, &flags}, {{DType::F32, {4}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_TRUE(claimed);
  EXPECT_EQ(runner.dispatchedEqns(), 1);
  ASSERT_EQ(state.launches.size(), 3u);
  const unsigned grids[3][3] = {{2, 1, 128}, {1, 3, 64}, {5, 7, 32}};
  const char *names[3] = {"add_one", "twice", "probe"};
  for (int i = 0; i < 3; ++i) {
    const FakeCuda::Launch &l = state.launches[i];
    EXPECT_EQ(l.function, names[i]);
    EXPECT_EQ(l.grid[0], grids[i][0]) << names[i];
    EXPECT_EQ(l.grid[1], grids[i][1]) << names[i];
    EXPECT_EQ(l.block[0], grids[i][2]) << names[i];
    EXPECT_EQ(l.stream, device->stream());
  }
  // The same out0 in every launch that names it.
  EXPECT_EQ(state.launches[0].args[1], state.launches[1].args[0]);
  EXPECT_EQ(state.launches[2].args[1], state.launches[1].args[0]);
  ASSERT_EQ(probed.size(), 3u);
  EXPECT_EQ(probed[0], (std::vector<unsigned char>{1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(probed[1].size(), 16u);
  // 1, -2, 0.5 as f16: 0x3c00, 0xc000, 0x3800.
  EXPECT_EQ(probed[2],
            (std::vector<unsigned char>{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38}));
  // (x + 1) * 2: the launches ran in order.
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{4, 6, 8, -6}));

  // A second run reuses the buffers: nothing is allocated again.
  size_t buffers = state.allocations.size();
  s = runner.run(eqn, {&x, &h, &flags}, {{DType::F32, {4}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.allocations.size(), buffers);
  EXPECT_EQ(state.modulesLoaded, 1);
  EXPECT_EQ(state.launches.size(), 6u);
}

TEST_F(FakeCudaTest, RunnerBindsAttentionRolesAndNarrowsPositions) {
  Plan plan = cudaPlan(ptxOf({{"attention_0_stream", 5}}));
  PlanRunner runner(*device, plan);
  Eqn eqn = simpleEqn("attention", {0, 1, 2, 3}, {4});
  eqn.location = "model.mlir:4:3";
  // q, k, v and pos (the last segment).
  eqn.attrs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1});
  addLaunch(eqn, 0, "attention_0_stream", 8, 2, 64, "pos,k,q,v,out");
  Tensor q({DType::F32, {1, 1, 1, 2}}, {1, 2});
  Tensor k({DType::F32, {1, 1, 3, 2}}, {3, 4, 5, 6, 7, 8});
  Tensor v({DType::BF16, {1, 1, 3, 2}}, {9, 10, 11, 12, 13, 14});
  Tensor pos({DType::I64, {1}}, {5});
  std::vector<std::vector<unsigned char>> bound;
  state.onLaunch = [&](const FakeCuda::Launch &l) {
    for (CUdeviceptr p : l.args)
      bound.push_back(bytesAt(p));
    // The "kernel" writes its q into out.
    std::memcpy(hostBytes(l.args[4], 8), hostBytes(l.args[2], 8), 8);
  };
  std::vector<Tensor> results;
  bool claimed = false;
  PreparedEqn prepared;
  Status s = runner.prepare(eqn, {&q, &k, &v, &pos},
                            {{DType::F32, {1, 1, 1, 2}}}, prepared, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(prepared.kernelNames, "attention_0_stream");
  EXPECT_EQ(prepared.bytesRead, 8 + 24 + 12); // q, k, v as stored
  EXPECT_EQ(prepared.bytesWritten, 8);
  s = runner.run(eqn, {&q, &k, &v, &pos}, {{DType::F32, {1, 1, 1, 2}}}, results,
                 claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(bound.size(), 5u);
  // pos as one i32, k's floats, q's, v as bf16 (9 is 0x4110), out.
  EXPECT_EQ(bound[0], (std::vector<unsigned char>{5, 0, 0, 0}));
  ASSERT_EQ(bound[1].size(), 24u);
  float k0;
  std::memcpy(&k0, bound[1].data(), 4);
  EXPECT_EQ(k0, 3.0f);
  EXPECT_EQ(bound[2].size(), 8u);
  ASSERT_EQ(bound[3].size(), 12u);
  EXPECT_EQ(bound[3][0], 0x10);
  EXPECT_EQ(bound[3][1], 0x41);
  EXPECT_EQ(bound[4].size(), 8u);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{1, 2}));

  // A position past i32 is refused before any launch.
  Tensor far({DType::I64, {1}}, {double(int64_t(1) << 40)});
  size_t launched = state.launches.size();
  s = runner.run(eqn, {&q, &k, &v, &far}, {{DType::F32, {1, 1, 1, 2}}}, results,
                 claimed);
  EXPECT_EQ(s.code(), ErrorCode::RangeViolation);
  EXPECT_EQ(s.message(), "model.mlir:4:3: pos value 1099511627776 does not "
                         "fit the kernel's i32");
  EXPECT_EQ(state.launches.size(), launched);
}

TEST_F(FakeCudaTest, RunnerReportsTheErrorWordTyped) {
  Plan plan = cudaPlan();
  PlanRunner runner(*device, plan);
  Eqn eqn = simpleEqn("gather", {0}, {1});
  addLaunch(eqn, 0, "add_one", 1, 1, 32, "in0,out0");
  addLaunch(eqn, 1, "check", 1, 1, 32, "err");
  Tensor table({DType::F32, {2}}, {1, 2});
  Tensor marker({DType::F32, {1}}, {42});
  std::vector<Tensor> results = {marker};
  bool claimed = false;
  state.faultCode = 1;
  Status s = runner.run(eqn, {&table}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange) << s.toString();
  EXPECT_EQ(s.message(), "model.mlir:9:5: gather: an index outside its axis "
                         "(on the device)");
  // Nothing is published, nothing counted as dispatched.
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{42}));
  EXPECT_EQ(runner.dispatchedEqns(), 0);

  state.faultCode = 2;
  s = runner.run(eqn, {&table}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();

  // The word is zeroed before every run: without a fault the eqn runs.
  state.faultCode = 0;
  s = runner.run(eqn, {&table}, {{DType::F32, {2}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(results[0].values(), (std::vector<double>{2, 3}));
  EXPECT_EQ(runner.dispatchedEqns(), 1);
}

TEST_F(FakeCudaTest, RunnerRefusalsAreTyped) {
  Eqn eqn = simpleEqn("neg", {0}, {1});
  addLaunch(eqn, 0, "neg_0", 1, 1, 32, "in0,out0");
  Tensor x({DType::F32, {2}}, {1, 2});
  std::vector<Tensor> results;
  bool claimed = false;

  // A kernel the PTX does not hold.
  Plan plan = cudaPlan();
  PlanRunner runner(*device, plan);
  Status s = runner.run(eqn, {&x}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::UnknownName);
  EXPECT_EQ(s.message(),
            "cuModuleGetFunction: the module has no kernel 'neg_0'");

  // A plan that names launches but holds no PTX.
  Plan empty = cudaPlan("");
  PlanRunner noPtx(*device, empty);
  s = noPtx.run(eqn, {&x}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "model.mlir:9:5: the plan names launches but holds "
                         "no PTX kernels");

  // Kernels for a newer chip than the device.
  Plan newer = cudaPlan(kernelsPtx(), "cuda:sm_100");
  PlanRunner tooNew(*device, newer);
  s = tooNew.run(eqn, {&x}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "model.mlir:9:5: the plan's kernels are for sm_100, "
                         "the device is sm_90");

  // A role the eqn does not have.
  Eqn unbound = simpleEqn("neg", {0}, {1});
  addLaunch(unbound, 0, "add_one", 1, 1, 32, "in0,in1");
  s = runner.run(unbound, {&x}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "model.mlir:9:5: launch add_one needs operand 'in1' the eqn lacks");

  // Device-only: an eqn without kernels fails instead of going to the host.
  runner.setDeviceOnly(true);
  Eqn plain = simpleEqn("add", {}, {});
  plain.location = "model.mlir:2:1";
  s = runner.run(plain, {}, {}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "model.mlir:2:1: poot.add has no device kernels and "
                         "the run is device-only");
  EXPECT_FALSE(claimed);
  EXPECT_TRUE(state.launches.empty());
}

/// z = (x + c) + (x + c): the first add with an error word, the second one
/// launch of scale2.
Graph chainGraph() {
  GraphBuilder b;
  int x = b.input("x", TT(DType::F32, {3}));
  int c = b.constant(DType::F32, {3}, {10, 20, 30});
  int y = b.eqn("add", {x, c}, TT(DType::F32, {3}));
  int z = b.eqn("add", {y, y}, TT(DType::F32, {3}));
  b.output("z", z);
  Graph g = std::move(b.g);
  addLaunch(g.eqns[1], 0, "add", 1, 1, 32, "in0,in1,out0");
  addLaunch(g.eqns[1], 1, "check", 1, 1, 32, "err");
  addLaunch(g.eqns[2], 0, "scale2", 3, 1, 64, "in0,out0");
  return g;
}

TEST_F(FakeCudaTest, RunnerRunsAGraphEqnByEqn) {
  Plan plan = cudaPlan();
  plan.graph = chainGraph();
  PlanRunner runner(*device, plan);
  Tensor x({DType::F32, {3}}, {1, 2, 3});
  Bindings bindings;
  bindings.inputs["x"] = &x;
  std::map<std::string, Tensor> outputs;
  Status s =
      evaluate(plan.graph, bindings, NumericMode::Native, outputs, &runner);
  ASSERT_TRUE(s.isOk()) << s.toString();
  // The constant stays on the host; the other two eqns run on the device.
  EXPECT_EQ(runner.dispatchedEqns(), 2);
  EXPECT_EQ(state.captures, 0);
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.launches[2].function, "scale2");
  EXPECT_EQ(outputs.at("z").values(), (std::vector<double>{22, 44, 66}));
}

TEST_F(FakeCudaTest, RunnerResidentCapturesOnceAndReplays) {
  Plan plan = cudaPlan();
  plan.graph = chainGraph();
  PlanRunner runner(*device, plan);
  runner.setResident(true);
  Tensor x({DType::F32, {3}}, {1, 2, 3});
  Bindings bindings;
  bindings.inputs["x"] = &x;
  std::map<std::string, Tensor> outputs;
  Status s =
      evaluate(plan.graph, bindings, NumericMode::Native, outputs, &runner);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(outputs.at("z").values(), (std::vector<double>{22, 44, 66}));
  EXPECT_EQ(state.captures, 1);
  EXPECT_EQ(state.instantiated, 1);
  EXPECT_EQ(runner.capturedLaunches(), 3);
  EXPECT_EQ(state.graphs.at(0).size(), 3u);
  EXPECT_EQ(state.graphLaunches, 1);
  ASSERT_EQ(state.launches.size(), 3u);
  for (const FakeCuda::Launch &l : state.launches)
    EXPECT_TRUE(l.replayed) << l.function;
  // One buffer a value (the inputs', the constant's, each result's), the
  // error word; the add's result is what scale2 reads.
  EXPECT_EQ(state.launches[0].args[2], state.launches[2].args[0]);
  EXPECT_EQ(state.allocations.size(), 5u);

  // The next run replays the same capture: only the input and the error
  // word go up (the constant went up once).
  int copies = state.copiesToDevice;
  x = Tensor({DType::F32, {3}}, {-1, 0, 1});
  outputs.clear();
  s = evaluate(plan.graph, bindings, NumericMode::Native, outputs, &runner);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(outputs.at("z").values(), (std::vector<double>{18, 40, 62}));
  EXPECT_EQ(state.copiesToDevice - copies, 2);
  EXPECT_EQ(state.captures, 1);
  EXPECT_EQ(state.graphLaunches, 2);
  EXPECT_EQ(runner.dispatchedEqns(), 6);

  // An error word set in the replay fails the run, typed.
  state.faultCode = 1;
  outputs.clear();
  s = evaluate(plan.graph, bindings, NumericMode::Native, outputs, &runner);
  EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange) << s.toString();
  EXPECT_TRUE(outputs.empty());
  state.faultCode = 0;

  // The replay timed (the L2 flushed before each, outside the events).
  std::vector<double> us;
  s = runner.timeResident(2, us);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(us, (std::vector<double>{500, 500}));
  EXPECT_EQ(state.graphLaunches, 5);
}

} // namespace
