//===- Planner.cpp - Schedules for fused ops ------------------------------===//
//
// The streaming schedule runs one workgroup of `lanes` threads per (batch
// row, query head, query row); each lane keeps a running (max, denominator,
// accumulator) of dv + 2 floats in workgroup memory, so lanes is the widest
// power of two <= 64 whose state fits. Decode whose rows do not fill the
// compute units splits the keys (at most 16 splits, never under 128 keys a
// chunk) into partials and a combine, unless the partial state passes the
// single-buffer limit or the folded grid. With n_rep > 1 in decode one
// workgroup serves the whole head group, so K and V are read once.
//
//===----------------------------------------------------------------------===//

#include "poot/Plan/Planner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace poot;

char CapabilityError::ID = 0;

const char *poot::capabilityKindName(CapabilityKind kind) {
  switch (kind) {
  case CapabilityKind::AttentionLds:
    return "AttentionLds";
  case CapabilityKind::ScratchBytes:
    return "ScratchBytes";
  case CapabilityKind::DtypeLowering:
    return "DtypeLowering";
  case CapabilityKind::GridLimit:
    return "GridLimit";
  }
  return "Capability";
}

void CapabilityError::log(llvm::raw_ostream &os) const {
  os << capabilityKindName(kind) << ": " << message;
}

std::error_code CapabilityError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

