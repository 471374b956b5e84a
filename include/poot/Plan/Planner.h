//===- Planner.h - Schedules for fused ops ----------------------*- C++ -*-===//
//
// The planner's rules as plain arithmetic over a shape and the device's
// facts, so they are unit-tested without IR. The poot-plan pass reads the
// shape off each fused op, asks here, and writes the answer into the IR.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PLAN_PLANNER_H
#define POOT_PLAN_PLANNER_H

#include "poot/Plan/DeviceFacts.h"

#include "llvm/Support/Error.h"

#include <string>

namespace poot {

/// The typed capability errors: the device cannot run the request.
enum class CapabilityKind {
  AttentionLds,  ///< not even one lane's running state fits workgroup memory
  ScratchBytes,  ///< the split-KV scratch cannot be allocated
  DtypeLowering, ///< the target cannot store the storage dtype
  GridLimit,     ///< the launch does not fit the device's grid even folded
};

const char *capabilityKindName(CapabilityKind kind);

class CapabilityError : public llvm::ErrorInfo<CapabilityError> {
public:
  static char ID;
  CapabilityError(CapabilityKind kind, std::string message)
      : kind(kind), message(std::move(message)) {}
  CapabilityKind getKind() const { return kind; }
  /// "AttentionLds: value width 8190 needs 32768 bytes ..."
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  CapabilityKind kind;
  std::string message;
};

/// The most new query rows a step may have and still be planned as decode
/// (multi-token decode: speculative decoding, multi-token prediction): the
/// head-grouped, matrix-tile and split-KV schedules, whose rows of one
/// sequence sit side by side in the grid and so share each K/V tile
/// through L2. Longer steps are prefill: one row a workgroup, streaming.
inline constexpr int64_t kMaxDecodeRows = 16;

/// What the planner needs of one attention.
struct AttentionShape {
  int64_t batch = 1, queryHeads = 1, keyHeads = 1, queryLen = 1, keyLen = 1;
  int64_t keyWidth = 1, valueWidth = 1;
  std::string dtype = "f32"; ///< storage dtype: f32, f16, bf16
  bool causal = false;       ///< causal meaning proven (tile skip in prefill)
  bool live = false;         ///< live length operand
  int64_t sharedKeyWidth = 0; ///< key channels from k_shared (split key)
  bool paged = false;         ///< keys and values read through a slot map
  /// Scores transformed past the scale and the causal and window masks: a
  /// softcap, a mask tensor or ALiBi slopes.
  bool scoreTransform = false;
};

/// Overrides of the planner's choices, for tuning experiments (0: the
/// planner decides).
struct ScheduleTuning {
  int64_t unroll = 0; ///< keys each key-lane group loads per step
  int64_t warps = 0;  ///< subgroups of one workgroup
  int64_t heads = 0;  ///< most query heads of one workgroup
  int64_t waves = 0;  ///< split-KV: workgroups per compute unit to aim for
  int64_t splits = 0; ///< split-KV: at most this many splits (1: stream)
  bool noMatrix = false; ///< never the matrix-tile schedule
  /// Prefill on the subgroup matrix tile even where the device has the
  /// warpgroup tile (comparisons).
  bool noWarpgroup = false;
  /// Warpgroup tile: two key buffers, the next tile's scores issued before
  /// this tile's softmax (the pipelined form; measured slower on the H200
  /// than one buffer, so asked for, not the default).
  bool warpgroupPipeline = false;
  /// Warpgroup tile: q in registers even where it fits in workgroup memory
  /// (comparisons).
  bool noSharedQuery = false;
  /// Warpgroup tile: one warpgroup of 64 rows a workgroup even where two
  /// would share each key and value tile (comparisons).
  bool noWideWarpgroup = false;
  /// Warpgroup tile: two warpgroups a workgroup also for causal prefill
  /// without a longer cache before it (comparisons).
  bool wideWarpgroup = false;
  /// Causal prefill on the tile schedule: row blocks heaviest first, not
  /// dealt across the compute units (comparisons).
  bool noDealtOrder = false;
  /// Multi-token decode on the subgroup tile even where a KV head's rows
  /// fill the warpgroup tile (comparisons).
  bool noWarpgroupDecode = false;
  bool noFusedCombine = false; ///< split-KV: always a combine kernel
  /// Split-KV: the combine in the last workgroup on every schedule, on any
  /// target the generator gives a device fence (tests and comparisons).
  bool fusedCombine = false;
  /// Tile schedules count the key tiles each workgroup visits (tests of
  /// causal and window skipping; the counts cost a store a tile).
  bool countTiles = false;
};

/// Checks that every override is one the planner can honour: 0 (the
/// planner decides) or a power of two within the generator's limits for
/// unroll (16) and warps (32); heads 0 to 64, waves 0 to 64, splits 0 to
/// 16.
/// Pass options, the tools and the C++ API all refuse a bad value here.
llvm::Error verifyTuning(const ScheduleTuning &tuning);

/// The schedule of one attention.
struct AttentionSchedule {
  bool split = false;      ///< split-KV (partials + combine) or streaming
  bool grouped = false;    ///< one workgroup serves several heads of a KV head
  int64_t group = 1;       ///< query heads of one workgroup (divides n_rep)
  /// 0: each lane walks its own keys and keeps its state in workgroup
  /// memory. Otherwise the subgroup size of the channel schedule: each
  /// subgroup walks keys together, a lane holding dv / subgroup channels of
  /// the accumulator in registers, the dot product reduced across the
  /// subgroup; lanes = warps * subgroup.
  int64_t subgroup = 0;
  /// Channel schedule only: elements of one vector load (1: scalar loads),
  /// lanes that share one key (a subgroup holds subgroup / keyLanes keys
  /// side by side), and keys each such group loads per step.
  int64_t vector = 1;
  int64_t keyLanes = 0;
  int64_t unroll = 1;
  /// The matrix-tile schedule (a kind of channel schedule: subgroup is set):
  /// each subgroup takes 16 keys at a time and computes their scores for up
  /// to 8 heads, and the heads' weighted values, as tile products on the
  /// device's matrix unit. `vector` is then the key row's load width,
  /// `valueVector` the value row's, `unroll` the tiles loaded per step.
  bool matrix = false;
  int64_t valueVector = 1;
  /// Matrix-tile schedule: the subgroups fold pairwise in registers first,
  /// so the partials hold half of them (planned only when a tuning request
  /// for more subgroups would not fit the partials otherwise).
  bool pairFold = false;
  int64_t lanes = 1;       ///< threads of one workgroup, striding over keys
  int64_t splits = 1;      ///< key chunks per row (1 when streaming)
  int64_t chunk = 0;       ///< keys per split (the whole length when streaming)
  int64_t rows = 0;        ///< workgroups of the streaming launch
  int64_t gridX = 1, gridY = 1; ///< the launch, folded past the X limit
  int64_t stateBytes = 0;  ///< workgroup memory of the running state
  int64_t scratchBytes = 0; ///< split-KV partials (0 when streaming)
  /// Split-KV: the last workgroup of each row folds the row's partials at
  /// the end of the partial kernel, so there is no combine launch. It finds
  /// itself by a ticket on the row's counter (counterBytes: an i32 a row,
  /// zero before the first launch, which the kernel leaves zero again).
  bool fusedCombine = false;
  int64_t counterBytes = 0;
  bool liveSplits = false; ///< split ranges cut from len at run time
  bool causalSkip = false; ///< prefill skips key tiles past the diagonal
  /// The tile schedule (prefill on the matrix tile): a workgroup takes
  /// `tileRows` query rows of one KV head (16 a subgroup; with grouped heads
  /// the rows of the group's heads interleaved), stages `tileKeys` keys and
  /// values at a time in workgroup memory, and every subgroup computes its
  /// rows' scores and weighted values from them as tile products. 0: not the
  /// tile schedule.
  int64_t tileRows = 0;
  int64_t tileKeys = 0;
  /// Tile schedule: tiles in workgroup memory at once (2: the next tile's
  /// copies run while the subgroups compute on this one).
  int64_t tileStages = 0;
  /// Tile schedule: the products on the warpgroup tile (one warpgroup of 64
  /// rows; keys and values in one buffer each, the next tile's keys copied
  /// during this tile's softmax and value products, its values during the
  /// next tile's scores).
  bool tileWarpgroup = false;
  /// Warpgroup tile: the workgroup's query rows staged once in workgroup
  /// memory, the score products reading both operands there, so q takes
  /// no registers.
  bool tileSharedQuery = false;
  /// Causal prefill on the tile schedule: the compute units its row blocks
  /// are dealt across, heaviest and lightest together (0: heaviest first).
  int64_t tileUnits = 0;
  std::string why;         ///< one line on the choice, for reports
};

/// Copies the tuning overrides field by field between the places that carry
/// them: the planner's ScheduleTuning, the pass's options (PlanOptions, or
/// the pass itself) and a tool's flags. The one list of the fields.
template <class From, class To>
void copyTuning(const From &from, To &to) {
  to.unroll = from.unroll;
  to.warps = from.warps;
  to.heads = from.heads;
  to.waves = from.waves;
  to.splits = from.splits;
  to.noMatrix = from.noMatrix;
  to.noWarpgroup = from.noWarpgroup;
  to.warpgroupPipeline = from.warpgroupPipeline;
  to.noSharedQuery = from.noSharedQuery;
  to.noWideWarpgroup = from.noWideWarpgroup;
  to.wideWarpgroup = from.wideWarpgroup;
  to.noDealtOrder = from.noDealtOrder;
  to.noWarpgroupDecode = from.noWarpgroupDecode;
  to.noFusedCombine = from.noFusedCombine;
  to.fusedCombine = from.fusedCombine;
  to.countTiles = from.countTiles;
}

/// The tile schedule's workgroup memory (the planner sizes the key tile by
/// it; the generator lays it out): per stage, the keys [keys][dk + key pad]
/// and the values [keys][dv + value pad], 2 bytes an element.
int64_t tileKeyPad(int64_t dk);
int64_t tileValuePad(int64_t dv);
int64_t tileWorkgroupBytes(int64_t dk, int64_t dv, int64_t keys,
                           int64_t stages);

/// Rule 1 for one storage dtype of the graph ("f32", "f16", "bf16", "i64",
/// ...): a DtypeLowering error when the device cannot load and store it,
/// naming the device feature it lacks (on Vulkan: storageBuffer16BitAccess,
/// shaderFloat16, shaderInt64). planAttention applies it to the attention's
/// storage, poot-plan to every value a simple kernel holds.
llvm::Error checkStorageDtype(llvm::StringRef dtype, const DeviceFacts &device);

/// Plans one attention for `device`, or says with a typed error why the
/// device cannot run it.
llvm::Expected<AttentionSchedule>
planAttention(const AttentionShape &shape, const DeviceFacts &device,
              const ScheduleTuning &tuning = {});

} // namespace poot

#endif // POOT_PLAN_PLANNER_H
