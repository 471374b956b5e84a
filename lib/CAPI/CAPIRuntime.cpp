//===- CAPIRuntime.cpp - The C API over the runtime -----------------------===//
//
// Plans, sessions, bindings and runs for C callers. No LLVM: this part is in
// the runtime-only library too. Every call that returns a poot_status clears
// the per-thread message first; a failure sets it to "<status name>: text".
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/Serving.h"

#include <cstring>
#include <new>

using namespace poot::rt;

namespace {

thread_local std::string lastError;

const char *const kStatusNames[] = {
    "ok",           "invalid-argument",  "unknown-name",       "missing-input",
    "dtype-mismatch", "shape-mismatch",  "range-violation",    "validation-failed",
    "index-out-of-range", "unsupported", "io",                 "malformed",
    "compile-error"};

poot_dtype fromDType(DType d) {
  switch (d) {
  case DType::F32: return POOT_F32;
  case DType::F16: return POOT_F16;
  case DType::BF16: return POOT_BF16;
  case DType::F64: return POOT_F64;
  case DType::I32: return POOT_I32;
  case DType::I64: return POOT_I64;
  case DType::I1: return POOT_I1;
  }
  return POOT_F32;
}

/// Storage bytes of `t`; the plan loader has checked every type it holds,
/// and storageBytes never overflows (it gives -1, which no buffer matches).
size_t bytesOf(const TensorType &t) {
  int64_t bytes = storageBytes(t);
  return bytes < 0 ? SIZE_MAX : static_cast<size_t>(bytes);
}

const GraphInput *findInput(const Plan &plan, const char *name) {
  int i = name ? plan.graph.findInput(name) : -1;
  return i < 0 ? nullptr : &plan.graph.inputs[i];
}

poot_status describe(const Plan &plan, const TensorType &type,
                     const std::string &name, const char **outName,
                     poot_dtype *dtype, int *rank, int64_t *dims, int maxRank) {
  (void)plan;
  if (outName)
    *outName = name.c_str();
  if (dtype)
    *dtype = fromDType(type.dtype);
  if (rank)
    *rank = static_cast<int>(type.shape.size());
  if (dims)
    for (int i = 0; i < maxRank && i < static_cast<int>(type.shape.size()); ++i)
      dims[i] = type.shape[i];
  return POOT_OK;
}

/// poot_run after its argument check.
poot_status runSession(poot_session *s) {
  const Graph &g = s->plan->graph;
  // State enters as tensors decoded from the caller's buffers; they go back
  // into those buffers only when the whole run succeeded.
  std::map<std::string, Tensor> state;
  Bindings b;
  for (auto &[name, t] : s->inputs)
    b.inputs[name] = &t;
  for (const GraphInput &in : g.inputs) {
    if (in.state.empty() || s->deviceState.count(in.name))
      continue;
    auto it = s->state.find(in.name);
    if (it == s->state.end())
      return poot::capi::fail(POOT_ERR_MISSING_INPUT,
                              "state '" + in.name + "' is not bound");
    state[in.name] = decodeStorage(g.values[in.value], it->second);
    b.state[in.name] = &state[in.name];
  }
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(g, b,
                       s->reference ? NumericMode::Reference
                                    : NumericMode::Native,
                       outputs, s->device.get());
  if (!st.isOk())
    return poot::capi::fail(st);
  for (auto &[name, t] : state)
    encodeStorage(t, s->state[name]);
  s->outputs = std::move(outputs);
  return POOT_OK;
}

} // namespace

void poot::capi::clearError() { lastError.clear(); }

poot_status poot::capi::fail(poot_status status, const std::string &message) {
  lastError = std::string(poot_status_name(status)) + ": " + message;
  return status;
}

poot_status poot::capi::fail(const Status &status) {
  // ErrorCode and poot_status number the runtime's codes alike.
  return fail(static_cast<poot_status>(status.code()), status.message());
}

