//===- PlanRunner.cpp - Running a plan's kernels on any GPU device --------===//
//
// Operand roles, launch records, device storage and error words come from
// DeviceEqn.h; what differs between drivers is behind GpuDevice. The
// kernels index their buffers with the eqn's static shapes, so a buffer is
// reused for as long as its size stays the same.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanRunner.h"

#include "Device/DeviceEqn.h"
#include "poot/Runtime/Bench.h"

#include <algorithm>
#include <random>

using namespace poot::rt;

namespace {

/// `s` with the eqn's location in front, where it has one.
Status at(const Eqn &eqn, const Status &s) {
  if (s.isOk() || eqn.location.empty())
    return s;
  return Status(s.code(), eqn.location + ": " + s.message());
}

} // namespace

/// The device side of the graph last run whole. Every value is stored in
/// its own buffer or in a range of the plan's arena; an in-place write's
/// result in its operand's storage.
struct PlanRunner::Resident {
  const Graph *graph = nullptr;
  /// Per value, the value whose storage holds it.
  std::vector<int> storage;
  /// Per value: its own buffer, or null (in the arena, or stored in
  /// another value's storage).
  std::vector<std::unique_ptr<GpuBuffer>> own;
  std::unique_ptr<GpuBuffer> arena;
  /// Per value: its range of the arena (offset, bytes), or bytes -1.
  std::vector<std::pair<int64_t, int64_t>> arenaRange;
  int64_t inArena = 0;
  /// i32 copies of the i64 inputs attentions read, by value.
  std::map<int, std::unique_ptr<GpuBuffer>> narrowed;
  /// Scratches, ticket counters and error words.
  std::vector<std::unique_ptr<GpuBuffer>> extras;
  std::vector<std::pair<const Eqn *, GpuBuffer *>> errorWords;
  std::unique_ptr<GpuRecording> recording;
  /// Per value: the caller's buffer it is held in (held state), or null.
  std::vector<GpuBuffer *> external;
  /// After each replay: a held state's new value (not written in place)
  /// copied into its buffer, as (value, held input value).
  std::vector<std::pair<int, int>> stateCopies;
  /// Per graph output: whether it carries a held state (never read back).
  std::vector<bool> heldOutput;

  GpuArg argOf(int v) const {
    v = storage[v];
    if (external[v])
      return {external[v]};
    if (arenaRange[v].second >= 0)
      return {arena.get(), arenaRange[v].first, arenaRange[v].second};
    return {own[v].get()};
  }
  Status upload(int v, const std::vector<unsigned char> &bytes) {
    GpuArg a = argOf(v);
    int64_t room = a.bytes >= 0 ? a.bytes : a.buffer->size();
    return const_cast<GpuBuffer *>(a.buffer)->upload(
        bytes.data(), std::min<int64_t>(bytes.size(), room), a.offset);
  }
  Status download(int v, void *dst, int64_t bytes) const {
    GpuArg a = argOf(v);
    return a.buffer->download(dst, bytes, a.offset);
  }
};

PlanRunner::PlanRunner(GpuDevice &device, const Plan &plan)
    : device(device), plan(plan), residentOn(device.residentByDefault()) {}

PlanRunner::~PlanRunner() = default;

int64_t PlanRunner::arenaBindings() const {
  return resident ? resident->inArena : 0;
}

int64_t PlanRunner::capturedLaunches() const {
  return resident && resident->recording
             ? static_cast<int64_t>(resident->recording->launches().size())
             : 0;
}

Status PlanRunner::kernel(const std::string &name, int numArgs,
                          const GpuKernel *&out) {
  if (!module)
    POOT_RETURN_IF_ERROR(device.loadModule(plan, module));
  return module->kernel(name, numArgs, out);
}

Status PlanRunner::bindLaunches(const Eqn &eqn,
                                const std::map<std::string, GpuArg> &byRole,
                                std::vector<GpuLaunch> &out,
                                std::string *names) {
  std::vector<device::LaunchRecord> records;
  POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));
  for (const device::LaunchRecord &r : records) {
    GpuLaunch launch;
    POOT_RETURN_IF_ERROR(device::bindArgs(
        eqn, r, byRole, launch.args,
        [](const GpuArg &a) -> std::optional<GpuArg> {
          if (!a.buffer)
            return std::nullopt;
          return a;
        }));
    POOT_RETURN_IF_ERROR(
        kernel(r.kernel, static_cast<int>(launch.args.size()), launch.kernel));
    launch.gridX = r.gridX;
    launch.gridY = r.gridY;
    launch.lanes = r.lanes;
    launch.shared = r.shared;
    if (names)
      *names += (names->empty() ? "" : ",") + r.kernel;
    out.push_back(std::move(launch));
  }
  return Status::ok();
}

