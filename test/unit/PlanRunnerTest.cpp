//===- PlanRunnerTest.cpp - The one runner over a device in host memory ---===//
//
// PlanRunner is the run path of every GPU device. Here it runs over a
// GpuDevice whose memory is host vectors and whose kernels are C++
// functions, so what the runner itself promises is checked apart from any
// driver: arguments bound by role (ranges of the plan's arena included),
// buffers kept across runs, a resident run recorded once and replayed,
// i64 positions narrowed for the attention and refused before anything
// runs when they do not fit, a set error word failing the run with nothing
// published, and device-only refusals. Then state held on the device
// (holdState): updated in place or copied back after each replay, checked
// against the evaluator run on host tensors, the refusals of what cannot
// hold it, and its release; and device-side copies (GpuDevice::copy, the
// serving engine's block copies) through the default that goes by the host.
//
//===----------------------------------------------------------------------===//

#include "HandGraph.h"

#include "poot/Runtime/PlanRunner.h"
#include "poot/Runtime/Serving.h"

#include <cstring>
#include <functional>
#include <iterator>

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

TEST(PlanRunnerTest, DeviceFillDoublesAHostBlockWithDeviceCopies) {
  HostDevice device;
  addKernels(device);
  // One eqn over an operand of 600000 f32 (2.3 MiB, not a whole number of
  // 1 MiB blocks) and one of 700000 bf16.
  GraphBuilder b;
  int x = b.input("x", TT(DType::F32, {600000}));
  int h = b.input("h", TT(DType::BF16, {700000}));
  int y = b.eqn("add", {x, h}, TT(DType::F32, {3}));
  b.output("y", y);
  Plan plan;
  plan.target = "host";
  plan.graph = std::move(b.g);
  addLaunch(plan.graph.eqns[0], 0, "add", "in0,in1,out0");
  PlanRunner runner(device, plan);
  for (bool zero : {false, true}) {
    std::vector<OperandSource> sources(2);
    sources[0].type = TT(DType::F32, {600000});
    sources[1].type = TT(DType::BF16, {700000});
    for (OperandSource &s : sources) {
      s.zero = zero;
      s.seed = 7;
    }
    PreparedEqn prepared;
    bool claimed = false;
    ASSERT_TRUE(runner.prepare(plan.graph.eqns[0], sources, {TT(DType::F32, {3})},
                               prepared, claimed)
                    .isOk());
    ASSERT_TRUE(claimed);
    const auto *f = static_cast<const HostBuffer *>(prepared.launches[0].args[0].buffer);
    const auto *g = static_cast<const HostBuffer *>(prepared.launches[0].args[1].buffer);
    ASSERT_EQ(f->size(), 600000 * 4);
    ASSERT_EQ(g->size(), 700000 * 2);
    const float *v = reinterpret_cast<const float *>(f->bytes.data());
    int nonZero = 0;
    for (int64_t i = 0; i < 600000; ++i) {
      ASSERT_GE(v[i], -1.0f);
      ASSERT_LT(v[i], 1.0f);
      nonZero += v[i] != 0.0f;
      // Every element is the block's (1 MiB: 262144 floats) at its place.
      ASSERT_EQ(v[i], v[i % 262144]) << i;
    }
    EXPECT_EQ(nonZero, zero ? 0 : 600000);
    const uint16_t *w = reinterpret_cast<const uint16_t *>(g->bytes.data());
    for (int64_t i = 0; i < 700000; ++i)
      ASSERT_EQ(w[i], w[i % 524288]) << i;
    EXPECT_EQ(w[12345] != 0, !zero);
    // The bytes the benchmark counts are the operands' whole sizes.
    EXPECT_EQ(prepared.bytesRead, 600000 * 4 + 700000 * 2);
  }
  // Integers are never filled on the device.
  std::vector<OperandSource> ints(2);
  ints[0].type = TT(DType::I32, {4});
  ints[1].type = TT(DType::F32, {4});
  PreparedEqn prepared;
  bool claimed = false;
  Status s = runner.prepare(plan.graph.eqns[0], ints, {TT(DType::F32, {3})},
                            prepared, claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("not i32"), std::string::npos) << s.toString();
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

//===----------------------------------------------------------------------===//
// State held on the device
//===----------------------------------------------------------------------===//

/// The kernels of the held-state plans: "scatter_row" writes the one row
/// of 3 floats in2 holds into the [4, 3] pool in0 at the row the i32 in1
/// names (only the new elements, as an in-place kernel does; -1 writes
/// nothing); "add12": out0 = in0 + in1 over 12 floats.
void stateKernels(HostDevice &d) {
  addKernels(d);
  d.library["scatter_row"] = [](std::vector<unsigned char *> &a) {
    int32_t row;
    std::memcpy(&row, a[1], 4);
    if (row >= 0)
      for (int j = 0; j < 3; ++j)
        f32(a[0])[row * 3 + j] = f32(a[2])[j];
  };
  d.library["add12"] = [](std::vector<unsigned char *> &a) {
    for (int i = 0; i < 12; ++i)
      f32(a[2])[i] = f32(a[0])[i] + f32(a[1])[i];
  };
}

/// A K/V-pool-like state written in place: pool' = scatter_update(pool,
/// idx, upd) (poot.in_place, so pool' lives in pool's storage), twice =
/// pool' + pool'. pool/pool' are the state pair "kv".
Plan inPlaceStatePlan() {
  GraphBuilder b;
  int pool = b.input("pool", TT(DType::F32, {4, 3}));
  b.g.inputs.back().state = "kv";
  int idx = b.input("idx", TT(DType::I32, {1}));
  int upd = b.input("upd", TT(DType::F32, {1, 3}));
  int next = b.eqn("scatter_update", {pool, idx, upd}, TT(DType::F32, {4, 3}),
                   {{"poot.in_place", Attr::ofInt(1)}});
  int twice = b.eqn("add", {next, next}, TT(DType::F32, {4, 3}));
  b.g.outputs.push_back(GraphOutput{next, "pool_out", "kv", false});
  b.output("twice", twice);
  Plan plan;
  plan.target = "host";
  plan.graph = std::move(b.g);
  addLaunch(plan.graph.eqns[0], 0, "scatter_row", "in0,in1,in2");
  addLaunch(plan.graph.eqns[1], 0, "add12", "in0,in1,out0");
  return plan;
}

/// An accumulator whose new value is not written over the old one:
/// acc' = acc + x (in the plan's arena at offset 256, so the copy back
/// into the held buffer starts inside another buffer), z = acc' + acc'.
Plan copiedStatePlan() {
  GraphBuilder b;
  int acc = b.input("acc", TT(DType::F32, {3}));
  b.g.inputs.back().state = "sum";
  int x = b.input("x", TT(DType::F32, {3}));
  int next = b.eqn("add", {acc, x}, TT(DType::F32, {3}));
  int z = b.eqn("add", {next, next}, TT(DType::F32, {3}));
  b.g.outputs.push_back(GraphOutput{next, "acc_out", "sum", false});
  b.output("z", z);
  Plan plan;
  plan.target = "host";
  plan.graph = std::move(b.g);
  addLaunch(plan.graph.eqns[0], 0, "add", "in0,in1,out0");
  addLaunch(plan.graph.eqns[1], 0, "add", "in0,in1,out0");
  plan.arenaBytes = 512;
  plan.arena = {ArenaSlot{next, -1, 256, 12}};
  return plan;
}

std::vector<float> floatsOf(const GpuBuffer &buffer) {
  std::vector<float> got(buffer.size() / 4);
  Status s = buffer.download(got.data(), buffer.size(), 0);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return got;
}

std::vector<float> floatsOf(const Tensor &t) {
  return std::vector<float>(t.values().begin(), t.values().end());
}

/// A device buffer of `device` holding `t`'s f32 values.
std::unique_ptr<GpuBuffer> heldBuffer(HostDevice &device, const Tensor &t) {
  std::unique_ptr<GpuBuffer> buffer;
  EXPECT_TRUE(device.allocate(t.size() * 4, buffer).isOk());
  std::vector<float> values = floatsOf(t);
  EXPECT_TRUE(buffer->upload(values.data(), t.size() * 4, 0).isOk());
  return buffer;
}

/// Runs `plan` once per entry of `runs` (its inputs by name) on the device
/// with state `state` held in a buffer that starts as `initial`, and the
/// evaluator alone on host tensors over the same sequence: after every run
/// the held buffer must hold what the evaluator left in its state binding,
/// and the plain outputs must agree. The held state is given no host
/// binding, or with `bindAnyway` one the run must leave untouched.
void expectHeldStateFollowsOracle(
    const Plan &plan, const std::string &state, const Tensor &initial,
    const std::vector<std::map<std::string, Tensor>> &runs, bool bindAnyway) {
  HostDevice device;
  stateKernels(device);
  PlanRunner runner(device, plan);
  runner.setResident(true);
  std::unique_ptr<GpuBuffer> pool = heldBuffer(device, initial);
  ASSERT_TRUE(runner.holdState(state, pool.get()).isOk());
  EXPECT_TRUE(runner.holdsState(state));

  Tensor oracleState = initial;
  Tensor untouched = initial;
  for (double &v : untouched.values())
    v = -7;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::string what = "run " + std::to_string(r);
    Bindings onDevice, onHost;
    for (const auto &[name, t] : runs[r]) {
      onDevice.inputs[name] = &t;
      onHost.inputs[name] = &t;
    }
    if (bindAnyway)
      onDevice.state[state] = &untouched;
    onHost.state[state] = &oracleState;
    std::map<std::string, Tensor> got, want;
    Status s =
        evaluate(plan.graph, onDevice, NumericMode::Native, got, &runner);
    ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
    s = evaluate(plan.graph, onHost, NumericMode::Native, want);
    ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
    ASSERT_EQ(got.size(), want.size()) << what;
    for (const auto &[name, t] : want) {
      ASSERT_TRUE(got.count(name)) << what << ": no output " << name;
      EXPECT_EQ(got.at(name).values(), t.values()) << what << ": " << name;
    }
    EXPECT_EQ(floatsOf(*pool), floatsOf(oracleState)) << what;
    EXPECT_EQ(untouched.values(), std::vector<double>(initial.size(), -7))
        << what;
  }
  // The runs changed the state (or the comparison above proves nothing),
  // and one recording served them all.
  EXPECT_NE(floatsOf(*pool), floatsOf(initial));
  EXPECT_EQ(device.recordings, 1);
  EXPECT_EQ(runner.hostEqns(), 0);
}

