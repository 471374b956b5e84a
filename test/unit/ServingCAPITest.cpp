//===- ServingCAPITest.cpp - The C API of the paged KV driver -------------===//
//
// poot_kv_*: a step's maps through C, pool exhaustion as `granted` 0 with
// nothing changed, copy-on-write copies, hot reload, the checked write map's
// typed refusals, the step shape of a plan file, and the error contract
// every C call keeps ("<status name>: <text>" after a failure, "" after a
// success).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanFile.h"
#include "poot/poot.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace poot::rt;

namespace {

bool startsWith(const char *text, const std::string &prefix) {
  return std::string(text).rfind(prefix, 0) == 0;
}

/// A pool of 8 blocks of 4 and a step of 2 rows of 2 tokens over 8 keys.
class ServingCAPITest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(poot_kv_create(8, 4, 0, &cache), POOT_OK) << poot_last_error();
    ASSERT_EQ(poot_kv_weights(cache, nullptr, &base), POOT_OK);
    shape = {2, 2, 8, 32};
  }
  void TearDown() override { poot_kv_free(cache); }

  /// Prepares a step of `rows`; returns `granted`.
  int prepare(const std::vector<poot_kv_row> &rows) {
    int granted = -1;
    EXPECT_EQ(poot_kv_prepare_step(cache, &shape, rows.data(),
                                   static_cast<int>(rows.size()), read, write,
                                   pos, len, copies, 4, &numCopies, &granted),
              POOT_OK)
        << poot_last_error();
    return granted;
  }
  poot_kv_stats stats() {
    poot_kv_stats s;
    EXPECT_EQ(poot_kv_get_stats(cache, &s), POOT_OK);
    return s;
  }

  poot_kv_cache *cache = nullptr;
  poot_weights_id base = 0;
  poot_kv_step_shape shape;
  int32_t read[16], write[4], pos[2], len[2];
  poot_kv_copy copies[4];
  int numCopies = 0;
};

