//===- poot-run-plan.cpp - Run a compiled plan without LLVM ---------------===//
//
// poot-run for machines that have the runtime and nothing else: it runs a
// plan file (poot-compile's output) on the cpu, vulkan, cuda or hip device with
// inputs from .npy files, --set values or seeded random values (the same
// seed gives the same values as poot-run), for one or several decode steps
// (advancing the `pos` and `len` slots by the tokens a step writes and
// carrying the state). With
// --ref it compares every output and state against the oracle (the f64
// reference evaluator) run on a reference plan with the same inputs, and
// exits 2 past the tolerance. With --bench=N on the cuda device it then
// times each eqn's kernels alone, launched one by one and replayed as a
// CUDA graph (CUDA events); on the vulkan device, as one submission
// (timestamp queries); the cache is flushed before each run on both. With --context-parallel=N a cpu plan runs over N in-process
// cpu devices (threads), every attention's keys split across them
// (ContextParallel.h). Nothing is written unless the whole run succeeds.
//
// It links only the runtime, so the argument parsing is done by hand.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Bench.h"
#include "poot/Runtime/Check.h"
#include "poot/Runtime/ContextParallel.h"
#include "poot/Runtime/Device.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/Npy.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/DeviceQuery.h"
#include "poot/Runtime/Steps.h"
#include "poot/Runtime/TileCounts.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rt = poot::rt;

namespace {

const char *const kUsage =
    "usage: poot-run-plan PLAN [options]\n"
    "\n"
    "Runs a compiled plan (poot-compile's output) with the runtime alone.\n"
    "\n"
    "       poot-run-plan --print-device-facts=vulkan|cuda|cpu\n"
    "                            prints this machine's device facts, to\n"
    "                            compile for it elsewhere\n"
    "                            (poot-compile --device-facts=FILE)\n"
    "\n"
    "  --device=cpu|vulkan|cuda|hip\n"
    "                            device to run on (default cpu); the plan\n"
    "                            must have been compiled for it\n"
    "  --ref=REF.plan            check every output and state against the\n"
    "                            oracle (f64) run on REF with the same\n"
    "                            inputs; exit 2 past the tolerance\n"
    "  --steps=N                 decode steps: pos/len advance by the step's tokens, the\n"
    "                            state carries (default 1)\n"
    "  --seed=S                  seed of random inputs (default 1)\n"
    "  --set=NAME=V0,V1,...      bind an input inline (every element,\n"
    "                            row-major); may repeat\n"
    "  --input=NAME=FILE.npy     bind an input from a .npy file; may repeat\n"
    "  --out-dir=DIR             write outputs and state as .npy here\n"
    "  --bench=N                 cuda, vulkan: after the run, time each\n"
    "                            eqn's kernels over N iterations (the cache\n"
    "                            flushed before each): on cuda with CUDA\n"
    "                            events, launched and as a CUDA graph; on\n"
    "                            vulkan with timestamp queries, as one\n"
    "                            submission\n"
    "  --bench-op=OP             with --bench: time only the eqns of op OP\n"
    "                            (e.g. attention)\n"
    "  --bench-only              with --bench: skip the run; time each eqn\n"
    "                            that has kernels on synthetic operands\n"
    "                            (random floats, every key visible), for\n"
    "                            shapes too large to evaluate on the host\n"
    "  --device-only             vulkan, cuda, hip: fail if any eqn would run\n"
    "                            on the host instead of the device\n"
    "  --resident                cuda, hip: run a graph whose eqns all have\n"
    "                            kernels whole on the device, its launches\n"
    "                            recorded once (on cuda as one CUDA graph) and\n"
    "                            replayed each step (vulkan always does);\n"
    "                            with --bench, also time the whole replay\n"
    "  --context-parallel=N      cpu: run the plan over N in-process cpu\n"
    "                            devices (threads), each attention's keys\n"
    "                            split across them (split-kv for decode, a\n"
    "                            causal-skipping ring for prefill); prints\n"
    "                            each attention's split and the exchanges\n"
    "  --cp-group=G              with --context-parallel: devices a group of\n"
    "                            the split-kv reduce (default ceil(sqrt(N)))\n"
    "  --check-tiles             a GPU device, a plan compiled with\n"
    "                            --count-tiles: after each step, exit 2\n"
    "                            unless each workgroup of every counted\n"
    "                            attention visited exactly the key tiles\n"
    "                            some row of it sees (causal, window and\n"
    "                            live-length skipping)\n"
    "  --repeat-check            run every step twice from the same inputs\n"
    "                            and state; exit 2 unless every output and\n"
    "                            state is bitwise the same both times\n"
    "  --quiet                   print only errors (and bench lines)\n";

/// Prints "poot-run-plan: error: ..." and returns 1.
int fail(const std::string &message) {
  // What was printed so far comes first, also when stdout is a pipe.
  std::fflush(stdout);
  std::fprintf(stderr, "poot-run-plan: error: %s\n", message.c_str());
  return 1;
}

std::string format(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

struct Options {
  std::string plan;
  std::string device = "cpu";
  std::string ref;
  std::string outDir;
  uint64_t steps = 1;
  uint64_t seed = 1;
  uint64_t bench = 0;
  bool benchOnly = false;
  std::string benchOp; ///< empty: every eqn with kernels
  std::vector<std::string> sets;
  std::vector<std::string> inputs;
  bool quiet = false;
  bool repeatCheck = false;
  bool checkTiles = false;
  bool deviceOnly = false;
  bool resident = false;
  /// --context-parallel=N: 0 when not given; checked in main.
  int64_t contextParallel = 0;
  bool hasContextParallel = false;
  int64_t cpGroup = 0;
  bool hasCpGroup = false;
};

/// A whole decimal number, nothing before or after it.
bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != 0)
    return false;
  out = v;
  return true;
}

