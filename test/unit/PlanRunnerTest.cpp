//===- PlanRunnerTest.cpp - The one runner over a device in host memory ---===//
//
// PlanRunner is the run path of every GPU device. Here it runs over a
// GpuDevice whose memory is host vectors and whose kernels are C++
// functions, so what the runner itself promises is checked apart from any
// driver: arguments bound by role (ranges of the plan's arena included),
// buffers kept across runs, a resident run recorded once and replayed,
// i64 positions narrowed for the attention and refused before anything
// runs when they do not fit, a set error word failing the run with nothing
// published, and device-only refusals.
//
//===----------------------------------------------------------------------===//

#include "HandGraph.h"

#include "poot/Runtime/PlanRunner.h"

#include <cstring>
#include <functional>

using namespace poot::rt;
using namespace poot::rt::handgraph;

namespace {

class HostBuffer final : public GpuBuffer {
public:
  HostBuffer(int64_t bytes, const GpuDevice *device)
      : bytes(bytes, 0xCD), device(device) {}
  int64_t size() const override { return static_cast<int64_t>(bytes.size()); }
  Status upload(const void *src, int64_t n, int64_t offset) override {
    if (offset < 0 || offset + n > size())
      return Status(ErrorCode::InvalidArgument, "upload past the end");
    std::memcpy(bytes.data() + offset, src, n);
    ++uploads;
    return Status::ok();
  }
  Status download(void *dst, int64_t n, int64_t offset) const override {
    if (offset < 0 || offset + n > size())
      return Status(ErrorCode::InvalidArgument, "download past the end");
    std::memcpy(dst, bytes.data() + offset, n);
    return Status::ok();
  }
  const void *owner() const override { return device; }

  std::vector<unsigned char> bytes;
  const GpuDevice *device;
  static inline int uploads = 0;
};

/// A kernel's view of one argument: its bytes from the launch's offset.
using HostKernelFn = std::function<void(std::vector<unsigned char *> &)>;

class HostKernel final : public GpuKernel {
public:
  HostKernel(std::string name, HostKernelFn fn, const GpuDevice *device)
      : name_(std::move(name)), fn(std::move(fn)), device(device) {}
  const std::string &name() const override { return name_; }
  const void *owner() const override { return device; }

  std::string name_;
  HostKernelFn fn;
  const GpuDevice *device;
};

class HostDevice;

class HostModule final : public GpuModule {
public:
  explicit HostModule(HostDevice &device) : device(device) {}
  Status kernel(const std::string &name, int numArgs,
                const GpuKernel *&out) override;

  HostDevice &device;
  std::map<std::string, std::unique_ptr<HostKernel>> kernels;
};

class HostDevice final : public GpuDevice {
public:
  const char *kind() const override { return "host"; }
  const poot::DeviceFacts &facts() const override { return facts_; }
  const std::string &description() const override { return description_; }
  Status allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) override {
    ++allocations;
    out = std::make_unique<HostBuffer>(bytes, this);
    return Status::ok();
  }
  Status loadModule(const Plan &, std::unique_ptr<GpuModule> &out) override {
    ++modulesLoaded;
    out = std::make_unique<HostModule>(*this);
    return Status::ok();
  }
  int64_t argOffsetAlignment() const override { return 256; }
  Status run(const std::vector<GpuLaunch> &launches) override {
    for (size_t l = 0; l < launches.size(); ++l) {
      POOT_RETURN_IF_ERROR(checkKernel(launches[l], l));
      for (const GpuArg &a : launches[l].args)
        POOT_RETURN_IF_ERROR(checkArg(a, "arg"));
    }
    for (const GpuLaunch &launch : launches) {
      std::vector<unsigned char *> args;
      for (const GpuArg &a : launch.args) {
        auto *b = const_cast<HostBuffer *>(static_cast<const HostBuffer *>(a.buffer));
        args.push_back(b->bytes.data() + a.offset);
        offsets.push_back(a.offset);
      }
      static_cast<const HostKernel *>(launch.kernel)->fn(args);
      launched.push_back(launch.kernel->name());
    }
    return Status::ok();
  }
  Status record(std::vector<GpuLaunch> launches,
                std::unique_ptr<GpuRecording> &out) override {
    ++recordings;
    return GpuDevice::record(std::move(launches), out);
  }

