//===- CAPIFuzzer.cpp - libFuzzer target: the C API's load-bind-run path --===//
//
// Parses the input as a plan from memory (its body under a matching
// checksum, as the plan target does), wraps it in a poot_plan, opens a cpu
// session and binds every input with the byte count the plan's own
// description gives (poot_plan_input): seeded values that respect the
// declared ranges, or, for one input in four, zero bytes (a write map naming
// one slot twice, a position at the range's edge). Then poot_run, and the
// C API's contract is checked: after a failure the message names the status,
// no output can be read and every state buffer is byte-identical; after a
// success every output that is not state reads with its declared byte
// count. Plans whose arena, inputs or values pass a few MB are skipped, to
// keep each run tiny.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "poot/Runtime/RandomInputs.h"
#include "poot/poot.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace poot::rt;

namespace {

constexpr int64_t kMaxArenaBytes = int64_t(4) << 20;
constexpr int64_t kMaxInputBytes = int64_t(4) << 20;
/// Every value is held as doubles while the evaluator runs: 8 MB.
constexpr int64_t kMaxValueElements = int64_t(1) << 20;

uint64_t fnv1a(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string withChecksum(const std::string &text) {
  std::string body = text;
  if (looksLikePlan(text)) {
    size_t nl1 = text.find('\n');
    size_t nl2 = nl1 == std::string::npos ? nl1 : text.find('\n', nl1 + 1);
    body = nl2 == std::string::npos ? std::string() : text.substr(nl2 + 1);
  }
  char head[64];
  std::snprintf(
      head, sizeof(head), "poot-plan %d\nchecksum %016llx\n", kPlanVersion,
      static_cast<unsigned long long>(fnv1a(
          reinterpret_cast<const uint8_t *>(body.data()), body.size())));
  return head + body;
}

[[noreturn]] void broken(const std::string &what) {
  std::fprintf(stderr, "C API contract broken: %s (last error: '%s')\n",
               what.c_str(), poot_last_error());
  std::abort();
}

bool small(const Plan &plan) {
  if (plan.arenaBytes < 0 || plan.arenaBytes > kMaxArenaBytes)
    return false;
  int64_t elements = 0, inputBytes = 0;
  for (const TensorType &t : plan.graph.values) {
    int64_t n = numElements(t.shape);
    if (n < 0 || n > kMaxValueElements - elements)
      return false;
    elements += n;
  }
  for (const GraphInput &in : plan.graph.inputs) {
    if (in.value < 0 ||
        in.value >= static_cast<int>(plan.graph.values.size()))
      return false;
    int64_t bytes = storageBytes(plan.graph.values[in.value]);
    if (bytes < 0 || bytes > kMaxInputBytes - inputBytes)
      return false;
    inputBytes += bytes;
  }
  return true;
}

int64_t bytesOf(poot_dtype dtype, const std::vector<int64_t> &dims) {
  static const int64_t kBytes[] = {4, 2, 2, 8, 4, 8, 1};
  int64_t n = kBytes[dtype];
  for (int64_t d : dims)
    n *= d;
  return n;
}

bool failedCleanly(poot_status st) {
  std::string message = poot_last_error();
  std::string prefix = std::string(poot_status_name(st)) + ": ";
  return st != POOT_OK && message.compare(0, prefix.size(), prefix) == 0 &&
         message.size() > prefix.size();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto plan = std::make_shared<Plan>();
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!parsePlan(withChecksum(text), *plan).isOk() || !small(*plan))
    return 0;
  poot_plan handle{plan};
  poot_session *session = nullptr;
  poot_status st = poot_session_create(&handle, "cpu", &session);
  if (plan->target != "cpu") {
    if (st == POOT_OK || !failedCleanly(st))
      broken("a " + plan->target + " plan opened on the cpu device");
    poot_session_free(session);
    return 0;
  }
  if (st != POOT_OK)
    broken("a cpu plan did not open on the cpu device");

  uint64_t seed = fnv1a(data, size);
  const Graph &g = plan->graph;
  std::vector<std::vector<uint8_t>> state(g.inputs.size());
  std::vector<std::vector<uint8_t>> before(g.inputs.size());
  bool bound = true;
  for (int i = 0; i < poot_plan_num_inputs(&handle); ++i) {
    const char *name = nullptr;
    poot_dtype dtype;
    int rank = 0, isState = 0;
    if (poot_plan_input(&handle, i, &name, &dtype, &rank, nullptr, 0,
                        &isState) != POOT_OK)
      broken("no description of input " + std::to_string(i));
    std::vector<int64_t> dims(rank);
    if (poot_plan_input(&handle, i, &name, &dtype, &rank, dims.data(), rank,
                        &isState) != POOT_OK)
      broken("no dims of input " + std::to_string(i));
    std::vector<uint8_t> bytes(static_cast<size_t>(bytesOf(dtype, dims)));
    if (((seed >> (2 * (i % 32))) & 3) != 0) {
      Tensor t;
      if (!randomInput(g, g.inputs[i], seed + i, 0, t).isOk())
        broken("no seeded value for input '" + std::string(name) + "'");
      encodeStorage(t, bytes.data());
    }
    if (isState) {
      state[i] = bytes;
      before[i] = bytes;
      st = poot_bind_state(session, name, state[i].data(), state[i].size());
    } else {
      st = poot_bind_input(session, name, bytes.data(), bytes.size());
    }
    // Binding by the plan's own description succeeds, unless the name is
    // one the plan also declares as the other kind.
    if (st != POOT_OK) {
      if (!failedCleanly(st))
        broken("a refused binding without a proper message");
      bound = false;
    }
  }

  st = poot_run(session);
  if (st == POOT_OK) {
    if (!bound)
      broken("a run succeeded with an input left unbound");
    if (std::strcmp(poot_last_error(), "") != 0)
      broken("a message left after a success");
    for (int o = 0; o < poot_plan_num_outputs(&handle); ++o) {
      const char *name = nullptr;
      poot_dtype dtype;
      int rank = 0, isState = 0;
      poot_plan_output(&handle, o, &name, &dtype, &rank, nullptr, 0, &isState);
      // A state output is the caller's buffer, updated in place.
      if (isState)
        continue;
      std::vector<int64_t> dims(rank);
      poot_plan_output(&handle, o, &name, &dtype, &rank, dims.data(), rank,
                       nullptr);
      std::vector<uint8_t> out(static_cast<size_t>(bytesOf(dtype, dims)) + 1);
      if (poot_read_output(session, name, out.data(), out.size() - 1) !=
          POOT_OK)
        broken("output '" + std::string(name) + "' does not read");
    }
  } else {
    if (!failedCleanly(st))
      broken("a failed run without a proper message");
    for (size_t i = 0; i < state.size(); ++i)
      if (state[i] != before[i])
        broken("a failed run changed state '" + g.inputs[i].name + "'");
    for (const GraphOutput &out : g.outputs) {
      uint8_t byte;
      if (poot_read_output(session, out.name.c_str(), &byte, 1) !=
          POOT_ERR_UNKNOWN_NAME)
        broken("output '" + out.name + "' readable after a failed run");
    }
  }
  poot_session_free(session);
  return 0;
}