/// A whole decimal number with an optional '-', nothing before or after it.
bool parseSigned(const std::string &text, int64_t &out) {
  size_t digits = text.rfind("-", 0) == 0 ? 1 : 0;
  if (text.size() <= digits || text[digits] < '0' || text[digits] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != 0)
    return false;
  out = v;
  return true;
}

/// Parses the command line; on a bad one returns false with `error` set.
/// `help` is set for -h / --help.
bool parseArgs(int argc, char **argv, Options &o, std::string &error,
               bool &help) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      help = true;
      return true;
    }
    if (arg.rfind("-", 0) != 0 || arg == "-") {
      if (!o.plan.empty()) {
        error = "more than one plan given ('" + o.plan + "' and '" + arg +
                "')";
        return false;
      }
      o.plan = arg;
      continue;
    }
    // --name=value; a single leading dash is accepted as poot-run's
    // option library accepts it.
    std::string body = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    bool hasValue = eq != std::string::npos;
    std::string value = hasValue ? body.substr(eq + 1) : "";
    auto needValue = [&]() {
      if (!hasValue || value.empty()) {
        error = "--" + name + " needs a value (--" + name + "=...)";
        return false;
      }
      return true;
    };
    auto number = [&](uint64_t &out) {
      if (!needValue())
        return false;
      if (!parseUnsigned(value, out)) {
        error = "--" + name + ": '" + value + "' is not a whole number";
        return false;
      }
      return true;
    };
    if (name == "device") {
      if (!needValue())
        return false;
      o.device = value;
    } else if (name == "ref") {
      if (!needValue())
        return false;
      o.ref = value;
    } else if (name == "out-dir") {
      if (!needValue())
        return false;
      o.outDir = value;
    } else if (name == "set") {
      if (!needValue())
        return false;
      o.sets.push_back(value);
    } else if (name == "input") {
      if (!needValue())
        return false;
      o.inputs.push_back(value);
    } else if (name == "check-tiles") {
      o.checkTiles = true;
    } else if (name == "repeat-check") {
      o.repeatCheck = true;
    } else if (name == "steps") {
      if (!number(o.steps))
        return false;
    } else if (name == "seed") {
      if (!number(o.seed))
        return false;
    } else if (name == "bench") {
      if (!number(o.bench))
        return false;
    } else if (name == "bench-only") {
      o.benchOnly = true;
    } else if (name == "bench-op") {
      if (value.empty()) {
        error = "--bench-op expects an op name";
        return false;
      }
      o.benchOp = value;
    } else if (name == "device-only") {
      if (hasValue) {
        error = "--device-only takes no value";
        return false;
      }
      o.deviceOnly = true;
    } else if (name == "resident") {
      if (hasValue) {
        error = "--resident takes no value";
        return false;
      }
      o.resident = true;
    } else if (name == "context-parallel" || name == "cp-group") {
      if (!needValue())
        return false;
      int64_t v = 0;
      if (!parseSigned(value, v)) {
        error = "--" + name + ": '" + value + "' is not a whole number";
        return false;
      }
      if (name == "cp-group") {
        o.cpGroup = v;
        o.hasCpGroup = true;
      } else {
        o.contextParallel = v;
        o.hasContextParallel = true;
      }
    } else if (name == "quiet") {
      if (hasValue) {
        error = "--quiet takes no value";
        return false;
      }
      o.quiet = true;
    } else {
      error = "unknown option '" + arg + "' (see --help)";
      return false;
    }
  }
  if (o.plan.empty()) {
    error = "no plan given (usage: poot-run-plan PLAN [options]; see --help)";
    return false;
  }
  return true;
}