/// Four scatter steps into the [4, 3] pool, the last dropping its write.
std::vector<std::map<std::string, Tensor>> scatterRuns() {
  std::vector<std::map<std::string, Tensor>> runs;
  const double rows[] = {2, 0, 2, -1};
  for (int r = 0; r < 4; ++r) {
    std::map<std::string, Tensor> in;
    in["idx"] = Tensor(TT(DType::I32, {1}), {rows[r]});
    in["upd"] =
        Tensor(TT(DType::F32, {1, 3}),
               {10.0 * (r + 1), 10.0 * (r + 1) + 1, 10.0 * (r + 1) + 2});
    runs.push_back(std::move(in));
  }
  return runs;
}

Tensor iotaPool() {
  Tensor t(TT(DType::F32, {4, 3}));
  for (int64_t i = 0; i < t.size(); ++i)
    t.at(i) = 0.5 * static_cast<double>(i);
  return t;
}

TEST(PlanRunnerTest, HeldStateWrittenInPlacePersistsAcrossRuns) {
  // The pool is read and written in its caller's buffer; no host binding
  // exists for it at all.
  expectHeldStateFollowsOracle(inPlaceStatePlan(), "pool", iotaPool(),
                               scatterRuns(), /*bindAnyway=*/false);
}

TEST(PlanRunnerTest, HeldStateLeavesAHostBindingGivenAnywayUntouched) {
  // A host binding of held state is neither uploaded (the device state
  // would become -7s) nor written back.
  expectHeldStateFollowsOracle(inPlaceStatePlan(), "pool", iotaPool(),
                               scatterRuns(), /*bindAnyway=*/true);
}