extern "C" {

const char *poot_last_error(void) { return lastError.c_str(); }

const char *poot_status_name(poot_status status) {
  int i = static_cast<int>(status);
  if (i < 0 || i >= static_cast<int>(sizeof(kStatusNames) / sizeof(*kStatusNames)))
    return "unknown";
  return kStatusNames[i];
}

poot_status poot_plan_load(const char *path, poot_plan **out) {
  poot::capi::clearError();
  if (!path || !out)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  auto plan = std::make_shared<Plan>();
  if (Status s = readPlanFile(path, *plan); !s.isOk())
    return poot::capi::fail(s);
  *out = new poot_plan{std::move(plan)};
  return POOT_OK;
}

poot_status poot_plan_save(const poot_plan *plan, const char *path) {
  poot::capi::clearError();
  if (!plan || !path)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  if (Status s = writePlanFile(path, *plan->plan); !s.isOk())
    return poot::capi::fail(s);
  return POOT_OK;
}

/// Drops the handle's reference: sessions made from the plan keep it alive.
void poot_plan_free(poot_plan *plan) { delete plan; }

int poot_plan_num_inputs(const poot_plan *plan) {
  return plan ? static_cast<int>(plan->plan->graph.inputs.size()) : 0;
}

int poot_plan_num_outputs(const poot_plan *plan) {
  return plan ? static_cast<int>(plan->plan->graph.outputs.size()) : 0;
}

poot_status poot_plan_input(const poot_plan *plan, int index,
                            const char **name, poot_dtype *dtype, int *rank,
                            int64_t *dims, int maxRank, int *isState) {
  poot::capi::clearError();
  if (!plan || index < 0 || index >= poot_plan_num_inputs(plan))
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "no input at that index");
  const GraphInput &in = plan->plan->graph.inputs[index];
  if (isState)
    *isState = !in.state.empty();
  return describe(*plan->plan, plan->plan->graph.values[in.value], in.name,
                  name, dtype, rank, dims, maxRank);
}

poot_status poot_plan_output(const poot_plan *plan, int index,
                             const char **name, poot_dtype *dtype, int *rank,
                             int64_t *dims, int maxRank, int *isState) {
  poot::capi::clearError();
  if (!plan || index < 0 || index >= poot_plan_num_outputs(plan))
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "no output at that index");
  const GraphOutput &out = plan->plan->graph.outputs[index];
  if (isState)
    *isState = !out.state.empty();
  // A validation output is published as i1 whatever its value's dtype
  // (evaluate() turns it into a witness): describe what poot_read_output
  // gives.
  TensorType type = plan->plan->graph.values[out.value];
  if (out.validation)
    type.dtype = DType::I1;
  return describe(*plan->plan, type, out.name, name, dtype, rank, dims,
                  maxRank);
}

poot_status poot_session_create(const poot_plan *plan, const char *device,
                                poot_session **out) {
  poot::capi::clearError();
  if (!plan || !out)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  std::string dev = device ? device : "cpu";
  const std::string &target = plan->plan->target;
  bool cudaPlan = target.rfind("cuda:", 0) == 0;
  bool rocmPlan = target.rfind("rocm:", 0) == 0;
  if (dev != "cpu" && dev != "oracle" && dev != "vulkan" && dev != "cuda" &&
      dev != "hip")
    return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                            "device '" + dev +
                                "' is not in this build (cpu, oracle, "
                                "vulkan, cuda, hip)");
  // A plan runs on the device it was compiled for; the cpu and the oracle
  // run a cpu plan.
  bool matches = (dev == "vulkan" && target == "vulkan") ||
                 (dev == "cuda" && cudaPlan) || (dev == "hip" && rocmPlan) ||
                 ((dev == "cpu" || dev == "oracle") && target == "cpu");
  if (!matches)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            "the plan is for target " + target +
                                ", not the " + dev + " device");
  auto s = std::make_unique<poot_session>();
  s->plan = plan->plan; // shared: the session keeps the plan alive
  s->reference = dev == "oracle";
  if (dev != "cpu" && dev != "oracle")
    if (Status st = openDevice(dev, *s->plan, DeviceOptions(), s->device);
        !st.isOk())
      return poot::capi::fail(st);
  *out = s.release();
  return POOT_OK;
}

void poot_session_free(poot_session *session) { delete session; }

