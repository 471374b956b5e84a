//===- CudaRunner.cpp - Running a plan's kernels on CUDA ------------------===//
//
// The same contract as VulkanRunner, over the CUDA device: operand roles
// from the attention's operand segments, buffers bound by the roles each
// launch's `args` lists, launches in order on one stream, the result read
// back. The kernels index their buffers with the eqn's static shapes, so a
// buffer is reused for as long as its size stays the same.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/CudaRunner.h"

#include "Device/DeviceEqn.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <sstream>

using namespace poot::rt;

/// The buffers, launches and captured graph of the graph last run whole.
/// Buffers live in deques so the launches' pointers into them stay valid.
struct CudaRunner::Resident {
  const Graph *graph = nullptr;
  std::deque<CudaDeviceBuffer> values; ///< one per graph value
  /// Per graph value, its storage in `values` (an in-place write's result
  /// shares its operand's; that value's own buffer stays empty).
  std::vector<int> storage;
  /// i32 copies of i64 inputs that attentions read (by value).
  std::map<int, CudaDeviceBuffer *> narrowed;
  std::deque<CudaDeviceBuffer> extras; ///< scratches, error words, copies
  std::vector<CudaLaunch> launches;
  std::vector<std::pair<const Eqn *, CudaDeviceBuffer *>> errorWords;
  CudaGraph captured;
};

CudaRunner::CudaRunner(CudaDevice &device, const Plan &plan)
    : device(device), plan(plan) {}

CudaRunner::~CudaRunner() = default;

int64_t CudaRunner::capturedLaunches() const {
  return resident ? static_cast<int64_t>(resident->launches.size()) : 0;
}

Status CudaRunner::buildResident(const Graph &graph) {
  auto res = std::make_unique<Resident>();
  res->graph = &graph;
  res->storage = device::storageValues(graph);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    res->values.emplace_back();
    if (res->storage[v] == static_cast<int>(v))
      POOT_RETURN_IF_ERROR(device.createBuffer(
          device::deviceBytes(graph.values[v]), res->values.back()));
  }
  auto bufferOf = [&](int v) -> CudaDeviceBuffer & {
    return res->values[res->storage[v]];
  };
  for (const Eqn &eqn : graph.eqns) {
    if (eqn.op == "constant") {
      // A constant's payload goes up once, with the buffers.
      std::vector<std::vector<unsigned char>> payloads;
      POOT_RETURN_IF_ERROR(device::constantPayloads(
          graph, eqn, /*narrowI64=*/false, payloads));
      for (size_t i = 0; i < payloads.size(); ++i) {
        CudaDeviceBuffer &buf = bufferOf(eqn.results[i]);
        POOT_RETURN_IF_ERROR(buf.upload(
            payloads[i].data(),
            std::min<int64_t>(payloads[i].size(), buf.size())));
      }
      continue;
    }
    std::vector<device::LaunchRecord> records;
    POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));
    std::map<std::string, CudaDeviceBuffer *> byRole;
    for (auto &[role, v] : device::valueRoles(eqn)) {
      CudaDeviceBuffer *buf = &bufferOf(v);
      // (An attention's result is a float tensor: only operands match.)
      if (eqn.op == "attention" && graph.values[v].dtype == DType::I64) {
        // The kernel reads positions and lengths as i32: an input gets a
        // narrowed copy at upload; runGraph declined computed ones.
        auto it = res->narrowed.find(v);
        if (it == res->narrowed.end()) {
          res->extras.emplace_back();
          TensorType i32{DType::I32, graph.values[v].shape};
          POOT_RETURN_IF_ERROR(device.createBuffer(device::deviceBytes(i32),
                                                   res->extras.back()));
          it = res->narrowed.emplace(v, &res->extras.back()).first;
        }
        buf = it->second;
      }
      byRole.insert_or_assign(role, buf);
    }
    if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
        scratch && scratch->i > 0) {
      res->extras.emplace_back();
      POOT_RETURN_IF_ERROR(device.createBuffer(scratch->i, res->extras.back()));
      byRole.insert_or_assign("scratch", &res->extras.back());
    }
    if (const Attr *counters = eqn.attr("poot.schedule.counter_bytes");
        counters && counters->i > 0) {
      res->extras.emplace_back();
      POOT_RETURN_IF_ERROR(
          device.createBuffer(counters->i, res->extras.back()));
      std::vector<unsigned char> zero(counters->i, 0);
      POOT_RETURN_IF_ERROR(res->extras.back().upload(zero.data(), counters->i));
      byRole.insert_or_assign("counters", &res->extras.back());
    }
    if (device::usesErrorWord(records)) {
      res->extras.emplace_back();
      POOT_RETURN_IF_ERROR(device.createBuffer(4, res->extras.back()));
      byRole.insert_or_assign("err", &res->extras.back());
      res->errorWords.push_back({&eqn, &res->extras.back()});
    }
    for (const device::LaunchRecord &r : records) {
      CudaLaunch launch;
      POOT_RETURN_IF_ERROR(device::bindArgs(
          eqn, r, byRole, launch.args, [](CudaDeviceBuffer *b) {
            return std::optional<CudaDeviceBuffer *>(b);
          }));
      POOT_RETURN_IF_ERROR(kernel(r.kernel, launch.kernel));
      launch.gridX = r.gridX;
      launch.gridY = r.gridY;
      launch.lanes = r.lanes;
      res->launches.push_back(std::move(launch));
    }
  }
  POOT_RETURN_IF_ERROR(device.captureGraph(
      [&](CudaStream stream) { return enqueueLaunches(res->launches, stream); },
      res->captured));
  resident = std::move(res);
  return Status::ok();
}

