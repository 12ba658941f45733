//===- TcpBootstrapTest.cpp - rendezvous, collectives, failures -----------===//
//
// Ranks as threads on 127.0.0.1 and as fork()ed processes.
//
//===----------------------------------------------------------------------===//
#include "ProcessTestUtil.h"

#include "collrt/Bootstrap.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

using namespace collrt;
using namespace collrt::test;

namespace {

constexpr double kSeconds = 15;

LaunchInfo launchInfo(int32_t rank, int32_t n, int32_t port) {
  LaunchInfo info;
  info.rank = rank;
  info.worldSize = n;
  info.localRank = rank;
  info.masterAddr = "127.0.0.1";
  info.masterPort = port;
  info.launcher = "test";
  return info;
}

void runRanks(int32_t n, const std::function<void(int32_t)> &fn) {
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < n; ++r)
    threads.emplace_back(fn, r);
  for (std::thread &t : threads)
    t.join();
}

/// Rendezvous of `n` thread ranks; fails the test on error.
std::vector<std::unique_ptr<Bootstrap>> makeWorld(int32_t n,
                                                  double seconds = kSeconds) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> world(n);
  std::vector<Status> results(n);
  runRanks(n, [&](int32_t r) {
    LaunchInfo info = launchInfo(r, n, port);
    info.hostName = r < n / 2 ? "host-a" : "host-b";
    results[r] = createTcpBootstrap(info, Deadline::after(seconds), &world[r]);
  });
  for (int32_t r = 0; r < n; ++r)
    EXPECT_TRUE(results[r].ok())
        << "rank " << r << ": " << results[r].toString();
  return world;
}

std::string contribution(int32_t rank, int round) {
  std::string s(static_cast<size_t>(rank * 37 + round * 101), '\0');
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<char>(rank * 31 + round * 7 + i);
  return s;
}

