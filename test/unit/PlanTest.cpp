//===- PlanTest.cpp - Planner arithmetic and the buffer plan --------------===//
//
// The planner's rules and the arena's lifetime colouring, without IR.
//
//===----------------------------------------------------------------------===//

#include "poot/Plan/BufferPlan.h"
#include "poot/Plan/Planner.h"

#include "gtest/gtest.h"

#include <tuple>

using namespace poot;

namespace {

AttentionShape decode(int64_t b, int64_t hq, int64_t hkv, int64_t lk,
                      int64_t d, const char *dtype = "f32") {
  AttentionShape s;
  s.dtype = dtype;
  s.batch = b;
  s.queryHeads = hq;
  s.keyHeads = hkv;
  s.queryLen = 1;
  s.keyLen = lk;
  s.keyWidth = s.valueWidth = d;
  return s;
}

CapabilityKind kindOf(llvm::Error err) {
  CapabilityKind kind = CapabilityKind::GridLimit;
  bool seen = false;
  llvm::handleAllErrors(std::move(err), [&](const CapabilityError &e) {
    kind = e.getKind();
    seen = true;
  });
  EXPECT_TRUE(seen);
  return kind;
}

TEST(Planner, LanesFollowWorkgroupMemory) {
  DeviceFacts d = *findDevicePreset("vulkan");
  // 16 KiB / ((128 + 2) * 4) = 31 -> 16 lanes; a 512-wide value gets 4.
  auto s = planAttention(decode(64, 1, 1, 256, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->lanes, 16);
  s = planAttention(decode(64, 1, 1, 256, 512), d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->lanes, 4);
  // Never more than 64 lanes, however much memory there is.
  DeviceFacts wide = *findDevicePreset("sm_90");
  wide.fixedSubgroup = false;
  s = planAttention(decode(64, 1, 1, 256, 40), wide);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->lanes, 64);
}

TEST(Planner, ChannelScheduleGeometry) {
  const DeviceFacts &d = *findDevicePreset("sm_90");
  // bf16, D = 128: 16-byte vectors of 8, 16 lanes a key (8 + 8 channels
  // each), two keys side by side in a warp.
  // (Grouped bf16 heads take the matrix-tile schedule unless told not to.)
  ScheduleTuning channel;
  channel.noMatrix = true;
  AttentionShape shape = decode(1, 64, 8, 32768, 128);
  shape.dtype = "bf16";
  auto s = planAttention(shape, d, channel);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->subgroup, 32);
  EXPECT_FALSE(s->matrix);
  EXPECT_EQ(s->vector, 8);
  EXPECT_EQ(s->keyLanes, 16);
  // f32: vectors of 4, still 16 lanes a key.
  shape.dtype = "f32";
  s = planAttention(shape, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->vector, 4);
  EXPECT_EQ(s->keyLanes, 16);
  // D = 40, bf16: vectors of 8 divide 40 only on one lane a key.
  shape = decode(1, 8, 8, 1024, 40);
  shape.dtype = "bf16";
  s = planAttention(shape, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->vector, 8);
  EXPECT_EQ(s->keyLanes, 1);
  // A split key of 128 + 64 over values of 128: no vector straddles the
  // seam at 128.
  shape = decode(1, 16, 1, 4096, 192);
  shape.valueWidth = 128;
  shape.sharedKeyWidth = 64;
  shape.dtype = "bf16";
  s = planAttention(shape, d, channel);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->vector, 8);
  EXPECT_EQ(s->keyLanes, 8);
  EXPECT_EQ((192 - 64) % s->vector, 0);
  // Tuning overrides reach the schedule.
  ScheduleTuning tuning;
  tuning.unroll = 8;
  tuning.warps = 2;
  s = planAttention(decode(1, 64, 8, 32768, 128), d, tuning);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->unroll, 8);
  EXPECT_EQ(s->lanes, 64);
  // A split cap: 4 splits instead of 16, or 1 to stream.
  ScheduleTuning fewer;
  fewer.splits = 4;
  s = planAttention(decode(1, 64, 8, 32768, 128), d, fewer);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->splits, 4);
  fewer.splits = 1;
  s = planAttention(decode(1, 64, 8, 32768, 128), d, fewer);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  EXPECT_EQ(s->why, "streaming: one split was asked for");
}

