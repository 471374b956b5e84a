//===- ServingStepTest.cpp - The maps of a mixed paged step ---------------===//
//
// The read map, write map, positions and lengths of steps that mix prefill
// chunks with decode rows at different lengths, rows joining and leaving
// between steps, padding rows; the step shape read from a paged graph, the
// bucket choice, the checked write map's refusals, and block copies.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Serving.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <numeric>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

std::vector<TokenId> range(TokenId from, int32_t count) {
  std::vector<TokenId> t(count);
  std::iota(t.begin(), t.end(), from);
  return t;
}

/// 16 blocks of 4 slots, and steps of 4 rows of 4 tokens reading up to 16
/// positions.
class ServingStepTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(KvCache::create({16, 4, 13}, pool).isOk());
    shape = {4, 4, 16, 64};
    base = pool->baseWeights();
  }
  void admit(SeqId seq, const std::vector<TokenId> &prompt) {
    Admission a;
    ASSERT_TRUE(pool->admit(seq, pool->baseWeights(), prompt, a).isOk());
    ASSERT_EQ(a.grant, Grant::Granted);
  }
  StepPlan step(const std::vector<StepRow> &rows) {
    StepPlan plan;
    Status s = pool->prepareStep(shape, rows, plan);
    EXPECT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(plan.grant, Grant::Granted);
    Status checked = pool->checkStep(plan);
    EXPECT_TRUE(checked.isOk()) << checked.toString();
    return plan;
  }
  std::vector<BlockId> table(SeqId seq) {
    std::vector<BlockId> t;
    EXPECT_TRUE(pool->blockTable(seq, t).isOk());
    return t;
  }
  std::unique_ptr<KvCache> pool;
  StepShape shape;
  WeightsId base = 0;
};

