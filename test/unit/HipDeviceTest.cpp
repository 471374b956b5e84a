//===- HipDeviceTest.cpp - Tests of the HIP device ------------------------===//
//
// Without the HIP runtime or an AMD GPU, create() must say Unsupported
// (never crash). Everything up to the runtime call is checked through a
// fake HipApi table: the device's facts from its attributes, kernel
// parameters packed as pointers to each buffer's device pointer in order,
// launch geometry, refused launches that never reach HIP, every error code
// wrapped into the typed Status, and PlanRunner binding an attention's
// operands, and any other eqn's in<i>/out<i>/err buffers, to its launches
// (a fake kernel writes results and error words where the test says).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/HipDevice.h"
#include "poot/Runtime/PlanRunner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

using namespace poot::rt;

namespace {

/// What the fake runtime saw and what it answers with.
struct FakeHip {
  int devices = 1;
  int selected = -1;
  std::map<void *, std::vector<unsigned char>> memory;
  int deviceCopies = 0;
  std::string lastModuleImage;
  std::vector<std::string> functions;
  struct LaunchRecord {
    std::string function;
    unsigned grid[3], block[3], shared;
    void *stream;
    std::vector<void *> params;
    bool extra;
  };
  std::vector<LaunchRecord> launches;
  int syncs = 0;
  // Errors to return, by entry point (0: success).
  int loadError = 0, functionError = 0, mallocError = 0, launchError = 0,
      syncError = 0;
  int freed = 0;
  /// Parameters the next launch's kernel takes (HIP reads the count from
  /// the code object's metadata; the fake is told).
  size_t paramCount = 0;
  /// Stands in for the kernel: called with each launch as recorded.
  std::function<void(const LaunchRecord &)> onLaunch;
};

FakeHip *fake = nullptr;

int fakeInit(unsigned) { return 0; }
int fakeCount(int *n) {
  *n = fake->devices;
  return fake->devices ? 0 : 100; // hipErrorNoDevice
}
int fakeSetDevice(int d) {
  if (d >= fake->devices)
    return 101;
  fake->selected = d;
  return 0;
}
int fakeAttribute(int *v, int attribute, int) {
  static const std::map<int, int> values = {
      {19, 4 << 20}, {29, 2147483647}, {30, 65535}, {56, 1024},
      {63, 304},     {74, 65536},      {87, 64}};
  auto it = values.find(attribute);
  if (it == values.end())
    return 1;
  *v = it->second;
  return 0;
}
int fakeName(char *name, int length, int) {
  std::strncpy(name, "AMD Instinct MI300X", length);
  return 0;
}
int fakeTotalMem(size_t *bytes, int) {
  *bytes = size_t(192) << 30;
  return 0;
}
int fakeProperties(void *props, int) {
  // The marketing name first, the architecture name further in, as HIP's
  // struct has them.
  char *p = static_cast<char *>(props);
  std::strcpy(p, "AMD Instinct MI300X");
  std::strcpy(p + 1160, "gfx942:sramecc+:xnack-");
  return 0;
}
int fakeLoad(HipModuleHandle **module, const void *image) {
  if (fake->loadError)
    return fake->loadError;
  fake->lastModuleImage.assign(static_cast<const char *>(image), 20);
  *module = reinterpret_cast<HipModuleHandle *>(0x1000);
  return 0;
}
int fakeUnload(HipModuleHandle *) { return 0; }
int fakeFunction(HipFunctionHandle **fn, HipModuleHandle *, const char *name) {
  if (fake->functionError)
    return fake->functionError;
  fake->functions.push_back(name);
  *fn = reinterpret_cast<HipFunctionHandle *>(fake->functions.size());
  return 0;
}
int fakeLaunch(HipFunctionHandle *fn, unsigned gx, unsigned gy, unsigned gz,
               unsigned bx, unsigned by, unsigned bz, unsigned shared,
               HipStreamHandle *stream, void **params, void **extra) {
  if (fake->launchError)
    return fake->launchError;
  FakeHip::LaunchRecord r;
  r.function = fake->functions.at(reinterpret_cast<size_t>(fn) - 1);
  r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
  r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
  r.shared = shared;
  r.stream = stream;
  r.extra = extra != nullptr;
  // The launch reads each parameter's value through its pointer.
  for (size_t i = 0; params && i < fake->paramCount; ++i)
    r.params.push_back(*static_cast<void **>(params[i]));
  fake->launches.push_back(r);
  if (fake->onLaunch)
    fake->onLaunch(r);
  return 0;
}
int fakeMalloc(void **p, size_t bytes) {
  if (fake->mallocError)
    return fake->mallocError;
  *p = std::malloc(bytes);
  fake->memory[*p].assign(bytes, 0);
  return 0;
}
int fakeFree(void *p) {
  fake->memory.erase(p);
  std::free(p);
  ++fake->freed;
  return 0;
}
/// The allocation holding `p` and the offset of `p` in it.
std::vector<unsigned char> &allocationOf(void *p, size_t &offset) {
  auto it = fake->memory.upper_bound(p);
  --it;
  offset = static_cast<char *>(p) - static_cast<char *>(it->first);
  return it->second;
}
int fakeHtoD(void *dst, void *src, size_t bytes) {
  size_t offset;
  std::vector<unsigned char> &a = allocationOf(dst, offset);
  std::memcpy(a.data() + offset, src, bytes);
  return 0;
}
int fakeDtoH(void *dst, void *src, size_t bytes) {
  size_t offset;
  std::vector<unsigned char> &a = allocationOf(src, offset);
  std::memcpy(dst, a.data() + offset, bytes);
  return 0;
}
int fakeDtoD(void *dst, void *src, size_t bytes) {
  size_t to, from;
  std::vector<unsigned char> &d = allocationOf(dst, to);
  std::vector<unsigned char> &s = allocationOf(src, from);
  std::memmove(d.data() + to, s.data() + from, bytes);
  ++fake->deviceCopies;
  return 0;
}
int fakeSync(HipStreamHandle *) {
  ++fake->syncs;
  return fake->syncError;
}
const char *fakeErrorName(int e) {
  switch (e) {
  case 2:
    return "hipErrorOutOfMemory";
  case 209:
    return "hipErrorNoBinaryForGpu";
  case 500:
    return "hipErrorNotFound";
  case 701:
    return "hipErrorLaunchOutOfResources";
  case 719:
    return "hipErrorLaunchFailure";
  default:
    return "hipErrorUnknown";
  }
}
const char *fakeErrorString(int e) {
  return e == 209 ? "no kernel image is available for execution on the device"
                  : "";
}

std::shared_ptr<HipApi> fakeApi() {
  auto api = std::make_shared<HipApi>();
  api->hipInit = fakeInit;
  api->hipGetDeviceCount = fakeCount;
  api->hipSetDevice = fakeSetDevice;
  api->hipDeviceGetAttribute = fakeAttribute;
  api->hipDeviceGetName = fakeName;
  api->hipDeviceTotalMem = fakeTotalMem;
  api->hipModuleLoadData = fakeLoad;
  api->hipModuleUnload = fakeUnload;
  api->hipModuleGetFunction = fakeFunction;
  api->hipModuleLaunchKernel = fakeLaunch;
  api->hipMalloc = fakeMalloc;
  api->hipFree = fakeFree;
  api->hipMemcpyHtoD = fakeHtoD;
  api->hipMemcpyDtoH = fakeDtoH;
  api->hipMemcpyDtoD = fakeDtoD;
  api->hipStreamSynchronize = fakeSync;
  api->hipGetErrorName = fakeErrorName;
  api->hipGetErrorString = fakeErrorString;
  api->hipGetDeviceProperties = fakeProperties;
  return api;
}

/// An ELF header's worth of bytes, enough for the device's check.
std::string elfImage() {
  return std::string("\x7f" "ELF\x02\x01\x01\x40", 8) + std::string(56, '\0');
}

class FakeHipTest : public ::testing::Test {
protected:
  void SetUp() override {
    fake = &state;
    Status s = HipDevice::createWith(fakeApi(), device);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
  void TearDown() override {
    device.reset();
    fake = nullptr;
  }
  FakeHip state;
  std::unique_ptr<HipDevice> device;
};

TEST(HipDevice, WithoutTheRuntimeIsUnsupported) {
  std::unique_ptr<HipDevice> device;
  Status s = HipDevice::create(device);
  if (s.isOk())
    GTEST_SKIP() << "a HIP device is present: " << device->description();
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_FALSE(device);
  // Either no runtime or no usable device, said in readable words (the
  // loader's message is copied before the next dlopen replaces it).
  EXPECT_TRUE(s.message().find("no HIP runtime (libamdhip64.so): ") == 0 ||
              s.message().find("no usable HIP device") == 0)
      << s.message();
  for (char c : s.message())
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << s.message();
  int count = -1;
  Status c = HipDevice::deviceCount(count);
  EXPECT_EQ(c.code(), ErrorCode::Unsupported);
}

TEST(HipDevice, RefusesATableWithoutAnEntryPoint) {
  FakeHip state;
  fake = &state;
  auto api = fakeApi();
  api->hipModuleLaunchKernel = nullptr;
  std::unique_ptr<HipDevice> device;
  Status s = HipDevice::createWith(api, device);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("hipModuleLaunchKernel"), std::string::npos);
  fake = nullptr;
}

TEST(HipDevice, NoDeviceIsUnsupported) {
  FakeHip state;
  state.devices = 0;
  fake = &state;
  std::unique_ptr<HipDevice> device;
  Status s = HipDevice::createWith(fakeApi(), device);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("no HIP device"), std::string::npos);
  state.devices = 1;
  s = HipDevice::createWith(fakeApi(), device, 3);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  fake = nullptr;
}