TEST(Planner, MatrixScheduleGeometry) {
  const DeviceFacts &d = *findDevicePreset("sm_90");
  // Llama-3-70B decode in bf16: 8 heads of a KV head on one workgroup, key
  // and value rows in 16-byte vectors; 8 x 16 workgroups, one a compute
  // unit, so 16 subgroups folding pairwise.
  AttentionShape shape = decode(1, 64, 8, 32768, 128, "bf16");
  auto s = planAttention(shape, d);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->matrix);
  EXPECT_EQ(s->subgroup, 32);
  EXPECT_EQ(s->group, 8);
  EXPECT_EQ(s->vector, 8);
  EXPECT_EQ(s->valueVector, 8);
  EXPECT_EQ(s->lanes, 512);
  EXPECT_TRUE(s->pairFold);
  EXPECT_TRUE(s->split);
  EXPECT_EQ(s->splits, 16);
  // n_rep 16: two workgroups of 8 heads; n_rep 6: one of 6.
  s = planAttention(decode(1, 32, 2, 4096, 64, "f16"), d);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->matrix);
  EXPECT_EQ(s->group, 8);
  EXPECT_EQ(s->valueVector, 4);
  s = planAttention(decode(2, 6, 1, 333, 96, "bf16"), d);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->matrix);
  EXPECT_EQ(s->group, 6);
  EXPECT_EQ(s->vector, 8); // 24 channels a key row: 3 vectors of 8
  EXPECT_EQ(s->valueVector, 2); // 6 channels a run: 3 vectors of 2
  // Not for: a split key (128 + 64, not yet run on a GPU), f32, one head per KV head, widths off 16, registers
  // past 96 (dk 512), targets without the tile, or when told not to.
  auto declined = [&](AttentionShape x, const DeviceFacts &dev,
                      ScheduleTuning tuning = {}) {
    auto r = planAttention(x, dev, tuning);
    return r && !r->matrix;
  };
  AttentionShape split = decode(1, 16, 1, 4096, 192, "bf16");
  split.valueWidth = 128;
  split.sharedKeyWidth = 64;
  EXPECT_TRUE(declined(split, d));
  shape = decode(1, 64, 8, 4096, 128, "bf16");
  EXPECT_TRUE(declined(decode(1, 64, 8, 4096, 128), d));
  EXPECT_TRUE(declined(decode(1, 8, 8, 4096, 128, "bf16"), d));
  // Prefill takes the tile schedule instead (Planner.TileSchedule).
  AttentionShape prefill = shape;
  prefill.queryLen = 64;
  auto tile = planAttention(prefill, d);
  ASSERT_TRUE(bool(tile));
  EXPECT_GT(tile->tileRows, 0);
  EXPECT_TRUE(declined(decode(1, 8, 2, 4096, 40, "bf16"), d));
  EXPECT_TRUE(declined(decode(1, 8, 1, 4096, 512, "bf16"), d));
  EXPECT_TRUE(declined(shape, *findDevicePreset("gfx942")));
  ScheduleTuning off;
  off.noMatrix = true;
  EXPECT_TRUE(declined(shape, d, off));
  // 70B's 8 heads at 16 subgroups would need 66.5 KiB of partials: they
  // fold pairwise first and fit in half. That is the default where the
  // grid is at most one workgroup a compute unit (B=1 above), and asked
  // for with 16 subgroups; with two workgroups a unit (B=8: 64 rows x 4
  // splits on 132 units) the default keeps 8 subgroups.
  ScheduleTuning sixteen;
  sixteen.warps = 16;
  AttentionShape b8 = decode(8, 64, 8, 32768, 128, "bf16");
  auto paired = planAttention(b8, d, sixteen);
  ASSERT_TRUE(bool(paired));
  EXPECT_TRUE(paired->matrix);
  EXPECT_TRUE(paired->pairFold);
  EXPECT_EQ(paired->lanes, 512);
  EXPECT_EQ(paired->stateBytes, 8 * 8 * 130 * 4);
  auto plain = planAttention(b8, d);
  ASSERT_TRUE(bool(plain));
  EXPECT_EQ(plain->splits, 4);
  EXPECT_FALSE(plain->pairFold);
  EXPECT_EQ(plain->lanes, 256);
  EXPECT_EQ(plain->stateBytes, 8 * 8 * 130 * 4);
  // 8B's 4 heads fit 16 subgroups' partials: no fold.
  auto eight = planAttention(decode(1, 32, 8, 32768, 128, "bf16"), d);
  ASSERT_TRUE(bool(eight));
  EXPECT_FALSE(eight->pairFold);
  EXPECT_EQ(eight->lanes, 512);
  EXPECT_EQ(eight->splits, 16);
  // A workgroup of 16 subgroups fills a unit: at B=8 (64 rows) the splits
  // aim at one workgroup a unit (2, not 4), and at B=32 (256 rows, past
  // the 132 units) 8 subgroups run two a unit instead of a second wave.
  eight = planAttention(decode(8, 32, 8, 8192, 128, "bf16"), d);
  ASSERT_TRUE(bool(eight));
  EXPECT_EQ(eight->lanes, 512);
  EXPECT_EQ(eight->splits, 2);
  eight = planAttention(decode(32, 32, 8, 8192, 128, "bf16"), d);
  ASSERT_TRUE(bool(eight));
  EXPECT_FALSE(eight->split);
  EXPECT_EQ(eight->lanes, 256);
  EXPECT_EQ(eight->stateBytes, 8 * 4 * 130 * 4);
  // Asked for 16 subgroups, B=32 keeps them.
  eight = planAttention(decode(32, 32, 8, 8192, 128, "bf16"), d, sixteen);
  ASSERT_TRUE(bool(eight));
  EXPECT_EQ(eight->lanes, 512);
}

