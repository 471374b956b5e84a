//===- PootAttrs.td - Attributes of the poot dialect -------*- tablegen -*-===//
//
// The planner's decisions as typed attributes. poot-plan writes one
// `#poot.attention_schedule` on each fused attention; codegen, the fusion
// report and the plan writer read it through its getters, and its verifier
// rejects a schedule no kernel could be built from, so a hand-written or
// damaged schedule is a diagnostic instead of a silent default.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_ATTRS_TD
#define POOT_ATTRS_TD

include "poot/Dialect/PootDialect.td"
include "mlir/IR/AttrTypeBase.td"

/// A boolean field: written `true`/`false`, false when left out.
def Poot_FlagParameter : AttrOrTypeParameter<"bool", ""> {
  let parser = [{ ::poot::detail::parseFlag($_parser) }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let defaultValue = "false";
}

/// An integer field with a default, left out of the printed form when it
/// holds the default.
class Poot_IntParameter<string value, string desc>
    : DefaultValuedParameter<"int64_t", value, desc>;

def Poot_AttentionScheduleAttr
    : AttrDef<Poot_Dialect, "AttentionSchedule"> {
  let mnemonic = "attention_schedule";
  let summary = "The schedule the planner chose for one poot.attention";
  let description = [{
    Every decision the kernel generator needs for one attention: the kind of
    launch (streaming, or split-KV partials and a combine), the workgroup's
    lanes and head group, the channel schedule's subgroup, load widths and
    keys in flight, the matrix-tile schedule, the prefill tile schedule (a workgroup's query
    rows against key tiles staged in workgroup memory), the grid, and the bytes of
    workgroup state, split-KV scratch and combine counters the runtime must
    provide. Fields left out take their default; the printed form leaves out
    the fields that hold it.

    ```mlir
    poot.schedule = #poot.attention_schedule<split = true, grouped = true,
        group = 8, lanes = 512, subgroup = 32, vector = 8, value_vector = 8,
        matrix = true, splits = 16, chunk = 2048, grid_x = 128,
        state_bytes = 33280, scratch_bytes = 532480, device = "sm_90">
    ```
  }];
  let parameters = (ins
    Poot_FlagParameter:$split,
    Poot_FlagParameter:$grouped,
    Poot_IntParameter<"1", "query heads of one workgroup">:$group,
    Poot_IntParameter<"1", "threads of one workgroup">:$lanes,
    Poot_IntParameter<"0", "channel schedule's subgroup (0: lane schedule)">:$subgroup,
    Poot_IntParameter<"1", "elements of one key load">:$vector,
    Poot_IntParameter<"0", "lanes sharing one key (0: the subgroup)">:$key_lanes,
    Poot_IntParameter<"1", "keys or tiles in flight per step">:$unroll,
    Poot_FlagParameter:$matrix,
    Poot_FlagParameter:$pair_fold,
    Poot_IntParameter<"1", "elements of one value load">:$value_vector,
    Poot_IntParameter<"1", "key chunks per row">:$splits,
    Poot_IntParameter<"0", "keys per split">:$chunk,
    Poot_IntParameter<"1", "launch grid x">:$grid_x,
    Poot_IntParameter<"1", "launch grid y">:$grid_y,
    Poot_IntParameter<"0", "workgroup memory of the running state">:$state_bytes,
    Poot_IntParameter<"0", "split-KV partials">:$scratch_bytes,
    Poot_FlagParameter:$fused_combine,
    Poot_IntParameter<"0", "combine tickets, an i32 a row">:$counter_bytes,
    Poot_FlagParameter:$live_splits,
    Poot_FlagParameter:$causal_skip,
    Poot_IntParameter<"0", "tile schedule: query rows of one workgroup (0: not the tile schedule)">:$tile_rows,
    Poot_IntParameter<"0", "tile schedule: keys staged per step">:$tile_keys,
    Poot_IntParameter<"0", "tile schedule: key tiles in workgroup memory at once">:$tile_stages,
    Poot_FlagParameter:$tile_warpgroup,
    Poot_FlagParameter:$tile_shared_query,
    Poot_IntParameter<"0", "tile schedule: compute units the causal row blocks are dealt across (0: heaviest first)">:$tile_units,
    StringRefParameter<"the device preset planned for", "\"\"">:$device
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The fields as a dictionary under their printed names, with `kind`
    /// ("split" or "streaming") and `grid` ([x, y]) spelled out: the form a
    /// plan file records.
    ::mlir::DictionaryAttr toDictionary() const;
  }];
}

#endif // POOT_ATTRS_TD