/// The first values of a tensor, for the report.
std::string preview(const rt::Tensor &t) {
  std::string text = "[";
  for (int64_t i = 0; i < std::min<int64_t>(t.size(), 4); ++i)
    text += (i ? ", " : "") + format("%.5g", t.at(i));
  return text + (t.size() > 4 ? ", ...]" : "]");
}

/// mkdir -p.
bool makeDirectories(const std::string &path, std::string &error) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/')
      continue;
    std::string prefix = path.substr(0, at);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      error = "cannot create '" + prefix + "': " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is not a directory";
    return false;
  }
  return true;
}

/// "" when `a` and `b` hold the same names with bitwise the same values
/// (a NaN equal to itself, -0 not equal to +0), else the first difference.
std::string firstDifference(const std::map<std::string, rt::Tensor> &a,
                            const std::map<std::string, rt::Tensor> &b) {
  for (const auto &[name, t] : a) {
    auto it = b.find(name);
    if (it == b.end())
      return "'" + name + "' missing from the second run";
    const std::vector<double> &x = t.values(), &y = it->second.values();
    if (x.size() != y.size())
      return "'" + name + "' changed size";
    for (size_t i = 0; i < x.size(); ++i)
      if (std::memcmp(&x[i], &y[i], sizeof(double)) != 0)
        return format("'%s' element %zu: %.9g, then %.9g", name.c_str(), i,
                      x[i], y[i]);
  }
  return b.size() == a.size() ? "" : "an output only the second run has";
}

/// Offers every eqn to the device's runner and, while `recording`, keeps a
/// copy of the operands of each eqn the device ran: the benchmark replays
/// the last step's.
class RecordingRunner : public rt::EqnRunner {
public:
  struct Recorded {
    std::vector<rt::Tensor> operands;
    /// One for each operand: operands[i] uploaded, or (synthesize) the
    /// device's fill of a type.
    std::vector<rt::OperandSource> sources;
    std::vector<rt::TensorType> resultTypes;
  };

  explicit RecordingRunner(rt::EqnRunner &inner) : inner(inner) {}

  rt::Status run(const rt::Eqn &eqn,
                 const std::vector<const rt::Tensor *> &operands,
                 const std::vector<rt::TensorType> &resultTypes,
                 std::vector<rt::Tensor> &results, bool &claimed) override {
    POOT_RETURN_IF_ERROR(
        inner.run(eqn, operands, resultTypes, results, claimed));
    if (claimed && recording) {
      Recorded &r = recorded[&eqn];
      r.operands.clear();
      for (const rt::Tensor *t : operands)
        r.operands.push_back(*t);
      r.sources.clear();
      r.resultTypes = resultTypes;
    }
    return rt::Status::ok();
  }

  /// A whole-graph run passes through (its eqns are then not recorded),
  /// unless `stepwiseWhileRecording`: then a recorded step runs eqn by eqn.
  rt::Status runGraph(const rt::Graph &graph, std::vector<rt::Tensor> &values,
                      std::vector<bool> &defined, bool &ran) override {
    if (recording && stepwiseWhileRecording) {
      ran = false;
      return rt::Status::ok();
    }
    return inner.runGraph(graph, values, defined, ran);
  }

  bool recording = false;
  /// Set for vulkan, which runs whole graphs by default: the step the
  /// benchmark replays must keep each eqn's operands.
  bool stepwiseWhileRecording = false;
  std::map<const rt::Eqn *, Recorded> recorded;

private:
  rt::EqnRunner &inner;
};

/// The role of each operand of an attention ("q", "k", ..., "pos"); empty
/// names for any other eqn.
std::vector<std::string> operandRoles(const rt::Eqn &eqn) {
  static const char *const kRoles[] = {"q",    "k",    "k_shared", "v",
                                       "read", "mask", "len",      "pos"};
  std::vector<std::string> roles(eqn.operands.size());
  if (eqn.op != "attention")
    return roles;
  const rt::Attr *segments = eqn.attr("operandSegmentSizes");
  size_t next = 0;
  for (size_t k = 0; k < 8 && next < roles.size(); ++k) {
    int64_t n = segments && k < segments->ints.size()
                    ? segments->ints[k]
                    : (k == 0 || k == 1 || k == 3);
    if (n)
      roles[next++] = kRoles[k];
  }
  return roles;
}