TEST(Planner, FusedCombineWhereTheDeviceCanFence) {
  // A split matrix-tile decode on CUDA folds its splits in the last
  // workgroup of each row: one launch, a ticket counter (i32) per row.
  AttentionShape shape = decode(1, 32, 8, 32768, 128, "bf16");
  auto s = planAttention(shape, *findDevicePreset("sm_90"));
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->split);
  EXPECT_TRUE(s->matrix);
  EXPECT_TRUE(s->fusedCombine);
  EXPECT_EQ(s->counterBytes, s->rows * 4);
  EXPECT_EQ(s->rows, 8);
  // The f32 channel schedule keeps the combine kernel (measured slower
  // fused at B=8).
  s = planAttention(decode(8, 64, 8, 8192, 128), *findDevicePreset("sm_90"));
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->split);
  EXPECT_FALSE(s->matrix);
  EXPECT_FALSE(s->fusedCombine);
  // Not when told not to, not without a split, not where the target has no
  // checked fence (AMD, Vulkan).
  ScheduleTuning off;
  off.noFusedCombine = true;
  s = planAttention(shape, *findDevicePreset("sm_90"), off);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->split);
  EXPECT_FALSE(s->fusedCombine);
  EXPECT_EQ(s->counterBytes, 0);
  s = planAttention(decode(64, 32, 8, 32768, 128, "bf16"),
                    *findDevicePreset("sm_90"));
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  EXPECT_FALSE(s->fusedCombine);
  s = planAttention(decode(1, 32, 8, 32768, 128), *findDevicePreset("gfx942"));
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->split);
  EXPECT_FALSE(s->fusedCombine);
  s = planAttention(decode(1, 1, 1, 32768, 64), *findDevicePreset("vulkan"));
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->split);
  EXPECT_FALSE(s->fusedCombine);
}

TEST(Planner, AttentionLdsWhenNotOneLaneFits) {
  DeviceFacts d = *findDevicePreset("vulkan");
  auto s = planAttention(decode(1, 1, 1, 16, 4095), d); // 4097 * 4 > 16384
  ASSERT_FALSE(bool(s));
  EXPECT_EQ(kindOf(s.takeError()), CapabilityKind::AttentionLds);
  auto ok = planAttention(decode(1, 1, 1, 16, 4094), d); // 4096 * 4 fits
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(ok->lanes, 1);
}

TEST(Planner, DtypeLowering) {
  AttentionShape s = decode(1, 1, 1, 16, 64);
  s.dtype = "bf16";
  // A Vulkan device without 16-bit storage access: refused, naming the
  // feature.
  DeviceFacts d = *findDevicePreset("vulkan");
  d.bf16Storage = false;
  auto r = planAttention(s, d);
  ASSERT_FALSE(bool(r));
  std::string message = llvm::toString(r.takeError());
  EXPECT_NE(message.find("DtypeLowering"), std::string::npos) << message;
  EXPECT_NE(message.find("storageBuffer16BitAccess"), std::string::npos)
      << message;
  EXPECT_TRUE(bool(planAttention(s, *findDevicePreset("vulkan"))));
  EXPECT_TRUE(bool(planAttention(s, *findDevicePreset("sm_90"))));
}

