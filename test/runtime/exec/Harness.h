//===- Harness.h - run a plan on in-process ranks and check it --*- C++ -*-===//
//
// Position-dependent inputs (value = f(rank, index), exact in every type for
// every partial result of its reduction), poisoned outputs, a thread per
// rank calling Communicator::run, and a reference computed from the
// collective's definition (the table above sched::Program), never from the
// schedule that ran.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_EXEC_HARNESS_H
#define COLLRT_TEST_EXEC_HARNESS_H

#include "collrt/Transport.h"
#include "collrt/collrt.h"
#include "runtime/exec/Executor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collrt {
namespace testing {

/// The byte every output is filled with before a run.
constexpr uint8_t kPoison = 0xA5;

/// A plan of one collective over `groups` (default: one group of all
/// program.numRanks ranks) in a world of `worldSize` (default: the group's
/// size).
Plan makePlan(const collc::sched::Program &program, DataType dtype, ReduceOp op,
              uint32_t slots = 8, std::vector<std::vector<int32_t>> groups = {},
              int32_t worldSize = 0);

/// Every world rank's buffers.
struct WorldBuffers {
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<uint8_t>> outputs;
};

/// Inputs for `count` elements per rank (the rank's send counts for
/// all_to_all_v), outputs of outputElements(...) poisoned; ranks outside
/// every group get empty buffers.
WorldBuffers makeBuffers(const Plan &plan, int64_t count);

/// Runs collective 0 of `plan` on every communicator at once (a thread
/// each); the statuses by world rank. `counts` overrides the count per
/// rank (empty: `count` everywhere).
std::vector<Status> runWorld(std::vector<std::unique_ptr<Communicator>> &comms,
                             const Plan &plan, int64_t count,
                             WorldBuffers &buffers,
                             const std::vector<int64_t> &counts = {});

/// Empty when every defined output element of every rank (or of world
/// rank `onlyRank` when >= 0) equals the reference and no input changed;
/// else the first few differences.
std::string checkWorld(const Plan &plan, int64_t count,
                       const WorldBuffers &buffers, int32_t onlyRank = -1);

/// Creates the communicators, runs and checks: the empty string on
/// success, else what went wrong.
std::string runAndCheck(const Plan &plan, int64_t count,
                        const CommOptions &options = CommOptions());

/// A plan of test/runtime/Inputs/plans read with loadPlanFile (a failure to
/// read it fails the test).
Plan loadTestPlan(const std::string &name);

/// In-process ranks that run collective 0 of a plan straight through
/// exec::runCollective, each with its own ExecutorState (kept across runs)
/// and `channelThreads` threads for its channels.
struct ExecutorWorld {
  ExecutorWorld(int32_t n, int32_t channelThreads);
  /// One run on every rank at once (a thread each); statuses by rank.
  std::vector<Status> run(const Plan &plan, int64_t count,
                          WorldBuffers &buffers, double timeout = 30);
  std::shared_ptr<InProcessFabric> fabric;
  std::vector<std::unique_ptr<Transport>> transports;
  std::vector<exec::ExecutorState> states;
  int32_t channelThreads;
};

/// The element value f(rank, index) of an input (exact in `dtype`).
double inputValue(DataType dtype, ReduceOp op, bool reducing, int32_t rank,
                  int64_t index);

} // namespace testing
} // namespace collrt

#endif