Status PlanRunner::prepare(const Eqn &eqn,
                           const std::vector<const Tensor *> &operands,
                           const std::vector<TensorType> &resultTypes,
                           PreparedEqn &out, bool &claimed) {
  std::vector<OperandSource> sources(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    sources[i].tensor = operands[i];
    sources[i].type = operands[i]->type();
  }
  return prepare(eqn, sources, resultTypes, out, claimed);
}

namespace {

/// The host-drawn block a device fill starts from: uniform values in
/// [-1, 1) (or zeros) of `type`'s dtype, at most 1 MiB of storage.
Tensor fillBlock(const OperandSource &source) {
  int64_t elements = numElements(source.type.shape);
  int64_t perBlock = (int64_t(1) << 20) / dtypeBytes(source.type.dtype);
  TensorType block{source.type.dtype, {std::min(elements, perBlock)}};
  std::vector<double> values(static_cast<size_t>(block.shape[0]), 0.0);
  if (!source.zero) {
    std::mt19937_64 gen(source.seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (double &v : values)
      v = dist(gen);
  }
  return Tensor(block, std::move(values));
}

/// Fills `buffer` (`bytes` long) by doubling its first `filled` bytes with
/// device-side copies.
Status doubleOnDevice(GpuDevice &device, GpuBuffer &buffer, int64_t filled,
                      int64_t bytes) {
  while (filled > 0 && filled < bytes) {
    int64_t n = std::min(filled, bytes - filled);
    POOT_RETURN_IF_ERROR(device.copy({GpuCopy{&buffer, 0, &buffer, filled, n}}));
    filled += n;
  }
  return Status::ok();
}

} // namespace

Status PlanRunner::prepare(const Eqn &eqn,
                           const std::vector<OperandSource> &operands,
                           const std::vector<TensorType> &resultTypes,
                           PreparedEqn &out, bool &claimed) {
  claimed = false;
  out = PreparedEqn();
  if (!device::hasLaunches(eqn)) {
    if (deviceOnly && eqn.op != "constant")
      return Status(ErrorCode::Unsupported,
                    (eqn.location.empty() ? "" : eqn.location + ": ") +
                        "poot." + eqn.op +
                        " has no device kernels and the run is device-only");
    return Status::ok();
  }
  const bool attention = eqn.op == "attention";
  if (attention && resultTypes.size() != 1)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": an attention with " +
                      std::to_string(resultTypes.size()) + " results");
  // The plan's code first: a plan without kernels for this device, or for
  // a newer chip, is refused before anything is uploaded.
  if (!module)
    POOT_RETURN_IF_ERROR(at(eqn, device.loadModule(plan, module)));
  claimed = true;

  // Every operand encoded before any goes up: a position that does not fit
  // the kernel's i32 leaves the device as it was. Only the attention's i64
  // positions and lengths are narrowed; every other kernel takes i64 as
  // itself.
  std::vector<std::string> roles = device::operandRoles(eqn);
  std::vector<std::vector<unsigned char>> encoded(
      std::min(operands.size(), roles.size()));
  for (size_t i = 0; i < encoded.size(); ++i) {
    const OperandSource &source = operands[i];
    if (!source.tensor && !isFloat(source.type.dtype))
      return Status(ErrorCode::InvalidArgument,
                    eqn.location + ": " + roles[i] +
                        ": only floating-point operands are filled on the "
                        "device, not " +
                        dtypeName(source.type.dtype));
    POOT_RETURN_IF_ERROR(device::encodeForDevice(
        source.tensor ? *source.tensor : fillBlock(source), encoded[i],
        /*narrowI64=*/attention, eqn.location + ": " + roles[i]));
  }