TEST_F(FakeHipTest, FactsComeFromTheDevice) {
  const poot::DeviceFacts &f = device->facts();
  EXPECT_EQ(f.name, "gfx942");
  EXPECT_EQ(f.target, "rocdl");
  EXPECT_EQ(f.computeUnits, 304);
  EXPECT_EQ(f.subgroupSize, 64);
  EXPECT_TRUE(f.fixedSubgroup);
  EXPECT_EQ(f.workgroupMemoryBytes, 65536);
  EXPECT_EQ(f.maxWorkgroupSize, 1024);
  EXPECT_EQ(f.maxGridY, 65535);
  EXPECT_EQ(f.memoryBytes, int64_t(192) << 30);
  EXPECT_EQ(device->description(),
            "AMD Instinct MI300X (gfx942, 304 CUs, 192.0 GiB)");
}

TEST_F(FakeHipTest, BuffersRoundTrip) {
  HipDeviceBuffer buf;
  ASSERT_TRUE(device->createBuffer(16, buf).isOk());
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_TRUE(buf.upload(in, 16).isOk());
  ASSERT_TRUE(buf.download(out, 8, 8).isOk());
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 4.0f);
  EXPECT_EQ(buf.upload(in, 16, 4).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device->createBuffer(0, buf).code(), ErrorCode::InvalidArgument);
  state.mallocError = 2;
  HipDeviceBuffer big;
  Status s = device->createBuffer(1 << 20, big);
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(), "hipMalloc: hipErrorOutOfMemory");
  EXPECT_FALSE(big.valid());
}