poot_status poot_bind_input(poot_session *s, const char *name,
                            const void *data, size_t bytes) {
  poot::capi::clearError();
  if (!s || !name || !data)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  const GraphInput *in = findInput(*s->plan, name);
  if (!in)
    return poot::capi::fail(POOT_ERR_UNKNOWN_NAME,
                            std::string("the plan has no input '") + name + "'");
  if (!in->state.empty())
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            std::string("'") + name +
                                "' is state: bind it with poot_bind_state");
  const TensorType &type = s->plan->graph.values[in->value];
  if (bytes != bytesOf(type))
    return poot::capi::fail(POOT_ERR_SHAPE_MISMATCH,
                            std::string("input '") + name + "': expected " +
                                std::to_string(bytesOf(type)) + " bytes (" +
                                type.toString() + "), got " +
                                std::to_string(bytes));
  // The values are held as doubles, up to 8 times the caller's bytes.
  try {
    s->inputs[name] = decodeStorage(type, data);
  } catch (const std::bad_alloc &) {
    return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                            std::string("input '") + name +
                                "': out of memory allocating " +
                                type.toString());
  }
  return POOT_OK;
}

poot_status poot_bind_slot(poot_session *s, const char *slot,
                           const void *data, size_t bytes) {
  poot::capi::clearError();
  if (!s || !slot)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  const GraphInput *found = nullptr;
  for (const GraphInput &in : s->plan->graph.inputs) {
    if (in.slot != slot)
      continue;
    if (found)
      return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                              std::string("several inputs are slot '") + slot +
                                  "': bind them by name");
    found = &in;
  }
  if (!found)
    return poot::capi::fail(POOT_ERR_UNKNOWN_NAME,
                            std::string("the plan has no slot '") + slot + "'");
  return poot_bind_input(s, found->name.c_str(), data, bytes);
}

poot_status poot_bind_state(poot_session *s, const char *name, void *data,
                            size_t bytes) {
  poot::capi::clearError();
  if (!s || !name || !data)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  const GraphInput *in = findInput(*s->plan, name);
  if (!in || in->state.empty())
    return poot::capi::fail(POOT_ERR_UNKNOWN_NAME,
                            std::string("the plan has no state '") + name + "'");
  const TensorType &type = s->plan->graph.values[in->value];
  if (bytes != bytesOf(type))
    return poot::capi::fail(POOT_ERR_SHAPE_MISMATCH,
                            std::string("state '") + name + "': expected " +
                                std::to_string(bytesOf(type)) + " bytes (" +
                                type.toString() + "), got " +
                                std::to_string(bytes));
  s->state[name] = data;
  return POOT_OK;
}

poot_status poot_run(poot_session *s) {
  poot::capi::clearError();
  if (!s)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null session");
  // The allocation boundary: evaluate() reports its own; decoding the
  // state and publishing the outputs allocate too.
  try {
    return runSession(s);
  } catch (const std::bad_alloc &) {
    return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                            "out of memory (nothing published)");
  }
}

poot_status poot_read_output(const poot_session *s, const char *name,
                             void *data, size_t bytes) {
  poot::capi::clearError();
  if (!s || !name || !data)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  auto it = s->outputs.find(name);
  if (it == s->outputs.end())
    return poot::capi::fail(POOT_ERR_UNKNOWN_NAME,
                            std::string("no output '") + name +
                                "' from a successful run");
  if (bytes != bytesOf(it->second.type()))
    return poot::capi::fail(POOT_ERR_SHAPE_MISMATCH,
                            std::string("output '") + name + "': expected " +
                                std::to_string(bytesOf(it->second.type())) +
                                " bytes, got " + std::to_string(bytes));
  encodeStorage(it->second, data);
  return POOT_OK;
}

//--- State kept on the device ---------------------------------------------

namespace {

/// The session's device and the state input `name`, or a typed failure.
poot_status deviceStateOf(const poot_session *s, const char *name,
                          const GraphInput *&in) {
  if (!s || !name)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  if (!s->device)
    return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                            "a cpu or oracle session keeps state in the "
                            "caller's buffers only");
  in = findInput(*s->plan, name);
  if (!in || in->state.empty())
    return poot::capi::fail(POOT_ERR_UNKNOWN_NAME,
                            std::string("the plan has no state '") + name + "'");
  return POOT_OK;
}

/// The device buffer of state `name` kept on the device, or a typed failure.
poot_status keptBuffer(const poot_session *s, const char *name,
                       GpuBuffer *&out) {
  const GraphInput *in = nullptr;
  if (poot_status st = deviceStateOf(s, name, in); st != POOT_OK)
    return st;
  auto it = s->deviceState.find(in->name);
  if (it == s->deviceState.end())
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            std::string("state '") + name +
                                "' is not kept on the device");
  out = it->second.get();
  return POOT_OK;
}

