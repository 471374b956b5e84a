//===- Comm.cpp - The communicator interface and the in-process group -----===//
//
// The in-process group keeps one mailbox per (sender, receiver) pair behind
// one mutex, made when the pair first exchanges a message (a group of N
// ranks has N^2 pairs; most never talk). A send copies its bytes into the
// receiver's mailbox and returns; a receive waits on the condition variable
// until its message is there, the group is aborted, or the wait times out.
// allGather and barrier are built from sends and receives, so their order
// with the point-to-point messages of the same pair is the order of the
// calls.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Comm.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <utility>

namespace poot::rt::comm {

const char *commFailureName(CommFailure failure) {
  switch (failure) {
  case CommFailure::None:
    return "none";
  case CommFailure::InvalidArgument:
    return "invalid-argument";
  case CommFailure::PeerFailed:
    return "peer-failed";
  case CommFailure::Timeout:
    return "timeout";
  case CommFailure::Transport:
    return "transport";
  case CommFailure::Unavailable:
    return "unavailable";
  }
  return "unknown";
}

ErrorCode commErrorCode(CommFailure failure) {
  switch (failure) {
  case CommFailure::None:
    return ErrorCode::Ok;
  case CommFailure::InvalidArgument:
    return ErrorCode::InvalidArgument;
  case CommFailure::Unavailable:
    return ErrorCode::Unsupported;
  case CommFailure::PeerFailed:
  case CommFailure::Timeout:
  case CommFailure::Transport:
    return ErrorCode::Io;
  }
  return ErrorCode::Io;
}

Communicator::~Communicator() = default;

Status Communicator::fail(CommFailure failure, const char *call,
                          const std::string &text) {
  failure_ = failure;
  return Status(commErrorCode(failure), "rank " + std::to_string(rank()) +
                                            " " + call + ": " +
                                            commFailureName(failure) + ": " +
                                            text);
}

namespace {

/// The longest wait a receive measures. steady_clock counts nanoseconds in
/// 64 bits, so now() + a limit of more than about 292 years overflows, and a
/// wait_for with such a limit returns at once as timed out; limits past
/// this one (about 31.7 years) wait this long instead.
constexpr int64_t kLongestWaitMs = 1000000000000;

struct Shared {
  explicit Shared(int ranks, const InProcessOptions &options)
      : ranks(ranks), options(options) {}

  const int ranks;
  const InProcessOptions options;
  std::mutex mutex;
  std::condition_variable arrived;
  /// mailboxes[{from, to}]: messages in the order they were sent.
  std::map<std::pair<int, int>, std::deque<std::vector<uint8_t>>> mailboxes;
  bool aborted = false;
  int abortedBy = -1;
  std::string abortReason;
};

class InProcessCommunicator final : public Communicator {
public:
  InProcessCommunicator(std::shared_ptr<Shared> shared, int rank)
      : shared_(std::move(shared)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return shared_->ranks; }
  const char *transport() const override { return "in-process"; }

  Status send(int peer, const void *data, size_t bytes) override {
    POOT_RETURN_IF_ERROR(checkPeer("send", peer));
    std::vector<uint8_t> message;
    if (bytes)
      message.assign(static_cast<const uint8_t *>(data),
                     static_cast<const uint8_t *>(data) + bytes);
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      if (shared_->aborted)
        return abortedError("send");
      shared_->mailboxes[{rank_, peer}].push_back(std::move(message));
    }
    shared_->arrived.notify_all();
    return Status::ok();
  }