TEST_F(FakeHipTest, CopiesStayOnTheDevice) {
  std::unique_ptr<GpuBuffer> a, b;
  ASSERT_TRUE(device->allocate(16, a).isOk());
  ASSERT_TRUE(device->allocate(16, b).isOk());
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_TRUE(a->upload(in, 16).isOk());
  ASSERT_TRUE(device->copy({{a.get(), 4, b.get(), 8, 8}}).isOk());
  EXPECT_EQ(state.deviceCopies, 1);
  ASSERT_TRUE(b->download(out, 8, 8).isOk());
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 3.0f);
  EXPECT_EQ(device->copy({{a.get(), 12, b.get(), 0, 8}}).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(state.deviceCopies, 1);
}

TEST_F(FakeHipTest, LaunchPacksPointersAndGeometry) {
  HipDeviceBuffer a, b, c;
  ASSERT_TRUE(device->createBuffer(64, a).isOk());
  ASSERT_TRUE(device->createBuffer(64, b).isOk());
  ASSERT_TRUE(device->createBuffer(64, c).isOk());
  HipModule module;
  ASSERT_TRUE(device->createModule(elfImage(), module).isOk());
  HipKernel kernel;
  ASSERT_TRUE(module.kernel("attention_0_stream", kernel).isOk());
  EXPECT_EQ(kernel.name(), "attention_0_stream");
  state.paramCount = 3;
  Status s = device->launch(kernel, {&b, &a, &c}, 6, 4, 256);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.launches.size(), 1u);
  const FakeHip::LaunchRecord &r = state.launches[0];
  EXPECT_EQ(r.function, "attention_0_stream");
  EXPECT_EQ(r.grid[0], 6u);
  EXPECT_EQ(r.grid[1], 4u);
  EXPECT_EQ(r.grid[2], 1u);
  EXPECT_EQ(r.block[0], 256u);
  EXPECT_EQ(r.block[1], 1u);
  EXPECT_EQ(r.block[2], 1u);
  EXPECT_EQ(r.shared, 0u);
  EXPECT_EQ(r.stream, nullptr);
  EXPECT_FALSE(r.extra);
  // One parameter per buffer, in the launch's order.
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[0], b.devicePointer());
  EXPECT_EQ(r.params[1], a.devicePointer());
  EXPECT_EQ(r.params[2], c.devicePointer());
  EXPECT_TRUE(device->synchronize().isOk());
  EXPECT_EQ(state.syncs, 1);

  // Refused before HIP sees them.
  EXPECT_EQ(device->launch(kernel, {&a}, 1, 1, 2048).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(kernel, {&a}, 1, 70000, 64).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(kernel, {&a}, 0, 1, 64).code(),
            ErrorCode::InvalidArgument);
  HipDeviceBuffer empty;
  EXPECT_EQ(device->launch(kernel, {&empty}, 1, 1, 64).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(state.launches.size(), 1u);
}

