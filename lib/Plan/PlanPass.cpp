//===- PlanPass.cpp - poot-plan: schedules into the IR --------------------===//
//
// Reads each fused op's shape, asks the planner, and writes the request, the
// schedule and the plan key onto the op. Capability errors fail the pass at
// the op's location. Also marks the cache writes that may update their
// operand in place (see markInPlace).
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Plan/Passes.h"
#include "poot/Plan/Planner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

namespace poot {
#define GEN_PASS_DEF_PLAN
#include "poot/Plan/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

std::string dtypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF64())
    return "f64";
  return "f32";
}

struct PlanPass : public poot::impl::PlanBase<PlanPass> {
  using PlanBase::PlanBase;
  /// Plans against `facts` (read from a live device) instead of a preset.
  explicit PlanPass(DeviceFacts facts, const poot::PlanOptions &options)
      : PlanBase(options), liveFacts(std::move(facts)) {}

  void runOnOperation() override {
    const DeviceFacts *preset =
        liveFacts ? &*liveFacts : findDevicePreset(device);
    if (!preset) {
      std::string names;
      for (const DeviceFacts &d : devicePresets())
        names += (names.empty() ? "" : ", ") + d.name;
      if (device.empty())
        getOperation().emitError() << "expected a device preset (device="
                                   << names << ")";
      else
        getOperation().emitError() << "unknown device preset '" << device
                                   << "' (" << names << ")";
      return signalPassFailure();
    }
    if (llvm::Error err = verifyTuning(tuning())) {
      getOperation().emitError() << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    DeviceFacts facts = *preset;
    if (workgroupMemory > 0)
      facts.workgroupMemoryBytes = workgroupMemory;
    if (computeUnits > 0)
      facts.computeUnits = computeUnits;
    if (memoryBytes > 0)
      facts.memoryBytes = memoryBytes;
    if (maxBufferBytes > 0)
      facts.maxBufferBytes = maxBufferBytes;

    if (!checkKernelDtypes(facts))
      return signalPassFailure();
    bool failed = false;
    getOperation().walk([&](AttentionOp op) {
      if (!planOne(op, facts))
        failed = true;
    });
    if (failed)
      return signalPassFailure();
    getOperation().walk([&](Operation *op) {
      if (isa<DynamicUpdateSliceOp, ScatterUpdateOp>(op))
        markInPlace(op);
    });
  }

  /// The pass's tuning options as the planner reads them.
  /// (The generated pass keeps its options protected, so copyTuning cannot
  /// read them from outside: they are copied here by name.)
  ScheduleTuning tuning() const {
    ScheduleTuning t;
    t.unroll = unroll;
    t.warps = warps;
    t.heads = heads;
    t.waves = waves;
    t.splits = splits;
    t.noMatrix = noMatrix;
    t.noWarpgroup = noWarpgroup;
    t.warpgroupPipeline = warpgroupPipeline;
    t.noSharedQuery = noSharedQuery;
    t.noWideWarpgroup = noWideWarpgroup;
    t.wideWarpgroup = wideWarpgroup;
    t.noDealtOrder = noDealtOrder;
    t.noWarpgroupDecode = noWarpgroupDecode;
    t.noFusedCombine = noFusedCombine;
    t.fusedCombine = fusedCombine;
    t.countTiles = countTiles;
    return t;
  }

  /// Rule 1 over the values the simple kernels hold: every poot op but an
  /// attention (planOne checks its storage; its i64 positions and lengths
  /// travel as i32) and a constant (no kernel: its users hold it). An i64
  /// there is stored and computed in 64 bits, which a Vulkan device without
  /// shaderInt64 cannot do. Fails at the first op holding a dtype the device
  /// cannot store.
  bool checkKernelDtypes(const DeviceFacts &facts) {
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (!isa<PootDialect>(op->getDialect()) ||
          isa<AttentionOp, ConstantOp>(op))
        return WalkResult::advance();
      auto check = [&](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor)
          return true;
        // The dtypes the device facts speak of; a target refuses any other
        // it cannot store (f64 on SPIR-V) when it builds the kernels.
        Type et = tensor.getElementType();
        const char *dtype = et.isInteger(64) ? "i64"
                            : et.isF16()     ? "f16"
                            : et.isBF16()    ? "bf16"
                                             : nullptr;
        if (!dtype)
          return true;
        if (llvm::Error e = checkStorageDtype(dtype, facts)) {
          op->emitError() << llvm::toString(std::move(e));
          return false;
        }
        return true;
      };
      for (Type t : op->getOperandTypes())
        if (!check(t))
          return WalkResult::interrupt();
      for (Type t : op->getResultTypes())
        if (!check(t))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !walk.wasInterrupted();
  }

