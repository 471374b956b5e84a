//===- HeldStateTest.cpp - K/V pools kept on the device, on real kernels ---===//
//
// The example paged decode graph, compiled for vulkan, run with its pools
// held in device buffers (PlanRunner::holdState, and poot_state_* through
// the C API) for several steps: every output and every pool, read back at
// the end, must match the oracle run of the same steps on host state, and
// block copies inside a held pool must move exactly the blocks named.
// Skips where there is no Vulkan device.
//
//===----------------------------------------------------------------------===//

#include "poot/Compiler.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanRunner.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Serving.h"
#include "poot/Runtime/Steps.h"
#include "poot/Runtime/VulkanDevice.h"
#include "poot/poot.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace poot;
using namespace poot::rt;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kPagedDecode =
    std::string(POOT_SOURCE_DIR) + "/examples/llama3-8b.decode.paged.mlir";
constexpr int kSteps = 3;

/// The largest |a - b| over two tensors' values (f32 tolerance follows).
double maxDifference(const std::vector<double> &a, const std::vector<double> &b) {
  double most = a.size() == b.size() ? 0.0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    most = std::max(most, std::fabs(a[i] - b[i]));
  return most;
}

class HeldState : public ::testing::Test {
protected:
  void SetUp() override {
    Status s = VulkanDevice::create(device);
    if (!s.isOk())
      GTEST_SKIP() << s.toString();
    text = readFile(kPagedDecode);
    ASSERT_FALSE(text.empty()) << kPagedDecode;
    CompileOptions options;
    options.target = "vulkan";
    auto compiled = compileGraph(text, options);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    plan = *compiled;
    // Random inputs whose positions leave room for every step; the pools
    // start as random values too, so a pool that never came back to the
    // device (or came back stale) shows.
    for (const GraphInput &in : plan.graph.inputs)
      ASSERT_TRUE(
          randomInput(plan.graph, in, 17, kSteps, inputs[in.name]).isOk());
    for (const GraphInput &in : plan.graph.inputs)
      if (!in.state.empty()) {
        state[in.name] = inputs[in.name];
        inputs.erase(in.name);
      }
  }

  /// The oracle's outputs of each step and its pools after the last.
  void oracle(std::vector<TensorMap> &outputs, TensorMap &pools) {
    TensorMap in = inputs;
    pools = state;
    for (int step = 0; step < kSteps; ++step) {
      Bindings b = bindStep(plan.graph, in, pools);
      outputs.emplace_back();
      ASSERT_TRUE(
          evaluate(plan.graph, b, NumericMode::Native, outputs.back()).isOk());
      advanceStep(plan.graph, in);
    }
  }

  std::unique_ptr<VulkanDevice> device;
  std::string text;
  Plan plan;
  TensorMap inputs, state;
};

TEST_F(HeldState, PoolsStayOnTheDeviceAndMatchTheOracle) {
  std::vector<TensorMap> expected;
  TensorMap expectedPools;
  oracle(expected, expectedPools);

  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  std::map<std::string, std::unique_ptr<GpuBuffer>> pools;
  for (const auto &[name, t] : state) {
    std::vector<float> values(t.values().begin(), t.values().end());
    ASSERT_TRUE(device->allocate(storageBytes(t.type()), pools[name]).isOk());
    ASSERT_TRUE(pools[name]->upload(values.data(), pools[name]->size()).isOk());
    ASSERT_TRUE(runner.holdState(name, pools[name].get()).isOk());
    EXPECT_TRUE(runner.holdsState(name));
  }
  TensorMap in = inputs;
  for (int step = 0; step < kSteps; ++step) {
    // No state bound at all: the runner holds every pool.
    Bindings b;
    for (auto &[name, t] : in)
      b.inputs[name] = &t;
    TensorMap outputs;
    Status s = evaluate(plan.graph, b, NumericMode::Native, outputs, &runner);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(outputs.count("l0.k_pool"), 0u); // held state is not published
    ASSERT_TRUE(outputs.count("y"));
    EXPECT_LE(maxDifference(outputs.at("y").values(),
                            expected[step].at("y").values()),
              1e-4)
        << "step " << step;
    advanceStep(plan.graph, in);
  }
  for (const auto &[name, t] : expectedPools) {
    // The steps wrote the pool: an unchanged buffer cannot pass.
    ASSERT_GT(maxDifference(t.values(), state.at(name).values()), 1e-3) << name;
    std::vector<float> got(t.size());
    ASSERT_TRUE(pools.at(name)->download(got.data(), pools.at(name)->size())
                    .isOk());
    EXPECT_LE(maxDifference(std::vector<double>(got.begin(), got.end()),
                            t.values()),
              1e-4)
        << name;
  }
}