TEST(PlanRunnerTest, HeldStateNotWrittenInPlaceIsCopiedBackAfterEachRun) {
  std::vector<std::map<std::string, Tensor>> runs;
  for (int r = 0; r < 4; ++r)
    runs.push_back(
        {{"x", Tensor(TT(DType::F32, {3}), {1.0 + r, -2.0 * r, 0.25})}});
  Tensor initial(TT(DType::F32, {3}), {100, 200, 300});
  for (bool bindAnyway : {false, true}) {
    SCOPED_TRACE(bindAnyway ? "host binding given" : "no host binding");
    expectHeldStateFollowsOracle(copiedStatePlan(), "acc", initial, runs,
                                 bindAnyway);
  }
}

TEST(PlanRunnerTest, HeldPoolTakesBlockCopiesBetweenRuns) {
  // The serving loop: run, move blocks inside the held pool on the device
  // (copy-on-write of a forked sequence), run again; the pool is the same
  // as the evaluator's after the same steps and the same copies on the
  // host.
  HostDevice device;
  stateKernels(device);
  Plan plan = inPlaceStatePlan();
  PlanRunner runner(device, plan);
  runner.setResident(true);
  Tensor initial = iotaPool();
  std::unique_ptr<GpuBuffer> pool = heldBuffer(device, initial);
  ASSERT_TRUE(runner.holdState("pool", pool.get()).isOk());
  Tensor oracle = initial;
  std::vector<std::map<std::string, Tensor>> runs = scatterRuns();
  // Four slots, blocks of two: after each run block 0's first slot goes to
  // block 1, or block 1's two slots to block 0.
  const std::vector<serve::BlockCopy> moves[] = {
      {{0, 1, 1}}, {{1, 0, 2}}, {{0, 1, 2}}, {{1, 0, 1}}};
  for (size_t r = 0; r < runs.size(); ++r) {
    std::string what = "step " + std::to_string(r);
    Bindings onDevice, onHost;
    for (const auto &[name, t] : runs[r]) {
      onDevice.inputs[name] = &t;
      onHost.inputs[name] = &t;
    }
    onHost.state["pool"] = &oracle;
    std::map<std::string, Tensor> got, want;
    ASSERT_TRUE(
        evaluate(plan.graph, onDevice, NumericMode::Native, got, &runner)
            .isOk())
        << what;
    ASSERT_TRUE(evaluate(plan.graph, onHost, NumericMode::Native, want).isOk())
        << what;
    EXPECT_EQ(got.at("twice").values(), want.at("twice").values()) << what;
    Status s = serve::applyBlockCopies(moves[r], 2, 4, device, *pool);
    ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
    std::vector<float> host = floatsOf(oracle);
    ASSERT_TRUE(
        serve::applyBlockCopies(moves[r], 2, 4, host.data(), host.size() * 4)
            .isOk());
    std::copy(host.begin(), host.end(), oracle.values().begin());
    EXPECT_EQ(floatsOf(*pool), host) << what;
  }
  EXPECT_NE(floatsOf(*pool), floatsOf(initial));
}

