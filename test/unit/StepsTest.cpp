//===- StepsTest.cpp - Inline values, random inputs and the oracle check --===//
//
// What the runners do around evaluate(): parse --set values strictly, draw
// random inputs without ever aborting on a size, and compare a step's
// results with the oracle's (NaN only where the oracle has NaN).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Check.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Steps.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <set>

// AddressSanitizer's allocator reports an allocation it cannot make and
// stops the process; it never throws std::bad_alloc.
#if defined(__SANITIZE_ADDRESS__)
#define POOT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOT_UNDER_ASAN 1
#endif
#endif

using namespace poot::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(StepsTest, ParsesIntegerValuesStrictly) {
  std::vector<double> v;
  TensorType pos{DType::I32, {}};
  ASSERT_TRUE(parseValues("7", pos, v).isOk());
  EXPECT_EQ(v, std::vector<double>{7});
  ASSERT_TRUE(parseValues(" -2147483648 ", pos, v).isOk());
  EXPECT_EQ(v, std::vector<double>{-2147483648.0});
  // Not integers, or not whole tokens: refused, never rounded to 0 or 2.
  for (const char *bad : {"nan", "2.5", "1e3", "0x10", "7x", "", " ", "+",
                          "inf", "1 2"}) {
    Status s = parseValues(bad, pos, v);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << bad;
  }
  // Outside i32: refused rather than wrapped.
  for (const char *bad : {"1e10", "10000000000", "2147483648", "-2147483649",
                          "99999999999999999999999"}) {
    Status s = parseValues(bad, pos, v);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << bad;
  }
  Status s = parseValues("10000000000", pos, v);
  EXPECT_NE(s.message().find("outside i32"), std::string::npos)
      << s.message();

  TensorType wide{DType::I64, {2}};
  ASSERT_TRUE(parseValues("10000000000,-1", wide, v).isOk());
  EXPECT_EQ(v, (std::vector<double>{1e10, -1}));
  EXPECT_FALSE(parseValues("9007199254740993,0", wide, v).isOk());
  TensorType mask{DType::I1, {3}};
  ASSERT_TRUE(parseValues("1,0,1", mask, v).isOk());
  EXPECT_FALSE(parseValues("1,0,2", mask, v).isOk());
  // The count must match the type.
  EXPECT_FALSE(parseValues("1,2", pos, v).isOk());
}

TEST(StepsTest, ParsesFloatValuesAsWholeTokens) {
  std::vector<double> v;
  TensorType x{DType::F32, {4}};
  ASSERT_TRUE(parseValues("0.1, -inf, nan, 1e10", x, v).isOk());
  EXPECT_EQ(v[0], static_cast<double>(0.1f));
  EXPECT_EQ(v[1], -kInf);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], 1e10);
  EXPECT_FALSE(parseValues("1,2,3,4x", x, v).isOk());
  EXPECT_FALSE(parseValues("1,2,,4", x, v).isOk());
}

// A NaN or an infinity where the oracle has a finite number fails the check;
// NaN where the oracle also has NaN (a fully masked row) passes.
TEST(StepsTest, CheckFailsNaNWhereTheOracleIsFinite) {
  Tensor want({DType::F32, {4}}, {1, 2, 3, 4});
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
    Tolerance tol = toleranceFor(dtype);
    Tensor wantT({dtype, {4}}, want.values());
    Tensor allNaN({dtype, {4}}, {kNaN, kNaN, kNaN, kNaN});
    Comparison c = compareTensors(allNaN, wantT, tol);
    EXPECT_FALSE(c.ok()) << dtypeName(dtype);
    EXPECT_EQ(c.mismatches, 4) << dtypeName(dtype);
    Tensor oneInf({dtype, {4}}, {1, kInf, 3, 4});
    c = compareTensors(oneInf, wantT, tol);
    EXPECT_FALSE(c.ok()) << dtypeName(dtype);
    EXPECT_EQ(c.firstMismatch, 1) << dtypeName(dtype);
    // The oracle's NaN against a finite result fails too.
    EXPECT_FALSE(compareTensors(wantT, allNaN, tol).ok()) << dtypeName(dtype);
    // NaN in the same places passes.
    Tensor rowNaN({dtype, {4}}, {kNaN, kNaN, 3, 4});
    EXPECT_TRUE(compareTensors(rowNaN, rowNaN, tol).ok()) << dtypeName(dtype);
    EXPECT_TRUE(compareTensors(allNaN, allNaN, tol).ok()) << dtypeName(dtype);
  }
  TensorMap got = {{"y", Tensor({DType::F32, {4}}, {kNaN, kNaN, kNaN, kNaN})}};
  TensorMap ref = {{"y", want}};
  std::vector<std::string> lines;
  EXPECT_FALSE(checkStep(got, ref, {}, {}, /*quiet=*/true, lines));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("FAIL"), std::string::npos) << lines[0];
}