TEST_F(HeldState, EqnByEqnIsRefusedAndReleasingReturnsToTheHost) {
  PlanRunner runner(*device, plan);
  std::unique_ptr<GpuBuffer> pool;
  const std::string name = state.begin()->first;
  ASSERT_TRUE(
      device->allocate(storageBytes(state.at(name).type()), pool).isOk());
  std::vector<unsigned char> marker(size_t(pool->size()), 0x5a);
  ASSERT_TRUE(pool->upload(marker.data(), pool->size()).isOk());
  ASSERT_TRUE(runner.holdState(name, pool.get()).isOk());
  runner.setResident(false);
  TensorMap in = inputs, host = state, outputs;
  Bindings b = bindStep(plan.graph, in, host);
  Status s = evaluate(plan.graph, b, NumericMode::Native, outputs, &runner);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("is held on the device"), std::string::npos)
      << s.message();
  EXPECT_EQ(runner.dispatchedEqns(), 0);
  std::vector<unsigned char> after(marker.size());
  ASSERT_TRUE(pool->download(after.data(), pool->size()).isOk());
  EXPECT_EQ(after, marker);
  EXPECT_EQ(host.at(name).values(), state.at(name).values());
  // Released, the host bindings serve again, eqn by eqn.
  ASSERT_TRUE(runner.holdState(name, nullptr).isOk());
  EXPECT_FALSE(runner.holdsState(name));
  s = evaluate(plan.graph, b, NumericMode::Native, outputs, &runner);
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_NE(host.at(name).values(), state.at(name).values());
  // A buffer of another size, or a name that is no state, is refused.
  std::unique_ptr<GpuBuffer> small;
  ASSERT_TRUE(device->allocate(64, small).isOk());
  EXPECT_EQ(runner.holdState(name, small.get()).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(runner.holdState("x", pool.get()).code(), ErrorCode::UnknownName);
}

TEST_F(HeldState, BlockCopiesMoveInsideAHeldPool) {
  const std::string name = state.begin()->first;
  const TensorType &type = state.at(name).type();
  int64_t slots = type.shape[0];
  std::unique_ptr<GpuBuffer> pool;
  ASSERT_TRUE(device->allocate(storageBytes(type), pool).isOk());
  size_t floats = size_t(pool->size() / 4), perSlot = floats / size_t(slots);
  std::vector<float> values(floats);
  for (size_t i = 0; i < floats; ++i)
    values[i] = float(i);
  ASSERT_TRUE(pool->upload(values.data(), pool->size()).isOk());
  // Block 1's first 5 slots into block 3 (blocks of 16 slots).
  ASSERT_TRUE(
      serve::applyBlockCopies({{1, 3, 5}}, 16, slots, *device, *pool).isOk());
  std::vector<float> got(floats);
  ASSERT_TRUE(pool->download(got.data(), pool->size()).isOk());
  for (size_t i = 0; i < floats; ++i) {
    size_t slot = i / perSlot;
    float want = values[i];
    if (slot >= 48 && slot < 53)
      want = values[i - 32 * perSlot];
    ASSERT_EQ(got[i], want) << "float " << i << " (slot " << slot << ")";
  }
  // A copy past the pool moves nothing.
  EXPECT_EQ(serve::applyBlockCopies({{0, 2, 4}, {1, 99, 4}}, 16, slots,
                                    *device, *pool)
                .code(),
            ErrorCode::InvalidArgument);
  std::vector<float> again(floats);
  ASSERT_TRUE(pool->download(again.data(), pool->size()).isOk());
  EXPECT_EQ(again, got);
}

