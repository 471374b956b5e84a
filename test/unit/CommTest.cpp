//===- CommTest.cpp - The communicators: in-process and NCCL over a fake --===//
//
// The in-process group over 2, 3 and 4 ranks in threads, and the NCCL
// communicator driven through a fake NcclApi table (host memory for device
// memory, ranks in threads, a mailbox per pair, collectives by rendezvous).
// The NCCL path has never run against a real libnccl.so.2 or on GPUs.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Comm.h"
#include "poot/Runtime/NcclComm.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

using namespace poot::rt;
using namespace poot::rt::comm;

namespace {

/// Runs `body(rank)` on every rank in threads.
template <typename Body> void onRanks(int n, Body body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back(body, r);
  for (std::thread &t : threads)
    t.join();
}

//===----------------------------------------------------------------------===//
// In-process
//===----------------------------------------------------------------------===//

TEST(InProcessCommTest, RingAllGatherBarrier) {
  for (int n : {1, 2, 3, 4}) {
    std::vector<std::unique_ptr<Communicator>> group;
    ASSERT_TRUE(InProcessGroup::create(n, {}, group).isOk());
    ASSERT_EQ(group.size(), size_t(n));
    std::vector<Status> status(static_cast<size_t>(n));
    onRanks(n, [&](int r) {
      Communicator &c = *group[size_t(r)];
      EXPECT_EQ(c.rank(), r);
      EXPECT_EQ(c.size(), n);
      EXPECT_STREQ(c.transport(), "in-process");
      // A ring: every rank passes its number on, n - 1 times.
      int32_t held = r;
      for (int step = 0; step + 1 < n; ++step) {
        int32_t incoming = -1;
        Status s = c.sendRecv((r + 1) % n, &held, 4, (r + n - 1) % n,
                              &incoming, 4);
        if (!s.isOk()) {
          status[size_t(r)] = s;
          return;
        }
        EXPECT_EQ(incoming, ((r - step - 1) % n + n) % n);
        held = incoming;
      }
      double mine = 10.0 * r + 0.5;
      std::vector<double> all(static_cast<size_t>(n));
      status[size_t(r)] = c.allGather(&mine, 8, all.data());
      for (int p = 0; p < n; ++p)
        EXPECT_EQ(all[size_t(p)], 10.0 * p + 0.5);
      if (status[size_t(r)].isOk())
        status[size_t(r)] = c.barrier();
    });
    for (const Status &s : status)
      EXPECT_TRUE(s.isOk()) << s.toString();
  }
}

TEST(InProcessCommTest, MessagesArriveInOrder) {
  std::vector<std::unique_ptr<Communicator>> group;
  ASSERT_TRUE(InProcessGroup::create(2, {}, group).isOk());
  for (uint8_t i = 0; i < 5; ++i)
    ASSERT_TRUE(group[0]->send(1, &i, 1).isOk());
  ASSERT_TRUE(group[0]->send(1, nullptr, 0).isOk());
  for (uint8_t i = 0; i < 5; ++i) {
    uint8_t got = 99;
    ASSERT_TRUE(group[1]->recv(0, &got, 1).isOk());
    EXPECT_EQ(got, i);
  }
  EXPECT_TRUE(group[1]->recv(0, nullptr, 0).isOk());
}

TEST(InProcessCommTest, TypedErrors) {
  std::vector<std::unique_ptr<Communicator>> group;
  EXPECT_EQ(InProcessGroup::create(0, {}, group).code(),
            ErrorCode::InvalidArgument);
  InProcessOptions quick;
  quick.timeoutMs = 50;
  ASSERT_TRUE(InProcessGroup::create(3, quick, group).isOk());
  uint32_t word = 7;
  // Not another rank.
  Status s = group[0]->send(0, &word, 4);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(group[0]->failure(), CommFailure::InvalidArgument);
  EXPECT_EQ(group[0]->send(3, &word, 4).code(), ErrorCode::InvalidArgument);
  // A message of another size.
  ASSERT_TRUE(group[0]->send(1, &word, 4).isOk());
  uint64_t wide = 0;
  s = group[1]->recv(0, &wide, 8);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("has 4 bytes, 8 expected"), std::string::npos)
      << s.toString();
  // Nobody sends: a timeout.
  s = group[2]->recv(1, &word, 4);
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(group[2]->failure(), CommFailure::Timeout);
  EXPECT_NE(s.toString().find("rank 2 recv: timeout"), std::string::npos)
      << s.toString();
}