Status CudaRunner::runGraph(const Graph &graph, std::vector<Tensor> &values,
                            std::vector<bool> &defined, bool &ran) {
  ran = false;
  if (!residentOn || plan.ptx.empty())
    return Status::ok();
  std::vector<bool> isInput(graph.values.size(), false);
  for (const GraphInput &input : graph.inputs)
    isInput[input.value] = true;
  for (const Eqn &eqn : graph.eqns) {
    if (eqn.op == "constant")
      continue;
    if (!device::hasLaunches(eqn))
      return Status::ok();
    if (eqn.op == "attention")
      for (int v : eqn.operands)
        if (graph.values[v].dtype == DType::I64 && !isInput[v])
          return Status::ok();
  }
  if (!resident || resident->graph != &graph)
    POOT_RETURN_IF_ERROR(buildResident(graph));
  Resident &res = *resident;

  // Inputs up (with the narrowed copies attentions read), error words
  // zeroed, then one replay. The copies are synchronous, and the previous
  // run was waited for, so nothing still reads what they overwrite.
  for (const GraphInput &input : graph.inputs) {
    const Tensor &t = values[input.value];
    std::vector<unsigned char> bytes;
    std::string what = "input '" + input.name + "'";
    POOT_RETURN_IF_ERROR(
        device::encodeForDevice(t, bytes, /*narrowI64=*/false, what));
    CudaDeviceBuffer &buf = res.values[res.storage[input.value]];
    POOT_RETURN_IF_ERROR(
        buf.upload(bytes.data(), std::min<int64_t>(bytes.size(), buf.size())));
    if (auto it = res.narrowed.find(input.value); it != res.narrowed.end()) {
      POOT_RETURN_IF_ERROR(
          device::encodeForDevice(t, bytes, /*narrowI64=*/true, what));
      POOT_RETURN_IF_ERROR(it->second->upload(
          bytes.data(), std::min<int64_t>(bytes.size(), it->second->size())));
    }
  }
  for (auto &[eqn, word] : res.errorWords) {
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(word->upload(&zero, 4));
  }
  POOT_RETURN_IF_ERROR(res.captured.replay());
  POOT_RETURN_IF_ERROR(device.synchronize());
  POOT_RETURN_IF_ERROR(device::checkErrorWords(res.errorWords));
  // Only the outputs come back.
  POOT_RETURN_IF_ERROR(device::readOutputs(
      graph, values, defined, [&](int v, void *dst, int64_t bytes) {
        return res.values[res.storage[v]].download(dst, bytes);
      }));
  dispatched += static_cast<int64_t>(graph.eqns.size());
  ran = true;
  return Status::ok();
}

Status CudaRunner::timeResident(int iterations,
                                std::vector<double> &microseconds) {
  if (!resident)
    return Status(ErrorCode::InvalidArgument,
                  "no graph has run whole on the device yet");
  const CudaGraph &captured = resident->captured;
  return device.timeRuns(
      iterations,
      [&](CudaStream stream) { return captured.replay(stream); },
      /*flushL2=*/true, microseconds);
}

