//===- Compiler.cpp - The C++ API of the poot compiler --------------------===//

#include "poot/Compiler.h"
#include "poot/Codegen/NVVM.h"
#include "poot/Codegen/ROCDL.h"
#include "poot/Codegen/SPIRV.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "poot/Dialect/PootDialect.h"
#include "poot/Codegen/Passes.h"
#include "poot/Passes/Passes.h"
#include "poot/Plan/Passes.h"
#include "poot/Plan/BufferPlan.h"
#include "poot/Plan/GraphRecords.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace poot;

std::optional<std::string> poot::deviceForTarget(llvm::StringRef target) {
  std::string device = llvm::StringSwitch<std::string>(target)
                           .Case("cpu", "cpu")
                           .Case("vulkan", "vulkan")
                           .Case("cuda:sm_80", "sm_80")
                           .Case("cuda:sm_89", "sm_89")
                           .Case("cuda:sm_90", "sm_90")
                           .Case("rocm:gfx90a", "gfx90a")
                           .Case("rocm:gfx942", "gfx942")
                           .Case("rocm:gfx1100", "gfx1100")
                           .Default("");
  if (device.empty())
    return std::nullopt;
  return device;
}

llvm::Expected<rt::LiveDeviceFacts>
poot::hostDeviceFacts(llvm::StringRef target) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  if (!deviceForTarget(target))
    return error("unknown target '" + target + "'");
  std::string kind = target.starts_with("cuda:") ? "cuda" : target.str();
  if (kind != "cpu" && kind != "vulkan" && kind != "cuda")
    return error("no device query for target " + target +
                 " in this build (vulkan, cuda:sm_*, cpu)");
  rt::LiveDeviceFacts live;
  if (rt::Status s = rt::queryDeviceFacts(kind, live); !s.isOk())
    return error(s.message());
  if (kind == "cuda" && "cuda:" + live.facts.name != target)
    return error("the CUDA device is " + live.facts.name + " (" +
                 live.description + "), not the target's " +
                 target.drop_front(5));
  // A Vulkan device whose subgroups have one width (lavapipe's 8, say)
  // takes the channel schedule: the SPIR-V module then declares that width
  // and subgroup shuffles. Loads stay scalar there.
  return live;
}

static void addFusionPasses(OpPassManager &fpm, bool explain) {
  fpm.addPass(createCanonicalize());
  RopeFusionOptions rope;
  rope.explain = explain;
  fpm.addPass(createRopeFusion(rope));
  AttentionFusionOptions attention;
  attention.explain = explain;
  fpm.addPass(createAttentionFusion(attention));
  BlockSelectOptions select;
  select.explain = explain;
  fpm.addPass(createBlockSelect(select));
}

/// The pass options that carry `tuning`.
static PlanOptions planOptions(const ScheduleTuning &tuning) {
  PlanOptions options;
  copyTuning(tuning, options);
  return options;
}

void poot::addCompilePipeline(OpPassManager &pm, const DeviceFacts &facts,
                              bool fuse, bool explain,
                              const PlanOverrides &overrides) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  if (fuse)
    addFusionPasses(fpm, explain);
  fpm.addPass(createPlan(facts, planOptions(overrides)));
}

void poot::addCompilePipeline(OpPassManager &pm, llvm::StringRef device,
                              bool fuse, bool explain,
                              const PlanOverrides &overrides) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  if (fuse)
    addFusionPasses(fpm, explain);
  PlanOptions options = planOptions(overrides);
  options.device = device.str();
  fpm.addPass(createPlan(options));
}

llvm::Expected<rt::Plan> poot::planFromModule(ModuleOp module,
                                              llvm::StringRef device,
                                              llvm::StringRef target,
                                              llvm::StringRef graphName) {
  auto fn = findGraph(module, graphName);
  if (!fn)
    return fn.takeError();
  auto graph = toGraphRecords(*fn);
  if (!graph)
    return graph.takeError();
  rt::Plan plan;
  plan.device = device.str();
  plan.target = target.str();
  plan.graph = std::move(*graph);
  std::vector<BufferRequest> buffers = graphBuffers(plan.graph);
  ArenaPlan arena = planArena(buffers);
  plan.arenaBytes = arena.bytes;
  for (size_t i = 0; i < buffers.size(); ++i)
    plan.arena.push_back(
        {buffers[i].value,
         buffers[i].value < 0 ? static_cast<int>(buffers[i].first) : -1,
         arena.offsets[i], buffers[i].bytes});
  return plan;
}