TEST(InProcessCommTest, AbortWakesEveryWaitingRank) {
  for (int n : {2, 3, 4}) {
    std::vector<std::unique_ptr<Communicator>> group;
    ASSERT_TRUE(InProcessGroup::create(n, {}, group).isOk());
    std::vector<Status> status(static_cast<size_t>(n));
    onRanks(n, [&](int r) {
      Communicator &c = *group[size_t(r)];
      if (r == n - 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        c.abort("kernel fault");
        return;
      }
      // Waits for a message the failed rank never sends.
      std::vector<uint8_t> all(static_cast<size_t>(n));
      uint8_t one = 1;
      status[size_t(r)] = c.allGather(&one, 1, all.data());
    });
    for (int r = 0; r + 1 < n; ++r) {
      const Status &s = status[size_t(r)];
      EXPECT_EQ(s.code(), ErrorCode::Io) << s.toString();
      EXPECT_EQ(group[size_t(r)]->failure(), CommFailure::PeerFailed);
      EXPECT_NE(s.message().find("rank " + std::to_string(n - 1) +
                                 " aborted the group: kernel fault"),
                std::string::npos)
          << s.toString();
    }
    // Every later call fails too, on every rank.
    uint8_t b = 0;
    EXPECT_EQ(group[0]->send(1, &b, 1).code(), ErrorCode::Io);
    EXPECT_EQ(group[0]->barrier().code(), ErrorCode::Io);
  }
}

