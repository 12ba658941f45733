//===- NetTest.cpp - the Net contract, on every Net this host has ---------===//
//
// The same tests run on SocketNet (always), on IbvNet (only where an
// RDMA device with an active port exists; skipped with the reason
// otherwise), and on IbvNet over the emulated libibverbs of
// test/fakeibverbs ("ib_emulated": its queue pairs, completion queues and
// clear-to-send rings, where the build has <infiniband/verbs.h>): rendezvous
// isend, per-tag ordering, large and empty messages, the depth bound, refused
// sizes and memory, a stream of pipelined messages, a peer that is killed,
// requests that completed before a failure, stray connections to the listener.
//
//===----------------------------------------------------------------------===//
#include "ProcessTestUtil.h"

#include "bootstrap/Socket.h"
#include "net/IbvNet.h"
#include "net/Net.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <sstream>
#include <thread>

using namespace collrt;
using namespace collrt::net;

namespace {

constexpr double kSeconds = 15;

Status makeNet(const std::string &kind, std::unique_ptr<Net> *net) {
  if (kind == "socket")
    return createSocketNet("127.0.0.1", "test", net);
  IbvNetOptions options;
  options.oobHost = "127.0.0.1";
  if (kind == "ib_emulated") {
#ifdef FAKE_IBVERBS_EMULATED
    options.library = FAKE_IBVERBS_EMULATED;
#else
    return Status(ErrorCode::Unsupported,
                  "this build has no emulated libibverbs (no "
                  "<infiniband/verbs.h>)");
#endif
  }
  return createIbvNet(options, "test", net);
}

/// Position-dependent bytes: differ by message, tag and offset.
std::vector<char> pattern(int message, uint64_t tag, size_t bytes) {
  std::vector<char> out(bytes);
  for (size_t i = 0; i < bytes; ++i)
    out[i] =
        static_cast<char>((message * 131 + tag * 17 + i * 7 + i / 251) & 0xff);
  return out;
}

/// Host memory registered with a Net.
struct Region {
  std::vector<char> bytes;
  std::unique_ptr<NetMemory> memory;
};

class NetContract : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    Status s = makeNet(GetParam(), &net);
    if (s.code() == ErrorCode::Unsupported && GetParam() != "socket")
      GTEST_SKIP() << "no " << GetParam()
                   << " Net on this host: " << s.message();
    ASSERT_TRUE(s.ok()) << s.toString();
    ASSERT_FALSE(net->devices().empty());
  }

  /// A connection from this process to itself.
  void connectPair(uint32_t depth) {
    std::string handle;
    ASSERT_TRUE(net->listen(0, &handle, &listen).ok());
    Deadline deadline = Deadline::after(kSeconds);
    std::unique_ptr<NetConnecting> connecting;
    Status s = net->connect(0, handle, depth, deadline, &connecting);
    ASSERT_TRUE(s.ok()) << s.toString();
    while (!send || !recv) {
      if (!send) {
        s = connecting->step(&send);
        ASSERT_TRUE(s.ok()) << s.toString();
      }
      if (!recv) {
        s = listen->accept(&recv);
        ASSERT_TRUE(s.ok()) << s.toString();
      }
      ASSERT_FALSE(deadline.expired()) << "connect did not finish";
    }
    EXPECT_EQ(recv->depth(), depth);
  }

  void registerRegion(size_t bytes, Region *region) {
    region->bytes.assign(bytes, '\x5a');
    Status s = net->regMr(0, region->bytes.data(), bytes, NetMemoryKind::Host,
                          &region->memory);
    ASSERT_TRUE(s.ok()) << s.toString();
  }

  /// Progress on both ends.
  void pump() {
    Status a = send->progress();
    Status b = recv->progress();
    ASSERT_TRUE(a.ok()) << a.toString();
    ASSERT_TRUE(b.ok()) << b.toString();
    std::this_thread::yield();
  }

  /// isend, retried (with progress on both ends) until the receive is
  /// there.
  NetRequest *isendWhenMatched(const char *data, size_t bytes, uint64_t tag,
                               NetMemory &memory) {
    Deadline deadline = Deadline::after(kSeconds);
    for (;;) {
      NetRequest *request = nullptr;
      Status s = send->isend(data, bytes, tag, memory, &request);
      EXPECT_TRUE(s.ok()) << s.toString();
      if (!s.ok() || request)
        return request;
      if (deadline.expired()) {
        ADD_FAILURE() << "isend found no receive of tag " << tag;
        return nullptr;
      }
      pump();
    }
  }

  /// Tests `request` on `comm` until done; its size.
  size_t waitDone(NetComm &comm, NetRequest *request) {
    Deadline deadline = Deadline::after(kSeconds);
    for (;;) {
      bool done = false;
      size_t bytes = 0;
      Status s = comm.test(request, &done, &bytes);
      EXPECT_TRUE(s.ok()) << s.toString();
      if (!s.ok() || done)
        return bytes;
      if (deadline.expired()) {
        ADD_FAILURE() << "a request did not complete";
        return 0;
      }
      pump();
    }
  }

  std::unique_ptr<Net> net;
  std::unique_ptr<NetListenComm> listen;
  // Declared after net: destroyed first.
  std::unique_ptr<NetSendComm> send;
  std::unique_ptr<NetRecvComm> recv;
};

