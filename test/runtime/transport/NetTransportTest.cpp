//===- NetTransportTest.cpp - the tcp/ib protocol's pieces ----------------===//
//
// The control messages' format, createIbTransport's errors on a host
// without RDMA (they name the tcp transport; nothing falls back), and
// what describe() reports.
//
//===----------------------------------------------------------------------===//
#include "TransportTestUtil.h"

#include "transport/NetTransport.h"

#include <gtest/gtest.h>

using namespace collrt;
using namespace collrt::transport;
using namespace collrt::test;

namespace {

constexpr double kSeconds = 15;

TEST(NetProtocol, ControlMessagesRoundTrip) {
  ControlMessage hello;
  hello.type = ControlType::Hello;
  hello.rank = 1023;
  hello.generation = 7;
  hello.runId = "4242-123456789";
  ControlMessage credit;
  credit.type = ControlType::Credit;
  credit.credits = {{0, 1}, {31, uint64_t(1) << 40}, {5, 0}};
  ControlMessage bye;
  bye.type = ControlType::Bye;
  ControlMessage abort;
  abort.type = ControlType::Abort;
  abort.reason = "rank 3 channel 1 timed out";
  for (const ControlMessage &m : {hello, credit, bye, abort}) {
    std::string bytes = encodeControl(m);
    ASSERT_LE(bytes.size(), kControlBytes);
    ControlMessage back;
    ASSERT_TRUE(decodeControl(bytes.data(), bytes.size(), &back));
    EXPECT_EQ(back.type, m.type);
    EXPECT_EQ(back.rank, m.rank);
    EXPECT_EQ(back.generation, m.generation);
    EXPECT_EQ(back.runId, m.runId);
    EXPECT_EQ(back.credits, m.credits);
    EXPECT_EQ(back.reason, m.reason);
    // Any other length is not this message.
    EXPECT_FALSE(decodeControl(bytes.data(), bytes.size() - 1, &back));
    bytes += 'x';
    EXPECT_FALSE(decodeControl(bytes.data(), bytes.size(), &back));
  }
  std::string unknown = encodeControl(bye);
  unknown[3] = 9;
  ControlMessage back;
  EXPECT_FALSE(decodeControl(unknown.data(), unknown.size(), &back));
}

TEST(NetProtocol, LongControlMessagesAreCutToFit) {
  ControlMessage credit;
  credit.type = ControlType::Credit;
  for (uint32_t c = 0; c < 1000; ++c)
    credit.credits.push_back({c, c * 3});
  size_t encoded = 0;
  std::string bytes = encodeControl(credit, &encoded);
  EXPECT_LE(bytes.size(), kControlBytes);
  EXPECT_EQ(encoded, (kControlBytes - 8) / 12);
  ControlMessage back;
  ASSERT_TRUE(decodeControl(bytes.data(), bytes.size(), &back));
  ASSERT_EQ(back.credits.size(), encoded);
  EXPECT_EQ(back.credits.back(),
            std::make_pair(uint32_t(encoded - 1), uint64_t(encoded - 1) * 3));
  ControlMessage abort;
  abort.type = ControlType::Abort;
  abort.reason = std::string(10000, 'r');
  bytes = encodeControl(abort);
  EXPECT_EQ(bytes.size(), kControlBytes);
  ASSERT_TRUE(decodeControl(bytes.data(), bytes.size(), &back));
  EXPECT_EQ(back.reason, std::string(kControlBytes - 8, 'r'));
}

/// A one-rank bootstrap on 127.0.0.1.
std::unique_ptr<Bootstrap> soloBootstrap() {
  LaunchInfo info;
  info.rank = 0;
  info.worldSize = 1;
  info.localRank = 0;
  info.masterAddr = "127.0.0.1";
  info.masterPort = freePort();
  std::unique_ptr<Bootstrap> b;
  Status s = createTcpBootstrap(info, Deadline::after(kSeconds), &b);
  EXPECT_TRUE(s.ok()) << s.toString();
  return b;
}

TEST(IbTransport, NoRdmaDeviceNamesTheTcpTransport) {
  auto b = soloBootstrap();
  ASSERT_TRUE(b);
  IbTransportOptions options;
  options.library = FAKE_IBVERBS_NODEV;
  std::unique_ptr<Transport> t;
  Status s = createIbTransport(*b, options, &t);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_EQ(s.message().rfind("ib transport, rank 0: no RDMA device: ", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("found no devices (ibv_get_device_list "
                             "returned 0); run with --transport tcp"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(t, nullptr);
  // No libibverbs at all.
  options.library = "libcollc-no-such-ibverbs.so.1";
  s = createIbTransport(*b, options, &t);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("cannot load libcollc-no-such-ibverbs.so.1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("--transport tcp"), std::string::npos)
      << s.message();
}

// The topology is read before libibverbs: a wrong file or rank is an
// error on every host.
TEST(IbTransport, TopologyErrorsComeFirst) {
  auto b = soloBootstrap();
  ASSERT_TRUE(b);
  IbTransportOptions options;
  options.library = FAKE_IBVERBS_NODEV;
  options.topologyFile = "/nonexistent/collc-topology.json";
  std::unique_ptr<Transport> t;
  Status s = createIbTransport(*b, options, &t);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("ib transport, rank 0: the topology for the NIC "
                             "choice: /nonexistent/collc-topology.json"),
            std::string::npos)
      << s.message();
  options.topologyFile = std::string(COLLC_TOPOLOGIES_DIR) + "/dgx8x8.json";
  options.topologyRank = 64;
  s = createIbTransport(*b, options, &t);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("rank 64 is not a GPU of topology dgx8x8"),
            std::string::npos)
      << s.message();
  // A valid topology and rank: then the missing device is the error.
  options.topologyRank = 3;
  s = createIbTransport(*b, options, &t);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
}

TEST(TcpTransport, DescribeNamesTheInterface) {
  auto b = soloBootstrap();
  ASSERT_TRUE(b);
  std::unique_ptr<Transport> t;
  ASSERT_TRUE(createTcpTransport(*b, "lo", &t).ok());
  EXPECT_EQ(t->describe().rfind("tcp: rank 0 listens on lo (127.0.0.1", 0), 0u)
      << t->describe();
  EXPECT_STREQ(t->name(), "tcp");
}

} // namespace
