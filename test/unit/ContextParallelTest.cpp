//===- ContextParallelTest.cpp - One plan over 2, 3 and 4 cpu devices -----===//
//
// The in-process communicator joins N cpu devices in threads; every
// attention's keys are split across them (split-kv for decode, the ring for
// prefill) and the result must match the single-device oracle (the
// reference evaluator in f64) within the tolerance of docs/numerics.md for
// its dtype (f32: |got - want| <= 1e-6 + 2e-5 max|want|; NaN in the same
// places), on
// random non-zero inputs, NaN and infinities where a case puts them. A
// failure injected on one device publishes nothing on any, and a device
// that stalls past the time limit fails the run instead of hanging it.
//
//===----------------------------------------------------------------------===//

#include "HandGraph.h"

#include "poot/Runtime/Check.h"
#include "poot/Runtime/ContextParallel.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <thread>

using namespace poot::rt;
using namespace poot::rt::handgraph;

namespace {

struct Case {
  std::string name;
  int64_t b = 1, hq = 2, hkv = 1, lq = 1, lk = 16, dk = 8, dv = 8;
  bool causal = false;
  std::vector<int64_t> pos;  ///< empty: no pos operand; one: a scalar
  std::vector<int64_t> len;  ///< empty: no len operand
  bool mask = false;         ///< a tensor mask [B, 1, Lq, Lk]
  /// (b, row) pairs whose mask hides every key (a fully masked row).
  std::vector<std::pair<int64_t, int64_t>> maskedRows;
  bool chained = false; ///< the result feeds a later eqn (an add)
  bool zeroEmptyRows = false; ///< rows with no visible key are 0
  DType dtype = DType::F32;
  std::optional<int64_t> window;
  std::optional<double> softcap;
  int groupSize = 0;
  std::vector<int> deviceCounts = {2, 3, 4};
  /// Changes the drawn inputs (NaN rows, infinities) before the run.
  std::function<void(std::map<std::string, Tensor> &)> tweak;
};

struct Built {
  Graph graph;
  std::map<std::string, Tensor> inputs;
};

Built build(const Case &c, uint64_t seed) {
  GraphBuilder gb;
  std::mt19937_64 rng(seed);
  Built out;
  std::vector<int> ops;
  auto in = [&](const std::string &name, TensorType t, Tensor value) {
    ops.push_back(gb.input(name, t));
    out.inputs[name] = std::move(value);
  };
  TensorType qt = TT(c.dtype, {c.b, c.hq, c.lq, c.dk});
  TensorType kt = TT(c.dtype, {c.b, c.hkv, c.lk, c.dk});
  TensorType vt = TT(c.dtype, {c.b, c.hkv, c.lk, c.dv});
  in("q", qt, randomTensor(rng, c.dtype, qt.shape));
  in("k", kt, randomTensor(rng, c.dtype, kt.shape));
  in("v", vt, randomTensor(rng, c.dtype, vt.shape));
  std::vector<int64_t> seg = {1, 1, 0, 1, 0, 0, 0, 0};
  if (c.mask) {
    TensorType mt = TT(c.dtype, {c.b, 1, c.lq, c.lk});
    Tensor m = randomTensor(rng, c.dtype, mt.shape);
    for (auto [b, row] : c.maskedRows)
      for (int64_t t = 0; t < c.lk; ++t)
        m.at((b * c.lq + row) * c.lk + t) = -kInf;
    in("mask", mt, std::move(m));
    seg[5] = 1;
  }
  if (!c.len.empty()) {
    TensorType lt = TT(DType::I32, {c.b});
    Tensor l(lt);
    for (int64_t b = 0; b < c.b; ++b)
      l.at(b) = double(c.len[size_t(b)]);
    in("len", lt, std::move(l));
    seg[6] = 1;
  }
  if (!c.pos.empty()) {
    TensorType pt = c.pos.size() == 1 ? TT(DType::I32, {})
                                      : TT(DType::I32, {c.b});
    Tensor p(pt);
    for (size_t i = 0; i < c.pos.size(); ++i)
      p.at(int64_t(i)) = double(c.pos[i]);
    in("pos", pt, std::move(p));
    seg[7] = 1;
  }
  Attrs a;
  a["scale"] = Attr::ofFloat(1.0 / std::sqrt(double(c.dk)));
  a["n_rep"] = Attr::ofInt(c.hq / c.hkv);
  if (c.causal)
    a["causal"] = Attr::ofInt(1);
  if (c.window)
    a["window"] = Attr::ofInt(*c.window);
  if (c.softcap)
    a["softcap"] = Attr::ofFloat(*c.softcap);
  if (c.zeroEmptyRows)
    a["zero_empty_rows"] = Attr::ofInt(1);
  a["operandSegmentSizes"] = Attr::ofInts(seg);
  int o = gb.eqn("attention", ops, TT(c.dtype, {c.b, c.hq, c.lq, c.dv}), a);
  if (c.chained) {
    int twice = gb.eqn("add", {o, o}, TT(c.dtype, {c.b, c.hq, c.lq, c.dv}));
    gb.output("twice", twice);
  }
  gb.output("o", o);
  out.graph = std::move(gb.g);
  if (c.tweak)
    c.tweak(out.inputs);
  return out;
}

Bindings bindingsOf(const std::map<std::string, Tensor> &inputs) {
  Bindings b;
  for (const auto &[name, t] : inputs)
    b.inputs[name] = &t;
  return b;
}

/// Runs `c` over 2, 3 and 4 devices against the oracle; returns the worst
/// error relative to the tensor's scale.
void runCase(const Case &c, ContextSplit expected) {
  for (int devices : c.deviceCounts) {
    Built built = build(c, 1000 + devices);
    Bindings bindings = bindingsOf(built.inputs);
    std::map<std::string, Tensor> oracle;
    ASSERT_TRUE(evaluate(built.graph, bindings, NumericMode::Reference, oracle)
                    .isOk());
    ContextParallelOptions options;
    options.devices = devices;
    options.groupSize = c.groupSize;
    ContextParallelReport report;
    std::map<std::string, Tensor> got;
    Status s = runContextParallel(built.graph, bindings, options, got, &report);
    ASSERT_TRUE(s.isOk()) << c.name << " on " << devices << ": "
                          << s.toString();
    ASSERT_EQ(report.splits.size(), 1u);
    EXPECT_EQ(report.splits[0].form, expected)
        << report.splits[0].describe();
    Tolerance tol = toleranceFor(c.dtype);
    double worst = 0;
    for (const auto &[name, want] : oracle) {
      ASSERT_TRUE(got.count(name)) << name;
      expectClose(got.at(name), want, tol,
                  c.name + " over " + std::to_string(devices) + ": " + name);
      Comparison cmp = compareTensors(got.at(name), want, tol);
      worst = std::max(worst, cmp.maxAbsError);
      // NaN where the oracle has it, nowhere else.
      EXPECT_EQ(countNaN(got.at(name)), countNaN(want)) << name;
    }
    // Reference mode over the devices: the same sums regrouped, in f64.
    options.mode = NumericMode::Reference;
    std::map<std::string, Tensor> exact;
    ASSERT_TRUE(
        runContextParallel(built.graph, bindings, options, exact).isOk());
    for (const auto &[name, want] : oracle)
      expectClose(exact.at(name), want, toleranceFor(DType::F64),
                  c.name + " (f64) over " + std::to_string(devices));
    std::printf("[cp] %-28s %d devices: %-8s max abs error %.3g "
                "(ring folds %lld, skipped %lld, empty shards %lld, "
                "%lld bytes)\n",
                c.name.c_str(), devices,
                contextSplitName(report.splits[0].form), worst,
                (long long)report.ringFolds, (long long)report.ringSkipped,
                (long long)report.emptyShards, (long long)report.bytesSent);
    if (devices == 4)
      std::printf("%s", report.toString().c_str());
  }
}

TEST(ContextParallelTest, DecodeGqaCausal) {
  Case c;
  c.name = "decode gqa causal";
  c.b = 2, c.hq = 8, c.hkv = 2, c.lq = 1, c.lk = 37, c.dk = 16, c.dv = 16;
  c.causal = true;
  c.pos = {36, 20};
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, DecodeLiveLengthsLeaveShardsEmpty) {
  Case c;
  c.name = "decode live lengths";
  c.b = 3, c.hq = 4, c.hkv = 2, c.lq = 1, c.lk = 41, c.dk = 12, c.dv = 10;
  c.causal = true;
  c.len = {41, 5, 1};
  c.pos = {40, 4, 0};
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, DecodeEveryShardButOneEmpty) {
  Case c;
  c.name = "decode len 2 of 33";
  c.b = 1, c.hq = 6, c.hkv = 3, c.lq = 1, c.lk = 33, c.dk = 8, c.dv = 8;
  c.len = {2};
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, MultiTokenDecodeCausal) {
  Case c;
  c.name = "decode 4 tokens causal";
  c.b = 2, c.hq = 4, c.hkv = 1, c.lq = 4, c.lk = 29, c.dk = 8, c.dv = 12;
  c.causal = true;
  c.pos = {25, 9};
  c.chained = true;
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, DecodeFullyMaskedRow) {
  Case c;
  c.name = "decode masked row";
  c.b = 3, c.hq = 4, c.hkv = 2, c.lq = 1, c.lk = 19, c.dk = 8, c.dv = 8;
  c.mask = true;
  c.maskedRows = {{1, 0}};
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, PrefillCausalGqaOddLength) {
  Case c;
  c.name = "prefill causal gqa 29";
  c.b = 1, c.hq = 4, c.hkv = 1, c.lq = 29, c.lk = 29, c.dk = 8, c.dv = 8;
  c.causal = true;
  c.pos = {0};
  c.chained = true;
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, PrefillNonCausalOddShapes) {
  Case c;
  c.name = "prefill 19x23 gqa 6/3";
  c.b = 2, c.hq = 6, c.hkv = 3, c.lq = 19, c.lk = 23, c.dk = 12, c.dv = 10;
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, PrefillCausalLiveLengths) {
  Case c;
  c.name = "prefill causal live";
  c.b = 2, c.hq = 2, c.hkv = 2, c.lq = 21, c.lk = 21, c.dk = 8, c.dv = 8;
  c.causal = true;
  c.len = {21, 6};
  c.pos = {0};
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, PrefillFullyMaskedRows) {
  Case c;
  c.name = "prefill masked rows";
  c.b = 2, c.hq = 4, c.hkv = 2, c.lq = 18, c.lk = 18, c.dk = 8, c.dv = 8;
  c.causal = true;
  c.pos = {0};
  c.mask = true;
  c.maskedRows = {{0, 5}, {1, 17}, {1, 0}};
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, ChunkedPrefillAfterACachedPrefix) {
  // 20 new rows at positions 13..32 over 33 keys: the ring skips the
  // blocks above each device's rows.
  Case c;
  c.name = "prefill chunk at pos 13";
  c.b = 1, c.hq = 2, c.hkv = 1, c.lq = 20, c.lk = 33, c.dk = 8, c.dv = 8;
  c.causal = true;
  c.pos = {13};
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, TheDecision) {
  std::string why;
  EXPECT_EQ(chooseContextSplit(1, 1 << 20, true, 4, 17, &why),
            ContextSplit::SplitKv);
  EXPECT_NE(why.find("decode"), std::string::npos) << why;
  EXPECT_EQ(chooseContextSplit(4096, 4096, true, 4, 17),
            ContextSplit::Ring);
  // A paged or shared-part key cannot travel as blocks: split-kv.
  EXPECT_EQ(chooseContextSplit(4096, 4096, false, 4, 17),
            ContextSplit::SplitKv);
  EXPECT_EQ(chooseContextSplit(4096, 4096, true, 1, 17),
            ContextSplit::Replicated);
  // Groups: 4 devices make 2 groups of 2, 3 make {0,1} {2}.
  Case c;
  c.lq = 1, c.lk = 10;
  Built built = build(c, 1);
  std::vector<AttentionSplit> splits;
  ContextParallelOptions options;
  options.devices = 4;
  ASSERT_TRUE(planContextSplits(built.graph, options, splits).isOk());
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_EQ(splits[0].groupSize, 2);
  EXPECT_EQ(splits[0].keys,
            (std::vector<std::pair<int64_t, int64_t>>{
                {0, 2}, {2, 5}, {5, 7}, {7, 10}}));
  std::string line = splits[0].describe();
  EXPECT_NE(line.find("split-kv over 4 devices"), std::string::npos) << line;
  EXPECT_NE(line.find("2 groups"), std::string::npos) << line;
  options.devices = 0;
  EXPECT_EQ(planContextSplits(built.graph, options, splits).code(),
            ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// Failures publish nothing on any device
//===----------------------------------------------------------------------===//

TEST(ContextParallelTest, InjectedFailurePublishesNothing) {
  Case decode;
  decode.name = "decode";
  decode.b = 2, decode.hq = 4, decode.hkv = 2, decode.lq = 1, decode.lk = 23;
  decode.chained = true;
  Case prefill;
  prefill.name = "prefill";
  prefill.b = 1, prefill.hq = 2, prefill.hkv = 1, prefill.lq = 21,
  prefill.lk = 21;
  prefill.causal = true;
  prefill.chained = true;
  for (const Case *c : {&decode, &prefill})
    for (int devices : {2, 3, 4})
      for (const char *stage : {"shard", "exchange", "combine"})
        for (int failing = 0; failing < devices; ++failing) {
          Built built = build(*c, 7);
          Bindings bindings = bindingsOf(built.inputs);
          ContextParallelOptions options;
          options.devices = devices;
          options.timeoutMs = 20000;
          options.inject = [&](int device, const std::string &at) {
            if (device == failing && at == stage)
              return Status(ErrorCode::IndexOutOfRange,
                            "injected at " + at);
            return Status::ok();
          };
          std::map<std::string, Tensor> outputs;
          outputs["sentinel"] = Tensor(TT(DType::F32, {1}), {42.0});
          Status s = runContextParallel(built.graph, bindings, options,
                                        outputs);
          std::string what = c->name + " " + stage + " on device " +
                             std::to_string(failing) + " of " +
                             std::to_string(devices);
          ASSERT_FALSE(s.isOk()) << what;
          // The failing device's own error, not a peer's consequence.
          EXPECT_EQ(s.code(), ErrorCode::IndexOutOfRange)
              << what << ": " << s.toString();
          EXPECT_NE(s.message().find("device " + std::to_string(failing) +
                                     ": "),
                    std::string::npos)
              << s.toString();
          ASSERT_EQ(outputs.size(), 1u) << what;
          EXPECT_EQ(outputs.at("sentinel").at(0), 42.0);
        }
}

//===----------------------------------------------------------------------===//
// Whole plans: state, rope, cache writes run on every device
//===----------------------------------------------------------------------===//

struct PlanRun {
  std::map<std::string, Tensor> inputs, state;
  Bindings bindings;
};

void bindRandom(const Graph &graph, PlanRun &run, uint64_t seed) {
  for (const GraphInput &in : graph.inputs) {
    Tensor t = randomInput(graph, in, seed, 1);
    if (in.state.empty())
      run.inputs[in.name] = std::move(t);
    else
      run.state[in.name] = std::move(t);
  }
  for (auto &[name, t] : run.inputs)
    run.bindings.inputs[name] = &t;
  for (auto &[name, t] : run.state)
    run.bindings.state[name] = &t;
}

void runPlan(const std::string &path, ContextSplit expected) {
  Plan plan;
  Status loaded = readPlanFile(path, plan);
  ASSERT_TRUE(loaded.isOk()) << path << ": " << loaded.toString();
  for (int devices : {2, 3, 4}) {
    PlanRun oracleRun, cpRun;
    bindRandom(plan.graph, oracleRun, 5);
    bindRandom(plan.graph, cpRun, 5);
    std::map<std::string, Tensor> want, got;
    ASSERT_TRUE(evaluate(plan.graph, oracleRun.bindings,
                         NumericMode::Reference, want)
                    .isOk());
    ContextParallelOptions options;
    options.devices = devices;
    ContextParallelReport report;
    Status s =
        runContextParallel(plan.graph, cpRun.bindings, options, got, &report);
    ASSERT_TRUE(s.isOk()) << path << ": " << s.toString();
    ASSERT_FALSE(report.splits.empty());
    for (const AttentionSplit &split : report.splits)
      EXPECT_EQ(split.form, expected) << split.describe();
    Tolerance tol = toleranceFor(DType::F32);
    double worst = 0;
    for (const auto &[name, w] : want) {
      expectClose(got.at(name), w, tol, path + ": " + name);
      worst = std::max(worst, compareTensors(got.at(name), w, tol).maxAbsError);
    }
    for (const auto &[name, w] : oracleRun.state) {
      expectClose(cpRun.state.at(name), w, tol, path + ": state " + name);
      worst = std::max(
          worst, compareTensors(cpRun.state.at(name), w, tol).maxAbsError);
    }
    std::printf("[cp] %s, %d devices: %zu attentions, max abs error %.3g\n",
                plan.graph.name.c_str(), devices, report.splits.size(), worst);

    // A failure on the last device: no output, every state byte as it was.
    PlanRun failed;
    bindRandom(plan.graph, failed, 5);
    options.inject = [&](int device, const std::string &stage) {
      return device == devices - 1 && stage == "exchange"
                 ? Status(ErrorCode::Io, "device lost")
                 : Status::ok();
    };
    std::map<std::string, Tensor> none;
    EXPECT_FALSE(
        runContextParallel(plan.graph, failed.bindings, options, none).isOk());
    EXPECT_TRUE(none.empty());
    PlanRun fresh;
    bindRandom(plan.graph, fresh, 5);
    for (const auto &[name, t] : fresh.state)
      EXPECT_EQ(failed.state.at(name).values(), t.values()) << name;
  }
}

TEST(ContextParallelTest, PagedDecodePlan) {
  runPlan(std::string(POOT_TEST_INPUTS_DIR) + "/decode-paged.plan",
          ContextSplit::SplitKv);
}

TEST(ContextParallelTest, ServingPlanMixedSteps) {
  runPlan(std::string(POOT_SOURCE_DIR) +
              "/examples/serve/llama3-8b.serve.mixed.cpu.plan",
          ContextSplit::SplitKv);
}

TEST(ContextParallelTest, ServingPlanChunkedPrefill) {
  runPlan(std::string(POOT_SOURCE_DIR) +
              "/examples/serve/llama3-8b.serve.chunk.cpu.plan",
          ContextSplit::SplitKv);
}

//===----------------------------------------------------------------------===//
// The combine's edge cases: NaN, infinities, empty shards, group shapes
//===----------------------------------------------------------------------===//

TEST(ContextParallelTest, NaNInAQueryRowIsNaNThereOnly) {
  Case c;
  c.name = "decode NaN query row";
  c.b = 2, c.hq = 4, c.hkv = 2, c.lq = 1, c.lk = 19;
  c.tweak = [](std::map<std::string, Tensor> &in) {
    in["q"].at((1 * 4 + 2) * 8 + 3) = kNaN; // batch row 1, head 2
  };
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, NaNInOneShardsKeyOrValue) {
  // A NaN key poisons every row that scores it, from whichever shard holds
  // it; a NaN value only its channel.
  for (const char *what : {"k", "v"}) {
    Case c;
    c.name = std::string("decode NaN in ") + what;
    c.b = 1, c.hq = 2, c.hkv = 1, c.lq = 1, c.lk = 19;
    c.tweak = [what](std::map<std::string, Tensor> &in) {
      in[what].at(15 * 8 + 1) = kNaN;
    };
    runCase(c, ContextSplit::SplitKv);
    c.lq = 20, c.lk = 20;
    runCase(c, ContextSplit::Ring);
  }
}

TEST(ContextParallelTest, PlusInfinityInTheMask) {
  // A score of +inf makes its row exp(inf - inf): NaN, on every split.
  Case c;
  c.name = "decode +inf mask";
  c.b = 1, c.hq = 2, c.hkv = 1, c.lq = 1, c.lk = 19;
  c.mask = true;
  c.tweak = [](std::map<std::string, Tensor> &in) { in["mask"].at(12) = kInf; };
  runCase(c, ContextSplit::SplitKv);
}

TEST(ContextParallelTest, FewerKeysThanDevices) {
  Case c;
  c.name = "decode 2 keys";
  c.lq = 1, c.lk = 2;
  c.deviceCounts = {2, 3, 4, 5};
  runCase(c, ContextSplit::SplitKv);
  c.name = "prefill 20 rows over 3 keys";
  c.lq = 20, c.lk = 3;
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, ARowWithNoLiveKey) {
  Case c;
  c.name = "decode len 0";
  c.b = 2, c.lq = 1, c.lk = 10;
  c.len = {0, 7};
  runCase(c, ContextSplit::SplitKv);
  c.name = "prefill len 0";
  c.lq = 20, c.lk = 20, c.causal = true, c.pos = {0};
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, EmptyRowsAreZeroUnderZeroEmptyRows) {
  // Rows that no device sees a key of (a length of 0, a mask that hides
  // the whole row) are 0 in every channel, as on one device; the other
  // rows are untouched. The oracle agrees, and no NaN is left.
  auto zeros = [](const Tensor &t) {
    int64_t n = 0;
    for (double x : t.values())
      n += x == 0.0;
    return n;
  };
  Case c;
  c.name = "decode len 0, zero_empty_rows";
  c.b = 2, c.lq = 1, c.lk = 10;
  c.len = {0, 7};
  c.zeroEmptyRows = true;
  runCase(c, ContextSplit::SplitKv);
  c.name = "prefill masked rows, zero_empty_rows";
  c.len.clear();
  c.b = 2, c.lq = 20, c.lk = 20;
  c.mask = true;
  c.maskedRows = {{0, 3}, {1, 0}, {1, 19}};
  runCase(c, ContextSplit::Ring);
  Built built = build(c, 7);
  Bindings bindings = bindingsOf(built.inputs);
  std::map<std::string, Tensor> oracle;
  ASSERT_TRUE(
      evaluate(built.graph, bindings, NumericMode::Reference, oracle).isOk());
  EXPECT_EQ(countNaN(oracle.at("o")), 0);
  // Three rows of 2 heads and 8 channels are 0.
  EXPECT_EQ(zeros(oracle.at("o")), 3 * 2 * 8);
}

TEST(ContextParallelTest, RingWithAPositionPerBatchRow) {
  Case c;
  c.name = "prefill pos per row";
  c.b = 2, c.lq = 18, c.lk = 40;
  c.causal = true;
  c.pos = {22, 3};
  c.deviceCounts = {2, 3, 4, 5, 7};
  runCase(c, ContextSplit::Ring);
}

TEST(ContextParallelTest, EveryGroupShapeOfTheReduce) {
  for (int g : {1, 2, 3, 4, 8}) {
    Case c;
    c.name = "decode groups of " + std::to_string(g);
    c.b = 1, c.lq = 1, c.lk = 50;
    c.groupSize = g;
    c.chained = true;
    c.deviceCounts = {2, 3, 4, 5, 6, 7, 8};
    runCase(c, ContextSplit::SplitKv);
  }
}

TEST(ContextParallelTest, StorageDtypesWindowAndSoftcap) {
  for (DType t : {DType::F64, DType::BF16, DType::F16}) {
    Case c;
    c.name = std::string("decode ") + dtypeName(t);
    c.lq = 1, c.lk = 30;
    c.dtype = t;
    runCase(c, ContextSplit::SplitKv);
    c.name = std::string("prefill ") + dtypeName(t);
    c.lq = 20, c.lk = 20, c.causal = true, c.pos = {0};
    runCase(c, ContextSplit::Ring);
  }
  Case c;
  c.name = "prefill window softcap";
  c.lq = 20, c.lk = 30, c.causal = true, c.pos = {10};
  c.window = 6;
  c.softcap = 2.0;
  runCase(c, ContextSplit::Ring);
  c.name = "decode window softcap";
  c.lq = 1, c.pos = {29};
  runCase(c, ContextSplit::SplitKv);
}

//===----------------------------------------------------------------------===//
// Timeouts
//===----------------------------------------------------------------------===//

TEST(ContextParallelTest, ALongTimeoutDoesNotExpireAtOnce) {
  // A limit of hundreds of years ("wait as long as it takes") overflowed
  // the communicator's deadline: any device that reached a receive before
  // its message failed the run at once with a timeout.
  Case c;
  c.b = 1, c.lq = 1, c.lk = 10;
  c.chained = true;
  Built built = build(c, 3);
  Bindings bindings = bindingsOf(built.inputs);
  std::map<std::string, Tensor> want;
  ASSERT_TRUE(evaluate(built.graph, bindings, NumericMode::Native, want).isOk());
  ContextParallelOptions options;
  options.devices = 3;
  options.timeoutMs = std::numeric_limits<int64_t>::max();
  options.inject = [](int device, const std::string &at) {
    if (device == 2 && at == "exchange")
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return Status::ok();
  };
  std::map<std::string, Tensor> got;
  Status s = runContextParallel(built.graph, bindings, options, got);
  ASSERT_TRUE(s.isOk()) << s.toString();
  expectClose(got.at("o"), want.at("o"), toleranceFor(DType::F32), "o");
}

TEST(ContextParallelTest, AStalledDeviceTimesOutAndNothingIsPublished) {
  // Device 2 stalls past the limit (stuck, not failed). In the decode, one
  // group of 3 and a result that does not go back to the devices, device 0
  // is the only one waiting on it inside the run: it times out, names rank
  // 2 and aborts the group. In the ring several devices wait in a chain and
  // any of them may time out first. Either way every thread returns and
  // nothing is published.
  for (bool prefill : {false, true}) {
    Case c;
    c.b = 1, c.lq = prefill ? 20 : 1, c.lk = 20;
    c.causal = true, c.pos = {prefill ? 0 : 19};
    Built built = build(c, 3);
    Bindings bindings = bindingsOf(built.inputs);
    ContextParallelOptions options;
    options.devices = 3;
    options.groupSize = 3;
    options.timeoutMs = 50;
    options.inject = [](int device, const std::string &at) {
      if (device == 2 && at == "exchange")
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      return Status::ok();
    };
    std::map<std::string, Tensor> outputs;
    outputs["sentinel"] = Tensor(TT(DType::F32, {1}), {42.0});
    auto start = std::chrono::steady_clock::now();
    Status s = runContextParallel(built.graph, bindings, options, outputs);
    auto took = std::chrono::steady_clock::now() - start;
    const char *phase = prefill ? "prefill" : "decode";
    ASSERT_FALSE(s.isOk()) << phase;
    EXPECT_EQ(s.code(), ErrorCode::Io) << s.toString();
    EXPECT_NE(s.message().find("recv: timeout: no message from rank "),
              std::string::npos)
        << s.toString();
    if (!prefill) {
      EXPECT_NE(s.message().find("device 0: rank 0 recv: timeout: no message "
                                 "from rank 2 within 50 ms"),
                std::string::npos)
          << s.toString();
    }
    EXPECT_LT(took, std::chrono::seconds(10)) << phase;
    ASSERT_EQ(outputs.size(), 1u) << phase;
    EXPECT_EQ(outputs.at("sentinel").at(0), 42.0);
  }
}

} // namespace
