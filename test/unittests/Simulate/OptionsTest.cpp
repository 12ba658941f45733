//===- OptionsTest.cpp - each knob of SimOptions changes what it says -----===//
//
// One send of b bytes between two GPUs joined by one link of B = 10 GB/s
// and L = 1 us: it ends at fixed + L + b/B; the recv then stores the data
// in fixed + 2b / memory bandwidth.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include <gtest/gtest.h>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;

namespace {

constexpr double kB = 10e9, kL = 1e-6, kMemory = 2000e9, kFixed = 1e-6;
constexpr int64_t kElements = 1 << 20;
constexpr double kBytes = double(kElements) * 4;

class OptionsTest : public ::testing::Test {
protected:
  void SetUp() override {
    topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000));
    ASSERT_TRUE(topology);
    program = makeProgram(Collective::SendRecv, 2, 1);
    add(program, 0, 0, send(1, input(0), 0));
    add(program, 1, 0, recv(0, output(0), 0));
  }
  SimResult run(const SimOptions &options, std::vector<int> gpus = {0, 1},
                int64_t elements = kElements) {
    SimResult result = simulate(program, elements, 4, *topology, gpus, options);
    EXPECT_TRUE(result.ok()) << result.error;
    return result;
  }
  double sendEnd(const SimResult &result) { return result.timeline[0].end; }

  std::unique_ptr<topo::Topology> topology;
  Program program;
};

TEST_F(OptionsTest, Defaults) {
  SimResult result = run(SimOptions());
  EXPECT_NEAR(sendEnd(result), kFixed + kL + kBytes / kB, 1e-15);
  EXPECT_NEAR(result.totalTime,
              kFixed + kL + kBytes / kB + kFixed + 2 * kBytes / kMemory, 1e-15);
  EXPECT_DOUBLE_EQ(result.memoryBytes[0], kBytes);     // send reads src
  EXPECT_DOUBLE_EQ(result.memoryBytes[1], 2 * kBytes); // recv stores
  EXPECT_EQ(result.transfers, 1u);
  EXPECT_EQ(result.timeline[1].recvPeer, 0);
  EXPECT_EQ(result.timeline[1].opcode, Opcode::Recv);
  EXPECT_EQ(result.timeline[1].bytes, int64_t(kBytes));
}

TEST_F(OptionsTest, ProtocolEfficiencyScalesBandwidth) {
  SimOptions options;
  options.protocolEfficiency = 0.5;
  SimResult result = run(options);
  EXPECT_NEAR(sendEnd(result), kFixed + kL + kBytes / (0.5 * kB), 1e-15);
  EXPECT_DOUBLE_EQ(result.linkBandwidth[0], 0.5 * kB);
}

TEST_F(OptionsTest, LinkTypeOverrides) {
  SimOptions options;
  options.linkOverrides.push_back({"l", 20e9, 5e-6});
  EXPECT_NEAR(sendEnd(run(options)), kFixed + 5e-6 + kBytes / 20e9, 1e-15);
}

TEST_F(OptionsTest, NoFixedCostNoMemory) {
  SimOptions options;
  options.fixedCost = 0;
  options.chargeMemory = false;
  SimResult result = run(options);
  EXPECT_NEAR(sendEnd(result), kL + kBytes / kB, 1e-15);
  EXPECT_NEAR(result.totalTime, kL + kBytes / kB, 1e-15);
  EXPECT_DOUBLE_EQ(result.memoryBytes[1], 0);
}

/// A capped channel cannot fill the link alone; two channels share it.
/// Without memory charges the cap is the send's rate.
TEST_F(OptionsTest, ChannelBandwidthCapsEachSend) {
  SimOptions options;
  options.chargeMemory = false;
  options.channelBandwidth = kB / 4;
  EXPECT_NEAR(sendEnd(run(options)), kFixed + kL + kBytes / (kB / 4), 1e-15);
  add(program, 0, 1, send(1, input(0), 0));
  add(program, 1, 1, recv(0, output(0), 0));
  SimResult both = run(options);
  EXPECT_NEAR(both.timeline[1].end, kFixed + kL + kBytes / (kB / 4), 1e-15);
  options.channelBandwidth = kB;
  EXPECT_NEAR(run(options).timeline[1].end, kFixed + kL + kBytes / (kB / 2),
              1e-15);
}

