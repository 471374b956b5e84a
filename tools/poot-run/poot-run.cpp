//===- poot-run.cpp - Run a poot graph on a device ------------------------===//
//
// Runs a graph on a device with inputs from .npy files or seeded random
// values, optionally for several decode steps (advancing the `pos` and `len`
// slots and carrying the state), writes the outputs as .npy, and with --check
// compares every output against the oracle (the f64 reference evaluator) run
// on a reference graph with the same inputs. With --context-parallel=N the
// cpu plan runs over N in-process cpu devices (ContextParallel.h). Nothing
// is written unless the whole run succeeds.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Plan/GraphRecords.h"
#include "poot/Runtime/Check.h"
#include "poot/Runtime/ContextParallel.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/Npy.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/Device.h"
#include "poot/Compiler.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Steps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace llvm;
namespace rt = poot::rt;

static cl::opt<std::string> graphPath(cl::Positional, cl::Required,
                                      cl::desc("<graph.mlir | plan>"));
static cl::opt<std::string> device("device", cl::init("cpu"),
                                   cl::desc("Device to run on: cpu, vulkan, "
                                            "cuda, hip"));
static cl::opt<std::string> targetOpt(
    "target", cl::init(""),
    cl::desc("Target to compile a graph for (default: cpu, vulkan, the "
             "CUDA device's own chip; hip needs rocm:gfx*)"));
static cl::opt<bool> deviceFromHost(
    "device-from-host",
    cl::desc("Compile a graph against the facts of this host's device of "
             "--device's kind (its limits and optional features, such as "
             "Vulkan's shaderInt64) instead of the target's preset"));
static cl::opt<std::string> funcName("func", cl::init(""),
                                     cl::desc("Graph function to run"));
static cl::list<std::string>
    inputFiles("input", cl::desc("Bind an input: name=file.npy"));
static cl::list<std::string>
    setValues("set", cl::desc("Bind an input inline: name=v0,v1,... (every "
                              "element, row-major)"));
static cl::opt<uint64_t> seed("seed", cl::init(1),
                              cl::desc("Seed of random inputs"));
static cl::opt<unsigned> steps("steps", cl::init(1),
                               cl::desc("Decode steps: pos/len advance by "
                                        "the query length, state carries"));
static cl::opt<std::string> outDir("out-dir", cl::init(""),
                                   cl::desc("Write outputs as .npy here"));
static cl::opt<bool> check("check",
                           cl::desc("Compare against the oracle (f64)"));
static cl::opt<std::string>
    refPath("ref", cl::init(""),
            cl::desc("Reference graph for --check (default: the graph)"));
static cl::opt<bool> quiet("quiet", cl::desc("Print only errors"));
static cl::opt<bool>
    deviceOnly("device-only",
               cl::desc("Fail if any eqn would run on the host instead of "
                        "the device (vulkan, cuda, hip)"));
static cl::opt<int> contextParallel(
    "context-parallel", cl::init(0),
    cl::desc("cpu: run the plan over N in-process cpu devices, each "
             "attention's keys split across them (split-kv for decode, a "
             "causal-skipping ring for prefill)"),
    cl::value_desc("N"));
static cl::opt<int>
    cpGroup("cp-group", cl::init(0),
            cl::desc("With --context-parallel: devices a group of the "
                     "split-kv reduce (default ceil(sqrt(N)))"),
            cl::value_desc("G"));
static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Compile the graph as written, without the fusion "
                      "passes"));