TEST_P(NetContract, DevicesDescribeThemselves) {
  for (const NetDeviceInfo &d : net->devices()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.maxDepth, 1u);
    EXPECT_GT(d.maxMessageBytes, 0u);
    EXPECT_EQ(d.describe().rfind(d.name, 0), 0u) << d.describe();
  }
  if (GetParam() == "socket") {
    EXPECT_EQ(net->devices()[0].name, "lo");
    EXPECT_EQ(net->devices()[0].address, "127.0.0.1");
  }
  if (GetParam() == "ib_emulated") {
    // The emulation's one device: an active 4x NDR InfiniBand port whose
    // LID names this process.
    ASSERT_EQ(net->devices().size(), 1u);
    const NetDeviceInfo &d = net->devices()[0];
    EXPECT_EQ(d.name, "fake_ib0");
    EXPECT_EQ(d.address.rfind("InfiniBand, LID ", 0), 0u) << d.address;
    EXPECT_EQ(d.speedMbps, 400000);
    EXPECT_TRUE(d.deviceMemory);
    EXPECT_EQ(d.maxDepth, 16384u);
  }
}

TEST_P(NetContract, IsendWaitsForAMatchingReceive) {
  connectPair(4);
  Region out, in;
  registerRegion(64, &out);
  registerRegion(64, &in);
  auto data = pattern(0, 7, 40);
  std::memcpy(out.bytes.data(), data.data(), data.size());
  // No receive posted: no request, nothing sent.
  for (int i = 0; i < 50; ++i) {
    NetRequest *request = nullptr;
    ASSERT_TRUE(
        send->isend(out.bytes.data(), 40, 7, *out.memory, &request).ok());
    ASSERT_EQ(request, nullptr);
    pump();
  }
  // A receive of another tag does not match either.
  NetRequest *other = nullptr;
  ASSERT_TRUE(
      recv->irecv(in.bytes.data() + 48, 16, 8, *in.memory, &other).ok());
  for (int i = 0; i < 50; ++i) {
    NetRequest *request = nullptr;
    ASSERT_TRUE(
        send->isend(out.bytes.data(), 40, 7, *out.memory, &request).ok());
    ASSERT_EQ(request, nullptr);
    pump();
  }
  NetRequest *r = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 48, 7, *in.memory, &r).ok());
  ASSERT_NE(r, nullptr);
  NetRequest *s = isendWhenMatched(out.bytes.data(), 40, 7, *out.memory);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(waitDone(*send, s), 40u);
  EXPECT_EQ(waitDone(*recv, r), 40u);
  EXPECT_EQ(std::vector<char>(in.bytes.begin(), in.bytes.begin() + 40), data);
  // Bytes past the message are untouched.
  EXPECT_EQ(in.bytes[40], '\x5a');
  // A completed request is gone.
  bool done = false;
  size_t bytes = 0;
  Status again = recv->test(r, &done, &bytes);
  EXPECT_EQ(again.code(), ErrorCode::InvalidArgument) << again.toString();
}