  EqnBuffers &mine = buffers[&eqn];
  auto ensure = [&](const std::string &role, int64_t bytes,
                    GpuBuffer *&buf) -> Status {
    bytes = std::max<int64_t>(bytes, 4); // an empty tensor still binds
    std::unique_ptr<GpuBuffer> &slot = mine[role];
    if (!slot || slot->size() != bytes)
      POOT_RETURN_IF_ERROR(device.allocate(bytes, slot));
    buf = slot.get();
    return Status::ok();
  };
  for (size_t i = 0; i < encoded.size(); ++i) {
    GpuBuffer *buf = nullptr;
    const OperandSource &source = operands[i];
    int64_t bytes = source.tensor ? static_cast<int64_t>(encoded[i].size())
                                  : device::deviceBytes(source.type);
    POOT_RETURN_IF_ERROR(ensure(roles[i], bytes, buf));
    POOT_RETURN_IF_ERROR(buf->upload(encoded[i].data(),
                                     static_cast<int64_t>(encoded[i].size())));
    if (!source.tensor)
      POOT_RETURN_IF_ERROR(doubleOnDevice(
          device, *buf, static_cast<int64_t>(encoded[i].size()), bytes));
  }
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    GpuBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure(device::resultStorageRole(eqn, i),
                                device::deviceBytes(resultTypes[i]), buf));
    out.outs.push_back(buf);
  }
  out.resultTypes = resultTypes;
  // The scratch of a split schedule is never initialised: the partials
  // written into it are complete before the combine reads them.
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    GpuBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure("scratch", scratch->i, buf));
  }
  POOT_RETURN_IF_ERROR(device::clearCounters<GpuBuffer>(eqn, ensure));
  std::vector<device::LaunchRecord> records;
  POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));
  // The tile counts: one i32 per workgroup of the launch that binds them,
  // zero before every run.
  for (const device::LaunchRecord &record : records)
    if (std::find(record.roles.begin(), record.roles.end(), "tiles") !=
        record.roles.end()) {
      GpuBuffer *buf = nullptr;
      POOT_RETURN_IF_ERROR(ensure("tiles", 4 * record.gridX * record.gridY, buf));
      std::vector<unsigned char> zero(buf->size(), 0);
      POOT_RETURN_IF_ERROR(buf->upload(zero.data(), buf->size()));
    }
  // The error word is cleared on every run: the kernels only ever set it.
  if (device::usesErrorWord(records)) {
    POOT_RETURN_IF_ERROR(ensure("err", 4, out.err));
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(out.err->upload(&zero, 4));
  }
  std::vector<TensorType> operandTypes;
  for (const OperandSource &source : operands)
    operandTypes.push_back(source.type);
  BenchBytes counted = benchBytes(eqn, operandTypes, resultTypes);
  out.bytesRead = counted.read;
  out.bytesWritten = counted.written;

  std::map<std::string, GpuArg> byRole;
  for (const auto &[role, buf] : mine)
    byRole.emplace(role, GpuArg{buf.get()});
  return bindLaunches(eqn, byRole, out.launches, &out.kernelNames);
}

Status PlanRunner::run(const Eqn &eqn,
                       const std::vector<const Tensor *> &operands,
                       const std::vector<TensorType> &resultTypes,
                       std::vector<Tensor> &results, bool &claimed) {
  PreparedEqn prepared;
  POOT_RETURN_IF_ERROR(
      prepare(eqn, operands, resultTypes, prepared, claimed));
  if (!claimed) {
    if (eqn.op != "constant")
      ++onHost;
    return Status::ok();
  }
  POOT_RETURN_IF_ERROR(device.run(prepared.launches));
  if (prepared.err) {
    int32_t code = 0;
    POOT_RETURN_IF_ERROR(prepared.err->download(&code, 4));
    POOT_RETURN_IF_ERROR(device::kernelError(eqn, code));
  }
  std::vector<Tensor> read;
  for (size_t i = 0; i < prepared.outs.size(); ++i) {
    const TensorType &type = prepared.resultTypes[i];
    std::vector<unsigned char> bytes(device::deviceBytes(type));
    POOT_RETURN_IF_ERROR(prepared.outs[i]->download(
        bytes.data(), static_cast<int64_t>(bytes.size())));
    read.push_back(device::decodeFromDevice(type, bytes.data()));
  }
  results = std::move(read);
  ++dispatched;
  return Status::ok();
}

