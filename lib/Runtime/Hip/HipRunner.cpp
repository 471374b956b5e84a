//===- HipRunner.cpp - Running a plan's kernels on HIP --------------------===//
//
// Operand roles come from DeviceEqn.h (the attention's by its operand
// segments, every other op's as in<i>, results as out<i>, the error word as
// err), buffers are bound by the roles each launch's `args` lists, launches
// run in order on the device's stream, the error word (if any) is checked
// and the results are read back. The kernels index their buffers with the
// eqn's static shapes, so a buffer is reused for as long as its size stays
// the same.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/HipRunner.h"

#include "Device/DeviceEqn.h"

#include <algorithm>

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
  claimed = false;
  if (!device::hasLaunches(eqn)) {
    if (deviceOnly && eqn.op != "constant")
      return Status(ErrorCode::Unsupported,
                    (eqn.location.empty() ? "" : eqn.location + ": ") +
                        "poot." + eqn.op +
                        " has no device kernels and the run is device-only");
    return Status::ok();
  }
  if (plan.hsaco.empty())
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": the plan names launches but holds no "
                                 "AMDGPU code object");
  const bool attention = eqn.op == "attention";
  if (attention && resultTypes.size() != 1)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": an attention with " +
                      std::to_string(resultTypes.size()) + " results");
  claimed = true;
  std::vector<device::LaunchRecord> records;
  POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));

  EqnBuffers &mine = buffers[&eqn];
  auto ensure = [&](const std::string &role, int64_t bytes,
                    HipDeviceBuffer *&buf) -> Status {
    bytes = std::max<int64_t>(bytes, 4); // an empty tensor still binds
    HipDeviceBuffer &slot = mine[role];
    if (!slot.valid() || slot.size() != bytes)
      POOT_RETURN_IF_ERROR(device.createBuffer(bytes, slot));
    buf = &slot;
    return Status::ok();
  };
  // Only the attention's i64 positions and lengths are narrowed to i32;
  // every other kernel takes i64 as itself.
  std::vector<std::string> roles = device::operandRoles(eqn);
  for (size_t i = 0; i < operands.size() && i < roles.size(); ++i) {
    std::vector<unsigned char> bytes;
    POOT_RETURN_IF_ERROR(device::encodeForDevice(
        *operands[i], bytes, /*narrowI64=*/attention,
        eqn.location + ": " + roles[i]));
    HipDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(
        ensure(roles[i], static_cast<int64_t>(bytes.size()), buf));
    POOT_RETURN_IF_ERROR(
        buf->upload(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  std::vector<HipDeviceBuffer *> outs;
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    HipDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure(device::resultStorageRole(eqn, i),
                                device::deviceBytes(resultTypes[i]), buf));
    outs.push_back(buf);
  }
  // The scratch of a split schedule is never initialised: the partials
  // written into it are complete before the combine reads them.
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    HipDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure("scratch", scratch->i, buf));
  }
  POOT_RETURN_IF_ERROR(device::clearCounters<HipDeviceBuffer>(eqn, ensure));
  // The error word is cleared on every run: the kernels only ever set it.
  HipDeviceBuffer *err = nullptr;
  if (device::usesErrorWord(records)) {
    POOT_RETURN_IF_ERROR(ensure("err", 4, err));
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(err->upload(&zero, 4));
  }

  for (const device::LaunchRecord &r : records) {
    std::vector<HipDeviceBuffer *> bound;
    for (const std::string &role : r.roles) {
      auto it = mine.find(role);
      if (it == mine.end() || !it->second.valid())
        return Status(ErrorCode::InvalidArgument,
                      eqn.location + ": launch " + r.kernel +
                          " needs operand '" + role + "' the eqn lacks");
      bound.push_back(&it->second);
    }
    const HipKernel *k = nullptr;
    POOT_RETURN_IF_ERROR(kernel(r.kernel, k));
    POOT_RETURN_IF_ERROR(device.launch(*k, bound, r.gridX, r.gridY, r.lanes));
  }
  // The download waits for the launches: a fault in a kernel surfaces
  // there, or in the synchronisation, as the launch's error.
  POOT_RETURN_IF_ERROR(device.synchronize());
  if (err) {
    int32_t code = 0;
    POOT_RETURN_IF_ERROR(err->download(&code, 4));
    POOT_RETURN_IF_ERROR(device::kernelError(eqn, code));
  }
  std::vector<Tensor> read;
  for (size_t i = 0; i < outs.size(); ++i) {
    std::vector<unsigned char> bytes(device::deviceBytes(resultTypes[i]));
    POOT_RETURN_IF_ERROR(
        outs[i]->download(bytes.data(), static_cast<int64_t>(bytes.size())));
    read.push_back(device::decodeFromDevice(resultTypes[i], bytes.data()));
  }
  results = std::move(read);
  ++dispatched;
  return Status::ok();
}
