//===- NcclComm.h - A communicator over NCCL, loaded at run time -*- C++ -*-===//
//
// NCCL (libnccl.so.2) is opened with dlopen when a communicator is first
// made, so the runtime builds and links without it and a machine without it
// gets a clean Unsupported. Its entry points sit in one table of function
// pointers (NcclApi) whose entries are listed once in
// lib/Runtime/Comm/NcclSymbols.def, as the CUDA driver's are:
// NcclCommunicator::create() fills it from the library, createWith() takes a
// table from the caller (the unit tests give a fake one).
//
// Buffers are device memory on the rank's GPU. Each call enqueues its NCCL
// operation on the rank's stream and then waits for the stream, so a call
// has completed when it returns. With NcclStream::query (cuStreamQuery on
// the rank's device) the wait polls: between polls it reads the group's
// asynchronous error (ncclCommGetAsyncError; a remote failure is
// PeerFailed), and a stream still busy after NcclStream::timeoutMs fails
// the call with Timeout. That matters because a NCCL operation whose peer
// never joins it (a peer that failed, or aborted, before its side) never
// finishes: only the timeout, and ncclCommAbort, end it. Without query the
// wait is NcclStream::synchronize, which has no limit.
//
// A call that fails in the transport, a peer or a timeout leaves the
// communicator unusable: it is aborted there (ncclCommAbort, which also
// ends its operations still on the stream), later calls fail with
// PeerFailed, and the destructor does not call ncclCommDestroy, which
// would wait for those operations. abort() is ncclCommAbort.
//
// Status: built and unit-tested against a fake table only. It has never run
// on real GPUs or against a real libnccl.so.2.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_NCCLCOMM_H
#define POOT_RUNTIME_NCCLCOMM_H

#include "poot/Runtime/Comm.h"

#include <functional>

struct ncclComm;
struct CUstream_st;

namespace poot::rt::comm {

/// The NCCL entry points the communicator calls, with nccl.h's C
/// signatures and names for its types. The fields are the entries of
/// NcclSymbols.def in order; the build checks that the two agree.
struct NcclApi {
  using ncclResult_t = int;
  using ncclComm_t = ::ncclComm *;
  using ncclDataType_t = int;
  using ncclRedOp_t = int;
  using cudaStream_t = ::CUstream_st *;
  struct ncclUniqueId {
    char internal[128];
  };
  enum : int {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
  };
  enum : int { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2 };
  enum : int { ncclSum = 0, ncclMin = 3 };

  ncclResult_t (*ncclGetVersion)(int *version) = nullptr;
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId *id) = nullptr;
  ncclResult_t (*ncclCommInitRank)(ncclComm_t *comm, int ranks,
                                   ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommAbort)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t comm,
                                        ncclResult_t *error) = nullptr;
  ncclResult_t (*ncclSend)(const void *data, size_t count,
                           ncclDataType_t type, int peer, ncclComm_t comm,
                           cudaStream_t stream) = nullptr;
  ncclResult_t (*ncclRecv)(void *data, size_t count, ncclDataType_t type,
                           int peer, ncclComm_t comm,
                           cudaStream_t stream) = nullptr;
  ncclResult_t (*ncclAllGather)(const void *send, void *recv, size_t count,
                                ncclDataType_t type, ncclComm_t comm,
                                cudaStream_t stream) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void *send, void *recv, size_t count,
                                ncclDataType_t type, ncclRedOp_t op,
                                ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
  /// Optional.
  const char *(*ncclGetErrorString)(ncclResult_t result) = nullptr;
  /// Optional.
  const char *(*ncclGetLastError)(ncclComm_t comm) = nullptr;

  int version = 0; ///< ncclGetVersion's, filled by the loader
};

/// The rank's CUDA stream and how to wait for it.
struct NcclStream {
  NcclApi::cudaStream_t stream = nullptr;
  /// Waits until the stream is idle (cuStreamSynchronize on the rank's
  /// device), with no limit. Used when there is no `query`; one of the two
  /// is required.
  std::function<Status()> synchronize;
  /// Asks once whether the stream is idle (cuStreamQuery: CUDA_SUCCESS sets
  /// `idle`, CUDA_ERROR_NOT_READY leaves it false, anything else is an
  /// error). With it every call waits by polling, bounded by `timeoutMs`.
  std::function<Status(bool &idle)> query;
  /// With `query`: how long a call waits for its stream before it aborts
  /// the communicator and fails with Timeout. 0 waits for ever.
  int64_t timeoutMs = 120000;
  /// At least 4 bytes of device memory the barrier reduces in place.
  void *scratch = nullptr;
};

class NcclCommunicator final : public Communicator {
public:
  ~NcclCommunicator() override;

  /// The table from libnccl.so.2 (loaded once a process): Unsupported
  /// without the library or with one that lacks a required entry point.
  static Status loadApi(std::shared_ptr<const NcclApi> &out);
  /// A new group identity (rank 0 makes it and hands it to the others).
  static Status uniqueId(const NcclApi &api, NcclApi::ncclUniqueId &out);
  /// Joins rank `rank` of `ranks` to the group `id` over libnccl.so.2.
  static Status create(int ranks, const NcclApi::ncclUniqueId &id, int rank,
                       NcclStream stream,
                       std::unique_ptr<NcclCommunicator> &out);
  /// The same over a table the caller gives (a fake, in the tests): a table
  /// without a required entry point is refused (Unsupported, naming it).
  static Status createWith(std::shared_ptr<const NcclApi> api, int ranks,
                           const NcclApi::ncclUniqueId &id, int rank,
                           NcclStream stream,
                           std::unique_ptr<NcclCommunicator> &out);

  int rank() const override { return rank_; }
  int size() const override { return ranks_; }
  const char *transport() const override { return "nccl"; }
  Status send(int peer, const void *data, size_t bytes) override;
  Status recv(int peer, void *data, size_t bytes) override;
  Status sendRecv(int to, const void *sendData, size_t sendBytes, int from,
                  void *recvData, size_t recvBytes) override;
  Status allGather(const void *mine, size_t bytes, void *all) override;
  Status barrier() override;
  void abort(const std::string &why) override;

  /// Why the group was aborted from this rank ("" when it was not).
  const std::string &abortReason() const { return abortReason_; }

private:
  NcclCommunicator() = default;
  Status check(const char *call, NcclApi::ncclResult_t result);
  Status finish(const char *call);
  Status checkPeer(const char *call, int peer);
  Status checkLive(const char *call);
  /// Aborts the communicator after a failure of its own (see above).
  void abandon(const std::string &why);

  std::shared_ptr<const NcclApi> api_;
  NcclApi::ncclComm_t comm_ = nullptr;
  NcclStream stream_;
  int rank_ = 0, ranks_ = 0;
  bool aborted_ = false;
  std::string abortReason_;
};

} // namespace poot::rt::comm

#endif // POOT_RUNTIME_NCCLCOMM_H
