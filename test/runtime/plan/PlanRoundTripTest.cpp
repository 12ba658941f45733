//===- PlanRoundTripTest.cpp - golden plans read, written, read again -----===//
#include "PlanTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace collrt;
using namespace collrt::test;
namespace sched = collc::sched;

TEST(PlanGolden, ThereAreGoldenPlans) {
  // The seven of docs/plan-format.md's list; the lit test re-emits each.
  EXPECT_GE(goldenPlans().size(), 7u);
}

// Every golden file loads, writes back byte for byte, and reads back to the
// same plan.
TEST(PlanGolden, EveryGoldenPlanRoundTrips) {
  for (const std::string &name : goldenPlans()) {
    SCOPED_TRACE(name);
    std::string text = readInput(name);
    Plan plan;
    Status status = planFromJson(text, name, &plan);
    ASSERT_TRUE(status.ok()) << status.toString();
    std::string written = planToJson(plan);
    EXPECT_EQ(written, text);
    Plan again;
    status = planFromJson(written, name + " (written)", &again);
    ASSERT_TRUE(status.ok()) << status.toString();
    expectPlansEqual(plan, again);
  }
}

// The golden files are named ALGORITHM-COLLECTIVE-SHAPE.plan.json, or
// ALGORITHM-COLLECTIVE-runtime-SHAPE.plan.json for an all_to_all_v whose
// counts are given at run time; what they hold must say the same.
TEST(PlanGolden, GoldenPlansHoldWhatTheirNamesSay) {
  for (const std::string &name : goldenPlans()) {
    SCOPED_TRACE(name);
    Plan plan;
    Status status = planFromJson(readInput(name), name, &plan);
    ASSERT_TRUE(status.ok()) << status.toString();
    std::string base = name.substr(name.find('/') + 1);
    base = base.substr(0, base.find(".plan.json"));
    size_t first = base.find('-'), last = base.rfind('-');
    ASSERT_NE(first, last);
    ASSERT_EQ(plan.collectives.size(), 1u);
    const PlanCollective &c = plan.collectives[0];
    EXPECT_EQ(c.program.algorithm, base.substr(0, first));
    std::string middle = base.substr(first + 1, last - first - 1);
    bool runtime = middle.size() > 8 &&
                   middle.compare(middle.size() - 8, 8, "-runtime") == 0;
    if (runtime)
      middle.resize(middle.size() - 8);
    EXPECT_EQ(sched::collectiveName(c.program.collective), middle);
    EXPECT_EQ(sendCountsAtRunTime(c), runtime);
    // Version 2 exactly when a collective needs it.
    EXPECT_EQ(plan.version, runtime ? 2 : 1);
    std::string shape = base.substr(last + 1);
    size_t x = shape.find('x');
    int32_t ranks = x == std::string::npos ? std::stoi(shape)
                                           : std::stoi(shape.substr(0, x)) *
                                                 std::stoi(shape.substr(x + 1));
    EXPECT_EQ(c.program.numRanks, ranks);
    EXPECT_EQ(plan.worldSize, ranks);
    ASSERT_EQ(c.groups.size(), 1u);
    for (int32_t r = 0; r < ranks; ++r)
      EXPECT_EQ(c.groups[0][size_t(r)], r);
    // The connection summaries the reader checked are rankConnections'.
    for (int32_t r = 0; r < ranks; ++r) {
      RankConnections connections = rankConnections(c.program, r);
      EXPECT_FALSE(connections.send.empty() && connections.recv.empty())
          << "rank " << r << " talks to nobody";
    }
  }
}