llvm::Expected<rt::Plan> poot::compileGraph(llvm::StringRef mlirText,
                                            const CompileOptions &options,
                                            std::vector<std::string> *report) {
  auto device = deviceForTarget(options.target);
  if (!device)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target '%s'",
                                   options.target.c_str());
  std::optional<rt::LiveDeviceFacts> live;
  if (options.deviceFromHost) {
    auto facts = hostDeviceFacts(options.target);
    if (!facts)
      return facts.takeError();
    live = std::move(*facts);
    *device = live->facts.name;
    if (report)
      report->push_back("device facts from this host: " + live->description);
  }
  MLIRContext ctx;
  // Diagnostics name the location, not the op's IR (MLIR 19's printer
  // crashes on some malformed attributes the verifier would print).
  ctx.printOpOnDiagnostic(false);
  ctx.loadDialect<PootDialect, func::FuncDialect>();
  std::string diagnostics;
  llvm::raw_string_ostream diagOs(diagnostics);
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Remark) {
      if (report)
        report->push_back(diag.str());
      return success();
    }
    if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
      diagOs << loc.getLine() << ":" << loc.getColumn() << ": ";
    diagOs << diag.str() << "\n";
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(mlirText, "graph.mlir"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  auto fail = [&](const char *what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   what, diagOs.str().c_str());
  };
  if (!module)
    return fail("the graph does not parse");
  if (failed(verify(*module)))
    return fail("the graph does not verify");
  PassManager pm(&ctx);
  if (live)
    addCompilePipeline(pm, live->facts, options.fuse, report != nullptr,
                       options.overrides);
  else
    addCompilePipeline(pm, *device, options.fuse, report != nullptr,
                       options.overrides);
  if (failed(pm.run(*module)))
    return fail("compilation failed");
  GeneratedKernels kernels;
  if (failed(generateKernels(*module, options.target, kernels)))
    return fail("kernel generation failed");
  auto plan = planFromModule(*module, *device, options.target, options.graph);
  if (plan)
    kernels.moveInto(*plan);
  return plan;
}

void GeneratedKernels::moveInto(rt::Plan &plan) {
  plan.spirv = std::move(spirv);
  plan.ptx = std::move(ptx);
  plan.hsaco = std::move(hsaco);
  plan.hsacoChip = std::move(hsacoChip);
}

/// Runs poot-generate for a rocm:<chip> target.
static LogicalResult generateROCDL(ModuleOp module, llvm::StringRef chip) {
  PassManager gen(module.getContext());
  GenerateOptions options;
  options.target = "rocdl";
  options.chip = chip.str();
  gen.addPass(createGenerate(options));
  return gen.run(module);
}

FailureOr<std::string> poot::generateAMDGPUAssembly(ModuleOp module,
                                                    llvm::StringRef target) {
  if (!target.starts_with("rocm:"))
    return module.emitError() << "AMDGPU assembly needs a rocm:gfx* target, got "
                              << target;
  llvm::StringRef chip = target.drop_front(5);
  if (failed(generateROCDL(module, chip)))
    return failure();
  if (module.getOps<gpu::GPUModuleOp>().empty())
    return std::string();
  return codegen::lowerToAMDGPUAssembly(module, chip);
}

LogicalResult poot::generateKernels(ModuleOp module, llvm::StringRef target,
                                    GeneratedKernels &out) {
  if (target == "cpu")
    return success();
  if (target.starts_with("rocm:")) {
    llvm::StringRef chip = target.drop_front(5);
    if (failed(generateROCDL(module, chip)))
      return failure();
    if (module.getOps<gpu::GPUModuleOp>().empty())
      return success();
    auto hsaco = codegen::lowerToHSACO(module, chip);
    if (failed(hsaco))
      return failure();
    out.hsaco = std::move(*hsaco);
    out.hsacoChip = chip.str();
    return success();
  }
  bool cuda = target.starts_with("cuda:");
  if (target != "vulkan" && !cuda)
    return module.emitError() << "kernel generation for target " << target
                              << " is not in this build yet";
  PassManager gen(module.getContext());
  GenerateOptions options;
  options.target = cuda ? "nvvm" : "spirv";
  gen.addPass(createGenerate(options));
  if (failed(gen.run(module)))
    return failure();
  // A graph without fused ops has no kernels to lower.
  if (module.getOps<gpu::GPUModuleOp>().empty())
    return success();
  if (cuda) {
    auto ptx = codegen::lowerToPTX(module, target.drop_front(5));
    if (failed(ptx))
      return failure();
    out.ptx = std::move(*ptx);
    return success();
  }
  auto binaries = codegen::lowerToSPIRV(module);
  if (failed(binaries))
    return failure();
  if (!binaries->empty())
    out.spirv = std::move(binaries->front());
  return success();
}