TEST(PlanRunnerTest, HoldStateRefusesWhatItCannotHold) {
  HostDevice device, other;
  stateKernels(device);
  Plan plan = inPlaceStatePlan();
  PlanRunner runner(device, plan);
  std::unique_ptr<GpuBuffer> right, small, foreign;
  ASSERT_TRUE(device.allocate(48, right).isOk());
  ASSERT_TRUE(device.allocate(44, small).isOk());
  ASSERT_TRUE(other.allocate(48, foreign).isOk());
  Status s = runner.holdState("cache", right.get());
  EXPECT_EQ(s.code(), ErrorCode::UnknownName) << s.toString();
  // An input that carries no state has nothing to hold from run to run.
  s = runner.holdState("upd", right.get());
  EXPECT_EQ(s.code(), ErrorCode::UnknownName) << s.toString();
  s = runner.holdState("pool", small.get());
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("48"), std::string::npos) << s.toString();
  s = runner.holdState("pool", foreign.get());
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_FALSE(runner.holdsState("pool"));
  EXPECT_FALSE(runner.holdsState("cache"));
  EXPECT_FALSE(runner.holdsState("upd"));
  // Nothing refused stayed held: a run without a host binding of the pool
  // is missing it.
  runner.setResident(true);
  Tensor idx(TT(DType::I32, {1}), {1});
  Tensor upd(TT(DType::F32, {1, 3}), {1, 2, 3});
  Bindings b;
  b.inputs = {{"idx", &idx}, {"upd", &upd}};
  std::map<std::string, Tensor> out;
  s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
  EXPECT_EQ(s.code(), ErrorCode::MissingInput) << s.toString();
  EXPECT_TRUE(device.launched.empty());
}

