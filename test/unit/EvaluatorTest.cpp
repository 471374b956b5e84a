//===- EvaluatorTest.cpp - Tests of the reference evaluator ---------------===//
//
// Every op against hand-computed values, the two numeric modes, and the run
// contract: bindings checked first, validation before publishing, and a
// failed run leaving outputs and state buffers untouched.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace poot::rt;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor T(DType dtype, Shape shape, std::vector<double> values) {
  return Tensor(TensorType{dtype, std::move(shape)}, std::move(values));
}
Tensor F32(Shape shape, std::vector<double> values) {
  return T(DType::F32, std::move(shape), std::move(values));
}
Tensor I32(Shape shape, std::vector<double> values) {
  return T(DType::I32, std::move(shape), std::move(values));
}
Tensor I1(Shape shape, std::vector<double> values) {
  return T(DType::I1, std::move(shape), std::move(values));
}
TensorType TT(DType dtype, Shape shape) {
  return TensorType{dtype, std::move(shape)};
}

using Attrs = std::map<std::string, Attr>;

/// Runs one op through evaluateEqn on the given operands.
struct OpRun {
  Status status;
  std::vector<Tensor> results;
  const Tensor &operator[](size_t i) const { return results.at(i); }
};

OpRun runOp(const std::string &op, const std::vector<Tensor> &operands,
            const std::vector<TensorType> &resultTypes, Attrs attrs = {},
            NumericMode mode = NumericMode::Native) {
  Eqn eqn;
  eqn.op = op;
  eqn.attrs = std::move(attrs);
  eqn.location = "test.mlir:3:7";
  std::vector<const Tensor *> ptrs;
  for (const Tensor &t : operands)
    ptrs.push_back(&t);
  OpRun run;
  run.status = evaluateEqn(eqn, ptrs, resultTypes, mode, run.results);
  return run;
}

/// Compares values elementwise, treating NaN as equal to NaN.
void expectValues(const Tensor &t, const std::vector<double> &expected) {
  ASSERT_EQ(t.values().size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(t.at(i))) << "at " << i << ": " << t.at(i);
    else
      EXPECT_EQ(t.at(i), expected[i]) << "at " << i;
  }
}

#define ASSERT_OK(run)                                                         \
  ASSERT_TRUE((run).status.isOk()) << (run).status.toString()

/// Builds Graph records by hand for the graph-level tests.
struct GraphBuilder {
  Graph g;

  int value(TensorType type) {
    g.values.push_back(std::move(type));
    return static_cast<int>(g.values.size()) - 1;
  }
  int input(const std::string &name, TensorType type,
            std::optional<std::pair<int64_t, int64_t>> range = std::nullopt,
            const std::string &state = "") {
    int v = value(std::move(type));
    g.inputs.push_back(GraphInput{v, name, "", range, state});
    return v;
  }
  std::vector<int> eqn(const std::string &op, std::vector<int> operands,
                       std::vector<TensorType> resultTypes, Attrs attrs = {},
                       const std::string &location = "") {
    Eqn e;
    e.op = op;
    e.operands = std::move(operands);
    for (TensorType &t : resultTypes)
      e.results.push_back(value(std::move(t)));
    e.attrs = std::move(attrs);
    e.location = location.empty()
                     ? "graph.mlir:" + std::to_string(g.eqns.size() + 1) + ":5"
                     : location;
    g.eqns.push_back(e);
    return g.eqns.back().results;
  }
  int eqn1(const std::string &op, std::vector<int> operands, TensorType type,
           Attrs attrs = {}) {
    return eqn(op, std::move(operands), {std::move(type)}, std::move(attrs))[0];
  }
  void output(const std::string &name, int v, const std::string &state = "",
              bool validation = false) {
    g.outputs.push_back(GraphOutput{v, name, state, validation});
  }
};

//===----------------------------------------------------------------------===//
// Creation and conversion
//===----------------------------------------------------------------------===//