  /// A cache write (dynamic_update_slice, scatter_update) whose operand 0
  /// is a graph input used by nothing else may take that input's storage:
  /// the device then writes only the new rows instead of copying the whole
  /// cache. Inputs are set before every run, so the overwritten storage is
  /// never read again in the run; a constant or a computed value may be
  /// (a later replay, another use), so those keep the copy.
  static void markInPlace(Operation *op) {
    Value x = op->getOperand(0);
    auto arg = dyn_cast<BlockArgument>(x);
    if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
        !x.hasOneUse())
      return;
    op->setAttr(attrs::kInPlace, UnitAttr::get(op->getContext()));
  }

  bool planOne(AttentionOp op, const DeviceFacts &facts) {
    auto q = op.getQ().getType();
    AttentionShape shape;
    shape.batch = q.getDimSize(0);
    shape.queryHeads = q.getDimSize(1);
    shape.queryLen = q.getDimSize(2);
    shape.keyWidth = q.getDimSize(3);
    shape.keyHeads = shape.queryHeads / op.getNRep();
    shape.keyLen = op.getKeyLength();
    shape.valueWidth = op.getType().getDimSize(3);
    shape.dtype = dtypeName(q.getElementType());
    shape.causal = op.getCausal();
    shape.live = op.getLen() != nullptr;
    shape.paged = op.getRead() != nullptr;
    shape.scoreTransform =
        op.getSoftcap() || op.getMask() || op.getAlibiSlopes();
    if (auto shared = op.getKShared())
      shape.sharedKeyWidth =
          cast<RankedTensorType>(shared.getType()).getDimSize(3);

    auto schedule = planAttention(shape, facts, tuning());
    if (!schedule) {
      op.emitError() << llvm::toString(schedule.takeError());
      return false;
    }
    Builder b(op.getContext());
    std::string keyForm =
        op.getRead() ? "paged" : (op.getKShared() ? "split" : "dense");
    SmallVector<std::string> maskParts;
    if (op.getMask())
      maskParts.push_back("tensor");
    if (op.getCausal())
      maskParts.push_back("causal");
    if (op.getWindow())
      maskParts.push_back("window");
    if (op.getAlibiSlopes())
      maskParts.push_back("alibi");
    if (op.getZeroEmptyRows())
      maskParts.push_back("zero-empty-rows");
    std::string mask =
        maskParts.empty() ? "none" : llvm::join(maskParts, "+");
    std::string score = op.getSoftcap() ? "scale+softcap" : "scale";
    std::string bound = op.getLen() ? "live" : "capacity";
    SmallVector<int64_t> dims{shape.batch,   shape.queryHeads, shape.keyHeads,
                              shape.queryLen, shape.keyLen,    shape.keyWidth,
                              shape.valueWidth};
    op->setAttr("poot.request",
                b.getDictionaryAttr({
                    b.getNamedAttr("shape", b.getDenseI64ArrayAttr(dims)),
                    b.getNamedAttr("dtype", b.getStringAttr(shape.dtype)),
                    b.getNamedAttr("score", b.getStringAttr(score)),
                    b.getNamedAttr("mask", b.getStringAttr(mask)),
                    b.getNamedAttr("key_form", b.getStringAttr(keyForm)),
                    b.getNamedAttr("key_bound", b.getStringAttr(bound)),
                }));
    const AttentionSchedule &s = *schedule;
    op->setAttr(attrs::kSchedule,
                AttentionScheduleAttr::get(
                    op.getContext(), s.split, s.grouped, s.group, s.lanes,
                    s.subgroup, s.vector, s.keyLanes, s.unroll, s.matrix,
                    s.pairFold, s.valueVector, s.splits, s.chunk, s.gridX,
                    s.gridY, s.stateBytes, s.scratchBytes, s.fusedCombine,
                    s.counterBytes, s.liveSplits, s.causalSkip, s.tileRows,
                    s.tileKeys, s.tileStages, s.tileWarpgroup,
                    s.tileSharedQuery, s.tileUnits, facts.name));
    std::string key = llvm::formatv(
        "{0}/attention/{1}/{2}/{3}/{4}/{5}/{6}/{7}{8}x{9}{10}", facts.name,
        keyForm, llvm::join(llvm::map_range(dims, [](int64_t d) {
                              return std::to_string(d);
                            }),
                            "x"),
        shape.dtype, score, mask, bound,
        s.split ? (s.fusedCombine ? "splitlast" : "split")
                : (s.grouped ? "grouped" : "stream"),
        s.splits,
        s.lanes,
        s.tileRows   ? llvm::formatv("/tile/r{0}k{1}s{2}{3}{4}{5}", s.tileRows,
                                     s.tileKeys, s.tileStages,
                                     s.tileWarpgroup ? "/wg" : "",
                                     s.tileSharedQuery ? "/sq" : "",
                                     s.tileUnits ? "/dealt" : "")
                           .str()
        : s.matrix   ? llvm::formatv("/mma/v{0}w{1}u{2}{3}", s.vector,
                                     s.valueVector, s.unroll,
                                     s.pairFold ? "/pair" : "")
                           .str()
        : s.subgroup ? llvm::formatv("/v{0}k{1}u{2}", s.vector, s.keyLanes,
                                     s.unroll)
                           .str()
                     : std::string());
    // The counted kernel is another kernel: its own key.
    if (countTiles && s.tileRows) {
      op->setAttr(attrs::kCountTiles, b.getUnitAttr());
      key += "/count";
    }
    op->setAttr("poot.plan_key", b.getStringAttr(key));
    return true;
  }

  std::optional<DeviceFacts> liveFacts;
};

} // namespace

std::unique_ptr<Pass> poot::createPlan(const DeviceFacts &facts,
                                       const PlanOptions &options) {
  return std::make_unique<PlanPass>(facts, options);
}
