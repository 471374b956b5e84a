//===- Comm.h - Byte exchanges between the devices of a session -*- C++ -*-===//
//
// A communicator joins the ranks (devices) of a multi-device session: each
// rank holds one Communicator and calls it from one thread. Every call moves
// byte buffers in the memory the transport addresses (host memory for the
// in-process group, device memory on the rank's GPU for NCCL) and either
// completes or fails with a Status whose kind (failure()) says why:
//
//   - InvalidArgument: a call no transport could carry out (a rank outside
//     the group, a message whose size differs from the receive);
//   - PeerFailed: another rank aborted the group (its own failure), so the
//     exchange can never complete;
//   - Timeout: a peer did not answer within the group's limit;
//   - Transport: the transport itself failed (a NCCL or CUDA error);
//   - Unavailable: there is no such transport here (no libnccl.so.2).
//
// A rank that fails on its own (a kernel, a bad binding, a call here that
// failed or timed out) calls abort(): every rank blocked on an exchange with
// the group, and every later call on any rank, fails with PeerFailed naming
// the rank and its reason. That is how a failure on one device reaches all
// of them, so none publishes anything. A group is not used again after a
// failure: a message that timed out may still arrive later.
//
// Two implementations: InProcessGroup (N ranks in threads of this process,
// for the cpu devices and CI) and NcclCommunicator (NcclComm.h).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_COMM_H
#define POOT_RUNTIME_COMM_H

#include "poot/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt::comm {

/// Why an exchange failed.
enum class CommFailure {
  None = 0,
  InvalidArgument,
  PeerFailed,
  Timeout,
  Transport,
  Unavailable,
};

/// A stable lowercase name ("peer-failed").
const char *commFailureName(CommFailure failure);
/// The runtime's ErrorCode a failure of this kind carries: InvalidArgument,
/// Unsupported for Unavailable, Io for the rest.
ErrorCode commErrorCode(CommFailure failure);

class Communicator {
public:
  virtual ~Communicator();

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "in-process" or "nccl".
  virtual const char *transport() const = 0;

  /// Sends `bytes` bytes to `peer`. Messages between two ranks arrive in
  /// the order they were sent.
  virtual Status send(int peer, const void *data, size_t bytes) = 0;
  /// Receives the next message from `peer`, which must be `bytes` long.
  virtual Status recv(int peer, void *data, size_t bytes) = 0;
  /// A send to `to` and a receive from `from` as one step: when every rank
  /// of a ring calls it at once, none waits on another's send.
  virtual Status sendRecv(int to, const void *sendData, size_t sendBytes,
                          int from, void *recvData, size_t recvBytes) = 0;
  /// Every rank's `bytes` bytes, in rank order, into `all` (size() * bytes).
  virtual Status allGather(const void *mine, size_t bytes, void *all) = 0;
  /// Returns once every rank has called it.
  virtual Status barrier() = 0;
  /// Fails the group on this rank's account (see above). Never blocks.
  virtual void abort(const std::string &why) = 0;

  /// The kind of the latest failed call (None while every call succeeded).
  CommFailure failure() const { return failure_; }

protected:
  /// Records `failure` and returns its Status: "rank R CALL: KIND: TEXT".
  Status fail(CommFailure failure, const char *call, const std::string &text);
  CommFailure failure_ = CommFailure::None;
};

struct InProcessOptions {
  /// How long a receive waits for its message before failing with Timeout
  /// (a peer that is stuck rather than failed). 0 waits for ever; a limit
  /// past 10^12 ms (about 31.7 years) waits that long.
  int64_t timeoutMs = 120000;
};

/// N ranks in threads of one process: every send is copied into the
/// receiver's mailbox (so a send never waits), a receive waits for its
/// message, and abort wakes every waiting rank. A pair's mailbox is made
/// when the pair first exchanges a message, so a group costs memory by the
/// messages in flight, not by the N^2 pairs of its ranks.
class InProcessGroup {
public:
  /// One communicator per rank, ranks 0..ranks-1 in order.
  static Status create(int ranks, const InProcessOptions &options,
                       std::vector<std::unique_ptr<Communicator>> &out);
};

} // namespace poot::rt::comm

#endif // POOT_RUNTIME_COMM_H
