//===- TraceTest.cpp - the Chrome trace parses back with the right events -===//
#include "SimTestUtil.h"

#include "compiler/Simulate/Trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;
using nlohmann::json;

namespace {

json traceOf(const SimResult &result, const Program &program,
             const TraceOptions &options = TraceOptions()) {
  std::ostringstream os;
  writeChromeTrace(result, program, os, options);
  json trace = json::parse(os.str()); // throws (fails the test) if invalid
  EXPECT_TRUE(trace.contains("traceEvents"));
  return trace;
}

std::map<std::string, int> countPhases(const json &trace) {
  std::map<std::string, int> phases;
  for (const json &event : trace["traceEvents"])
    ++phases[event["ph"].get<std::string>()];
  return phases;
}

TEST(TraceTest, RingAllReduceEvents) {
  const int n = 4;
  auto topology = parse(ringTopology(n, 100, 2, 2000));
  ASSERT_TRUE(topology);
  Program program = ringAllReduce(n);
  SimResult result = simulate(program, 1 << 20, 4, *topology, identity(n));
  ASSERT_TRUE(result.ok()) << result.error;

  json trace = traceOf(result, program);
  std::map<std::string, int> phases = countPhases(trace);
  EXPECT_EQ(phases["X"], n * (2 * n - 1));
  // process and thread names per rank (one channel each), and "links".
  EXPECT_EQ(phases["M"], 2 * n + 1);
  EXPECT_GT(phases["C"], 0);
  EXPECT_EQ(trace["otherData"]["collective"], "all_reduce");
  EXPECT_NEAR(trace["otherData"]["total_time_us"].get<double>(),
              result.totalTime * 1e6, 1e-6);

  // The first instruction of rank 1 and a fused one.
  std::set<std::string> counterNames;
  for (const json &event : trace["traceEvents"]) {
    if (event["ph"] == "C") {
      counterNames.insert(event["name"].get<std::string>());
      double utilization = event["args"]["utilization"].get<double>();
      EXPECT_GE(utilization, 0);
      EXPECT_LE(utilization, 1 + 1e-9);
      EXPECT_EQ(event["pid"], n);
      continue;
    }
    if (event["ph"] != "X" || event["pid"] != 1)
      continue;
    const json &args = event["args"];
    if (args["instruction"] == 0) {
      EXPECT_EQ(event["name"], "send");
      EXPECT_EQ(args["peer"], 2);
      EXPECT_EQ(args["step"], 0);
      EXPECT_EQ(args["bytes"], (1 << 20) * 4 / n);
      EXPECT_DOUBLE_EQ(event["ts"].get<double>(), 0);
      EXPECT_NEAR(event["dur"].get<double>(),
                  (result.timeline[2 * n - 1].end) * 1e6, 1e-9);
    }
    if (args["instruction"] == 1) {
      EXPECT_EQ(event["name"], "recv_reduce_send");
      EXPECT_EQ(args["peer"], 2);
      EXPECT_EQ(args["recv_peer"], 0);
    }
  }
  // The n ring links carry the same bytes; all are among the busiest.
  EXPECT_EQ(counterNames.size(), size_t(n));
  EXPECT_TRUE(counterNames.count("node0/gpu0->node0/gpu1"));
}

TEST(TraceTest, OptionsLeaveOutWhatIsMissing) {
  const int n = 4;
  auto topology = parse(ringTopology(n, 100, 2, 2000));
  ASSERT_TRUE(topology);
  Program program = ringAllReduce(n);
  SimOptions options;
  options.recordTimeline = false;
  SimResult result =
      simulate(program, 1 << 20, 4, *topology, identity(n), options);
  ASSERT_TRUE(result.ok()) << result.error;
  TraceOptions noCounters;
  noCounters.counterLinks = 0;
  json trace = traceOf(result, program, noCounters);
  std::map<std::string, int> phases = countPhases(trace);
  EXPECT_EQ(phases["X"], 0);
  EXPECT_EQ(phases["C"], 0);
  EXPECT_EQ(phases["M"], 2 * n); // no "links" process

  // Two busiest links only.
  TraceOptions two;
  two.counterLinks = 2;
  std::set<std::string> names;
  json twoLinks = traceOf(result, program, two);
  for (const json &event : twoLinks["traceEvents"])
    if (event["ph"] == "C")
      names.insert(event["name"].get<std::string>());
  EXPECT_EQ(names.size(), 2u);
}

/// A stuck program's instructions that never ran are left out.
TEST(TraceTest, StuckProgramShowsWhatRan) {
  auto topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000));
  ASSERT_TRUE(topology);
  Program program = makeProgram(Collective::SendRecv, 2, 1);
  add(program, 0, 0, send(1, input(0), 0));
  add(program, 0, 0, recv(1, output(0), 1)); // rank 1 never sends
  add(program, 1, 0, recv(0, output(0), 0));
  SimResult result = simulate(program, 1024, 4, *topology, identity(2));
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(countPhases(traceOf(result, program))["X"], 2);
}

} // namespace
