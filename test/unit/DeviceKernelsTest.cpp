//===- DeviceKernelsTest.cpp - The simple kernels on the Vulkan device ----===//
//
// Graphs compiled for vulkan with every eqn kernelled, run through the
// PlanRunner: the run contract around the kernels (typed errors from the
// error word, nothing published on failure, device-only refusals) and the
// exact agreement with the oracle where the semantics leave no rounding
// (selection order, integer arithmetic, booleans). Skips where there is no
// Vulkan device.
//
//===----------------------------------------------------------------------===//

#include "poot/Compiler.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanRunner.h"
#include "poot/Runtime/VulkanDevice.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace poot;
using namespace poot::rt;

namespace {

class DeviceKernels : public ::testing::Test {
protected:
  void SetUp() override {
    Status s = VulkanDevice::create(device);
    if (!s.isOk())
      GTEST_SKIP() << s.toString();
  }

  /// Compiles `text` for vulkan as written (no fusion).
  Plan compile(const char *text, PlanOverrides overrides = {}) {
    CompileOptions options;
    options.target = "vulkan";
    options.fuse = false;
    options.overrides = overrides;
    auto plan = compileGraph(text, options);
    if (!plan) {
      ADD_FAILURE() << llvm::toString(plan.takeError());
      return Plan();
    }
    return *plan;
  }

