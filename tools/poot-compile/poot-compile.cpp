//===- poot-compile.cpp - Compile a model graph into a plan ---------------===//
//
// Runs the whole pipeline (canonicalize, rope, attention, block selection,
// plan) on a model graph for a target, prints the fusion report (every
// recognised or declined candidate, each fused op's schedule, the arena
// size) and writes the plan file the runtime loads.
//
//===----------------------------------------------------------------------===//

#include "poot/Compiler.h"
#include "poot/Dialect/PootDialect.h"
#include "poot/Passes/Passes.h"
#include "poot/Plan/GraphRecords.h"
#include "poot/Runtime/PlanFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace rt = poot::rt;

static cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"));
static cl::opt<std::string>
    target("target", cl::init("cpu"),
           cl::desc("cpu, vulkan, cuda:sm_80, cuda:sm_90, rocm:gfx90a, "
                    "rocm:gfx942, rocm:gfx1100"));
static cl::opt<std::string> outputPath("o", cl::init(""),
                                       cl::desc("Output file"));
static cl::opt<std::string>
    emit("emit", cl::init("plan"),
         cl::desc("What to write: plan (default), ir (the planned IR), "
                  "spirv, ptx, hsaco (AMDGPU code object), amdgcn (its "
                  "assembly)"));
static cl::opt<bool> explain("explain",
                             cl::desc("Verbose report: declines and reasons "
                                      "of every candidate"));
static cl::opt<bool> deviceFromHost(
    "device-from-host",
    cl::desc("Plan against the facts of this host's device of the target's "
             "kind (the Vulkan device, the CUDA device of the target's chip, "
             "the cpu) instead of the target's preset"));
static cl::opt<bool> quiet("quiet", cl::desc("No report"));
static cl::opt<bool> noFusion(
    "no-fusion",
    cl::desc("Plan the graph as written (the reference a fused plan is "
             "checked against)"));

static cl::opt<int64_t> unroll(
    "unroll", cl::init(0), cl::Hidden,
    cl::desc("Override the channel schedule's keys in flight (tuning)"));
static cl::opt<int64_t> warps(
    "warps", cl::init(0), cl::Hidden,
    cl::desc("Override the channel schedule's subgroups (tuning)"));
static cl::opt<int64_t> heads(
    "heads", cl::init(0), cl::Hidden,
    cl::desc("Most query heads of one workgroup (tuning)"));
static cl::opt<int64_t> waves(
    "waves", cl::init(0), cl::Hidden,
    cl::desc("Split-KV workgroups per compute unit to aim for (tuning)"));
static cl::opt<int64_t> splits(
    "splits", cl::init(0), cl::Hidden,
    cl::desc("Split-KV: at most this many splits, 1 to stream (tuning)"));

static cl::opt<bool> noMatrix(
    "no-matrix", cl::init(false), cl::Hidden,
    cl::desc("Never plan the matrix-tile schedule (comparisons)"));

static cl::opt<bool> noFusedCombine(
    "no-fused-combine", cl::init(false), cl::Hidden,
    cl::desc("Split-KV: always a combine kernel (comparisons)"));

static cl::opt<bool> fusedCombine(
    "fused-combine", cl::init(false), cl::Hidden,
    cl::desc("Split-KV: the combine in the last workgroup on every schedule "
             "and target (tests)"));