  std::map<std::string, HostKernelFn> library;
  int allocations = 0, modulesLoaded = 0, recordings = 0;
  std::vector<std::string> launched;
  std::vector<int64_t> offsets;

private:
  poot::DeviceFacts facts_;
  std::string description_ = "host memory";
};

Status HostModule::kernel(const std::string &name, int, const GpuKernel *&out) {
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    auto fn = device.library.find(name);
    if (fn == device.library.end())
      return Status(ErrorCode::UnknownName, "no kernel '" + name + "'");
    it = kernels
             .emplace(name, std::make_unique<HostKernel>(name, fn->second,
                                                         &device))
             .first;
  }
  out = it->second.get();
  return Status::ok();
}

float *f32(unsigned char *p) { return reinterpret_cast<float *>(p); }

/// out0 = in0 + in1 over 3 floats; "scale2": out0 = 2 * in0; "fault" sets
/// the error word to 1 (an index outside its axis).
void addKernels(HostDevice &d) {
  d.library["add"] = [](std::vector<unsigned char *> &a) {
    for (int i = 0; i < 3; ++i)
      f32(a[2])[i] = f32(a[0])[i] + f32(a[1])[i];
  };
  d.library["scale2"] = [](std::vector<unsigned char *> &a) {
    for (int i = 0; i < 3; ++i)
      f32(a[1])[i] = 2 * f32(a[0])[i];
  };
  d.library["fault"] = [](std::vector<unsigned char *> &a) {
    int32_t one = 1;
    std::memcpy(a[0], &one, 4);
  };
}

void addLaunch(Eqn &e, int64_t l, const std::string &kernel,
               const std::string &args) {
  std::string prefix = "poot.launches." + std::to_string(l) + ".";
  e.attrs[prefix + "kernel"] = Attr::ofString(kernel);
  e.attrs[prefix + "grid"] = Attr::ofInts({1, 1});
  e.attrs[prefix + "lanes"] = Attr::ofInt(32);
  e.attrs[prefix + "args"] = Attr::ofString(args);
  e.attrs["poot.launches.count"] = Attr::ofInt(l + 1);
}

/// z = 2 * ((x + w) + x): two adds and a scale, the adds' results
/// intermediates.
Plan chainPlan() {
  GraphBuilder b;
  int x = b.input("x", TT(DType::F32, {3}));
  int w = b.input("w", TT(DType::F32, {3}));
  int y = b.eqn("add", {x, w}, TT(DType::F32, {3}));
  int u = b.eqn("add", {y, x}, TT(DType::F32, {3}));
  int z = b.eqn("scale", {u}, TT(DType::F32, {3}));
  b.output("z", z);
  Plan plan;
  plan.target = "host";
  plan.graph = std::move(b.g);
  addLaunch(plan.graph.eqns[0], 0, "add", "in0,in1,out0");
  addLaunch(plan.graph.eqns[1], 0, "add", "in0,in1,out0");
  addLaunch(plan.graph.eqns[2], 0, "scale2", "in0,out0");
  // The two intermediates in the arena, the second at offset 256.
  plan.arenaBytes = 512;
  plan.arena = {ArenaSlot{y, -1, 0, 12}, ArenaSlot{u, -1, 256, 12}};
  return plan;
}