Status PlanRunner::buildResident(const Graph &graph) {
  auto res = std::make_unique<Resident>();
  res->graph = &graph;
  const size_t numValues = graph.values.size();
  res->storage = device::storageValues(graph);
  res->own.resize(numValues);
  res->external.assign(numValues, nullptr);
  res->arenaRange.assign(numValues, {0, -1});
  std::vector<std::pair<int64_t, int64_t>> scratchRange(graph.eqns.size(),
                                                        {0, -1});

  // The plan's arena holds the computed intermediates and split scratches,
  // each at its planned offset (256-byte aligned, slots shared between
  // values whose lifetimes do not meet). It was planned for the plan's own
  // graph: a graph run here must be that one (a copy is fine), value for
  // value and eqn for eqn.
  bool samePlan = numValues == plan.graph.values.size() &&
                  graph.eqns.size() == plan.graph.eqns.size();
  for (size_t v = 0; samePlan && v < numValues; ++v)
    samePlan = graph.values[v].dtype == plan.graph.values[v].dtype &&
               graph.values[v].shape == plan.graph.values[v].shape;
  for (size_t e = 0; samePlan && e < graph.eqns.size(); ++e)
    samePlan = graph.eqns[e].op == plan.graph.eqns[e].op &&
               graph.eqns[e].results == plan.graph.eqns[e].results;
  const bool useArena =
      samePlan && plan.arenaBytes > 0 &&
      256 % std::max<int64_t>(1, device.argOffsetAlignment()) == 0;
  auto room = [](int64_t bytes) {
    return (std::max<int64_t>(bytes, 1) + 255) / 256 * 256;
  };
  if (useArena) {
    POOT_RETURN_IF_ERROR(device.allocate(plan.arenaBytes, res->arena));
    // Constants go up once, before any run, so a slot they shared with an
    // earlier value would be overwritten by it: they keep buffers of their
    // own. So does a value the device stores wider than planned (i1 as i32
    // words), so that no range outgrows its slot.
    std::vector<bool> constant(numValues, false);
    for (const Eqn &eqn : graph.eqns)
      if (eqn.op == "constant")
        for (int v : eqn.results)
          constant[v] = true;
    for (const ArenaSlot &slot : plan.arena) {
      if (slot.offset % 256 || slot.offset + room(slot.bytes) > plan.arenaBytes)
        continue;
      if (slot.value >= 0 && slot.value < static_cast<int>(numValues) &&
          !constant[slot.value]) {
        int64_t bytes = device::deviceBytes(graph.values[slot.value]);
        if (bytes <= room(slot.bytes)) {
          res->arenaRange[slot.value] = {slot.offset, bytes};
          ++res->inArena;
        }
      } else if (slot.value < 0 && slot.eqn >= 0 &&
                 slot.eqn < static_cast<int>(graph.eqns.size())) {
        scratchRange[slot.eqn] = {slot.offset, slot.bytes};
        ++res->inArena;
      }
    }
  }
  // Held state lives in the caller's buffers; a new state value not
  // written in place over its input is copied there after each replay.
  res->heldOutput.assign(graph.outputs.size(), false);
  for (const GraphInput &input : graph.inputs) {
    auto it = held.find(input.name);
    if (it == held.end())
      continue;
    int root = res->storage[input.value];
    res->external[root] = it->second;
    res->arenaRange[root] = {0, -1};
    for (size_t o = 0; o < graph.outputs.size(); ++o) {
      const GraphOutput &output = graph.outputs[o];
      if (output.state != input.state)
        continue;
      res->heldOutput[o] = true;
      if (res->storage[output.value] != root)
        res->stateCopies.push_back({output.value, root});
    }
  }
  for (size_t v = 0; v < numValues; ++v) {
    if (res->storage[v] != static_cast<int>(v)) {
      res->arenaRange[v] = {0, -1}; // stored in its operand's storage
      continue;
    }
    if (res->external[v])
      continue;
    if (res->arenaRange[v].second < 0)
      POOT_RETURN_IF_ERROR(device.allocate(
          device::deviceBytes(graph.values[v]), res->own[v]));
  }

  auto extra = [&](int64_t bytes, GpuBuffer *&buf) -> Status {
    res->extras.emplace_back();
    POOT_RETURN_IF_ERROR(device.allocate(bytes, res->extras.back()));
    buf = res->extras.back().get();
    return Status::ok();
  };
  std::vector<GpuLaunch> launches;
  for (size_t e = 0; e < graph.eqns.size(); ++e) {
    const Eqn &eqn = graph.eqns[e];
    if (eqn.op == "constant") {
      std::vector<std::vector<unsigned char>> payloads;
      POOT_RETURN_IF_ERROR(device::constantPayloads(
          graph, eqn, /*narrowI64=*/false, payloads));
      for (size_t i = 0; i < payloads.size(); ++i)
        POOT_RETURN_IF_ERROR(res->upload(eqn.results[i], payloads[i]));
      continue;
    }
    std::map<std::string, GpuArg> byRole;
    for (auto &[role, v] : device::valueRoles(eqn)) {
      GpuArg arg = res->argOf(v);
      // (An attention's result is a float tensor: only operands match.)
      if (eqn.op == "attention" && graph.values[v].dtype == DType::I64) {
        // The kernel reads positions and lengths as i32: an input gets a
        // narrowed copy at upload; runGraph declined computed ones.
        std::unique_ptr<GpuBuffer> &copy = res->narrowed[v];
        if (!copy) {
          TensorType i32{DType::I32, graph.values[v].shape};
          POOT_RETURN_IF_ERROR(
              device.allocate(device::deviceBytes(i32), copy));
        }
        arg = GpuArg{copy.get()};
      }
      byRole.insert_or_assign(role, arg);
    }
    if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
        scratch && scratch->i > 0) {
      if (scratchRange[e].second >= scratch->i) {
        byRole.insert_or_assign("scratch",
                                GpuArg{res->arena.get(), scratchRange[e].first,
                                       scratchRange[e].second});
      } else {
        GpuBuffer *buf = nullptr;
        POOT_RETURN_IF_ERROR(extra(scratch->i, buf));
        byRole.insert_or_assign("scratch", GpuArg{buf});
      }
    }
    // The fused combine's ticket counters start at zero, and the kernels
    // leave them zero again.
    if (const Attr *counters = eqn.attr("poot.schedule.counter_bytes");
        counters && counters->i > 0) {
      GpuBuffer *buf = nullptr;
      POOT_RETURN_IF_ERROR(extra(counters->i, buf));
      std::vector<unsigned char> zero(counters->i, 0);
      POOT_RETURN_IF_ERROR(buf->upload(zero.data(), counters->i));
      byRole.insert_or_assign("counters", GpuArg{buf});
    }
    std::vector<device::LaunchRecord> records;
    POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));
    if (device::usesErrorWord(records)) {
      GpuBuffer *buf = nullptr;
      POOT_RETURN_IF_ERROR(extra(4, buf));
      byRole.insert_or_assign("err", GpuArg{buf});
      res->errorWords.push_back({&eqn, buf});
    }
    POOT_RETURN_IF_ERROR(bindLaunches(eqn, byRole, launches, nullptr));
  }
  POOT_RETURN_IF_ERROR(device.record(std::move(launches), res->recording));
  resident = std::move(res);
  return Status::ok();
}