  std::unique_ptr<VulkanDevice> device;
};

const char *const kGather = R"mlir(
func.func @g(%x: tensor<4x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  %0 = poot.gather %x[%i] {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi32>
  return %0 : tensor<2x3xf32>
}
)mlir";

TEST_F(DeviceKernels, GatherIndexOutsideTheAxisIsTypedAndPublishesNothing) {
  Plan plan = compile(kGather);
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  Tensor x({DType::F32, {4, 3}}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor good({DType::I32, {2}}, {3, 1});
  Bindings b;
  b.inputs = {{"arg0", &x}, {"arg1", &good}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  EXPECT_EQ(out.at("out0").values(),
            (std::vector<double>{9, 10, 11, 3, 4, 5}));

  Tensor bad({DType::I32, {2}}, {1, 4});
  b.inputs["arg1"] = &bad;
  std::map<std::string, Tensor> none;
  Status s = evaluate(plan.graph, b, NumericMode::Native, none, &runner);
  EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange) << s.toString();
  EXPECT_TRUE(none.empty());
}

TEST_F(DeviceKernels, ScatterNamingASlotTwiceIsRefused) {
  Plan plan = compile(R"mlir(
func.func @s(%x: tensor<4x2xf32>, %i: tensor<2xi32>, %u: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %0 = poot.scatter_update %x[%i], %u : tensor<4x2xf32>, tensor<2xi32>, tensor<2x2xf32>
  return %0 : tensor<4x2xf32>
}
)mlir");
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  Tensor x({DType::F32, {4, 2}}, {0, 0, 0, 0, 0, 0, 0, 0});
  Tensor u({DType::F32, {2, 2}}, {1, 2, 3, 4});
  Tensor idx({DType::I32, {2}}, {-1, 2});
  Bindings b;
  b.inputs = {{"arg0", &x}, {"arg1", &idx}, {"arg2", &u}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &runner).isOk());
  // -1 writes nothing; entry 1 replaces row 2.
  EXPECT_EQ(out.at("out0").values(),
            (std::vector<double>{0, 0, 0, 0, 3, 4, 0, 0}));

  Tensor twice({DType::I32, {2}}, {2, 2});
  b.inputs["arg1"] = &twice;
  std::map<std::string, Tensor> none;
  Status s = evaluate(plan.graph, b, NumericMode::Native, none, &runner);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_TRUE(none.empty());
}

TEST_F(DeviceKernels, CacheWritesInPlaceMatchTheOracle) {
  // %cache and %pool are inputs used once: their writes update them in
  // place. %shared is also returned as it was, so its write copies.
  Plan plan = compile(R"mlir(
func.func @c(%cache: tensor<2x5x3xf32>, %row: tensor<2x1x3xf32>, %p: tensor<i32>,
             %pool: tensor<6x2xf32>, %slots: tensor<3xi32>, %rows: tensor<3x2xf32>,
             %shared: tensor<4x2xf32>, %si: tensor<1xi32>, %su: tensor<1x2xf32>)
    -> (tensor<2x5x3xf32>, tensor<6x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %z = poot.constant dense<0> : tensor<i32>
  %0 = poot.dynamic_update_slice %cache[%z, %p, %z], %row : tensor<2x5x3xf32>, tensor<2x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>
  %1 = poot.scatter_update %pool[%slots], %rows : tensor<6x2xf32>, tensor<3xi32>, tensor<3x2xf32>
  %2 = poot.scatter_update %shared[%si], %su : tensor<4x2xf32>, tensor<1xi32>, tensor<1x2xf32>
  return %0, %1, %2, %shared : tensor<2x5x3xf32>, tensor<6x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
)mlir");
  std::vector<std::string> inPlace;
  for (const Eqn &eqn : plan.graph.eqns)
    if (eqn.attr("poot.in_place"))
      inPlace.push_back(eqn.op);
  EXPECT_EQ(inPlace, (std::vector<std::string>{"dynamic_update_slice",
                                               "scatter_update"}));

  auto ramp = [](TensorType type, double start) {
    std::vector<double> v(numElements(type.shape));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = start + 0.5 * static_cast<double>(i);
    return Tensor(type, v);
  };
  Tensor cache = ramp({DType::F32, {2, 5, 3}}, 1);
  Tensor row = ramp({DType::F32, {2, 1, 3}}, -40);
  Tensor pool = ramp({DType::F32, {6, 2}}, 100);
  Tensor rows = ramp({DType::F32, {3, 2}}, -7);
  Tensor shared = ramp({DType::F32, {4, 2}}, 60);
  Tensor si({DType::I32, {1}}, {3});
  Tensor su({DType::F32, {1, 2}}, {-1, -2});
  PlanRunner resident(*device, plan);
  resident.setDeviceOnly(true);
  PlanRunner stepwise(*device, plan);
  stepwise.setDeviceOnly(true);
  stepwise.setResident(false);
  // Two runs each: a start past the end (clamped to the last row) with a
  // -1 slot, then an inside start; the second run must not see the first's
  // writes (the inputs are set again).
  struct Step { double p; std::vector<double> slots; };
  for (const Step &step : {Step{7, {5, -1, 0}}, Step{2, {1, 4, -1}}}) {
    Tensor p({DType::I32, {}}, {step.p});
    Tensor slots({DType::I32, {3}}, step.slots);
    Bindings b;
    b.inputs = {{"arg0", &cache}, {"arg1", &row},   {"arg2", &p},
                {"arg3", &pool},  {"arg4", &slots}, {"arg5", &rows},
                {"arg6", &shared}, {"arg7", &si},   {"arg8", &su}};
    std::map<std::string, Tensor> oracle, whole, perEqn;
    ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, oracle).isOk());
    ASSERT_TRUE(
        evaluate(plan.graph, b, NumericMode::Native, whole, &resident).isOk());
    ASSERT_TRUE(
        evaluate(plan.graph, b, NumericMode::Native, perEqn, &stepwise).isOk());
    for (const auto &[name, t] : oracle) {
      EXPECT_EQ(whole.at(name).values(), t.values()) << name << " p=" << step.p;
      EXPECT_EQ(perEqn.at(name).values(), t.values()) << name << " p=" << step.p;
    }
  }
  EXPECT_GT(resident.dispatchedEqns(), 0);
}