/// --check-tiles after a step: each counted attention's tile counts
/// against rt::expectedTileCounts of the positions and lengths it ran
/// with. Prints a line per eqn; false (and the first difference on stderr)
/// when a workgroup visited other tiles than it should.
bool checkTileCounts(const rt::Graph &graph, const RecordingRunner &recorder,
                     const rt::PlanRunner &runner, bool quiet) {
  bool ok = true;
  for (size_t i = 0; i < graph.eqns.size(); ++i) {
    const rt::Eqn &eqn = graph.eqns[i];
    if (!eqn.attr("poot.count_tiles"))
      continue;
    auto fail = [&](const std::string &why) {
      std::fflush(stdout);
      std::fprintf(stderr, "poot-run-plan: tile check failed: eqn %zu (%s): %s\n",
                   i, eqn.location.c_str(), why.c_str());
      ok = false;
    };
    auto it = recorder.recorded.find(&eqn);
    std::vector<int32_t> counts;
    if (it == recorder.recorded.end()) {
      fail("it did not run on the device");
      continue;
    }
    if (rt::Status s = runner.tileCounts(eqn, counts); !s.isOk()) {
      fail(s.toString());
      continue;
    }
    const rt::Tensor *pos = nullptr, *len = nullptr;
    std::vector<std::string> roles = operandRoles(eqn);
    for (size_t k = 0; k < roles.size() && k < it->second.operands.size(); ++k) {
      if (roles[k] == "pos")
        pos = &it->second.operands[k];
      if (roles[k] == "len")
        len = &it->second.operands[k];
    }
    rt::ExpectedTiles expected;
    if (rt::Status s = rt::expectedTileCounts(eqn, pos, len, expected);
        !s.isOk()) {
      fail(s.toString());
      continue;
    }
    int64_t visited = 0;
    std::string first;
    for (size_t w = 0; w < counts.size(); ++w) {
      int64_t want = w < expected.perWorkgroup.size() ? expected.perWorkgroup[w] : 0;
      visited += counts[w];
      if (counts[w] != want && first.empty())
        first = format("workgroup %zu visited %d tiles, expected %lld", w,
                       counts[w], static_cast<long long>(want));
    }
    if (counts.size() < expected.perWorkgroup.size())
      first = format("%zu tile counts for %zu workgroups", counts.size(),
                     expected.perWorkgroup.size());
    if (!first.empty()) {
      fail(first);
      continue;
    }
    if (!quiet)
      std::printf("tiles eqn %zu: %lld visited by %zu workgroups, each as "
                  "expected; %lld without skipping\n",
                  i, static_cast<long long>(visited),
                  expected.perWorkgroup.size(),
                  static_cast<long long>(expected.withoutSkipping));
  }
  return ok;
}

/// Operands for timing an eqn with kernels without running the graph:
/// floats uniform in [-1, 1), filled on the device; by role, positions so
/// the last query row sees the last key, lengths at the full key length, a
/// paged read map of distinct rows (these three drawn on the host), masks
/// 0 (filled on the device). So every key is visible, as for the peers, and
/// a shape of gigabytes takes the device's copy time, not the host's.
void synthesize(const rt::Graph &graph, RecordingRunner &recorder,
                uint64_t seed, const std::string &onlyOp) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 40) / static_cast<double>(1ull << 23) -
           1.0;
  };
  for (const rt::Eqn &eqn : graph.eqns) {
    if (!eqn.attr("poot.launches.count") ||
        (!onlyOp.empty() && eqn.op != onlyOp))
      continue;
    RecordingRunner::Recorded &r = recorder.recorded[&eqn];
    std::vector<std::string> roles = operandRoles(eqn);
    // The key length: the read map's last dim when paged, else k's dim 2.
    int64_t keyLen = 1;
    for (size_t i = 0; i < roles.size(); ++i) {
      const rt::Shape &shape = graph.values[eqn.operands[i]].shape;
      if (roles[i] == "read")
        keyLen = shape.back();
      else if (roles[i] == "k" && shape.size() == 4 && keyLen == 1)
        keyLen = shape[2];
    }
    std::vector<bool> onHost(eqn.operands.size(), false);
    for (size_t i = 0; i < eqn.operands.size(); ++i) {
      const rt::TensorType &type = graph.values[eqn.operands[i]];
      const bool hostSide = roles[i] == "read" || roles[i] == "pos" ||
                            roles[i] == "len" || !rt::isFloat(type.dtype);
      rt::OperandSource source;
      source.type = type;
      onHost[i] = hostSide;
      if (!hostSide) {
        source.zero = roles[i] == "mask";
        source.seed = seed * 131 + i + 1;
        r.operands.emplace_back();
        r.sources.push_back(source);
        continue;
      }
      std::vector<double> values(static_cast<size_t>(rt::numElements(type.shape)));
      if (roles[i] == "read") {
        int64_t pool = 1;
        for (size_t j = 0; j < eqn.operands.size(); ++j)
          if (roles[j] == "k")
            pool = graph.values[eqn.operands[j]].shape[0];
        for (size_t e = 0; e < values.size(); ++e)
          values[e] = static_cast<double>(static_cast<int64_t>(e) % pool);
      } else if (roles[i] == "pos") {
        // The last query row sees the last key: a decode sees every key,
        // a prefill of Lq = Lk rows is causal from key 0.
        int64_t queryLen = graph.values[eqn.operands[0]].shape.size() == 4
                               ? graph.values[eqn.operands[0]].shape[2]
                               : 1;
        for (double &v : values)
          v = static_cast<double>(std::max<int64_t>(keyLen - queryLen, 0));
      } else if (roles[i] == "len") {
        for (double &v : values)
          v = static_cast<double>(keyLen);
      } else if (roles[i] != "mask") {
        for (double &v : values)
          v = uniform();
      }
      r.operands.emplace_back(type, std::move(values));
      r.sources.push_back(source);
    }
    for (size_t i = 0; i < r.sources.size(); ++i)
      if (onHost[i])
        r.sources[i].tensor = &r.operands[i];
    for (int result : eqn.results)
      r.resultTypes.push_back(graph.values[result]);
  }
}

