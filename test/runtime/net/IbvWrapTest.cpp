//===- IbvWrapTest.cpp - libibverbs loaded at run time: the error paths ---===//
//
// Without an RDMA device: a library that does not exist, one that lacks a
// function, one that finds no device (test/runtime/net/FakeIbverbs.c
// stands in for the last two), and this host's own libibverbs.
//
//===----------------------------------------------------------------------===//
#include "net/IbvWrap.h"
#include "net/IbvNet.h"

#include <gtest/gtest.h>

using namespace collrt;
using namespace collrt::net;

namespace {

const char *const kTcpHint = "run with --transport tcp";

#if COLLRT_HAVE_VERBS_H

TEST(IbvWrap, MissingLibraryIsNamed) {
  std::shared_ptr<const IbvApi> api;
  Status s = loadIbverbs("libcollc-no-such-ibverbs.so.1", &api);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("cannot load libcollc-no-such-ibverbs.so.1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(kTcpHint), std::string::npos) << s.message();
  EXPECT_EQ(api, nullptr);
}

TEST(IbvWrap, MissingFunctionIsNamed) {
  std::shared_ptr<const IbvApi> api;
  Status s = loadIbverbs(FAKE_IBVERBS_PARTIAL, &api);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("lacks ibv_create_qp"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(kTcpHint), std::string::npos) << s.message();
  EXPECT_EQ(api, nullptr);
}

TEST(IbvWrap, EveryFunctionIsResolved) {
  std::shared_ptr<const IbvApi> api;
  Status s = loadIbverbs(FAKE_IBVERBS_NODEV, &api);
  ASSERT_TRUE(s.ok()) << s.toString();
#define COLLRT_EXPECT_LOADED(member, symbol)                                   \
  EXPECT_NE(api->member, nullptr) << #symbol;
  COLLRT_IBV_REQUIRED(COLLRT_EXPECT_LOADED)
#undef COLLRT_EXPECT_LOADED
  // The stand-in has no ibv_reg_dmabuf_mr: optional, so not an error.
  EXPECT_EQ(api->regDmabufMr, nullptr);
  EXPECT_EQ(api->library, FAKE_IBVERBS_NODEV);
  EXPECT_NE(api->path.find("collrt_fake_ibverbs_nodev"), std::string::npos)
      << api->path;
}

TEST(IbvWrap, NoDeviceSaysSoAndNamesTcp) {
  IbvNetOptions options;
  options.library = FAKE_IBVERBS_NODEV;
  options.oobHost = "127.0.0.1";
  std::unique_ptr<Net> net;
  Status s = createIbvNet(options, "ib transport, rank 0", &net);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_EQ(s.message(),
            std::string("ib transport, rank 0: no RDMA device: ") +
                FAKE_IBVERBS_NODEV +
                " found no devices (ibv_get_device_list returned 0); " +
                ibTcpAlternative());
  EXPECT_EQ(net, nullptr);
}

TEST(IbvWrap, MissingLibraryFailsTheNet) {
  IbvNetOptions options;
  options.library = "libcollc-no-such-ibverbs.so.1";
  std::unique_ptr<Net> net;
  Status s = createIbvNet(options, "ib transport, rank 0", &net);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_EQ(s.message().rfind("ib transport, rank 0: no RDMA support", 0), 0u)
      << s.message();
}

// This host's libibverbs: either it lists active RDMA ports, which then
// describe themselves, or the error says what is missing and names tcp.
TEST(IbvWrap, ThisHostsLibibverbs) {
  IbvNetOptions options;
  options.oobHost = "127.0.0.1";
  std::unique_ptr<Net> net;
  Status s = createIbvNet(options, "test", &net);
  if (s.ok()) {
    ASSERT_FALSE(net->devices().empty());
    for (const NetDeviceInfo &d : net->devices()) {
      EXPECT_GE(d.port, 1) << d.describe();
      EXPECT_TRUE(d.deviceMemory) << d.describe();
      EXPECT_GE(d.maxDepth, 1u) << d.describe();
    }
    return;
  }
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_EQ(s.message().rfind("test: no ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(kTcpHint), std::string::npos) << s.message();
}

#else

TEST(IbvWrap, BuildWithoutVerbsHeaderSaysSo) {
  std::unique_ptr<Net> net;
  Status s = createIbvNet(IbvNetOptions(), "test", &net);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("built without <infiniband/verbs.h>"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(kTcpHint), std::string::npos) << s.message();
}

#endif

} // namespace