// The k-th isend of a tag fills the k-th receive of that tag, whatever
// the order across tags.
TEST_P(NetContract, TagsMatchInOrderPerTag) {
  connectPair(8);
  constexpr size_t kSlot = 1000;
  Region in, out;
  registerRegion(6 * kSlot, &in);
  registerRegion(6 * kSlot, &out);
  const uint64_t tags[6] = {1, 2, 1, 3, 2, 1};
  std::vector<NetRequest *> recvs;
  for (int i = 0; i < 6; ++i) {
    NetRequest *r = nullptr;
    ASSERT_TRUE(
        recv->irecv(in.bytes.data() + i * kSlot, kSlot, tags[i], *in.memory, &r)
            .ok());
    ASSERT_NE(r, nullptr);
    recvs.push_back(r);
  }
  // Sends in another order: tag 3, then 2, 2, then 1, 1, 1.
  const uint64_t sendTags[6] = {3, 2, 2, 1, 1, 1};
  std::map<uint64_t, int> sent;
  std::vector<NetRequest *> sends;
  for (int i = 0; i < 6; ++i) {
    uint64_t tag = sendTags[i];
    int k = sent[tag]++;
    auto data = pattern(k, tag, 100 + 97 * i);
    std::memcpy(out.bytes.data() + i * kSlot, data.data(), data.size());
    NetRequest *s = isendWhenMatched(out.bytes.data() + i * kSlot, data.size(),
                                     tag, *out.memory);
    ASSERT_NE(s, nullptr);
    sends.push_back(s);
  }
  for (NetRequest *s : sends)
    waitDone(*send, s);
  // Receive i got the message (k = how many of its tag came before).
  std::map<uint64_t, int> seen;
  for (int i = 0; i < 6; ++i) {
    int k = seen[tags[i]]++;
    int sendIndex = -1;
    for (int j = 0, count = 0; j < 6; ++j)
      if (sendTags[j] == tags[i] && count++ == k)
        sendIndex = j;
    size_t bytes = waitDone(*recv, recvs[i]);
    auto expected = pattern(k, tags[i], 100 + 97 * sendIndex);
    ASSERT_EQ(bytes, expected.size()) << "receive " << i;
    EXPECT_EQ(std::vector<char>(in.bytes.begin() + i * kSlot,
                                in.bytes.begin() + i * kSlot + bytes),
              expected)
        << "receive " << i;
  }
}

TEST_P(NetContract, LargeAndEmptyMessages) {
  connectPair(2);
  constexpr size_t kLarge = 16 << 20;
  Region in, out;
  registerRegion(kLarge, &in);
  registerRegion(kLarge, &out);
  auto data = pattern(3, 0, kLarge);
  std::memcpy(out.bytes.data(), data.data(), kLarge);
  for (size_t bytes : {kLarge, size_t(0), kLarge - 1}) {
    std::fill(in.bytes.begin(), in.bytes.end(), '\x5a');
    NetRequest *r = nullptr;
    ASSERT_TRUE(recv->irecv(in.bytes.data(), kLarge, 0, *in.memory, &r).ok());
    NetRequest *s = isendWhenMatched(out.bytes.data(), bytes, 0, *out.memory);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(waitDone(*send, s), bytes);
    ASSERT_EQ(waitDone(*recv, r), bytes);
    EXPECT_TRUE(
        std::equal(in.bytes.begin(), in.bytes.begin() + bytes, data.begin()))
        << bytes << " bytes";
    if (bytes < kLarge) {
      EXPECT_EQ(in.bytes[bytes], '\x5a');
    }
  }
}