/// Times one eqn's kernels on a device: prepares it with `operands`, then
/// sets `line` to its bench line (rt::benchLine).
using TimeEqn = std::function<rt::Status(
    size_t index, const rt::Eqn &eqn,
    const std::vector<rt::OperandSource> &operands,
    const std::vector<rt::TensorType> &resultTypes, std::string &line)>;

/// Times every eqn with kernels the device ran (or `synthesize` gave
/// operands), of op `benchOp` when one is given, with `timeEqn`, and
/// prints one line for each.
int bench(const rt::Graph &graph, const RecordingRunner &recorder,
          const std::string &benchOp, const TimeEqn &timeEqn) {
  if (recorder.recorded.empty()) {
    std::printf("bench: no eqn of the plan runs on the device\n");
    return 0;
  }
  int timed = 0;
  for (size_t i = 0; i < graph.eqns.size(); ++i) {
    const rt::Eqn &eqn = graph.eqns[i];
    auto it = recorder.recorded.find(&eqn);
    // A constant is claimed by the device but never dispatched.
    if (it == recorder.recorded.end() || !eqn.attr("poot.launches.count") ||
        (!benchOp.empty() && eqn.op != benchOp))
      continue;
    std::vector<rt::OperandSource> operands = it->second.sources;
    if (operands.empty())
      for (const rt::Tensor &t : it->second.operands)
        operands.push_back(rt::OperandSource{&t, t.type()});
    std::string line;
    if (rt::Status s = timeEqn(i, eqn, operands, it->second.resultTypes, line);
        !s.isOk())
      return fail("bench eqn " + std::to_string(i) + ": " + s.toString());
    std::printf("%s\n", line.c_str());
    ++timed;
  }
  if (timed == 0)
    std::printf("bench: no eqn%s of the plan runs on the device\n",
                benchOp.empty() ? "" : (" of op " + benchOp).c_str());
  return 0;
}

/// Any GPU device: the eqn's operands go up once, then N runs of its
/// launches with the cache flushed before each, each timed by the device
/// (CUDA events, Vulkan timestamp queries); where the device replays a
/// recording of its own (a CUDA graph), the replays are timed too.
TimeEqn deviceTimer(rt::PlanRunner &runner, int iterations) {
  return [&runner, iterations](
             size_t index, const rt::Eqn &eqn,
             const std::vector<rt::OperandSource> &operands,
             const std::vector<rt::TensorType> &resultTypes,
             std::string &line) -> rt::Status {
    rt::PreparedEqn prepared;
    bool claimed = false;
    POOT_RETURN_IF_ERROR(
        runner.prepare(eqn, operands, resultTypes, prepared, claimed));
    rt::GpuDevice &gpu = runner.gpu();
    // One untimed run first: the first launch of a kernel pays for its
    // upload to the device, or for its pipeline's compilation.
    POOT_RETURN_IF_ERROR(gpu.run(prepared.launches));
    std::vector<double> launched;
    POOT_RETURN_IF_ERROR(
        gpu.time(prepared.launches, iterations, /*flushCache=*/true, launched));
    double replayUs = -1;
    if (gpu.replaysNatively()) {
      std::unique_ptr<rt::GpuRecording> recording;
      POOT_RETURN_IF_ERROR(gpu.record(prepared.launches, recording));
      POOT_RETURN_IF_ERROR(gpu.replay(*recording));
      std::vector<double> replayed;
      POOT_RETURN_IF_ERROR(
          gpu.time(*recording, iterations, /*flushCache=*/true, replayed));
      replayUs = rt::medianOf(replayed);
    }
    double us = rt::medianOf(launched);
    line = rt::benchLine(
        index, prepared.kernelNames, us,
        rt::gigabytesPerSecond(prepared.bytesRead + prepared.bytesWritten, us),
        replayUs);
    return rt::Status::ok();
  };
}

} // namespace

