//===- NcclComm.cpp - A communicator over NCCL, loaded at run time --------===//
//
// libnccl.so.2 is reached only through dlopen and the NcclApi table, whose
// entries come from NcclSymbols.def. Each call enqueues on the rank's stream
// and waits for it, polling the stream and the communicator's asynchronous
// error under a time limit where the caller gave a query (NcclComm.h), so
// that a peer's failure (ncclRemoteError) surfaces as PeerFailed on this
// rank and a peer that never answers as Timeout. A failure of the transport
// aborts the communicator.
//
// Never run on real GPUs: the unit tests drive it through a fake table.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/NcclComm.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <thread>
#include <type_traits>

namespace poot::rt::comm {

namespace {

using ncclResult_t = NcclApi::ncclResult_t;
using ncclComm_t = NcclApi::ncclComm_t;
using ncclDataType_t = NcclApi::ncclDataType_t;
using ncclRedOp_t = NcclApi::ncclRedOp_t;
using ncclUniqueId = NcclApi::ncclUniqueId;
using cudaStream_t = NcclApi::cudaStream_t;

// NcclApi spells its fields out so that the installed header stands alone;
// the table built from NcclSymbols.def must have the same layout.
struct ListedApi {
#define POOT_NCCL_SYMBOL(ret, name, params, ...) ret(*name) params;
#include "Comm/NcclSymbols.def"
  int version;
};
#define POOT_NCCL_SYMBOL(ret, name, params, ...)                               \
  static_assert(std::is_same_v<decltype(NcclApi::name), ret(*) params> &&      \
                    offsetof(NcclApi, name) == offsetof(ListedApi, name),      \
                "NcclApi::" #name " is not NcclSymbols.def's entry");
#include "Comm/NcclSymbols.def"
static_assert(sizeof(NcclApi) == sizeof(ListedApi) &&
                  offsetof(NcclApi, version) == offsetof(ListedApi, version),
              "NcclApi has fields NcclSymbols.def does not list");

void *lookup(void *handle, std::initializer_list<const char *> symbols) {
  for (const char *symbol : symbols)
    if (void *fn = dlsym(handle, symbol))
      return fn;
  return nullptr;
}

/// The first required entry point `api` lacks, or null.
const char *missingEntryPoint(const NcclApi &api) {
#define POOT_NCCL_SYMBOL(ret, name, params, ...)                               \
  if (!api.name)                                                               \
    return #name;
#define POOT_NCCL_OPTIONAL_SYMBOL(ret, name, params, ...)
#include "Comm/NcclSymbols.def"
  return nullptr;
}

const char *resultName(ncclResult_t result) {
  switch (result) {
  case NcclApi::ncclSuccess:
    return "ncclSuccess";
  case NcclApi::ncclUnhandledCudaError:
    return "ncclUnhandledCudaError";
  case NcclApi::ncclSystemError:
    return "ncclSystemError";
  case NcclApi::ncclInternalError:
    return "ncclInternalError";
  case NcclApi::ncclInvalidArgument:
    return "ncclInvalidArgument";
  case NcclApi::ncclInvalidUsage:
    return "ncclInvalidUsage";
  case NcclApi::ncclRemoteError:
    return "ncclRemoteError";
  case NcclApi::ncclInProgress:
    return "ncclInProgress";
  }
  return "ncclResult";
}

CommFailure failureOf(ncclResult_t result) {
  switch (result) {
  case NcclApi::ncclSuccess:
    return CommFailure::None;
  case NcclApi::ncclInvalidArgument:
  case NcclApi::ncclInvalidUsage:
    return CommFailure::InvalidArgument;
  case NcclApi::ncclRemoteError:
    return CommFailure::PeerFailed;
  default:
    return CommFailure::Transport;
  }
}

std::string resultText(const NcclApi &api, ncclResult_t result) {
  std::string text = resultName(result);
  text += " (" + std::to_string(result) + ")";
  if (api.ncclGetErrorString)
    if (const char *s = api.ncclGetErrorString(result))
      text += std::string(": ") + s;
  return text;
}

} // namespace

NcclCommunicator::~NcclCommunicator() {
  // An aborted communicator has no handle left (abort() and abandon() give
  // it to ncclCommAbort); a healthy one is destroyed.
  if (comm_ && api_)
    api_->ncclCommDestroy(comm_);
}

Status NcclCommunicator::loadApi(std::shared_ptr<const NcclApi> &out) {
  struct Loaded {
    std::shared_ptr<NcclApi> api;
    Status status;
  };
  // Loaded once a process; the handle stays open (NCCL keeps threads).
  static const Loaded loaded = [] {
    Loaded result;
    void *handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      result.status = Status(ErrorCode::Unsupported,
                             std::string("no NCCL (libnccl.so.2): ") +
                                 (why ? why : "dlopen failed"));
      return result;
    }
    auto api = std::make_shared<NcclApi>();
#define POOT_NCCL_SYMBOL(ret, name, params, ...)                               \
  api->name =                                                                  \
      reinterpret_cast<decltype(api->name)>(lookup(handle, {__VA_ARGS__}));
#include "Comm/NcclSymbols.def"
    if (const char *missing = missingEntryPoint(*api)) {
      result.status =
          Status(ErrorCode::Unsupported,
                 std::string("NCCL (libnccl.so.2) is too old: it has no ") +
                     missing);
      return result;
    }
    if (api->ncclGetVersion(&api->version) != NcclApi::ncclSuccess)
      api->version = 0;
    result.api = std::move(api);
    return result;
  }();
  if (!loaded.status.isOk())
    return loaded.status;
  out = loaded.api;
  return Status::ok();
}

Status NcclCommunicator::uniqueId(const NcclApi &api, ncclUniqueId &out) {
  if (!api.ncclGetUniqueId)
    return Status(ErrorCode::Unsupported, "the NCCL table has no "
                                          "ncclGetUniqueId");
  ncclUniqueId id{};
  if (ncclResult_t r = api.ncclGetUniqueId(&id); r != NcclApi::ncclSuccess)
    return Status(commErrorCode(failureOf(r)),
                  "ncclGetUniqueId: " + resultText(api, r));
  out = id;
  return Status::ok();
}

Status NcclCommunicator::create(int ranks, const ncclUniqueId &id, int rank,
                                NcclStream stream,
                                std::unique_ptr<NcclCommunicator> &out) {
  std::shared_ptr<const NcclApi> api;
  POOT_RETURN_IF_ERROR(loadApi(api));
  return createWith(std::move(api), ranks, id, rank, std::move(stream), out);
}

Status NcclCommunicator::createWith(std::shared_ptr<const NcclApi> api,
                                    int ranks, const ncclUniqueId &id,
                                    int rank, NcclStream stream,
                                    std::unique_ptr<NcclCommunicator> &out) {
  if (!api)
    return Status(ErrorCode::InvalidArgument, "no NCCL table");
  if (const char *missing = missingEntryPoint(*api))
    return Status(ErrorCode::Unsupported,
                  std::string("the NCCL table has no ") + missing);
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return Status(ErrorCode::InvalidArgument,
                  "rank " + std::to_string(rank) + " of " +
                      std::to_string(ranks) + " is not a rank of the group");
  if (!stream.synchronize && !stream.query)
    return Status(ErrorCode::InvalidArgument,
                  "an NCCL communicator needs a way to wait for its stream");
  if (stream.timeoutMs < 0)
    return Status(ErrorCode::InvalidArgument,
                  "a negative timeout: " + std::to_string(stream.timeoutMs));
  if (!stream.scratch)
    return Status(ErrorCode::InvalidArgument,
                  "an NCCL communicator needs 4 bytes of device scratch for "
                  "its barrier");
  std::unique_ptr<NcclCommunicator> c(new NcclCommunicator());
  c->api_ = std::move(api);
  c->stream_ = std::move(stream);
  c->rank_ = rank;
  c->ranks_ = ranks;
  ncclComm_t comm = nullptr;
  ncclResult_t r = c->api_->ncclCommInitRank(&comm, ranks, id, rank);
  if (r != NcclApi::ncclSuccess)
    return c->check("ncclCommInitRank", r);
  c->comm_ = comm;
  out = std::move(c);
  return Status::ok();
}

Status NcclCommunicator::check(const char *call, ncclResult_t result) {
  if (result == NcclApi::ncclSuccess)
    return Status::ok();
  std::string text = resultText(*api_, result);
  if (comm_ && api_->ncclGetLastError)
    if (const char *last = api_->ncclGetLastError(comm_); last && *last)
      text += std::string(" (") + last + ")";
  CommFailure kind = failureOf(result);
  Status status = fail(kind, call, text);
  // A call NCCL refused as such leaves the communicator as it was; any other
  // error leaves it broken, with operations that may never finish.
  if (kind != CommFailure::InvalidArgument)
    abandon(status.message());
  return status;
}

void NcclCommunicator::abandon(const std::string &why) {
  if (aborted_)
    return;
  aborted_ = true;
  abortReason_ = why;
  if (comm_)
    api_->ncclCommAbort(comm_);
  comm_ = nullptr;
}

/// Waits for the stream, reading the group's asynchronous error: by polling
/// under the time limit where there is a query, else by synchronize.
Status NcclCommunicator::finish(const char *call) {
  auto asyncError = [&]() -> Status {
    ncclResult_t async = NcclApi::ncclSuccess;
    POOT_RETURN_IF_ERROR(check("ncclCommGetAsyncError",
                               api_->ncclCommGetAsyncError(comm_, &async)));
    // ncclInProgress: a nonblocking communicator still busy, not an error.
    if (async != NcclApi::ncclSuccess && async != NcclApi::ncclInProgress)
      return check(call, async);
    return Status::ok();
  };
  if (!stream_.query) {
    if (Status s = stream_.synchronize(); !s.isOk()) {
      Status failed = fail(CommFailure::Transport, call,
                           "waiting for the stream: " + s.toString());
      abandon(failed.message());
      return failed;
    }
    return asyncError();
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  // Limits past about 31.7 years wait that long (now() + more overflows).
  const int64_t limitMs =
      std::min<int64_t>(stream_.timeoutMs, 1000000000000);
  for (int polls = 0;; ++polls) {
    bool idle = false;
    if (Status s = stream_.query(idle); !s.isOk()) {
      Status failed = fail(CommFailure::Transport, call,
                           "waiting for the stream: " + s.toString());
      abandon(failed.message());
      return failed;
    }
    // Read after every poll: a peer's failure ends the wait at once.
    POOT_RETURN_IF_ERROR(asyncError());
    if (idle)
      return Status::ok();
    if (limitMs > 0 &&
        Clock::now() - start >= std::chrono::milliseconds(limitMs)) {
      Status failed =
          fail(CommFailure::Timeout, call,
               "the stream was still busy after " + std::to_string(limitMs) +
                   " ms (a peer that never joined the exchange); the "
                   "communicator was aborted");
      abandon(failed.message());
      return failed;
    }
    // Spin briefly (an exchange between GPUs of one host takes
    // microseconds), then back off to 100 us a poll.
    if (polls < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(
          std::min(100, 1 << std::min(polls - 64, 7))));
  }
}

Status NcclCommunicator::checkLive(const char *call) {
  if (aborted_)
    return fail(CommFailure::PeerFailed, call,
                "this rank aborted the group: " + abortReason_);
  return Status::ok();
}

Status NcclCommunicator::checkPeer(const char *call, int peer) {
  POOT_RETURN_IF_ERROR(checkLive(call));
  if (peer < 0 || peer >= ranks_ || peer == rank_)
    return fail(CommFailure::InvalidArgument, call,
                "peer " + std::to_string(peer) +
                    " is not another rank of a group of " +
                    std::to_string(ranks_));
  return Status::ok();
}

Status NcclCommunicator::send(int peer, const void *data, size_t bytes) {
  POOT_RETURN_IF_ERROR(checkPeer("send", peer));
  if (bytes == 0)
    return Status::ok();
  POOT_RETURN_IF_ERROR(check("ncclSend",
                             api_->ncclSend(data, bytes, NcclApi::ncclUint8,
                                            peer, comm_, stream_.stream)));
  return finish("ncclSend");
}

Status NcclCommunicator::recv(int peer, void *data, size_t bytes) {
  POOT_RETURN_IF_ERROR(checkPeer("recv", peer));
  if (bytes == 0)
    return Status::ok();
  POOT_RETURN_IF_ERROR(check("ncclRecv",
                             api_->ncclRecv(data, bytes, NcclApi::ncclUint8,
                                            peer, comm_, stream_.stream)));
  return finish("ncclRecv");
}

Status NcclCommunicator::sendRecv(int to, const void *sendData,
                                  size_t sendBytes, int from, void *recvData,
                                  size_t recvBytes) {
  POOT_RETURN_IF_ERROR(checkPeer("sendRecv", to));
  POOT_RETURN_IF_ERROR(checkPeer("sendRecv", from));
  // One group: NCCL matches the pair without either rank waiting on the
  // other's send first.
  POOT_RETURN_IF_ERROR(check("ncclGroupStart", api_->ncclGroupStart()));
  ncclResult_t s = NcclApi::ncclSuccess, r = NcclApi::ncclSuccess;
  if (sendBytes)
    s = api_->ncclSend(sendData, sendBytes, NcclApi::ncclUint8, to, comm_,
                       stream_.stream);
  if (s == NcclApi::ncclSuccess && recvBytes)
    r = api_->ncclRecv(recvData, recvBytes, NcclApi::ncclUint8, from, comm_,
                       stream_.stream);
  // The group is closed whatever happened inside it.
  ncclResult_t end = api_->ncclGroupEnd();
  POOT_RETURN_IF_ERROR(check("ncclSend", s));
  POOT_RETURN_IF_ERROR(check("ncclRecv", r));
  POOT_RETURN_IF_ERROR(check("ncclGroupEnd", end));
  return finish("sendRecv");
}

Status NcclCommunicator::allGather(const void *mine, size_t bytes,
                                   void *all) {
  POOT_RETURN_IF_ERROR(checkLive("allGather"));
  if (bytes == 0)
    return Status::ok();
  POOT_RETURN_IF_ERROR(
      check("ncclAllGather",
            api_->ncclAllGather(mine, all, bytes, NcclApi::ncclUint8, comm_,
                                stream_.stream)));
  return finish("ncclAllGather");
}

Status NcclCommunicator::barrier() {
  POOT_RETURN_IF_ERROR(checkLive("barrier"));
  // NCCL has no barrier: an all-reduce of one word every rank must join.
  POOT_RETURN_IF_ERROR(
      check("ncclAllReduce",
            api_->ncclAllReduce(stream_.scratch, stream_.scratch, 1,
                                NcclApi::ncclInt32, NcclApi::ncclSum, comm_,
                                stream_.stream)));
  return finish("barrier");
}

void NcclCommunicator::abort(const std::string &why) {
  // Peers blocked on this rank see ncclRemoteError where NCCL can tell
  // them, and time out where it cannot (a peer's abort is not always
  // visible to the ranks waiting on it).
  abandon(why);
}

} // namespace poot::rt::comm