/// Ok when `data` holds exactly the kept state's bytes.
poot_status keptBytes(const char *name, const void *data, size_t bytes,
                      const GpuBuffer &buffer) {
  if (data && int64_t(bytes) == buffer.size())
    return POOT_OK;
  return poot::capi::fail(POOT_ERR_SHAPE_MISMATCH,
                          std::string("state '") + name + "': expected " +
                              std::to_string(buffer.size()) + " bytes, got " +
                              std::to_string(bytes));
}

poot_status keepOnDevice(poot_session *s, const GraphInput &in) {
  const TensorType &type = s->plan->graph.values[in.value];
  GpuDevice &gpu = s->device->runner().gpu();
  std::unique_ptr<GpuBuffer> buffer;
  if (Status st = gpu.allocate(storageBytes(type), buffer); !st.isOk())
    return poot::capi::fail(st);
  // It starts as the bound buffer, or zeros.
  std::vector<unsigned char> bytes(bytesOf(type), 0);
  if (auto it = s->state.find(in.name); it != s->state.end())
    std::memcpy(bytes.data(), it->second, bytes.size());
  if (Status st = buffer->upload(bytes.data(), int64_t(bytes.size()));
      !st.isOk())
    return poot::capi::fail(st);
  PlanRunner &runner = s->device->runner();
  runner.setResident(true);
  if (Status st = runner.holdState(in.name, buffer.get()); !st.isOk())
    return poot::capi::fail(st);
  s->deviceState[in.name] = std::move(buffer);
  return POOT_OK;
}

} // namespace

poot_status poot_state_keep_on_device(poot_session *s, const char *name) {
  poot::capi::clearError();
  const GraphInput *in = nullptr;
  if (poot_status st = deviceStateOf(s, name, in); st != POOT_OK)
    return st;
  if (s->deviceState.count(in->name))
    return POOT_OK;
  try {
    return keepOnDevice(s, *in);
  } catch (const std::bad_alloc &) {
    return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                            "out of memory keeping state on the device");
  }
}

poot_status poot_state_read(const poot_session *s, const char *name,
                            void *data, size_t bytes) {
  poot::capi::clearError();
  GpuBuffer *buffer = nullptr;
  if (poot_status st = keptBuffer(s, name, buffer); st != POOT_OK)
    return st;
  if (poot_status st = keptBytes(name, data, bytes, *buffer); st != POOT_OK)
    return st;
  if (Status st = buffer->download(data, int64_t(bytes)); !st.isOk())
    return poot::capi::fail(st);
  return POOT_OK;
}

poot_status poot_state_write(poot_session *s, const char *name,
                             const void *data, size_t bytes) {
  poot::capi::clearError();
  GpuBuffer *buffer = nullptr;
  if (poot_status st = keptBuffer(s, name, buffer); st != POOT_OK)
    return st;
  if (poot_status st = keptBytes(name, data, bytes, *buffer); st != POOT_OK)
    return st;
  if (Status st = buffer->upload(data, int64_t(bytes)); !st.isOk())
    return poot::capi::fail(st);
  return POOT_OK;
}

poot_status poot_state_copy_blocks(poot_session *s, const char *name,
                                   const poot_kv_copy *copies, int num_copies,
                                   int32_t block_size, int64_t slots) {
  poot::capi::clearError();
  GpuBuffer *buffer = nullptr;
  if (poot_status st = keptBuffer(s, name, buffer); st != POOT_OK)
    return st;
  if ((!copies && num_copies) || num_copies < 0)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  try {
    std::vector<serve::BlockCopy> list;
    for (int i = 0; i < num_copies; ++i)
      list.push_back(
          {copies[i].src_block, copies[i].dst_block, copies[i].tokens});
    Status st = serve::applyBlockCopies(list, block_size, slots,
                                        s->device->runner().gpu(), *buffer);
    return st.isOk() ? POOT_OK : poot::capi::fail(st);
  } catch (const std::bad_alloc &) {
    return poot::capi::fail(POOT_ERR_UNSUPPORTED, "out of memory");
  }
}

} // extern "C"
