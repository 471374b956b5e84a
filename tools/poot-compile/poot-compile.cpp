//===- poot-compile.cpp - Compile a model graph into a plan ---------------===//
//
// Runs the whole pipeline (canonicalize, rope, attention, block selection,
// plan) on a model graph for a target, prints the fusion report (every
// recognised or declined candidate, each fused op's schedule, the arena
// size) and writes the plan file the runtime loads.
//
//===----------------------------------------------------------------------===//

#include "poot/Compiler.h"
#include "poot/Runtime/Device.h"
#include "poot/Runtime/DeviceQuery.h"
#include "poot/Frontend/ONNX.h"
#include "poot/Dialect/PootDialect.h"
#include "poot/Passes/Passes.h"
#include "poot/Plan/GraphRecords.h"
#include "poot/Plan/Planner.h"
#include "poot/Runtime/PlanFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace rt = poot::rt;

static cl::OptionCategory mainOptions("Compile options");
static cl::OptionCategory tuningOptions(
    "Planner overrides (tuning experiments and comparisons; 0: the planner "
    "decides)");

static cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir | model.onnx>"), cl::cat(mainOptions));
static cl::OptionCategory onnxOptions("ONNX models");
static cl::list<std::string>
    dimSpecs("dim", cl::desc("Bind a symbolic dimension of an ONNX model: "
                             "NAME=N (repeatable)"),
             cl::cat(onnxOptions));
static cl::opt<int64_t> kvCapacity(
    "kv-capacity", cl::init(0),
    cl::desc("Turn an ONNX model's past/present caches into state of this "
             "many rows written at the pos slot"),
    cl::cat(onnxOptions));
static cl::opt<std::string> weightsDir(
    "weights-dir", cl::init(""),
    cl::desc("Write an ONNX model's weights here as NAME.npy, the inputs a "
             "run binds by name"),
    cl::cat(onnxOptions));
static cl::opt<std::string>
    target("target", cl::init("cpu"),
           cl::desc("cpu, vulkan, cuda:sm_80, cuda:sm_90, rocm:gfx90a, "
                    "rocm:gfx942, rocm:gfx1100"), cl::cat(mainOptions));
static cl::opt<std::string> outputPath("o", cl::init(""),
                                       cl::desc("Output file"), cl::cat(mainOptions));
static cl::opt<std::string>
    emit("emit", cl::init("plan"),
         cl::desc("What to write: plan (default), ir (the planned IR), "
                  "spirv, ptx, hsaco (AMDGPU code object), amdgcn (its "
                  "assembly)"), cl::cat(mainOptions));
static cl::opt<bool> explain("explain",
                             cl::desc("Verbose report: declines and reasons "
                                      "of every candidate"), cl::cat(mainOptions));
static cl::opt<std::string> deviceFactsFile(
    "device-facts",
    cl::desc("Plan against device facts read from FILE (what "
             "poot-run-plan --print-device-facts printed on the machine "
             "that has the device) instead of the target's preset"),
    cl::value_desc("FILE"), cl::init(""));
static cl::opt<bool> deviceFromHost(
    "device-from-host",
    cl::desc("Plan against the facts of this host's device of the target's "
             "kind (the Vulkan device, the CUDA device of the target's chip, "
             "the cpu) instead of the target's preset"), cl::cat(mainOptions));
static cl::opt<bool> quiet("quiet", cl::desc("No report"), cl::cat(mainOptions));
static cl::opt<std::string>
    graphName("graph", cl::init(""),
              cl::desc("The graph to compile, where the module holds several "
                       "(its function name, without @)"),
              cl::cat(mainOptions));
static cl::opt<bool> printOpOnDiagnostic(
    "print-op-on-diagnostic", cl::init(false),
    cl::desc("Attach the failing operation's IR to error diagnostics"),
    cl::cat(mainOptions));