TEST(PlanRunnerTest, HeldStateRefusesARunThatCannotRunWhole) {
  // Eqn by eqn the kernels would read the pool from a host copy that is
  // not there: such a run is refused before anything is launched, and
  // neither the held buffer nor a host binding given anyway changes.
  Tensor idx(TT(DType::I32, {1}), {1});
  Tensor upd(TT(DType::F32, {1, 3}), {1, 2, 3});
  Tensor hostPool = iotaPool();
  Bindings b;
  b.inputs = {{"idx", &idx}, {"upd", &upd}};
  b.state = {{"pool", &hostPool}};
  for (bool residentOff : {true, false}) {
    SCOPED_TRACE(residentOff ? "resident runs off" : "an eqn without kernels");
    HostDevice device;
    stateKernels(device);
    Plan plan = inPlaceStatePlan();
    if (!residentOff)
      plan.graph.eqns[1].attrs.clear(); // the add would run on the host
    PlanRunner runner(device, plan);
    runner.setResident(!residentOff);
    std::unique_ptr<GpuBuffer> pool = heldBuffer(device, iotaPool());
    std::vector<float> before = floatsOf(*pool);
    ASSERT_TRUE(runner.holdState("pool", pool.get()).isOk());
    std::map<std::string, Tensor> out;
    Status s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
    EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_NE(s.message().find("'pool' is held on the device"),
              std::string::npos)
        << s.toString();
    if (!residentOff)
      EXPECT_NE(s.message().find("chain.mlir:2:5"), std::string::npos)
          << s.toString();
    EXPECT_TRUE(out.empty());
    EXPECT_TRUE(device.launched.empty());
    EXPECT_EQ(runner.dispatchedEqns(), 0);
    EXPECT_EQ(runner.hostEqns(), 0);
    EXPECT_EQ(floatsOf(*pool), before);
    EXPECT_EQ(hostPool.values(), iotaPool().values());
  }
}

