//===- Steps.cpp - One decode step: bind, compare, advance ----------------===//

#include "poot/Runtime/Steps.h"

#include "poot/Runtime/Check.h"

#include <cerrno>
#include <cstdlib>

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
                         bool quiet, std::vector<std::string> &lines,
                         std::optional<DType> roundsThrough) {
  bool ok = true;
  auto compare = [&](const std::string &name, const Tensor &got,
                     const Tensor &want) {
    Tolerance tol = toleranceFor(got.dtype());
    if (roundsThrough && isFloat(got.dtype())) {
      Tolerance narrow = toleranceFor(*roundsThrough);
      tol.atol = std::max(tol.atol, narrow.atol);
      tol.rtol = std::max(tol.rtol, narrow.rtol);
    }
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

std::optional<DType> poot::rt::narrowestFloat(const Graph &graph) {
  auto rank = [](DType t) {
    switch (t) {
    case DType::BF16:
      return 0;
    case DType::F16:
      return 1;
    case DType::F32:
      return 2;
    case DType::F64:
      return 3;
    default:
      return 4;
    }
  };
  std::optional<DType> best;
  for (const TensorType &t : graph.values)
    if (rank(t.dtype) < 4 && (!best || rank(t.dtype) < rank(*best)))
      best = t.dtype;
  return best;
}

int64_t poot::rt::tokensPerStep(const Graph &graph) {
  // A fixed cache: the rows a cache write puts into a state buffer, along
  // the one axis where the update is shorter than the cache.
  std::vector<bool> isState(graph.values.size(), false);
  const GraphInput *slotMap = nullptr, *writeMap = nullptr;
  for (const GraphInput &input : graph.inputs) {
    if (!input.state.empty() && input.value >= 0 &&
        input.value < static_cast<int>(isState.size()))
      isState[input.value] = true;
    if (input.slot == "slot_map")
      slotMap = &input;
    if (input.slot == "write_map")
      writeMap = &input;
  }
  for (const Eqn &eqn : graph.eqns) {
    if (eqn.op != "dynamic_update_slice" || eqn.operands.size() < 2 ||
        !isState[eqn.operands[0]])
      continue;
    const std::vector<int64_t> &cache = graph.values[eqn.operands[0]].shape;
    const std::vector<int64_t> &update = graph.values[eqn.operands[1]].shape;
    if (cache.size() != update.size())
      continue;
    int64_t tokens = 0, differing = 0;
    for (size_t a = 0; a < cache.size(); ++a)
      if (update[a] != cache[a]) {
        ++differing;
        tokens = update[a];
      }
    if (differing == 1 && tokens > 0)
      return tokens;
  }
  // A paged pool: the write map names rows * tokens slots.
  if (slotMap && writeMap) {
    const std::vector<int64_t> &rows = graph.values[slotMap->value].shape;
    int64_t slots = numElements(graph.values[writeMap->value].shape);
    if (!rows.empty() && rows[0] > 0 && slots > 0 && slots % rows[0] == 0)
      return slots / rows[0];
  }
  return 1;
}

void poot::rt::advanceStep(const Graph &graph, TensorMap &inputs) {
  int64_t tokens = tokensPerStep(graph);
  for (const GraphInput &input : graph.inputs)
    if (input.slot == "pos" || input.slot == "len")
      for (double &v : inputs[input.name].values())
        v += static_cast<double>(tokens);
}

namespace {

/// Parses one token of an inline binding as a value of `dtype`; false with
/// `why` set when it is not one.
bool parseValue(const std::string &token, DType dtype, double &value,
                std::string &why) {
  why = "'" + token + "' is not a number";
  if (token.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  if (isFloat(dtype)) {
    // Past the float range is inf, below it zero: both what the dtype
    // holds, so ERANGE is not an error here.
    double v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size())
      return false;
    value = roundTo(dtype, v);
    return true;
  }
  // Integers: an optional sign and decimal digits, nothing else.
  size_t digits = token[0] == '-' || token[0] == '+' ? 1 : 0;
  if (digits == token.size() ||
      token.find_first_not_of("0123456789", digits) != std::string::npos) {
    why = "'" + token + "' is not an integer (the input is " +
          dtypeName(dtype) + ")";
    return false;
  }
  long long v = std::strtoll(token.c_str(), &end, 10);
  int64_t lo = dtype == DType::I32   ? INT32_MIN
               : dtype == DType::I1  ? 0
                                     : -(int64_t(1) << 53);
  int64_t hi = dtype == DType::I32   ? INT32_MAX
               : dtype == DType::I1  ? 1
                                     : int64_t(1) << 53;
  if (errno == ERANGE || end != token.c_str() + token.size() || v < lo ||
      v > hi) {
    why = "'" + token + "' is outside " + dtypeName(dtype) + " (" +
          std::to_string(lo) + " to " + std::to_string(hi) + ")";
    return false;
  }
  value = static_cast<double>(v);
  return true;
}

} // namespace

Status poot::rt::parseValues(const std::string &list, const TensorType &type,
                             std::vector<double> &values) {
  values.clear();
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string part = list.substr(start, comma == std::string::npos
                                              ? std::string::npos
                                              : comma - start);
    size_t b = part.find_first_not_of(" \t");
    size_t e = part.find_last_not_of(" \t");
    part = b == std::string::npos ? "" : part.substr(b, e - b + 1);
    double v;
    std::string why;
    if (!parseValue(part, type.dtype, v, why))
      return Status(ErrorCode::InvalidArgument, why);
    values.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int64_t want = numElements(type.shape);
  if (static_cast<int64_t>(values.size()) != want)
    return Status(ErrorCode::InvalidArgument,
                  "expected " + std::to_string(want) + " values for " +
                      type.toString() + ", got " +
                      std::to_string(values.size()));
  return Status::ok();
}