TEST_F(ServingStepTest, PrefillChunkBesideADecodeRowAndPaddingRows) {
  admit(1, range(0, 10)); // prefill, first chunk of 4
  admit(2, range(50, 3));
  StepPlan first = step({{2, 3}});
  ASSERT_TRUE(pool->commitStep(first).isOk());
  ASSERT_TRUE(pool->append(2, {99}).isOk()); // decode at position 3

  StepPlan plan = step({{1, 4}, {2, 1}});
  BlockId a0 = table(1)[0], b0 = table(2)[0];
  // Row 0: positions 0-3 are its chunk; later positions repeat slot 0.
  for (int p = 0; p < 16; ++p)
    EXPECT_EQ(plan.readMap[p], a0 * 4 + (p < 4 ? p : 0)) << p;
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(plan.writeMap[i], a0 * 4 + i);
  // Row 1: reads its 3 computed tokens and the one it writes.
  for (int p = 0; p < 16; ++p)
    EXPECT_EQ(plan.readMap[16 + p], b0 * 4 + (p < 4 ? p : 0)) << p;
  EXPECT_EQ(plan.writeMap[4], b0 * 4 + 3);
  for (int i = 5; i < 8; ++i)
    EXPECT_EQ(plan.writeMap[i], -1); // padding tokens of a decode row
  EXPECT_EQ(plan.pos, (std::vector<int32_t>{0, 3, 0, 0}));
  EXPECT_EQ(plan.len, (std::vector<int32_t>{4, 4, 1, 1}));
  // Rows 2 and 3 are padding: no writes, reads inside the pool.
  for (int i = 8; i < 16; ++i)
    EXPECT_EQ(plan.writeMap[i], -1);
  for (int p = 32; p < 64; ++p)
    EXPECT_EQ(plan.readMap[p], 0);
  EXPECT_TRUE(plan.copies.empty());
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST_F(ServingStepTest, RowsJoinAndLeaveBetweenSteps) {
  admit(1, range(0, 6));
  StepPlan s1 = step({{1, 4}});
  ASSERT_TRUE(pool->commitStep(s1).isOk());
  // Sequence 2 joins while 1 finishes its prompt; rows are re-laid each
  // step, so 2 may take row 0.
  admit(2, range(100, 2));
  StepPlan s2 = step({{2, 2}, {1, 2}});
  EXPECT_EQ(s2.pos, (std::vector<int32_t>{0, 4, 0, 0}));
  EXPECT_EQ(s2.writeMap[4], table(1)[1] * 4 + 0);
  EXPECT_EQ(s2.writeMap[5], table(1)[1] * 4 + 1);
  ASSERT_TRUE(pool->commitStep(s2).isOk());
  // 1 computes three appended tokens, crossing into a new block at
  // position 8; 2 decodes one.
  ASSERT_TRUE(pool->append(1, {7, 8, 9}).isOk());
  ASSERT_TRUE(pool->append(2, {5}).isOk());
  StepPlan s3 = step({{1, 3}, {2, 1}});
  ASSERT_EQ(table(1).size(), 3u);
  EXPECT_EQ(s3.writeMap[1], table(1)[1] * 4 + 3);
  EXPECT_EQ(s3.writeMap[2], table(1)[2] * 4);
  ASSERT_TRUE(pool->commitStep(s3).isOk());
  // 1 leaves; 3 joins in its place.
  ASSERT_TRUE(pool->finish(1).isOk());
  admit(3, range(200, 5));
  ASSERT_TRUE(pool->append(2, {6}).isOk());
  StepPlan s4 = step({{3, 4}, {2, 1}});
  EXPECT_EQ(s4.pos, (std::vector<int32_t>{0, 3, 0, 0}));
  ASSERT_TRUE(pool->commitStep(s4).isOk());
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST_F(ServingStepTest, RefusedStepsChangeNothing) {
  admit(1, range(0, 6));
  admit(2, range(0, 3));
  WeightsId x;
  ASSERT_TRUE(pool->adapterWeights("x", x).isOk());
  Admission a;
  ASSERT_TRUE(pool->admit(3, x, range(0, 3), a).isOk());
  std::vector<BlockId> before = table(1);
  PoolStats statsBefore = pool->stats();
  StepPlan plan;
  auto refused = [&](const std::vector<StepRow> &rows, StepShape sh) {
    Status s = pool->prepareStep(sh, rows, plan);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    return s.message();
  };
  refused({{1, 1}, {2, 1}, {1, 1}}, shape); // twice
  refused({{1, 0}}, shape);                 // no tokens
  refused({{1, 5}}, shape);                 // > tokens a row
  refused({{2, 4}}, shape);                 // > known
  refused({{9, 1}}, shape);                 // unknown
  refused({{1, 1}, {2, 1}}, {1, 4, 16, 64}); // > rows
  refused({{1, 1}}, {4, 4, 16, 32});         // pool too big
  refused({{1, 1}}, {4, 4, 3, 64});          // capacity < tokens
  EXPECT_EQ(table(1), before);
  EXPECT_EQ(pool->stats().usedBlocks, statsBefore.usedBlocks);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST_F(ServingStepTest, RowsOfSeveralAdaptersShareAStep) {
  // A plan that selects its adapter per row serves the base model and two
  // adapters in one step; each row reports the identity it runs on, and a
  // reload retires only that adapter's rows.
  WeightsId x, y;
  ASSERT_TRUE(pool->adapterWeights("x", x).isOk());
  ASSERT_TRUE(pool->adapterWeights("y", y).isOk());
  Admission a;
  admit(1, range(0, 3));
  ASSERT_TRUE(pool->admit(2, x, range(0, 3), a).isOk());
  ASSERT_TRUE(pool->admit(3, y, range(0, 3), a).isOk());
  StepPlan plan = step({{3, 3}, {1, 3}, {2, 3}});
  EXPECT_EQ(plan.weights,
            (std::vector<WeightsId>{y, pool->baseWeights(), x}));
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  WeightsId x2;
  ASSERT_TRUE(pool->reloadWeights("x", x2).isOk());
  ASSERT_TRUE(pool->append(1, {7}).isOk());
  ASSERT_TRUE(pool->append(2, {7}).isOk());
  ASSERT_TRUE(pool->append(3, {7}).isOk());
  Status s = pool->prepareStep(shape, {{1, 1}, {2, 1}, {3, 1}}, plan);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("sequence 2 runs on retired weights"),
            std::string::npos);
  StepPlan rest = step({{1, 1}, {3, 1}});
  EXPECT_EQ(rest.weights, (std::vector<WeightsId>{pool->baseWeights(), y}));
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST_F(ServingStepTest, ARowMayNotReachPastTheCapacity) {
  // maxSequenceTokens is 13 = capacity - tokens + 1: a decode row's 4
  // query positions end at 15 when it starts at 12.
  EXPECT_EQ(shape.maxSequenceTokens(), 13);
  admit(1, range(0, 13));
  StepPlan plan = step({{1, 4}});
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  StepPlan ok = step({{1, 4}});
  ASSERT_TRUE(pool->commitStep(ok).isOk());
  ok = step({{1, 4}});
  ASSERT_TRUE(pool->commitStep(ok).isOk());
  ok = step({{1, 1}}); // position 12: its padding reaches 15
  ASSERT_TRUE(pool->commitStep(ok).isOk());
  EXPECT_EQ(pool->append(1, {1}).code(), ErrorCode::InvalidArgument);
  StepShape narrow{4, 4, 15, 64};
  ASSERT_TRUE(KvCache::create({16, 4, 0}, pool).isOk());
  admit(2, range(0, 13));
  StepPlan s;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool->prepareStep(narrow, {{2, 4}}, s).isOk());
    ASSERT_TRUE(pool->commitStep(s).isOk());
  }
  Status past = pool->prepareStep(narrow, {{2, 1}}, s);
  EXPECT_EQ(past.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(past.message().find("capacity"), std::string::npos);
}

TEST_F(ServingStepTest, CommitIsRefusedOnceTheRowsMovedOn) {
  admit(1, range(0, 6));
  StepPlan plan = step({{1, 4}});
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  EXPECT_EQ(pool->commitStep(plan).code(), ErrorCode::InvalidArgument);
  int32_t done = 0;
  ASSERT_TRUE(pool->computed(1, done).isOk());
  EXPECT_EQ(done, 4);
  StepPlan next = step({{1, 2}});
  ASSERT_TRUE(pool->finish(1).isOk());
  EXPECT_EQ(pool->commitStep(next).code(), ErrorCode::InvalidArgument);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingWriteMapTest, RefusesSlotsOutsideThePoolOrNamedTwice) {
  EXPECT_TRUE(checkWriteMap({-1, 3, -1, 5, -1}, 8).isOk());
  EXPECT_TRUE(checkWriteMap({}, 8).isOk());
  Status out = checkWriteMap({1, 8}, 8);
  EXPECT_EQ(out.code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(out.message().find("index 1: slot 8 outside the pool [0, 8)"),
            std::string::npos)
      << out.message();
  EXPECT_EQ(checkWriteMap({-2}, 8).code(), ErrorCode::IndexOutOfRange);
  Status twice = checkWriteMap({3, 1, 3}, 8);
  EXPECT_EQ(twice.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(twice.message().find("slot 3 twice (indices 0 and 2)"),
            std::string::npos)
      << twice.message();
}

TEST_F(ServingStepTest, CheckedStepRefusesTamperedMaps) {
  admit(1, range(0, 6));
  admit(2, range(10, 6));
  StepPlan good = step({{1, 4}, {2, 4}});
  auto code = [&](const std::function<void(StepPlan &)> &edit) {
    StepPlan bad = good;
    edit(bad);
    return pool->checkStep(bad).code();
  };
  EXPECT_EQ(code([](StepPlan &p) { p.writeMap[0] = 64; }),
            ErrorCode::IndexOutOfRange);
  EXPECT_EQ(code([](StepPlan &p) { p.writeMap[1] = p.writeMap[0]; }),
            ErrorCode::InvalidArgument); // named twice
  EXPECT_EQ(code([](StepPlan &p) { std::swap(p.writeMap[0], p.writeMap[4]); }),
            ErrorCode::InvalidArgument); // another sequence's slot
  EXPECT_EQ(code([](StepPlan &p) { p.writeMap[8] = 60; }),
            ErrorCode::InvalidArgument); // a padding row writes
  EXPECT_EQ(code([](StepPlan &p) { p.readMap[17] = -1; }),
            ErrorCode::IndexOutOfRange);
  EXPECT_EQ(code([](StepPlan &p) { p.grant = Grant::PoolExhausted; }),
            ErrorCode::InvalidArgument);
  ASSERT_TRUE(pool->commitStep(good).isOk());
  // A slot of a cached block: sequence 3 shares 1's first block.
  Admission a;
  ASSERT_TRUE(pool->admit(3, base, range(0, 6), a).isOk());
  ASSERT_EQ(a.cachedTokens, 4);
  StepPlan shared = step({{3, 2}});
  shared.writeMap[0] = table(3)[0] * 4;
  shared.firstPosition[0] = 0;
  EXPECT_EQ(pool->checkStep(shared).code(), ErrorCode::InvalidArgument);
}

Graph pagedGraph(int64_t rows, int64_t tokens, int64_t capacity,
                 int64_t slots) {
  Graph g;
  g.name = "paged";
  g.values = {{DType::I32, {rows}},
              {DType::I32, {rows * tokens}},
              {DType::I32, {rows, capacity}}};
  g.inputs = {
      {0, "pos", "pos", std::make_pair<int64_t, int64_t>(0, 8), ""},
      {1, "write_map", "write_map", std::make_pair(int64_t(-1), slots), ""},
      {2, "slot_map", "slot_map", std::make_pair(int64_t(0), slots), ""}};
  return g;
}

TEST(ServingShapeTest, ReadsTheStepShapeOfAPagedGraph) {
  StepShape s;
  ASSERT_TRUE(stepShapeOf(pagedGraph(2, 4, 64, 128), s).isOk());
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.tokens, 4);
  EXPECT_EQ(s.capacity, 64);
  EXPECT_EQ(s.slots, 128);
  EXPECT_EQ(s.maxSequenceTokens(), 61);

  Graph prefill = pagedGraph(2, 4, 64, 128);
  prefill.inputs.pop_back(); // no read map
  Status noRead = stepShapeOf(prefill, s);
  EXPECT_EQ(noRead.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(noRead.message().find("slot_map"), std::string::npos);
  Graph mismatch = pagedGraph(2, 4, 64, 128);
  mismatch.inputs[2].range = std::make_pair(int64_t(0), int64_t(64));
  EXPECT_EQ(stepShapeOf(mismatch, s).code(), ErrorCode::InvalidArgument);
  Graph unranged = pagedGraph(2, 4, 64, 128);
  unranged.inputs[1].range.reset();
  EXPECT_EQ(stepShapeOf(unranged, s).code(), ErrorCode::InvalidArgument);
  Graph odd = pagedGraph(2, 4, 64, 128);
  odd.values[1].shape = {7};
  EXPECT_EQ(stepShapeOf(odd, s).code(), ErrorCode::InvalidArgument);
}

TEST(ServingShapeTest, PicksTheSmallestBucketThatFits) {
  std::vector<StepShape> buckets = {
      {8, 16, 64, 128}, {1, 1, 64, 128}, {4, 1, 64, 128}, {4, 16, 64, 128}};
  EXPECT_EQ(selectBucket(buckets, 1, 1), 1);
  EXPECT_EQ(selectBucket(buckets, 3, 1), 2);
  EXPECT_EQ(selectBucket(buckets, 2, 5), 3);
  EXPECT_EQ(selectBucket(buckets, 1, 16), 3);
  EXPECT_EQ(selectBucket(buckets, 8, 2), 0);
  EXPECT_EQ(selectBucket(buckets, 9, 1), -1);
  EXPECT_EQ(selectBucket(buckets, 1, 17), -1);
  EXPECT_EQ(selectBucket({}, 1, 1), -1);
}

TEST(ServingCopyTest, CopiesTheFilledSlotsOfABlock) {
  // 8 slots of 3 floats, blocks of 2 slots.
  std::vector<float> pool(24);
  std::iota(pool.begin(), pool.end(), 0.0f);
  std::vector<float> before = pool;
  ASSERT_TRUE(
      applyBlockCopies({{1, 3, 1}}, 2, 8, pool.data(), pool.size() * 4).isOk());
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(pool[18 + i], before[6 + i]); // slot 6 <- slot 2
  EXPECT_EQ(pool[21], before[21]);          // the unfilled slot stays
  // Refused copies move nothing.
  std::vector<float> kept = pool;
  EXPECT_EQ(applyBlockCopies({{0, 2, 2}, {1, 4, 1}}, 2, 8, pool.data(),
                             pool.size() * 4)
                .code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(
      applyBlockCopies({{1, 1, 1}}, 2, 8, pool.data(), pool.size() * 4).code(),
      ErrorCode::InvalidArgument);
  EXPECT_EQ(
      applyBlockCopies({{0, 1, 3}}, 2, 8, pool.data(), pool.size() * 4).code(),
      ErrorCode::InvalidArgument);
  EXPECT_EQ(applyBlockCopies({}, 2, 8, pool.data(), 95).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(pool, kept);
}

} // namespace
