//===- Passes.td - The planner's pass ----------------------*- tablegen -*-===//
//
// poot-plan: the planner's decisions written into the IR. Declared by the
// planner's layer (lib/Plan), which the fusion passes below it never see.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PLAN_PASSES_TD
#define POOT_PLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def Plan : Pass<"poot-plan", "mlir::func::FuncOp"> {
  let summary = "Choose a schedule for every fused op on a device";
  let description = [{
    Writes the planner's decision into the IR, so codegen decides nothing and
    a lit test can check it per device preset. Each `poot.attention` gets a
    `poot.request` (shape, storage dtype, score transform, mask kind, key
    form, key bound), a `poot.schedule` (streaming or split-KV, grouped,
    lanes, splits, chunk, grid, workgroup-memory and scratch bytes, live
    splits, causal tile skip) and a `poot.plan_key`. A device that cannot run
    an op fails the pass with a typed capability error (AttentionLds,
    ScratchBytes, DtypeLowering, GridLimit) naming the numbers.

    ```mlir
    %o = poot.attention %q, %k, %v {n_rep = 8, scale = 0.088} ...
    // on sm_90, B=1, Hq=64, Lk=32768, becomes
    %o = poot.attention %q, %k, %v {..., poot.schedule =
           #poot.attention_schedule<split = true, grouped = true, group = 4,
           lanes = 32, splits = 16, chunk = 2048, ...>}
    ```
  }];
  let options = [
    Option<"device", "device", "std::string", "",
           "Device preset (required): sm_80, sm_89, sm_90, gfx90a, gfx942, "
           "gfx1100, vulkan, cpu">,
    Option<"workgroupMemory", "workgroup-memory", "int64_t", "0",
           "Override the preset's workgroup memory bytes">,
    Option<"computeUnits", "compute-units", "int64_t", "0",
           "Override the preset's compute units">,
    Option<"memoryBytes", "memory-bytes", "int64_t", "0",
           "Override the preset's allocatable device memory">,
    Option<"maxBufferBytes", "max-buffer-bytes", "int64_t", "0",
           "Override the preset's single-buffer limit">,
    Option<"unroll", "unroll", "int64_t", "0",
           "Override the channel schedule's keys in flight per key-lane "
           "group (tuning experiments)">,
    Option<"warps", "warps", "int64_t", "0",
           "Override the channel schedule's subgroups per workgroup (tuning "
           "experiments)">,
    Option<"heads", "heads", "int64_t", "0",
           "Most query heads of one workgroup (tuning experiments)">,
    Option<"waves", "waves", "int64_t", "0",
           "Split-KV: workgroups per compute unit the split count aims for "
           "(tuning experiments; default 2)">,
    Option<"splits", "splits", "int64_t", "0",
           "Split-KV: at most this many splits, 1 to stream (tuning "
           "experiments; the cap of 16 and 128-key chunks still hold)">,
    Option<"noMatrix", "no-matrix", "bool", "false",
           "Never plan the matrix-tile schedule (comparisons)">,
    Option<"noWarpgroup", "no-warpgroup", "bool", "false",
           "Prefill on the subgroup matrix tile even where the device has "
           "the warpgroup tile (comparisons)">,
    Option<"warpgroupPipeline", "warpgroup-pipeline", "bool", "false",
           "Warpgroup tile: two key buffers, the next tile's score products "
           "during this tile's softmax (comparisons; slower on the H200)">,
    Option<"noSharedQuery", "no-shared-query", "bool", "false",
           "Warpgroup tile: q in registers even where it fits in workgroup "
           "memory beside the key and value tiles (comparisons)">,
    Option<"noWideWarpgroup", "no-wide-warpgroup", "bool", "false",
           "Warpgroup tile: one warpgroup of 64 rows a workgroup even where "
           "two would share each key and value tile (comparisons)">,
    Option<"wideWarpgroup", "wide-warpgroup", "bool", "false",
           "Warpgroup tile: two warpgroups a workgroup also for causal "
           "prefill without a longer cache before it (comparisons)">,
    Option<"noDealtOrder", "no-dealt-order", "bool", "false",
           "Causal prefill on the tile schedule: row blocks heaviest first, "
           "not dealt across the compute units (comparisons)">,
    Option<"noWarpgroupDecode", "no-warpgroup-decode", "bool", "false",
           "Multi-token decode on the subgroup tile even where the rows of "
           "a KV head fill the warpgroup tile (comparisons)">,
    Option<"noFusedCombine", "no-fused-combine", "bool", "false",
           "Split-KV: always a combine kernel, never the combine in the "
           "last workgroup of a row (comparisons)">,
    Option<"fusedCombine", "fused-combine", "bool", "false",
           "Split-KV: the combine in the last workgroup of a row on every "
           "schedule and target (tests and comparisons)">,
    Option<"countTiles", "count-tiles", "bool", "false",
           "Tile schedules count the key tiles each workgroup visits into "
           "a buffer the runtime reads back (tests of causal and window "
           "skipping)">,
  ];
  let dependentDialects = ["poot::PootDialect"];
}

#endif // POOT_PLAN_PASSES_TD
