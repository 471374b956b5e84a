//===- HandGraph.h - Graph records built by hand, for the op tests -*- C++ -*-===//
//
// What the fused-op and sparse-op tests share: a builder of Graph records,
// seeded random tensors (never zero), and an elementwise comparison that
// names the first mismatch.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_TEST_UNIT_HANDGRAPH_H
#define POOT_TEST_UNIT_HANDGRAPH_H

#include "poot/Runtime/Check.h"
#include "poot/Runtime/Evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace poot::rt::handgraph {

inline const double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

using Attrs = std::map<std::string, Attr>;

inline TensorType TT(DType dtype, Shape shape) {
  return TensorType{dtype, std::move(shape)};
}

/// Builds Graph records by hand.
struct GraphBuilder {
  Graph g;

  int value(TensorType type) {
    g.values.push_back(std::move(type));
    return static_cast<int>(g.values.size()) - 1;
  }
  int input(const std::string &name, TensorType type) {
    int v = value(std::move(type));
    g.inputs.push_back(GraphInput{v, name, "", std::nullopt, ""});
    return v;
  }
  /// An eqn with one result per type; returns the results.
  std::vector<int> eqnN(const std::string &op, std::vector<int> operands,
                        std::vector<TensorType> types, Attrs attrs = {}) {
    Eqn e;
    e.op = op;
    e.operands = std::move(operands);
    for (TensorType &t : types)
      e.results.push_back(value(std::move(t)));
    e.attrs = std::move(attrs);
    e.location = "chain.mlir:" + std::to_string(g.eqns.size() + 1) + ":5";
    g.eqns.push_back(std::move(e));
    return g.eqns.back().results;
  }
  int eqn(const std::string &op, std::vector<int> operands, TensorType type,
          Attrs attrs = {}) {
    return eqnN(op, std::move(operands), {std::move(type)}, std::move(attrs))
        .front();
  }
  int constant(DType dtype, Shape shape, std::vector<double> values) {
    Shape payloadShape = values.size() == 1 ? Shape{} : shape;
    Tensor payload(TT(DType::F64, payloadShape), std::move(values));
    return eqn("constant", {}, TT(dtype, std::move(shape)),
               {{"value", Attr::ofTensor(std::move(payload))}});
  }
  void output(const std::string &name, int v) {
    g.outputs.push_back(GraphOutput{v, name, "", false});
  }
};

/// Uniform in [-1, 1), rounded to `dtype`, never zero.
inline Tensor randomTensor(std::mt19937_64 &rng, DType dtype, Shape shape) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Tensor t(TT(dtype, std::move(shape)));
  for (double &v : t.values()) {
    v = 0.0;
    while (v == 0.0)
      v = roundTo(dtype, dist(rng));
  }
  return t;
}

inline int64_t countNaN(const Tensor &t) {
  return std::count_if(t.values().begin(), t.values().end(),
                       [](double v) { return std::isnan(v); });
}

/// Checks `got` against `want` elementwise (NaN must match NaN in place).
inline void expectClose(const Tensor &got, const Tensor &want, Tolerance tol,
                        const std::string &what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  Comparison c = compareTensors(got, want, tol);
  EXPECT_TRUE(c.ok()) << what << ": " << c.summary(want, tol)
                      << (c.firstMismatch >= 0
                              ? ", first at " +
                                    std::to_string(c.firstMismatch) + ": " +
                                    std::to_string(got.at(c.firstMismatch)) +
                                    " vs " +
                                    std::to_string(want.at(c.firstMismatch))
                              : std::string());
}

} // namespace poot::rt::handgraph

#endif // POOT_TEST_UNIT_HANDGRAPH_H