TEST(InProcessCommTest, ALongTimeoutWaitsInsteadOfExpiringAtOnce) {
  // A limit of hundreds of years overflowed steady_clock's deadline, and
  // every receive whose message was not there yet failed at once with
  // Timeout. Such a limit now waits (for 10^12 ms at most).
  for (int64_t limit : {int64_t(1) << 62, std::numeric_limits<int64_t>::max()}) {
    InProcessOptions forever;
    forever.timeoutMs = limit;
    std::vector<std::unique_ptr<Communicator>> group;
    ASSERT_TRUE(InProcessGroup::create(2, forever, group).isOk());
    Status received;
    uint32_t got = 0;
    std::thread receiver([&] { received = group[1]->recv(0, &got, 4); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint32_t word = 0xC0FFEE;
    ASSERT_TRUE(group[0]->send(1, &word, 4).isOk());
    receiver.join();
    EXPECT_TRUE(received.isOk()) << limit << ": " << received.toString();
    EXPECT_EQ(got, word);
  }
}

TEST(InProcessCommTest, MailboxesAreMadeWhenUsed) {
  // A mailbox for each of the N^2 pairs up front cost about 650 bytes a
  // pair: 690 MB for 1024 ranks (measured), about 11 GB for 4096 (the
  // limit). Now a group costs by the pairs that talk.
  auto residentBytes = [] {
    long pages = 0, resident = 0;
    if (FILE *f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
      std::fclose(f);
    }
    return int64_t(resident) * int64_t(sysconf(_SC_PAGESIZE));
  };
  int64_t before = residentBytes();
  std::vector<std::unique_ptr<Communicator>> group;
  ASSERT_TRUE(InProcessGroup::create(4096, {}, group).isOk());
  ASSERT_EQ(group.size(), 4096u);
  if (before > 0) {
    EXPECT_LT(residentBytes() - before, int64_t(64) << 20);
  }
  uint16_t word = 4095, got = 0;
  ASSERT_TRUE(group[4095]->send(0, &word, 2).isOk());
  ASSERT_TRUE(group[0]->recv(4095, &got, 2).isOk());
  EXPECT_EQ(got, 4095);
  EXPECT_EQ(InProcessGroup::create(4097, {}, group).code(),
            ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// NCCL over a fake table
//===----------------------------------------------------------------------===//

struct FakeNccl {
  std::mutex mutex;
  std::condition_variable changed;
  int ranks = 0;
  std::map<std::pair<int, int>, std::deque<std::vector<uint8_t>>> mailboxes;
  bool aborted = false;
  int initResult = NcclApi::ncclSuccess;
  int groupStarts = 0, groupEnds = 0, sends = 0, recvs = 0, aborts = 0,
      destroys = 0;
  std::map<int, int> asyncError; ///< per rank
  // Rendezvous for collectives.
  int arrived = 0, generation = 0;
  std::vector<const void *> deposited;

  void reset(int n) {
    std::lock_guard<std::mutex> lock(mutex);
    ranks = n;
    mailboxes.clear();
    aborted = false;
    initResult = NcclApi::ncclSuccess;
    groupStarts = groupEnds = sends = recvs = aborts = destroys = 0;
    asyncError.clear();
    arrived = 0;
    deposited.assign(size_t(n), nullptr);
  }
  /// Waits until every rank has arrived (a generation barrier).
  void meet(std::unique_lock<std::mutex> &lock) {
    int gen = generation;
    if (++arrived == ranks) {
      arrived = 0;
      ++generation;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return generation != gen || aborted; });
    }
  }
};
FakeNccl fake;

struct FakeComm {
  int rank;
};
::ncclComm *handleOf(int rank) {
  return reinterpret_cast<::ncclComm *>(new FakeComm{rank});
}
int rankOf(::ncclComm *c) { return reinterpret_cast<FakeComm *>(c)->rank; }

std::shared_ptr<NcclApi> fakeApi() {
  auto api = std::make_shared<NcclApi>();
  api->ncclGetVersion = [](int *v) {
    *v = 22005;
    return 0;
  };
  api->ncclGetUniqueId = [](NcclApi::ncclUniqueId *id) {
    std::memset(id->internal, 0, sizeof id->internal);
    std::strcpy(id->internal, "fake-group");
    return 0;
  };
  api->ncclCommInitRank = [](::ncclComm **c, int n, NcclApi::ncclUniqueId id,
                             int rank) {
    if (fake.initResult != NcclApi::ncclSuccess)
      return fake.initResult;
    if (std::strcmp(id.internal, "fake-group") != 0 || n != fake.ranks)
      return int(NcclApi::ncclInvalidArgument);
    *c = handleOf(rank);
    return 0;
  };
  api->ncclCommDestroy = [](::ncclComm *c) {
    std::lock_guard<std::mutex> lock(fake.mutex);
    ++fake.destroys;
    delete reinterpret_cast<FakeComm *>(c);
    return 0;
  };
  api->ncclCommAbort = [](::ncclComm *c) {
    {
      std::lock_guard<std::mutex> lock(fake.mutex);
      ++fake.aborts;
      fake.aborted = true;
      delete reinterpret_cast<FakeComm *>(c);
    }
    fake.changed.notify_all();
    return 0;
  };
  api->ncclCommGetAsyncError = [](::ncclComm *c, int *error) {
    std::lock_guard<std::mutex> lock(fake.mutex);
    *error = fake.asyncError[rankOf(c)];
    return 0;
  };
  api->ncclSend = [](const void *data, size_t count, int type, int peer,
                     ::ncclComm *c, NcclApi::cudaStream_t) {
    if (type != NcclApi::ncclUint8)
      return int(NcclApi::ncclInvalidArgument);
    {
      std::lock_guard<std::mutex> lock(fake.mutex);
      ++fake.sends;
      auto *p = static_cast<const uint8_t *>(data);
      fake.mailboxes[{rankOf(c), peer}].emplace_back(p, p + count);
    }
    fake.changed.notify_all();
    return 0;
  };
  api->ncclRecv = [](void *data, size_t count, int, int peer, ::ncclComm *c,
                     NcclApi::cudaStream_t) {
    std::unique_lock<std::mutex> lock(fake.mutex);
    ++fake.recvs;
    int me = rankOf(c);
    auto &box = fake.mailboxes[{peer, me}];
    fake.changed.wait_for(lock, std::chrono::seconds(10),
                          [&] { return !box.empty() || fake.aborted; });
    if (box.empty()) {
      // As NCCL does: the enqueue succeeds, the failure comes back as the
      // communicator's asynchronous error.
      fake.asyncError[me] = NcclApi::ncclRemoteError;
      return 0;
    }
    std::vector<uint8_t> m = std::move(box.front());
    box.pop_front();
    if (m.size() != count) {
      fake.asyncError[me] = NcclApi::ncclInvalidUsage;
      return 0;
    }
    std::memcpy(data, m.data(), count);
    return 0;
  };
  api->ncclAllGather = [](const void *send, void *recv, size_t count, int,
                          ::ncclComm *c, NcclApi::cudaStream_t) {
    std::unique_lock<std::mutex> lock(fake.mutex);
    int me = rankOf(c);
    fake.deposited[size_t(me)] = send;
    fake.meet(lock);
    if (fake.aborted)
      return int(NcclApi::ncclRemoteError);
    for (int r = 0; r < fake.ranks; ++r)
      std::memcpy(static_cast<uint8_t *>(recv) + size_t(r) * count,
                  fake.deposited[size_t(r)], count);
    fake.meet(lock);
    return 0;
  };
  api->ncclAllReduce = [](const void *send, void *recv, size_t count,
                          int type, int op, ::ncclComm *c,
                          NcclApi::cudaStream_t) {
    if (type != NcclApi::ncclInt32 || op != NcclApi::ncclSum || count != 1)
      return int(NcclApi::ncclInvalidArgument);
    std::unique_lock<std::mutex> lock(fake.mutex);
    fake.deposited[size_t(rankOf(c))] = send;
    fake.meet(lock);
    int32_t sum = 0;
    for (const void *p : fake.deposited)
      sum += *static_cast<const int32_t *>(p);
    fake.meet(lock);
    *static_cast<int32_t *>(recv) = sum;
    return 0;
  };
  api->ncclGroupStart = [] {
    std::lock_guard<std::mutex> lock(fake.mutex);
    ++fake.groupStarts;
    return 0;
  };
  api->ncclGroupEnd = [] {
    std::lock_guard<std::mutex> lock(fake.mutex);
    ++fake.groupEnds;
    return 0;
  };
  api->ncclGetErrorString = [](int r) -> const char * {
    return r == NcclApi::ncclRemoteError ? "remote process exited"
                                         : "fake error";
  };
  return api;
}

struct Scratch {
  int32_t word = 1;
};

NcclStream streamFor(Scratch &s, std::atomic<int> *syncs = nullptr) {
  NcclStream stream;
  stream.synchronize = [syncs] {
    if (syncs)
      ++*syncs;
    return Status::ok();
  };
  stream.scratch = &s.word;
  return stream;
}

TEST(NcclCommTest, RingAllGatherBarrierOverAFakeTable) {
  for (int n : {2, 3, 4}) {
    fake.reset(n);
    auto api = fakeApi();
    NcclApi::ncclUniqueId id;
    ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
    std::vector<Scratch> scratch(static_cast<size_t>(n));
    std::atomic<int> syncs{0};
    std::vector<Status> status(static_cast<size_t>(n));
    onRanks(n, [&](int r) {
      std::unique_ptr<NcclCommunicator> c;
      Status s = NcclCommunicator::createWith(api, n, id, r,
                                              streamFor(scratch[size_t(r)],
                                                        &syncs),
                                              c);
      if (!s.isOk()) {
        status[size_t(r)] = s;
        return;
      }
      EXPECT_STREQ(c->transport(), "nccl");
      int64_t held = 100 + r;
      for (int step = 0; step + 1 < n && s.isOk(); ++step) {
        int64_t incoming = -1;
        s = c->sendRecv((r + 1) % n, &held, 8, (r + n - 1) % n, &incoming, 8);
        EXPECT_EQ(incoming, 100 + ((r - step - 1) % n + n) % n);
        held = incoming;
      }
      std::vector<int32_t> all(static_cast<size_t>(n));
      int32_t mine = r * r;
      if (s.isOk())
        s = c->allGather(&mine, 4, all.data());
      for (int p = 0; p < n && s.isOk(); ++p)
        EXPECT_EQ(all[size_t(p)], p * p);
      if (s.isOk())
        s = c->barrier();
      EXPECT_EQ(scratch[size_t(r)].word, n); // every rank's 1, summed
      status[size_t(r)] = s;
    });
    for (const Status &s : status)
      EXPECT_TRUE(s.isOk()) << s.toString();
    // One NCCL group per ring step and rank; every call waited for the
    // stream; the communicators were destroyed, not aborted.
    EXPECT_EQ(fake.groupStarts, n * (n - 1));
    EXPECT_EQ(fake.groupEnds, n * (n - 1));
    EXPECT_EQ(fake.sends, n * (n - 1));
    EXPECT_EQ(syncs.load(), n * (n - 1) + 2 * n);
    EXPECT_EQ(fake.destroys, n);
    EXPECT_EQ(fake.aborts, 0);
  }
}

TEST(NcclCommTest, TableWithoutARequiredEntryPointIsRefused) {
  fake.reset(1);
  auto api = fakeApi();
  api->ncclSend = nullptr;
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  Scratch scratch;
  std::unique_ptr<NcclCommunicator> c;
  Status s = NcclCommunicator::createWith(api, 1, id, 0, streamFor(scratch), c);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("ncclSend"), std::string::npos) << s.toString();
  // The optional ones may be missing.
  api = fakeApi();
  api->ncclGetErrorString = nullptr;
  api->ncclGetLastError = nullptr;
  EXPECT_TRUE(
      NcclCommunicator::createWith(api, 1, id, 0, streamFor(scratch), c)
          .isOk());
  // A rank outside the group, no way to wait, no scratch.
  EXPECT_EQ(NcclCommunicator::createWith(api, 2, id, 2, streamFor(scratch), c)
                .code(),
            ErrorCode::InvalidArgument);
  NcclStream noSync;
  noSync.scratch = &scratch.word;
  EXPECT_EQ(NcclCommunicator::createWith(api, 1, id, 0, noSync, c).code(),
            ErrorCode::InvalidArgument);
}

TEST(NcclCommTest, ErrorsAreTyped) {
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  Scratch s0, s1;
  std::unique_ptr<NcclCommunicator> c;
  // Init refused.
  fake.initResult = NcclApi::ncclInvalidUsage;
  Status s = NcclCommunicator::createWith(api, 2, id, 0, streamFor(s0), c);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("ncclCommInitRank"), std::string::npos);
  EXPECT_NE(s.message().find("ncclInvalidUsage"), std::string::npos)
      << s.toString();
  fake.initResult = NcclApi::ncclSuccess;
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 0, streamFor(s0), c).isOk());
  // Not another rank: refused before NCCL sees it.
  uint32_t word = 3;
  EXPECT_EQ(c->send(0, &word, 4).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(c->failure(), CommFailure::InvalidArgument);
  EXPECT_EQ(fake.sends, 0);
  // Zero bytes: nothing to move.
  EXPECT_TRUE(c->send(1, nullptr, 0).isOk());
  EXPECT_EQ(fake.sends, 0);
  // The stream fails.
  NcclStream broken = streamFor(s1);
  broken.synchronize = [] {
    return Status(ErrorCode::Io, "cuStreamSynchronize: illegal address");
  };
  std::unique_ptr<NcclCommunicator> d;
  ASSERT_TRUE(NcclCommunicator::createWith(api, 2, id, 1, broken, d).isOk());
  s = d->send(0, &word, 4);
  EXPECT_EQ(s.code(), ErrorCode::Io);
  EXPECT_EQ(d->failure(), CommFailure::Transport);
  EXPECT_NE(s.message().find("illegal address"), std::string::npos);
}