TEST_F(FakeHipTest, ErrorCodesAreTyped) {
  HipModule module;
  Status s = device->createModule("not an elf file at all", module);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_TRUE(state.lastModuleImage.empty());

  state.loadError = 209;
  s = device->createModule(elfImage(), module);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("hipModuleLoadData: hipErrorNoBinaryForGpu (no "
                             "kernel image is available"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("gfx942"), std::string::npos);
  EXPECT_FALSE(module.valid());
  state.loadError = 0;

  ASSERT_TRUE(device->createModule(elfImage(), module).isOk());
  state.functionError = 500;
  HipKernel kernel;
  s = module.kernel("missing", kernel);
  EXPECT_EQ(s.code(), ErrorCode::UnknownName);
  EXPECT_EQ(s.message(), "hipModuleGetFunction: hipErrorNotFound");
  state.functionError = 0;

  ASSERT_TRUE(module.kernel("k", kernel).isOk());
  HipDeviceBuffer a;
  ASSERT_TRUE(device->createBuffer(4, a).isOk());
  state.launchError = 701;
  s = device->launch(kernel, {&a}, 1, 1, 64);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "hipModuleLaunchKernel: hipErrorLaunchOutOfResources");
  state.launchError = 0;
  state.syncError = 719;
  s = device->synchronize();
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(s.message(), "hipStreamSynchronize: hipErrorLaunchFailure");
}

/// A plan with one attention eqn whose launch binds (k, q, out).
Plan attentionPlan(const std::string &chip) {
  Plan p;
  p.device = chip;
  p.target = "rocm:" + chip;
  p.hsaco = elfImage();
  p.hsacoChip = chip;
  return p;
}

Eqn attentionEqn() {
  Eqn e;
  e.op = "attention";
  e.location = "model.mlir:4:3";
  e.operands = {0, 1, 2}; // q, k, v
  e.results = {3};
  e.attrs["poot.launches.count"] = Attr::ofInt(1);
  e.attrs["poot.launches.0.kernel"] = Attr::ofString("attention_0_stream");
  e.attrs["poot.launches.0.grid"] = Attr::ofInts({8, 1});
  e.attrs["poot.launches.0.lanes"] = Attr::ofInt(64);
  e.attrs["poot.launches.0.args"] = Attr::ofString("k,q,v,out");
  return e;
}

TEST_F(FakeHipTest, RunnerBindsOperandsByRole) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  Eqn eqn = attentionEqn();
  Tensor q({DType::F32, {1, 1, 1, 2}}, {1, 2});
  Tensor k({DType::F32, {1, 1, 3, 2}}, {3, 4, 5, 6, 7, 8});
  Tensor v({DType::F32, {1, 1, 3, 2}}, {9, 10, 11, 12, 13, 14});
  std::vector<Tensor> results;
  bool claimed = false;
  state.paramCount = 4;
  Status s = runner.run(eqn, {&q, &k, &v}, {{DType::F32, {1, 1, 1, 2}}},
                        results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_TRUE(claimed);
  EXPECT_EQ(runner.dispatchedEqns(), 1);
  ASSERT_EQ(state.launches.size(), 1u);
  const FakeHip::LaunchRecord &r = state.launches[0];
  EXPECT_EQ(r.grid[0], 8u);
  EXPECT_EQ(r.block[0], 64u);
  ASSERT_EQ(r.params.size(), 4u);
  // The launch's first parameter holds k's bytes, the second q's.
  size_t offset;
  std::vector<unsigned char> &first = allocationOf(r.params[0], offset);
  ASSERT_EQ(first.size(), 24u);
  float k0;
  std::memcpy(&k0, first.data(), 4);
  EXPECT_EQ(k0, 3.0f);
  std::vector<unsigned char> &second = allocationOf(r.params[1], offset);
  ASSERT_EQ(second.size(), 8u);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].type().shape, (std::vector<int64_t>{1, 1, 1, 2}));

  // An eqn without launches is left to the host.
  Eqn plain;
  plain.op = "add";
  claimed = true;
  ASSERT_TRUE(runner.run(plain, {}, {}, results, claimed).isOk());
  EXPECT_FALSE(claimed);
}

