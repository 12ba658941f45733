//===- ProcessTransportTest.cpp - transports between real processes -------===//
//
// shm, tcp, (where an RDMA device exists, else skipped with the reason)
// ib, and ib on the emulated libibverbs of test/fakeibverbs. Rank 1 is a
// fork()ed child (it _exit()s, never returning into GoogleTest), rank 0 is the
// test process; every wait is bounded. Also: shared-memory names do not outlive
// connect(), /dev/shm exhaustion is reported, and the tcp transport's interface
// option.
//
//===----------------------------------------------------------------------===//
#include "ProcessTestUtil.h"
#include "TransportTestUtil.h"

#include "net/IbvNet.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>

#include <thread>

using namespace collrt;
using namespace collrt::test;

namespace {

constexpr double kSeconds = 15;

Status makeRank(const std::string &kind, int32_t rank, int32_t n, int32_t port,
                std::unique_ptr<Bootstrap> *bootstrap,
                std::unique_ptr<Transport> *transport) {
  LaunchInfo info;
  info.rank = rank;
  info.worldSize = n;
  info.localRank = rank;
  info.masterAddr = "127.0.0.1";
  info.masterPort = port;
  info.launcher = "test";
  if (Status s = createTcpBootstrap(info, Deadline::after(kSeconds), bootstrap);
      !s.ok())
    return s;
  if (kind == "shm")
    return createShmTransport(**bootstrap, transport);
  if (kind == "ib" || kind == "ib_emulated")
    return createIbTransport(**bootstrap, ibOptions(kind), transport);
  return createTcpTransport(**bootstrap, "", transport);
}

/// Rank r of 2: sends to and receives from the other on channel 0.
ConnectionSpec pairSpec(int32_t rank, uint32_t slots, size_t slotBytes) {
  ConnectionSpec spec;
  spec.slots = slots;
  spec.slotBytes = slotBytes;
  spec.sendTo = {{1 - rank, 0}};
  spec.recvFrom = {{1 - rank, 0}};
  return spec;
}

/// Exchanges `messages` messages each way; "" or what went wrong.
std::string exchange(Transport &t, int messages, size_t maxBytes) {
  int32_t me = t.rank(), peer = 1 - me;
  Deadline deadline = Deadline::after(kSeconds);
  for (int m = 0; m < messages; ++m) {
    size_t bytes = (m * 7919) % (maxBytes + 1);
    auto data = pattern(me, peer, 0, m, bytes);
    if (Status s = sendWait(t, {peer, 0}, data.data(), bytes, deadline);
        !s.ok())
      return s.toString();
    std::vector<unsigned char> got;
    if (Status s = recvWait(t, {peer, 0}, &got, deadline); !s.ok())
      return s.toString();
    if (got != pattern(peer, me, 0, m, bytes))
      return "rank " + std::to_string(me) + ": message " + std::to_string(m) +
             " differs";
  }
  return "";
}

class ProcessTransport : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (GetParam() != "ib" && GetParam() != "ib_emulated")
      return;
    Status s = ibAvailable(GetParam());
    if (s.code() == ErrorCode::Unsupported)
      GTEST_SKIP() << s.message();
  }
};

TEST_P(ProcessTransport, TwoProcessesExchange) {
  const std::string kind = GetParam();
  int32_t port = freeTcpPort();
  pid_t child = forkChild([&] {
    std::unique_ptr<Bootstrap> b;
    std::unique_ptr<Transport> t;
    Status s = makeRank(kind, 1, 2, port, &b, &t);
    if (s.ok())
      s = t->connect(pairSpec(1, 4, 65536), Deadline::after(kSeconds));
    if (!s.ok()) {
      std::fprintf(stderr, "child: %s\n", s.toString().c_str());
      return 2;
    }
    std::string err = exchange(*t, 200, 65536);
    // A second spec: fewer, smaller slots.
    if (err.empty()) {
      s = t->connect(pairSpec(1, 1, 100), Deadline::after(kSeconds));
      err = s.ok() ? exchange(*t, 50, 100) : s.toString();
    }
    if (!err.empty())
      std::fprintf(stderr, "child: %s\n", err.c_str());
    return err.empty() ? 0 : 3;
  });
  ASSERT_GT(child, 0);
  std::unique_ptr<Bootstrap> b;
  std::unique_ptr<Transport> t;
  Status s = makeRank(kind, 0, 2, port, &b, &t);
  if (s.ok())
    s = t->connect(pairSpec(0, 4, 65536), Deadline::after(kSeconds));
  EXPECT_TRUE(s.ok()) << s.toString();
  if (s.ok()) {
    EXPECT_EQ(exchange(*t, 200, 65536), "");
    s = t->connect(pairSpec(0, 1, 100), Deadline::after(kSeconds));
    EXPECT_TRUE(s.ok()) << s.toString();
    if (s.ok()) {
      EXPECT_EQ(exchange(*t, 50, 100), "");
    }
  }
  EXPECT_EQ(waitChild(child, kSeconds), 0);
}