TEST(NcclCommTest, AbortReachesThePeerAsPeerFailed) {
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  Scratch scratch[2];
  std::vector<Status> status(2);
  std::vector<CommFailure> kinds(2);
  onRanks(2, [&](int r) {
    std::unique_ptr<NcclCommunicator> c;
    ASSERT_TRUE(NcclCommunicator::createWith(api, 2, id, r,
                                             streamFor(scratch[r]), c)
                    .isOk());
    if (r == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      c->abort("out of device memory");
      EXPECT_EQ(c->abortReason(), "out of device memory");
      uint8_t b = 0;
      status[0] = c->send(1, &b, 1);
      kinds[0] = c->failure();
      return;
    }
    uint64_t got = 0;
    status[1] = c->recv(0, &got, 8);
    kinds[1] = c->failure();
  });
  // Rank 0 aborted its communicator; rank 1's, broken by the remote error,
  // is aborted too rather than destroyed (ncclCommDestroy would wait for
  // its operations, which may never finish).
  EXPECT_EQ(fake.aborts, 2);
  EXPECT_EQ(fake.destroys, 0);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(status[size_t(r)].code(), ErrorCode::Io)
        << status[size_t(r)].toString();
    EXPECT_EQ(kinds[size_t(r)], CommFailure::PeerFailed);
  }
  EXPECT_NE(status[1].message().find("ncclRemoteError"), std::string::npos)
      << status[1].toString();
  EXPECT_NE(status[1].message().find("remote process exited"),
            std::string::npos);
}