TEST_F(FakeHipTest, RunnerBindsTheFusedCombinesCountersZeroed) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  // A split attention whose last workgroup folds: scratch and the ticket
  // counters (one i32 a row) bind, the counters zero at every launch even
  // when the last one left garbage (as a faulted launch could).
  Eqn eqn = attentionEqn();
  eqn.attrs["poot.launches.0.kernel"] = Attr::ofString("attention_0_partial");
  eqn.attrs["poot.launches.0.args"] = Attr::ofString("q,k,v,out,scratch,counters");
  eqn.attrs["poot.schedule.scratch_bytes"] = Attr::ofInt(64);
  eqn.attrs["poot.schedule.counter_bytes"] = Attr::ofInt(12);
  Tensor q({DType::F32, {1, 1, 1, 2}}, {1, 2});
  Tensor k({DType::F32, {1, 1, 3, 2}}, {3, 4, 5, 6, 7, 8});
  Tensor v({DType::F32, {1, 1, 3, 2}}, {9, 10, 11, 12, 13, 14});
  state.paramCount = 6;
  std::vector<int32_t> seen;
  state.onLaunch = [&](const FakeHip::LaunchRecord &r) {
    size_t offset;
    std::vector<unsigned char> &counters = allocationOf(r.params[5], offset);
    ASSERT_EQ(counters.size(), 12u);
    int32_t words[3];
    std::memcpy(words, counters.data(), 12);
    seen.insert(seen.end(), words, words + 3);
    std::memset(counters.data(), 0x7f, 12);
  };
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> results;
    bool claimed = false;
    Status s = runner.run(eqn, {&q, &k, &v}, {{DType::F32, {1, 1, 1, 2}}},
                          results, claimed);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
  EXPECT_EQ(seen, (std::vector<int32_t>(6, 0)));
}

TEST_F(FakeHipTest, RunnerRefusesAPlanForAnotherChip) {
  Plan plan = attentionPlan("gfx1100");
  PlanRunner runner(*device, plan);
  Eqn eqn = attentionEqn();
  Tensor q({DType::F32, {1, 1, 1, 2}}, {1, 2});
  std::vector<Tensor> results;
  bool claimed = false;
  Status s = runner.run(eqn, {&q, &q, &q}, {{DType::F32, {1, 1, 1, 2}}},
                        results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "model.mlir:4:3: the plan's kernels are for gfx1100, "
                         "the device is gfx942");
  EXPECT_TRUE(state.launches.empty());
}

/// A simple (non-attention) eqn with one launch binding `args`.
Eqn simpleEqn(const std::string &op, std::vector<int> operands,
              std::vector<int> results, const std::string &args) {
  Eqn e;
  e.op = op;
  e.location = "model.mlir:9:5";
  e.operands = std::move(operands);
  e.results = std::move(results);
  e.attrs["poot.launches.count"] = Attr::ofInt(1);
  e.attrs["poot.launches.0.kernel"] = Attr::ofString(op + "_0");
  e.attrs["poot.launches.0.grid"] = Attr::ofInts({3, 2});
  e.attrs["poot.launches.0.lanes"] = Attr::ofInt(128);
  e.attrs["poot.launches.0.args"] = Attr::ofString(args);
  return e;
}

/// The bytes of the allocation a launch parameter points at.
std::vector<unsigned char> &bytesOf(void *param) {
  size_t offset;
  return allocationOf(param, offset);
}