Graph oneInputGraph(TensorType type, std::string slot = "",
                    std::optional<std::pair<int64_t, int64_t>> range = {}) {
  Graph g;
  g.name = "g";
  g.values = {type};
  GraphInput in;
  in.value = 0;
  in.name = "x";
  in.slot = std::move(slot);
  in.range = range;
  g.inputs = {in};
  return g;
}

TEST(StepsTest, RandomInputRefusesTypesItCannotHold) {
  Tensor t;
  Graph g = oneInputGraph({DType::F32, {int64_t(1) << 32, int64_t(1) << 32}});
  EXPECT_EQ(randomInput(g, g.inputs[0], 1, 0, t).code(),
            ErrorCode::InvalidArgument);
  g = oneInputGraph({DType::F32, {int64_t(1) << 31, int64_t(1) << 31}});
  EXPECT_EQ(randomInput(g, g.inputs[0], 1, 0, t).code(),
            ErrorCode::Unsupported);
  g = oneInputGraph({DType::F32, {-2}});
  EXPECT_EQ(randomInput(g, g.inputs[0], 1, 0, t).code(),
            ErrorCode::InvalidArgument);
  // A write map over a huge declared pool draws distinct slots without
  // allocating the pool.
  g = oneInputGraph({DType::I32, {4}}, "write_map",
                    std::make_pair<int64_t, int64_t>(0, int64_t(1) << 62));
  ASSERT_TRUE(randomInput(g, g.inputs[0], 1, 0, t).isOk());
  std::set<double> slots(t.values().begin(), t.values().end());
  EXPECT_EQ(slots.size(), 4u);
  // Small pools draw as before: a permutation of the pool.
  g = oneInputGraph({DType::I32, {4}}, "write_map",
                    std::make_pair<int64_t, int64_t>(0, 4));
  ASSERT_TRUE(randomInput(g, g.inputs[0], 1, 0, t).isOk());
  slots = std::set<double>(t.values().begin(), t.values().end());
  EXPECT_EQ(slots, (std::set<double>{0, 1, 2, 3}));
}

/// Bytes of address space this process has mapped.
size_t mappedBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  statm >> pages;
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/// In a death test's child: draws the plan's first input with 4 GiB of
/// address space to spare; 0 when that is a typed out-of-memory error.
int drawUnderALimit(const Plan &plan) {
  rlim_t bytes = mappedBytes() + (rlim_t(4) << 30);
  struct rlimit limit = {bytes, bytes};
  if (setrlimit(RLIMIT_AS, &limit) != 0)
    return 3;
  Tensor t;
  Status s = randomInput(plan.graph, plan.graph.inputs[0], 1, 0, t);
  return s.code() == ErrorCode::Unsupported &&
                 s.message().find("out of memory") != std::string::npos
             ? 0
             : 2;
}

// crash-bad-alloc.plan declares 2^32-element tensors (32 GiB as doubles):
// a sane size, but more than a process with 4 GiB of address space to spare
// can have. The allocation failure is a typed error, not std::bad_alloc's
// abort.
TEST(StepsTest, RandomInputOutOfMemoryIsATypedError) {
#ifdef POOT_UNDER_ASAN
  GTEST_SKIP() << "under ASan running out of memory is a report, not bad_alloc";
#endif
  Plan plan;
  ASSERT_TRUE(
      readPlanFile(std::string(POOT_TEST_INPUTS_DIR) + "/crash-bad-alloc.plan",
                   plan)
          .isOk());
  EXPECT_EXIT(std::exit(drawUnderALimit(plan)), ::testing::ExitedWithCode(0),
              "");
}

} // namespace
