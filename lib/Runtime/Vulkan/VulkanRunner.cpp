//===- VulkanRunner.cpp - Running a plan's kernels on Vulkan --------------===//

#include "poot/Runtime/VulkanRunner.h"

#include "Device/DeviceEqn.h"
#include "poot/Runtime/Bench.h"

#include <algorithm>
#include <cstring>
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

Status VulkanRunner::appendDispatches(
    const Eqn &eqn, const std::vector<device::LaunchRecord> &launches,
    const std::map<std::string, VulkanBinding> &byRole,
    std::vector<VulkanDispatch> &out) {
  for (const device::LaunchRecord &l : launches) {
    VulkanDispatch d;
    POOT_RETURN_IF_ERROR(device::bindArgs(
        eqn, l, byRole, d.bindings,
        [](const VulkanBinding &b) { return std::optional<VulkanBinding>(b); }));
    POOT_RETURN_IF_ERROR(
        kernel(l.kernel, static_cast<int>(d.bindings.size()), d.kernel));
    d.groupsX = l.gridX;
    d.groupsY = l.gridY;
    out.push_back(std::move(d));
  }
  return Status::ok();
}

Status VulkanRunner::prepare(const Eqn &eqn,
                             const std::vector<const Tensor *> &operands,
                             const std::vector<TensorType> &resultTypes,
                             VulkanPreparedEqn &out, bool &claimed) {
  claimed = false;
  out = VulkanPreparedEqn();
  if (!device::hasLaunches(eqn))
    return Status::ok();
  if (plan.spirv.empty())
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": the plan names launches but holds no "
                                 "SPIR-V kernels");
  claimed = true;
  // The bytes the benchmark counts (the same on every device).
  BenchBytes counted = benchBytes(eqn, operands, resultTypes);
  out.bytesRead = counted.read;
  out.bytesWritten = counted.written;
  out.resultTypes = resultTypes;
  if (eqn.op == "attention")
    return prepareAttention(eqn, operands, resultTypes, out);

  // Any other op: operand i binds as in<i>, result i as out<i>, the error
  // word as err.
  std::vector<device::LaunchRecord> launches;
  POOT_RETURN_IF_ERROR(device::readLaunches(eqn, launches));
  std::map<std::string, VulkanBuffer> &buffers = out.buffers;
  std::vector<std::string> roles = device::operandRoles(eqn);
  for (size_t i = 0; i < operands.size() && i < roles.size(); ++i) {
    std::vector<unsigned char> bytes;
    POOT_RETURN_IF_ERROR(device::encodeForDevice(
        *operands[i], bytes, /*narrowI64=*/false, eqn.location + ": " + roles[i]));
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(
        device.createBuffer(static_cast<int64_t>(bytes.size()), buf));
    POOT_RETURN_IF_ERROR(buf.upload(bytes.data(), bytes.size()));
    buffers.emplace(roles[i], std::move(buf));
  }
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    out.resultRoles.push_back(device::resultStorageRole(eqn, i));
    if (device::resultStorageRole(eqn, i) != device::resultRole(eqn, i))
      continue; // written in place, into in0
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(
        device.createBuffer(device::deviceBytes(resultTypes[i]), buf));
    buffers.emplace(device::resultRole(eqn, i), std::move(buf));
  }
  if (device::usesErrorWord(launches)) {
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(4, buf));
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(buf.upload(&zero, 4));
    buffers.emplace("err", std::move(buf));
  }
  std::map<std::string, VulkanBinding> byRole;
  for (const auto &[role, buf] : buffers)
    byRole.insert_or_assign(role, VulkanBinding(buf));
  POOT_RETURN_IF_ERROR(appendDispatches(eqn, launches, byRole, out.dispatches));
  for (const device::LaunchRecord &l : launches)
    out.kernelNames += (out.kernelNames.empty() ? "" : ",") + l.kernel;
  return Status::ok();
}