/// Whether rule 1 lets `device` store `dtype`.
bool stores(llvm::StringRef dtype, const DeviceFacts &device) {
  llvm::Error e = checkStorageDtype(dtype, device);
  bool ok = !e;
  llvm::consumeError(std::move(e));
  return ok;
}

TEST(Planner, Int64IsAFactOnVulkanOnly) {
  // shaderInt64 is optional on Vulkan: the generic device does not promise
  // it; every other preset has 64-bit integers.
  for (const DeviceFacts &d : devicePresets())
    EXPECT_EQ(d.int64, d.target != "spirv") << d.name;
  DeviceFacts vulkan = *findDevicePreset("vulkan");
  ASSERT_FALSE(stores("i64", vulkan));
  std::string message = llvm::toString(checkStorageDtype("i64", vulkan));
  EXPECT_EQ(message, "DtypeLowering: target spirv on device vulkan cannot "
                     "store i64 buffers: the device lacks shaderInt64");
  // A Vulkan device with the feature (a live one, say) stores them.
  vulkan.int64 = true;
  EXPECT_TRUE(stores("i64", vulkan));
  EXPECT_TRUE(stores("i64", *findDevicePreset("sm_90")));
  // The other dtypes keep their own facts; i32 and f32 need none.
  vulkan.bf16Storage = false;
  message = llvm::toString(checkStorageDtype("bf16", vulkan));
  EXPECT_NE(message.find("storageBuffer16BitAccess"), std::string::npos)
      << message;
  EXPECT_TRUE(stores("i32", *findDevicePreset("vulkan")));
  EXPECT_TRUE(stores("f32", *findDevicePreset("vulkan")));
}

