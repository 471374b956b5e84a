//===- CAPITest.cpp - The C API's lifetime and error contract -------------===//
//
// A session keeps its plan alive past poot_plan_free; poot_last_error() is
// cleared by every call that returns a status and reads "<status name>:
// <text>" after a failure; hostile plans are typed errors.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanFile.h"
#include "poot/poot.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace poot::rt;

namespace {

/// y = x + x over f32[2], written as a cpu plan file removed at the end.
class CAPITest : public ::testing::Test {
protected:
  void SetUp() override {
    Plan p;
    p.device = "cpu";
    p.target = "cpu";
    p.graph.name = "g";
    p.graph.values = {{DType::F32, {2}}, {DType::F32, {2}}};
    p.graph.inputs = {{0, "x", "", std::nullopt, ""}};
    Eqn add;
    add.op = "add";
    add.operands = {0, 0};
    add.results = {1};
    p.graph.eqns = {add};
    p.graph.outputs = {{1, "y", "", false}};
    path = ::testing::TempDir() + "poot_capi_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
           ".plan";
    ASSERT_TRUE(writePlanFile(path, p).isOk());
  }
  void TearDown() override { std::remove(path.c_str()); }
  std::string path;
};

std::string input(const char *name) {
  return std::string(POOT_TEST_INPUTS_DIR) + "/" + name;
}

bool startsWith(const char *text, const std::string &prefix) {
  return std::string(text).rfind(prefix, 0) == 0;
}

TEST_F(CAPITest, SessionKeepsItsPlanAlive) {
  poot_plan *plan = nullptr;
  ASSERT_EQ(poot_plan_load(path.c_str(), &plan), POOT_OK) << poot_last_error();
  poot_session *session = nullptr;
  ASSERT_EQ(poot_session_create(plan, "cpu", &session), POOT_OK);
  // Freed first: the session still holds the plan.
  poot_plan_free(plan);
  float x[2] = {1.5f, -2.0f}, y[2] = {0, 0};
  ASSERT_EQ(poot_bind_input(session, "x", x, sizeof(x)), POOT_OK)
      << poot_last_error();
  ASSERT_EQ(poot_run(session), POOT_OK) << poot_last_error();
  ASSERT_EQ(poot_read_output(session, "y", y, sizeof(y)), POOT_OK);
  EXPECT_EQ(y[0], 3.0f);
  EXPECT_EQ(y[1], -4.0f);
  poot_session_free(session);
}

TEST_F(CAPITest, LastErrorDescribesOnlyTheLatestCall) {
  poot_plan *plan = nullptr;
  ASSERT_EQ(poot_plan_load(path.c_str(), &plan), POOT_OK);
  poot_session *session = nullptr;
  ASSERT_EQ(poot_session_create(plan, "cpu", &session), POOT_OK);
  float x[2] = {1, 2};
  EXPECT_EQ(poot_bind_input(session, "nope", x, sizeof(x)),
            POOT_ERR_UNKNOWN_NAME);
  EXPECT_STRNE(poot_last_error(), "");
  // A later success clears it.
  EXPECT_EQ(poot_bind_input(session, "x", x, sizeof(x)), POOT_OK);
  EXPECT_STREQ(poot_last_error(), "");
  EXPECT_EQ(poot_run(nullptr), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_run(session), POOT_OK);
  EXPECT_STREQ(poot_last_error(), "");
  const char *name = nullptr;
  EXPECT_EQ(poot_plan_output(plan, 5, &name, nullptr, nullptr, nullptr, 0,
                             nullptr),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_plan_output(plan, 0, &name, nullptr, nullptr, nullptr, 0,
                             nullptr),
            POOT_OK);
  EXPECT_STREQ(poot_last_error(), "");
  EXPECT_STREQ(name, "y");
  poot_session_free(session);
  poot_plan_free(plan);
}

TEST_F(CAPITest, MessagesStartWithTheStatusName) {
  poot_plan *plan = nullptr;
  EXPECT_EQ(poot_plan_load(nullptr, &plan), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(poot_last_error(), "invalid-argument: null argument");
  EXPECT_EQ(poot_plan_load((path + ".missing").c_str(), &plan), POOT_ERR_IO);
  EXPECT_TRUE(startsWith(poot_last_error(), "io: ")) << poot_last_error();

  ASSERT_EQ(poot_plan_load(path.c_str(), &plan), POOT_OK);
  poot_session *session = nullptr;
  EXPECT_EQ(poot_session_create(plan, "vulkan", &session),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(startsWith(poot_last_error(), "invalid-argument: the plan is"))
      << poot_last_error();
  ASSERT_EQ(poot_session_create(plan, "cpu", &session), POOT_OK);
  float x[3] = {1, 2, 3};
  EXPECT_EQ(poot_bind_input(session, "x", x, sizeof(x)),
            POOT_ERR_SHAPE_MISMATCH);
  EXPECT_TRUE(startsWith(poot_last_error(), "shape-mismatch: input 'x'"))
      << poot_last_error();
  // A runtime Status carries its code's name once, like the rest.
  EXPECT_EQ(poot_run(session), POOT_ERR_MISSING_INPUT);
  EXPECT_TRUE(startsWith(poot_last_error(), "missing-input: input 'x'"))
      << poot_last_error();
  poot_session_free(session);
  poot_plan_free(plan);
}

TEST_F(CAPITest, HostilePlansAreTypedErrors) {
  poot_plan *plan = nullptr;
  EXPECT_EQ(poot_plan_load(input("ub-value-numel-run.plan").c_str(), &plan),
            POOT_ERR_MALFORMED);
  EXPECT_TRUE(startsWith(poot_last_error(), "malformed: "))
      << poot_last_error();
  EXPECT_EQ(poot_plan_load(input("capi-int64min-dim.plan").c_str(), &plan),
            POOT_ERR_MALFORMED);
  EXPECT_EQ(poot_plan_load(input("crash-length-error.plan").c_str(), &plan),
            POOT_ERR_UNSUPPORTED);
  EXPECT_TRUE(startsWith(poot_last_error(), "unsupported: "))
      << poot_last_error();
  EXPECT_EQ(plan, nullptr);
}

} // namespace

namespace {

// The C API fuzzer's find: a validation output whose value is f32 is
// published as an i1 witness, so poot_plan_output must describe it as i1
// (12 bytes for [3, 4]), not by its value's f32 (48 bytes).
TEST(CAPIFuzzFinds, ValidationOutputsAreDescribedAsI1) {
  Plan p;
  p.device = "cpu";
  p.target = "cpu";
  p.graph.name = "g";
  p.graph.values = {{DType::F32, {3, 4}}, {DType::F32, {3, 4}}};
  p.graph.inputs = {{0, "x", "", std::nullopt, ""}};
  Eqn abs;
  abs.op = "abs";
  abs.operands = {0};
  abs.results = {1};
  p.graph.eqns = {abs};
  p.graph.outputs = {{1, "ok", "", true}};
  std::string path = ::testing::TempDir() + "poot_capi_validation.plan";
  ASSERT_TRUE(writePlanFile(path, p).isOk());
  poot_plan *plan = nullptr;
  ASSERT_EQ(poot_plan_load(path.c_str(), &plan), POOT_OK) << poot_last_error();
  std::remove(path.c_str());
  const char *name = nullptr;
  poot_dtype dtype = POOT_F32;
  int rank = 0;
  int64_t dims[2] = {0, 0};
  ASSERT_EQ(poot_plan_output(plan, 0, &name, &dtype, &rank, dims, 2, nullptr),
            POOT_OK);
  EXPECT_EQ(dtype, POOT_I1);
  poot_session *session = nullptr;
  ASSERT_EQ(poot_session_create(plan, "cpu", &session), POOT_OK);
  float x[12];
  for (int i = 0; i < 12; ++i)
    x[i] = 1.0f + i;
  ASSERT_EQ(poot_bind_input(session, "x", x, sizeof(x)), POOT_OK);
  ASSERT_EQ(poot_run(session), POOT_OK) << poot_last_error();
  uint8_t witness[12];
  EXPECT_EQ(poot_read_output(session, "ok", witness, sizeof(witness)), POOT_OK)
      << poot_last_error();
  EXPECT_EQ(witness[0], 1);
  poot_session_free(session);
  poot_plan_free(plan);
}

} // namespace
