//===- DeviceEqn.h - What the GPU runners share about an eqn ----*- C++ -*-===//
//
// The launch records a plan carries on an eqn (`poot.launches.N.*`), the
// storage an eqn's tensors take on a device (i1 as one i32 word per
// element), and the error word the simple kernels write. Private to the
// runtime.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_DEVICEEQN_H
#define POOT_RUNTIME_DEVICEEQN_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <optional>
#include <string>
#include <vector>

namespace poot::rt::device {

/// One launch of an eqn, as the plan records it.
struct LaunchRecord {
  std::string kernel;
  int64_t gridX = 1, gridY = 1, lanes = 1;
  int64_t shared = 0; ///< dynamic workgroup memory, bytes
  std::vector<std::string> roles; ///< buffer of each kernel argument
};

/// Whether the plan gave `eqn` kernels (attention or any other op).
bool hasLaunches(const Eqn &eqn);
/// Reads the launches of `eqn`; InvalidArgument when one is incomplete.
Status readLaunches(const Eqn &eqn, std::vector<LaunchRecord> &out);
/// Whether some launch of `eqn` binds the error word.
bool usesErrorWord(const std::vector<LaunchRecord> &launches);

/// The type a tensor takes in device storage: i1 travels as i32.
TensorType deviceType(const TensorType &type);
/// Bytes of `type` on the device (at least 4: an empty tensor still binds).
int64_t deviceBytes(const TensorType &type);
/// Encodes `t` as device storage (i64 narrowed to i32 when `narrowI64`,
/// refusing values that do not fit: attention positions and lengths).
Status encodeForDevice(const Tensor &t, std::vector<unsigned char> &bytes,
                       bool narrowI64, const std::string &what);
/// Decodes device storage back into a tensor of `type`.
Tensor decodeFromDevice(const TensorType &type, const void *data);

/// The typed error of a kernel's error word (Ok for 0).
Status kernelError(const Eqn &eqn, int32_t code);

/// The role of each operand of `eqn` in its launches: the attention's
/// operands by their ODS names (q, k, k_shared, v, read, mask, len, pos,
/// as its operand segments say), every other op's by position (in0, in1..).
std::vector<std::string> operandRoles(const Eqn &eqn);
/// The role of result `i`: "out" for attention, out0, out1.. otherwise.
std::string resultRole(const Eqn &eqn, size_t i);
/// The role whose buffer holds result `i`: in0 for an in-place write's
/// result, resultRole otherwise.
std::string resultStorageRole(const Eqn &eqn, size_t i);
/// Per value of `graph`, the value whose buffer holds it: itself, or for
/// an in-place write's result the value its operand 0 is stored in.
std::vector<int> storageValues(const Graph &graph);
/// Appends what launch `l` of `eqn` binds, in argument order: `take` of
/// each role's entry in `byRole`; InvalidArgument naming a role the eqn
/// lacks (an entry `take` returns empty for counts as lacking).
template <typename Map, typename Out, typename Take>
Status bindArgs(const Eqn &eqn, const LaunchRecord &l, Map &byRole,
                std::vector<Out> &out, Take take) {
  for (const std::string &role : l.roles) {
    auto it = byRole.find(role);
    std::optional<Out> bound;
    if (it != byRole.end())
      bound = take(it->second);
    if (!bound)
      return Status(ErrorCode::InvalidArgument,
                    eqn.location + ": launch " + l.kernel +
                        " needs operand '" + role + "' the eqn lacks");
    out.push_back(*bound);
  }
  return Status::ok();
}

/// After a run: the typed error of the first error word that is set, from
/// (eqn, buffer) pairs whose buffers download(dst, bytes).
template <typename Words> Status checkErrorWords(const Words &words) {
  for (const auto &[eqn, word] : words) {
    int32_t code = 0;
    POOT_RETURN_IF_ERROR(word->download(&code, 4));
    POOT_RETURN_IF_ERROR(kernelError(*eqn, code));
  }
  return Status::ok();
}

/// After a whole-graph run: every output of `graph` read back into
/// `values` (and marked defined), but those `skip` marks (held state);
/// `download(v, dst, bytes)` reads value v's device storage.
template <typename Download>
Status readOutputs(const Graph &graph, std::vector<Tensor> &values,
                   std::vector<bool> &defined, Download download,
                   const std::vector<bool> *skip = nullptr) {
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const GraphOutput &output = graph.outputs[o];
    if (skip && (*skip)[o])
      continue;
    const TensorType &type = graph.values[output.value];
    std::vector<unsigned char> bytes(deviceBytes(type));
    POOT_RETURN_IF_ERROR(download(output.value, bytes.data(),
                                  static_cast<int64_t>(bytes.size())));
    values[output.value] = decodeFromDevice(type, bytes.data());
    defined[output.value] = true;
  }
  return Status::ok();
}

/// The fused combine's ticket counters of `eqn` (schedule counter_bytes),
/// if it has them: the buffer `ensure(role, bytes, buffer)` gives, zeroed
/// before the launch (which leaves them zero again; cleared on every run
/// all the same).
template <typename Buffer, typename Ensure>
Status clearCounters(const Eqn &eqn, Ensure ensure) {
  const Attr *counters = eqn.attr("poot.schedule.counter_bytes");
  if (!counters || counters->i <= 0)
    return Status::ok();
  Buffer *buf = nullptr;
  POOT_RETURN_IF_ERROR(ensure("counters", counters->i, buf));
  std::vector<unsigned char> zero(buf->size(), 0);
  return buf->upload(zero.data(), buf->size());
}

/// Every value `eqn` binds, by role: its operands' and its results'.
std::vector<std::pair<std::string, int>> valueRoles(const Eqn &eqn);
/// The values of a `constant` eqn of `graph`, as device storage (what a
/// resident run uploads once), i64 narrowed as encodeForDevice says.
Status constantPayloads(const Graph &graph, const Eqn &eqn, bool narrowI64,
                        std::vector<std::vector<unsigned char>> &bytes);

} // namespace poot::rt::device

#endif // POOT_RUNTIME_DEVICEEQN_H