TEST(Planner, SplitOnlyForDecodeThatLeavesUnitsIdle) {
  DeviceFacts d = *findDevicePreset("sm_90"); // 132 units
  // 1 x 8 grouped rows, 32768 keys: 16 splits of 2048.
  auto s = planAttention(decode(1, 64, 8, 32768, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->grouped);
  EXPECT_TRUE(s->split);
  EXPECT_EQ(s->splits, 16);
  EXPECT_EQ(s->chunk, 2048);
  // Never a chunk under 128 keys: 384 keys make at most 3 splits.
  s = planAttention(decode(1, 8, 8, 384, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->splits, 3);
  EXPECT_GE(s->chunk, 128);
  // 255 keys make no two chunks of 128: streaming.
  s = planAttention(decode(1, 8, 8, 255, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  // Rows that fill the device stream.
  s = planAttention(decode(32, 64, 8, 8192, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  // Prefill never splits, and skips tiles past the diagonal when causal.
  AttentionShape p = decode(1, 32, 8, 4096, 128);
  p.queryLen = 4096;
  p.causal = true;
  s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  EXPECT_TRUE(s->causalSkip);
  EXPECT_FALSE(s->grouped);
}

TEST(Planner, TileSchedule) {
  // sm_80: the subgroup matrix tile (sm_90 takes the warpgroup tile, below).
  DeviceFacts d = *findDevicePreset("sm_80");
  AttentionShape p = decode(1, 32, 8, 1000, 128, "bf16");
  p.queryLen = 1000;
  p.causal = true;
  auto s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  // Two 64-key stages pass 48 KiB of workgroup memory, two 32-key fit.
  EXPECT_EQ(s->tileKeys, 32);
  EXPECT_EQ(s->tileStages, 2);
  EXPECT_EQ(s->group, 4); // the heads of a KV head share each staged key
  EXPECT_EQ(s->lanes, 128);
  EXPECT_FALSE(s->split);
  // 1000 rows x 4 heads = 63 blocks of 64 (the last one short), 8 KV heads.
  EXPECT_EQ(s->rows, 8 * 63);
  EXPECT_EQ(s->stateBytes, tileWorkgroupBytes(128, 128, 32, 2));
  EXPECT_EQ(tileWorkgroupBytes(128, 128, 32, 2),
            2 * (32 * 160 * 2 + 32 * 136 * 2));
  // Padding puts the rows one phase of a read covers on distinct banks.
  EXPECT_EQ(tileKeyPad(128), 32);
  EXPECT_EQ(tileKeyPad(96), 0);
  EXPECT_EQ((128 + tileKeyPad(128)) * 2 % 128, 64);
  EXPECT_EQ(tileValuePad(128), 8);
  EXPECT_EQ(tileValuePad(96) , 8);
  EXPECT_EQ(tileValuePad(40), 0);
  // More workgroup memory: two 64-key stages; less: one stage, then
  // another schedule.
  d.workgroupMemoryBytes = 96 * 1024;
  s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileKeys, 64);
  EXPECT_EQ(s->tileStages, 2);
  d.workgroupMemoryBytes = 20 * 1024;
  s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileKeys, 32);
  EXPECT_EQ(s->tileStages, 1);
  d.workgroupMemoryBytes = 16 * 1024;
  s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 0);
  // Without asynchronous copies: another schedule.
  d = *findDevicePreset("sm_80");
  d.asyncCopy = false;
  s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 0);
  // MQA, f16, Dk != Dv, a split key of whole vectors.
  d = *findDevicePreset("sm_90");
  AttentionShape m = decode(2, 6, 1, 333, 96, "f16");
  m.queryLen = 333;
  m.valueWidth = 64;
  s = planAttention(m, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  EXPECT_EQ(s->group, 6);
  AttentionShape mla = decode(1, 16, 1, 512, 192, "bf16");
  mla.queryLen = 100;
  mla.valueWidth = 128;
  mla.sharedKeyWidth = 64;
  s = planAttention(mla, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  // Not for: f32, 16 rows or fewer, widths off the steps, no matrix tile,
  // or when told not to.
  auto noTile = [&](AttentionShape x, const DeviceFacts &dev,
                    ScheduleTuning tuning = {}) {
    auto r = planAttention(x, dev, tuning);
    return r && r->tileRows == 0;
  };
  AttentionShape f32 = p;
  f32.dtype = "f32";
  EXPECT_TRUE(noTile(f32, d));
  // Decode: one row, or rows of a KV head that fill less than half a
  // workgroup (4 rows x 4 heads), keep the decode schedules.
  AttentionShape one = p;
  one.queryLen = 1;
  EXPECT_TRUE(noTile(one, d));
  AttentionShape rows4 = p;
  rows4.queryLen = 4;
  EXPECT_TRUE(noTile(rows4, d));
  // 8 rows x 4 heads: the tile schedule, split over the keys (8 KV heads
  // leave the 132 units idle: ceil(396 / 8) capped at 16 splits).
  AttentionShape rows8 = p;
  rows8.queryLen = 8;
  rows8.keyLen = 32768;
  s = planAttention(rows8, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  EXPECT_TRUE(s->split);
  EXPECT_EQ(s->splits, 16);
  EXPECT_FALSE(s->fusedCombine);
  EXPECT_EQ(s->scratchBytes, 8 * 8 * 16 * 4 * (128 + 2) * 4);
  AttentionShape w80 = decode(1, 8, 2, 100, 80, "bf16");
  w80.queryLen = 100;
  EXPECT_TRUE(noTile(w80, d));
  EXPECT_TRUE(noTile(p, *findDevicePreset("gfx942")));
  ScheduleTuning off;
  off.noMatrix = true;
  EXPECT_TRUE(noTile(p, d, off));
}


TEST(Planner, WarpgroupTileSchedule) {
  // sm_90 non-causal prefill: two warpgroups of 64 rows a workgroup
  // against 64-key tiles, keys and values one buffer each in the swizzled
  // layout (64 keys x 128 bytes for each 64 channels) and q a block of 64
  // rows for each warpgroup: 64 KiB, within the dynamic carve-out.
  DeviceFacts d = *findDevicePreset("sm_90");
  ASSERT_TRUE(d.warpgroupTile);
  EXPECT_EQ(d.dynamicWorkgroupMemoryBytes, 227 * 1024);
  EXPECT_FALSE(findDevicePreset("sm_80")->warpgroupTile);
  EXPECT_FALSE(findDevicePreset("sm_89")->warpgroupTile);
  AttentionShape p = decode(1, 32, 8, 1000, 128, "bf16");
  p.queryLen = 1000;
  auto s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileUnits, 0);
  EXPECT_TRUE(s->tileWarpgroup);
  EXPECT_EQ(s->tileRows, 128);
  EXPECT_EQ(s->tileKeys, 64);
  EXPECT_EQ(s->tileStages, 1);
  EXPECT_EQ(s->lanes, 256);
  EXPECT_EQ(s->group, 4);
  EXPECT_EQ(s->rows, 8 * 32);
  EXPECT_TRUE(s->tileSharedQuery);
  EXPECT_EQ(s->stateBytes, 4 * 2 * 64 * 128);
  // Causal against a cache four times the rows (chunked prefill): two
  // warpgroups too, the row blocks dealt across the 132 units.
  {
    AttentionShape chunk = p;
    chunk.causal = true;
    chunk.keyLen = 4000;
    auto c = planAttention(chunk, d);
    ASSERT_TRUE(bool(c));
    EXPECT_EQ(c->tileRows, 128);
    EXPECT_EQ(c->tileUnits, 132);
  }
  // Causal prefill (keys as many as rows): one warpgroup, unless asked.
  p.causal = true;
  {
    auto c = planAttention(p, d);
    ASSERT_TRUE(bool(c));
    EXPECT_EQ(c->tileRows, 64);
    EXPECT_EQ(c->tileUnits, 132);
    ScheduleTuning wide;
    wide.wideWarpgroup = true;
    auto w = planAttention(p, d, wide);
    ASSERT_TRUE(bool(w));
    EXPECT_EQ(w->tileRows, 128);
    ScheduleTuning heavy;
    heavy.noDealtOrder = true;
    auto h = planAttention(p, d, heavy);
    ASSERT_TRUE(bool(h));
    EXPECT_EQ(h->tileUnits, 0);
  }
  p.causal = false;
  // One warpgroup: where asked, where the score transform is more than the
  // scale, through a slot map, at width 96, without the dynamic carve-out,
  // or where the rows fill one warpgroup only.
  {
    ScheduleTuning one;
    one.noWideWarpgroup = true;
    AttentionShape softcap = p, paged = p, w96 = p, few = p;
    softcap.scoreTransform = true;
    paged.paged = true;
    w96.keyWidth = w96.valueWidth = 96;
    few.queryLen = 31;
    DeviceFacts noCarveOut = d;
    noCarveOut.dynamicWorkgroupMemoryBytes = 0;
    for (auto [shape, facts, tuning] :
         {std::tuple{p, d, one}, {softcap, d, ScheduleTuning{}},
          {paged, d, ScheduleTuning{}}, {w96, d, ScheduleTuning{}},
          {few, d, ScheduleTuning{}}, {p, noCarveOut, ScheduleTuning{}}}) {
      auto narrow = planAttention(shape, facts, tuning);
      ASSERT_TRUE(bool(narrow));
      EXPECT_TRUE(narrow->tileWarpgroup);
      EXPECT_EQ(narrow->tileRows, 64);
      EXPECT_EQ(narrow->lanes, 128);
    }
  }
  // One warpgroup: q staged beside them (48 KiB in all), so q takes no
  // registers.
  p.causal = true;
  ScheduleTuning one;
  one.noWideWarpgroup = true;
  s = planAttention(p, d, one);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->rows, 8 * 63);
  EXPECT_TRUE(s->tileSharedQuery);
  EXPECT_EQ(s->stateBytes, 3 * 2 * 64 * 128);
  ScheduleTuning registers;
  registers.noSharedQuery = true;
  {
    auto inRegisters = planAttention(p, d, registers);
    ASSERT_TRUE(bool(inRegisters));
    EXPECT_FALSE(inRegisters->tileSharedQuery);
    EXPECT_EQ(inRegisters->stateBytes, 2 * 2 * 64 * 128);
  }
  // Asked for the pipelined form: two key buffers beside the value buffer
  // fit 48 KiB.
  ScheduleTuning pipelined;
  pipelined.warpgroupPipeline = true;
  {
    auto two = planAttention(p, d, pipelined);
    ASSERT_TRUE(bool(two));
    EXPECT_TRUE(two->tileWarpgroup);
    EXPECT_EQ(two->tileStages, 2);
    EXPECT_FALSE(two->tileSharedQuery);
    EXPECT_EQ(two->stateBytes, 3 * 2 * 64 * 128);
  }
  // Asked not to: the subgroup tile, as on sm_80.
  ScheduleTuning tuning;
  tuning.noWarpgroup = true;
  s = planAttention(p, d, tuning);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->tileWarpgroup);
  EXPECT_EQ(s->tileKeys, 32);
  EXPECT_EQ(s->tileStages, 2);
  // Other subgroup counts than 4 are the subgroup tile's.
  tuning = {};
  tuning.warps = 2;
  s = planAttention(p, d, tuning);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->tileWarpgroup);
  // Multi-token decode takes the warpgroup tile where a KV head's rows
  // fill its 64 rows (8 rows x n_rep 8), split over the keys, without the
  // four-workgroup occupancy; 4 rows x n_rep 8 stay on the subgroup tile.
  AttentionShape mtd = decode(8, 64, 8, 32768, 128, "bf16");
  mtd.queryLen = 8;
  mtd.causal = true;
  s = planAttention(mtd, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  EXPECT_TRUE(s->tileWarpgroup);
  EXPECT_TRUE(s->split);
  ScheduleTuning subgroupDecode;
  subgroupDecode.noWarpgroupDecode = true;
  s = planAttention(mtd, d, subgroupDecode);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->tileWarpgroup);
  mtd.queryLen = 4;
  s = planAttention(mtd, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  EXPECT_FALSE(s->tileWarpgroup);
  // Value widths other than 32, 64, 96 and 128 (those checked right on
  // hardware; at most 128: a product's accumulators are dv / 2 floats a
  // lane) keep the subgroup tile.
  AttentionShape wide = decode(1, 4, 2, 200, 256, "f16");
  wide.queryLen = 200;
  s = planAttention(wide, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileRows, 64);
  EXPECT_FALSE(s->tileWarpgroup);
  AttentionShape odd = decode(1, 8, 2, 300, 64, "f16");
  odd.queryLen = 300;
  for (int64_t dv : {40, 48, 80}) {
    odd.valueWidth = dv;
    s = planAttention(odd, d);
    ASSERT_TRUE(bool(s));
    EXPECT_EQ(s->tileRows, 64);
    EXPECT_FALSE(s->tileWarpgroup) << dv;
  }
  for (int64_t dv : {32, 64, 96, 128}) {
    odd.valueWidth = dv;
    s = planAttention(odd, d);
    ASSERT_TRUE(bool(s));
    EXPECT_TRUE(s->tileWarpgroup) << dv;
  }
  odd.valueWidth = 96;
  s = planAttention(odd, d);
  // dk 64 (q 8 KiB) beside dv 96 (a 16 KiB value buffer).
  EXPECT_TRUE(s->tileSharedQuery);
  EXPECT_EQ(s->stateBytes, 2 * 64 * 128 + 2 * 64 * 128);
  s = planAttention(odd, d, pipelined);
  EXPECT_EQ(s->tileStages, 2);
  EXPECT_EQ(s->stateBytes, 2 * 64 * 128 + 2 * 64 * 128);
  AttentionShape mla = decode(1, 16, 1, 512, 192, "bf16");
  mla.queryLen = 100;
  mla.valueWidth = 128;
  mla.sharedKeyWidth = 64;
  s = planAttention(mla, d);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->tileWarpgroup);
  // A 192-wide q would not fit beside the key and value buffers.
  EXPECT_FALSE(s->tileSharedQuery);
  EXPECT_EQ(s->stateBytes, 3 * 64 * 128 + 2 * 64 * 128);
  // Two 192-wide key buffers would not fit beside the values: one, also
  // when the pipelined form is asked for.
  s = planAttention(mla, d, pipelined);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->tileStages, 1);
  // f32 has no matrix tile at all.
  AttentionShape f32 = decode(1, 8, 2, 100, 128);
  f32.queryLen = 100;
  s = planAttention(f32, d);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->tileWarpgroup);
  EXPECT_EQ(s->tileRows, 0);
}

