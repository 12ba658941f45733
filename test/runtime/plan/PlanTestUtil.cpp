//===- PlanTestUtil.cpp - helpers of the plan tests -----------------------===//
#include "PlanTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace collrt {
namespace test {

namespace sched = collc::sched;

std::string readInput(const std::string &relativePath) {
  std::ifstream in(std::string(COLLRT_TEST_INPUTS) + "/" + relativePath,
                   std::ios::binary);
  EXPECT_TRUE(in.good()) << relativePath;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> goldenPlans() {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(
           std::string(COLLRT_TEST_INPUTS) + "/plans"))
    if (entry.path().filename().string().size() > 10 &&
        entry.path().string().find(".plan.json") != std::string::npos)
      names.push_back("plans/" + entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

static std::vector<std::pair<uint32_t, uint32_t>>
depsOf(const sched::RankProgram &rank, const sched::Instruction &in) {
  std::vector<std::pair<uint32_t, uint32_t>> deps;
  for (uint32_t d = 0; d < in.depCount; ++d) {
    const sched::Dependency &dep = rank.dependencies.at(in.depBegin + d);
    deps.emplace_back(dep.channel, dep.instruction);
  }
  return deps;
}

static void expectRangesEqual(const sched::ChunkRange &a,
                              const sched::ChunkRange &b) {
  EXPECT_EQ(a.buffer, b.buffer);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.count, b.count);
}

void expectProgramsEqual(const sched::Program &a, const sched::Program &b) {
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.collective, b.collective);
  EXPECT_EQ(a.numRanks, b.numRanks);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.peer, b.peer);
  EXPECT_EQ(a.sendTo, b.sendTo);
  EXPECT_EQ(a.chunksPerPart, b.chunksPerPart);
  EXPECT_EQ(a.buffers.inputChunks, b.buffers.inputChunks);
  EXPECT_EQ(a.buffers.outputChunks, b.buffers.outputChunks);
  EXPECT_EQ(a.buffers.scratchChunks, b.buffers.scratchChunks);
  EXPECT_EQ(a.sendCounts, b.sendCounts);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    const sched::RankProgram &ra = a.ranks[r], &rb = b.ranks[r];
    ASSERT_EQ(ra.channels.size(), rb.channels.size()) << "rank " << r;
    for (size_t c = 0; c < ra.channels.size(); ++c) {
      const auto &ia = ra.channels[c].instructions;
      const auto &ib = rb.channels[c].instructions;
      ASSERT_EQ(ia.size(), ib.size()) << "rank " << r << " channel " << c;
      for (size_t i = 0; i < ia.size(); ++i) {
        SCOPED_TRACE("rank " + std::to_string(r) + " channel " +
                     std::to_string(c) + " instruction " + std::to_string(i));
        EXPECT_EQ(ia[i].opcode, ib[i].opcode);
        EXPECT_EQ(ia[i].sendPeer, ib[i].sendPeer);
        EXPECT_EQ(ia[i].recvPeer, ib[i].recvPeer);
        EXPECT_EQ(ia[i].step, ib[i].step);
        expectRangesEqual(ia[i].src, ib[i].src);
        expectRangesEqual(ia[i].dst, ib[i].dst);
        EXPECT_EQ(depsOf(ra, ia[i]), depsOf(rb, ib[i]));
      }
    }
  }
}

void expectPlansEqual(const Plan &a, const Plan &b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.producer, b.producer);
  EXPECT_EQ(a.topology, b.topology);
  EXPECT_EQ(a.worldSize, b.worldSize);
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    SCOPED_TRACE("collective " + std::to_string(i));
    const PlanCollective &ca = a.collectives[i], &cb = b.collectives[i];
    EXPECT_EQ(ca.location, cb.location);
    EXPECT_EQ(ca.dtype, cb.dtype);
    EXPECT_EQ(ca.reduction, cb.reduction);
    EXPECT_EQ(ca.elementsPerRank, cb.elementsPerRank);
    EXPECT_EQ(ca.groups, cb.groups);
    EXPECT_EQ(ca.connectionSlots, cb.connectionSlots);
    expectProgramsEqual(ca.program, cb.program);
  }
}

} // namespace test
} // namespace collrt
