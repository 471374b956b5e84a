//===- GeneratePass.cpp - poot-generate: kernels for every op -------------===//
//
// For every planned poot.attention, builds its kernels into one gpu.module
// of the enclosing module through the target's hooks, and records the
// launches on the op (`poot.launches`: kernel, grid, lanes, argument roles)
// so the plan writer and the runtime know how to dispatch them. Every other
// op but constants gets its simple kernel into the same module the same
// way (KernelBuilder.h), so the whole graph runs on the device.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "poot/Codegen/Generator.h"
#include "poot/Codegen/NVVM.h"
#include "poot/Codegen/ROCDL.h"
#include "poot/Codegen/SPIRV.h"
#include "poot/Dialect/PootDialect.h"
#include "poot/Codegen/Passes.h"
#include "poot/Plan/DeviceFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace poot {
#define GEN_PASS_DEF_GENERATE
#include "poot/Codegen/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

struct GeneratePass : public poot::impl::GenerateBase<GeneratePass> {
  using GenerateBase::GenerateBase;

  /// The target and chip to generate for: the options where given, else
  /// those of the device the attentions were planned for. A module planned
  /// for a device of another target is refused: its schedules assume that
  /// device's subgroups, memory and matrix units.
  LogicalResult resolveTarget(ModuleOp module) {
    std::string plannedFor;
    WalkResult walk = module.walk([&](AttentionOp op) {
      auto schedule = op->getAttrOfType<AttentionScheduleAttr>(attrs::kSchedule);
      if (!schedule)
        return WalkResult::advance();
      const DeviceFacts *facts = findDevicePreset(schedule.getDevice().str());
      if (!facts)
        return WalkResult::advance(); // a live device: its kind is unknown
      if (target.empty())
        target = facts->target;
      if (chip.empty() && facts->target == "rocdl")
        chip = facts->name;
      if (facts->target != target) {
        op.emitError() << "planned for device " << facts->name << " (target "
                       << facts->target << "), not for target " << target;
        return WalkResult::interrupt();
      }
      if (target == "rocdl" && facts->name != chip) {
        op.emitError() << "planned for " << facts->name
                       << ", not for chip " << chip;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (target.empty())
      return module.emitError("expected a code generation target "
                              "(target=spirv, nvvm or rocdl): no planned "
                              "attention names a device");
    if (target == "rocdl" && chip.empty())
      return module.emitError("expected an AMDGPU chip (chip=gfx90a, gfx942 "
                              "or gfx1100)");
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(resolveTarget(module)))
      return signalPassFailure();
    std::unique_ptr<codegen::TargetHooks> hooks;
    if (target == "spirv") {
      // The channel schedule's subgroup width, which the SPIR-V module
      // must declare for its shuffles (one width per module).
      int64_t subgroup = 0;
      module.walk([&](AttentionOp op) {
        if (auto schedule =
                op->getAttrOfType<AttentionScheduleAttr>(attrs::kSchedule))
          subgroup = std::max<int64_t>(subgroup, schedule.getSubgroup());
      });
      hooks = codegen::createSPIRVTarget(/*f16=*/true, subgroup, int64);
    }
    else if (target == "nvvm")
      hooks = codegen::createNVVMTarget();
    else if (target == "rocdl")
      hooks = codegen::createROCDLTarget(chip);
    if (!hooks) {
      module.emitError() << "unknown code generation target '" << target
                         << "' (spirv, nvvm, rocdl)";
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) { ops.push_back(op); });
    // Every other op of the graphs gets the simple kernels, after the
    // attention kernels (so those keep their numbering).
    SmallVector<Operation *> others;
    module.walk([&](func::FuncOp fn) {
      fn.walk([&](Operation *op) {
        if (codegen::hasSimpleKernels(op))
          others.push_back(op);
      });
    });
    if (ops.empty() && others.empty())
      return;
    hooks->prepareModule(module);
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = b.create<gpu::GPUModuleOp>(module.getLoc(), "poot_kernels");
    auto record = [&](Operation *op, const std::vector<codegen::Launch> &launches) {
      SmallVector<Attribute> records;
      for (const codegen::Launch &l : launches) {
        SmallVector<Attribute> roles;
        for (const std::string &r : l.args)
          roles.push_back(b.getStringAttr(r));
        SmallVector<NamedAttribute> fields = {
            b.getNamedAttr("kernel", b.getStringAttr(l.kernel)),
            b.getNamedAttr("grid", b.getDenseI64ArrayAttr(l.grid)),
            b.getNamedAttr("lanes", b.getI64IntegerAttr(l.lanes)),
            b.getNamedAttr("args", b.getArrayAttr(roles)),
        };
        if (l.shared > 0)
          fields.push_back(
              b.getNamedAttr("shared", b.getI64IntegerAttr(l.shared)));
        records.push_back(b.getDictionaryAttr(fields));
      }
      op->setAttr("poot.launches", b.getArrayAttr(records));
    };
    // Ops with the same name, attributes (the schedule among them) and
    // types share their kernels: a model's layers repeat them, and each
    // distinct kernel is built and lowered once however many layers use it.
    llvm::StringMap<std::vector<codegen::Launch>> built;
    auto signature = [](Operation *op) {
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op->getName() << op->getAttrDictionary() << ":";
      llvm::interleaveComma(op->getOperandTypes(), os);
      os << "->";
      llvm::interleaveComma(op->getResultTypes(), os);
      return key;
    };
    for (AttentionOp op : ops) {
      std::string key = signature(op);
      auto it = built.find(key);
      if (it == built.end()) {
        auto launches = codegen::buildAttentionKernels(op, gpuModule, *hooks);
        if (failed(launches))
          return signalPassFailure();
        it = built.try_emplace(key, std::move(*launches)).first;
      }
      record(op, it->second);
    }
    int64_t attentionKernels = built.size();
    for (Operation *op : others) {
      std::string key = signature(op);
      auto it = built.find(key);
      if (it == built.end()) {
        std::string name = op->getName().stripDialect().str() + "_" +
                           std::to_string(built.size() - attentionKernels);
        auto launches =
            codegen::buildSimpleKernels(op, gpuModule, *hooks, name);
        if (failed(launches))
          return signalPassFailure();
        it = built.try_emplace(key, std::move(*launches)).first;
      }
      record(op, it->second);
    }
  }
};

} // namespace