/// The tool's steps in the order they run (options, plan, inputs, device,
/// steps, check, benchmark, files written), kept in one function so that
/// the order of the refusals, which all come before anything runs or is
/// written, reads top to bottom.
int main(int argc, char **argv) {
  Options o;
  std::string error;
  bool help = false;
  // The facts of this machine's device, for a compiler elsewhere
  // (poot-compile --device-facts=FILE).
  if (argc == 2 && std::string(argv[1]).rfind("--print-device-facts=", 0) == 0) {
    rt::LiveDeviceFacts live;
    std::string kind = std::string(argv[1]).substr(21);
    if (rt::Status s = rt::queryDeviceFacts(kind, live); !s.isOk())
      return fail(s.toString());
    std::fputs(rt::formatDeviceFacts(live).c_str(), stdout);
    return 0;
  }
  if (!parseArgs(argc, argv, o, error, help))
    return fail(error);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (o.device != "cpu" && o.device != "vulkan" && o.device != "cuda" &&
      o.device != "hip")
    return fail("unknown device '" + o.device +
                "' (available: cpu, vulkan, cuda, hip)");
  if (o.hasContextParallel) {
    if (o.contextParallel < 1)
      return fail("--context-parallel must be at least 1 (the number of cpu "
                  "devices), got " +
                  std::to_string(o.contextParallel));
    if (o.contextParallel > 1024)
      return fail("--context-parallel " + std::to_string(o.contextParallel) +
                  " is past 1024 devices");
    if (o.device != "cpu")
      return fail("--context-parallel runs the plan over in-process cpu "
                  "devices: it needs --device=cpu, not " +
                  o.device);
  }
  if (o.hasCpGroup) {
    if (!o.hasContextParallel)
      return fail("--cp-group needs --context-parallel=N");
    if (o.cpGroup < 1 || o.cpGroup > o.contextParallel)
      return fail("--cp-group must be 1 to the " +
                  std::to_string(o.contextParallel) +
                  " devices of --context-parallel, got " +
                  std::to_string(o.cpGroup));
  }
  if (o.steps < 1)
    return fail("--steps must be at least 1");
  if (o.steps > (1u << 20))
    return fail("--steps " + std::to_string(o.steps) + " is past 1048576");
  if (o.resident && o.device == "cpu")
    return fail("--resident needs a GPU device (--device=vulkan, cuda or hip)");
  if (o.resident && o.benchOnly)
    return fail("--resident times the whole plan after a run; it does not "
                "combine with --bench-only");
  if (o.checkTiles && o.device == "cpu")
    return fail("--check-tiles reads a GPU kernel's tile counts: it needs "
                "--device=cuda or --device=hip");
  if (o.deviceOnly && o.device == "cpu")
    return fail("--device-only needs a GPU device (--device=vulkan, cuda or hip)");
  if (o.bench && o.device != "cuda" && o.device != "vulkan")
    return fail("--bench times a GPU device's kernels: it needs "
                "--device=cuda or --device=vulkan");
  if (o.bench > 1000000)
    return fail("--bench " + std::to_string(o.bench) + " is past 1000000");
  if (o.benchOnly && !o.bench)
    return fail("--bench-only needs --bench=N");

  rt::Plan plan;
  if (rt::Status s = rt::readPlanFile(o.plan, plan); !s.isOk()) {
    bool notPlan = s.code() == rt::ErrorCode::Malformed &&
                   s.message().find("not a poot plan file") != std::string::npos;
    return fail(s.toString() + (notPlan ? " (poot-run-plan runs compiled "
                                          "plans: poot-compile makes one "
                                          "from a graph)"
                                        : ""));
  }
  if (rt::deviceKindForTarget(plan.target) != o.device)
    return fail("plan '" + o.plan + "' is for target " + plan.target +
                ", not the " + o.device + " device" +
                (o.hasContextParallel ? " (--context-parallel runs cpu plans)"
                                      : ""));
  const rt::Graph &graph = plan.graph;

  rt::Plan refPlan;
  bool check = !o.ref.empty();
  if (check)
    if (rt::Status s = rt::readPlanFile(o.ref, refPlan); !s.isOk())
      return fail("--ref: " + s.toString());
  const rt::Graph &refGraph = refPlan.graph;

  // Bind inputs: files first, then --set, random values for the rest.
  std::map<std::string, rt::Tensor> bound;
  auto split = [](const std::string &spec, std::string &name,
                  std::string &rest) {
    size_t eq = spec.find('=');
    name = spec.substr(0, eq);
    rest = eq == std::string::npos ? "" : spec.substr(eq + 1);
    return eq != std::string::npos;
  };
  for (const std::string &spec : o.inputs) {
    std::string name, file;
    if (!split(spec, name, file) || file.empty())
      return fail("--input expects name=file.npy, got '" + spec + "'");
    int index = graph.findInput(name);
    if (index < 0)
      return fail("unknown input '" + name + "' (the graph has no such input)");
    const rt::TensorType &type = graph.values[graph.inputs[index].value];
    rt::Tensor t;
    if (rt::Status s = rt::readNpy(file, &type, t); !s.isOk())
      return fail("input '" + name + "': " + s.toString());
    bound[name] = std::move(t);
  }
  for (const std::string &spec : o.sets) {
    std::string name, list;
    if (!split(spec, name, list))
      return fail("--set expects name=v0,v1,..., got '" + spec + "'");
    int index = graph.findInput(name);
    if (index < 0)
      return fail("unknown input '" + name + "' (the graph has no such input)");
    const rt::TensorType &type = graph.values[graph.inputs[index].value];
    std::vector<double> values;
    if (rt::Status s = rt::parseValues(list, type, values); !s.isOk())
      return fail("--set " + name + ": " + s.message());
    bound[name] = rt::Tensor(type, std::move(values));
  }
  // Positions leave room for every later step's tokens.
  int64_t headroom =
      (static_cast<int64_t>(o.steps) - 1) * rt::tokensPerStep(graph);
  for (const rt::GraphInput &input : graph.inputs) {
    // --bench-only never runs the graph: its eqns' operands are synthesized
    // (the floats on the device), so no input is drawn on the host, which
    // for a large K/V cache took minutes.
    if (bound.count(input.name) || o.benchOnly)
      continue;
    if (rt::Status s = rt::randomInput(graph, input, o.seed, headroom,
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
        if (rt::Status s = rt::randomInput(refGraph, input, o.seed, headroom,
                                           bound[input.name]);
            !s.isOk())
          return fail("--ref: " + s.toString());
      }
      if (!input.state.empty())
        refState[input.name] = bound[input.name];
    }

  if (!o.quiet)
    std::printf("graph @%s: %zu eqns, %zu inputs, %zu outputs; device %s%s\n",
                graph.name.c_str(), graph.eqns.size(), graph.inputs.size(),
                graph.outputs.size(), o.device.c_str(),
                o.hasContextParallel
                    ? format(", context parallel over %lld devices",
                             static_cast<long long>(o.contextParallel))
                          .c_str()
                    : "");
  rt::ContextParallelOptions cpOptions;
  cpOptions.devices = static_cast<int>(o.contextParallel);
  cpOptions.groupSize = static_cast<int>(o.cpGroup);

  // A GPU device runs the plan's kernels; every other eqn runs in the
  // evaluator on the host.
  std::unique_ptr<rt::PlanDevice> device;
  std::unique_ptr<RecordingRunner> recorder;
  rt::EqnRunner *runner = nullptr;
  auto dispatched = [&]() -> int64_t {
    return device ? device->dispatchedEqns() : 0;
  };
  if (o.device != "cpu") {
    rt::DeviceOptions options;
    options.deviceOnly = o.deviceOnly;
    options.resident = o.resident;
    if (rt::Status s = rt::openDevice(o.device, plan, options, device);
        !s.isOk())
      return fail(o.device + ": " + s.toString());
    recorder = std::make_unique<RecordingRunner>(*device);
    // A device that runs whole graphs by default runs the recorded step
    // eqn by eqn, so that its eqns' operands are kept for the benchmark.
    recorder->stepwiseWhileRecording =
        device->runner().gpu().residentByDefault();
    runner = recorder.get();
    if (!o.quiet)
      std::printf("%s device: %s\n", o.device.c_str(),
                  device->description().c_str());
  }

  TimeEqn timer;
  if (o.bench) {
    // Refused before anything runs on a device that cannot time.
    if (rt::Status s = device->runner().gpu().timingSupport(); !s.isOk())
      return fail("--bench: " + s.toString());
    timer = deviceTimer(device->runner(), static_cast<int>(o.bench));
  }
  if (o.benchOnly) {
    synthesize(graph, *recorder, o.seed, o.benchOp);
    return bench(graph, *recorder, o.benchOp, timer);
  }

  std::map<std::string, rt::Tensor> outputs;
  bool checkFailed = false;
  for (uint64_t step = 0; step < o.steps; ++step) {
    if (recorder)
      recorder->recording =
          o.checkTiles || (o.bench && step + 1 == o.steps);
    std::map<std::string, rt::Tensor> stepOutputs;
    // --repeat-check: the step's state as it was before its first run.
    std::map<std::string, rt::Tensor> stateBefore;
    if (o.repeatCheck)
      stateBefore = state;
    auto start = std::chrono::steady_clock::now();
    rt::ContextParallelReport report;
    auto runStep = [&](std::map<std::string, rt::Tensor> &into) {
      return o.hasContextParallel
                 ? rt::runContextParallel(graph,
                                          rt::bindStep(graph, bound, state),
                                          cpOptions, into, &report)
                 : rt::evaluate(graph, rt::bindStep(graph, bound, state),
                                rt::NumericMode::Native, into, runner);
    };
    rt::Status status = runStep(stepOutputs);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (!status.isOk())
      return fail("step " + std::to_string(step) + ": " + status.toString() +
                  " (nothing written)");
    if (!o.quiet) {
      std::string line = "step " + std::to_string(step);
      for (const rt::GraphInput &input : graph.inputs)
        if (input.slot == "pos" || input.slot == "len")
          line += " " + input.name + "=" + preview(bound[input.name]);
      line += format(": ran in %.2f ms", ms);
      if (runner)
        line += " (" + std::to_string(dispatched()) + " eqns on the device)";
      if (o.hasContextParallel)
        line += format(" over %lld cpu devices",
                       static_cast<long long>(o.contextParallel));
      std::printf("%s\n", line.c_str());
      // The decisions once (they follow from the shapes), the exchanges
      // every step (the live length changes what the ring skips).
      if (o.hasContextParallel)
        std::printf("%s", step == 0 ? report.toString().c_str()
                                    : (report.exchanges() + "\n").c_str());
    }

    if (o.repeatCheck) {
      std::map<std::string, rt::Tensor> firstState = state, again;
      state = stateBefore;
      if (rt::Status s = runStep(again); !s.isOk())
        return fail("step " + std::to_string(step) + ", repeated: " +
                    s.toString() + " (nothing written)");
      std::string differs = firstDifference(stepOutputs, again);
      if (differs.empty())
        differs = firstDifference(firstState, state);
      if (!differs.empty()) {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "poot-run-plan: repeat check failed: step %llu, %s "
                     "(nothing written)\n",
                     static_cast<unsigned long long>(step), differs.c_str());
        return 2;
      }
      if (!o.quiet)
        std::printf("step %llu repeated: %zu outputs and %zu states bitwise "
                    "the same\n",
                    static_cast<unsigned long long>(step), again.size(),
                    state.size());
    }

    if (o.checkTiles &&
        !checkTileCounts(graph, *recorder, device->runner(), o.quiet))
      return 2;

    if (check) {
      std::map<std::string, rt::Tensor> refOutputs;
      rt::Status refStatus =
          rt::evaluate(refGraph, rt::bindStep(refGraph, bound, refState),
                       rt::NumericMode::Reference, refOutputs);
      if (!refStatus.isOk())
        return fail("oracle, step " + std::to_string(step) + ": " +
                    refStatus.toString() + " (nothing written)");
      std::vector<std::string> lines;
      checkFailed |= !rt::checkStep(stepOutputs, refOutputs, state, refState,
                                    o.quiet, lines, rt::narrowestFloat(refGraph));
      for (const std::string &line : lines)
        std::printf("%s\n", line.c_str());
    }
    outputs = std::move(stepOutputs);

    // Advance the decode: pos and len move on by one token per step.
    rt::advanceStep(graph, bound);
  }

  if (!o.quiet)
    for (auto &[name, t] : outputs)
      std::printf("output %s %s = %s\n", name.c_str(),
                  t.type().toString().c_str(), preview(t).c_str());
  if (checkFailed) {
    std::fflush(stdout);
    std::fprintf(stderr, "poot-run-plan: check failed: results past the "
                         "tolerance (nothing written)\n");
    return 2;
  }
  if (check && !o.quiet)
    std::printf("check passed against the oracle\n");

  if (o.bench && o.resident && device->runner().capturedLaunches() > 0) {
    // The whole plan as one recording, inputs already on the device.
    rt::PlanRunner &whole = device->runner();
    std::vector<double> us;
    if (rt::Status s = whole.timeResident(static_cast<int>(o.bench), us);
        !s.isOk())
      return fail("bench: " + s.toString());
    std::printf("bench whole plan (%lld launches, %s): replay median "
                "%.2f us\n",
                static_cast<long long>(whole.capturedLaunches()),
                whole.gpu().replaysNatively() ? "one graph" : "one submission",
                rt::medianOf(us));
  } else if (o.bench) {
    std::fflush(stdout);
    if (int rc = bench(graph, *recorder, o.benchOp, timer))
      return rc;
  }

  if (!o.outDir.empty()) {
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
    if (!makeDirectories(o.outDir, error))
      return fail(error);
    if (rt::Status s = rt::writeNpyFiles(o.outDir, files); !s.isOk())
      return fail(s.toString());
  }
  std::fflush(stdout);
  return 0;
}