TEST_F(DeviceKernels, CombineInTheLastWorkgroupMatchesTheReference) {
  // A split decode whose last workgroup of each row folds the row (asked
  // for: the generic Vulkan device keeps the combine kernel by default).
  // One launch; eqn by eqn and resident, each run twice, so the second run
  // finds the ticket counters the first left at zero.
  PlanOverrides fused;
  fused.fusedCombine = true;
  Plan plan = compile(R"mlir(
func.func @a(%q: tensor<2x2x1x32xf32>, %k: tensor<2x2x1024x32xf32>, %v: tensor<2x2x1024x32xf32>) -> tensor<2x2x1x32xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.1767766952966369 : f64, n_rep = 1 : i64} : tensor<2x2x1x32xf32>, tensor<2x2x1024x32xf32>, tensor<2x2x1024x32xf32> -> tensor<2x2x1x32xf32>
  return %o : tensor<2x2x1x32xf32>
}
)mlir",
                      fused);
  ASSERT_EQ(plan.graph.eqns.size(), 1u);
  const Eqn &eqn = plan.graph.eqns[0];
  ASSERT_NE(eqn.attr("poot.launches.count"), nullptr);
  EXPECT_EQ(eqn.attr("poot.launches.count")->i, 1);
  ASSERT_NE(eqn.attr("poot.schedule.counter_bytes"), nullptr);
  EXPECT_EQ(eqn.attr("poot.schedule.counter_bytes")->i, 4 * 4);
  EXPECT_EQ(eqn.attr("poot.schedule.splits")->i, 8);

  auto wave = [](TensorType type, double phase) {
    std::vector<double> v(numElements(type.shape));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = std::sin(0.37 * static_cast<double>(i) + phase);
    return Tensor(type, v);
  };
  Tensor q = wave({DType::F32, {2, 2, 1, 32}}, 0.1);
  Tensor k = wave({DType::F32, {2, 2, 1024, 32}}, 0.7);
  Tensor v = wave({DType::F32, {2, 2, 1024, 32}}, 1.3);
  Bindings b;
  b.inputs = {{"arg0", &q}, {"arg1", &k}, {"arg2", &v}};
  std::map<std::string, Tensor> reference;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, reference).isOk());
  const std::vector<double> &want = reference.at("out0").values();
  for (bool whole : {false, true}) {
    PlanRunner runner(*device, plan);
    runner.setDeviceOnly(true);
    runner.setResident(whole);
    for (int run = 0; run < 2; ++run) {
      std::map<std::string, Tensor> got;
      ASSERT_TRUE(
          evaluate(plan.graph, b, NumericMode::Native, got, &runner).isOk());
      const std::vector<double> &have = got.at("out0").values();
      ASSERT_EQ(have.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(have[i], want[i], 1e-5 + 1e-5 * std::abs(want[i]))
            << (whole ? "resident" : "eqn by eqn") << " run " << run
            << " element " << i;
    }
  }
}

TEST_F(DeviceKernels, IntegerArithmeticWrapsAndRefusesDivisionByZero) {
  Plan plan = compile(R"mlir(
func.func @d(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = poot.div %a, %b : tensor<4xi32>, tensor<4xi32>
  %1 = poot.mul %a, %a : tensor<4xi32>, tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
)mlir");
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  Tensor a({DType::I32, {4}}, {-7, 7, -2147483648.0, 65536});
  Tensor d({DType::I32, {4}}, {2, -2, -1, 3});
  Bindings b;
  b.inputs = {{"arg0", &a}, {"arg1", &d}};
  std::map<std::string, Tensor> dev, host;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, dev, &runner).isOk());
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, host).isOk());
  EXPECT_EQ(dev.at("out0").values(), host.at("out0").values());
  EXPECT_EQ(dev.at("out1").values(), host.at("out1").values());

  Tensor zero({DType::I32, {4}}, {1, 0, 1, 1});
  b.inputs["arg1"] = &zero;
  std::map<std::string, Tensor> none;
  Status s = evaluate(plan.graph, b, NumericMode::Native, none, &runner);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
}

/// Whether `words` holds an instruction `opcode` whose operands (after its
/// result id, with `skipResultId`) start with `operands`.
bool holdsInstruction(const std::vector<uint32_t> &words, uint32_t opcode,
                      const std::vector<uint32_t> &operands,
                      bool skipResultId = false) {
  for (size_t at = 5; at < words.size() && (words[at] >> 16) > 0;
       at += words[at] >> 16) {
    size_t first = at + 1 + (skipResultId ? 1 : 0);
    size_t end = at + (words[at] >> 16);
    if ((words[at] & 0xffff) == opcode && end <= words.size() &&
        end - first >= operands.size() &&
        std::equal(operands.begin(), operands.end(), words.begin() + first))
      return true;
  }
  return false;
}