TEST(NcclCommTest, WithoutTheLibraryCreateIsUnsupported) {
  if (void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "libnccl.so.2 is installed here";
  }
  std::shared_ptr<const NcclApi> api;
  Status s = NcclCommunicator::loadApi(api);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("libnccl.so.2"), std::string::npos);
  NcclApi::ncclUniqueId id{};
  Scratch scratch;
  std::unique_ptr<NcclCommunicator> c;
  EXPECT_EQ(NcclCommunicator::create(1, id, 0, streamFor(scratch), c).code(),
            ErrorCode::Unsupported);
}


//===----------------------------------------------------------------------===//
// NCCL: the polling wait, its time limit, and broken communicators
//===----------------------------------------------------------------------===//

/// A stream whose query answers busy until `idleAfter` polls (never, when
/// negative); counts the polls and the synchronize calls.
struct PolledStream {
  Scratch scratch;
  std::atomic<int> polls{0}, syncs{0};
  int idleAfter = -1;
  NcclStream stream(int64_t timeoutMs) {
    NcclStream s;
    s.synchronize = [this] {
      ++syncs;
      return Status::ok();
    };
    s.query = [this](bool &idle) {
      int n = ++polls;
      idle = idleAfter >= 0 && n > idleAfter;
      return Status::ok();
    };
    s.timeoutMs = timeoutMs;
    s.scratch = &scratch.word;
    return s;
  }
};

