//===- BufferPlan.cpp - One arena with lifetime colouring -----------------===//

#include "poot/Plan/BufferPlan.h"

#include <algorithm>
#include <numeric>

using namespace poot;

static int64_t alignUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

ArenaPlan poot::planArena(const std::vector<BufferRequest> &requests,
                          int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return requests[a].bytes > requests[b].bytes;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferRequest &r = requests[i];
    int64_t size = alignUp(std::max<int64_t>(r.bytes, 1), alignment);
    // The placed buffers alive at the same time, by offset.
    std::vector<size_t> clash;
    for (size_t j : placed)
      if (requests[j].first <= r.last && r.first <= requests[j].last)
        clash.push_back(j);
    std::sort(clash.begin(), clash.end(), [&](size_t a, size_t b) {
      return plan.offsets[a] < plan.offsets[b];
    });
    int64_t offset = 0;
    for (size_t j : clash) {
      int64_t jEnd = plan.offsets[j] +
                     alignUp(std::max<int64_t>(requests[j].bytes, 1), alignment);
      if (offset + size <= plan.offsets[j])
        break;
      offset = std::max(offset, jEnd);
    }
    plan.offsets[i] = offset;
    plan.bytes = std::max(plan.bytes, offset + size);
    placed.push_back(i);
  }
  return plan;
}

std::vector<BufferRequest> poot::graphBuffers(const rt::Graph &graph) {
  int64_t n = static_cast<int64_t>(graph.eqns.size());
  std::vector<int64_t> def(graph.values.size(), -1), last(graph.values.size(), -1);
  for (int64_t e = 0; e < n; ++e) {
    for (int v : graph.eqns[e].operands)
      last[v] = std::max(last[v], e);
    for (int v : graph.eqns[e].results)
      def[v] = e;
  }
  std::vector<bool> exported(graph.values.size(), false);
  for (const rt::GraphOutput &o : graph.outputs)
    exported[o.value] = true;

  std::vector<BufferRequest> out;
  for (int64_t e = 0; e < n; ++e) {
    const rt::Eqn &eqn = graph.eqns[e];
    // An in-place cache write's result lives in its operand (a graph
    // input, which has a buffer of its own).
    for (int v : eqn.results) {
      if (exported[v] || (eqn.writesInPlace() && v == eqn.results[0]))
        continue;
      const rt::TensorType &t = graph.values[v];
      out.push_back({"%" + std::to_string(v),
                     rt::numElements(t.shape) * rt::dtypeBytes(t.dtype), e,
                     std::max(e, last[v]), v});
    }
    if (const rt::Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
        scratch && scratch->i > 0)
      out.push_back({"scratch@" + std::to_string(e), scratch->i, e, e, -1});
  }
  return out;
}
