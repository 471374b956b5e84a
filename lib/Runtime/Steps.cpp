//===- Steps.cpp - One decode step: bind, compare, advance ----------------===//

#include "poot/Runtime/Steps.h"

#include "poot/Runtime/Check.h"

using namespace poot::rt;

Bindings poot::rt::bindStep(const Graph &graph, const TensorMap &inputs,
                            TensorMap &state) {
  Bindings b;
  for (const GraphInput &input : graph.inputs) {
    if (!input.state.empty())
      b.state[input.name] = &state[input.name];
    else if (auto it = inputs.find(input.name); it != inputs.end())
      b.inputs[input.name] = &it->second;
  }
  return b;
}

bool poot::rt::checkStep(const TensorMap &outputs, const TensorMap &refOutputs,
                         const TensorMap &state, const TensorMap &refState,
                         bool quiet, std::vector<std::string> &lines) {
  bool ok = true;
  auto compare = [&](const std::string &name, const Tensor &got,
                     const Tensor &want) {
    Tolerance tol = toleranceFor(got.dtype());
    Comparison c = compareTensors(got, want, tol);
    if (!quiet || !c.ok())
      lines.push_back("  check " + name + " " + got.type().toString() + ": " +
                      c.summary(want, tol) + (c.ok() ? "" : "  FAIL"));
    ok &= c.ok();
  };
  for (const auto &[name, got] : outputs)
    if (auto it = refOutputs.find(name); it != refOutputs.end())
      compare(name, got, it->second);
  for (const auto &[name, got] : state)
    if (auto it = refState.find(name); it != refState.end())
      compare(name + " (state)", got, it->second);
  return ok;
}

void poot::rt::advanceStep(const Graph &graph, TensorMap &inputs) {
  for (const GraphInput &input : graph.inputs)
    if (input.slot == "pos" || input.slot == "len")
      for (double &v : inputs[input.name].values())
        v += 1;
}