namespace {

/// A two-rank all_reduce written by hand: rank r sends its input to the
/// other, receives the other's into scratch, copies its own input to the
/// output on channel 1 and adds the scratch chunk once both are there.
/// Rank 1's dependency list starts with an entry no instruction uses, so
/// its depBegin differs from what a reader rebuilds.
sched::Program handWrittenAllReduce() {
  sched::Program p;
  p.algorithm = "hand-written";
  p.collective = sched::Collective::AllReduce;
  p.numRanks = 2;
  p.chunksPerPart = 1;
  p.buffers = {1, 1, 1};
  p.ranks.resize(2);
  for (int32_t r = 0; r < 2; ++r) {
    sched::RankProgram &rank = p.ranks[size_t(r)];
    if (r == 1)
      rank.dependencies.push_back({0, 0});
    rank.channels.resize(2);
    sched::Instruction send;
    send.opcode = sched::Opcode::Send;
    send.sendPeer = 1 - r;
    send.src = {sched::Buffer::Input, 0, 1};
    sched::Instruction recv;
    recv.opcode = sched::Opcode::Recv;
    recv.recvPeer = 1 - r;
    recv.dst = {sched::Buffer::Scratch, 0, 1};
    rank.channels[0].instructions = {send, recv};
    sched::Instruction copy;
    copy.opcode = sched::Opcode::Copy;
    copy.src = {sched::Buffer::Input, 0, 1};
    copy.dst = {sched::Buffer::Output, 0, 1};
    sched::Instruction reduce;
    reduce.opcode = sched::Opcode::Reduce;
    reduce.src = {sched::Buffer::Scratch, 0, 1};
    reduce.dst = {sched::Buffer::Output, 0, 1};
    reduce.step = 1;
    reduce.depBegin = uint32_t(rank.dependencies.size());
    reduce.depCount = 1;
    rank.dependencies.push_back({0, 1});
    rank.channels[1].instructions = {copy, reduce};
  }
  return p;
}

Plan handWrittenPlan() {
  Plan plan;
  plan.producer = "PlanRoundTripTest";
  plan.topology = "none \"quoted\"\n";
  plan.worldSize = 4;
  PlanCollective c;
  c.location = "test.mlir:1:2";
  c.dtype = DataType::BF16;
  c.reduction = ReduceOp::Max;
  c.elementsPerRank = -1;
  c.groups = {{3, 1}, {0, 2}};
  c.connectionSlots = 2;
  c.program = handWrittenAllReduce();
  plan.collectives.push_back(c);
  return plan;
}

} // namespace

TEST(PlanRoundTrip, HandWrittenProgramReadsBackEqual) {
  Plan plan = handWrittenPlan();
  Plan read;
  Status status = planFromJson(planToJson(plan), "hand-written", &read);
  ASSERT_TRUE(status.ok()) << status.toString();
  expectPlansEqual(plan, read);
  // The reader numbers each rank's dependencies afresh.
  EXPECT_EQ(read.collectives[0].program.ranks[1].dependencies.size(), 1u);
}

TEST(PlanRoundTrip, SaveWritesAtomicallyAndLoadReadsBack) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("collrt-plan-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "hand.plan.json").string();
  Plan plan = handWrittenPlan();
  Status status = savePlanFile(path, plan);
  ASSERT_TRUE(status.ok()) << status.toString();
  Plan loaded;
  status = loadPlanFile(path, &loaded);
  ASSERT_TRUE(status.ok()) << status.toString();
  expectPlansEqual(plan, loaded);
  // Only the plan is left: the temporary was renamed into place.
  size_t files = 0;
  for (const auto &entry : fs::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);

  // A directory that does not exist: an error naming the path, no file.
  std::string missing = (dir / "no-such-dir" / "x.plan.json").string();
  status = savePlanFile(missing, plan);
  EXPECT_EQ(status.code(), ErrorCode::SystemError);
  EXPECT_NE(status.message().find(missing), std::string::npos)
      << status.message();
  status = loadPlanFile(missing, &loaded);
  EXPECT_EQ(status.code(), ErrorCode::SystemError);
  EXPECT_NE(status.message().find(missing), std::string::npos)
      << status.message();
  fs::remove_all(dir);
}

