//===- HipRunner.cpp - Running a plan's kernels on HIP --------------------===//
//
// Operand roles come from the attention's operand segments, buffers are
// bound by the roles each launch's `args` lists, launches run in order on
// the device's stream and the result is read back. The kernels index their
// buffers with the eqn's static shapes, so a buffer is reused for as long as
// its size stays the same.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/HipRunner.h"

#include <algorithm>
#include <sstream>

using namespace poot::rt;

HipRunner::HipRunner(HipDevice &device, const Plan &plan)
    : device(device), plan(plan) {}

HipRunner::~HipRunner() = default;

Status HipRunner::kernel(const std::string &name, const HipKernel *&out) {
  if (!module.valid()) {
    // A code object runs only on the architecture it was compiled for; say
    // so before the loader's less telling error where the device names it.
    const std::string &have = device.facts().name;
    if (!plan.hsacoChip.empty() && have != "amdgpu" && have != plan.hsacoChip)
      return Status(ErrorCode::Unsupported,
                    "the plan's kernels are for " + plan.hsacoChip +
                        ", the device is " + have);
    POOT_RETURN_IF_ERROR(device.createModule(plan.hsaco, module));
  }
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    HipKernel k;
    POOT_RETURN_IF_ERROR(module.kernel(name, k));
    it = kernels.emplace(name, std::move(k)).first;
  }
  out = &it->second;
  return Status::ok();
}

Status HipRunner::run(const Eqn &eqn,
                      const std::vector<const Tensor *> &operands,
                      const std::vector<TensorType> &resultTypes,
                      std::vector<Tensor> &results, bool &claimed) {
  const Attr *count = eqn.attr("poot.launches.count");
  claimed = false;
  if (!count || eqn.op != "attention")
    return Status::ok();
  if (plan.hsaco.empty())
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": the plan names launches but holds no "
                                 "AMDGPU code object");
  if (resultTypes.size() != 1)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": an attention with " +
                      std::to_string(resultTypes.size()) + " results");
  claimed = true;

  // The attention's operands by role, in ODS order.
  static const char *const kRoles[] = {"q",    "k",    "k_shared", "v",
                                       "read", "mask", "len",      "pos"};
  std::map<std::string, const Tensor *> byRole;
  const Attr *segments = eqn.attr("operandSegmentSizes");
  size_t next = 0;
  for (size_t r = 0; r < 8; ++r) {
    int64_t n = segments && r < segments->ints.size()
                    ? segments->ints[r]
                    : (r == 0 || r == 1 || r == 3);
    if (n && next < operands.size())
      byRole[kRoles[r]] = operands[next++];
  }

  auto &mine = buffers[&eqn];
  auto ensure = [&](const std::string &role, int64_t bytes,
                    HipDeviceBuffer *&buf) -> Status {
    bytes = std::max<int64_t>(bytes, 4); // an empty tensor still binds
    HipDeviceBuffer &slot = mine[role];
    if (!slot.valid() || slot.size() != bytes)
      POOT_RETURN_IF_ERROR(device.createBuffer(bytes, slot));
    buf = &slot;
    return Status::ok();
  };
  for (auto &[role, given] : byRole) {
    Tensor narrowed;
    const Tensor *t = given;
    if (t->dtype() == DType::I64) {
      for (double v : t->values())
        if (v < -2147483648.0 || v > 2147483647.0)
          return Status(ErrorCode::RangeViolation,
                        eqn.location + ": " + role + " value " +
                            std::to_string(static_cast<int64_t>(v)) +
                            " does not fit the kernel's i32");
      narrowed = Tensor(TensorType{DType::I32, t->shape()}, t->values());
      t = &narrowed;
    }
    std::vector<unsigned char> bytes(storageBytes(t->type()));
    encodeStorage(*t, bytes.data());
    HipDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure(role, static_cast<int64_t>(bytes.size()), buf));
    POOT_RETURN_IF_ERROR(
        buf->upload(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  int64_t outBytes = storageBytes(resultTypes[0]);
  HipDeviceBuffer *out = nullptr;
  POOT_RETURN_IF_ERROR(ensure("out", outBytes, out));
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    HipDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure("scratch", scratch->i, buf));
  }

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
    std::vector<HipDeviceBuffer *> bound;
    std::stringstream roles(args->s);
    for (std::string role; std::getline(roles, role, ',');) {
      auto it = mine.find(role);
      if (it == mine.end() || !it->second.valid())
        return Status(ErrorCode::InvalidArgument,
                      eqn.location + ": launch " + name->s +
                          " needs operand '" + role + "' the eqn lacks");
      bound.push_back(&it->second);
    }
    const HipKernel *k = nullptr;
    POOT_RETURN_IF_ERROR(kernel(name->s, k));
    POOT_RETURN_IF_ERROR(
        device.launch(*k, bound, grid->ints[0], grid->ints[1], lanes->i));
  }
  // The download waits for the launches: a fault in a kernel surfaces
  // there, or in the synchronisation, as the launch's error.
  POOT_RETURN_IF_ERROR(device.synchronize());
  std::vector<unsigned char> bytes(outBytes);
  POOT_RETURN_IF_ERROR(out->download(bytes.data(), outBytes));
  results.clear();
  results.push_back(decodeStorage(resultTypes[0], bytes.data()));
  ++dispatched;
  return Status::ok();
}