Status VulkanRunner::run(const Eqn &eqn,
                         const std::vector<const Tensor *> &operands,
                         const std::vector<TensorType> &resultTypes,
                         std::vector<Tensor> &results, bool &claimed) {
  claimed = false;
  if (eqn.op == "constant") {
    // A literal: its payload is what the device would hold; nothing to
    // compute.
    POOT_RETURN_IF_ERROR(evaluateEqn(eqn, operands, resultTypes,
                                     NumericMode::Native, results));
    claimed = true;
    ++dispatched;
    return Status::ok();
  }
  if (!device::hasLaunches(eqn)) {
    if (deviceOnly)
      return Status(ErrorCode::Unsupported,
                    (eqn.location.empty() ? "" : eqn.location + ": ") +
                        "poot." + eqn.op +
                        " has no device kernels and the run is device-only");
    ++onHost;
    return Status::ok();
  }
  VulkanPreparedEqn prepared;
  POOT_RETURN_IF_ERROR(
      prepare(eqn, operands, resultTypes, prepared, claimed));
  POOT_RETURN_IF_ERROR(device.dispatchAll(prepared.dispatches));
  if (auto it = prepared.buffers.find("err"); it != prepared.buffers.end()) {
    int32_t code = 0;
    POOT_RETURN_IF_ERROR(it->second.download(&code, 4));
    POOT_RETURN_IF_ERROR(device::kernelError(eqn, code));
  }
  results.clear();
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    const VulkanBuffer &buf = prepared.buffers.at(prepared.resultRoles[i]);
    // An attention's output is in its storage dtype, as every other
    // result is in its device type (the two differ only for i1).
    std::vector<unsigned char> bytes(device::deviceBytes(resultTypes[i]));
    POOT_RETURN_IF_ERROR(buf.download(
        bytes.data(), std::min<int64_t>(bytes.size(), buf.size())));
    results.push_back(device::decodeFromDevice(resultTypes[i], bytes.data()));
  }
  ++dispatched;
  return Status::ok();
}