TEST(PlanWorld, ThePlanRunsOnlyOnItsWorldSize) {
  Plan plan = handWrittenPlan();
  EXPECT_TRUE(checkPlanWorld(plan, 4).ok());
  Status status = checkPlanWorld(plan, 8);
  EXPECT_EQ(status.code(), ErrorCode::PlanMismatch);
  EXPECT_NE(status.message().find("world of 4 ranks"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("has 8 ranks"), std::string::npos)
      << status.message();
}

TEST(PlanWorld, ACollectiveIndexMustNameOneOfThePlan) {
  Plan plan = handWrittenPlan();
  size_t n = plan.collectives.size();
  ASSERT_GT(n, 0u);
  EXPECT_TRUE(checkCollectiveIndex(plan, n - 1).ok());
  Status status = checkCollectiveIndex(plan, n);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(status.message(), "collective index " + std::to_string(n) +
                                  " is out of range: the plan has " +
                                  std::to_string(n) + " collective(s)");
}

TEST(PlanNames, EveryOpcodeCollectiveAndBufferParsesBack) {
  for (int i = 0; i <= int(sched::Opcode::RecvReduceCopySend); ++i) {
    auto op = static_cast<sched::Opcode>(i);
    sched::Opcode parsed;
    ASSERT_TRUE(parseOpcode(sched::opcodeName(op), &parsed)) << i;
    EXPECT_EQ(parsed, op);
  }
  for (int i = 0; i <= int(sched::Collective::SendRecv); ++i) {
    auto c = static_cast<sched::Collective>(i);
    sched::Collective parsed;
    ASSERT_TRUE(parseCollective(sched::collectiveName(c), &parsed)) << i;
    EXPECT_EQ(parsed, c);
  }
  for (int i = 0; i <= int(sched::Buffer::Scratch); ++i) {
    auto b = static_cast<sched::Buffer>(i);
    sched::Buffer parsed;
    ASSERT_TRUE(parseBuffer(sched::bufferName(b), &parsed)) << i;
    EXPECT_EQ(parsed, b);
  }
  sched::Opcode op;
  EXPECT_FALSE(parseOpcode("Send", &op));
  EXPECT_FALSE(parseOpcode("", &op));
  sched::Collective c;
  EXPECT_FALSE(parseCollective("allreduce", &c));
  sched::Buffer b;
  EXPECT_FALSE(parseBuffer("in", &b));
}

TEST(PlanConnections, CountsEachRanksMessagesPerPeerAndChannel) {
  Plan plan;
  Status status = planFromJson(readInput("plans/ring-all_reduce-3.plan.json"),
                               "ring", &plan);
  ASSERT_TRUE(status.ok()) << status.toString();
  const sched::Program &p = plan.collectives[0].program;
  // A ring all_reduce of n ranks and k chunks per part (k a multiple of
  // n): 2 (n - 1) k / n messages from each rank to the next, one channel.
  ASSERT_EQ(p.chunksPerPart % uint32_t(p.numRanks), 0u);
  uint64_t messages =
      2 * uint64_t(p.numRanks - 1) * p.chunksPerPart / uint32_t(p.numRanks);
  for (int32_t r = 0; r < p.numRanks; ++r) {
    RankConnections c = rankConnections(p, r);
    ASSERT_EQ(c.send.size(), 1u);
    ASSERT_EQ(c.recv.size(), 1u);
    EXPECT_EQ(c.send[0].messages, messages);
    EXPECT_EQ(c.recv[0].messages, messages);
    EXPECT_EQ(c.send[0].peer, (r + 1) % p.numRanks);
    EXPECT_EQ(c.recv[0].peer, (r + p.numRanks - 1) % p.numRanks);
  }
}

// Version 2: an all_to_all_v's counts given at run time are "send_counts":
// null, or the key left out; both read the same, and the writer writes
// null. A version-1 plan's all_to_all_v written back stays version 1.
TEST(PlanRoundTrip, SendCountsAtRunTimeNullOrOmitted) {
  std::string text = readInput("plans/direct-all_to_all_v-runtime-4.plan.json");
  Plan withNull;
  Status status = planFromJson(text, "null", &withNull);
  ASSERT_TRUE(status.ok()) << status.toString();
  const std::string line = "        \"send_counts\": null,\n";
  size_t at = text.find(line);
  ASSERT_NE(at, std::string::npos);
  std::string omitted = text;
  omitted.erase(at, line.size());
  Plan without;
  status = planFromJson(omitted, "omitted", &without);
  ASSERT_TRUE(status.ok()) << status.toString();
  expectPlansEqual(withNull, without);
  EXPECT_TRUE(sendCountsAtRunTime(without.collectives[0]));
  EXPECT_EQ(planVersionNeeded(without), 2);
  EXPECT_EQ(planToJson(without), text);

  Plan fixed;
  status = planFromJson(readInput("plans/direct-all_to_all_v-4.plan.json"),
                        "fixed", &fixed);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_FALSE(sendCountsAtRunTime(fixed.collectives[0]));
  EXPECT_EQ(planVersionNeeded(fixed), 1);
  // Clearing its counts makes it a version-2 plan.
  fixed.collectives[0].program.sendCounts.clear();
  EXPECT_EQ(planVersionNeeded(fixed), 2);
  EXPECT_NE(planToJson(fixed).find("\"version\": 2,"), std::string::npos);
}