static llvm::Error capability(CapabilityKind kind, std::string message) {
  return llvm::make_error<CapabilityError>(kind, std::move(message));
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Lays `workgroups` over X, folding into Y past the X limit; false when it
/// does not fit even folded.
static bool foldGrid(int64_t workgroups, const DeviceFacts &d, int64_t &x,
                     int64_t &y) {
  x = std::min(workgroups, d.maxGridX);
  y = ceilDiv(workgroups, x);
  return y <= d.maxGridY;
}

/// The widest power of two <= 64 (and <= the workgroup size) whose state of
/// `floatsPerLane` floats fits workgroup memory; 0 when not even one does.
static int64_t lanesFor(int64_t floatsPerLane, const DeviceFacts &d) {
  for (int64_t lanes = 64; lanes >= 1; lanes /= 2)
    if (lanes <= d.maxWorkgroupSize &&
        lanes * floatsPerLane * 4 <= d.workgroupMemoryBytes)
      return lanes;
  return 0;
}

namespace {
struct ChannelPlan {
  int64_t vector = 1, keyLanes = 1, unroll = 1, warps = 1, group = 1;
  bool matrix = false;     ///< the matrix-tile schedule
  bool pairFold = false;   ///< matrix-tile: subgroups fold pairwise first
  /// matrix-tile, default subgroups: the partials of 16 subgroups do not
  /// fit but those of 8 do, so 16 can run folding pairwise first.
  bool pairFoldable = false;
  int64_t valueVector = 1; ///< matrix-tile schedule: value row load width
};
} // namespace

static bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The channel schedule's geometry, or nothing when the widths do not fit
/// it (the lane-per-key schedule runs instead). Vectors are the widest
/// power of two within the device's vector load that divides every width
/// (and the split point of a split key, so no vector straddles k and
/// k_shared); key lanes the widest power of two within the subgroup that
/// leaves each lane at least 8 channels of key plus value and divides both
/// widths into whole vectors per lane.
static std::optional<ChannelPlan> planChannels(const AttentionShape &s,
                                               const DeviceFacts &d,
                                               int64_t nRep,
                                               const ScheduleTuning &tuning) {
  const int64_t sg = d.subgroupSize;
  if (!d.fixedSubgroup || !isPowerOf2(sg) || sg < 2)
    return std::nullopt;
  const int64_t elemBytes = s.dtype == "f32" ? 4 : 2;
  const int64_t dk = s.keyWidth, dv = s.valueWidth;
  const int64_t kd = dk - s.sharedKeyWidth;
  const bool decode = s.queryLen <= kMaxDecodeRows;
  int64_t widest = std::max<int64_t>(1, d.vectorLoadBytes / elemBytes);
  for (int64_t vec = widest; vec >= 1; vec /= 2) {
    if (dk % vec || dv % vec || kd % vec)
      continue;
    int64_t keyLanes = 0;
    for (int64_t l = sg; l >= 1; l /= 2)
      if (dk % (l * vec) == 0 && dv % (l * vec) == 0 &&
          (dk + dv) / l >= std::min<int64_t>(16, dk + dv)) {
        keyLanes = l;
        break;
      }
    if (!keyLanes)
      continue;
    int64_t perHead = (dk + dv) / keyLanes;
    ChannelPlan p;
    p.vector = vec;
    p.keyLanes = keyLanes;
    // Heads of one workgroup: the largest divisor of n_rep whose q and
    // accumulators stay within 64 registers a lane (more would halve the
    // warps a compute unit holds); the workgroups of one KV head's other
    // heads read the same keys at about the same time, from L2.
    if (perHead > 128)
      continue;
    p.group = 1;
    if (nRep > 1 && decode)
      for (int64_t g = nRep; g >= 1; --g)
        if (nRep % g == 0 &&
            (tuning.heads > 0 ? g <= tuning.heads : perHead * g <= 64)) {
          p.group = g;
          break;
        }
    // Scores in flight: unroll x heads of the group, at most 16.
    p.unroll = std::clamp<int64_t>(16 / p.group, 1, 4);
    if (tuning.unroll > 0)
      p.unroll = tuning.unroll;
    // Subgroups: as many as the partials' workgroup memory allows, at most
    // 16 (with at most 64 floats of state a lane, 16 subgroups still fit
    // one compute unit's register file; measured on sm_90, 16 subgroups of
    // 4 heads beat 8 of 8 heads by 1.26x at B=1, Lk=32768).
    int64_t floats = dv + 2;
    p.warps = tuning.warps > 0 ? tuning.warps : 16;
    while (p.warps > 1 &&
           (p.warps * p.group * floats * 4 > d.workgroupMemoryBytes ||
            p.warps * sg > d.maxWorkgroupSize))
      p.warps /= 2;
    if (p.warps * p.group * floats * 4 > d.workgroupMemoryBytes ||
        p.warps * sg > d.maxWorkgroupSize)
      return std::nullopt;
    return p;
  }
  return std::nullopt;
}

/// The largest power of two <= `cap` dividing `n`.
static int64_t widestDividing(int64_t n, int64_t cap) {
  int64_t w = 1;
  while (w * 2 <= cap && n % (w * 2) == 0)
    w *= 2;
  return w;
}

/// The matrix-tile schedule's geometry, or nothing where it does not apply:
/// f16/bf16 decode of grouped heads (n_rep >= 2) on a device with the
/// matrix tile, a key of one part, widths in whole 16-channel steps, and
/// registers for q and
/// the accumulators of 8 heads (dk / 8 words and dv / 4 floats a lane, at
/// most 96). Scores come 16 keys x 8 heads at a time, so a workgroup serves
/// the largest divisor of n_rep up to 8 (fewer heads leave tile columns
/// idle, which costs the matrix unit nothing it is short of).
static std::optional<ChannelPlan> planMatrix(const AttentionShape &s,
                                             const DeviceFacts &d,
                                             int64_t nRep,
                                             const ScheduleTuning &tuning) {
  if (!d.matrixTile || tuning.noMatrix || d.subgroupSize != 32 ||
      !d.fixedSubgroup)
    return std::nullopt;
  if ((s.dtype != "bf16" && s.dtype != "f16") || s.queryLen > kMaxDecodeRows ||
      nRep < 2)
    return std::nullopt;
  const int64_t dk = s.keyWidth, dv = s.valueWidth;
  // A split key (k | k_shared) is left to the channel schedule until a
  // matrix-tile run of one has been checked on a GPU.
  if (s.sharedKeyWidth || dk % 16 || dv % 16 || dk / 8 + dv / 4 > 96)
    return std::nullopt;
  int64_t widest = std::max<int64_t>(1, d.vectorLoadBytes / 2);
  ChannelPlan p;
  p.matrix = true;
  p.keyLanes = 0; // a tile, not a key, spans the lanes
  // A lane reads dk / 4 channels of a key row in vectors of `vector`
  // (chunk j of 4 vectors per row goes to the 4 lanes of a quad).
  p.vector = widestDividing(dk / 4, std::max<int64_t>(2, widest));
  // A lane reads dv / 8 channels of a value row: two runs (rows g and
  // g + 8 of the value tiles) of dv / 16, in vectors of `valueVector`.
  p.valueVector = widestDividing(dv / 16, widest);
  int64_t cap = tuning.heads > 0 ? std::min<int64_t>(8, tuning.heads) : 8;
  for (int64_t g = std::min(nRep, cap); g >= 1; --g)
    if (nRep % g == 0) {
      p.group = g;
      break;
    }
  // One tile in flight and 16 subgroups (as many as the partials fit):
  // measured on sm_90 against 2 and 4 tiles and 4, 8 and 16 subgroups, one
  // tile keeps the registers low enough for two workgroups a unit where
  // the grid has them (8B, B=8: 86.8 us against 124.7 at 2 tiles and 8
  // subgroups), and is as fast where it does not (70B, B=1: 51.9 us
  // against 64.7); docs/performance.md.
  p.unroll = tuning.unroll > 0 ? tuning.unroll : 1;
  p.warps = tuning.warps > 0 ? tuning.warps : 16;
  const int64_t floats = dv + 2;
  auto fits = [&](int64_t slots) {
    return slots * p.group * floats * 4 <= d.workgroupMemoryBytes;
  };
  // Asked for more subgroups than the partials fit, they fold pairwise
  // first. By default that is decided with the grid (planAttention).
  if (p.warps >= 2 && p.warps * 32 <= d.maxWorkgroupSize && !fits(p.warps) &&
      fits(p.warps / 2)) {
    if (tuning.warps > 0)
      p.pairFold = true;
    else
      p.pairFoldable = true;
  }
  while (!p.pairFold && p.warps > 1 &&
         (!fits(p.warps) || p.warps * 32 > d.maxWorkgroupSize))
    p.warps /= 2;
  if (!fits(p.pairFold ? p.warps / 2 : p.warps))
    return std::nullopt;
  return p;
}

/// Padding of a key row: its bytes 64 past a multiple of 128, so the 8
/// lanes of one phase of a 16-byte read, 4 in each of two neighbouring
/// rows, hit 32 different banks.
int64_t poot::tileKeyPad(int64_t dk) {
  return ((64 - (dk * 2) % 128) + 128) % 128 / 2;
}

/// Padding of a value row: an odd number of 16-byte units, so the 8 rows
/// of an 8x8 tile read transposed hit 32 different banks.
int64_t poot::tileValuePad(int64_t dv) { return (dv / 8) % 2 == 0 ? 8 : 0; }

int64_t poot::tileWorkgroupBytes(int64_t dk, int64_t dv, int64_t keys,
                                 int64_t stages) {
  return stages * keys * (dk + tileKeyPad(dk) + dv + tileValuePad(dv)) * 2;
}

/// The tile schedule (prefill on the matrix tile), or nothing where it
/// does not apply: f16/bf16 prefill on a device with the matrix tile, a key
/// width in 32-channel steps (the kernel's channel order spans 32), a value
/// width in 8-channel steps, a split key whose parts are whole vectors, and
/// registers for a subgroup's q (dk / 4 words a lane), accumulators (dv / 2
/// floats) and scores (keys / 2) within 224, which admits head width 256
/// with 32-key tiles, on a device that copies into workgroup memory
/// asynchronously. Four subgroups of 16 rows make a workgroup of 64 query
/// rows, the heads of one KV group interleaved so every staged key serves
/// all of them; the key tile is the larger of 64 and 32 that fits twice
/// (else once) in workgroup memory.
static std::optional<AttentionSchedule> planTile(const AttentionShape &s,
                                                 const DeviceFacts &d,
                                                 int64_t nRep,
                                                 const ScheduleTuning &tuning) {
  // Multi-token decode takes it where a KV head's rows fill half a
  // workgroup or more (so every staged key serves at least 32 rows).
  const bool decode = s.queryLen <= kMaxDecodeRows;
  if (!d.matrixTile || !d.asyncCopy || tuning.noMatrix ||
      d.subgroupSize != 32 || !d.fixedSubgroup ||
      (decode && (s.queryLen < 2 || nRep * s.queryLen < 32)))
    return std::nullopt;
  if (s.dtype != "bf16" && s.dtype != "f16")
    return std::nullopt;
  const int64_t dk = s.keyWidth, dv = s.valueWidth;
  if (dk % 32 || dv % 8 || (dk - s.sharedKeyWidth) % 8)
    return std::nullopt;
  // Prefill on the warpgroup tile where the device has one (sm_90;
  // measured 1.7x faster than the subgroup tile there): 64-key tiles, one
  // buffer each for keys and values in the 128-byte swizzled layout
  // (ceil(width / 64) blocks of 64 keys x 128 bytes). Only for the value
  // widths checked right on an H200, 32, 64, 96 and 128 (at most 128: a
  // product's accumulators are dv / 2 floats a lane). Multi-token decode
  // takes it where a KV head's rows fill its 64 rows (n_rep x new rows >=
  // 64): measured on the H200 (70B, B=8, Lk=32768, 8 rows) 286.9 us (3.75
  // TB/s) against 354.7 on the subgroup tile.
  auto atoms = [](int64_t width) { return (width + 63) / 64 * 64 * 128; };
  const bool warpgroup =
      d.warpgroupTile && !tuning.noWarpgroup &&
      (!decode || (!tuning.noWarpgroupDecode && nRep * s.queryLen >= 64)) &&
      (tuning.warps == 0 || tuning.warps == 4) && dk <= 256 &&
      (dv == 32 || dv == 64 || dv == 96 || dv == 128) &&
      atoms(dk) + atoms(dv) <= d.workgroupMemoryBytes &&
      dk / 4 + dv / 2 + 32 <= 224;
  // Otherwise double-buffered first (the copies of the next tile hide
  // behind the products of this one), then the larger tile.
  int64_t keys = 0, stages = 0;
  // One key buffer. Two (asked for, where they fit beside the value
  // buffer: widths up to 128 in 48 KiB) let the next tile's score
  // products run during this tile's softmax, but take 220 registers a
  // lane against 168, two workgroups a compute unit instead of three:
  // measured on the H200 (8B causal L=4096) 372.1 against 329.3 us, and
  // slower by 3-13% at 8 of the 9 prefill benchmark shapes (2% faster on
  // the paged chunk).
  if (warpgroup) {
    keys = 64;
    stages = tuning.warpgroupPipeline &&
                     2 * atoms(dk) + atoms(dv) <= d.workgroupMemoryBytes
                 ? 2
                 : 1;
  }
  for (auto [k, st] : {std::pair<int64_t, int64_t>{64, 2}, {32, 2}, {64, 1},
                       {32, 1}})
    if (!keys && tileWorkgroupBytes(dk, dv, k, st) <= d.workgroupMemoryBytes &&
        dk / 4 + dv / 2 + k / 2 <= 224) {
      keys = k;
      stages = st;
      break;
    }
  if (!keys)
    return std::nullopt;
  // Two warpgroups of 64 rows a workgroup (128 rows) where both read each
  // staged key and value tile: half the copies a row and half the reads of
  // K and V from L2, with four warpgroups a compute unit as before (two
  // workgroups of 256 lanes at 128 registers a lane). Their q, 64 rows
  // each, sits in workgroup memory beside one key and one value buffer
  // (64 KiB at width 128), which takes the dynamic carve-out. Only where
  // the kernel keeps to 128 registers a lane, as the one-warpgroup form
  // with q staged does: prefill rows that fill both warpgroups, no score
  // transform, slot map or split key, widths whose copies go in rounds.
  // Not for a causal prefill without a longer cache before its rows: its
  // row blocks differ in weight, and the larger blocks were slower there
  // (measured on the H200, 8B L=4096: 268.6 against 258.5 us), where
  // non-causal and chunked prefill gained (8B B=4 L=4096 2063.8 against
  // 2159.0 us, 2048 rows against 16384 keys 898.5 against 1085.3).
  const bool balanced =
      !s.causal || s.keyLen >= 2 * s.queryLen || tuning.wideWarpgroup;
  auto inRounds = [](int64_t width) {
    return width == 32 || width == 64 || width == 128 || width == 256;
  };
  const bool wide =
      warpgroup && stages == 1 && !decode && tuning.warps == 0 &&
      !tuning.noWideWarpgroup && !tuning.noSharedQuery &&
      nRep * s.queryLen >= 128 && balanced && !s.paged &&
      !s.scoreTransform &&
      !s.sharedKeyWidth && inRounds(dk) && inRounds(dv) &&
      3 * atoms(dk) + atoms(dv) <= d.dynamicWorkgroupMemoryBytes;
  const int64_t warps = wide        ? 8
                        : warpgroup ? 4
                        : tuning.warps > 0 ? tuning.warps
                                           : 4;
  if (warps * 32 > d.maxWorkgroupSize)
    return std::nullopt;
  AttentionSchedule out;
  out.subgroup = 32;
  out.matrix = true;
  out.group = nRep;
  out.grouped = nRep > 1;
  out.tileRows = warps * 16;
  out.tileKeys = keys;
  out.tileStages = stages;
  out.tileWarpgroup = warpgroup;
  // q staged once in workgroup memory, beside one key and one value
  // buffer, where the three fit (widths up to 128 in 48 KiB): the score
  // products read both operands there, which frees the dk / 4 registers a
  // lane q's A words took.
  out.tileSharedQuery = wide || (warpgroup && stages == 1 &&
                                 !tuning.noSharedQuery &&
                                 atoms(dk) + atoms(dk) + atoms(dv) <=
                                     d.workgroupMemoryBytes);
  out.lanes = warps * 32;
  out.vector = 8;
  out.stateBytes = warpgroup ? (stages + out.tileSharedQuery * warps / 4) *
                                       atoms(dk) +
                                   atoms(dv)
                             : tileWorkgroupBytes(dk, dv, keys, stages);
  out.rows = s.batch * s.keyHeads * ceilDiv(nRep * s.queryLen, out.tileRows);
  out.chunk = s.keyLen;
  out.causalSkip = s.causal;
  out.why = llvm::formatv("tile: {0} query rows of {1} head(s) a workgroup "
                          "against tiles of {2} keys, {3} in workgroup "
                          "memory, on the {4} matrix tile",
                          out.tileRows, nRep, keys, stages,
                          warpgroup ? "warpgroup" : "subgroup");
  if (out.tileSharedQuery)
    out.why += ", q in workgroup memory";
  if (wide)
    out.why += ", two warpgroups sharing each tile";
  // Causal prefill: the row blocks differ in weight (the last sees every
  // key, the first one tile), and the device starts the first workgroups
  // one a compute unit, so heaviest first alone would put the heaviest
  // block of every round on the same units; dealt alternately from both
  // ends of each round, every unit's blocks weigh about the same. Only
  // where the grid is about two waves of four workgroups a unit or less:
  // a longer grid is balanced by the device handing the next (lighter)
  // workgroup to the unit that frees first. Measured on the H200 (one
  // call, against heaviest first): 8B L=1024 (512 workgroups) 30.53
  // against 32.10 us; 8B L=4096 (2048) 255.9 against 257.0, and 8B
  // L=16384 (8192) 4196 against 3750, so not past two waves.
  if (s.causal && !decode && !tuning.noDealtOrder &&
      out.rows <= 8 * d.computeUnits) {
    out.tileUnits = d.computeUnits;
    out.why += ", row blocks dealt across the compute units";
  }
  // Decode rows leave the device idle: split the keys into about two
  // waves of three workgroups a compute unit (three fit its registers at
  // 168 a lane), at most 16 splits of at least two tiles each, and fold the
  // partials in a combine kernel (one per (batch row, KV head, query row)).
  // Measured on sm_90 (70B, B=8, Lk=32768, 8 rows: 64 workgroups): 3, 7,
  // 12 and 16 splits take 442.8, 398.4, 368.1 and 374.9 us.
  int64_t splits = 1;
  if (decode && out.rows < d.computeUnits) {
    int64_t want = tuning.splits > 0 ? tuning.splits
                                     : 6 * d.computeUnits / out.rows;
    splits = std::min<int64_t>({want, 16, s.keyLen / (2 * keys)});
  }
  if (splits >= 2) {
    const int64_t rows = s.batch * s.keyHeads * s.queryLen;
    const int64_t scratch = rows * splits * nRep * (dv + 2) * 4;
    int64_t x, y;
    if (scratch <= d.maxBufferBytes && scratch <= d.memoryBytes &&
        foldGrid(out.rows * splits, d, x, y)) {
      out.split = true;
      out.splits = splits;
      out.chunk = ceilDiv(s.keyLen, splits);
      out.scratchBytes = scratch;
      out.liveSplits = s.live;
      out.rows *= splits;
      out.why += llvm::formatv(", split-KV: {0} splits of {1} keys and a "
                               "combine",
                               splits, out.chunk);
    }
  }
  if (!foldGrid(out.rows, d, out.gridX, out.gridY))
    return std::nullopt;
  return out;
}

llvm::Error poot::verifyTuning(const ScheduleTuning &t) {
  auto check = [](const char *name, int64_t v, int64_t max,
                  bool powerOfTwo) -> llvm::Error {
    bool ok = v >= 0 && v <= max && (!powerOfTwo || (v & (v - 1)) == 0);
    if (ok)
      return llvm::Error::success();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("expected {0} to be 0 (the planner decides) or {1} up "
                      "to {2}, got {3}",
                      name, powerOfTwo ? "a power of two" : "a count", max, v)
            .str());
  };
  if (llvm::Error e = check("unroll", t.unroll, 16, true))
    return e;
  if (llvm::Error e = check("warps", t.warps, 32, true))
    return e;
  if (llvm::Error e = check("heads", t.heads, 64, false))
    return e;
  if (llvm::Error e = check("waves", t.waves, 64, false))
    return e;
  if (llvm::Error e = check("splits", t.splits, 16, false))
    return e;
  if (t.fusedCombine && t.noFusedCombine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "expected at most one of fused-combine "
                                   "and no-fused-combine");
  return llvm::Error::success();
}

