//===- Steps.h - One decode step: bind, compare, advance --------*- C++ -*-===//
//
// What every runner of a decode loop does around evaluate(): bind the
// current inputs and state buffers, compare a step's outputs and state with
// the oracle's, and move the position slots on by the step's tokens. Shared by
// poot-run (with LLVM) and poot-run-plan (without).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_STEPS_H
#define POOT_RUNTIME_STEPS_H

#include "poot/Runtime/Evaluator.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace poot::rt {

using TensorMap = std::map<std::string, Tensor>;

/// Points bindings at `inputs` and at the state buffers in `state` (created
/// there, by input name, when missing).
Bindings bindStep(const Graph &graph, const TensorMap &inputs,
                  TensorMap &state);

/// Compares each output and state buffer present in both runs with the
/// tolerance of its dtype, or of `roundsThrough` where that is looser: the
/// narrowest float type the reference graph stores a value in (an f32
/// result computed through an f16 cache is as close to the f64 oracle as
/// f16 allows, since the oracle rounds nothing). Appends one "  check NAME
/// TYPE: ..." line per comparison to `lines` (only the failing ones when
/// `quiet`); returns whether all passed.
bool checkStep(const TensorMap &outputs, const TensorMap &refOutputs,
               const TensorMap &state, const TensorMap &refState, bool quiet,
               std::vector<std::string> &lines,
               std::optional<DType> roundsThrough = std::nullopt);

/// The narrowest float type of any value of `graph` (bf16 before f16 before
/// f32 before f64), or nothing in a graph of no float value.
std::optional<DType> narrowestFloat(const Graph &graph);

/// The new tokens one step of `graph` writes per row: the rows a cache
/// write adds to a state buffer (fixed caches), or the write map's slots
/// per row (paged pools); 1 when the graph shows neither.
int64_t tokensPerStep(const Graph &graph);

/// Moves every `pos` and `len` slot input on by the step's tokens
/// (tokensPerStep), so the next step writes after this one's rows.
void advanceStep(const Graph &graph, TensorMap &inputs);

/// Parses an inline binding "v0,v1,..." (what --set gives) into exactly as
/// many values as `type` has elements, row-major. Each value is a whole
/// token: for a float dtype a number (nan and inf included), rounded to the
/// dtype; for an integer dtype a decimal integer inside the dtype (i32's
/// range, i64's up to 2^53 where a double is exact, 0 or 1 for i1), so
/// "2.5", "nan", "1e10" or "7x" are refused rather than rounded or wrapped.
/// InvalidArgument naming the value otherwise.
Status parseValues(const std::string &list, const TensorType &type,
                   std::vector<double> &values);

} // namespace poot::rt

#endif // POOT_RUNTIME_STEPS_H