TEST_F(DeviceKernels, Int64ValuesRoundTripExactlyWhereTheDeviceHasThem) {
  // Values past 2^31 (and past 2^32) in every i64 kernel kind: a constant
  // operand, arithmetic, a comparison, a reduction, widening from i32.
  const char *text = R"mlir(
func.func @w(%a: tensor<4xi64>, %b: tensor<4xi64>, %x: tensor<4xi32>)
    -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<i64>, tensor<4xi64>) {
  %k = poot.constant dense<4294967296> : tensor<i64>
  %0 = poot.add %a, %k : tensor<4xi64>, tensor<i64>
  %1 = poot.mul %a, %b : tensor<4xi64>, tensor<4xi64>
  %2 = poot.div %a, %b : tensor<4xi64>, tensor<4xi64>
  %3 = poot.compare gt, %a, %k : tensor<4xi64>, tensor<i64>
  %4 = poot.reduce_sum %a {axis = 0 : i64} : tensor<4xi64>
  %w = poot.convert %x : tensor<4xi32> -> tensor<4xi64>
  %5 = poot.mul %w, %k : tensor<4xi64>, tensor<i64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<i64>, tensor<4xi64>
}
)mlir";
  CompileOptions options;
  options.target = "vulkan";
  options.fuse = false;
  options.deviceFromHost = true;
  auto compiled = compileGraph(text, options);
  if (!device->shaderInt64()) {
    // The live facts say so, and the planner names the feature.
    ASSERT_FALSE(bool(compiled));
    std::string message = llvm::toString(compiled.takeError());
    EXPECT_NE(message.find("shaderInt64"), std::string::npos) << message;
    return;
  }
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  Plan plan = std::move(*compiled);
  // The module asks for Int64 and holds a 64-bit integer type.
  EXPECT_TRUE(holdsInstruction(plan.spirv, /*OpCapability*/ 17, {11}));
  EXPECT_TRUE(holdsInstruction(plan.spirv, /*OpTypeInt*/ 21, {64},
                               /*skipResultId=*/true));
  // A device without the feature refuses the module before the driver
  // sees it; this one takes it.
  Status lacking = checkSpirvFeatures(plan.spirv, VulkanFeatures());
  EXPECT_EQ(lacking.code(), ErrorCode::Unsupported) << lacking.toString();
  EXPECT_NE(lacking.message().find("shaderInt64"), std::string::npos)
      << lacking.toString();
  EXPECT_TRUE(checkSpirvFeatures(plan.spirv, device->features()).isOk());

  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  const double big = 1099511627779.0; // 2^40 + 3
  Tensor a({DType::I64, {4}}, {3000000000.0, -5000000000.0, big, -1});
  Tensor d({DType::I64, {4}}, {2, 3, -7, 8589934592.0});
  Tensor x({DType::I32, {4}}, {1, -3, 2147483647.0, 0});
  Bindings b;
  b.inputs = {{"arg0", &a}, {"arg1", &d}, {"arg2", &x}};
  std::map<std::string, Tensor> dev, host;
  Status ran = evaluate(plan.graph, b, NumericMode::Native, dev, &runner);
  ASSERT_TRUE(ran.isOk()) << ran.toString();
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, host).isOk());
  const double k = 4294967296.0;
  EXPECT_EQ(dev.at("out0").values(),
            (std::vector<double>{3000000000.0 + k, -5000000000.0 + k, big + k,
                                 k - 1}));
  EXPECT_EQ(dev.at("out1").values(),
            (std::vector<double>{6000000000.0, -15000000000.0, -7 * big,
                                 -8589934592.0}));
  // Division truncates toward zero, as the oracle's.
  EXPECT_EQ(dev.at("out2").values(),
            (std::vector<double>{1500000000.0, -1666666666.0, -157073089682.0,
                                 0}));
  EXPECT_EQ(dev.at("out3").values(), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(dev.at("out4").values(),
            (std::vector<double>{3000000000.0 - 5000000000.0 + big - 1}));
  EXPECT_EQ(dev.at("out5").values(),
            (std::vector<double>{k, -3 * k, 2147483647.0 * k, 0}));
  for (const char *name : {"out0", "out1", "out2", "out3", "out4", "out5"})
    EXPECT_EQ(dev.at(name).values(), host.at(name).values()) << name;
}

TEST_F(DeviceKernels, TopKOrderMatchesTheOracleWithTiesAndNaN) {
  Plan plan = compile(R"mlir(
func.func @t(%x: tensor<2x6xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>) {
  %v, %i = poot.topk %x {k = 4 : i64} : tensor<2x6xf32>
  return %v, %i : tensor<2x4xf32>, tensor<2x4xi32>
}
)mlir");
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x({DType::F32, {2, 6}}, {1, 3, 3, nan, -0.0, 0.0, 2, 2, 2, nan, nan, 5});
  Bindings b;
  b.inputs = {{"arg0", &x}};
  std::map<std::string, Tensor> dev, host;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, dev, &runner).isOk());
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, host).isOk());
  EXPECT_EQ(dev.at("out1").values(), host.at("out1").values());
  EXPECT_EQ(dev.at("out1").values(),
            (std::vector<double>{3, 1, 2, 0, 3, 4, 5, 0}));
}