TEST(NcclCommTest, APollingWaitReturnsWhenTheStreamIsIdle) {
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  PolledStream polled;
  polled.idleAfter = 3;
  std::unique_ptr<NcclCommunicator> c;
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 0, polled.stream(1000), c)
          .isOk());
  uint32_t word = 5;
  Status s = c->send(1, &word, 4);
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(polled.polls.load(), 4);
  EXPECT_EQ(polled.syncs.load(), 0); // the query replaces synchronize
  c.reset();
  EXPECT_EQ(fake.destroys, 1);
  EXPECT_EQ(fake.aborts, 0);
  // Either way to wait is enough; neither is refused, as is a negative limit.
  NcclStream none;
  none.scratch = &polled.scratch.word;
  EXPECT_EQ(NcclCommunicator::createWith(api, 2, id, 0, none, c).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(
      NcclCommunicator::createWith(api, 2, id, 0, polled.stream(-1), c).code(),
      ErrorCode::InvalidArgument);
}

TEST(NcclCommTest, AStreamThatNeverFinishesTimesOutAndAborts) {
  // Before, every call waited in synchronize with no limit: a peer that
  // failed or aborted before joining the exchange left this rank's NCCL
  // operation, and so this thread, waiting for ever.
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  PolledStream polled; // never idle
  std::unique_ptr<NcclCommunicator> c;
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 0, polled.stream(50), c).isOk());
  uint32_t word = 5;
  auto start = std::chrono::steady_clock::now();
  Status s = c->send(1, &word, 4);
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), ErrorCode::Io) << s.toString();
  EXPECT_EQ(c->failure(), CommFailure::Timeout);
  EXPECT_NE(s.message().find("rank 0 ncclSend: timeout: the stream was still "
                             "busy after 50 ms"),
            std::string::npos)
      << s.toString();
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  EXPECT_LT(waited, std::chrono::seconds(5));
  // Aborted, which ends the stuck operation; later calls fail at once.
  EXPECT_EQ(fake.aborts, 1);
  EXPECT_NE(c->abortReason().find("timeout"), std::string::npos);
  EXPECT_EQ(c->barrier().code(), ErrorCode::Io);
  EXPECT_EQ(c->failure(), CommFailure::PeerFailed);
  int sends = fake.sends;
  EXPECT_EQ(c->send(1, &word, 4).code(), ErrorCode::Io);
  EXPECT_EQ(fake.sends, sends);
  c.reset();
  EXPECT_EQ(fake.destroys, 0);
  EXPECT_EQ(fake.aborts, 1);
}