TEST(Planner, SplitCountCappedAndSizedToTheUnits) {
  DeviceFacts d = *findDevicePreset("gfx942"); // 304 units
  auto s = planAttention(decode(1, 1, 1, 1 << 20, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->splits, 16);
  d.computeUnits = 24;
  // 8 rows, two workgroups a unit: ceil(2 * 24 / 8) = 6 splits.
  s = planAttention(decode(1, 8, 8, 1 << 20, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->splits, 6);
}

TEST(Planner, PartialsPastTheBufferLimitKeepStreaming) {
  DeviceFacts d = *findDevicePreset("sm_90");
  d.maxBufferBytes = 1000;
  auto s = planAttention(decode(1, 1, 1, 32768, 128), d);
  ASSERT_TRUE(bool(s));
  EXPECT_FALSE(s->split);
  d = *findDevicePreset("sm_90");
  d.memoryBytes = 1000;
  auto r = planAttention(decode(1, 1, 1, 32768, 128), d);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(kindOf(r.takeError()), CapabilityKind::ScratchBytes);
}

TEST(Planner, GridFoldsPastTheXLimit) {
  DeviceFacts d = *findDevicePreset("vulkan");
  AttentionShape p = decode(1, 32, 32, 4096, 64);
  p.queryLen = 4096; // 131072 rows
  auto s = planAttention(p, d);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->gridX, 65535);
  EXPECT_EQ(s->gridY, 3);
  d.maxGridY = 2;
  auto r = planAttention(p, d);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(kindOf(r.takeError()), CapabilityKind::GridLimit);
}

TEST(BufferPlan, DisjointLifetimesShareBytes) {
  std::vector<BufferRequest> r = {
      {"a", 1000, 0, 1}, {"b", 1000, 2, 3}, {"c", 1000, 1, 2}};
  ArenaPlan p = planArena(r, 256);
  EXPECT_EQ(p.offsets[0], p.offsets[1]); // a and b never meet
  EXPECT_NE(p.offsets[0], p.offsets[2]); // c meets both
  EXPECT_EQ(p.bytes, 2048);
}

TEST(BufferPlan, OverlappingBuffersNeverOverlapInBytes) {
  std::vector<BufferRequest> r;
  for (int i = 0; i < 40; ++i)
    r.push_back({"x", 100 + 37 * (i % 7), i % 5, i % 5 + i % 3});
  ArenaPlan p = planArena(r, 64);
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = i + 1; j < r.size(); ++j) {
      bool timeOverlap = r[i].first <= r[j].last && r[j].first <= r[i].last;
      bool byteOverlap = p.offsets[i] < p.offsets[j] + r[j].bytes &&
                         p.offsets[j] < p.offsets[i] + r[i].bytes;
      EXPECT_FALSE(timeOverlap && byteOverlap) << i << " " << j;
    }
}

