//===- ContextParallel.h - One plan over several devices --------*- C++ -*-===//
//
// Context parallelism: a plan runs on N devices at once and every
// poot.attention's keys are split across them, so a context larger than
// one device (a long prompt, a large KV cache) is served by all of them.
// The split is chosen per attention from its shape and the device count
// (planContextSplits, printed by describe()):
//
//   - split-kv (decode, and any attention the ring cannot take): device d
//     attends all query rows to its shard of the keys, keys
//     [d Lk / N, (d + 1) Lk / N), and the partial (m, l, acc) meet in a
//     reduce to the root by log-sum-exp in two levels: each group of
//     `groupSize` devices folds into its first device, then the groups'
//     first devices fold into device 0.
//   - ring (prefill: at least `ringMinRows` query rows, a dense key): device
//     d holds query rows [d Lq / N, ..) and key block d; for N steps it
//     folds the key block it holds into its rows' running (m, l, acc) and
//     passes the block on to device d + 1, skipping the fold of a block the
//     causal mask (or the live length) hides from all its rows. The rows
//     then gather at device 0.
//   - replicated (one device): every device runs the attention whole.
//
// Every other eqn runs on every device (replicated), each on its own copy of
// the state. The result of an attention is needed at device 0 only, unless a
// later eqn, a state or a validation output reads it: then device 0 sends it
// back to every device.
//
// runContextParallel runs the plan over N cpu devices in threads of this
// process, joined by the in-process communicator (Comm.h). A failure on any
// device aborts the group; every device then fails, and nothing is
// published on any: the devices agree (an all-gather of a flag) before
// device 0 publishes its outputs and its state.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_CONTEXTPARALLEL_H
#define POOT_RUNTIME_CONTEXTPARALLEL_H

#include "poot/Runtime/Evaluator.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace poot::rt {

enum class ContextSplit { Replicated, SplitKv, Ring };

/// "replicated", "split-kv", "ring".
const char *contextSplitName(ContextSplit split);

struct ContextParallelOptions {
  int devices = 2;
  /// Devices a group in the two-level reduce (those that share a fast link,
  /// a node's GPUs); 0 takes ceil(sqrt(devices)).
  int groupSize = 0;
  /// An attention of at least this many query rows over a dense key takes
  /// the ring; fewer rows (decode) split the keys.
  int64_t ringMinRows = 17;
  /// Native: each device computes in f32 and exchanges f32 (f64 for f64
  /// values); Reference: f64 throughout.
  NumericMode mode = NumericMode::Native;
  /// How long a device waits for a peer's message before the run fails
  /// with a timeout (a device that is stuck rather than failed); 0 waits
  /// for ever.
  int64_t timeoutMs = 120000;
  /// Test hook, called on each device at each stage of each split attention
  /// ("shard" before its share is computed, "exchange" before its first
  /// send, "combine" after its last receive): a failure fails that device
  /// there.
  std::function<Status(int device, const std::string &stage)> inject;
};

/// The decision for one attention eqn.
struct AttentionSplit {
  size_t eqn = 0;
  std::string location;
  ContextSplit form = ContextSplit::Replicated;
  int devices = 1;
  int groupSize = 1;
  int64_t b = 0, hq = 0, hkv = 0, lq = 0, lk = 0, dv = 0;
  /// Per device: its keys (split-kv: its shard; ring: the block it starts
  /// with) and its query rows (ring; split-kv: every row).
  std::vector<std::pair<int64_t, int64_t>> keys, rows;
  std::string reason;
  /// One line: "attention at LOC [B=1, H=8/2, Lq=1, Lk=32, Dv=64]:
  /// split-kv over 4 devices (WHY); key shards [0,8) [8,16) ..; reduce to
  /// device 0 by log-sum-exp: 2 groups of up to 2 (..)", or for the ring
  /// "..: ring over 4 devices (WHY); query rows ..; key blocks .. rotated
  /// over 4 steps, causal skip".
  std::string describe() const;
};

/// The form an attention of `lq` query rows over `lk` keys takes on
/// `devices` devices (`denseKey`: no read map and no k_shared part).
ContextSplit chooseContextSplit(int64_t lq, int64_t lk, bool denseKey,
                                int devices, int64_t ringMinRows,
                                std::string *reason = nullptr);

/// The decisions for every attention of `graph` (from its value types).
Status planContextSplits(const Graph &graph,
                         const ContextParallelOptions &options,
                         std::vector<AttentionSplit> &out);

struct ContextParallelReport {
  std::vector<AttentionSplit> splits;
  int64_t bytesSent = 0;          ///< by all devices, one run
  int64_t messages = 0;           ///< sends (a ring step's counts one)
  int64_t ringFolds = 0;          ///< key blocks folded
  int64_t ringSkipped = 0;        ///< key blocks the mask or length hid
  int64_t emptyShards = 0;        ///< split-kv shards past the live length
  /// The decisions, one line each, then the exchange counts.
  std::string toString() const;
  /// The exchange counts alone, one line without its newline:
  /// "exchanges: M messages, B bytes; ring blocks folded F, skipped S;
  /// split-kv shards past the live length E".
  std::string exchanges() const;
};

/// Runs `graph` over options.devices cpu devices in threads (above). On
/// success `outputs` and the state buffers hold device 0's results; on
/// failure nothing is touched, and the Status is the failing device's own
/// ("device 2: ..."), not its peers' consequences.
Status runContextParallel(const Graph &graph, const Bindings &bindings,
                          const ContextParallelOptions &options,
                          std::map<std::string, Tensor> &outputs,
                          ContextParallelReport *report = nullptr);

} // namespace poot::rt

#endif // POOT_RUNTIME_CONTEXTPARALLEL_H