TEST_F(FakeHipTest, RunnerBindsASimpleEqnInArgumentOrder) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  // The launch lists out0 first: the arguments follow `args`, not the
  // operand order. i64 stays i64 outside the attention.
  Eqn eqn = simpleEqn("add", {0, 1}, {2}, "out0,in1,in0");
  Tensor a({DType::F32, {3}}, {1, 2, 3});
  Tensor b({DType::I64, {2}}, {double(int64_t(1) << 40), -7});
  state.paramCount = 3;
  state.onLaunch = [](const FakeHip::LaunchRecord &r) {
    float sum[3] = {10, 20, 30};
    std::memcpy(bytesOf(r.params[0]).data(), sum, sizeof sum);
  };
  std::vector<Tensor> results;
  bool claimed = false;
  Status s = runner.run(eqn, {&a, &b}, {{DType::F32, {3}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_TRUE(claimed);
  EXPECT_EQ(runner.dispatchedEqns(), 1);
  ASSERT_EQ(state.launches.size(), 1u);
  const FakeHip::LaunchRecord &r = state.launches[0];
  EXPECT_EQ(r.function, "add_0");
  EXPECT_EQ(r.grid[0], 3u);
  EXPECT_EQ(r.grid[1], 2u);
  EXPECT_EQ(r.block[0], 128u);
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(bytesOf(r.params[0]).size(), 12u); // out0
  std::vector<unsigned char> &in1 = bytesOf(r.params[1]);
  ASSERT_EQ(in1.size(), 16u);
  int64_t b0;
  std::memcpy(&b0, in1.data(), 8);
  EXPECT_EQ(b0, int64_t(1) << 40);
  std::vector<unsigned char> &in0 = bytesOf(r.params[2]);
  ASSERT_EQ(in0.size(), 12u);
  float a2;
  std::memcpy(&a2, in0.data() + 8, 4);
  EXPECT_EQ(a2, 3.0f);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(state.syncs, 1);
}

TEST_F(FakeHipTest, RunnerReadsAnInPlaceWriteFromItsOperand) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  // A cache write marked in place binds no out0: the kernel writes into
  // in0, and the result is read back from there.
  Eqn eqn = simpleEqn("dynamic_update_slice", {0, 1, 2}, {3}, "in0,in1,in2");
  eqn.attrs["poot.in_place"] = Attr::ofInt(1);
  Tensor cache({DType::F32, {4}}, {1, 2, 3, 4});
  Tensor row({DType::F32, {1}}, {-9});
  Tensor start({DType::I32, {}}, {2});
  state.paramCount = 3;
  state.onLaunch = [](const FakeHip::LaunchRecord &r) {
    float v = -9;
    std::memcpy(bytesOf(r.params[0]).data() + 8, &v, 4);
  };
  std::vector<Tensor> results;
  bool claimed = false;
  Status s = runner.run(eqn, {&cache, &row, &start}, {{DType::F32, {4}}},
                        results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.launches.at(0).params.size(), 3u);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{1, 2, -9, 4}));
}

TEST_F(FakeHipTest, RunnerCarriesI1AsWords) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  // An i1 operand goes up, and an i1 result comes back, as i32 words.
  Eqn eqn = simpleEqn("xor", {0, 1}, {2}, "in0,in1,out0");
  Tensor a({DType::I1, {3}}, {1, 0, 1});
  Tensor b({DType::I1, {3}}, {1, 1, 0});
  state.paramCount = 3;
  state.onLaunch = [](const FakeHip::LaunchRecord &r) {
    int32_t words[3] = {0, 1, 5};
    std::memcpy(bytesOf(r.params[2]).data(), words, sizeof words);
  };
  std::vector<Tensor> results;
  bool claimed = false;
  Status s = runner.run(eqn, {&a, &b}, {{DType::I1, {3}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  const FakeHip::LaunchRecord &r = state.launches.at(0);
  std::vector<unsigned char> &in0 = bytesOf(r.params[0]);
  ASSERT_EQ(in0.size(), 12u);
  int32_t words[3];
  std::memcpy(words, in0.data(), 12);
  EXPECT_EQ(words[0], 1);
  EXPECT_EQ(words[1], 0);
  EXPECT_EQ(words[2], 1);
  EXPECT_EQ(bytesOf(r.params[2]).size(), 12u);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].dtype(), DType::I1);
  EXPECT_EQ(results[0].values(), (std::vector<double>{0, 1, 1}));
}