Status PlanRunner::runGraph(const Graph &graph, std::vector<Tensor> &values,
                            std::vector<bool> &defined, bool &ran) {
  ran = false;
  // With state held on the device a graph that cannot run whole is an
  // error, before anything runs: eqn by eqn would read a stale host copy.
  auto decline = [&](const std::string &why) {
    if (held.empty())
      return Status::ok();
    return Status(ErrorCode::Unsupported,
                  "state '" + held.begin()->first +
                      "' is held on the device, but the graph cannot run "
                      "whole there: " + why);
  };
  if (!residentOn)
    return decline("resident runs are off");
  // Held by the plan's names: the graph run must carry each as state too,
  // or its host binding would be ignored and its plain outputs copied
  // into the held buffer.
  for (const auto &[name, buffer] : held) {
    int i = graph.findInput(name);
    if (i < 0 || graph.inputs[i].state.empty())
      return Status(ErrorCode::UnknownName,
                    "held state '" + name + "' is no state input of graph '" +
                        graph.name + "'");
  }
  std::vector<bool> isInput(graph.values.size(), false);
  for (const GraphInput &input : graph.inputs)
    isInput[input.value] = true;
  const Eqn *first = nullptr;
  for (const Eqn &eqn : graph.eqns) {
    if (eqn.op == "constant")
      continue;
    if (!device::hasLaunches(eqn)) // eqn by eqn, some on the host
      return decline(eqn.location + ": " + eqn.op + " has no kernels");
    // Tile counts are read back per eqn (tileCounts): eqn by eqn.
    if (eqn.attr("poot.count_tiles"))
      return decline(eqn.location + ": its kernel counts tiles");
    if (eqn.op == "attention")
      for (int v : eqn.operands)
        if (graph.values[v].dtype == DType::I64 && !isInput[v])
          return decline(eqn.location +
                         ": the attention reads a computed i64 value");
    if (!first)
      first = &eqn;
  }
  if (!first)
    return Status::ok(); // nothing for the device
  if (!module)
    POOT_RETURN_IF_ERROR(at(*first, device.loadModule(plan, module)));
  if (!resident || resident->graph != &graph)
    POOT_RETURN_IF_ERROR(buildResident(graph));
  Resident &res = *resident;

  // Every input encoded before any goes up, with the narrowed copies
  // attentions read; then the error words zeroed and one replay. The
  // previous run was waited for, so nothing still reads what the uploads
  // overwrite.
  std::vector<std::vector<unsigned char>> encoded(graph.inputs.size()),
      narrowed(graph.inputs.size());
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const GraphInput &input = graph.inputs[i];
    if (held.count(input.name))
      continue; // on the device already
    std::string what = "input '" + input.name + "'";
    const Tensor &t = values[input.value];
    POOT_RETURN_IF_ERROR(
        device::encodeForDevice(t, encoded[i], /*narrowI64=*/false, what));
    if (res.narrowed.count(input.value))
      POOT_RETURN_IF_ERROR(
          device::encodeForDevice(t, narrowed[i], /*narrowI64=*/true, what));
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    int v = graph.inputs[i].value;
    if (held.count(graph.inputs[i].name))
      continue;
    POOT_RETURN_IF_ERROR(res.upload(v, encoded[i]));
    if (auto it = res.narrowed.find(v); it != res.narrowed.end())
      POOT_RETURN_IF_ERROR(it->second->upload(
          narrowed[i].data(),
          std::min<int64_t>(narrowed[i].size(), it->second->size())));
  }
  for (auto &[eqn, word] : res.errorWords) {
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(word->upload(&zero, 4));
  }
  POOT_RETURN_IF_ERROR(device.replay(*res.recording));
  POOT_RETURN_IF_ERROR(device::checkErrorWords(res.errorWords));
  if (!res.stateCopies.empty()) {
    std::vector<GpuCopy> copies;
    for (auto [value, root] : res.stateCopies) {
      GpuArg from = res.argOf(value);
      int64_t bytes = device::deviceBytes(graph.values[value]);
      copies.push_back({from.buffer, from.offset, res.external[root], 0, bytes});
    }
    POOT_RETURN_IF_ERROR(device.copy(copies));
  }
  // Only the outputs come back, held state not at all.
  POOT_RETURN_IF_ERROR(device::readOutputs(
      graph, values, defined,
      [&](int v, void *dst, int64_t bytes) {
        return res.download(v, dst, bytes);
      },
      &res.heldOutput));
  dispatched += static_cast<int64_t>(graph.eqns.size());
  ran = true;
  return Status::ok();
}