/// A channel's memory work shares its cap with its sends: a send of b
/// reads b and sends b (2b of traffic at the cap C), the recv reads the
/// staged data and writes it (2b), a copy reads and writes b (2b).
TEST_F(OptionsTest, ChannelBandwidthCountsMemoryTraffic) {
  constexpr double kCap = kB / 4;
  SimOptions options;
  options.channelBandwidth = kCap;
  SimResult result = run(options);
  EXPECT_NEAR(sendEnd(result), kFixed + kL + 2 * kBytes / kCap, 1e-15);
  EXPECT_NEAR(result.totalTime, sendEnd(result) + kFixed + 2 * kBytes / kCap,
              1e-15);
  Program copies = makeProgram(Collective::SendRecv, 2, 1);
  add(copies, 0, 0, copy(input(0), output(0), 0));
  SimResult copied = simulate(copies, kElements, 4, *topology, {0, 1}, options);
  ASSERT_TRUE(copied.ok()) << copied.error;
  EXPECT_NEAR(copied.totalTime, kFixed + 2 * kBytes / kCap, 1e-15);
  // Two ranks of one GPU: no link, the cap still holds.
  EXPECT_NEAR(sendEnd(run(options, {1, 1})), kFixed + kBytes / kCap, 1e-15);
  // The bound from the caps alone: each channel's 2b over C, below the
  // simulated time; none without a cap.
  EXPECT_NEAR(
      channelTimeBound(program, kElements, 4, *topology, {0, 1}, options),
      2 * kBytes / kCap, 1e-15);
  EXPECT_NEAR(
      channelTimeBound(program, kElements, 4, *topology, {1, 1}, options),
      2 * kBytes / kCap, 1e-15); // the recv's 2b; the send's b
  EXPECT_LT(channelTimeBound(program, kElements, 4, *topology, {0, 1}, options),
            result.totalTime);
  EXPECT_EQ(
      channelTimeBound(program, kElements, 4, *topology, {0, 1}, SimOptions()),
      0);
}

/// Unset, the cap is the GPU model's channel_bandwidth_GBps; 0 turns it
/// off; a model without the field is not capped.
TEST_F(OptionsTest, ChannelBandwidthFromTheTopology) {
  std::string text = meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000);
  std::string field = R"("memory_bandwidth_GBps": 2000)";
  size_t at = text.find(field);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + field.size(), R"(, "channel_bandwidth_GBps": 2.5)");
  std::unique_ptr<topo::Topology> capped = parse(text);
  ASSERT_TRUE(capped);
  EXPECT_DOUBLE_EQ(channelCap(*capped, 0, SimOptions()), 2.5e9);
  EXPECT_DOUBLE_EQ(channelCap(*topology, 0, SimOptions()), 0);
  SimOptions options;
  options.chargeMemory = false;
  SimResult result = simulate(program, kElements, 4, *capped, {0, 1}, options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_NEAR(sendEnd(result), kFixed + kL + kBytes / 2.5e9, 1e-15);
  options.channelBandwidth = 0;
  EXPECT_DOUBLE_EQ(channelCap(*capped, 0, options), 0);
  result = simulate(program, kElements, 4, *capped, {0, 1}, options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_NEAR(sendEnd(result), kFixed + kL + kBytes / kB, 1e-15);
}

/// Two ranks on one GPU: no link, only memory time.
TEST_F(OptionsTest, RanksSharingAGpu) {
  SimResult result = run(SimOptions(), {1, 1});
  EXPECT_NEAR(sendEnd(result), kFixed + kBytes / kMemory, 1e-15);
  EXPECT_NEAR(result.totalTime,
              kFixed + kBytes / kMemory + kFixed + 2 * kBytes / kMemory, 1e-15);
  for (double bytes : result.linkBytes)
    EXPECT_EQ(bytes, 0);
}

/// An empty message still pays the fixed cost and the latency.
TEST_F(OptionsTest, EmptyMessage) {
  SimResult result = run(SimOptions(), {0, 1}, 0);
  EXPECT_NEAR(sendEnd(result), kFixed + kL, 1e-15);
  EXPECT_NEAR(result.totalTime, 2 * kFixed + kL, 1e-15);
}

TEST_F(OptionsTest, UtilizationAndLinkLoad) {
  SimResult result = run(SimOptions());
  // Link 0 is GPU 0 -> GPU 1.
  EXPECT_EQ(topology->device(topology->link(0).src).rank, 0);
  EXPECT_DOUBLE_EQ(result.linkBytes[0], kBytes);
  EXPECT_DOUBLE_EQ(result.linkBytes[1], 0);
  EXPECT_NEAR(result.linkUtilization[0], kBytes / (kB * result.totalTime),
              1e-12);
  // Busy at B from the end of the fixed cost until the data is pushed.
  ASSERT_EQ(result.linkLoad.size(), 2u);
  EXPECT_DOUBLE_EQ(result.linkLoad[0].time, kFixed);
  EXPECT_DOUBLE_EQ(result.linkLoad[0].bytesPerSecond, kB);
  EXPECT_NEAR(result.linkLoad[1].time, kFixed + kBytes / kB, 1e-15);
  EXPECT_DOUBLE_EQ(result.linkLoad[1].bytesPerSecond, 0);
  EXPECT_EQ(result.linkNames[0], "node0/gpu0->node0/gpu1");
}

} // namespace