TEST_P(NetContract, DepthBoundsOutstandingReceives) {
  connectPair(3);
  Region in, out;
  registerRegion(64, &in);
  registerRegion(64, &out);
  NetRequest *r[4] = {};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        recv->irecv(in.bytes.data() + 16 * i, 16, 5, *in.memory, &r[i]).ok());
    ASSERT_NE(r[i], nullptr) << i;
  }
  ASSERT_TRUE(recv->irecv(in.bytes.data() + 48, 16, 5, *in.memory, &r[3]).ok());
  EXPECT_EQ(r[3], nullptr);
  NetRequest *s = isendWhenMatched(out.bytes.data(), 16, 5, *out.memory);
  waitDone(*send, s);
  // Completing one (and testing it) makes room for one.
  ASSERT_EQ(waitDone(*recv, r[0]), 16u);
  ASSERT_TRUE(recv->irecv(in.bytes.data() + 48, 16, 5, *in.memory, &r[3]).ok());
  EXPECT_NE(r[3], nullptr);
  NetRequest *more = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 16, 5, *in.memory, &more).ok());
  EXPECT_EQ(more, nullptr);
}

TEST_P(NetContract, MessageLargerThanItsReceiveIsRefused) {
  connectPair(2);
  Region in, out;
  registerRegion(64, &in);
  registerRegion(64, &out);
  NetRequest *r = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 10, 9, *in.memory, &r).ok());
  Deadline deadline = Deadline::after(kSeconds);
  Status s;
  NetRequest *request = nullptr;
  while (s.ok() && !deadline.expired()) {
    s = send->isend(out.bytes.data(), 11, 9, *out.memory, &request);
    ASSERT_EQ(request, nullptr);
    pump();
  }
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("holds only 10 bytes"), std::string::npos)
      << s.message();
}

TEST_P(NetContract, MemoryOutsideItsRegistrationIsRefused) {
  connectPair(2);
  Region in, out;
  registerRegion(64, &in);
  registerRegion(64, &out);
  NetRequest *request = nullptr;
  Status s = send->isend(out.bytes.data() + 60, 8, 1, *out.memory, &request);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  s = recv->irecv(in.bytes.data() - 1, 8, 1, *in.memory, &request);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  // Memory of one registration passed with another's data.
  s = recv->irecv(in.bytes.data(), 8, 1, *out.memory, &request);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_EQ(request, nullptr);
}