// The child connects, sends one message and is killed; rank 0's tryRecv
// and checkPeers report PeerFailure naming rank 1.
TEST_P(ProcessTransport, KilledPeerIsNamed) {
  const std::string kind = GetParam();
  int32_t port = freeTcpPort();
  pid_t child = forkChild([&] {
    std::unique_ptr<Bootstrap> b;
    std::unique_ptr<Transport> t;
    Status s = makeRank(kind, 1, 2, port, &b, &t);
    if (s.ok())
      s = t->connect(pairSpec(1, 2, 64), Deadline::after(kSeconds));
    if (s.ok())
      s = sendWait(*t, {0, 0}, "hello", 5, Deadline::after(kSeconds));
    if (!s.ok()) {
      std::fprintf(stderr, "child: %s\n", s.toString().c_str());
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 4;
  });
  ASSERT_GT(child, 0);
  std::unique_ptr<Bootstrap> b;
  std::unique_ptr<Transport> t;
  Status s = makeRank(kind, 0, 2, port, &b, &t);
  if (s.ok())
    s = t->connect(pairSpec(0, 2, 64), Deadline::after(kSeconds));
  std::vector<unsigned char> got;
  if (s.ok())
    s = recvWait(*t, {1, 0}, &got, Deadline::after(kSeconds));
  if (!s.ok()) {
    waitChild(child, 0);
    FAIL() << s.toString();
  }
  EXPECT_EQ(std::string(got.begin(), got.end()), "hello");
  EXPECT_TRUE(t->checkPeers().ok());
  ::kill(child, SIGKILL);
  EXPECT_EQ(waitChild(child, kSeconds), 128 + SIGKILL);
  // A receive that will never complete fails instead of hanging.
  s = recvWait(*t, {1, 0}, &got, Deadline::after(kSeconds));
  EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
  EXPECT_NE(s.message().find("rank 1"), std::string::npos) << s.message();
  Status check = t->checkPeers();
  EXPECT_EQ(check.code(), ErrorCode::PeerFailure) << check.toString();
  EXPECT_NE(check.message().find("rank 1"), std::string::npos)
      << check.message();
}

INSTANTIATE_TEST_SUITE_P(Transports, ProcessTransport,
                         ::testing::Values("shm", "tcp", "ib", "ib_emulated"),
                         [](const ::testing::TestParamInfo<std::string> &i) {
                           return i.param;
                         });

/// Names in /dev/shm that start with `prefix`.
std::vector<std::string> shmNames(const std::string &prefix) {
  std::vector<std::string> names;
  if (DIR *dir = ::opendir("/dev/shm")) {
    while (dirent *e = ::readdir(dir))
      if (std::string(e->d_name).rfind(prefix, 0) == 0)
        names.push_back(e->d_name);
    ::closedir(dir);
  }
  return names;
}

TEST(ShmTransport, NamesAreUnlinkedOnceMapped) {
  World world;
  ASSERT_TRUE(makeWorld("shm", 3, &world).ok());
  std::vector<ConnectionSpec> specs(3);
  for (int32_t r = 0; r < 3; ++r)
    for (int32_t p = 0; p < 3; ++p) {
      specs[r].sendTo.push_back({p, 0});
      specs[r].recvFrom.push_back({p, 0});
      specs[r].slotBytes = 4096;
    }
  ASSERT_TRUE(connectAll(world, specs, kSeconds).ok());
  // Segment names start with rank 0's pid (this process).
  EXPECT_EQ(shmNames("collc-" + std::to_string(::getpid()) + "-"),
            std::vector<std::string>{});
  Deadline deadline = Deadline::after(kSeconds);
  auto data = pattern(2, 0, 0, 0, 4096);
  ASSERT_TRUE(sendWait(world[2], {0, 0}, data.data(), 4096, deadline).ok());
  std::vector<unsigned char> got;
  ASSERT_TRUE(recvWait(world[0], {2, 0}, &got, deadline).ok());
  EXPECT_EQ(got, data);
}

TEST(ShmTransport, TooLittleSharedMemoryIsReported) {
  World world;
  ASSERT_TRUE(makeWorld("shm", 2, &world).ok());
  std::vector<ConnectionSpec> specs(2);
  for (int32_t r = 0; r < 2; ++r) {
    specs[r].sendTo = {{1 - r, 0}};
    specs[r].recvFrom = {{1 - r, 0}};
    specs[r].slots = 1024;
    specs[r].slotBytes = size_t(1) << 40; // a petabyte of rings
  }
  std::vector<Status> results(2);
  runRanks(2, [&](int32_t r) {
    results[r] = world[r].connect(specs[r], Deadline::after(kSeconds));
  });
  for (int32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(results[r].code(), ErrorCode::SystemError)
        << results[r].toString();
    EXPECT_NE(results[r].message().find("/dev/shm has only"), std::string::npos)
        << results[r].message();
  }
  EXPECT_EQ(shmNames("collc-" + std::to_string(::getpid()) + "-"),
            std::vector<std::string>{});
}

TEST(ShmTransport, PeersOnAnotherHostAreRefused) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> boots(2);
  std::vector<std::unique_ptr<Transport>> transports(2);
  std::vector<Status> results(2);
  runRanks(2, [&](int32_t r) {
    LaunchInfo info;
    info.rank = r;
    info.worldSize = 2;
    info.localRank = 0;
    info.masterAddr = "127.0.0.1";
    info.masterPort = port;
    info.hostName = r == 0 ? "node-a" : "node-b";
    results[r] = createTcpBootstrap(info, Deadline::after(kSeconds), &boots[r]);
    if (results[r].ok())
      results[r] = createShmTransport(*boots[r], &transports[r]);
    if (results[r].ok())
      results[r] =
          transports[r]->connect(pairSpec(r, 2, 64), Deadline::after(kSeconds));
  });
  for (int32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(results[r].code(), ErrorCode::InvalidArgument)
        << results[r].toString();
    EXPECT_NE(results[r].message().find("is on host 'node-"), std::string::npos)
        << results[r].message();
  }
}

TEST(TcpTransport, InterfaceOption) {
  int32_t port = freeTcpPort();
  std::unique_ptr<Bootstrap> b;
  LaunchInfo info;
  info.rank = 0;
  info.worldSize = 1;
  info.localRank = 0;
  info.masterAddr = "127.0.0.1";
  info.masterPort = port;
  ASSERT_TRUE(createTcpBootstrap(info, Deadline::after(kSeconds), &b).ok());
  for (const char *interface : {"lo", "127.0.0.1", "localhost"}) {
    std::unique_ptr<Transport> t;
    Status s = createTcpTransport(*b, interface, &t);
    EXPECT_TRUE(s.ok()) << interface << ": " << s.toString();
  }
  std::unique_ptr<Transport> t;
  Status s = createTcpTransport(*b, "no-such-nic0", &t);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("interface 'no-such-nic0' is neither a network "
                             "interface of this host nor an address"),
            std::string::npos)
      << s.message();
  // An address that is not this host's cannot be listened on.
  s = createTcpTransport(*b, "192.0.2.1", &t);
  EXPECT_EQ(s.code(), ErrorCode::TransportError) << s.toString();
  EXPECT_NE(s.message().find("192.0.2.1"), std::string::npos) << s.message();
}

} // namespace