Status CudaRunner::kernel(const std::string &name, const CudaKernel *&out) {
  if (!module.valid()) {
    // PTX is forward compatible, never backward: a module for sm_90 does
    // not load on sm_80, and the driver's error for that is obscure.
    const std::string prefix = "cuda:sm_";
    if (plan.target.rfind(prefix, 0) == 0) {
      int wanted = std::atoi(plan.target.c_str() + prefix.size());
      if (wanted > device.computeCapability())
        return Status(ErrorCode::Unsupported,
                      "the plan's kernels are for " +
                          plan.target.substr(5) + ", the device is " +
                          device.facts().name);
    }
    POOT_RETURN_IF_ERROR(device.createModule(plan.ptx, module));
  }
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    CudaKernel k;
    POOT_RETURN_IF_ERROR(module.kernel(name, k));
    it = kernels.emplace(name, std::move(k)).first;
  }
  out = &it->second;
  return Status::ok();
}

Status CudaRunner::prepare(const Eqn &eqn,
                           const std::vector<const Tensor *> &operands,
                           const std::vector<TensorType> &resultTypes,
                           CudaPreparedEqn &out, bool &claimed) {
  const Attr *count = eqn.attr("poot.launches.count");
  claimed = false;
  if (!count) {
    if (deviceOnly && eqn.op != "constant")
      return Status(ErrorCode::Unsupported,
                    (eqn.location.empty() ? "" : eqn.location + ": ") +
                        "poot." + eqn.op +
                        " has no device kernels and the run is device-only");
    return Status::ok();
  }
  if (plan.ptx.empty())
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": the plan names launches but holds no "
                                 "PTX kernels");
  if (eqn.op != "attention")
    return prepareSimple(eqn, operands, resultTypes, out, claimed);
  if (resultTypes.size() != 1)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": an attention with " +
                      std::to_string(resultTypes.size()) + " results");
  claimed = true;
  out = CudaPreparedEqn();
  out.resultType = resultTypes[0];

  // The attention's operands by role, in ODS order (as VulkanRunner reads
  // them: q, k and v are always there, the rest where the segments say).
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

  // The eqn's buffers, kept across runs; one whose size changed is
  // replaced. Never smaller than 4 bytes: an empty tensor still binds.
  EqnBuffers &mine = buffers[&eqn];
  auto ensure = [&](const std::string &role, int64_t bytes,
                    CudaDeviceBuffer *&buf) -> Status {
    bytes = std::max<int64_t>(bytes, 4);
    CudaDeviceBuffer &slot = mine[role];
    if (!slot.valid() || slot.size() != bytes)
      POOT_RETURN_IF_ERROR(device.createBuffer(bytes, slot));
    buf = &slot;
    return Status::ok();
  };
  for (auto &[role, given] : byRole) {
    // i64 positions and lengths travel as i32 (see the generator).
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
    CudaDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(
        ensure(role, static_cast<int64_t>(bytes.size()), buf));
    POOT_RETURN_IF_ERROR(
        buf->upload(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  // The bytes the benchmark counts (the same on every device).
  BenchBytes counted = benchBytes(eqn, operands, resultTypes);
  out.bytesRead = counted.read;
  out.bytesWritten = counted.written;
  POOT_RETURN_IF_ERROR(
      ensure("out", storageBytes(resultTypes[0]), out.out));
  out.outs = {out.out};
  out.resultTypes = resultTypes;
  // The scratch of a split schedule is never initialised: the partials
  // written into it are complete before the combine reads them.
  if (const Attr *scratch = eqn.attr("poot.schedule.scratch_bytes");
      scratch && scratch->i > 0) {
    CudaDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure("scratch", scratch->i, buf));
  }
  POOT_RETURN_IF_ERROR(device::clearCounters<CudaDeviceBuffer>(eqn, ensure));

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
    CudaLaunch launch;
    std::stringstream roles(args->s);
    for (std::string role; std::getline(roles, role, ',');) {
      auto it = mine.find(role);
      if (it == mine.end() || !it->second.valid())
        return Status(ErrorCode::InvalidArgument,
                      eqn.location + ": launch " + name->s +
                          " needs operand '" + role + "' the eqn lacks");
      launch.args.push_back(&it->second);
    }
    POOT_RETURN_IF_ERROR(kernel(name->s, launch.kernel));
    launch.gridX = grid->ints[0];
    launch.gridY = grid->ints[1];
    launch.lanes = lanes->i;
    out.kernelNames += (l ? "," : "") + name->s;
    out.launches.push_back(std::move(launch));
  }
  return Status::ok();
}