/// Polls checkPeers until it fails or the deadline passes.
Status waitForPeerFailure(Bootstrap &b, double seconds) {
  Deadline until = Deadline::after(seconds);
  for (;;) {
    Status s = b.checkPeers();
    if (!s.ok() || until.expired())
      return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(TcpBootstrap, RendezvousHostsAndAddresses) {
  auto world = makeWorld(4);
  ASSERT_EQ(world.size(), 4u);
  for (int32_t r = 0; r < 4; ++r) {
    ASSERT_TRUE(world[r]) << r;
    EXPECT_EQ(world[r]->rank(), r);
    EXPECT_EQ(world[r]->worldSize(), 4);
    EXPECT_EQ(world[r]->localRank(), r);
    EXPECT_EQ(world[r]->hosts(), (std::vector<std::string>{
                                     "host-a", "host-a", "host-b", "host-b"}));
    EXPECT_EQ(world[r]->localAddress(), "127.0.0.1");
    EXPECT_TRUE(world[r]->checkPeers().ok());
  }
}

TEST(TcpBootstrap, AllGatherAndBarrier) {
  constexpr int32_t kRanks = 5;
  auto world = makeWorld(kRanks);
  ASSERT_TRUE(world[kRanks - 1]);
  runRanks(kRanks, [&](int32_t r) {
    for (int round = 0; round < 6; ++round) {
      std::vector<std::string> all;
      Status s = world[r]->allGather(contribution(r, round), &all,
                                     Deadline::after(kSeconds));
      ASSERT_TRUE(s.ok()) << s.toString();
      ASSERT_EQ(all.size(), static_cast<size_t>(kRanks));
      for (int32_t p = 0; p < kRanks; ++p)
        EXPECT_EQ(all[p], contribution(p, round))
            << "rank " << r << " round " << round << " from " << p;
      s = world[r]->barrier(Deadline::after(kSeconds));
      ASSERT_TRUE(s.ok()) << s.toString();
    }
    // A large contribution.
    std::string big(1 << 20, static_cast<char>('a' + r));
    std::vector<std::string> all;
    ASSERT_TRUE(world[r]->allGather(big, &all, Deadline::after(kSeconds)).ok());
    for (int32_t p = 0; p < kRanks; ++p)
      EXPECT_EQ(all[p], std::string(1 << 20, static_cast<char>('a' + p)));
  });
}

TEST(TcpBootstrap, SingleRank) {
  auto world = makeWorld(1);
  ASSERT_TRUE(world[0]);
  std::vector<std::string> all;
  ASSERT_TRUE(world[0]->allGather("x", &all, Deadline::after(1)).ok());
  EXPECT_EQ(all, std::vector<std::string>{"x"});
  EXPECT_TRUE(world[0]->barrier(Deadline::after(1)).ok());
}

TEST(TcpBootstrap, RankThatNeverArrivesIsNamed) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> world(4);
  std::vector<Status> results(3);
  // Rank 2 of 4 never starts.
  runRanks(3, [&](int32_t i) {
    int32_t r = i == 2 ? 3 : i;
    results[i] = createTcpBootstrap(launchInfo(r, 4, port),
                                    Deadline::after(0.7), &world[r]);
  });
  EXPECT_EQ(results[0].code(), ErrorCode::Timeout) << results[0].toString();
  const std::string &m = results[0].message();
  EXPECT_NE(m.find("rank 2 never arrived"), std::string::npos) << m;
  EXPECT_NE(m.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << m;
  EXPECT_NE(m.find("3 of 4 ranks"), std::string::npos) << m;
  // The others either got rank 0's explanation before their own deadline
  // passed or point to it.
  for (int i = 1; i < 3; ++i) {
    EXPECT_FALSE(results[i].ok());
    const std::string &other = results[i].message();
    EXPECT_TRUE(other.find("rank 2 never arrived") != std::string::npos ||
                other.find("rank 0's error names the ranks that never "
                           "arrived") != std::string::npos)
        << other;
  }
}

/// Connects to 127.0.0.1:port (retrying until the master listens) and
/// sends `bytes`; the socket stays open until the returned fd is closed.
int strayConnection(int32_t port, const std::string &bytes) {
  Deadline until = Deadline::after(kSeconds);
  while (!until.expired()) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0) {
      (void)!::write(fd, bytes.data(), bytes.size());
      return fd;
    }
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

// A connection that is not a collc bootstrap (another program, a port
// scanner) does not disturb the rendezvous, and is listed if it times out.
TEST(TcpBootstrap, StrayConnectionsAreDropped) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> world(3);
  std::vector<Status> results(3);
  int stray = -1;
  // Rank 1 starts only once the stray is connected, so the stray always
  // arrives while rank 0 still listens (on a loaded machine the two real
  // ranks could otherwise finish before the stray connects).
  std::atomic<bool> strayTried{false};
  runRanks(3, [&](int32_t r) {
    if (r == 2) {
      stray = strayConnection(port, "GET / HTTP/1.0\r\n\r\n");
      strayTried = true;
      return;
    }
    if (r == 1) {
      Deadline until = Deadline::after(kSeconds);
      while (!strayTried && !until.expired())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    results[r] = createTcpBootstrap(launchInfo(r, 2, port),
                                    Deadline::after(kSeconds), &world[r]);
  });
  EXPECT_GE(stray, 0);
  EXPECT_TRUE(results[0].ok()) << results[0].toString();
  EXPECT_TRUE(results[1].ok()) << results[1].toString();
  if (stray >= 0)
    ::close(stray);

  port = freeTcpPort();
  runRanks(2, [&](int32_t r) {
    if (r == 1) {
      stray = strayConnection(port, std::string(64, '\xff'));
      return;
    }
    results[0] = createTcpBootstrap(launchInfo(0, 2, port), Deadline::after(1),
                                    &world[2]);
  });
  EXPECT_EQ(results[0].code(), ErrorCode::Timeout) << results[0].toString();
  EXPECT_NE(results[0].message().find("rank 1 never arrived"),
            std::string::npos)
      << results[0].message();
  EXPECT_NE(results[0].message().find("that is not a collc bootstrap"),
            std::string::npos)
      << results[0].message();
  if (stray >= 0)
    ::close(stray);
}

TEST(TcpBootstrap, MasterThatNeverStartsIsNamed) {
  int32_t port = freeTcpPort();
  std::unique_ptr<Bootstrap> b;
  Status s =
      createTcpBootstrap(launchInfo(1, 2, port), Deadline::after(0.3), &b);
  EXPECT_EQ(s.code(), ErrorCode::Timeout) << s.toString();
  EXPECT_NE(s.message().find("the master (rank 0) at 127.0.0.1:" +
                             std::to_string(port)),
            std::string::npos)
      << s.message();
}

TEST(TcpBootstrap, InconsistentWorldsFail) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> world(2);
  std::vector<Status> results(2);
  runRanks(2, [&](int32_t r) {
    // Rank 1 believes in a world of 3.
    results[r] = createTcpBootstrap(launchInfo(r, r == 0 ? 2 : 3, port),
                                    Deadline::after(kSeconds), &world[r]);
  });
  for (int32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(results[r].code(), ErrorCode::Bootstrap) << results[r].toString();
    EXPECT_NE(results[r].message().find("rank 1 (from 127.0.0.1:"),
              std::string::npos)
        << results[r].message();
    EXPECT_NE(results[r].message().find("says the world has 3 ranks, rank 0 "
                                        "says 2"),
              std::string::npos)
        << results[r].message();
  }
}

TEST(TcpBootstrap, DuplicateRankFails) {
  int32_t port = freeTcpPort();
  std::vector<std::unique_ptr<Bootstrap>> world(3);
  std::vector<Status> results(3);
  runRanks(3, [&](int32_t i) {
    results[i] = createTcpBootstrap(launchInfo(i == 0 ? 0 : 1, 3, port),
                                    Deadline::after(kSeconds), &world[i]);
  });
  EXPECT_EQ(results[0].code(), ErrorCode::Bootstrap) << results[0].toString();
  EXPECT_NE(results[0].message().find("two processes say they are rank 1"),
            std::string::npos)
      << results[0].message();
}

TEST(TcpBootstrap, BadArguments) {
  std::unique_ptr<Bootstrap> b;
  Status s = createTcpBootstrap(launchInfo(2, 2, 1234), Deadline::after(1), &b);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  s = createTcpBootstrap(launchInfo(0, 2, 0), Deadline::after(1), &b);
  EXPECT_NE(s.message().find("master port 0 is outside 1..65535"),
            std::string::npos)
      << s.message();
  LaunchInfo info = launchInfo(1, 2, 1234);
  info.masterAddr = "no-such-host.invalid";
  s = createTcpBootstrap(info, Deadline::after(1), &b);
  EXPECT_EQ(s.code(), ErrorCode::Bootstrap) << s.toString();
  EXPECT_NE(s.message().find("'no-such-host.invalid'"), std::string::npos)
      << s.message();
}

TEST(TcpBootstrap, AllGatherTimeoutNamesTheMissingRank) {
  auto world = makeWorld(3);
  ASSERT_TRUE(world[2]);
  std::vector<Status> results(2);
  runRanks(2, [&](int32_t r) {
    std::vector<std::string> all;
    results[r] = world[r]->allGather("x", &all, Deadline::after(0.5));
  });
  EXPECT_EQ(results[0].code(), ErrorCode::Timeout) << results[0].toString();
  EXPECT_NE(results[0].message().find("timed out waiting for rank 2"),
            std::string::npos)
      << results[0].message();
  // Rank 1 hears rank 0's error, or times out itself first.
  EXPECT_EQ(results[1].code(), ErrorCode::Timeout) << results[1].toString();
  EXPECT_TRUE(
      results[1].message().find("failed at rank 0: bootstrap, rank 0: "
                                "allGather #1 timed out waiting for rank 2") !=
          std::string::npos ||
      results[1].message().find("timed out waiting for rank 0 (the master)") !=
          std::string::npos)
      << results[1].message();
}

TEST(TcpBootstrap, AnnouncedFailureReachesEveryone) {
  auto world = makeWorld(4);
  ASSERT_TRUE(world[3]);
  world[2]->announceFailure("channel 1 timed out");
  for (int32_t r : {0, 1, 3}) {
    Status s = waitForPeerFailure(*world[r], kSeconds);
    EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << "rank " << r;
    EXPECT_NE(s.message().find("rank 2 failed: channel 1 timed out"),
              std::string::npos)
        << s.message();
  }
  // Later collectives fail with it too.
  std::vector<std::string> all;
  Status s = world[1]->allGather("x", &all, Deadline::after(1));
  EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
}

TEST(TcpBootstrap, NormalCloseIsNotAFailure) {
  auto world = makeWorld(3);
  ASSERT_TRUE(world[2]);
  world[1].reset();
  std::vector<Status> results(3);
  runRanks(3, [&](int32_t r) {
    if (r == 1)
      return;
    std::vector<std::string> all;
    results[r] = world[r]->allGather("x", &all, Deadline::after(kSeconds));
  });
  EXPECT_EQ(results[0].code(), ErrorCode::Bootstrap) << results[0].toString();
  EXPECT_NE(results[0].message().find(
                "rank 1 closed the bootstrap without contributing"),
            std::string::npos)
      << results[0].message();
  // Rank 2 hears the master's error instead of waiting for its deadline.
  EXPECT_EQ(results[2].code(), ErrorCode::Bootstrap) << results[2].toString();
  EXPECT_NE(results[2].message().find(
                "failed at rank 0: bootstrap, rank 0: allGather #1: rank 1 "
                "closed the bootstrap without contributing"),
            std::string::npos)
      << results[2].message();
  EXPECT_TRUE(world[0]->checkPeers().ok()) << world[0]->checkPeers().toString();
  EXPECT_TRUE(world[2]->checkPeers().ok()) << world[2]->checkPeers().toString();
}

// Ranks 1 and 2 are processes; rank 2 is killed. Rank 0 (this process) and
// rank 1 both see PeerFailure naming rank 2.
TEST(TcpBootstrap, KilledProcessIsNamed) {
  int32_t port = freeTcpPort();
  pid_t victim = forkChild([&] {
    std::unique_ptr<Bootstrap> b;
    Status s = createTcpBootstrap(launchInfo(2, 3, port),
                                  Deadline::after(kSeconds), &b);
    if (!s.ok())
      return 3;
    // Wait to be killed.
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 4;
  });
  ASSERT_GT(victim, 0);
  pid_t witness = forkChild([&] {
    std::unique_ptr<Bootstrap> b;
    Status s = createTcpBootstrap(launchInfo(1, 3, port),
                                  Deadline::after(kSeconds), &b);
    if (!s.ok())
      return 3;
    s = waitForPeerFailure(*b, kSeconds);
    if (s.code() != ErrorCode::PeerFailure ||
        s.message().find("rank 2 failed") == std::string::npos) {
      std::fprintf(stderr, "rank 1 saw: %s\n", s.toString().c_str());
      return 5;
    }
    return 0;
  });
  ASSERT_GT(witness, 0);
  std::unique_ptr<Bootstrap> b;
  Status s =
      createTcpBootstrap(launchInfo(0, 3, port), Deadline::after(kSeconds), &b);
  if (!s.ok()) {
    waitChild(victim, 0);
    waitChild(witness, 0);
    FAIL() << s.toString();
  }
  ASSERT_TRUE(b->checkPeers().ok());
  ::kill(victim, SIGKILL);
  EXPECT_EQ(waitChild(victim, kSeconds), 128 + SIGKILL);
  s = waitForPeerFailure(*b, kSeconds);
  EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
  EXPECT_NE(s.message().find("rank 2 failed: its bootstrap connection to "
                             "rank 0 closed without a goodbye"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(waitChild(witness, kSeconds), 0);
}

// The master process dies: the others see PeerFailure naming rank 0.
TEST(TcpBootstrap, KilledMasterIsNamed) {
  int32_t port = freeTcpPort();
  pid_t master = forkChild([&] {
    std::unique_ptr<Bootstrap> b;
    Status s = createTcpBootstrap(launchInfo(0, 2, port),
                                  Deadline::after(kSeconds), &b);
    if (!s.ok())
      return 3;
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 4;
  });
  ASSERT_GT(master, 0);
  std::unique_ptr<Bootstrap> b;
  Status s =
      createTcpBootstrap(launchInfo(1, 2, port), Deadline::after(kSeconds), &b);
  if (!s.ok()) {
    waitChild(master, 0);
    FAIL() << s.toString();
  }
  ::kill(master, SIGKILL);
  EXPECT_EQ(waitChild(master, kSeconds), 128 + SIGKILL);
  s = waitForPeerFailure(*b, kSeconds);
  EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
  EXPECT_NE(s.message().find("rank 0 failed"), std::string::npos)
      << s.message();
}

} // namespace