TEST_F(FakeHipTest, RunnerTurnsTheErrorWordIntoTheTypedError) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  Eqn eqn = simpleEqn("gather", {0, 1}, {2}, "in0,in1,out0,err");
  Tensor table({DType::F32, {4}}, {1, 2, 3, 4});
  Tensor index({DType::I32, {2}}, {1, 9});
  int32_t code = 1;
  state.paramCount = 4;
  state.onLaunch = [&code](const FakeHip::LaunchRecord &r) {
    std::vector<unsigned char> &err = bytesOf(r.params[3]);
    ASSERT_EQ(err.size(), 4u);
    int32_t was;
    std::memcpy(&was, err.data(), 4);
    EXPECT_EQ(was, 0); // cleared before every run
    if (code)
      std::memcpy(err.data(), &code, 4);
  };
  Tensor marker({DType::F32, {1}}, {42});
  std::vector<Tensor> results = {marker};
  bool claimed = false;
  Status s = runner.run(eqn, {&table, &index}, {{DType::F32, {2}}}, results,
                        claimed);
  EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange) << s.toString();
  EXPECT_NE(s.message().find("model.mlir:9:5: gather: an index outside"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(claimed);
  // Nothing is published, nothing counted as dispatched.
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].values(), (std::vector<double>{42}));
  EXPECT_EQ(runner.dispatchedEqns(), 0);

  code = 2;
  s = runner.run(eqn, {&table, &index}, {{DType::F32, {2}}}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();

  // The same eqn again without a fault: the word was reset, so it runs.
  code = 0;
  s = runner.run(eqn, {&table, &index}, {{DType::F32, {2}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].type().shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(runner.dispatchedEqns(), 1);
  EXPECT_EQ(state.launches.size(), 3u);
}

TEST_F(FakeHipTest, RunnerDeviceOnlyRefusesAnEqnWithoutLaunches) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  Eqn plain;
  plain.op = "add";
  plain.location = "model.mlir:2:1";
  std::vector<Tensor> results;
  bool claimed = true;
  Status s = runner.run(plain, {}, {}, results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(), "model.mlir:2:1: poot.add has no device kernels and "
                         "the run is device-only");
  EXPECT_FALSE(claimed);
  // A constant's payload is never computed: it stays on the host.
  Eqn constant;
  constant.op = "constant";
  ASSERT_TRUE(runner.run(constant, {}, {}, results, claimed).isOk());
  EXPECT_FALSE(claimed);
  EXPECT_TRUE(state.launches.empty());
  // Without device-only the same eqn is left to the host.
  runner.setDeviceOnly(false);
  ASSERT_TRUE(runner.run(plain, {}, {}, results, claimed).isOk());
  EXPECT_FALSE(claimed);
}

TEST_F(FakeHipTest, RunnerNarrowsAttentionPositionsOnly) {
  Plan plan = attentionPlan("gfx942");
  PlanRunner runner(*device, plan);
  Eqn eqn = attentionEqn();
  eqn.operands = {0, 1, 2, 3};
  // q, k, v and pos (the last segment).
  eqn.attrs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1});
  eqn.attrs["poot.launches.0.args"] = Attr::ofString("pos,q,k,v,out");
  Tensor q({DType::F32, {1, 1, 1, 2}}, {1, 2});
  Tensor pos({DType::I64, {1}}, {5});
  state.paramCount = 5;
  std::vector<Tensor> results;
  bool claimed = false;
  Status s = runner.run(eqn, {&q, &q, &q, &pos},
                        {{DType::F32, {1, 1, 1, 2}}}, results, claimed);
  ASSERT_TRUE(s.isOk()) << s.toString();
  std::vector<unsigned char> &p = bytesOf(state.launches.at(0).params[0]);
  ASSERT_EQ(p.size(), 4u);
  int32_t p0;
  std::memcpy(&p0, p.data(), 4);
  EXPECT_EQ(p0, 5);
  // A position past i32 is refused before any launch.
  Tensor far({DType::I64, {1}}, {double(int64_t(1) << 40)});
  s = runner.run(eqn, {&q, &q, &q, &far}, {{DType::F32, {1, 1, 1, 2}}},
                 results, claimed);
  EXPECT_EQ(s.code(), ErrorCode::RangeViolation);
  EXPECT_EQ(s.message(), "model.mlir:4:3: pos value 1099511627776 does not "
                         "fit the kernel's i32");
  EXPECT_EQ(state.launches.size(), 1u);
}

} // namespace