  Status recv(int peer, void *data, size_t bytes) override {
    POOT_RETURN_IF_ERROR(checkPeer("recv", peer));
    std::unique_lock<std::mutex> lock(shared_->mutex);
    // The entry stays in the map (std::map never moves it) while this rank
    // waits, so the reference stays good while the lock is let go.
    auto &queue = shared_->mailboxes[{peer, rank_}];
    auto ready = [&] { return shared_->aborted || !queue.empty(); };
    if (shared_->options.timeoutMs > 0) {
      int64_t limit = std::min(shared_->options.timeoutMs, kLongestWaitMs);
      if (!shared_->arrived.wait_for(lock, std::chrono::milliseconds(limit),
                                     ready))
        return fail(CommFailure::Timeout, "recv",
                    "no message from rank " + std::to_string(peer) +
                        " within " +
                        std::to_string(shared_->options.timeoutMs) + " ms");
    } else {
      shared_->arrived.wait(lock, ready);
    }
    if (shared_->aborted)
      return abortedError("recv");
    std::vector<uint8_t> message = std::move(queue.front());
    queue.pop_front();
    if (message.size() != bytes)
      return fail(CommFailure::InvalidArgument, "recv",
                  "the message from rank " + std::to_string(peer) + " has " +
                      std::to_string(message.size()) + " bytes, " +
                      std::to_string(bytes) + " expected");
    if (bytes)
      std::memcpy(data, message.data(), bytes);
    return Status::ok();
  }

  Status sendRecv(int to, const void *sendData, size_t sendBytes, int from,
                  void *recvData, size_t recvBytes) override {
    // Sends never wait here, so the send simply goes first.
    POOT_RETURN_IF_ERROR(send(to, sendData, sendBytes));
    return recv(from, recvData, recvBytes);
  }

  Status allGather(const void *mine, size_t bytes, void *all) override {
    for (int peer = 0; peer < size(); ++peer)
      if (peer != rank_)
        POOT_RETURN_IF_ERROR(send(peer, mine, bytes));
    auto *out = static_cast<uint8_t *>(all);
    if (bytes)
      std::memmove(out + static_cast<size_t>(rank_) * bytes, mine, bytes);
    for (int peer = 0; peer < size(); ++peer)
      if (peer != rank_)
        POOT_RETURN_IF_ERROR(
            recv(peer, out + static_cast<size_t>(peer) * bytes, bytes));
    return Status::ok();
  }

  Status barrier() override {
    std::vector<uint8_t> none(static_cast<size_t>(size()));
    uint8_t token = 0;
    return allGather(&token, 1, none.data());
  }

  void abort(const std::string &why) override {
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      if (!shared_->aborted) {
        shared_->aborted = true;
        shared_->abortedBy = rank_;
        shared_->abortReason = why;
      }
    }
    shared_->arrived.notify_all();
  }

private:
  Status checkPeer(const char *call, int peer) {
    if (peer < 0 || peer >= shared_->ranks || peer == rank_)
      return fail(CommFailure::InvalidArgument, call,
                  "peer " + std::to_string(peer) +
                      " is not another rank of a group of " +
                      std::to_string(shared_->ranks));
    return Status::ok();
  }
  /// Called with the mutex held.
  Status abortedError(const char *call) {
    return fail(CommFailure::PeerFailed, call,
                "rank " + std::to_string(shared_->abortedBy) +
                    " aborted the group: " + shared_->abortReason);
  }

  std::shared_ptr<Shared> shared_;
  int rank_;
};

} // namespace

Status InProcessGroup::create(int ranks, const InProcessOptions &options,
                              std::vector<std::unique_ptr<Communicator>> &out) {
  if (ranks < 1 || ranks > 4096)
    return Status(ErrorCode::InvalidArgument,
                  "an in-process group needs 1 to 4096 ranks, got " +
                      std::to_string(ranks));
  if (options.timeoutMs < 0)
    return Status(ErrorCode::InvalidArgument,
                  "a negative timeout: " + std::to_string(options.timeoutMs));
  try {
    auto shared = std::make_shared<Shared>(ranks, options);
    std::vector<std::unique_ptr<Communicator>> group;
    group.reserve(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
      group.push_back(std::make_unique<InProcessCommunicator>(shared, r));
    out = std::move(group);
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported,
                  "out of memory making an in-process group of " +
                      std::to_string(ranks) + " ranks");
  }
  return Status::ok();
}

} // namespace poot::rt::comm