TEST_F(DeviceKernels, BooleansTravelAsWords) {
  Plan plan = compile(R"mlir(
func.func @b(%a: tensor<5xf32>, %c: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xf32>) {
  %lt = poot.compare lt, %a, %c : tensor<5xf32>, tensor<5xf32>
  %n = poot.not %lt : tensor<5xi1>
  %s = poot.select %n, %a, %c : tensor<5xi1>, tensor<5xf32>, tensor<5xf32>
  return %n, %s : tensor<5xi1>, tensor<5xf32>
}
)mlir");
  PlanRunner runner(*device, plan);
  runner.setDeviceOnly(true);
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a({DType::F32, {5}}, {1, 2, nan, -1, 4});
  Tensor c({DType::F32, {5}}, {2, 2, 0, -2, 5});
  Bindings b;
  b.inputs = {{"arg0", &a}, {"arg1", &c}};
  std::map<std::string, Tensor> dev;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, dev, &runner).isOk());
  EXPECT_EQ(dev.at("out0").values(), (std::vector<double>{0, 1, 1, 1, 0}));
  EXPECT_EQ(dev.at("out1").values()[3], -1);
  EXPECT_TRUE(std::isnan(dev.at("out1").values()[2]));
}

TEST_F(DeviceKernels, DeviceOnlyRefusesAnEqnWithoutKernels) {
  Plan plan = compile(kGather);
  // As if the generator had left the gather to the host.
  for (Eqn &eqn : plan.graph.eqns)
    eqn.attrs.erase("poot.launches.count");
  Tensor x({DType::F32, {4, 3}});
  Tensor idx({DType::I32, {2}}, {0, 1});
  Bindings b;
  b.inputs = {{"arg0", &x}, {"arg1", &idx}};
  std::map<std::string, Tensor> out;
  PlanRunner hybrid(*device, plan);
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, out, &hybrid).isOk());
  EXPECT_EQ(hybrid.hostEqns(), 1);
  PlanRunner strict(*device, plan);
  strict.setDeviceOnly(true);
  std::map<std::string, Tensor> none;
  Status s = evaluate(plan.graph, b, NumericMode::Native, none, &strict);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.toString().find("device-only"), std::string::npos);
}

TEST_F(DeviceKernels, ResidentRunEqualsEqnByEqn) {
  Plan plan = compile(R"mlir(
func.func @m(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = poot.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = poot.exp %0 : tensor<2x4xf32>
  %2 = poot.reduce_sum %1 {axis = 1 : i64, keepdim} : tensor<2x4xf32>
  %3 = poot.div %1, %2 : tensor<2x4xf32>, tensor<2x1xf32>
  return %3 : tensor<2x4xf32>
}
)mlir");
  Tensor x({DType::F32, {2, 3}}, {0.5, -1, 2, 0.25, 0, -0.75});
  Tensor w({DType::F32, {3, 4}}, {1, 2, 3, 4, -1, 0, 1, 0.5, 0.25, 0.5, -2, 1});
  Bindings b;
  b.inputs = {{"arg0", &x}, {"arg1", &w}};
  std::map<std::string, Tensor> whole, perEqn;
  PlanRunner resident(*device, plan);
  resident.setDeviceOnly(true);
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, whole, &resident).isOk());
  PlanRunner stepwise(*device, plan);
  stepwise.setDeviceOnly(true);
  stepwise.setResident(false);
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, perEqn, &stepwise).isOk());
  EXPECT_EQ(whole.at("out0").values(), perEqn.at("out0").values());
  EXPECT_EQ(resident.dispatchedEqns(), 4);
  EXPECT_EQ(stepwise.dispatchedEqns(), 4);
  // The three intermediates lived in the plan's arena, not in buffers of
  // their own; the output kept its own.
  EXPECT_EQ(resident.arenaBindings(), 3);
  // A second run reuses the arena and gives the same result.
  std::map<std::string, Tensor> again;
  ASSERT_TRUE(evaluate(plan.graph, b, NumericMode::Native, again, &resident).isOk());
  EXPECT_EQ(again.at("out0").values(), whole.at("out0").values());
}

} // namespace
