//===- VulkanRunner.cpp - Running a plan's kernels on Vulkan --------------===//

#include "poot/Runtime/VulkanRunner.h"

#include <sstream>

using namespace poot::rt;

Status VulkanRunner::kernel(const std::string &name, int numBuffers,
                            const VulkanKernel *&out) {
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    VulkanKernel k;
    POOT_RETURN_IF_ERROR(device.createKernel(plan.spirv, name, numBuffers, k));
    it = kernels.emplace(name, std::move(k)).first;
  }
  out = &it->second;
  return Status::ok();
}

Status VulkanRunner::run(const Eqn &eqn,
                         const std::vector<const Tensor *> &operands,
                         const std::vector<TensorType> &resultTypes,
                         std::vector<Tensor> &results, bool &claimed) {
  const Attr *count = eqn.attr("poot.launches.count");
  claimed = false;
  if (!count || eqn.op != "attention")
    return Status::ok();
  if (plan.spirv.empty())
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": the plan names launches but holds no "
                                 "SPIR-V kernels");
  claimed = true;

  // The attention's operands by role, in ODS order.
  static const char *const kRoles[] = {"q",    "k",    "k_shared", "v",
                                       "read", "mask", "len",      "pos"};
  std::map<std::string, const Tensor *> byRole;
  const Attr *segments = eqn.attr("operandSegmentSizes");
  size_t next = 0;
  for (size_t r = 0; r < 8; ++r) {
    int64_t n = segments && r < segments->ints.size() ? segments->ints[r]
                                                      : (r == 0 || r == 1 || r == 3);
    if (n && next < operands.size())
      byRole[kRoles[r]] = operands[next++];
  }

  // Buffers: every operand role in its storage dtype, the output, and the
  // scratch of a split schedule (never initialised: partials are complete).
  std::map<std::string, VulkanBuffer> buffers;
  auto upload = [&](const std::string &role, const Tensor &given) -> Status {
    // i64 positions and lengths travel as i32 (see the generator).
    Tensor t = given;
    if (t.dtype() == DType::I64) {
      for (double v : t.values())
        if (v < -2147483648.0 || v > 2147483647.0)
          return Status(ErrorCode::RangeViolation,
                        eqn.location + ": " + role + " value " +
                            std::to_string(static_cast<int64_t>(v)) +
                            " does not fit the kernel's i32");
      t = Tensor(TensorType{DType::I32, t.shape()}, t.values());
    }
    std::vector<unsigned char> bytes(storageBytes(t.type()));
    encodeStorage(t, bytes.data());
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(
        std::max<int64_t>(static_cast<int64_t>(bytes.size()), 4), buf));
    POOT_RETURN_IF_ERROR(buf.upload(bytes.data(), bytes.size()));
    buffers.emplace(role, std::move(buf));
    return Status::ok();
  };
  for (auto &[role, t] : byRole)
    POOT_RETURN_IF_ERROR(upload(role, *t));
  {
    VulkanBuffer out;
    POOT_RETURN_IF_ERROR(device.createBuffer(
        std::max<int64_t>(storageBytes(resultTypes[0]), 4), out));
    buffers.emplace("out", std::move(out));
  }
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(scratch->i, buf));
    buffers.emplace("scratch", std::move(buf));
  }

  std::vector<VulkanDispatch> dispatches;
  for (int64_t l = 0; l < count->i; ++l) {
    std::string prefix = "poot.launches." + std::to_string(l) + ".";
    const Attr *name = eqn.attr(prefix + "kernel");
    const Attr *grid = eqn.attr(prefix + "grid");
    const Attr *args = eqn.attr(prefix + "args");
    if (!name || !grid || grid->ints.size() != 2 || !args)
      return Status(ErrorCode::InvalidArgument,
                    eqn.location + ": launch " + std::to_string(l) +
                        " is incomplete");
    VulkanDispatch d;
    std::stringstream roles(args->s);
    for (std::string role; std::getline(roles, role, ',');) {
      auto it = buffers.find(role);
      if (it == buffers.end())
        return Status(ErrorCode::InvalidArgument,
                      eqn.location + ": launch " + name->s +
                          " needs operand '" + role + "' the eqn lacks");
      d.bindings.emplace_back(it->second);
    }
    POOT_RETURN_IF_ERROR(
        kernel(name->s, static_cast<int>(d.bindings.size()), d.kernel));
    d.groupsX = grid->ints[0];
    d.groupsY = grid->ints[1];
    dispatches.push_back(std::move(d));
  }
  POOT_RETURN_IF_ERROR(device.dispatchAll(dispatches));

  std::vector<unsigned char> bytes(storageBytes(resultTypes[0]));
  POOT_RETURN_IF_ERROR(buffers.at("out").download(bytes.data(), bytes.size()));
  results.clear();
  results.push_back(decodeStorage(resultTypes[0], bytes.data()));
  ++dispatched;
  return Status::ok();
}