static cl::opt<bool> timing(
    "timing", cl::init(false),
    cl::desc("Print the time of each stage (parse, each pass, kernel "
             "generation and lowering, plan records, write) to stderr"),
    cl::cat(mainOptions));
static cl::opt<bool> noFusion(
    "no-fusion",
    cl::desc("Plan the graph as written (the reference a fused plan is "
             "checked against)"), cl::cat(mainOptions));

/// The planner overrides, under the field names copyTuning reads.
static struct TuningFlags {
  cl::opt<int64_t> unroll{
      "unroll", cl::init(0),
      cl::desc("Override the channel schedule's keys in flight (tuning)"),
      cl::cat(tuningOptions)};
  cl::opt<int64_t> warps{
      "warps", cl::init(0),
      cl::desc("Override the channel, matrix-tile or tile schedule's "
               "subgroups (tuning)"),
      cl::cat(tuningOptions)};
  cl::opt<int64_t> heads{"heads", cl::init(0),
                         cl::desc("Most query heads of one workgroup (tuning)"),
                         cl::cat(tuningOptions)};
  cl::opt<int64_t> waves{
      "waves", cl::init(0),
      cl::desc("Split-KV workgroups per compute unit to aim for (tuning)"),
      cl::cat(tuningOptions)};
  cl::opt<int64_t> splits{
      "splits", cl::init(0),
      cl::desc("Split-KV: at most this many splits, 1 to stream (tuning)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noMatrix{
      "no-matrix", cl::init(false),
      cl::desc("Never plan the matrix-tile or tile schedules (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noWarpgroup{
      "no-warpgroup", cl::init(false),
      cl::desc("Prefill on the subgroup matrix tile even where the device "
               "has the warpgroup tile (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> warpgroupPipeline{
      "warpgroup-pipeline", cl::init(false),
      cl::desc("Warpgroup tile: two key buffers, the next tile's score "
               "products during this tile's softmax (comparisons; slower "
               "on the H200)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noSharedQuery{
      "no-shared-query", cl::init(false),
      cl::desc("Warpgroup tile: q in registers even where it fits in "
               "workgroup memory (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noWideWarpgroup{
      "no-wide-warpgroup", cl::init(false),
      cl::desc("Warpgroup tile: one warpgroup of 64 rows a workgroup even "
               "where two would share each key and value tile "
               "(comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> wideWarpgroup{
      "wide-warpgroup", cl::init(false),
      cl::desc("Warpgroup tile: two warpgroups a workgroup also for causal "
               "prefill without a longer cache before it (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noDealtOrder{
      "no-dealt-order", cl::init(false),
      cl::desc("Causal prefill on the tile schedule: row blocks heaviest "
               "first, not dealt across the compute units (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noWarpgroupDecode{
      "no-warpgroup-decode", cl::init(false),
      cl::desc("Multi-token decode on the subgroup tile even where the rows "
               "of a KV head fill the warpgroup tile (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> noFusedCombine{
      "no-fused-combine", cl::init(false),
      cl::desc("Split-KV: always a combine kernel (comparisons)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> fusedCombine{
      "fused-combine", cl::init(false),
      cl::desc("Split-KV: the combine in the last workgroup on every "
               "schedule and target (tests)"),
      cl::cat(tuningOptions)};
  cl::opt<bool> countTiles{
      "count-tiles", cl::init(false),
      cl::desc("Tile schedules count the key tiles each workgroup visits "
               "(poot-run-plan --check-tiles reads the counts)"),
      cl::cat(tuningOptions)};
} tuningFlags;

static int fail(const Twine &message) {
  errs() << "poot-compile: error: " << message << "\n";
  return 1;
}

/// The tool's steps in the order they run (options, import, fusion, plan,
/// report, output), in one function so that every refusal of an option
/// combination is seen before the first pass runs.
int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&mainOptions, &tuningOptions, &onnxOptions});
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "poot-compile " << POOT_VERSION << " (MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "poot model compiler: fuses a model graph's attention, RoPE and block "
      "selection, plans\nthe fused ops for a target and writes the plan file "
      "the runtime loads\n");

  std::string device = poot::deviceForTarget(target).value_or("");
  if (device.empty())
    return fail("unknown target '" + target +
                "' (cpu, vulkan, cuda:sm_80, cuda:sm_89, cuda:sm_90, "
                "rocm:gfx90a, rocm:gfx942, rocm:gfx1100)");
  if (emit != "plan" && emit != "ir" && emit != "spirv" && emit != "ptx" &&
      emit != "hsaco" && emit != "amdgcn")
    return fail("unknown --emit '" + emit +
                "' (plan, ir, spirv, ptx, hsaco, amdgcn)");
  if (emit == "plan" && outputPath.empty())
    return fail("-o PLAN is required to write a plan (-o - for stdout)");
  poot::PlanOverrides overrides;
  poot::copyTuning(tuningFlags, overrides);
  if (Error err = poot::verifyTuning(overrides))
    return fail(toString(std::move(err)));
  std::optional<rt::LiveDeviceFacts> live;
  if (!deviceFactsFile.empty()) {
    if (deviceFromHost)
      return fail("--device-facts and --device-from-host exclude each other");
    auto text = MemoryBuffer::getFile(deviceFactsFile);
    if (!text)
      return fail("--device-facts: cannot read '" + deviceFactsFile + "'");
    rt::LiveDeviceFacts facts;
    if (rt::Status s = rt::parseDeviceFacts((*text)->getBuffer().str(), facts);
        !s.isOk())
      return fail("--device-facts: " + s.message());
    if (rt::deviceKindForTarget(target) != facts.kind ||
        (facts.kind == "cuda" && "cuda:" + facts.facts.name != target))
      return fail("--device-facts: the facts are of a " + facts.kind +
                  " device (" + facts.facts.name + "), not of target " +
                  target);
    live = std::move(facts);
    device = live->facts.name;
  }
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
  // One line per diagnostic; the failing op's IR only when asked for.
  ctx.printOpOnDiagnostic(printOpOnDiagnostic);
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

  mlir::DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  mlir::TimingScope rootTiming = timingManager.getRootScope();
  mlir::TimingScope parseTiming = rootTiming.nest("parse and verify");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  // An ONNX model's weights, written beside the output once it compiled.
  poot::onnx::ImportResult importedWeights;
  auto writeWeights = [&]() -> Error {
    if (weightsDir.empty())
      return Error::success();
    return poot::onnx::writeWeights(weightsDir, importedWeights);
  };
  if (StringRef(inputPath).ends_with(".onnx")) {
    poot::onnx::ImportOptions importOptions;
    if (Error err = poot::onnx::bindDims(dimSpecs, importOptions))
      return fail(toString(std::move(err)));
    importOptions.loadWeights = !weightsDir.empty();
    if (kvCapacity.getNumOccurrences())
      importOptions.kvCapacity = kvCapacity;
    auto imported = poot::onnx::importModelFile(ctx, inputPath, importOptions);
    if (!imported)
      return fail(toString(imported.takeError()));
    module = std::move(imported->module);
    importedWeights = std::move(*imported);
  } else {
    if (!dimSpecs.empty() || !weightsDir.empty() ||
        kvCapacity.getNumOccurrences())
      return fail("--dim, --kv-capacity and --weights-dir are for ONNX "
                  "models (.onnx)");
    module = mlir::parseSourceFile<mlir::ModuleOp>(inputPath, sourceMgr, &ctx);
  }
  if (!module)
    return fail("cannot parse '" + inputPath + "'");
  if (failed(mlir::verify(*module)))
    return fail("'" + inputPath + "' does not verify");

  parseTiming.stop();
  mlir::PassManager pm(&ctx);
  mlir::TimingScope passTiming = rootTiming.nest("fusion and planning passes");
  pm.enableTiming(passTiming);
  if (live)
    poot::addCompilePipeline(pm, live->facts, /*fuse=*/!noFusion,
                             /*explain=*/true, overrides);
  else
    poot::addCompilePipeline(pm, device, /*fuse=*/!noFusion, /*explain=*/true,
                             overrides);
  if (failed(pm.run(*module)))
    return fail("compilation for " + target + " failed (see above)");
  passTiming.stop();
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
  mlir::TimingScope generateTiming =
      rootTiming.nest("kernel generation and lowering");
  if (emit != "ir" && failed(poot::generateKernels(*module, target, kernels)))
    return fail("kernel generation for " + target + " failed (see above)");
  generateTiming.stop();
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

  auto fn = poot::findGraph(*module, graphName);
  if (!fn)
    return fail(toString(fn.takeError()));
  mlir::TimingScope recordTiming = rootTiming.nest("plan records");
  auto planOr = poot::planFromModule(*module, device, target, graphName);
  recordTiming.stop();
  if (!planOr)
    return fail(toString(planOr.takeError()));
  rt::Plan plan = std::move(*planOr);
  kernels.moveInto(plan);

  if (!quiet) {
    raw_ostream &os = errs();
    os << "fusion report for @" << plan.graph.name << " on " << target
       << " (device " << device << ")\n";
    if (live)
      os << "  device facts from " << (deviceFactsFile.empty() ? std::string("this host") : deviceFactsFile.getValue()) << ": " << live->description << "\n";
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
      auto s = op->getAttrOfType<poot::AttentionScheduleAttr>(
          poot::attrs::kSchedule);
      if (!s)
        return;
      os << "  schedule";
      if (auto loc = dyn_cast<mlir::FileLineColLoc>(op.getLoc()))
        os << " (line " << loc.getLine() << ")";
      os << ": " << (s.getSplit() ? "split" : "streaming") << ", lanes "
         << s.getLanes() << ", splits " << s.getSplits() << " of "
         << s.getChunk() << " keys, grid " << s.getGridX() << "x"
         << s.getGridY() << ", " << s.getGroup()
         << (s.getGroup() == 1 ? " head" : " heads") << " a workgroup";
      if (s.getTileRows())
        os << ", tiles of " << s.getTileRows() << " query rows x "
           << s.getTileKeys() << " keys, " << s.getTileStages()
           << (s.getTileStages() == 1 ? " tile" : " tiles")
           << " in workgroup memory, on the "
           << (s.getTileWarpgroup() ? "warpgroup" : "subgroup")
           << " matrix unit";
      else if (s.getMatrix())
        os << ", matrix tiles of 16 keys, " << s.getVector() << "/"
           << s.getValueVector() << "-wide key/value loads, " << s.getUnroll()
           << (s.getUnroll() == 1 ? " tile" : " tiles") << " in flight";
      else if (s.getSubgroup())
        os << ", " << s.getKeyLanes() << " lanes a key, " << s.getVector()
           << "-wide loads, " << s.getUnroll() << " keys in flight";
      if (s.getPairFold())
        os << ", subgroups folding in pairs";
      if (s.getFusedCombine())
        os << ", splits folded by the last workgroup of a row";
      os << "\n";
    });
    os << "  " << fused << " fused, " << declined << " declined"
       << (explain || !declined ? "" : " (--explain lists them)") << "\n";
    os << "  arena: " << plan.arenaBytes << " bytes for " << plan.arena.size()
       << " buffers\n";
  }

  if (Error err = writeWeights())
    return fail(toString(std::move(err)));
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
  if (outputPath == "-") {
    outs() << rt::serializePlan(plan);
    outs().flush();
    return outs().has_error() ? fail("cannot write the plan to stdout") : 0;
  }
  mlir::TimingScope writeTiming = rootTiming.nest("write the plan");
  if (rt::Status s = rt::writePlanFile(outputPath, plan); !s.isOk())
    return fail(s.toString());
  return 0;
}