llvm::Error poot::checkStorageDtype(llvm::StringRef dtype,
                                    const DeviceFacts &d) {
  bool f16 = dtype == "f16", bf16 = dtype == "bf16", i64 = dtype == "i64";
  if ((!f16 || d.f16Storage) && (!bf16 || d.bf16Storage) &&
      (!i64 || d.int64))
    return llvm::Error::success();
  // On Vulkan f16 and bf16 ride on 16-bit storage (bf16 as 16-bit words),
  // f16 computes in Float16 too; i64 needs 64-bit integers, for storage
  // buffers as for arithmetic.
  std::string lacks;
  if (d.target == "spirv")
    lacks = i64    ? ": the device lacks shaderInt64"
            : bf16 ? ": the device lacks storageBuffer16BitAccess"
                   : ": the device lacks storageBuffer16BitAccess or "
                     "shaderFloat16";
  return capability(CapabilityKind::DtypeLowering,
                    llvm::formatv("target {0} on device {1} cannot store "
                                  "{2} buffers{3}",
                                  d.target, d.name, dtype, lacks));
}

llvm::Expected<AttentionSchedule>
poot::planAttention(const AttentionShape &s, const DeviceFacts &d,
                    const ScheduleTuning &tuning) {
  if (llvm::Error e = checkStorageDtype(s.dtype, d))
    return std::move(e);

  int64_t nRep = s.queryHeads / std::max<int64_t>(s.keyHeads, 1);
  if (std::optional<AttentionSchedule> tile = planTile(s, d, nRep, tuning))
    return *tile;
  AttentionSchedule out;
  int64_t floats = s.valueWidth + 2;
  // The grouped decode schedule holds the state of every head of the group.
  if (nRep > 1 && s.queryLen <= kMaxDecodeRows) {
    int64_t lanes = lanesFor(floats * nRep, d);
    if (lanes >= std::min<int64_t>(8, d.maxWorkgroupSize)) {
      out.grouped = true;
      out.lanes = lanes;
    }
  }
  if (!out.grouped) {
    out.lanes = lanesFor(floats, d);
    if (out.lanes == 0)
      return capability(CapabilityKind::AttentionLds,
                        llvm::formatv("value width {0} needs {1} bytes of "
                                      "workgroup memory for one lane, device "
                                      "{2} has {3}",
                                      s.valueWidth, floats * 4, d.name,
                                      d.workgroupMemoryBytes));
  }
  // The channel schedule, where subgroups have a fixed width: a key is
  // shared by `keyLanes` lanes, each loading `vector` contiguous channels at
  // a time, so a subgroup holds subgroup / keyLanes keys side by side and
  // each group keeps `unroll` keys in flight. Registers hold q and the
  // accumulators (dk / keyLanes + dv / keyLanes floats per head of the
  // group, at most 128); workgroup memory only the subgroups' partials.
  std::optional<ChannelPlan> sub = planMatrix(s, d, nRep, tuning);
  if (!sub)
    sub = planChannels(s, d, nRep, tuning);
  if (sub) {
    out.subgroup = d.subgroupSize;
    out.matrix = sub->matrix;
    out.pairFold = sub->pairFold;
    out.group = sub->group;
    out.grouped = sub->group > 1;
    out.vector = sub->vector;
    out.keyLanes = sub->keyLanes;
    out.valueVector = sub->valueVector;
    out.unroll = sub->unroll;
    out.lanes = sub->warps * d.subgroupSize;
  }
  if (!out.subgroup)
    out.group = out.grouped ? nRep : 1;
  // A matrix-tile grid of at most one workgroup a compute unit leaves each
  // unit 8 subgroups where the partials of 16 do not fit: 16 folding
  // pairwise run faster there (70B, B=1: 49.2 against 52.2 us at
  // Lk=32768, 136.9 against 146.7 at 131072), and slower where two
  // workgroups share a unit (B=8, Lk=32768: 255.9 against 252.9);
  // docs/performance.md.
  auto done = [&](AttentionSchedule &o) -> AttentionSchedule {
    int64_t workgroups = o.split ? o.rows * o.splits : o.rows;
    if (sub && sub->pairFoldable && workgroups <= d.computeUnits) {
      o.pairFold = true;
      o.lanes *= 2;
    }
    return o;
  };
  int64_t group = out.group;
  out.stateBytes =
      out.subgroup
          ? (out.lanes / out.subgroup / (out.pairFold ? 2 : 1)) * floats *
                group * 4
          : out.lanes * floats * group * 4;
  out.rows = s.batch * (s.queryHeads / group) * s.queryLen;
  out.chunk = s.keyLen;
  out.causalSkip = s.causal && s.queryLen > 1;
  if (!foldGrid(out.rows, d, out.gridX, out.gridY))
    return capability(CapabilityKind::GridLimit,
                      llvm::formatv("{0} workgroups do not fit device {1}'s "
                                    "grid of {2} x {3}",
                                    out.rows, d.name, d.maxGridX, d.maxGridY));
  out.why = "streaming";

  // Split-KV: decode only, when the rows leave compute units idle. The
  // split count aims at two workgroups per compute unit (a compute unit
  // holds several; measured on sm_90, two waves of splits instead of one
  // ran 1.6x faster at B=1, Lk=32768), rounded down so the launch is not
  // a full wave and a sliver of a second, within the seed's 16 splits and
  // 128 keys a chunk.
  //
  // A matrix-tile workgroup of 16 subgroups takes about 120 registers a
  // lane, most of a unit's register file: a unit holds one, so the splits
  // aim at one workgroup a unit there, and rows that already pass one a
  // unit run on 8 subgroups (two a unit) rather than in a second wave.
  // Measured on sm_90 (8B, bf16): B=8 Lk=8192 75.9 us at 2 splits of 16
  // subgroups against 79.3 at 4 (and 76.3 at 4 of 8); B=32 Lk=8192 248.2
  // at 8 subgroups against 249.6 at 16 (docs/performance.md).
  const bool fullUnit = out.matrix && out.lanes >= 16 * d.subgroupSize;
  const int64_t waves = tuning.waves > 0 ? tuning.waves : (fullUnit ? 1 : 2);
  if (s.queryLen > kMaxDecodeRows) {
    out.why = "streaming: prefill fills the device with query rows";
    return done(out);
  }
  if (out.rows >= d.computeUnits) {
    if (fullUnit && tuning.warps == 0 && out.rows > d.computeUnits) {
      out.lanes /= 2;
      out.stateBytes /= 2;
    }
    out.why = llvm::formatv("streaming: {0} rows fill {1} compute units",
                            out.rows, d.computeUnits);
    return done(out);
  }
  int64_t splits = std::min<int64_t>(
      {tuning.splits > 0 ? std::min<int64_t>(16, tuning.splits) : 16,
       d.computeUnits * waves / out.rows, s.keyLen / 128});
  if (splits < 2) {
    out.why = tuning.splits == 1
                  ? std::string("streaming: one split was asked for")
                  : llvm::formatv("streaming: {0} keys make no two chunks "
                                  "of 128",
                                  s.keyLen)
                        .str();
    return done(out);
  }
  int64_t scratch = out.rows * splits * floats * group * 4;
  if (scratch > d.maxBufferBytes) {
    out.why = llvm::formatv("streaming: {0} bytes of partials pass the "
                            "single-buffer limit {1}",
                            scratch, d.maxBufferBytes);
    return done(out);
  }
  int64_t x, y;
  if (!foldGrid(out.rows * splits, d, x, y)) {
    out.why = "streaming: the split launch passes the grid";
    return done(out);
  }
  if (scratch > d.memoryBytes)
    return capability(CapabilityKind::ScratchBytes,
                      llvm::formatv("split-KV scratch of {0} bytes ({1} rows x "
                                    "{2} splits x {3} floats) exceeds the {4} "
                                    "bytes device {5} can allocate",
                                    scratch, out.rows, splits, floats * group,
                                    d.memoryBytes, d.name));
  out.split = true;
  out.splits = splits;
  out.chunk = ceilDiv(s.keyLen, splits);
  out.gridX = x;
  out.gridY = y;
  out.scratchBytes = scratch;
  // The combine in the last workgroup of each row: one launch instead of
  // two, where the device can order a row's partials before its ticket.
  // Measured on sm_90 against the combine kernel, it is as fast or faster
  // on every matrix-tile shape (70B B=1 Lk=4096: 14.6 against 15.0 us; 8B
  // B=8 Lk=32768: 252.8 against 255.0), but 11% slower on the f32 channel
  // schedule at 70B B=8 Lk=8192 (223.3 against 201.4 us; B=1 Lk=32768 is
  // 1% faster), which is not understood yet: only the matrix-tile
  // schedule takes it (docs/performance.md).
  // A request (tuning.fusedCombine) takes it on any schedule and target;
  // the generator refuses a target without a device fence.
  out.fusedCombine = !tuning.noFusedCombine &&
                     ((d.deviceFence && out.matrix) || tuning.fusedCombine);
  out.counterBytes = out.fusedCombine ? out.rows * 4 : 0;
  out.liveSplits = s.live;
  out.why = llvm::formatv("split-KV: {0} rows on {1} compute units, {2} "
                          "splits of {3} keys",
                          out.rows, d.computeUnits, splits, out.chunk);
  return done(out);
}
