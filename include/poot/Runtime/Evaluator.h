//===- Evaluator.h - The reference evaluator (the oracle) -------*- C++ -*-===//
//
// Evaluates a Graph of eqn records exactly per op semantics on the host.
//
// Two numeric modes:
//  - Native: each op computes in f32 (f64 for f64 values) and rounds its
//    results to the value's dtype, so f16/bf16 rounding is emulated op by op;
//    sums (reduce_sum, matmul) accumulate in f32 in index order.
//  - Reference: every float op computes and accumulates in f64 and nothing is
//    rounded; this is the oracle other results are compared against.
//
// A run either succeeds and publishes everything (outputs written, state
// buffers updated in place) or fails with a typed Status and publishes
// nothing.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_EVALUATOR_H
#define POOT_RUNTIME_EVALUATOR_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <map>
#include <string>

namespace poot::rt {

enum class NumericMode { Native, Reference };

/// What a run reads and writes. Inputs are looked up by GraphInput::name.
/// For a state pair, the caller binds the state buffer under the input's name
/// in `state`; on success it is overwritten in place with the outgoing value.
struct Bindings {
  std::map<std::string, const Tensor *> inputs;
  std::map<std::string, Tensor *> state;
};

/// Checks every input: bound exactly once, known name, dtype and shape as
/// declared, integer values inside a declared poot.range. Runs nothing.
Status checkBindings(const Graph &graph, const Bindings &bindings);

/// Evaluates `graph`. On success fills `outputs` (by GraphOutput::name; state
/// outputs are not repeated there) and updates the state buffers. On failure
/// neither `outputs` nor any state buffer is touched.
Status evaluate(const Graph &graph, const Bindings &bindings,
                NumericMode mode, std::map<std::string, Tensor> &outputs);

/// A device that runs some eqns itself (the generated kernels) and leaves the
/// rest to the evaluator.
class EqnRunner {
public:
  virtual ~EqnRunner();
  /// Sets `claimed` and fills `results` when it runs `eqn`; leaves
  /// `claimed` false to let the evaluator run it.
  virtual Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     std::vector<Tensor> &results, bool &claimed) = 0;
  /// Offered the whole graph first, after the bindings are checked and the
  /// inputs copied into `values`: a device that runs every eqn itself sets
  /// `ran` and defines (at least) every output's value. The default
  /// declines, and the eqns are offered one at a time.
  virtual Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                          std::vector<bool> &defined, bool &ran);
  /// Whether the runner keeps state input `inputName` itself (a device
  /// buffer that stays on the device from run to run). The evaluator then
  /// neither needs, reads nor writes a host binding for it, and refuses a
  /// run the runner does not run whole.
  virtual bool holdsState(const std::string &inputName) const;
};

/// evaluate(), with `runner` offered every eqn first. The run contract is
/// the same: checked bindings, validation witnesses, nothing published on
/// failure.
Status evaluate(const Graph &graph, const Bindings &bindings,
                NumericMode mode, std::map<std::string, Tensor> &outputs,
                EqnRunner *runner);

/// Evaluates one eqn on its operand tensors (used by evaluate and by tests).
Status evaluateEqn(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                   const std::vector<TensorType> &resultTypes, NumericMode mode,
                   std::vector<Tensor> &results);

} // namespace poot::rt

#endif // POOT_RUNTIME_EVALUATOR_H