static int fail(const Twine &message) {
  errs() << "poot-compile: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "poot model compiler\n");

  std::string device = poot::deviceForTarget(target).value_or("");
  if (device.empty())
    return fail("unknown target '" + target +
                "' (cpu, vulkan, cuda:sm_80, cuda:sm_89, cuda:sm_90, "
                "rocm:gfx90a, rocm:gfx942, rocm:gfx1100)");
  if (emit != "plan" && emit != "ir" && emit != "spirv" && emit != "ptx" &&
      emit != "hsaco" && emit != "amdgcn")
    return fail("unknown --emit '" + emit +
                "' (plan, ir, spirv, ptx, hsaco, amdgcn)");
  std::optional<rt::LiveDeviceFacts> live;
  if (deviceFromHost) {
    auto facts = poot::hostDeviceFacts(target);
    if (!facts)
      return fail("--device-from-host: " + toString(facts.takeError()));
    live = std::move(*facts);
    device = live->facts.name;
  }
  // Runnable plans exist for the cpu device; SPIR-V kernels are generated
  // for Vulkan (--emit=spirv), PTX for CUDA (--emit=ptx), AMDGPU code
  // objects for ROCm (--emit=hsaco, or their assembly with --emit=amdgcn),
  // and a plan for a GPU target carries its kernels.
  if (emit == "spirv" && target != "vulkan")
    return fail("--emit=spirv needs --target=vulkan");
  if (emit == "ptx" && !StringRef(target).starts_with("cuda:"))
    return fail("--emit=ptx needs a --target=cuda:sm_*");
  if ((emit == "hsaco" || emit == "amdgcn") &&
      !StringRef(target).starts_with("rocm:"))
    return fail("--emit=" + emit + " needs a --target=rocm:gfx*");

  mlir::MLIRContext ctx;
  ctx.loadDialect<poot::PootDialect, mlir::func::FuncDialect>();
  SourceMgr sourceMgr;
  // Remarks are the fusion report; everything else goes to stderr.
  std::vector<std::string> report;
  mlir::SourceMgrDiagnosticHandler errorHandler(sourceMgr, &ctx);
  mlir::ScopedDiagnosticHandler remarks(&ctx, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Remark)
      return mlir::failure(); // to the source-manager handler
    std::string line;
    raw_string_ostream os(line);
    if (auto loc = dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
      os << "line " << loc.getLine() << ": ";
    os << diag.str();
    report.push_back(os.str());
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputPath, sourceMgr, &ctx);
  if (!module)
    return fail("cannot parse '" + inputPath + "'");
  if (failed(mlir::verify(*module)))
    return fail("'" + inputPath + "' does not verify");

  mlir::PassManager pm(&ctx);
  poot::PlanOverrides overrides;
  overrides.unroll = unroll;
  overrides.warps = warps;
  overrides.heads = heads;
  overrides.waves = waves;
  overrides.splits = splits;
  overrides.noMatrix = noMatrix;
  overrides.noFusedCombine = noFusedCombine;
  overrides.fusedCombine = fusedCombine;
  if (live)
    poot::addCompilePipeline(pm, live->facts, /*fuse=*/!noFusion,
                             /*explain=*/true, overrides);
  else
    poot::addCompilePipeline(pm, device, /*fuse=*/!noFusion, /*explain=*/true,
                             overrides);
  if (failed(pm.run(*module)))
    return fail("compilation for " + target + " failed (see above)");
  if (emit == "amdgcn") {
    auto assembly = poot::generateAMDGPUAssembly(*module, target);
    if (failed(assembly))
      return fail("kernel generation for " + target + " failed (see above)");
    if (assembly->empty())
      return fail("the graph has no fused op to generate a kernel for");
    std::error_code ec;
    raw_fd_ostream file(outputPath.empty() ? "-" : outputPath.getValue(), ec,
                        sys::fs::OF_None);
    if (ec)
      return fail(outputPath + ": " + ec.message());
    file << *assembly;
    return 0;
  }
  poot::GeneratedKernels kernels;
  if (emit != "ir" && failed(poot::generateKernels(*module, target, kernels)))
    return fail("kernel generation for " + target + " failed (see above)");
  const std::vector<uint32_t> &spirv = kernels.spirv;
  if (emit == "ptx") {
    if (kernels.ptx.empty())
      return fail("the graph has no fused op to generate a kernel for");
    std::error_code ec;
    raw_fd_ostream file(outputPath.empty() ? "-" : outputPath.getValue(), ec,
                        sys::fs::OF_None);
    if (ec)
      return fail(outputPath + ": " + ec.message());
    file << kernels.ptx;
    return 0;
  }
  if (emit == "hsaco") {
    if (kernels.hsaco.empty())
      return fail("the graph has no fused op to generate a kernel for");
    if (outputPath.empty())
      return fail("-o FILE.hsaco is required for --emit=hsaco");
    std::error_code ec;
    raw_fd_ostream file(outputPath, ec, sys::fs::OF_None);
    if (ec)
      return fail(outputPath + ": " + ec.message());
    file << kernels.hsaco;
    return 0;
  }
  if (emit == "spirv") {
    if (spirv.empty())
      return fail("the graph has no fused op to generate a kernel for");
    if (outputPath.empty())
      return fail("-o FILE.spv is required for --emit=spirv");
    std::error_code ec;
    raw_fd_ostream file(outputPath, ec, sys::fs::OF_None);
    if (ec)
      return fail(outputPath + ": " + ec.message());
    file.write(reinterpret_cast<const char *>(spirv.data()), spirv.size() * 4);
    return 0;
  }

  auto fn = poot::findGraph(*module, "");
  if (!fn)
    return fail(toString(fn.takeError()));
  auto planOr = poot::planFromModule(*module, device, target);
  if (!planOr)
    return fail(toString(planOr.takeError()));
  rt::Plan plan = std::move(*planOr);
  kernels.moveInto(plan);

  if (!quiet) {
    raw_ostream &os = errs();
    os << "fusion report for @" << plan.graph.name << " on " << target
       << " (device " << device << ")\n";
    if (live)
      os << "  device facts from this host: " << live->description << "\n";
    int fused = 0, declined = 0;
    // In source order: "line N: ..." sorts by N.
    std::stable_sort(report.begin(), report.end(),
                     [](const std::string &a, const std::string &b) {
                       return std::atoi(a.c_str() + 5) < std::atoi(b.c_str() + 5);
                     });
    for (const std::string &line : report) {
      bool isDecline = line.find("declined") != std::string::npos;
      fused += !isDecline;
      declined += isDecline;
      if (!isDecline || explain)
        os << "  " << line << "\n";
    }
    fn->walk([&](poot::AttentionOp op) {
      auto s = op->getAttrOfType<mlir::DictionaryAttr>("poot.schedule");
      if (!s)
        return;
      auto get = [&](StringRef k) {
        std::string v;
        raw_string_ostream vs(v);
        if (auto a = s.get(k)) {
          if (auto b = dyn_cast<mlir::BoolAttr>(a))
            vs << (b.getValue() ? "yes" : "no");
          else if (auto i = dyn_cast<mlir::IntegerAttr>(a))
            vs << i.getInt();
          else if (auto str = dyn_cast<mlir::StringAttr>(a))
            vs << str.getValue();
          else if (auto arr = dyn_cast<mlir::DenseI64ArrayAttr>(a))
            vs << arr[0] << "x" << arr[1];
        }
        return vs.str();
      };
      os << "  schedule";
      if (auto loc = dyn_cast<mlir::FileLineColLoc>(op.getLoc()))
        os << " (line " << loc.getLine() << ")";
      os << ": " << get("kind") << ", lanes " << get("lanes") << ", splits "
         << get("splits") << " of " << get("chunk") << " keys, grid "
         << get("grid") << ", " << get("group")
         << (get("group") == "1" ? " head" : " heads") << " a workgroup";
      if (get("matrix") == "yes")
        os << ", matrix tiles of 16 keys, " << get("vector") << "/"
           << get("value_vector") << "-wide key/value loads, "
           << get("unroll") << (get("unroll") == "1" ? " tile" : " tiles")
           << " in flight";
      else if (get("subgroup") != "0")
        os << ", " << get("key_lanes") << " lanes a key, " << get("vector")
           << "-wide loads, " << get("unroll") << " keys in flight";
      if (get("pair_fold") == "yes")
        os << ", subgroups folding in pairs";
      if (get("fused_combine") == "yes")
        os << ", splits folded by the last workgroup of a row";
      os << "\n";
    });
    os << "  " << fused << " fused, " << declined << " declined"
       << (explain || !declined ? "" : " (--explain lists them)") << "\n";
    os << "  arena: " << plan.arenaBytes << " bytes for " << plan.arena.size()
       << " buffers\n";
  }

  std::string out =
      outputPath.empty() ? std::string("-") : outputPath.getValue();
  if (emit == "ir") {
    std::error_code ec;
    ToolOutputFile file(out, ec, sys::fs::OF_TextWithCRLF);
    if (ec)
      return fail(out + ": " + ec.message());
    module->print(file.os());
    file.keep();
    return 0;
  }
  if (outputPath.empty())
    return fail("-o PLAN is required to write a plan");
  if (rt::Status s = rt::writePlanFile(outputPath, plan); !s.isOk())
    return fail(s.toString());
  return 0;
}
