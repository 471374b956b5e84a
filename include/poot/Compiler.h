//===- Compiler.h - The C++ API of the poot compiler ------------*- C++ -*-===//
//
// One entry point an engine or a tool calls to turn a model graph into a
// plan: the pass pipeline for a target, then the eqn records and the buffer
// plan. Errors come back as llvm::Error with the diagnostics' text.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_COMPILER_H
#define POOT_COMPILER_H

#include "poot/Plan/Planner.h"
#include "poot/Runtime/DeviceQuery.h"
#include "poot/Runtime/PlanFile.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace poot {

/// The device preset of a target name ("cuda:sm_90" -> "sm_90"), if known.
std::optional<std::string> deviceForTarget(llvm::StringRef target);

/// The facts of this host's device of `target`'s kind, read by the runtime
/// and ready for planning: the first Vulkan device for "vulkan", the first
/// CUDA device for "cuda:sm_XY" (refused unless its chip is sm_XY), the
/// host for "cpu". An error names the missing device or the mismatch in one
/// line.
llvm::Expected<rt::LiveDeviceFacts> hostDeviceFacts(llvm::StringRef target);

/// Overrides of the planner's choices for tuning experiments (0: the
/// planner decides): the planner's own tuning struct, so the pass options,
/// the tools and this API share one definition and one check
/// (verifyTuning).
using PlanOverrides = ScheduleTuning;

/// Adds the compile pipeline for `device`: canonicalize, rope, attention,
/// block selection (unless `fuse` is false), then the planner. With
/// `explain`, every fusion candidate is reported as a remark.
void addCompilePipeline(mlir::OpPassManager &pm, llvm::StringRef device,
                        bool fuse = true, bool explain = false,
                        const PlanOverrides &overrides = {});
/// The same pipeline planning against `facts` (from hostDeviceFacts).
void addCompilePipeline(mlir::OpPassManager &pm, const DeviceFacts &facts,
                        bool fuse = true, bool explain = false,
                        const PlanOverrides &overrides = {});

/// The plan of a compiled module's graph (`graph`, or the only public
/// function when empty): records plus the arena.
llvm::Expected<rt::Plan> planFromModule(mlir::ModuleOp module,
                                        llvm::StringRef device,
                                        llvm::StringRef target,
                                        llvm::StringRef graph = "");

/// The lowered kernels of a plan, per target kind.
struct GeneratedKernels {
  std::vector<uint32_t> spirv; ///< vulkan
  std::string ptx;             ///< cuda:sm_*
  std::string hsaco;           ///< rocm:gfx*: the AMDGPU code object (ELF)
  std::string hsacoChip;       ///< the chip `hsaco` is for ("gfx942")
  void moveInto(rt::Plan &plan);
};

/// Generates and lowers the kernels of a planned module for `target`:
/// nothing for cpu, SPIR-V for vulkan, PTX for cuda:sm_80/sm_89/sm_90, an
/// AMDGPU code object for rocm:gfx90a/gfx942/gfx1100.
mlir::LogicalResult generateKernels(mlir::ModuleOp module,
                                    llvm::StringRef target,
                                    GeneratedKernels &out);

/// Generates the kernels of a planned module for a rocm:gfx* `target` and
/// returns the AMDGPU assembly text the code object would hold (no linker
/// needed); empty when the graph has no fused op.
mlir::FailureOr<std::string> generateAMDGPUAssembly(mlir::ModuleOp module,
                                                    llvm::StringRef target);

struct CompileOptions {
  std::string target = "cpu";
  bool fuse = true;
  /// Plan against the facts of this host's device of the target's kind
  /// (hostDeviceFacts) instead of the target's preset.
  bool deviceFromHost = false;
  /// Overrides of the planner's choices (tuning and comparisons).
  PlanOverrides overrides;
  /// The graph to compile where the module holds several (its function
  /// name); empty for the module's only public function.
  std::string graph;
};

/// Parses `mlirText`, compiles it for `options.target` and returns the plan.
/// `report`, when given, receives one line per fusion candidate, after a
/// first line naming the live device when `options.deviceFromHost` is set.
llvm::Expected<rt::Plan> compileGraph(llvm::StringRef mlirText,
                                      const CompileOptions &options,
                                      std::vector<std::string> *report = nullptr);

} // namespace poot

#endif // POOT_COMPILER_H
