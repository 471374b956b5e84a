//===- DeviceEqn.cpp - What the GPU runners share about an eqn ------------===//

#include "Device/DeviceEqn.h"

#include "poot/Runtime/Evaluator.h"

#include <algorithm>
#include <sstream>

namespace poot::rt::device {

bool hasLaunches(const Eqn &eqn) {
  return eqn.attr("poot.launches.count") != nullptr;
}

Status readLaunches(const Eqn &eqn, std::vector<LaunchRecord> &out) {
  out.clear();
  const Attr *count = eqn.attr("poot.launches.count");
  if (!count)
    return Status::ok();
  for (int64_t l = 0; l < count->i; ++l) {
    std::string prefix = "poot.launches." + std::to_string(l) + ".";
    const Attr *name = eqn.attr(prefix + "kernel");
    const Attr *grid = eqn.attr(prefix + "grid");
    const Attr *lanes = eqn.attr(prefix + "lanes");
    const Attr *args = eqn.attr(prefix + "args");
    if (!name || !grid || grid->ints.size() != 2 || !lanes || !args)
      return Status(ErrorCode::InvalidArgument,
                    eqn.location + ": launch " + std::to_string(l) +
                        " is incomplete");
    LaunchRecord r;
    r.kernel = name->s;
    r.gridX = grid->ints[0];
    r.gridY = grid->ints[1];
    r.lanes = lanes->i;
    if (const Attr *shared = eqn.attr(prefix + "shared")) {
      if (shared->i < 0)
        return Status(ErrorCode::InvalidArgument,
                      eqn.location + ": launch " + std::to_string(l) +
                          " asks for " + std::to_string(shared->i) +
                          " bytes of workgroup memory");
      r.shared = shared->i;
    }
    std::stringstream roles(args->s);
    for (std::string role; std::getline(roles, role, ',');)
      r.roles.push_back(role);
    out.push_back(std::move(r));
  }
  return Status::ok();
}

bool usesErrorWord(const std::vector<LaunchRecord> &launches) {
  for (const LaunchRecord &l : launches)
    for (const std::string &r : l.roles)
      if (r == "err")
        return true;
  return false;
}

TensorType deviceType(const TensorType &type) {
  if (type.dtype == DType::I1)
    return TensorType{DType::I32, type.shape};
  return type;
}

int64_t deviceBytes(const TensorType &type) {
  return std::max<int64_t>(storageBytes(deviceType(type)), 4);
}

Status encodeForDevice(const Tensor &given, std::vector<unsigned char> &bytes,
                       bool narrowI64, const std::string &what) {
  const Tensor *t = &given;
  Tensor converted;
  if (given.dtype() == DType::I1) {
    converted = Tensor(TensorType{DType::I32, given.shape()}, given.values());
    t = &converted;
  } else if (given.dtype() == DType::I64 && narrowI64) {
    for (double v : given.values())
      if (v < -2147483648.0 || v > 2147483647.0)
        return Status(ErrorCode::RangeViolation,
                      what + " value " +
                          std::to_string(static_cast<int64_t>(v)) +
                          " does not fit the kernel's i32");
    converted = Tensor(TensorType{DType::I32, given.shape()}, given.values());
    t = &converted;
  }
  bytes.assign(std::max<int64_t>(storageBytes(t->type()), 4), 0);
  encodeStorage(*t, bytes.data());
  return Status::ok();
}

Tensor decodeFromDevice(const TensorType &type, const void *data) {
  if (type.dtype != DType::I1)
    return decodeStorage(type, data);
  Tensor words = decodeStorage(deviceType(type), data);
  Tensor t(type);
  for (int64_t i = 0; i < t.size(); ++i)
    t.at(i) = words.at(i) != 0 ? 1.0 : 0.0;
  return t;
}

Status kernelError(const Eqn &eqn, int32_t code) {
  std::string where = eqn.location.empty() ? "" : eqn.location + ": ";
  switch (code) {
  case 0:
    return Status::ok();
  case 1:
    return Status(ErrorCode::IndexOutOfRange,
                  where + eqn.op + ": an index outside its axis (on the device)");
  case 2:
    return Status(ErrorCode::InvalidArgument,
                  where + eqn.op +
                      (eqn.op == "scatter_update"
                           ? ": a slot written twice (on the device)"
                           : ": integer division by zero or a negative "
                             "integer exponent (on the device)"));
  default:
    return Status(ErrorCode::InvalidArgument,
                  where + eqn.op + ": kernel error " + std::to_string(code));
  }
}

std::vector<std::string> operandRoles(const Eqn &eqn) {
  std::vector<std::string> roles;
  if (eqn.op != "attention") {
    for (size_t i = 0; i < eqn.operands.size(); ++i)
      roles.push_back("in" + std::to_string(i));
    return roles;
  }
  static const char *const kRoles[] = {"q",    "k",    "k_shared", "v",
                                       "read", "mask", "len",      "pos"};
  const Attr *segments = eqn.attr("operandSegmentSizes");
  for (size_t r = 0; r < 8; ++r) {
    int64_t n = segments && r < segments->ints.size()
                    ? segments->ints[r]
                    : (r == 0 || r == 1 || r == 3);
    if (n && roles.size() < eqn.operands.size())
      roles.push_back(kRoles[r]);
  }
  return roles;
}

std::vector<std::pair<std::string, int>> valueRoles(const Eqn &eqn) {
  std::vector<std::pair<std::string, int>> out;
  std::vector<std::string> roles = operandRoles(eqn);
  for (size_t i = 0; i < roles.size() && i < eqn.operands.size(); ++i)
    out.push_back({roles[i], eqn.operands[i]});
  for (size_t i = 0; i < eqn.results.size(); ++i)
    out.push_back({resultRole(eqn, i), eqn.results[i]});
  return out;
}

Status constantPayloads(const Graph &graph, const Eqn &eqn, bool narrowI64,
                        std::vector<std::vector<unsigned char>> &bytes) {
  std::vector<Tensor> results;
  std::vector<TensorType> types;
  for (int v : eqn.results)
    types.push_back(graph.values[v]);
  POOT_RETURN_IF_ERROR(
      evaluateEqn(eqn, {}, types, NumericMode::Native, results));
  bytes.assign(results.size(), {});
  for (size_t i = 0; i < results.size(); ++i)
    POOT_RETURN_IF_ERROR(encodeForDevice(results[i], bytes[i], narrowI64,
                                         eqn.location + ": constant"));
  return Status::ok();
}

std::string resultRole(const Eqn &eqn, size_t i) {
  if (eqn.op == "attention")
    return "out";
  return "out" + std::to_string(i);
}

std::string resultStorageRole(const Eqn &eqn, size_t i) {
  return i == 0 && eqn.writesInPlace() ? "in0" : resultRole(eqn, i);
}

std::vector<int> storageValues(const Graph &graph) {
  std::vector<int> storage(graph.values.size());
  for (size_t v = 0; v < storage.size(); ++v)
    storage[v] = static_cast<int>(v);
  // Eqns are in order, so an operand's storage is final when it is read.
  for (const Eqn &eqn : graph.eqns)
    if (eqn.writesInPlace())
      storage[eqn.results[0]] = storage[eqn.operands[0]];
  return storage;
}

} // namespace poot::rt::device