namespace {

int fail(const Twine &message) {
  errs() << "poot-run: error: " << message << "\n";
  return 1;
}

/// The plan poot-run runs: read from a plan file, or compiled here from a
/// graph for the device's target.
rt::Plan runnablePlan;

/// The target a graph is compiled for on `device`.
Expected<std::string> targetFor(StringRef kind) {
  if (!targetOpt.empty()) {
    if (rt::deviceKindForTarget(targetOpt) != kind.str())
      return createStringError(inconvertibleErrorCode(),
                               "--target=%s does not run on the %s device",
                               targetOpt.c_str(), kind.str().c_str());
    return targetOpt.getValue();
  }
  if (kind == "cpu" || kind == "vulkan")
    return kind.str();
  if (kind == "cuda") {
    // The chip of this host's CUDA device.
    rt::LiveDeviceFacts live;
    if (rt::Status s = rt::queryDeviceFacts("cuda", live); !s.isOk())
      return createStringError(inconvertibleErrorCode(), "cuda: %s",
                               s.toString().c_str());
    return "cuda:" + live.facts.name;
  }
  return createStringError(inconvertibleErrorCode(),
                           "the %s device needs --target (rocm:gfx90a, "
                           "rocm:gfx942, rocm:gfx1100)",
                           kind.str().c_str());
}

/// Loads a compiled plan, or parses, verifies and records a graph
/// (diagnostics go to stderr with their location). With `forDevice`, a
/// graph is compiled (fused unless --no-fusion) for the device's target
/// and the plan kept in `runnablePlan`, so what runs is what a plan for
/// the device holds, on the cpu too.
Expected<rt::Graph> loadGraph(mlir::MLIRContext &ctx, StringRef path,
                              bool forDevice = false) {
  if (auto buffer = MemoryBuffer::getFile(path);
      buffer && rt::looksLikePlan((*buffer)->getBuffer().str())) {
    rt::Plan plan;
    if (rt::Status s = rt::readPlanFile(path.str(), plan); !s.isOk())
      return createStringError(inconvertibleErrorCode(), s.toString().c_str());
    if (forDevice && deviceFromHost)
      return createStringError(inconvertibleErrorCode(),
                               "--device-from-host compiles a graph; plan "
                               "'%s' is compiled already",
                               path.str().c_str());
    if (forDevice && rt::deviceKindForTarget(plan.target) != device)
      return createStringError(inconvertibleErrorCode(),
                               "plan '%s' is for target %s, not the %s device",
                               path.str().c_str(), plan.target.c_str(),
                               device.c_str());
    if (forDevice)
      runnablePlan = plan;
    return std::move(plan.graph);
  }
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr, &ctx);
  if (!module)
    return createStringError(inconvertibleErrorCode(),
                             "cannot parse '%s'", path.str().c_str());
  if (failed(mlir::verify(*module)))
    return createStringError(inconvertibleErrorCode(),
                             "'%s' does not verify", path.str().c_str());
  auto fn = poot::findGraph(*module, funcName);
  if (!fn)
    return fn.takeError();
  if (forDevice) {
    // Parsed and verified above, so a malformed graph is reported at its
    // file and line; the compile reads the same text again.
    auto buffer = MemoryBuffer::getFile(path);
    if (!buffer)
      return createStringError(inconvertibleErrorCode(), "cannot parse '%s'",
                               path.str().c_str());
    auto target = targetFor(device);
    if (!target)
      return target.takeError();
    poot::CompileOptions options;
    options.target = *target;
    options.fuse = !noFusion;
    options.deviceFromHost = deviceFromHost;
    options.graph = funcName;
    auto plan = poot::compileGraph((*buffer)->getBuffer(), options);
    if (!plan)
      return plan.takeError();
    runnablePlan = *plan;
    return std::move(plan->graph);
  }
  return poot::toGraphRecords(*fn);
}

/// The first values of a tensor, for the report.
std::string preview(const rt::Tensor &t) {
  std::string text;
  raw_string_ostream os(text);
  os << "[";
  for (int64_t i = 0; i < std::min<int64_t>(t.size(), 4); ++i)
    os << (i ? ", " : "") << format("%.5g", t.at(i));
  os << (t.size() > 4 ? ", ...]" : "]");
  return os.str();
}

} // namespace