TEST(PlanRunnerTest, ReleasedStateGoesBackToTheHostBindings) {
  HostDevice device;
  stateKernels(device);
  Plan plan = inPlaceStatePlan();
  PlanRunner runner(device, plan);
  runner.setResident(true);
  std::unique_ptr<GpuBuffer> pool = heldBuffer(device, iotaPool());
  ASSERT_TRUE(runner.holdState("pool", pool.get()).isOk());
  Tensor idx(TT(DType::I32, {1}), {3});
  Tensor upd(TT(DType::F32, {1, 3}), {7, 8, 9});
  Bindings b;
  b.inputs = {{"idx", &idx}, {"upd", &upd}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(
      evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  std::vector<float> held = floatsOf(*pool);
  EXPECT_EQ(std::vector<float>(held.begin() + 9, held.end()),
            (std::vector<float>{7, 8, 9}));

  ASSERT_TRUE(runner.holdState("pool", nullptr).isOk());
  EXPECT_FALSE(runner.holdsState("pool"));
  // Released, the pool must be bound again...
  out.clear();
  Status s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
  EXPECT_EQ(s.code(), ErrorCode::MissingInput) << s.toString();
  // ...and a run reads and updates the host binding, whole on the device
  // or eqn by eqn, never the buffer it was released from.
  for (bool whole : {true, false}) {
    SCOPED_TRACE(whole ? "resident" : "eqn by eqn");
    runner.setResident(whole);
    Tensor hostPool(TT(DType::F32, {4, 3}));
    for (double &v : hostPool.values())
      v = -1;
    Tensor want = hostPool;
    b.state = {{"pool", &hostPool}};
    Bindings oracle = b;
    oracle.state = {{"pool", &want}};
    std::map<std::string, Tensor> expected;
    out.clear();
    s = evaluate(plan.graph, b, NumericMode::Native, out, &runner);
    ASSERT_TRUE(s.isOk()) << s.toString();
    ASSERT_TRUE(
        evaluate(plan.graph, oracle, NumericMode::Native, expected).isOk());
    EXPECT_EQ(hostPool.values(), want.values());
    EXPECT_EQ(hostPool.at(9), 7);
    EXPECT_EQ(hostPool.at(0), -1);
    EXPECT_EQ(out.at("twice").values(), expected.at("twice").values());
    EXPECT_EQ(floatsOf(*pool), held);
  }
}

//===----------------------------------------------------------------------===//
// Copies on the device
//===----------------------------------------------------------------------===//

/// A buffer of `device` holding `n` bytes first, first + 1, ...
std::unique_ptr<GpuBuffer> countingBuffer(GpuDevice &device, int n,
                                          unsigned char first) {
  std::unique_ptr<GpuBuffer> buffer;
  EXPECT_TRUE(device.allocate(n, buffer).isOk());
  std::vector<unsigned char> bytes(n);
  for (int i = 0; i < n; ++i)
    bytes[i] = static_cast<unsigned char>(first + i);
  EXPECT_TRUE(buffer->upload(bytes.data(), n, 0).isOk());
  return buffer;
}

std::vector<unsigned char> bytesOf(const GpuBuffer &buffer) {
  std::vector<unsigned char> bytes(buffer.size());
  EXPECT_TRUE(buffer.download(bytes.data(), buffer.size(), 0).isOk());
  return bytes;
}

TEST(PlanRunnerTest, DefaultCopyRunsInOrderThroughTheHost) {
  HostDevice device; // copy() is GpuDevice's own
  auto a = countingBuffer(device, 16, 0);
  auto b = countingBuffer(device, 16, 100);
  // The second copy reads what the first wrote; the third stays inside
  // one buffer on ranges that do not meet; an empty copy is no copy.
  Status s = device.copy({{a.get(), 0, b.get(), 4, 4},
                          {b.get(), 4, a.get(), 12, 4},
                          {a.get(), 0, a.get(), 8, 2},
                          {a.get(), 0, b.get(), 0, 0}});
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(bytesOf(*a), (std::vector<unsigned char>{0, 1, 2, 3, 4, 5, 6, 7, 0,
                                                     1, 10, 11, 0, 1, 2, 3}));
  EXPECT_EQ(bytesOf(*b),
            (std::vector<unsigned char>{100, 101, 102, 103, 0, 1, 2, 3, 108,
                                        109, 110, 111, 112, 113, 114, 115}));
}

TEST(PlanRunnerTest, DefaultCopyRefusesABadListWhole) {
  HostDevice device, other;
  auto a = countingBuffer(device, 16, 0);
  auto b = countingBuffer(device, 16, 100);
  auto foreign = countingBuffer(other, 16, 200);
  std::vector<unsigned char> aBefore = bytesOf(*a), bBefore = bytesOf(*b);
  // Each list starts with a good copy, which must not be made either.
  const GpuCopy good{a.get(), 0, b.get(), 0, 4};
  const std::vector<GpuCopy> bad[] = {
      {good, {a.get(), 12, b.get(), 0, 8}},      // past the source's end
      {good, {a.get(), 0, b.get(), 10, 8}},      // past the destination's
      {good, {a.get(), -1, b.get(), 0, 4}},      // a negative offset
      {good, {a.get(), 0, b.get(), 0, -4}},      // negative bytes
      {good, {a.get(), 0, a.get(), 2, 4}},       // overlapping in one buffer
      {good, {foreign.get(), 0, b.get(), 0, 4}}, // another device's source
      {good, {a.get(), 0, foreign.get(), 0, 4}}, // another device's dest
      {good, {nullptr, 0, b.get(), 0, 4}},       // no buffer
  };
  int uploads = HostBuffer::uploads;
  for (size_t i = 0; i < std::size(bad); ++i) {
    Status s = device.copy(bad[i]);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument)
        << "list " << i << ": " << s.toString();
    EXPECT_NE(s.message().find("copy 1"), std::string::npos)
        << "list " << i << ": " << s.toString();
  }
  EXPECT_EQ(HostBuffer::uploads, uploads);
  EXPECT_EQ(bytesOf(*a), aBefore);
  EXPECT_EQ(bytesOf(*b), bBefore);
  EXPECT_EQ(bytesOf(*foreign)[0], 200);
}

TEST(PlanRunnerTest, BlockCopiesMoveInsideADevicePool) {
  HostDevice device, other;
  // Eight slots of three floats, blocks of two slots.
  std::vector<float> start(24);
  for (int i = 0; i < 24; ++i)
    start[i] = static_cast<float>(i);
  auto poolOf = [&](HostDevice &d) {
    std::unique_ptr<GpuBuffer> pool;
    EXPECT_TRUE(d.allocate(96, pool).isOk());
    EXPECT_TRUE(pool->upload(start.data(), 96, 0).isOk());
    return pool;
  };
  auto pool = poolOf(device);
  // Block 1's first slot (2) to block 3 (slot 6), then block 3's two slots
  // (6, as just written, and 7) to block 0.
  Status s =
      serve::applyBlockCopies({{1, 3, 1}, {3, 0, 2}}, 2, 8, device, *pool);
  ASSERT_TRUE(s.isOk()) << s.toString();
  std::vector<float> want = start;
  for (int j = 0; j < 3; ++j) {
    want[18 + j] = start[6 + j]; // slot 6 <- slot 2
    want[0 + j] = start[6 + j];  // slot 0 <- slot 6 (the new one)
    want[3 + j] = start[21 + j]; // slot 1 <- slot 7 (left as it was)
  }
  EXPECT_EQ(floatsOf(*pool), want);

  // Refused lists move nothing, the good copy in front of each included.
  std::vector<float> kept = floatsOf(*pool);
  const std::vector<serve::BlockCopy> bad[] = {
      {{2, 1, 1}, {1, 4, 1}},  // block 4 of four
      {{2, 1, 1}, {-1, 0, 1}}, // no block -1
      {{2, 1, 1}, {1, 1, 1}},  // a block onto itself
      {{2, 1, 1}, {0, 1, 3}},  // more tokens than a block holds
      {{2, 1, 1}, {0, 1, -1}}, // negative tokens
  };
  for (size_t i = 0; i < std::size(bad); ++i) {
    s = serve::applyBlockCopies(bad[i], 2, 8, device, *pool);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument)
        << "list " << i << ": " << s.toString();
  }
  // A pool that is not the slots it is said to hold.
  s = serve::applyBlockCopies({{2, 1, 1}}, 2, 7, device, *pool);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  // Another device's pool: the device refuses the copy.
  auto foreign = poolOf(other);
  s = serve::applyBlockCopies({{2, 1, 1}}, 2, 8, device, *foreign);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_EQ(floatsOf(*pool), kept);
  EXPECT_EQ(floatsOf(*foreign), start);
}