/// A graph of `layers` layers, each an attention (declaring a split-KV
/// scratch) between two elementwise eqns.
rt::Graph layeredGraph(int layers) {
  rt::Graph g;
  rt::TensorType t{rt::DType::F32, {1, 8, 1, 128}};
  g.values.push_back(t);
  g.inputs.push_back({0, "x", "", std::nullopt, ""});
  int cur = 0;
  for (int l = 0; l < layers; ++l) {
    for (const char *op : {"exp", "attention", "neg"}) {
      rt::Eqn e;
      e.op = op;
      e.operands = {cur};
      g.values.push_back(t);
      cur = static_cast<int>(g.values.size()) - 1;
      e.results = {cur};
      if (std::string(op) == "attention")
        e.attrs["poot.schedule.scratch_bytes"] = rt::Attr::ofInt(1 << 20);
      g.eqns.push_back(e);
    }
  }
  g.outputs.push_back({cur, "y", "", false});
  return g;
}

TEST(BufferPlan, ArenaDoesNotGrowWithLayers) {
  auto bytesFor = [](int layers) {
    return planArena(graphBuffers(layeredGraph(layers))).bytes;
  };
  int64_t two = bytesFor(2);
  EXPECT_GE(two, 1 << 20); // the scratch is in the arena
  EXPECT_EQ(bytesFor(8), two);
  EXPECT_EQ(bytesFor(32), two);
}

TEST(BufferPlan, ScratchLivesExactlyDuringItsEqn) {
  auto buffers = graphBuffers(layeredGraph(3));
  int scratches = 0;
  for (const BufferRequest &b : buffers)
    if (b.value < 0) {
      ++scratches;
      EXPECT_EQ(b.first, b.last);
      EXPECT_EQ(b.bytes, 1 << 20);
    }
  EXPECT_EQ(scratches, 3);
}

} // namespace