Status CudaRunner::prepareSimple(const Eqn &eqn,
                                 const std::vector<const Tensor *> &operands,
                                 const std::vector<TensorType> &resultTypes,
                                 CudaPreparedEqn &out, bool &claimed) {
  // Operand i binds as in<i>, result i as out<i>, the error word as err;
  // i1 travels as i32 words, i64 as itself.
  claimed = true;
  out = CudaPreparedEqn();
  std::vector<device::LaunchRecord> records;
  POOT_RETURN_IF_ERROR(device::readLaunches(eqn, records));
  EqnBuffers &mine = buffers[&eqn];
  auto ensure = [&](const std::string &role, int64_t bytes,
                    CudaDeviceBuffer *&buf) -> Status {
    bytes = std::max<int64_t>(bytes, 4);
    CudaDeviceBuffer &slot = mine[role];
    if (!slot.valid() || slot.size() != bytes)
      POOT_RETURN_IF_ERROR(device.createBuffer(bytes, slot));
    buf = &slot;
    return Status::ok();
  };
  std::vector<std::string> roles = device::operandRoles(eqn);
  for (size_t i = 0; i < operands.size() && i < roles.size(); ++i) {
    std::vector<unsigned char> bytes;
    POOT_RETURN_IF_ERROR(device::encodeForDevice(
        *operands[i], bytes, /*narrowI64=*/false, eqn.location + ": " + roles[i]));
    CudaDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure(roles[i], static_cast<int64_t>(bytes.size()), buf));
    POOT_RETURN_IF_ERROR(
        buf->upload(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  // The bytes the benchmark counts (the same on every device).
  BenchBytes counted = benchBytes(eqn, operands, resultTypes);
  out.bytesRead = counted.read;
  out.bytesWritten = counted.written;
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    CudaDeviceBuffer *buf = nullptr;
    POOT_RETURN_IF_ERROR(ensure(device::resultStorageRole(eqn, i),
                                device::deviceBytes(resultTypes[i]), buf));
    out.outs.push_back(buf);
  }
  out.resultTypes = resultTypes;
  if (!resultTypes.empty()) {
    out.out = out.outs[0];
    out.resultType = resultTypes[0];
  }
  if (device::usesErrorWord(records)) {
    POOT_RETURN_IF_ERROR(ensure("err", 4, out.err));
    int32_t zero = 0;
    POOT_RETURN_IF_ERROR(out.err->upload(&zero, 4));
  }
  for (const device::LaunchRecord &r : records) {
    CudaLaunch launch;
    POOT_RETURN_IF_ERROR(device::bindArgs(
        eqn, r, mine, launch.args,
        [](CudaDeviceBuffer &b) -> std::optional<CudaDeviceBuffer *> {
          if (!b.valid())
            return std::nullopt;
          return &b;
        }));
    POOT_RETURN_IF_ERROR(kernel(r.kernel, launch.kernel));
    launch.gridX = r.gridX;
    launch.gridY = r.gridY;
    launch.lanes = r.lanes;
    out.kernelNames += (out.launches.empty() ? "" : ",") + r.kernel;
    out.launches.push_back(std::move(launch));
  }
  return Status::ok();
}

Status CudaRunner::enqueueLaunches(const std::vector<CudaLaunch> &launches,
                                   CudaStream stream) {
  for (const CudaLaunch &l : launches)
    POOT_RETURN_IF_ERROR(device.launch(*l.kernel, l.args, l.gridX, l.gridY,
                                       l.lanes, stream));
  return Status::ok();
}

Status CudaRunner::enqueue(const CudaPreparedEqn &prepared,
                           CudaStream stream) {
  return enqueueLaunches(prepared.launches, stream);
}

Status CudaRunner::run(const Eqn &eqn,
                       const std::vector<const Tensor *> &operands,
                       const std::vector<TensorType> &resultTypes,
                       std::vector<Tensor> &results, bool &claimed) {
  CudaPreparedEqn prepared;
  POOT_RETURN_IF_ERROR(
      prepare(eqn, operands, resultTypes, prepared, claimed));
  if (!claimed)
    return Status::ok();
  POOT_RETURN_IF_ERROR(enqueue(prepared));
  // The download waits for the launches: a fault in a kernel surfaces
  // there (or here, from the synchronisation) as the launch's error.
  POOT_RETURN_IF_ERROR(device.synchronize());
  if (prepared.err) {
    int32_t code = 0;
    POOT_RETURN_IF_ERROR(prepared.err->download(&code, 4));
    POOT_RETURN_IF_ERROR(device::kernelError(eqn, code));
  }
  results.clear();
  for (size_t i = 0; i < prepared.outs.size(); ++i) {
    const TensorType &type = prepared.resultTypes[i];
    std::vector<unsigned char> bytes(device::deviceBytes(type));
    POOT_RETURN_IF_ERROR(prepared.outs[i]->download(
        bytes.data(), static_cast<int64_t>(bytes.size())));
    results.push_back(device::decodeFromDevice(type, bytes.data()));
  }
  ++dispatched;
  return Status::ok();
}