Status PlanRunner::holdState(const std::string &inputName, GpuBuffer *buffer) {
  int i = plan.graph.findInput(inputName);
  if (i < 0 || plan.graph.inputs[i].state.empty())
    return Status(ErrorCode::UnknownName,
                  "the plan has no state input '" + inputName + "'");
  if (!buffer) {
    if (held.erase(inputName))
      resident.reset();
    return Status::ok();
  }
  const TensorType &type = plan.graph.values[plan.graph.inputs[i].value];
  if (buffer->owner() != &device)
    return Status(ErrorCode::InvalidArgument,
                  "state '" + inputName + "': the buffer belongs to another "
                                          "device");
  if (buffer->size() != device::deviceBytes(type))
    return Status(ErrorCode::InvalidArgument,
                  "state '" + inputName + "' " + type.toString() + " takes " +
                      std::to_string(device::deviceBytes(type)) +
                      " bytes on the device, the buffer holds " +
                      std::to_string(buffer->size()));
  held[inputName] = buffer;
  resident.reset(); // rebuilt around the buffer at the next run
  return Status::ok();
}

bool PlanRunner::holdsState(const std::string &inputName) const {
  return held.count(inputName) != 0;
}

Status PlanRunner::timeResident(int iterations,
                                std::vector<double> &microseconds) {
  if (!resident || !resident->recording)
    return Status(ErrorCode::InvalidArgument,
                  "no graph has run whole on the device yet");
  return device.time(*resident->recording, iterations, /*flushCache=*/true,
                     microseconds);
}

Status PlanRunner::tileCounts(const Eqn &eqn,
                              std::vector<int32_t> &counts) const {
  counts.clear();
  auto mine = buffers.find(&eqn);
  if (mine == buffers.end() || !mine->second.count("tiles"))
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": no tile counts: the eqn's kernel does not "
                                 "count tiles (poot-compile --count-tiles) or "
                                 "has not run eqn by eqn");
  const GpuBuffer &buf = *mine->second.at("tiles");
  counts.resize(static_cast<size_t>(buf.size() / 4));
  return buf.download(counts.data(), buf.size());
}