TEST(NcclCommTest, APeersFailureEndsAPollingWaitAtOnce) {
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  PolledStream polled; // never idle: only the peer's error ends the wait
  std::unique_ptr<NcclCommunicator> c;
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 1, polled.stream(0), c).isOk());
  std::thread peer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::lock_guard<std::mutex> lock(fake.mutex);
    fake.asyncError[1] = NcclApi::ncclRemoteError;
  });
  uint32_t word = 5;
  Status s = c->send(0, &word, 4);
  peer.join();
  EXPECT_EQ(s.code(), ErrorCode::Io) << s.toString();
  EXPECT_EQ(c->failure(), CommFailure::PeerFailed);
  EXPECT_NE(s.message().find("ncclRemoteError"), std::string::npos)
      << s.toString();
  EXPECT_EQ(fake.aborts, 1);
  c.reset();
  EXPECT_EQ(fake.destroys, 0);
}

TEST(NcclCommTest, ABrokenCommunicatorIsAbortedNotDestroyed) {
  // Before, a communicator whose call had failed in the transport was still
  // destroyed with ncclCommDestroy, which waits for operations that may
  // never finish.
  fake.reset(2);
  auto api = fakeApi();
  NcclApi::ncclUniqueId id;
  ASSERT_TRUE(NcclCommunicator::uniqueId(*api, id).isOk());
  Scratch scratch;
  std::unique_ptr<NcclCommunicator> c;
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 0, streamFor(scratch), c)
          .isOk());
  {
    std::lock_guard<std::mutex> lock(fake.mutex);
    fake.asyncError[0] = NcclApi::ncclSystemError;
  }
  uint32_t word = 5;
  Status s = c->send(1, &word, 4);
  EXPECT_EQ(s.code(), ErrorCode::Io) << s.toString();
  EXPECT_EQ(c->failure(), CommFailure::Transport);
  EXPECT_EQ(fake.aborts, 1);
  EXPECT_EQ(c->send(1, &word, 4).code(), ErrorCode::Io);
  EXPECT_EQ(c->failure(), CommFailure::PeerFailed);
  c.reset();
  EXPECT_EQ(fake.destroys, 0);
  // A call NCCL refuses as such (a usage error) leaves it usable.
  fake.reset(2);
  ASSERT_TRUE(
      NcclCommunicator::createWith(api, 2, id, 0, streamFor(scratch), c)
          .isOk());
  auto refusing = std::make_shared<NcclApi>(*api);
  refusing->ncclSend = [](const void *, size_t, int, int, ::ncclComm *,
                          NcclApi::cudaStream_t) {
    return int(NcclApi::ncclInvalidArgument);
  };
  std::unique_ptr<NcclCommunicator> d;
  ASSERT_TRUE(
      NcclCommunicator::createWith(refusing, 2, id, 1, streamFor(scratch), d)
          .isOk());
  EXPECT_EQ(d->send(0, &word, 4).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(d->abortReason().empty());
  EXPECT_EQ(fake.aborts, 0);
  d.reset();
  c.reset();
  EXPECT_EQ(fake.destroys, 2);
}

} // namespace