TEST(EvaluatorOps, Constant) {
  auto full = runOp("constant", {}, {TT(DType::F32, {2})},
                    {{"value", Attr::ofTensor(F32({2}, {1.5, -2}))}});
  ASSERT_OK(full);
  expectValues(full[0], {1.5, -2});
  auto splat = runOp("constant", {}, {TT(DType::I32, {2, 2})},
                     {{"value", Attr::ofTensor(F32({}, {7.9}))}});
  ASSERT_OK(splat);
  expectValues(splat[0], {7, 7, 7, 7}); // converted: truncation
  auto bad = runOp("constant", {}, {TT(DType::F32, {3})},
                   {{"value", Attr::ofTensor(F32({2}, {1, 2}))}});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
  auto missing = runOp("constant", {}, {TT(DType::F32, {3})});
  EXPECT_EQ(missing.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Iota) {
  auto r =
      runOp("iota", {}, {TT(DType::I32, {2, 3})}, {{"dim", Attr::ofInt(1)}});
  ASSERT_OK(r);
  expectValues(r[0], {0, 1, 2, 0, 1, 2});
  auto f =
      runOp("iota", {}, {TT(DType::F32, {2, 3})}, {{"dim", Attr::ofInt(0)}});
  ASSERT_OK(f);
  EXPECT_EQ(f[0].dtype(), DType::F32);
  expectValues(f[0], {0, 0, 0, 1, 1, 1});
  auto bad =
      runOp("iota", {}, {TT(DType::I32, {2})}, {{"dim", Attr::ofInt(1)}});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, ConvertFloatToInt) {
  auto r = runOp("convert", {F32({6}, {2.7, -2.7, kNaN, 1e10, -1e10, kInf})},
                 {TT(DType::I32, {6})});
  ASSERT_OK(r);
  expectValues(r[0], {2, -2, 0, 2147483647, -2147483648.0, 2147483647});
}

TEST(EvaluatorOps, ConvertOthers) {
  auto toBool = runOp("convert", {I32({3}, {0, 3, -1})}, {TT(DType::I1, {3})});
  ASSERT_OK(toBool);
  expectValues(toBool[0], {0, 1, 1});
  auto nanBool =
      runOp("convert", {F32({2}, {kNaN, 0.0})}, {TT(DType::I1, {2})});
  ASSERT_OK(nanBool);
  expectValues(nanBool[0], {1, 0});
  auto wrap = runOp("convert", {T(DType::I64, {1}, {4294967296.0 + 7})},
                    {TT(DType::I32, {1})});
  ASSERT_OK(wrap);
  expectValues(wrap[0], {7});
  auto toFloat =
      runOp("convert", {I32({1}, {16777217})}, {TT(DType::F32, {1})});
  ASSERT_OK(toFloat);
  expectValues(toFloat[0], {16777216}); // 2^24 + 1 rounds to even in f32

  double v = 1.0 + std::ldexp(1.0, -11); // a tie in f16
  auto native =
      runOp("convert", {T(DType::F64, {1}, {v})}, {TT(DType::F16, {1})});
  ASSERT_OK(native);
  expectValues(native[0], {1.0});
  auto ref = runOp("convert", {T(DType::F64, {1}, {v})}, {TT(DType::F16, {1})},
                   {}, NumericMode::Reference);
  ASSERT_OK(ref);
  expectValues(ref[0], {v}); // the reference mode never rounds
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST(EvaluatorOps, Reshape) {
  auto r = runOp("reshape", {F32({2, 3}, {1, 2, 3, 4, 5, 6})},
                 {TT(DType::F32, {3, 1, 2})});
  ASSERT_OK(r);
  EXPECT_EQ(r[0].shape(), (Shape{3, 1, 2}));
  expectValues(r[0], {1, 2, 3, 4, 5, 6});
  auto bad = runOp("reshape", {F32({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {TT(DType::F32, {4})});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Transpose) {
  auto r = runOp("transpose", {F32({2, 3}, {1, 2, 3, 4, 5, 6})},
                 {TT(DType::F32, {3, 2})}, {{"perm", Attr::ofInts({1, 0})}});
  ASSERT_OK(r);
  expectValues(r[0], {1, 4, 2, 5, 3, 6});
  // x[a][b][c] = 100a + 10b + c with shape [2, 1, 3]; perm [2, 0, 1] gives
  // result[c][a][b].
  auto r3 =
      runOp("transpose", {F32({2, 1, 3}, {0, 1, 2, 100, 101, 102})},
            {TT(DType::F32, {3, 2, 1})}, {{"perm", Attr::ofInts({2, 0, 1})}});
  ASSERT_OK(r3);
  expectValues(r3[0], {0, 100, 1, 101, 2, 102});
  auto bad = runOp("transpose", {F32({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {TT(DType::F32, {3, 2})}, {{"perm", Attr::ofInts({0, 0})}});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Broadcast) {
  auto row = runOp("broadcast", {F32({3}, {1, 2, 3})}, {TT(DType::F32, {2, 3})},
                   {{"shape", Attr::ofInts({2, 3})}});
  ASSERT_OK(row);
  expectValues(row[0], {1, 2, 3, 1, 2, 3});
  auto col = runOp("broadcast", {F32({2, 1}, {1, 2})}, {TT(DType::F32, {2, 3})},
                   {{"shape", Attr::ofInts({2, 3})}});
  ASSERT_OK(col);
  expectValues(col[0], {1, 1, 1, 2, 2, 2});
  auto scalar = runOp("broadcast", {I32({}, {9})}, {TT(DType::I32, {2, 2})},
                      {{"shape", Attr::ofInts({2, 2})}});
  ASSERT_OK(scalar);
  expectValues(scalar[0], {9, 9, 9, 9});
  auto bad = runOp("broadcast", {F32({2}, {1, 2})}, {TT(DType::F32, {3})},
                   {{"shape", Attr::ofInts({3})}});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Slice) {
  Tensor x = F32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto r = runOp("slice", {x}, {TT(DType::F32, {3})},
                 {{"start", Attr::ofInts({1})},
                  {"limit", Attr::ofInts({8})},
                  {"step", Attr::ofInts({3})}});
  ASSERT_OK(r);
  expectValues(r[0], {1, 4, 7});
  // numpy: x[-3:100] == [7, 8, 9]
  auto neg = runOp("slice", {x}, {TT(DType::F32, {3})},
                   {{"start", Attr::ofInts({-3})},
                    {"limit", Attr::ofInts({100})},
                    {"step", Attr::ofInts({1})}});
  ASSERT_OK(neg);
  expectValues(neg[0], {7, 8, 9});
  Tensor m = F32({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  auto two = runOp("slice", {m}, {TT(DType::F32, {2, 2})},
                   {{"start", Attr::ofInts({1, 0})},
                    {"limit", Attr::ofInts({3, 4})},
                    {"step", Attr::ofInts({1, 2})}});
  ASSERT_OK(two);
  expectValues(two[0], {10, 12, 20, 22});
  auto badStep = runOp("slice", {x}, {TT(DType::F32, {3})},
                       {{"start", Attr::ofInts({0})},
                        {"limit", Attr::ofInts({3})},
                        {"step", Attr::ofInts({0})}});
  EXPECT_EQ(badStep.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Concat) {
  Tensor a = F32({1, 2}, {1, 2});
  Tensor b = F32({2, 2}, {3, 4, 5, 6});
  auto rows = runOp("concat", {a, b}, {TT(DType::F32, {3, 2})},
                    {{"axis", Attr::ofInt(0)}});
  ASSERT_OK(rows);
  expectValues(rows[0], {1, 2, 3, 4, 5, 6});
  Tensor c = F32({2, 1}, {7, 8});
  auto cols = runOp("concat", {b, c}, {TT(DType::F32, {2, 3})},
                    {{"axis", Attr::ofInt(-1)}});
  ASSERT_OK(cols);
  expectValues(cols[0], {3, 4, 7, 5, 6, 8});
  auto bad = runOp("concat", {a, c}, {TT(DType::F32, {3, 2})},
                   {{"axis", Attr::ofInt(0)}});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, DynamicSliceClampsStarts) {
  Tensor x = F32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attrs sizes = {{"sizes", Attr::ofInts({3})}};
  auto inside =
      runOp("dynamic_slice", {x, I32({}, {4})}, {TT(DType::F32, {3})}, sizes);
  ASSERT_OK(inside);
  expectValues(inside[0], {4, 5, 6});
  auto high =
      runOp("dynamic_slice", {x, I32({}, {8})}, {TT(DType::F32, {3})}, sizes);
  ASSERT_OK(high);
  expectValues(high[0], {7, 8, 9}); // start clamped to 10 - 3
  auto low = runOp("dynamic_slice", {x, T(DType::I64, {}, {-2})},
                   {TT(DType::F32, {3})}, sizes);
  ASSERT_OK(low);
  expectValues(low[0], {0, 1, 2});
  Tensor m = F32({3, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22});
  auto two = runOp("dynamic_slice", {m, I32({}, {5}), I32({}, {1})},
                   {TT(DType::F32, {2, 2})}, {{"sizes", Attr::ofInts({2, 2})}});
  ASSERT_OK(two);
  expectValues(two[0], {11, 12, 21, 22});
  auto missingStart =
      runOp("dynamic_slice", {m, I32({}, {0})}, {TT(DType::F32, {2, 2})},
            {{"sizes", Attr::ofInts({2, 2})}});
  EXPECT_EQ(missingStart.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, DynamicUpdateSliceClampsStarts) {
  Tensor x = F32({4, 3}, std::vector<double>(12, 0.0));
  Tensor update = F32({1, 2}, {1, 2});
  auto r =
      runOp("dynamic_update_slice", {x, update, I32({}, {5}), I32({}, {-4})},
            {TT(DType::F32, {4, 3})});
  ASSERT_OK(r);
  // Row clamped to 3, column to 0.
  expectValues(r[0], {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0});
  auto mid =
      runOp("dynamic_update_slice", {x, update, I32({}, {1}), I32({}, {2})},
            {TT(DType::F32, {4, 3})});
  ASSERT_OK(mid);
  // Column 2 with width 2 does not fit: clamped to 1.
  expectValues(mid[0], {0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0});
}

TEST(EvaluatorOps, Gather) {
  Tensor x = F32({3, 2}, {0, 1, 10, 11, 20, 21});
  auto rows = runOp("gather", {x, I32({2}, {2, 0})}, {TT(DType::F32, {2, 2})},
                    {{"axis", Attr::ofInt(0)}});
  ASSERT_OK(rows);
  expectValues(rows[0], {20, 21, 0, 1});
  // Axis 1 with a 2-D index: result [3] + [2, 2] = [3, 2, 2].
  auto cols = runOp("gather", {x, I32({2, 2}, {1, 0, 0, 0})},
                    {TT(DType::F32, {3, 2, 2})}, {{"axis", Attr::ofInt(-1)}});
  ASSERT_OK(cols);
  expectValues(cols[0], {1, 0, 0, 0, 11, 10, 10, 10, 21, 20, 20, 20});
}

TEST(EvaluatorOps, GatherOutOfRange) {
  Tensor x = F32({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto r = runOp("gather", {x, I32({2}, {1, 9})}, {TT(DType::F32, {2})},
                 {{"axis", Attr::ofInt(0)}});
  EXPECT_EQ(r.status.code(), ErrorCode::IndexOutOfRange);
  EXPECT_EQ(r.status.message(),
            "test.mlir:3:7: gather index 9 outside [0, 8) on axis 0");
  auto negative = runOp("gather", {x, I32({1}, {-1})}, {TT(DType::F32, {1})},
                        {{"axis", Attr::ofInt(0)}});
  EXPECT_EQ(negative.status.code(), ErrorCode::IndexOutOfRange);
}

TEST(EvaluatorOps, ScatterUpdate) {
  Tensor x = F32({4, 2}, {0, 0, 1, 1, 2, 2, 3, 3});
  Tensor updates = F32({3, 2}, {50, 51, 60, 61, 70, 71});
  auto r = runOp("scatter_update", {x, I32({3}, {2, -1, 0}), updates},
                 {TT(DType::F32, {4, 2})});
  ASSERT_OK(r);
  // -1 skips entry 1 entirely.
  expectValues(r[0], {70, 71, 1, 1, 50, 51, 3, 3});

  auto twice = runOp("scatter_update", {x, I32({3}, {3, -1, 3}), updates},
                     {TT(DType::F32, {4, 2})});
  EXPECT_EQ(twice.status.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(twice.status.message().find("slot 3 written twice"),
            std::string::npos)
      << twice.status.message();
  auto outside = runOp("scatter_update", {x, I32({3}, {0, 4, 1}), updates},
                       {TT(DType::F32, {4, 2})});
  EXPECT_EQ(outside.status.code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(outside.status.message().find("index 4"), std::string::npos);
  auto minusTwo = runOp("scatter_update", {x, I32({3}, {0, -2, 1}), updates},
                        {TT(DType::F32, {4, 2})});
  EXPECT_EQ(minusTwo.status.code(), ErrorCode::IndexOutOfRange);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

TEST(EvaluatorOps, Matmul) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  auto r = runOp("matmul", {a, b}, {TT(DType::F32, {2, 2})});
  ASSERT_OK(r);
  expectValues(r[0], {58, 64, 139, 154});
  auto ints =
      runOp("matmul", {I32({1, 2}, {2147483647, 1}), I32({2, 1}, {1, 1})},
            {TT(DType::I32, {1, 1})});
  ASSERT_OK(ints);
  expectValues(ints[0], {-2147483648.0}); // wraps
  auto bad = runOp("matmul", {a, a}, {TT(DType::F32, {2, 3})});
  EXPECT_EQ(bad.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, MatmulBroadcastsBatchDims) {
  // a: [2, 1, 1, 2] (batch [2, 1]); b: [3, 2, 1] (batch [3]) -> [2, 3, 1, 1].
  Tensor a = F32({2, 1, 1, 2}, {1, 2, 10, 20});
  Tensor b = F32({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  auto r = runOp("matmul", {a, b}, {TT(DType::F32, {2, 3, 1, 1})});
  ASSERT_OK(r);
  expectValues(r[0], {1, 2, 3, 10, 20, 30});
  // A rank-2 operand broadcasts against a batched one.
  Tensor batched = F32({2, 1, 2}, {1, 2, 3, 4});
  Tensor shared = F32({2, 2}, {1, 1, 0, 1});
  auto s = runOp("matmul", {batched, shared}, {TT(DType::F32, {2, 1, 2})});
  ASSERT_OK(s);
  expectValues(s[0], {1, 3, 3, 7});
}

TEST(EvaluatorOps, Bf16MatmulNativeRoundingDiffersFromReference) {
  Tensor a = T(DType::BF16, {1, 2}, {1.0, std::ldexp(1.0, -8)});
  Tensor b = T(DType::BF16, {2, 1}, {1.0, 1.0});
  auto native = runOp("matmul", {a, b}, {TT(DType::BF16, {1, 1})});
  auto ref = runOp("matmul", {a, b}, {TT(DType::BF16, {1, 1})}, {},
                   NumericMode::Reference);
  ASSERT_OK(native);
  ASSERT_OK(ref);
  // 1 + 2^-8 is a bf16 tie: native stores 1.0, the oracle keeps the sum.
  expectValues(native[0], {1.0});
  expectValues(ref[0], {1.0 + std::ldexp(1.0, -8)});
}

TEST(EvaluatorOps, F32AccumulationOrderInNativeMode) {
  // 2^24 + 1 + 1 accumulated in f32: each +1 is a tie that rounds back down.
  Tensor a = F32({1, 3}, {16777216, 1, 1});
  Tensor b = F32({3, 1}, {1, 1, 1});
  auto native = runOp("matmul", {a, b}, {TT(DType::F32, {1, 1})});
  auto ref = runOp("matmul", {a, b}, {TT(DType::F32, {1, 1})}, {},
                   NumericMode::Reference);
  ASSERT_OK(native);
  ASSERT_OK(ref);
  expectValues(native[0], {16777216});
  expectValues(ref[0], {16777218});
  auto sumNative = runOp("reduce_sum", {F32({3}, {16777216, 1, 1})},
                         {TT(DType::F32, {})}, {{"axis", Attr::ofInt(0)}});
  auto sumRef =
      runOp("reduce_sum", {F32({3}, {16777216, 1, 1})}, {TT(DType::F32, {})},
            {{"axis", Attr::ofInt(0)}}, NumericMode::Reference);
  ASSERT_OK(sumNative);
  ASSERT_OK(sumRef);
  expectValues(sumNative[0], {16777216});
  expectValues(sumRef[0], {16777218});
  // In the other index order the ones add up first and survive.
  auto reordered = runOp("reduce_sum", {F32({3}, {1, 1, 16777216})},
                         {TT(DType::F32, {})}, {{"axis", Attr::ofInt(0)}});
  ASSERT_OK(reordered);
  expectValues(reordered[0], {16777218});
}

TEST(EvaluatorOps, BinaryBroadcasting) {
  Tensor col = F32({2, 1}, {10, 20});
  Tensor row = F32({3}, {1, 2, 3});
  auto add = runOp("add", {col, row}, {TT(DType::F32, {2, 3})});
  ASSERT_OK(add);
  expectValues(add[0], {11, 12, 13, 21, 22, 23});
  auto sub = runOp("sub", {row, col}, {TT(DType::F32, {2, 3})});
  ASSERT_OK(sub);
  expectValues(sub[0], {-9, -8, -7, -19, -18, -17});
  auto mul = runOp("mul", {col, F32({}, {0.5})}, {TT(DType::F32, {2, 1})});
  ASSERT_OK(mul);
  expectValues(mul[0], {5, 10});
  auto div =
      runOp("div", {F32({3}, {1, -1, 0}), F32({}, {0})}, {TT(DType::F32, {3})});
  ASSERT_OK(div);
  expectValues(div[0], {kInf, -kInf, kNaN});
  auto f32div =
      runOp("div", {F32({}, {1}), F32({}, {3})}, {TT(DType::F32, {})});
  ASSERT_OK(f32div);
  expectValues(f32div[0], {static_cast<double>(1.0f / 3.0f)});
  auto incompatible = runOp("add", {F32({2}, {1, 2}), F32({3}, {1, 2, 3})},
                            {TT(DType::F32, {3})});
  EXPECT_EQ(incompatible.status.code(), ErrorCode::InvalidArgument);
  auto mixed =
      runOp("add", {F32({1}, {1}), I32({1}, {1})}, {TT(DType::F32, {1})});
  EXPECT_EQ(mixed.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, F16AddRoundsInNativeModeOnly) {
  Tensor one = T(DType::F16, {1}, {1.0});
  Tensor tiny = T(DType::F16, {1}, {std::ldexp(1.0, -11)});
  auto native = runOp("add", {one, tiny}, {TT(DType::F16, {1})});
  auto ref = runOp("add", {one, tiny}, {TT(DType::F16, {1})}, {},
                   NumericMode::Reference);
  ASSERT_OK(native);
  ASSERT_OK(ref);
  expectValues(native[0], {1.0});
  expectValues(ref[0], {1.0 + std::ldexp(1.0, -11)});
}

TEST(EvaluatorOps, IntegerArithmetic) {
  auto div = runOp("div", {I32({4}, {7, -7, 7, -7}), I32({4}, {2, 2, -2, -2})},
                   {TT(DType::I32, {4})});
  ASSERT_OK(div);
  expectValues(div[0], {3, -3, -3, 3}); // truncation toward zero
  auto byZero =
      runOp("div", {I32({2}, {1, 2}), I32({2}, {1, 0})}, {TT(DType::I32, {2})});
  EXPECT_EQ(byZero.status.code(), ErrorCode::InvalidArgument);
  auto wrap = runOp("add", {I32({1}, {2147483647}), I32({1}, {1})},
                    {TT(DType::I32, {1})});
  ASSERT_OK(wrap);
  expectValues(wrap[0], {-2147483648.0});
  auto minOverMinusOne =
      runOp("div", {I32({1}, {-2147483648.0}), I32({1}, {-1})},
            {TT(DType::I32, {1})});
  ASSERT_OK(minOverMinusOne);
  expectValues(minOverMinusOne[0], {-2147483648.0});
  auto pow = runOp("pow", {I32({3}, {3, 2, 0}), I32({3}, {4, 31, 0})},
                   {TT(DType::I32, {3})});
  ASSERT_OK(pow);
  expectValues(pow[0], {81, -2147483648.0, 1});
  auto negExp =
      runOp("pow", {I32({1}, {2}), I32({1}, {-1})}, {TT(DType::I32, {1})});
  EXPECT_EQ(negExp.status.code(), ErrorCode::InvalidArgument);
  auto maxMin = runOp("max", {I32({2}, {-3, 5}), I32({2}, {2, 4})},
                      {TT(DType::I32, {2})});
  ASSERT_OK(maxMin);
  expectValues(maxMin[0], {2, 5});
}

TEST(EvaluatorOps, I64ResultsNearTheTopKeepTheirSign) {
  // 2^63 - 512 is an int64, but the nearest double is 2^63; the result must
  // not wrap to INT64_MIN on its way into the tensor.
  Tensor big = T(DType::I64, {1}, {9223372036854774784.0});
  auto r =
      runOp("add", {big, T(DType::I64, {1}, {512})}, {TT(DType::I64, {1})});
  ASSERT_OK(r);
  EXPECT_GT(r[0].at(0), 0.0);
  auto wrapped = runOp("add", {big, big}, {TT(DType::I64, {1})});
  ASSERT_OK(wrapped);
  expectValues(wrapped[0], {-2048}); // a genuine overflow does wrap
}

TEST(EvaluatorOps, MatmulMixedFloatDtypesTakeTheFirstDtype) {
  Tensor a = T(DType::BF16, {1, 1}, {1.0});
  Tensor b = F32({1, 1}, {1.0 + std::ldexp(1.0, -10)});
  auto r = runOp("matmul", {a, b}, {TT(DType::BF16, {1, 1})});
  ASSERT_OK(r);
  expectValues(r[0], {1.0});
  auto mixed =
      runOp("matmul", {a, I32({1, 1}, {1})}, {TT(DType::BF16, {1, 1})});
  EXPECT_EQ(mixed.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, MaxMinPowFloat) {
  Tensor a = F32({3}, {1, kNaN, -0.5});
  Tensor b = F32({3}, {2, 0, kNaN});
  auto mx = runOp("max", {a, b}, {TT(DType::F32, {3})});
  auto mn = runOp("min", {a, b}, {TT(DType::F32, {3})});
  ASSERT_OK(mx);
  ASSERT_OK(mn);
  expectValues(mx[0], {2, kNaN, kNaN});
  expectValues(mn[0], {1, kNaN, kNaN});
  auto pw = runOp("pow", {F32({2}, {2, 4}), F32({2}, {10, 0.5})},
                  {TT(DType::F32, {2})});
  ASSERT_OK(pw);
  expectValues(pw[0], {1024, 2});
}

TEST(EvaluatorOps, Compare) {
  Tensor a = F32({4}, {1, 2, kNaN, 3});
  Tensor b = F32({4}, {1, 3, kNaN, 2});
  std::map<std::string, std::vector<double>> expected = {
      {"eq", {1, 0, 0, 0}}, {"ne", {0, 1, 1, 1}}, {"lt", {0, 1, 0, 0}},
      {"le", {1, 1, 0, 0}}, {"gt", {0, 0, 0, 1}}, {"ge", {1, 0, 0, 1}}};
  for (const auto &[pred, want] : expected) {
    auto r = runOp("compare", {a, b}, {TT(DType::I1, {4})},
                   {{"predicate", Attr::ofString(pred)}});
    ASSERT_OK(r);
    EXPECT_EQ(r[0].dtype(), DType::I1);
    SCOPED_TRACE(pred);
    expectValues(r[0], want);
  }
  auto bcast =
      runOp("compare", {I32({2, 1}, {1, 2}), I32({2}, {1, 2})},
            {TT(DType::I1, {2, 2})}, {{"predicate", Attr::ofString("lt")}});
  ASSERT_OK(bcast);
  expectValues(bcast[0], {0, 1, 0, 0});
  auto badPred = runOp("compare", {a, b}, {TT(DType::I1, {4})},
                       {{"predicate", Attr::ofString("lte")}});
  EXPECT_EQ(badPred.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Select) {
  Tensor c = I1({2, 1}, {1, 0});
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({}, {-1});
  auto r = runOp("select", {c, a, b}, {TT(DType::F32, {2, 3})});
  ASSERT_OK(r);
  expectValues(r[0], {1, 2, 3, -1, -1, -1});
  auto notBool = runOp("select", {I32({1}, {1}), F32({1}, {1}), F32({1}, {2})},
                       {TT(DType::F32, {1})});
  EXPECT_EQ(notBool.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, Logical) {
  Tensor a = I1({2, 2}, {0, 0, 1, 1});
  Tensor b = I1({2}, {0, 1});
  auto andR = runOp("and", {a, b}, {TT(DType::I1, {2, 2})});
  auto orR = runOp("or", {a, b}, {TT(DType::I1, {2, 2})});
  auto notR = runOp("not", {a}, {TT(DType::I1, {2, 2})});
  ASSERT_OK(andR);
  ASSERT_OK(orR);
  ASSERT_OK(notR);
  expectValues(andR[0], {0, 0, 0, 1});
  expectValues(orR[0], {0, 1, 1, 1});
  expectValues(notR[0], {1, 1, 0, 0});
  auto ints =
      runOp("and", {I32({1}, {1}), I32({1}, {1})}, {TT(DType::I1, {1})});
  EXPECT_EQ(ints.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, UnaryFloat) {
  Tensor x = F32({4}, {0, -kInf, 4, -1});
  auto run = [&](const char *op) {
    auto r = runOp(op, {x}, {TT(DType::F32, {4})}, {}, NumericMode::Reference);
    EXPECT_TRUE(r.status.isOk()) << r.status.toString();
    return r.results.empty() ? Tensor() : r.results[0];
  };
  expectValues(run("exp"), {1, 0, std::exp(4.0), std::exp(-1.0)});
  expectValues(run("log"), {-kInf, kNaN, std::log(4.0), kNaN});
  expectValues(run("sqrt"), {0, kNaN, 2, kNaN});
  expectValues(run("rsqrt"), {kInf, kNaN, 0.5, kNaN});
  expectValues(run("neg"), {-0.0, kInf, -4, 1});
  expectValues(run("abs"), {0, kInf, 4, 1});
  expectValues(run("tanh"), {0, -1, std::tanh(4.0), std::tanh(-1.0)});
  Tensor angles = F32({2}, {0, 1});
  auto sin = runOp("sin", {angles}, {TT(DType::F32, {2})});
  auto cos = runOp("cos", {angles}, {TT(DType::F32, {2})});
  ASSERT_OK(sin);
  ASSERT_OK(cos);
  // Native mode stores the f32 rounding of the exact result.
  expectValues(sin[0],
               {0, static_cast<double>(static_cast<float>(std::sin(1.0)))});
  expectValues(cos[0],
               {1, static_cast<double>(static_cast<float>(std::cos(1.0)))});
  EXPECT_NE(sin[0].at(1), std::sin(1.0));
}

TEST(EvaluatorOps, UnaryInteger) {
  Tensor x = I32({3}, {-2147483648.0, -5, 7});
  auto neg = runOp("neg", {x}, {TT(DType::I32, {3})});
  auto abs = runOp("abs", {x}, {TT(DType::I32, {3})});
  ASSERT_OK(neg);
  ASSERT_OK(abs);
  expectValues(neg[0], {-2147483648.0, 5, -7}); // INT_MIN wraps to itself
  expectValues(abs[0], {-2147483648.0, 5, 7});
  auto exp = runOp("exp", {x}, {TT(DType::I32, {3})});
  EXPECT_EQ(exp.status.code(), ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// Reductions and selection
//===----------------------------------------------------------------------===//

TEST(EvaluatorOps, ReduceSum) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto rows = runOp("reduce_sum", {x}, {TT(DType::F32, {2})},
                    {{"axis", Attr::ofInt(1)}, {"keepdim", Attr::ofInt(0)}});
  ASSERT_OK(rows);
  expectValues(rows[0], {6, 15});
  auto cols = runOp("reduce_sum", {x}, {TT(DType::F32, {1, 3})},
                    {{"axis", Attr::ofInt(-2)}, {"keepdim", Attr::ofInt(1)}});
  ASSERT_OK(cols);
  EXPECT_EQ(cols[0].shape(), (Shape{1, 3}));
  expectValues(cols[0], {5, 7, 9});
  auto ints = runOp("reduce_sum", {I32({2}, {2147483647, 2})},
                    {TT(DType::I32, {})}, {{"axis", Attr::ofInt(0)}});
  ASSERT_OK(ints);
  expectValues(ints[0], {-2147483647});
  auto badAxis = runOp("reduce_sum", {x}, {TT(DType::F32, {2})},
                       {{"axis", Attr::ofInt(2)}});
  EXPECT_EQ(badAxis.status.code(), ErrorCode::InvalidArgument);
  auto wrongKeepdimShape =
      runOp("reduce_sum", {x}, {TT(DType::F32, {2})},
            {{"axis", Attr::ofInt(1)}, {"keepdim", Attr::ofInt(1)}});
  EXPECT_EQ(wrongKeepdimShape.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, ReduceMaxMin) {
  Tensor x = F32({3, 3}, {1, 5, 3, -kInf, -kInf, -kInf, 2, kNaN, 9});
  Attrs lastAxis = {{"axis", Attr::ofInt(-1)}, {"keepdim", Attr::ofInt(1)}};
  auto mx = runOp("reduce_max", {x}, {TT(DType::F32, {3, 1})}, lastAxis);
  auto mn = runOp("reduce_min", {x}, {TT(DType::F32, {3, 1})}, lastAxis);
  ASSERT_OK(mx);
  ASSERT_OK(mn);
  expectValues(mx[0], {5, -kInf, kNaN});
  expectValues(mn[0], {1, -kInf, kNaN});
  auto ints = runOp("reduce_min", {I32({2, 2}, {4, -1, 3, 8})},
                    {TT(DType::I32, {2})}, {{"axis", Attr::ofInt(0)}});
  ASSERT_OK(ints);
  expectValues(ints[0], {3, -1});
}

TEST(EvaluatorOps, TopkTiesAndNaN) {
  Tensor x = F32({2, 5}, {3, 1, 3, kNaN, 2, 0, 0, 5, 0, -1});
  auto r = runOp("topk", {x}, {TT(DType::F32, {2, 3}), TT(DType::I32, {2, 3})},
                 {{"k", Attr::ofInt(3)}});
  ASSERT_OK(r);
  expectValues(r[0], {kNaN, 3, 3, 5, 0, 0});
  expectValues(r[1], {3, 0, 2, 2, 0, 1}); // ties: lower index first
  EXPECT_EQ(r[1].dtype(), DType::I32);
  auto i64 = runOp("topk", {F32({3}, {1, 1, 1})},
                   {TT(DType::F32, {2}), TT(DType::I64, {2})},
                   {{"k", Attr::ofInt(2)}});
  ASSERT_OK(i64);
  expectValues(i64[1], {0, 1});
  auto tooMany = runOp("topk", {F32({3}, {1, 1, 1})},
                       {TT(DType::F32, {4}), TT(DType::I32, {4})},
                       {{"k", Attr::ofInt(4)}});
  EXPECT_EQ(tooMany.status.code(), ErrorCode::InvalidArgument);
}

TEST(EvaluatorOps, IndexGuardWitness) {
  Attrs range = {{"lo", Attr::ofInt(0)}, {"hi", Attr::ofInt(7)}};
  auto outside = runOp("index_guard", {I32({3}, {1, 9, -2})},
                       {TT(DType::I32, {3}), TT(DType::I1, {})}, range);
  ASSERT_OK(outside);
  expectValues(outside[0], {1, 7, 0});
  expectValues(outside[1], {0});
  auto inside = runOp("index_guard", {I32({3}, {0, 7, 3})},
                      {TT(DType::I32, {3}), TT(DType::I1, {})}, range);
  ASSERT_OK(inside);
  expectValues(inside[0], {0, 7, 3});
  expectValues(inside[1], {1});
}

//===----------------------------------------------------------------------===//
// Malformed records
//===----------------------------------------------------------------------===//

TEST(EvaluatorOps, UnsupportedOp) {
  auto r = runOp("fft", {F32({1}, {1})}, {TT(DType::F32, {1})});
  EXPECT_EQ(r.status.code(), ErrorCode::Unsupported);
  EXPECT_NE(r.status.message().find("fft"), std::string::npos);
  EXPECT_NE(r.status.message().find("test.mlir:3:7"), std::string::npos);
}

TEST(EvaluatorOps, MalformedRecordsFailCleanly) {
  EXPECT_EQ(runOp("add", {F32({1}, {1})}, {TT(DType::F32, {1})}).status.code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(runOp("exp", {F32({1}, {1})}, {}).status.code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(runOp("topk", {F32({2}, {1, 2})}, {TT(DType::F32, {1})},
                  {{"k", Attr::ofInt(1)}})
                .status.code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(runOp("gather", {F32({2}, {1, 2}), I32({1}, {0})},
                  {TT(DType::F32, {1})}, {{"axis", Attr::ofString("0")}})
                .status.code(),
            ErrorCode::InvalidArgument);
  // The declared result type disagrees with what the op computes.
  auto wrongType =
      runOp("add", {F32({2}, {1, 2}), F32({2}, {3, 4})}, {TT(DType::F16, {2})});
  EXPECT_EQ(wrongType.status.code(), ErrorCode::InvalidArgument);
  // An operand whose values do not fill its shape.
  Tensor ragged(TensorType{DType::F32, {3}}, {1.0});
  EXPECT_EQ(runOp("neg", {ragged}, {TT(DType::F32, {3})}).status.code(),
            ErrorCode::InvalidArgument);
  Eqn eqn;
  eqn.op = "neg";
  std::vector<Tensor> results;
  EXPECT_EQ(evaluateEqn(eqn, {nullptr}, {TT(DType::F32, {1})},
                        NumericMode::Native, results)
                .code(),
            ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// Whole graphs
//===----------------------------------------------------------------------===//

TEST(EvaluatorGraph, SoftmaxWithFullyMaskedRowIsNaN) {
  GraphBuilder b;
  TensorType rows = TT(DType::F32, {2, 3});
  TensorType col = TT(DType::F32, {2, 1});
  Attrs lastKeep = {{"axis", Attr::ofInt(-1)}, {"keepdim", Attr::ofInt(1)}};
  int x = b.input("x", rows);
  int m = b.eqn1("reduce_max", {x}, col, lastKeep);
  int s = b.eqn1("sub", {x, m}, rows);
  int e = b.eqn1("exp", {s}, rows);
  int z = b.eqn1("reduce_sum", {e}, col, lastKeep);
  int y = b.eqn1("div", {e, z}, rows);
  b.output("y", y);

  Tensor input = F32({2, 3}, {0, std::log(3.0), 0, -kInf, -kInf, -kInf});
  Bindings bindings;
  bindings.inputs["x"] = &input;
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(b.g, bindings, NumericMode::Reference, outputs);
  ASSERT_TRUE(st.isOk()) << st.toString();
  ASSERT_EQ(outputs.count("y"), 1u);
  const Tensor &out = outputs["y"];
  // Row 0: exp(x - log 3) = [1/3, 1, 1/3], sum 5/3.
  EXPECT_NEAR(out.at(0), 0.2, 1e-15);
  EXPECT_NEAR(out.at(1), 0.6, 1e-15);
  EXPECT_NEAR(out.at(2), 0.2, 1e-15);
  for (int i = 3; i < 6; ++i)
    EXPECT_TRUE(std::isnan(out.at(i))) << i;
}

TEST(EvaluatorGraph, EqnErrorCarriesLocationAndPublishesNothing) {
  GraphBuilder b;
  int x = b.input("x", TT(DType::F32, {8}));
  int i = b.input("i", TT(DType::I32, {1}));
  int ok = b.eqn1("neg", {x}, TT(DType::F32, {8}));
  b.eqn("gather", {x, i}, {TT(DType::F32, {1})}, {{"axis", Attr::ofInt(0)}},
        "graph.mlir:12:5");
  b.output("ok", ok);
  Tensor xs = F32({8}, std::vector<double>(8, 1.0));
  Tensor idx = I32({1}, {9});
  Bindings bindings;
  bindings.inputs = {{"x", &xs}, {"i", &idx}};
  std::map<std::string, Tensor> outputs = {{"sentinel", F32({}, {1})}};
  Status st = evaluate(b.g, bindings, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::IndexOutOfRange);
  EXPECT_EQ(st.message(),
            "graph.mlir:12:5: gather index 9 outside [0, 8) on axis 0");
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs.count("sentinel"), 1u);
}

/// A decode-step-like graph: a guarded position writes a row into a state
/// cache; the guard's witness is a validation output.
struct CacheGraph {
  GraphBuilder b;
  CacheGraph() {
    int pos = b.input("pos", TT(DType::I32, {}));
    int row = b.input("row", TT(DType::F32, {1, 2}));
    int cache = b.input("cache_in", TT(DType::F32, {4, 2}), std::nullopt, "kv");
    auto guard =
        b.eqn("index_guard", {pos}, {TT(DType::I32, {}), TT(DType::I1, {})},
              {{"lo", Attr::ofInt(0)}, {"hi", Attr::ofInt(3)}});
    int zero = b.eqn1("constant", {}, TT(DType::I32, {}),
                      {{"value", Attr::ofTensor(I32({}, {0}))}});
    int updated = b.eqn1("dynamic_update_slice", {cache, row, guard[0], zero},
                         TT(DType::F32, {4, 2}));
    int total = b.eqn1("reduce_sum", {updated}, TT(DType::F32, {2}),
                       {{"axis", Attr::ofInt(0)}});
    b.output("in_bounds", guard[1], "", /*validation=*/true);
    b.output("total", total);
    b.output("cache_out", updated, "kv");
  }
};

TEST(EvaluatorGraph, ValidationFailurePublishesNothing) {
  CacheGraph g;
  Tensor pos = I32({}, {5});
  Tensor row = F32({1, 2}, {7, 8});
  Tensor cache = F32({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  Bindings bindings;
  bindings.inputs = {{"pos", &pos}, {"row", &row}};
  bindings.state = {{"cache_in", &cache}};
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(g.b.g, bindings, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::ValidationFailed);
  EXPECT_NE(st.message().find("in_bounds"), std::string::npos);
  EXPECT_TRUE(outputs.empty());
  expectValues(cache, {1, 1, 1, 1, 1, 1, 1, 1});
}

TEST(EvaluatorGraph, ValidRunUpdatesStateInPlace) {
  CacheGraph g;
  Tensor pos = I32({}, {2});
  Tensor row = F32({1, 2}, {7, 8});
  Tensor cache = F32({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  const double *storage = cache.values().data();
  Bindings bindings;
  bindings.inputs = {{"pos", &pos}, {"row", &row}};
  bindings.state = {{"cache_in", &cache}};
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(g.b.g, bindings, NumericMode::Native, outputs);
  ASSERT_TRUE(st.isOk()) << st.toString();
  // The very object the caller bound was updated, in its own storage.
  EXPECT_EQ(bindings.state.at("cache_in"), &cache);
  EXPECT_EQ(cache.values().data(), storage);
  expectValues(cache, {1, 1, 1, 1, 7, 8, 1, 1});
  // The state output is not repeated among the outputs; the witness is.
  EXPECT_EQ(outputs.count("cache_out"), 0u);
  ASSERT_EQ(outputs.count("in_bounds"), 1u);
  EXPECT_EQ(outputs["in_bounds"].dtype(), DType::I1);
  expectValues(outputs["in_bounds"], {1});
  expectValues(outputs["total"], {10, 11});
}

TEST(EvaluatorGraph, StateInputMayBeBoundInEitherMapButNeedsABuffer) {
  CacheGraph g;
  Tensor pos = I32({}, {1});
  Tensor row = F32({1, 2}, {7, 8});
  Tensor cache = F32({4, 2}, std::vector<double>(8, 0.0));
  std::map<std::string, Tensor> outputs;
  // Only in inputs: there is nowhere to write the outgoing state.
  Bindings inputsOnly;
  inputsOnly.inputs = {{"pos", &pos}, {"row", &row}, {"cache_in", &cache}};
  Status st = evaluate(g.b.g, inputsOnly, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::MissingInput);
  EXPECT_TRUE(outputs.empty());
  // Both maps naming the same buffer count as one binding.
  Bindings both = inputsOnly;
  both.state = {{"cache_in", &cache}};
  st = evaluate(g.b.g, both, NumericMode::Native, outputs);
  ASSERT_TRUE(st.isOk()) << st.toString();
  expectValues(cache, {0, 0, 7, 8, 0, 0, 0, 0});
  // Two different tensors for one input is ambiguous.
  Tensor other = cache;
  Bindings twice = inputsOnly;
  twice.inputs["cache_in"] = &other;
  twice.state = {{"cache_in", &cache}};
  outputs.clear();
  st = evaluate(g.b.g, twice, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(outputs.empty());
}

/// The bindings tests share a graph with a ranged position and a state pair.
class BindingsTest : public ::testing::Test {
protected:
  void SetUp() override {
    int pos = b.input("pos", TT(DType::I32, {}), std::make_pair(0, 8));
    int x = b.input("x", TT(DType::F32, {2}));
    int state = b.input("acc_in", TT(DType::F32, {2}), std::nullopt, "acc");
    int sum = b.eqn1("add", {state, x}, TT(DType::F32, {2}));
    int posF = b.eqn1("convert", {pos}, TT(DType::F32, {}));
    int shifted = b.eqn1("add", {sum, posF}, TT(DType::F32, {2}));
    b.output("shifted", shifted);
    b.output("acc_out", sum, "acc");
    bindings.inputs = {{"pos", &pos_}, {"x", &x_}};
    bindings.state = {{"acc_in", &acc_}};
  }

  /// Runs and checks that the failure left everything untouched.
  void expectFailure(ErrorCode code, const std::string &fragment) {
    std::map<std::string, Tensor> outputs;
    Status st = evaluate(b.g, bindings, NumericMode::Native, outputs);
    EXPECT_EQ(st.code(), code) << st.toString();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
    EXPECT_TRUE(outputs.empty());
    expectValues(acc_, {100, 200});
    EXPECT_EQ(checkBindings(b.g, bindings).code(), code);
  }

  GraphBuilder b;
  Bindings bindings;
  Tensor pos_ = I32({}, {3});
  Tensor x_ = F32({2}, {1, 2});
  Tensor acc_ = F32({2}, {100, 200});
};

TEST_F(BindingsTest, ValidRun) {
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(b.g, bindings, NumericMode::Native, outputs);
  ASSERT_TRUE(st.isOk()) << st.toString();
  expectValues(outputs["shifted"], {104, 205});
  expectValues(acc_, {101, 202});
  EXPECT_EQ(outputs.size(), 1u);
}

TEST_F(BindingsTest, UnknownName) {
  Tensor extra = F32({}, {0});
  bindings.inputs["typo"] = &extra;
  expectFailure(ErrorCode::UnknownName, "typo");
}

TEST_F(BindingsTest, UnknownStateName) {
  bindings.state["x"] = &acc_; // x is an input, but not a state input
  expectFailure(ErrorCode::UnknownName, "'x'");
}

TEST_F(BindingsTest, MissingInput) {
  bindings.inputs.erase("x");
  expectFailure(ErrorCode::MissingInput, "'x'");
}

TEST_F(BindingsTest, MissingStateBuffer) {
  bindings.state.clear();
  expectFailure(ErrorCode::MissingInput, "acc_in");
}

TEST_F(BindingsTest, DtypeMismatch) {
  Tensor wrong = F32({}, {3});
  bindings.inputs["pos"] = &wrong;
  expectFailure(ErrorCode::DtypeMismatch,
                "input 'pos': expected tensor<i32>, got tensor<f32>");
}

TEST_F(BindingsTest, ShapeMismatch) {
  Tensor wrong = I32({2}, {3, 3});
  bindings.inputs["pos"] = &wrong;
  expectFailure(ErrorCode::ShapeMismatch,
                "input 'pos': expected tensor<i32>, got tensor<2xi32>");
}

TEST_F(BindingsTest, StateShapeMismatch) {
  Tensor wrong = F32({3}, {100, 200, 300});
  bindings.state["acc_in"] = &wrong;
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(b.g, bindings, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch);
  expectValues(wrong, {100, 200, 300});
  EXPECT_TRUE(outputs.empty());
}

TEST_F(BindingsTest, RangeViolation) {
  Tensor high = I32({}, {8}); // the range is half-open: 8 is outside
  bindings.inputs["pos"] = &high;
  expectFailure(ErrorCode::RangeViolation,
                "input 'pos': value 8 at flat index 0 outside [0, 8)");
  Tensor low = I32({}, {-1});
  bindings.inputs["pos"] = &low;
  expectFailure(ErrorCode::RangeViolation, "value -1");
  Tensor edge = I32({}, {7});
  bindings.inputs["pos"] = &edge;
  EXPECT_TRUE(checkBindings(b.g, bindings).isOk());
}

TEST_F(BindingsTest, ExistingOutputsSurviveAFailure) {
  Tensor wrong = I32({}, {99});
  bindings.inputs["pos"] = &wrong;
  std::map<std::string, Tensor> outputs = {{"old", F32({}, {5})}};
  Status st = evaluate(b.g, bindings, NumericMode::Native, outputs);
  EXPECT_EQ(st.code(), ErrorCode::RangeViolation);
  ASSERT_EQ(outputs.size(), 1u);
  expectValues(outputs["old"], {5});
}

TEST(EvaluatorGraph, UseBeforeDefinitionIsInvalid) {
  GraphBuilder b;
  int x = b.input("x", TT(DType::F32, {1}));
  int later = b.value(TT(DType::F32, {1}));
  int y = b.eqn1("add", {x, later}, TT(DType::F32, {1}));
  b.output("y", y);
  Tensor xs = F32({1}, {1});
  Bindings bindings;
  bindings.inputs["x"] = &xs;
  std::map<std::string, Tensor> outputs;
  EXPECT_EQ(evaluate(b.g, bindings, NumericMode::Native, outputs).code(),
            ErrorCode::InvalidArgument);
  EXPECT_TRUE(outputs.empty());
}

} // namespace