TEST_F(ServingCAPITest, ServesAStepThroughC) {
  const int32_t prompt[] = {1, 2, 3, 4, 5};
  poot_kv_admission a;
  ASSERT_EQ(poot_kv_admit(cache, 7, base, prompt, 5, &a), POOT_OK);
  EXPECT_EQ(a.granted, 1);
  EXPECT_EQ(a.blocks_needed, 2);
  EXPECT_STREQ(poot_last_error(), "");
  ASSERT_EQ(prepare({{7, 2}}), 1);
  EXPECT_EQ(write[0], 0);
  EXPECT_EQ(write[1], 1);
  EXPECT_EQ(write[2], -1); // the padding row
  EXPECT_EQ(pos[0], 0);
  EXPECT_EQ(len[0], 2);
  EXPECT_EQ(read[8], 0);
  ASSERT_EQ(poot_kv_commit_step(cache), POOT_OK);
  int32_t done = 0;
  ASSERT_EQ(poot_kv_computed(cache, 7, &done), POOT_OK);
  EXPECT_EQ(done, 2);
  poot_weights_id adapter = 0, of = 0;
  ASSERT_EQ(poot_kv_weights(cache, "a", &adapter), POOT_OK);
  ASSERT_EQ(poot_kv_sequence_weights(cache, 7, &of), POOT_OK);
  EXPECT_EQ(of, base);
  ASSERT_EQ(poot_kv_admit(cache, 9, adapter, prompt, 3, &a), POOT_OK);
  ASSERT_EQ(poot_kv_sequence_weights(cache, 9, &of), POOT_OK);
  EXPECT_EQ(of, adapter);
  EXPECT_EQ(poot_kv_sequence_weights(cache, 99, &of),
            POOT_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(poot_kv_finish(cache, 9), POOT_OK);
  // Committing again: nothing prepared.
  EXPECT_EQ(poot_kv_commit_step(cache), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(startsWith(poot_last_error(), "invalid-argument: no prepared"));
  ASSERT_EQ(prepare({{7, 2}}), 1);
  ASSERT_EQ(poot_kv_commit_step(cache), POOT_OK);
  ASSERT_EQ(prepare({{7, 1}}), 1);
  ASSERT_EQ(poot_kv_commit_step(cache), POOT_OK);
  // The first block is full and cached: a second prompt shares it.
  ASSERT_EQ(poot_kv_admit(cache, 8, base, prompt, 5, &a), POOT_OK);
  EXPECT_EQ(a.cached_tokens, 4);
  poot_kv_stats s = stats();
  EXPECT_EQ(s.total_blocks, 8);
  EXPECT_EQ(s.used_blocks, 3);
  EXPECT_EQ(s.shared_blocks, 1);
  EXPECT_EQ(s.prefill_tokens_skipped, 4);
  ASSERT_EQ(poot_kv_finish(cache, 7), POOT_OK);
  ASSERT_EQ(poot_kv_finish(cache, 8), POOT_OK);
  EXPECT_EQ(stats().used_blocks, 0);
  EXPECT_EQ(stats().cached_blocks, 1);
}

TEST_F(ServingCAPITest, ExhaustionIsNotAnErrorAndChangesNothing) {
  std::vector<int32_t> prompt(28, 3);
  poot_kv_admission a;
  ASSERT_EQ(poot_kv_admit(cache, 1, base, prompt.data(), prompt.size(), &a),
            POOT_OK);
  ASSERT_EQ(a.granted, 1);
  poot_kv_stats before = stats();
  ASSERT_EQ(poot_kv_admit(cache, 2, base, prompt.data(), 8, &a), POOT_OK);
  EXPECT_EQ(a.granted, 0);
  EXPECT_EQ(a.blocks_needed, 2);
  EXPECT_EQ(a.blocks_available, 1);
  EXPECT_STREQ(poot_last_error(), "");
  poot_kv_stats after = stats();
  EXPECT_EQ(after.used_blocks, before.used_blocks);
  EXPECT_EQ(after.free_blocks, before.free_blocks);
  EXPECT_EQ(after.refused_for_space, before.refused_for_space + 1);
  int32_t done = 0;
  EXPECT_EQ(poot_kv_computed(cache, 2, &done), POOT_ERR_INVALID_ARGUMENT);
}

TEST_F(ServingCAPITest, ForkedRowsGetTheirCopies) {
  const int32_t prompt[] = {1, 2, 3, 4, 5, 6};
  poot_kv_admission a;
  ASSERT_EQ(poot_kv_admit(cache, 1, base, prompt, 6, &a), POOT_OK);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(prepare({{1, 2}}), 1);
    ASSERT_EQ(poot_kv_commit_step(cache), POOT_OK);
  }
  ASSERT_EQ(poot_kv_fork(cache, 1, 2), POOT_OK);
  const int32_t next[] = {9};
  ASSERT_EQ(poot_kv_append(cache, 1, next, 1), POOT_OK);
  ASSERT_EQ(poot_kv_append(cache, 2, next, 1), POOT_OK);
  // Too little room for copies is refused before anything changes.
  int granted = -1;
  EXPECT_EQ(poot_kv_prepare_step(cache, &shape, nullptr, 0, read, write, pos,
                                 nullptr, copies, 4, &numCopies, &granted),
            POOT_OK);
  poot_kv_row rows[] = {{1, 1}, {2, 1}};
  EXPECT_EQ(poot_kv_prepare_step(cache, &shape, rows, 2, read, write, pos,
                                 nullptr, copies, 3, &numCopies, &granted),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(stats().copies_on_write, 0);
  ASSERT_EQ(prepare({{1, 1}, {2, 1}}), 1);
  ASSERT_EQ(numCopies, 1);
  EXPECT_EQ(copies[0].src_block, 1);
  EXPECT_EQ(copies[0].tokens, 2);
  // The copy, done on a host pool of 32 slots of 2 floats.
  std::vector<float> kv(64);
  for (size_t i = 0; i < kv.size(); ++i)
    kv[i] = float(i);
  ASSERT_EQ(
      poot_kv_copy_blocks(copies, numCopies, 4, 32, kv.data(), kv.size() * 4),
      POOT_OK);
  int32_t dst = copies[0].dst_block * 4;
  EXPECT_EQ(kv[dst * 2], 8.0f);      // slot 4
  EXPECT_EQ(kv[dst * 2 + 3], 11.0f); // slot 5
  EXPECT_EQ(poot_kv_copy_blocks(copies, numCopies, 4, 32, kv.data(), 7),
            POOT_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(poot_kv_commit_step(cache), POOT_OK);
}

TEST_F(ServingCAPITest, HotReloadGivesANewIdentity) {
  poot_weights_id lora = 0, lora2 = 0, renewed = 0;
  ASSERT_EQ(poot_kv_weights(cache, "lora", &lora), POOT_OK);
  ASSERT_EQ(poot_kv_weights(cache, "lora", &lora2), POOT_OK);
  EXPECT_EQ(lora, lora2);
  EXPECT_NE(lora, base);
  ASSERT_EQ(poot_kv_reload(cache, "lora", &renewed), POOT_OK);
  EXPECT_NE(renewed, lora);
  const int32_t prompt[] = {1};
  poot_kv_admission a;
  EXPECT_EQ(poot_kv_admit(cache, 1, lora, prompt, 1, &a),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(startsWith(poot_last_error(), "invalid-argument: weights"));
  EXPECT_EQ(poot_kv_admit(cache, 1, renewed, prompt, 1, &a), POOT_OK);
  EXPECT_EQ(poot_kv_reload(cache, "nope", &renewed), POOT_ERR_UNKNOWN_NAME);
  ASSERT_EQ(poot_kv_reload(cache, nullptr, &renewed), POOT_OK);
  EXPECT_NE(renewed, base);
}

TEST_F(ServingCAPITest, CheckedWriteMapRefusals) {
  const int32_t ok[] = {-1, 3, -1, 5};
  EXPECT_EQ(poot_kv_check_write_map(ok, 4, 8), POOT_OK);
  const int32_t outside[] = {3, 8};
  EXPECT_EQ(poot_kv_check_write_map(outside, 2, 8),
            POOT_ERR_INDEX_OUT_OF_RANGE);
  EXPECT_TRUE(startsWith(poot_last_error(),
                         "index-out-of-range: write map index 1: slot 8"))
      << poot_last_error();
  const int32_t twice[] = {5, 5};
  EXPECT_EQ(poot_kv_check_write_map(twice, 2, 8), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(
      startsWith(poot_last_error(), "invalid-argument: write map names"));
  EXPECT_EQ(poot_kv_check_write_map(nullptr, 1, 8), POOT_ERR_INVALID_ARGUMENT);
}

TEST_F(ServingCAPITest, NullArgumentsAndBadConfigs) {
  poot_kv_cache *other = nullptr;
  EXPECT_EQ(poot_kv_create(0, 4, 0, &other), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  EXPECT_EQ(poot_kv_create(4, 4, 0, nullptr), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(poot_last_error(), "invalid-argument: null argument");
  poot_kv_admission a;
  EXPECT_EQ(poot_kv_admit(cache, 1, base, nullptr, 3, &a),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_kv_admit(nullptr, 1, base, nullptr, 0, &a),
            POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_kv_finish(cache, 42), POOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(poot_kv_get_stats(nullptr, nullptr), POOT_ERR_INVALID_ARGUMENT);
  poot_kv_free(nullptr);
}

TEST(ServingCAPIPlanTest, ReadsTheStepShapeOfAPlan) {
  Plan p;
  p.device = p.target = "cpu";
  p.graph.name = "paged";
  p.graph.values = {
      {DType::I32, {2}}, {DType::I32, {8}}, {DType::I32, {2, 64}}};
  p.graph.inputs = {
      {0, "pos", "pos", std::make_pair(int64_t(0), int64_t(61)), ""},
      {1, "write_map", "write_map", std::make_pair(int64_t(-1), int64_t(128)),
       ""},
      {2, "slot_map", "slot_map", std::make_pair(int64_t(0), int64_t(128)),
       ""}};
  p.graph.outputs = {{0, "y", "", false}};
  std::string path = ::testing::TempDir() + "poot_serving_shape.plan";
  ASSERT_TRUE(writePlanFile(path, p).isOk());
  poot_plan *plan = nullptr;
  ASSERT_EQ(poot_plan_load(path.c_str(), &plan), POOT_OK) << poot_last_error();
  poot_kv_step_shape shape;
  ASSERT_EQ(poot_kv_step_shape_of(plan, &shape), POOT_OK);
  EXPECT_EQ(shape.rows, 2);
  EXPECT_EQ(shape.tokens, 4);
  EXPECT_EQ(shape.capacity, 64);
  EXPECT_EQ(shape.slots, 128);
  poot_plan_free(plan);
  std::remove(path.c_str());
}

} // namespace
