//===- Graph.cpp - Eqn records: a poot graph without MLIR -----------------===//
//
// Attribute constructors and name lookups for the eqn records the evaluator
// and the devices consume. The records are plain data; all checking of their
// consistency happens where they are evaluated.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Graph.h"

namespace poot::rt {

Attr Attr::ofInt(int64_t v) {
  Attr a;
  a.kind = Kind::Int;
  a.i = v;
  return a;
}

Attr Attr::ofFloat(double v) {
  Attr a;
  a.kind = Kind::Float;
  a.f = v;
  return a;
}

Attr Attr::ofString(std::string v) {
  Attr a;
  a.kind = Kind::String;
  a.s = std::move(v);
  return a;
}

Attr Attr::ofInts(std::vector<int64_t> v) {
  Attr a;
  a.kind = Kind::Ints;
  a.ints = std::move(v);
  return a;
}

Attr Attr::ofFloats(std::vector<double> v) {
  Attr a;
  a.kind = Kind::Floats;
  a.floats = std::move(v);
  return a;
}

Attr Attr::ofTensor(Tensor v) {
  Attr a;
  a.kind = Kind::Tensor;
  a.tensor = std::move(v);
  return a;
}

const Attr *Eqn::attr(const std::string &name) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

bool Eqn::writesInPlace() const {
  return (op == "dynamic_update_slice" || op == "scatter_update") &&
         attr("poot.in_place") != nullptr && !operands.empty() &&
         !results.empty();
}

int Graph::findInput(const std::string &name) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int Graph::findOutput(const std::string &name) const {
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

} // namespace poot::rt