Status VulkanRunner::runGraph(const Graph &graph, std::vector<Tensor> &values,
                              std::vector<bool> &defined, bool &ran) {
  ran = false;
  if (!resident || plan.spirv.empty())
    return Status::ok();
  for (const Eqn &eqn : graph.eqns)
    if (eqn.op != "constant" && !device::hasLaunches(eqn))
      return Status::ok(); // eqn by eqn, some on the host
  // i64 values travel narrowed to the attention kernel alone; eqn by eqn
  // keeps that per use.
  for (const TensorType &type : graph.values)
    if (type.dtype == DType::I64)
      return Status::ok();

  // The plan's arena holds the computed intermediate values and split
  // scratches,
  // each at its planned offset (256-byte aligned, slots shared between
  // values whose lifetimes do not meet); every other value gets a buffer
  // of its own. A value the device stores wider than planned (i1 as i32
  // words) keeps its own buffer too, so no range outgrows its slot. All
  // of it is kept while the same graph runs again: the shapes are static,
  // so a decode loop allocates once.
  if (residentGraph != &graph || valueBuffers.size() != graph.values.size()) {
    valueBuffers.clear();
    valueBuffers.resize(graph.values.size());
    arenaRange.assign(graph.values.size(), {0, -1});
    scratchRange.assign(graph.eqns.size(), {0, -1});
    inArena = 0;
    // The arena was planned for the plan's graph: a graph run here must be
    // that one (a copy is fine), value for value and eqn for eqn.
    bool samePlan = graph.values.size() == plan.graph.values.size() &&
                    graph.eqns.size() == plan.graph.eqns.size();
    for (size_t v = 0; samePlan && v < graph.values.size(); ++v)
      samePlan = graph.values[v].dtype == plan.graph.values[v].dtype &&
                 graph.values[v].shape == plan.graph.values[v].shape;
    for (size_t e = 0; samePlan && e < graph.eqns.size(); ++e)
      samePlan = graph.eqns[e].op == plan.graph.eqns[e].op &&
                 graph.eqns[e].results == plan.graph.eqns[e].results;
    bool useArena = samePlan && plan.arenaBytes > 0 &&
                    256 % std::max<int64_t>(
                              1, device.storageBufferOffsetAlignment()) == 0;
    auto room = [](int64_t bytes) { return (std::max<int64_t>(bytes, 1) + 255) / 256 * 256; };
    if (useArena) {
      POOT_RETURN_IF_ERROR(device.createBuffer(plan.arenaBytes, arena));
      // Constants are uploaded while the dispatches are recorded, before
      // any runs, so a slot they shared with an earlier value would be
      // overwritten by it: they keep buffers of their own.
      std::vector<bool> constant(graph.values.size(), false);
      for (const Eqn &eqn : graph.eqns)
        if (eqn.op == "constant")
          for (int v : eqn.results)
            constant[v] = true;
      for (const ArenaSlot &slot : plan.arena) {
        if (slot.offset % 256 || slot.offset + room(slot.bytes) > plan.arenaBytes)
          continue;
        if (slot.value >= 0 &&
            slot.value < static_cast<int>(graph.values.size()) &&
            !constant[slot.value]) {
          int64_t bytes = device::deviceBytes(graph.values[slot.value]);
          if (bytes <= room(slot.bytes)) {
            arenaRange[slot.value] = {slot.offset, bytes};
            ++inArena;
          }
        } else if (slot.value < 0 && slot.eqn >= 0 &&
                   slot.eqn < static_cast<int>(graph.eqns.size())) {
          scratchRange[slot.eqn] = {slot.offset, slot.bytes};
          ++inArena;
        }
      }
    }
    valueStorage = device::storageValues(graph);
    for (size_t v = 0; v < graph.values.size(); ++v) {
      if (valueStorage[v] != static_cast<int>(v)) {
        arenaRange[v] = {0, -1}; // stored in its operand's buffer
        continue;
      }
      if (arenaRange[v].second < 0)
        POOT_RETURN_IF_ERROR(device.createBuffer(
            device::deviceBytes(graph.values[v]), valueBuffers[v]));
    }
    residentGraph = &graph;
  }
  auto bindingOf = [&](int v) {
    v = valueStorage[v];
    return arenaRange[v].second < 0
               ? VulkanBinding(valueBuffers[v])
               : VulkanBinding(arena, arenaRange[v].first,
                               arenaRange[v].second);
  };
  // i64 values only ever reach attention positions and lengths here
  // (SPIR-V kernels refuse i64 otherwise), which the kernel reads as i32.
  auto uploadBytes = [&](int v,
                         const std::vector<unsigned char> &bytes) -> Status {
    if (arenaRange[v].second >= 0)
      return arena.upload(bytes.data(),
                          std::min<int64_t>(bytes.size(), arenaRange[v].second),
                          arenaRange[v].first);
    return valueBuffers[v].upload(bytes.data(),
                                  std::min<int64_t>(bytes.size(),
                                                    valueBuffers[v].size()));
  };
  for (const GraphInput &input : graph.inputs) {
    std::vector<unsigned char> bytes;
    POOT_RETURN_IF_ERROR(device::encodeForDevice(
        values[input.value], bytes, /*narrowI64=*/true,
        "input '" + input.name + "'"));
    POOT_RETURN_IF_ERROR(uploadBytes(input.value, bytes));
  }

  // Per eqn: its scratch and error word, then its launches in order.
  std::vector<VulkanBuffer> extras;
  extras.reserve(3 * graph.eqns.size()); // bindings point into it
  std::vector<std::pair<const Eqn *, const VulkanBuffer *>> errorWords;
  std::vector<VulkanDispatch> dispatches;
  for (const Eqn &eqn : graph.eqns) {
    if (eqn.op == "constant") {
      std::vector<std::vector<unsigned char>> payloads;
      POOT_RETURN_IF_ERROR(device::constantPayloads(
          graph, eqn, /*narrowI64=*/true, payloads));
      for (size_t i = 0; i < payloads.size(); ++i)
        POOT_RETURN_IF_ERROR(uploadBytes(eqn.results[i], payloads[i]));
      continue;
    }
    std::vector<device::LaunchRecord> launches;
    POOT_RETURN_IF_ERROR(device::readLaunches(eqn, launches));
    std::map<std::string, VulkanBinding> byRole;
    for (auto &[role, v] : device::valueRoles(eqn))
      byRole.insert_or_assign(role, bindingOf(v));
    size_t e = static_cast<size_t>(&eqn - graph.eqns.data());
    if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
        scratch && scratch->i > 0) {
      if (scratchRange[e].second >= scratch->i) {
        byRole.insert_or_assign(
            "scratch", VulkanBinding(arena, scratchRange[e].first,
                                     scratchRange[e].second));
      } else {
        extras.emplace_back();
        POOT_RETURN_IF_ERROR(device.createBuffer(scratch->i, extras.back()));
        byRole.insert_or_assign("scratch", VulkanBinding(extras.back()));
      }
    }
    // The fused combine's ticket counters, zero (the kernels leave them
    // zero again).
    if (const Attr *counters = eqn.attr("poot.schedule.counter_bytes");
        counters && counters->i > 0) {
      extras.emplace_back();
      POOT_RETURN_IF_ERROR(device.createBuffer(counters->i, extras.back()));
      std::vector<unsigned char> zero(counters->i, 0);
      POOT_RETURN_IF_ERROR(extras.back().upload(zero.data(), counters->i));
      byRole.insert_or_assign("counters", VulkanBinding(extras.back()));
    }
    if (device::usesErrorWord(launches)) {
      extras.emplace_back();
      POOT_RETURN_IF_ERROR(device.createBuffer(4, extras.back()));
      int32_t zero = 0;
      POOT_RETURN_IF_ERROR(extras.back().upload(&zero, 4));
      byRole.insert_or_assign("err", VulkanBinding(extras.back()));
      errorWords.push_back({&eqn, &extras.back()});
    }
    POOT_RETURN_IF_ERROR(appendDispatches(eqn, launches, byRole, dispatches));
  }
  POOT_RETURN_IF_ERROR(device.dispatchAll(dispatches));
  POOT_RETURN_IF_ERROR(device::checkErrorWords(errorWords));
  // Only the outputs come back.
  POOT_RETURN_IF_ERROR(device::readOutputs(
      graph, values, defined, [&](int v, void *dst, int64_t bytes) {
        v = valueStorage[v];
        if (arenaRange[v].second >= 0)
          return arena.download(dst, bytes, arenaRange[v].first);
        return valueBuffers[v].download(dst, bytes);
      }));
  dispatched += static_cast<int64_t>(graph.eqns.size());
  ran = true;
  return Status::ok();
}

