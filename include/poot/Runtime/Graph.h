//===- Graph.h - Eqn records: a poot graph without MLIR ---------*- C++ -*-===//
//
// The runtime and the reference evaluator work on these records, never on MLIR
// objects. The compiler turns a poot graph at any stage (primitive or fused)
// into a Graph, so one implementation of each op's semantics serves the
// oracle, the CPU device and the tests, and runs where LLVM does not.
//
// An Eqn names its op by the poot dialect mnemonic ("matmul", "reduce_max",
// "dynamic_update_slice") and refers to values by index into Graph::values.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_GRAPH_H
#define POOT_RUNTIME_GRAPH_H

#include "poot/Runtime/Tensor.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace poot::rt {

/// An op attribute: an integer, a float, a string, an integer list, a float
/// list, or a tensor (the payload of poot.constant).
struct Attr {
  enum class Kind { Int, Float, String, Ints, Floats, Tensor } kind = Kind::Int;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  Tensor tensor;

  static Attr ofInt(int64_t v);
  static Attr ofFloat(double v);
  static Attr ofString(std::string v);
  static Attr ofInts(std::vector<int64_t> v);
  static Attr ofFloats(std::vector<double> v);
  static Attr ofTensor(Tensor v);
};

/// One primitive or fused op application.
struct Eqn {
  std::string op;
  std::vector<int> operands; ///< indices into Graph::values
  std::vector<int> results;  ///< indices into Graph::values
  std::map<std::string, Attr> attrs;
  std::string location; ///< "file:line:col" of the op, for error messages

  const Attr *attr(const std::string &name) const;
  /// Whether result 0 takes operand 0's storage: a cache write the planner
  /// marked poot.in_place (its device kernel writes only the new elements).
  bool writesInPlace() const;
};

/// A graph input: a plain input, a slot, or the incoming half of a state pair.
struct GraphInput {
  int value = -1;
  std::string name;                 ///< binding name (unique among inputs)
  std::string slot; ///< "pos", "len", "slot_map", "write_map", "adapter" or empty
  std::optional<std::pair<int64_t, int64_t>> range; ///< declared [lo, hi)
  std::string state;                ///< state name, or empty
};

/// A graph output: a plain output, the outgoing half of a state pair, or a
/// validation witness.
struct GraphOutput {
  int value = -1;
  std::string name;
  std::string state;       ///< state name, or empty
  bool validation = false; ///< an i1 witness; false fails the run
};

struct Graph {
  std::string name;
  std::vector<TensorType> values;
  std::vector<GraphInput> inputs;
  std::vector<GraphOutput> outputs;
  std::vector<Eqn> eqns;

  /// Index into `inputs` of the input called `name`, or -1.
  int findInput(const std::string &name) const;
  /// Index into `outputs` of the output called `name`, or -1.
  int findOutput(const std::string &name) const;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_GRAPH_H
