//===- TransportConformanceTest.cpp - the Transport contract, per kind ----===//
//
// The same tests for every transport (ranks as threads of this process;
// ib only where an RDMA device exists, skipped with the reason otherwise;
// ib_emulated on test/fakeibverbs' libibverbs wherever it is built):
// FIFO order and content, the slots limit, largest and empty messages, many
// channels at once, reconnecting with a new spec, mismatched specs, connect
// timeouts, abort.
//
//===----------------------------------------------------------------------===//
#include "TransportTestUtil.h"

#include "net/IbvNet.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace collrt;
using namespace collrt::test;

namespace {

constexpr double kSeconds = 15;

class TransportConformance : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (GetParam() != "ib" && GetParam() != "ib_emulated")
      return;
    Status s = ibAvailable(GetParam());
    if (s.code() == ErrorCode::Unsupported)
      GTEST_SKIP() << s.message();
  }
  void makeWorldOf(int32_t n) {
    Status s = makeWorld(GetParam(), n, &world);
    ASSERT_TRUE(s.ok()) << s.toString();
  }
  World world;
};

/// A ring: rank r sends to r+1 and receives from r-1 on `channels`.
std::vector<ConnectionSpec> ringSpecs(int32_t n, uint32_t channels,
                                      uint32_t slots, size_t slotBytes) {
  std::vector<ConnectionSpec> specs(n);
  for (int32_t r = 0; r < n; ++r) {
    specs[r].slots = slots;
    specs[r].slotBytes = slotBytes;
    for (uint32_t c = 0; c < channels; ++c) {
      specs[r].sendTo.push_back({(r + 1) % n, c});
      specs[r].recvFrom.push_back({(r + n - 1) % n, c});
    }
  }
  return specs;
}