// Receives re-posted as they complete, sends issued as receives appear: a
// pipelined stream keeps its order and content.
TEST_P(NetContract, PipelinedStream) {
  constexpr int kMessages = 600;
  constexpr uint32_t kDepth = 4;
  constexpr size_t kSlot = 3000;
  connectPair(kDepth);
  Region in, out;
  registerRegion(kDepth * kSlot, &in);
  registerRegion(kDepth * kSlot, &out);
  std::deque<NetRequest *> recvs, sends;
  int posted = 0, received = 0, issued = 0, sent = 0;
  auto size = [](int m) { return size_t(m * 7919) % (kSlot + 1); };
  Deadline deadline = Deadline::after(kSeconds * 2);
  while (received < kMessages) {
    ASSERT_FALSE(deadline.expired()) << "stuck at message " << received;
    while (posted < kMessages && posted - received < int(kDepth)) {
      NetRequest *r = nullptr;
      ASSERT_TRUE(recv->irecv(in.bytes.data() + (posted % kDepth) * kSlot,
                              kSlot, 0, *in.memory, &r)
                      .ok());
      ASSERT_NE(r, nullptr);
      recvs.push_back(r);
      ++posted;
    }
    while (issued < kMessages && issued - sent < int(kDepth)) {
      char *slot = out.bytes.data() + (issued % kDepth) * kSlot;
      auto data = pattern(issued, 0, size(issued));
      std::memcpy(slot, data.data(), data.size());
      NetRequest *s = nullptr;
      ASSERT_TRUE(send->isend(slot, data.size(), 0, *out.memory, &s).ok());
      if (!s)
        break;
      sends.push_back(s);
      ++issued;
    }
    while (!sends.empty()) {
      bool done = false;
      size_t bytes = 0;
      ASSERT_TRUE(send->test(sends.front(), &done, &bytes).ok());
      if (!done)
        break;
      sends.pop_front();
      ++sent;
    }
    while (!recvs.empty()) {
      bool done = false;
      size_t bytes = 0;
      ASSERT_TRUE(recv->test(recvs.front(), &done, &bytes).ok());
      if (!done)
        break;
      recvs.pop_front();
      const char *slot = in.bytes.data() + (received % kDepth) * kSlot;
      ASSERT_EQ(bytes, size(received)) << "message " << received;
      ASSERT_EQ(std::vector<char>(slot, slot + bytes),
                pattern(received, 0, bytes))
          << "message " << received;
      ++received;
    }
    pump();
  }
}

TEST_P(NetContract, CompletedRequestsStayDoneAfterTheConnectionFails) {
  connectPair(4);
  Region in, out;
  registerRegion(64, &in);
  registerRegion(64, &out);
  NetRequest *first = nullptr, *second = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 32, 0, *in.memory, &first).ok());
  ASSERT_TRUE(
      recv->irecv(in.bytes.data() + 32, 32, 0, *in.memory, &second).ok());
  auto data = pattern(1, 0, 20);
  std::memcpy(out.bytes.data(), data.data(), 20);
  NetRequest *s = isendWhenMatched(out.bytes.data(), 20, 0, *out.memory);
  waitDone(*send, s);
  send.reset(); // the sending end goes away
  Deadline deadline = Deadline::after(kSeconds);
  bool done = false;
  size_t bytes = 0;
  Status st;
  while (st.ok() && !done && !deadline.expired())
    st = recv->test(first, &done, &bytes);
  ASSERT_TRUE(st.ok()) << st.toString();
  ASSERT_TRUE(done);
  EXPECT_EQ(std::vector<char>(in.bytes.begin(), in.bytes.begin() + 20), data);
  done = false;
  while (st.ok() && !done && !deadline.expired())
    st = recv->test(second, &done, &bytes);
  EXPECT_FALSE(done);
  EXPECT_EQ(st.code(), ErrorCode::PeerFailure) << st.toString();
  EXPECT_NE(st.message().find("closed by the peer"), std::string::npos)
      << st.message();
  // Every later call fails the same way.
  EXPECT_EQ(recv->progress().code(), ErrorCode::PeerFailure);
}