/// The tool's steps in the order they run (options, graph, compile, inputs,
/// steps, check, files written), in one function so that every refusal
/// reads before the first step runs.
int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "poot graph runner\n");
  if (!llvm::is_contained(rt::deviceKinds(), device.getValue()))
    return fail("unknown device '" + device + "' (cpu, vulkan, cuda, hip)");
  if (steps < 1)
    return fail("--steps must be at least 1");
  if (deviceOnly && device == "cpu")
    return fail("--device-only needs a GPU device (vulkan, cuda, hip)");
  bool parallel = contextParallel.getNumOccurrences() > 0;
  if (parallel) {
    if (contextParallel < 1)
      return fail("--context-parallel must be at least 1 (the number of cpu "
                  "devices), got " +
                  Twine(contextParallel.getValue()));
    if (contextParallel > 1024)
      return fail("--context-parallel " + Twine(contextParallel.getValue()) +
                  " is past 1024 devices");
    if (device != "cpu")
      return fail("--context-parallel runs the plan over in-process cpu "
                  "devices: it needs --device=cpu, not " +
                  device);
  }
  if (cpGroup.getNumOccurrences()) {
    if (!parallel)
      return fail("--cp-group needs --context-parallel=N");
    if (cpGroup < 1 || cpGroup > contextParallel)
      return fail("--cp-group must be 1 to the " +
                  Twine(contextParallel.getValue()) +
                  " devices of --context-parallel, got " +
                  Twine(cpGroup.getValue()));
  }

  mlir::MLIRContext ctx;
  // Diagnostics name the location, not the op's IR: MLIR 19's printer
  // crashes on some malformed attributes (an i1 dense array), which the
  // verifier would otherwise print on its way to the error.
  ctx.printOpOnDiagnostic(false);
  ctx.loadDialect<poot::PootDialect, mlir::func::FuncDialect>();
  auto graphOr = loadGraph(ctx, graphPath, /*forDevice=*/true);
  if (!graphOr)
    return fail(toString(graphOr.takeError()));
  rt::Graph graph = std::move(*graphOr);

  rt::Graph refGraph;
  if (check) {
    if (refPath.empty() && rt::looksLikePlan(
                               MemoryBuffer::getFile(graphPath)
                                   ? (*MemoryBuffer::getFile(graphPath))
                                         ->getBuffer()
                                         .str()
                                   : std::string()))
      return fail("--check on a plan needs --ref=GRAPH.mlir (the plan holds "
                  "only the fused graph)");
    auto refOr = loadGraph(ctx, refPath.empty() ? graphPath : refPath);
    if (!refOr)
      return fail(toString(refOr.takeError()));
    refGraph = std::move(*refOr);
  }

  // Bind inputs: files first, random values for the rest.
  std::map<std::string, rt::Tensor> bound;
  for (const std::string &spec : inputFiles) {
    auto [name, file] = StringRef(spec).split('=');
    if (file.empty())
      return fail("--input expects name=file.npy, got '" + spec + "'");
    int index = graph.findInput(name.str());
    if (index < 0)
      return fail("unknown input '" + name + "' (the graph has no such input)");
    const rt::TensorType &type = graph.values[graph.inputs[index].value];
    rt::Tensor t;
    if (rt::Status s = rt::readNpy(file.str(), &type, t); !s.isOk())
      return fail("input '" + name + "': " + s.toString());
    bound[name.str()] = std::move(t);
  }
  for (const std::string &spec : setValues) {
    auto [name, list] = StringRef(spec).split('=');
    int index = graph.findInput(name.str());
    if (index < 0)
      return fail("unknown input '" + name + "' (the graph has no such input)");
    const rt::TensorType &type = graph.values[graph.inputs[index].value];
    // Strict: an integer input refuses "2.5", "nan" or a value past its
    // dtype rather than rounding or wrapping it.
    std::vector<double> values;
    if (rt::Status s = rt::parseValues(list.str(), type, values); !s.isOk())
      return fail("--set " + name + ": " + s.message());
    bound[name.str()] = rt::Tensor(type, std::move(values));
  }
  // Positions leave room for every later step's tokens.
  const int64_t headroom = (int64_t(steps) - 1) * rt::tokensPerStep(graph);
  for (const rt::GraphInput &input : graph.inputs) {
    if (bound.count(input.name))
      continue;
    if (rt::Status s = rt::randomInput(graph, input, seed, headroom,
                                       bound[input.name]);
        !s.isOk())
      return fail(s.toString());
  }

  // State buffers: the device's and the oracle's evolve side by side.
  std::map<std::string, rt::Tensor> state, refState;
  for (const rt::GraphInput &input : graph.inputs)
    if (!input.state.empty())
      state[input.name] = bound[input.name];
  if (check)
    for (const rt::GraphInput &input : refGraph.inputs) {
      if (!bound.count(input.name)) {
        if (rt::Status s = rt::randomInput(refGraph, input, seed, headroom,
                                           bound[input.name]);
            !s.isOk())
          return fail("--check: " + s.toString());
      }
      if (!input.state.empty())
        refState[input.name] = bound[input.name];
    }

  if (!quiet) {
    outs() << "graph @" << graph.name << ": " << graph.eqns.size()
           << " eqns, " << graph.inputs.size() << " inputs, "
           << graph.outputs.size() << " outputs; device " << device;
    if (parallel)
      outs() << ", context parallel over " << contextParallel << " devices";
    outs() << "\n";
  }
  rt::ContextParallelOptions cpOptions;
  cpOptions.devices = contextParallel;
  cpOptions.groupSize = cpGroup;

  // A GPU device dispatches the plan's kernels; every other eqn runs in the
  // evaluator on the host.
  std::unique_ptr<rt::PlanDevice> runner;
  rt::DeviceOptions deviceOptions;
  deviceOptions.deviceOnly = deviceOnly;
  if (rt::Status s = rt::openDevice(device, runnablePlan, deviceOptions, runner);
      !s.isOk())
    return fail(device + ": " + s.toString());
  if (runner && !quiet)
    outs() << device << " device: " << runner->description() << "\n";

  std::map<std::string, rt::Tensor> outputs;
  bool checkFailed = false;
  for (unsigned step = 0; step < steps; ++step) {
    std::map<std::string, rt::Tensor> stepOutputs;
    int64_t dispatchedBefore = runner ? runner->dispatchedEqns() : 0;
    auto start = std::chrono::steady_clock::now();
    rt::ContextParallelReport report;
    rt::Status status =
        parallel ? rt::runContextParallel(graph,
                                          rt::bindStep(graph, bound, state),
                                          cpOptions, stepOutputs, &report)
                 : rt::evaluate(graph, rt::bindStep(graph, bound, state),
                                rt::NumericMode::Native, stepOutputs,
                                runner.get());
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (!status.isOk())
      return fail("step " + Twine(step) + ": " + status.toString() +
                  " (nothing written)");
    if (!quiet) {
      outs() << "step " << step;
      for (const rt::GraphInput &input : graph.inputs)
        if (input.slot == "pos" || input.slot == "len")
          outs() << " " << input.name << "=" << preview(bound[input.name]);
      outs() << ": ran in " << format("%.2f", ms) << " ms";
      if (runner)
        outs() << " (" << runner->dispatchedEqns() - dispatchedBefore
               << " eqns on the device)";
      if (parallel)
        outs() << " over " << contextParallel << " cpu devices";
      outs() << "\n";
      // The decisions once (they follow from the shapes), the exchanges
      // every step (the live length changes what the ring skips).
      if (parallel)
        outs() << (step == 0 ? report.toString() : report.exchanges() + "\n");
    }

    if (check) {
      std::map<std::string, rt::Tensor> refOutputs;
      rt::Status refStatus =
          rt::evaluate(refGraph, rt::bindStep(refGraph, bound, refState),
                       rt::NumericMode::Reference, refOutputs);
      if (!refStatus.isOk())
        return fail("oracle, step " + Twine(step) + ": " +
                    refStatus.toString() + " (nothing written)");
      std::vector<std::string> lines;
      checkFailed |= !rt::checkStep(stepOutputs, refOutputs, state, refState,
                                    quiet, lines, rt::narrowestFloat(refGraph));
      for (const std::string &line : lines)
        outs() << line << "\n";
    }
    outputs = std::move(stepOutputs);

    // Advance the decode: pos and len move on by one token per step.
    rt::advanceStep(graph, bound);
  }

  if (!quiet)
    for (auto &[name, t] : outputs)
      outs() << "output " << name << " " << t.type().toString() << " = " << preview(t)
             << "\n";
  if (checkFailed)
    return errs() << "poot-run: check failed: results past the tolerance "
                     "(nothing written)\n",
           2;
  if (check && !quiet)
    outs() << "check passed against the oracle\n";

  if (!outDir.empty()) {
    // Every file or none: names are checked before anything is created,
    // and the files are renamed into place only once all were written.
    std::vector<std::pair<std::string, const rt::Tensor *>> files;
    for (auto &[name, t] : outputs)
      files.emplace_back(name, &t);
    for (auto &[name, t] : state)
      files.emplace_back(name, &t);
    for (const auto &file : files)
      if (!rt::isPlainFileName(file.first))
        return fail("output '" + file.first +
                    "' is not a plain file name (nothing written)");
    if (std::error_code ec = sys::fs::create_directories(outDir))
      return fail("cannot create '" + outDir + "': " + ec.message());
    if (rt::Status s = rt::writeNpyFiles(outDir, files); !s.isOk())
      return fail(s.toString());
  }
  return 0;
}