TEST_F(HeldState, TheCApiKeepsPoolsOnTheDevice) {
  std::vector<TensorMap> expected;
  TensorMap expectedPools;
  oracle(expected, expectedPools);
  poot_plan *cplan = nullptr;
  ASSERT_EQ(poot_compile(text.data(), text.size(), "vulkan", 0, &cplan),
            POOT_OK)
      << poot_last_error();
  poot_session *session = nullptr;
  ASSERT_EQ(poot_session_create(cplan, "vulkan", &session), POOT_OK)
      << poot_last_error();
  // Each pool starts as the caller's bound buffer.
  std::map<std::string, std::vector<float>> host;
  for (const auto &[name, t] : state) {
    host[name].assign(t.values().begin(), t.values().end());
    ASSERT_EQ(poot_bind_state(session, name.c_str(), host[name].data(),
                              host[name].size() * 4),
              POOT_OK);
    ASSERT_EQ(poot_state_keep_on_device(session, name.c_str()), POOT_OK)
        << poot_last_error();
  }
  TensorMap in = inputs;
  for (int step = 0; step < kSteps; ++step) {
    for (const auto &[name, t] : in) {
      std::vector<unsigned char> bytes(size_t(storageBytes(t.type())));
      if (t.dtype() == DType::I32)
        for (int64_t i = 0; i < t.size(); ++i) {
          int32_t v = int32_t(t.at(i));
          std::memcpy(bytes.data() + 4 * i, &v, 4);
        }
      else
        for (int64_t i = 0; i < t.size(); ++i) {
          float v = float(t.at(i));
          std::memcpy(bytes.data() + 4 * i, &v, 4);
        }
      ASSERT_EQ(poot_bind_input(session, name.c_str(), bytes.data(),
                                bytes.size()),
                POOT_OK)
          << name << ": " << poot_last_error();
    }
    ASSERT_EQ(poot_run(session), POOT_OK) << poot_last_error();
    const Tensor &want = expected[step].at("y");
    std::vector<float> y(size_t(want.size()));
    ASSERT_EQ(poot_read_output(session, "y", y.data(), y.size() * 4), POOT_OK);
    EXPECT_LE(maxDifference(std::vector<double>(y.begin(), y.end()),
                            want.values()),
              1e-4);
    advanceStep(plan.graph, in);
  }
  for (const auto &[name, t] : expectedPools) {
    // The bound host buffer was left alone; the device has the pool.
    EXPECT_EQ(std::vector<double>(host[name].begin(), host[name].end()),
              state.at(name).values());
    std::vector<float> got(host[name].size());
    ASSERT_EQ(poot_state_read(session, name.c_str(), got.data(),
                              got.size() * 4),
              POOT_OK);
    EXPECT_LE(maxDifference(std::vector<double>(got.begin(), got.end()),
                            t.values()),
              1e-4)
        << name;
  }
  // Copies inside a kept pool, and the refusals.
  const std::string name = state.begin()->first;
  int64_t slots = state.at(name).type().shape[0];
  std::vector<float> before(host[name].size()), after(before.size());
  ASSERT_EQ(poot_state_read(session, name.c_str(), before.data(),
                            before.size() * 4),
            POOT_OK);
  poot_kv_copy copy = {0, 2, 16};
  ASSERT_EQ(poot_state_copy_blocks(session, name.c_str(), &copy, 1, 16, slots),
            POOT_OK)
      << poot_last_error();
  ASSERT_EQ(poot_state_read(session, name.c_str(), after.data(),
                            after.size() * 4),
            POOT_OK);
  size_t perBlock = before.size() / size_t(slots) * 16;
  for (size_t i = 0; i < perBlock; ++i)
    ASSERT_EQ(after[2 * perBlock + i], before[i]);
  poot_kv_copy bad = {0, 100, 4};
  EXPECT_EQ(poot_state_copy_blocks(session, name.c_str(), &bad, 1, 16, slots),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_state_read(session, "x", after.data(), after.size() * 4),
            POOT_ERR_UNKNOWN_NAME);
  EXPECT_EQ(poot_state_read(session, name.c_str(), after.data(), 8),
            POOT_ERR_SHAPE_MISMATCH);
  poot_session_free(session);

  // The cpu keeps state in the caller's buffers only.
  poot_plan *cpuPlan = nullptr;
  ASSERT_EQ(poot_compile(text.data(), text.size(), "cpu", 0, &cpuPlan), POOT_OK);
  ASSERT_EQ(poot_session_create(cpuPlan, "cpu", &session), POOT_OK);
  EXPECT_EQ(poot_state_keep_on_device(session, name.c_str()),
            POOT_ERR_UNSUPPORTED);
  poot_session_free(session);
  poot_plan_free(cpuPlan);
  poot_plan_free(cplan);
}

} // namespace