TEST(PlanRunnerTest, EqnByEqnKeepsBuffersAcrossRuns) {
  HostDevice device;
  addKernels(device);
  Plan plan = chainPlan();
  PlanRunner runner(device, plan);
  Tensor x(TT(DType::F32, {3}), {1, 2, 3});
  Tensor w(TT(DType::F32, {3}), {10, 20, 30});
  Bindings b;
  b.inputs = {{"x", &x}, {"w", &w}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  EXPECT_EQ(out.at("z").values(), (std::vector<double>{24, 48, 72}));
  EXPECT_EQ(runner.dispatchedEqns(), 3);
  EXPECT_EQ(device.recordings, 0);
  int allocations = device.allocations;
  x = Tensor(TT(DType::F32, {3}), {-1, 0, 1});
  out.clear();
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  EXPECT_EQ(out.at("z").values(), (std::vector<double>{16, 40, 64}));
  EXPECT_EQ(device.allocations, allocations);
  EXPECT_EQ(device.modulesLoaded, 1);
}

TEST(PlanRunnerTest, ResidentRunBindsArenaRangesAndReplays) {
  HostDevice device;
  addKernels(device);
  Plan plan = chainPlan();
  PlanRunner runner(device, plan);
  runner.setResident(true);
  Tensor x(TT(DType::F32, {3}), {1, 2, 3});
  Tensor w(TT(DType::F32, {3}), {10, 20, 30});
  Bindings b;
  b.inputs = {{"x", &x}, {"w", &w}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  EXPECT_EQ(out.at("z").values(), (std::vector<double>{24, 48, 72}));
  EXPECT_EQ(runner.arenaBindings(), 2);
  EXPECT_EQ(runner.capturedLaunches(), 3);
  // add(x, w) -> arena+0; add(arena+0, x) -> arena+256; scale(arena+256).
  EXPECT_EQ(device.offsets,
            (std::vector<int64_t>{0, 0, 0, 0, 0, 256, 256, 0}));
  x = Tensor(TT(DType::F32, {3}), {-1, 0, 1});
  out.clear();
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  EXPECT_EQ(out.at("z").values(), (std::vector<double>{16, 40, 64}));
  EXPECT_EQ(device.recordings, 1);
  EXPECT_EQ(runner.dispatchedEqns(), 6);
}

TEST(PlanRunnerTest, SetErrorWordFailsTheRunAndPublishesNothing) {
  HostDevice device;
  addKernels(device);
  Plan plan = chainPlan();
  addLaunch(plan.graph.eqns[1], 1, "fault", "err");
  for (bool whole : {false, true}) {
    PlanRunner runner(device, plan);
    runner.setResident(whole);
    Tensor x(TT(DType::F32, {3}), {1, 2, 3});
    Bindings b;
    b.inputs = {{"x", &x}, {"w", &x}};
    std::map<std::string, Tensor> out;
    Status s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
    EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange) << s.toString();
    EXPECT_NE(s.message().find("chain.mlir:2:5"), std::string::npos)
        << s.toString();
    EXPECT_TRUE(out.empty()) << (whole ? "resident" : "eqn by eqn");
  }
}

TEST(PlanRunnerTest, AttentionPositionsNarrowedOrRefusedBeforeAnyLaunch) {
  HostDevice device;
  // The "attention" copies pos (as the kernel reads it: one i32) into
  // out[0].
  device.library["attn"] = [](std::vector<unsigned char *> &a) {
    int32_t pos;
    std::memcpy(&pos, a[3], 4);
    f32(a[4])[0] = static_cast<float>(pos);
  };
  GraphBuilder gb;
  int q = gb.input("q", TT(DType::F32, {1, 1, 1, 2}));
  int pos = gb.input("pos", TT(DType::I64, {}));
  int o = gb.eqn("attention", {q, q, q, pos}, TT(DType::F32, {1, 1, 1, 2}),
                 {{"operandSegmentSizes",
                   Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1})}});
  gb.output("o", o);
  Plan plan;
  plan.graph = std::move(gb.g);
  addLaunch(plan.graph.eqns[0], 0, "attn", "q,k,v,pos,out");
  for (bool whole : {false, true}) {
    PlanRunner runner(device, plan);
    runner.setResident(whole);
    Tensor qt(TT(DType::F32, {1, 1, 1, 2}), {0.5, -0.5});
    Tensor p(TT(DType::I64, {}), {7});
    Bindings b;
    b.inputs = {{"q", &qt}, {"pos", &p}};
    std::map<std::string, Tensor> out;
    Status s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(out.at("o").at(0), 7.0);
    size_t launched = device.launched.size();
    p = Tensor(TT(DType::I64, {}), {double(int64_t(1) << 40)});
    out.clear();
    s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
    EXPECT_EQ(s.code(), ErrorCode::RangeViolation) << s.toString();
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(device.launched.size(), launched);
  }
}

TEST(PlanRunnerTest, DeviceOnlyRefusesAnEqnWithoutKernels) {
  HostDevice device;
  addKernels(device);
  Plan plan = chainPlan();
  plan.graph.eqns[2].attrs.clear(); // the scale has no kernels
  Tensor x(TT(DType::F32, {3}), {1, 2, 3});
  Bindings b;
  b.inputs = {{"x", &x}, {"w", &x}};
  std::map<std::string, Tensor> out;
  PlanRunner strict(device, plan);
  strict.setDeviceOnly(true);
  Status s = evaluate(plan.graph, b, NumericMode::Native, out, &strict);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_EQ(s.message(), "chain.mlir:3:5: poot.scale has no device kernels "
                         "and the run is device-only");
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(strict.hostEqns(), 0);
}

} // namespace