Status VulkanRunner::prepareAttention(
    const Eqn &eqn, const std::vector<const Tensor *> &operands,
    const std::vector<TensorType> &resultTypes, VulkanPreparedEqn &out) {
  const Attr *count = eqn.attr("poot.launches.count");

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
  if (resultTypes.size() != 1)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": an attention with " +
                      std::to_string(resultTypes.size()) + " results");
  std::map<std::string, VulkanBuffer> &buffers = out.buffers;
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
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(
        std::max<int64_t>(storageBytes(resultTypes[0]), 4), buf));
    buffers.emplace("out", std::move(buf));
  }
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(scratch->i, buf));
    buffers.emplace("scratch", std::move(buf));
  }
  if (const Attr *counters = eqn.attr("poot.schedule.counter_bytes");
      counters && counters->i > 0) {
    VulkanBuffer buf;
    POOT_RETURN_IF_ERROR(device.createBuffer(counters->i, buf));
    std::vector<unsigned char> zero(counters->i, 0);
    POOT_RETURN_IF_ERROR(buf.upload(zero.data(), zero.size()));
    buffers.emplace("counters", std::move(buf));
  }

  out.resultRoles = {"out"};
  std::vector<VulkanDispatch> &dispatches = out.dispatches;
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
    out.kernelNames += (l ? "," : "") + name->s;
  }
  return Status::ok();
}