TEST(PlanRunnerTest, HeldStateMustBeStateOfTheGraphRun) {
  // The runner holds state by the plan's input names; a graph run over it
  // (a copy of the plan's, say) where that input carries no state has no
  // state to keep on the device: its host binding is what the run reads,
  // and the held buffer is no output's to be written.
  HostDevice device;
  stateKernels(device);
  Plan plan = copiedStatePlan();
  PlanRunner runner(device, plan);
  runner.setResident(true);
  Tensor initial(TT(DType::F32, {3}), {100, 200, 300});
  std::unique_ptr<GpuBuffer> held = heldBuffer(device, initial);
  ASSERT_TRUE(runner.holdState("acc", held.get()).isOk());
  Graph stateless = plan.graph;
  stateless.inputs[0].state.clear();
  stateless.outputs[0].state.clear();
  Tensor acc(TT(DType::F32, {3}), {1, 2, 3});
  Tensor x(TT(DType::F32, {3}), {10, 20, 30});
  Bindings b;
  b.inputs = {{"acc", &acc}, {"x", &x}};
  std::map<std::string, Tensor> out;
  Status s = evaluate(stateless, b, NumericMode::Native, out, &runner);
  EXPECT_EQ(s.code(), ErrorCode::UnknownName) << s.toString();
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(device.launched.empty());
  EXPECT_EQ(floatsOf(*held), floatsOf(initial));
}

} // namespace
