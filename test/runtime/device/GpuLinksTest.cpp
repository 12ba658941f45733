//===- GpuLinksTest.cpp - which path each pair of GPUs takes --------------===//
//
// chooseGpuLinks without a GPU: the driver's answer is the test's, the
// topologies are the bundled ones.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/GpuLinks.h"
#include "Schedules.h"
#include "common/Topology/Topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace collrt {
namespace testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Pairs = std::vector<std::pair<int32_t, int32_t>>;

dev::LaunchLayout ringLayout(int32_t n) {
  PlanCollective c;
  c.location = "test";
  c.dtype = DataType::F32;
  c.reduction = ReduceOp::Sum;
  c.connectionSlots = 2;
  c.program = ringAllReduce(n, 1, 1);
  c.groups.assign(1, {});
  for (int32_t r = 0; r < n; ++r)
    c.groups[0].push_back(r);
  dev::LaunchLayout layout;
  dev::DeviceOptions o;
  Status s = dev::LaunchLayout::create(c, 0, 1 << 10, o, &layout);
  EXPECT_TRUE(s.ok()) << s.toString();
  return layout;
}

std::unique_ptr<collc::topo::Topology> load(const std::string &name) {
  collc::topo::LoadResult loaded = collc::topo::loadTopologyFile(
      std::string(COLLRT_SOURCE_ROOT) + "/topologies/" + name);
  EXPECT_TRUE(loaded.topology) << loaded.error;
  return std::move(loaded.topology);
}

/// The driver allows peer access except between the pairs in `denied`.
dev::PeerAccessQuery driver(std::set<std::pair<int, int>> denied = {}) {
  return [denied](int a, int b, bool *can) {
    *can = !denied.count({std::min(a, b), std::max(a, b)});
    return Status::success();
  };
}

TEST(GpuLinksTest, PathsThroughACpuGoThroughHostMemory) {
  // 8 A100s on PCIe: GPUs 0-3 under switch sw0 (NUMA 0), 4-7 under sw1
  // (NUMA 1). A ring over GPUs 0..7 crosses the sockets between 3 and 4
  // and between 7 and 0.
  dev::LaunchLayout layout = ringLayout(8);
  auto topology = load("pcie-2numa.json");
  dev::GpuLinkChoice choice;
  ASSERT_TRUE(dev::chooseGpuLinks(layout, {0, 1, 2, 3, 4, 5, 6, 7},
                                  topology.get(), driver(), &choice)
                  .ok());
  EXPECT_EQ(choice.hostLinks, (Pairs{{0, 7}, {3, 4}}));
  ASSERT_EQ(choice.lines.size(), 8u);
  EXPECT_THAT(
      choice.lines,
      ::testing::Contains("GPU 0 - GPU 1: peer access (the topology's path "
                          "node0/gpu0 -> node0/sw0a -> node0/gpu1)"));
  EXPECT_THAT(choice.lines,
              ::testing::Contains(HasSubstr(
                  "GPU 3 - GPU 4: host memory (the topology's path "
                  "node0/gpu3 -> node0/sw0b -> node0/sw0 -> node0/cpu0 -> "
                  "node0/cpu1 -> node0/sw1 -> node0/sw1a -> node0/gpu4 "
                  "crosses a CPU)")));
}

TEST(GpuLinksTest, NvSwitchesArePeerToPeer) {
  dev::LaunchLayout layout = ringLayout(8);
  auto topology = load("dgx-h100.json");
  dev::GpuLinkChoice choice;
  ASSERT_TRUE(dev::chooseGpuLinks(layout, {0, 1, 2, 3, 4, 5, 6, 7},
                                  topology.get(), driver(), &choice)
                  .ok());
  EXPECT_TRUE(choice.hostLinks.empty());
  EXPECT_THAT(choice.lines[0], HasSubstr("GPU 0 - GPU 1: peer access"));
}

TEST(GpuLinksTest, WithoutATopologyTheDriverDecides) {
  // 4 ranks on devices 0 and 1 (rank r on r % 2): every ring neighbour is
  // on the other device; the pair is decided once.
  dev::LaunchLayout layout = ringLayout(4);
  dev::GpuLinkChoice choice;
  ASSERT_TRUE(
      dev::chooseGpuLinks(layout, {0, 1}, nullptr, driver({{0, 1}}), &choice)
          .ok());
  EXPECT_EQ(choice.hostLinks, (Pairs{{0, 1}, {0, 3}, {1, 2}, {2, 3}}));
  EXPECT_THAT(choice.lines,
              ElementsAre("GPU 0 - GPU 1: host memory (the driver denies "
                          "peer access)"));
  ASSERT_TRUE(
      dev::chooseGpuLinks(layout, {0, 1}, nullptr, driver(), &choice).ok());
  EXPECT_TRUE(choice.hostLinks.empty());
  EXPECT_THAT(choice.lines, ElementsAre("GPU 0 - GPU 1: peer access (the "
                                        "driver allows it)"));
  // One device: nothing to decide.
  ASSERT_TRUE(
      dev::chooseGpuLinks(layout, {0}, nullptr, driver({{0, 1}}), &choice)
          .ok());
  EXPECT_TRUE(choice.hostLinks.empty() && choice.lines.empty());
}

TEST(GpuLinksTest, ATopologyTheMachineContradictsIsAnError) {
  dev::LaunchLayout layout = ringLayout(8);
  auto topology = load("dgx-h100.json");
  dev::GpuLinkChoice choice;
  Status s = dev::chooseGpuLinks(layout, {0, 1, 2, 3, 4, 5, 6, 7},
                                 topology.get(), driver({{2, 3}}), &choice);
  ASSERT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("GPU 2 - GPU 3: the topology 'dgx-h100' gives them a "
                        "peer-to-peer path (node0/gpu2 -> "));
  EXPECT_THAT(s.message(), HasSubstr("but the driver denies peer access"));
  // A device the topology's node does not have.
  s = dev::chooseGpuLinks(ringLayout(2), {0, 9}, topology.get(), driver(),
                          &choice);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("GPU 0 - GPU 9: the topology 'dgx-h100' has 8 GPUs "
                        "per node (CUDA device d is GPU d of its first node)"));
  // The driver's failure, named with the pair.
  s = dev::chooseGpuLinks(
      ringLayout(2), {0, 1}, nullptr,
      [](int, int, bool *) {
        return Status(ErrorCode::Unsupported, "no CUDA driver");
      },
      &choice);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_THAT(s.message(), HasSubstr("GPU 0 - GPU 1: no CUDA driver"));
}

} // namespace
} // namespace testing
} // namespace collrt
