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
#include "poot/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace poot {
#define GEN_PASS_DEF_GENERATE
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

struct GeneratePass : public poot::impl::GenerateBase<GeneratePass> {
  using GenerateBase::GenerateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<codegen::TargetHooks> hooks;
    if (target == "spirv") {
      // The channel schedule's subgroup width, which the SPIR-V module
      // must declare for its shuffles (one width per module).
      int64_t subgroup = 0;
      module.walk([&](AttentionOp op) {
        if (auto schedule = op->getAttrOfType<DictionaryAttr>("poot.schedule"))
          if (auto sg = schedule.getAs<IntegerAttr>("subgroup"))
            subgroup = std::max<int64_t>(subgroup, sg.getInt());
      });
      hooks = codegen::createSPIRVTarget(/*f16=*/true, subgroup);
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
        records.push_back(b.getDictionaryAttr({
            b.getNamedAttr("kernel", b.getStringAttr(l.kernel)),
            b.getNamedAttr("grid", b.getDenseI64ArrayAttr(l.grid)),
            b.getNamedAttr("lanes", b.getI64IntegerAttr(l.lanes)),
            b.getNamedAttr("args", b.getArrayAttr(roles)),
        }));
      }
      op->setAttr("poot.launches", b.getArrayAttr(records));
    };
    for (AttentionOp op : ops) {
      auto launches = codegen::buildAttentionKernels(op, gpuModule, *hooks);
      if (failed(launches))
        return signalPassFailure();
      record(op, *launches);
    }
    // Ops with the same name, attributes and types share their kernels
    // (a model's layers repeat them).
    llvm::StringMap<std::vector<codegen::Launch>> built;
    for (Operation *op : others) {
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op->getName() << op->getAttrDictionary() << ":";
      llvm::interleaveComma(op->getOperandTypes(), os);
      os << "->";
      llvm::interleaveComma(op->getResultTypes(), os);
      auto it = built.find(os.str());
      if (it == built.end()) {
        std::string name = op->getName().stripDialect().str() + "_" +
                           std::to_string(built.size());
        auto launches =
            codegen::buildSimpleKernels(op, gpuModule, *hooks, name);
        if (failed(launches))
          return signalPassFailure();
        it = built.try_emplace(os.str(), std::move(*launches)).first;
      }
      record(op, it->second);
    }
  }
};

} // namespace