TEST_P(TransportConformance, FifoOrderAndContent) {
  makeWorldOf(2);
  ASSERT_TRUE(connectAll(world, ringSpecs(2, 1, 4, 4096), kSeconds).ok());
  constexpr int kMessages = 200;
  Deadline deadline = Deadline::after(kSeconds);
  runRanks(2, [&](int32_t r) {
    if (r == 0) {
      for (int m = 0; m < kMessages; ++m) {
        auto data = pattern(0, 1, 0, m, (m * 37) % 4097);
        Status s =
            sendWait(world[0], {1, 0}, data.data(), data.size(), deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
      }
    } else {
      for (int m = 0; m < kMessages; ++m) {
        std::vector<unsigned char> got;
        Status s = recvWait(world[1], {0, 0}, &got, deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
        ASSERT_EQ(got, pattern(0, 1, 0, m, (m * 37) % 4097)) << "message " << m;
      }
    }
  });
}

TEST_P(TransportConformance, SlotsLimitTrySendSaysFull) {
  makeWorldOf(2);
  constexpr uint32_t kSlots = 3;
  ASSERT_TRUE(connectAll(world, ringSpecs(2, 1, kSlots, 64), kSeconds).ok());
  Deadline deadline = Deadline::after(kSeconds);
  // kSlots sends post at once; the next finds every slot taken.
  for (uint32_t m = 0; m < kSlots; ++m) {
    auto data = pattern(0, 1, 0, m, 64);
    bool posted = false;
    ASSERT_TRUE(world[0].trySend({1, 0}, data.data(), 64, &posted).ok());
    ASSERT_TRUE(posted) << "send " << m << " of " << kSlots;
  }
  auto extra = pattern(0, 1, 0, kSlots, 64);
  bool posted = true;
  ASSERT_TRUE(world[0].trySend({1, 0}, extra.data(), 64, &posted).ok());
  EXPECT_FALSE(posted);
  // tryRecv without release keeps returning the oldest message, and the
  // connection stays full.
  const void *data = nullptr;
  size_t bytes = 0;
  bool ready = false;
  while (!ready && !deadline.expired())
    ASSERT_TRUE(world[1].tryRecv({0, 0}, &data, &bytes, &ready).ok());
  ASSERT_TRUE(ready);
  const void *again = nullptr;
  ASSERT_TRUE(world[1].tryRecv({0, 0}, &again, &bytes, &ready).ok());
  EXPECT_TRUE(ready);
  EXPECT_EQ(again, data);
  EXPECT_EQ(std::vector<unsigned char>(
                static_cast<const unsigned char *>(data),
                static_cast<const unsigned char *>(data) + bytes),
            pattern(0, 1, 0, 0, 64));
  ASSERT_TRUE(world[0].trySend({1, 0}, extra.data(), 64, &posted).ok());
  EXPECT_FALSE(posted);
  // One release frees one slot: the extra send posts, the next is full.
  ASSERT_TRUE(world[1].releaseRecv({0, 0}).ok());
  ASSERT_TRUE(sendWait(world[0], {1, 0}, extra.data(), 64, deadline).ok());
  ASSERT_TRUE(world[0].trySend({1, 0}, extra.data(), 64, &posted).ok());
  EXPECT_FALSE(posted);
  for (uint32_t m = 1; m <= kSlots; ++m) {
    std::vector<unsigned char> got;
    ASSERT_TRUE(recvWait(world[1], {0, 0}, &got, deadline).ok());
    EXPECT_EQ(got, pattern(0, 1, 0, m, 64)) << "message " << m;
  }
  Status s = world[1].releaseRecv({0, 0});
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
}

TEST_P(TransportConformance, LargestAndEmptyMessages) {
  makeWorldOf(2);
  constexpr size_t kSlotBytes = 256 << 10;
  ASSERT_TRUE(connectAll(world, ringSpecs(2, 1, 2, kSlotBytes), kSeconds).ok());
  auto big = pattern(0, 1, 0, 0, kSlotBytes + 1);
  bool posted = true;
  Status s = world[0].trySend({1, 0}, big.data(), kSlotBytes + 1, &posted);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("slotBytes"), std::string::npos) << s.message();
  EXPECT_FALSE(posted);
  Deadline deadline = Deadline::after(kSeconds);
  runRanks(2, [&](int32_t r) {
    for (int m = 0; m < 20; ++m) {
      size_t bytes = m % 2 ? 0 : kSlotBytes;
      if (r == 0) {
        auto data = pattern(0, 1, 0, m, bytes);
        Status s = sendWait(world[0], {1, 0}, bytes ? data.data() : nullptr,
                            bytes, deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
      } else {
        std::vector<unsigned char> got{1};
        Status s = recvWait(world[1], {0, 0}, &got, deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
        ASSERT_EQ(got, pattern(0, 1, 0, m, bytes)) << "message " << m;
      }
    }
  });
}

// Every rank sends to every rank (itself included) on every channel; one
// thread per (rank, channel) both sends and receives, as executors do.
TEST_P(TransportConformance, ManyChannelsAllToAll) {
  constexpr int32_t kRanks = 4;
  constexpr uint32_t kChannels = 4;
  constexpr int kMessages = 30;
  makeWorldOf(kRanks);
  std::vector<ConnectionSpec> specs(kRanks);
  for (int32_t r = 0; r < kRanks; ++r) {
    specs[r].slots = 2;
    specs[r].slotBytes = 1000;
    for (uint32_t c = 0; c < kChannels; ++c)
      for (int32_t p = 0; p < kRanks; ++p) {
        specs[r].sendTo.push_back({p, c});
        specs[r].recvFrom.push_back({p, c});
      }
  }
  Status s = connectAll(world, specs, kSeconds);
  ASSERT_TRUE(s.ok()) << s.toString();
  Deadline deadline = Deadline::after(kSeconds);
  std::atomic<int> received{0};
  runRanks(kRanks * kChannels, [&](int32_t thread) {
    int32_t r = thread / kChannels;
    uint32_t c = thread % kChannels;
    // Interleave: send message m to everyone, then receive message m from
    // everyone (2 slots keep this deadlock-free).
    for (int m = 0; m < kMessages; ++m) {
      for (int32_t p = 0; p < kRanks; ++p) {
        auto data = pattern(r, p, c, m, (m * 131 + p) % 1001);
        Status s =
            sendWait(world[r], {p, c}, data.data(), data.size(), deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
      }
      for (int32_t p = 0; p < kRanks; ++p) {
        std::vector<unsigned char> got;
        Status s = recvWait(world[r], {p, c}, &got, deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
        ASSERT_EQ(got, pattern(p, r, c, m, (m * 131 + r) % 1001))
            << "rank " << r << " from " << p << " channel " << c << " message "
            << m;
        ++received;
      }
    }
  });
  EXPECT_EQ(received.load(), kRanks * kChannels * kRanks * kMessages);
}

TEST_P(TransportConformance, ReconnectWithNewSpec) {
  constexpr int32_t kRanks = 3;
  makeWorldOf(kRanks);
  for (int round = 0; round < 3; ++round) {
    // Alternate direction, channel count, slots and slotBytes.
    uint32_t channels = 1 + round;
    size_t slotBytes = 100 * (round + 1);
    std::vector<ConnectionSpec> specs(kRanks);
    for (int32_t r = 0; r < kRanks; ++r) {
      int32_t next = round % 2 ? (r + kRanks - 1) % kRanks : (r + 1) % kRanks;
      int32_t prev = round % 2 ? (r + 1) % kRanks : (r + kRanks - 1) % kRanks;
      specs[r].slots = 1 + round;
      specs[r].slotBytes = slotBytes;
      for (uint32_t c = 0; c < channels; ++c) {
        specs[r].sendTo.push_back({next, c});
        specs[r].recvFrom.push_back({prev, c});
      }
    }
    Status s = connectAll(world, specs, kSeconds);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.toString();
    Deadline deadline = Deadline::after(kSeconds);
    runRanks(kRanks * channels, [&](int32_t thread) {
      int32_t r = thread / channels;
      uint32_t c = thread % channels;
      const ConnectionKey to = specs[r].sendTo[c];
      const ConnectionKey from = specs[r].recvFrom[c];
      for (int m = 0; m < 10; ++m) {
        auto data = pattern(r, to.peer, c, m + round * 100, slotBytes);
        Status s = sendWait(world[r], to, data.data(), data.size(), deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
        std::vector<unsigned char> got;
        s = recvWait(world[r], from, &got, deadline);
        ASSERT_TRUE(s.ok()) << s.toString();
        ASSERT_EQ(got, pattern(from.peer, r, c, m + round * 100, slotBytes));
      }
    });
    // The old connections are gone.
    bool posted = true;
    ConnectionKey stale{(kRanks + 5) % kRanks, 7};
    Status stale0 = world[0].trySend(stale, "x", 1, &posted);
    EXPECT_EQ(stale0.code(), ErrorCode::InvalidArgument) << stale0.toString();
  }
}

TEST_P(TransportConformance, MismatchedSpecsNameBothRanks) {
  makeWorldOf(2);
  std::vector<ConnectionSpec> specs(2);
  specs[0].sendTo.push_back({1, 3});
  std::vector<Status> results(2);
  Deadline deadline = Deadline::after(kSeconds);
  runRanks(
      2, [&](int32_t r) { results[r] = world[r].connect(specs[r], deadline); });
  for (int32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(results[r].code(), ErrorCode::InvalidArgument)
        << results[r].toString();
    EXPECT_NE(results[r].message().find(
                  "rank 0 sends to rank 1 on channel 3 but rank 1 does not "
                  "receive from rank 0"),
              std::string::npos)
        << results[r].message();
  }
}

TEST_P(TransportConformance, BadSpecIsRejected) {
  makeWorldOf(1);
  ConnectionSpec spec;
  spec.sendTo.push_back({5, 0});
  Status s = world[0].connect(spec, Deadline::after(kSeconds));
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("peer 5 outside the world of 1 ranks"),
            std::string::npos)
      << s.message();
  spec.sendTo = {{0, 1}, {0, 1}};
  spec.recvFrom = {{0, 1}};
  s = world[0].connect(spec, Deadline::after(kSeconds));
  EXPECT_NE(s.message().find("repeats the connection to peer 0 channel 1"),
            std::string::npos)
      << s.message();
  spec.sendTo = {{0, 1}};
  spec.slots = 0;
  s = world[0].connect(spec, Deadline::after(kSeconds));
  EXPECT_NE(s.message().find("slots = 0"), std::string::npos) << s.message();
}

TEST_P(TransportConformance, ConnectTimesOutNamingTheMissingRank) {
  makeWorldOf(3);
  auto specs = ringSpecs(3, 1, 2, 16);
  std::vector<Status> results(2);
  Deadline deadline = Deadline::after(0.5);
  runRanks(
      2, [&](int32_t r) { results[r] = world[r].connect(specs[r], deadline); });
  for (int32_t r = 0; r < 2; ++r)
    EXPECT_EQ(results[r].code(), ErrorCode::Timeout) << results[r].toString();
  // Rank 0 (the in-process fabric and the bootstrap's root) knows who is
  // missing.
  EXPECT_NE(results[0].message().find("rank 2"), std::string::npos)
      << results[0].message();
}

TEST_P(TransportConformance, SelfConnection) {
  makeWorldOf(1);
  ConnectionSpec spec;
  spec.sendTo = {{0, 0}};
  spec.recvFrom = {{0, 0}};
  spec.slots = 2;
  spec.slotBytes = 32;
  ASSERT_TRUE(connectAll(world, {spec}, kSeconds).ok());
  Deadline deadline = Deadline::after(kSeconds);
  for (int m = 0; m < 5; ++m) {
    auto data = pattern(0, 0, 0, m, 32);
    ASSERT_TRUE(sendWait(world[0], {0, 0}, data.data(), 32, deadline).ok());
    std::vector<unsigned char> got;
    ASSERT_TRUE(recvWait(world[0], {0, 0}, &got, deadline).ok());
    EXPECT_EQ(got, data);
  }
}

TEST_P(TransportConformance, AbortWakesWaitersAndNamesTheRank) {
  makeWorldOf(2);
  ASSERT_TRUE(connectAll(world, ringSpecs(2, 2, 2, 16), kSeconds).ok());
  std::atomic<bool> started{false};
  Status peerSide, ownSide;
  std::thread peer([&] {
    // Rank 1 waits for a message rank 0 never sends.
    std::vector<unsigned char> got;
    started = true;
    peerSide = recvWait(world[1], {0, 0}, &got, Deadline::after(kSeconds));
    if (peerSide.ok())
      return;
    // Let checkPeers see it as well.
    Deadline until = Deadline::after(kSeconds);
    while (world[1].checkPeers().ok() && !until.expired())
      std::this_thread::yield();
  });
  std::thread own([&] {
    std::vector<unsigned char> got;
    ownSide = recvWait(world[0], {1, 1}, &got, Deadline::after(kSeconds));
  });
  while (!started)
    std::this_thread::yield();
  world[0].abort("test abort");
  world[0].abort("second abort is harmless");
  peer.join();
  own.join();
  EXPECT_EQ(peerSide.code(), ErrorCode::PeerFailure) << peerSide.toString();
  EXPECT_NE(peerSide.message().find("rank 0"), std::string::npos)
      << peerSide.message();
  EXPECT_NE(peerSide.message().find("test abort"), std::string::npos)
      << peerSide.message();
  Status check = world[1].checkPeers();
  EXPECT_EQ(check.code(), ErrorCode::PeerFailure) << check.toString();
  EXPECT_FALSE(ownSide.ok());
  EXPECT_NE(ownSide.code(), ErrorCode::Timeout) << ownSide.toString();
  bool posted = true;
  Status after = world[0].trySend({1, 0}, "x", 1, &posted);
  EXPECT_FALSE(after.ok());
  EXPECT_FALSE(posted);
  EXPECT_FALSE(world[0].checkPeers().ok());
}

TEST_P(TransportConformance, RegisterMemoryRecordsRegions) {
  makeWorldOf(1);
  std::vector<char> buffer(100);
  MemoryRegion a, b;
  ASSERT_TRUE(world[0].registerMemory(buffer.data(), 50, &a).ok());
  ASSERT_TRUE(world[0].registerMemory(buffer.data() + 50, 50, &b).ok());
  EXPECT_NE(a.key, b.key);
  EXPECT_EQ(a.base, buffer.data());
  EXPECT_EQ(b.bytes, 50u);
  EXPECT_TRUE(world[0].deregisterMemory(a).ok());
  Status s = world[0].deregisterMemory(a);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_TRUE(world[0].deregisterMemory(b).ok());
}

INSTANTIATE_TEST_SUITE_P(Transports, TransportConformance,
                         ::testing::Values("in-process", "shm", "tcp", "ib",
                                           "ib_emulated"),
                         [](const ::testing::TestParamInfo<std::string> &i) {
                           std::string name = i.param;
                           for (char &c : name)
                             if (c == '-')
                               c = '_';
                           return name;
                         });

} // namespace