// The sending end is a forked process that is killed with SIGKILL: the
// receiving end's pending receive fails instead of waiting forever.
TEST_P(NetContract, KilledPeerFailsTheConnection) {
  std::string handle;
  ASSERT_TRUE(net->listen(0, &handle, &listen).ok());
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const std::string kind = GetParam();
  pid_t child = test::forkChild([&] {
    std::unique_ptr<Net> own;
    if (!makeNet(kind, &own).ok())
      return 2;
    std::unique_ptr<NetConnecting> connecting;
    Deadline deadline = Deadline::after(kSeconds);
    if (!own->connect(0, handle, 2, deadline, &connecting).ok())
      return 3;
    std::unique_ptr<NetSendComm> comm;
    while (!comm && !deadline.expired())
      if (!connecting->step(&comm).ok())
        return 4;
    std::vector<char> data = pattern(9, 0, 24);
    std::unique_ptr<NetMemory> memory;
    if (!comm ||
        !own->regMr(0, data.data(), data.size(), NetMemoryKind::Host, &memory)
             .ok())
      return 5;
    NetRequest *request = nullptr;
    while (!request && !deadline.expired())
      if (!comm->isend(data.data(), data.size(), 0, *memory, &request).ok())
        return 6;
    bool done = false;
    size_t bytes = 0;
    while (request && !done && !deadline.expired())
      if (!comm->test(request, &done, &bytes).ok())
        return 7;
    char byte = done ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 8;
  });
  ASSERT_GT(child, 0);
  ::close(ready[1]);
  Deadline deadline = Deadline::after(kSeconds);
  while (!recv && !deadline.expired()) {
    Status s = listen->accept(&recv);
    ASSERT_TRUE(s.ok()) << s.toString();
  }
  if (!recv) {
    test::waitChild(child, 0);
    FAIL() << "the child never connected";
  }
  Region in;
  registerRegion(64, &in);
  NetRequest *first = nullptr, *second = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 32, 0, *in.memory, &first).ok());
  ASSERT_TRUE(
      recv->irecv(in.bytes.data() + 32, 32, 0, *in.memory, &second).ok());
  bool done = false;
  size_t bytes = 0;
  while (!done && !deadline.expired())
    ASSERT_TRUE(recv->test(first, &done, &bytes).ok());
  ASSERT_TRUE(done);
  EXPECT_EQ(std::vector<char>(in.bytes.begin(), in.bytes.begin() + 24),
            pattern(9, 0, 24));
  char byte = 0;
  ssize_t got = ::read(ready[0], &byte, 1);
  ::close(ready[0]);
  if (got != 1 || byte != 'y') {
    int code = test::waitChild(child, 0);
    FAIL() << "the child did not finish its send (exit code " << code << ")";
  }
  ::kill(child, SIGKILL);
  EXPECT_EQ(test::waitChild(child, kSeconds), 128 + SIGKILL);
  Status st;
  done = false;
  while (st.ok() && !done && !deadline.expired())
    st = recv->test(second, &done, &bytes);
  EXPECT_FALSE(done);
  EXPECT_EQ(st.code(), ErrorCode::PeerFailure) << st.toString();
}

// Connections that do not speak the Net's set-up (another program, a
// port scanner) never become communicators, and do not block real ones.
TEST_P(NetContract, StrayConnectionsAreDropped) {
  std::string handle;
  ASSERT_TRUE(net->listen(0, &handle, &listen).ok());
  std::istringstream in(handle);
  std::string host;
  int32_t port = 0;
  in >> host >> port;
  Endpoint at;
  ASSERT_TRUE(resolve(host, port, &at).ok());
  Fd stray;
  ASSERT_TRUE(
      connectWithRetry(at, "the listener", Deadline::after(kSeconds), &stray)
          .ok());
  std::string garbage(200, 'G');
  ASSERT_TRUE(writeAll(stray.get(), garbage.data(), garbage.size(),
                       Deadline::after(kSeconds), "the listener")
                  .ok());
  Fd silent;
  ASSERT_TRUE(
      connectWithRetry(at, "the listener", Deadline::after(kSeconds), &silent)
          .ok());
  for (int i = 0; i < 20; ++i) {
    std::unique_ptr<NetRecvComm> comm;
    ASSERT_TRUE(listen->accept(&comm).ok());
    ASSERT_EQ(comm, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // A handle with another nonce is refused too.
  std::string forged = host + " " + std::to_string(port) + " 0123456789abcdef";
  std::unique_ptr<NetConnecting> wrong, right;
  Deadline deadline = Deadline::after(kSeconds);
  ASSERT_TRUE(net->connect(0, forged, 2, deadline, &wrong).ok());
  ASSERT_TRUE(net->connect(0, handle, 2, deadline, &right).ok());
  std::unique_ptr<NetSendComm> wrongComm;
  std::vector<std::unique_ptr<NetRecvComm>> accepted;
  while (!send && !deadline.expired()) {
    if (!wrongComm)
      (void)wrong->step(&wrongComm);
    ASSERT_TRUE(right->step(&send).ok());
    std::unique_ptr<NetRecvComm> comm;
    ASSERT_TRUE(listen->accept(&comm).ok());
    if (comm)
      accepted.push_back(std::move(comm));
  }
  ASSERT_NE(send, nullptr);
  for (int i = 0; i < 50 && accepted.empty() && !deadline.expired(); ++i) {
    std::unique_ptr<NetRecvComm> comm;
    ASSERT_TRUE(listen->accept(&comm).ok());
    if (comm)
      accepted.push_back(std::move(comm));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(accepted.size(), 1u) << "exactly the real connection";
  recv = std::move(accepted[0]);
  Region a, b;
  registerRegion(8, &a);
  registerRegion(8, &b);
  NetRequest *r = nullptr;
  ASSERT_TRUE(recv->irecv(b.bytes.data(), 8, 0, *b.memory, &r).ok());
  NetRequest *s = isendWhenMatched(a.bytes.data(), 8, 0, *a.memory);
  waitDone(*send, s);
  EXPECT_EQ(waitDone(*recv, r), 8u);
}

// What a progress thread needs to sleep without missing work: idle
// connections leave their descriptors quiet, and work done during a call
// for something else (which no descriptor announces) is reported by
// pollFds.
TEST_P(NetContract, PollFdsTellsWhenToSleep) {
  connectPair(4);
  Region in, out;
  registerRegion(64, &in);
  registerRegion(64, &out);
  NetRequest *a = nullptr, *b = nullptr;
  ASSERT_TRUE(recv->irecv(in.bytes.data(), 16, 1, *in.memory, &a).ok());
  ASSERT_TRUE(recv->irecv(in.bytes.data() + 16, 16, 2, *in.memory, &b).ok());
  for (int i = 0; i < 20; ++i) {
    pump();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<pollfd> fds;
  (void)send->pollFds(&fds); // may say: clear-to-sends were read
  fds.clear();
  bool ready = send->pollFds(&fds);
  ready |= recv->pollFds(&fds);
  EXPECT_FALSE(ready);
  EXPECT_EQ(::poll(fds.data(), fds.size(), 0), 0)
      << "an idle connection's descriptors are ready: a progress thread "
         "would spin";
  NetRequest *s1 = isendWhenMatched(out.bytes.data(), 10, 1, *out.memory);
  NetRequest *s2 = isendWhenMatched(out.bytes.data() + 16, 12, 2, *out.memory);
  waitDone(*send, s1);
  waitDone(*send, s2);
  // Testing b also completes a, which arrived first on the same
  // connection; nothing will wake a poll() for it, so pollFds says so.
  EXPECT_EQ(waitDone(*recv, b), 12u);
  fds.clear();
  EXPECT_TRUE(recv->pollFds(&fds));
  EXPECT_EQ(waitDone(*recv, a), 10u);
  fds.clear();
  EXPECT_FALSE(recv->pollFds(&fds));
}

TEST_P(NetContract, BadArgumentsAreNamed) {
  std::string handle;
  std::unique_ptr<NetListenComm> l;
  Status s = net->listen(7, &handle, &l);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("device 7 does not exist"), std::string::npos)
      << s.message();
  std::unique_ptr<NetConnecting> c;
  s = net->connect(0, "not a handle", 2, Deadline::after(1), &c);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  ASSERT_TRUE(net->listen(0, &handle, &l).ok());
  s = net->connect(0, handle, 0, Deadline::after(1), &c);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("depth of 0"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(Nets, NetContract,
                         ::testing::Values("socket", "ib", "ib_emulated"),
                         [](const ::testing::TestParamInfo<std::string> &i) {
                           return i.param;
                         });

} // namespace
