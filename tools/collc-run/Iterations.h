//===- Iterations.h - one size's runs, on the CPU or a GPU ------*- C++ -*-===//
//
// The loop that every collc-run measurement goes through, whatever runs
// the collective: the CPU executor (RankRun.cpp, one rank per thread or
// process) or the generated kernels on GPUs (GpuRun.cpp, the ranks of one
// process or one rank per process). A RunTarget says where a run's
// buffers are and how a run is launched and timed; runIterations does the
// rest: the test data of each iteration, poisoned outputs, the warm-up and
// timed runs and the comparison of every element with the collective's
// definition (runtime/check). Library CollcRunLoop: no LLVM, no CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_ITERATIONS_H
#define COLLC_TOOLS_COLLC_RUN_ITERATIONS_H

#include "collrt/Status.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collcrun {

/// What runs one size of a collective: the buffers of the group ranks it
/// holds, a launch of the collective over all of them, and a timer.
/// Failures of its own (a copy, a timer) it names and announces to its
/// peers itself; runIterations passes them on as they are.
class RunTarget {
public:
  virtual ~RunTarget() = default;

  /// The group ranks whose buffers this target holds, in order (empty for
  /// a process outside the collective, which still launches: it takes part
  /// in the exchanges).
  virtual const std::vector<int32_t> &ranks() const = 0;
  virtual int64_t inputElements(int32_t rank) const = 0;
  virtual int64_t outputElements(int32_t rank) const = 0;

  /// Rank `rank`'s input or output buffer itself where the host can read
  /// and write it (the CPU executor's); nullptr where it cannot (device
  /// memory): runIterations then stages through host memory and the copies
  /// below.
  virtual void *hostInput(int32_t /*rank*/) { return nullptr; }
  virtual void *hostOutput(int32_t /*rank*/) { return nullptr; }
  /// Copies host bytes into rank `rank`'s input or output buffer (its
  /// elements, all of them), and back. runIterations calls them only
  /// where hostInput / hostOutput give nullptr.
  virtual collrt::Status storeInput(int32_t rank, const void *host) = 0;
  virtual collrt::Status storeOutput(int32_t rank, const void *host) = 0;
  virtual collrt::Status loadInput(int32_t rank, void *host) = 0;
  virtual collrt::Status loadOutput(int32_t rank, void *host) = 0;

  /// Starts one run of the collective over all of this target's ranks; it
  /// may return before the run ends (GPU streams).
  virtual collrt::Status launch() = 0;
  /// Waits until every launch so far has ended.
  virtual collrt::Status wait() = 0;
  /// The timer: startTimer, then launches, then stopTimer waits for them
  /// and gives the time between (CPU: the host clock; GPU: events on every
  /// launch's stream, the slowest stream's time).
  virtual collrt::Status startTimer() = 0;
  virtual collrt::Status stopTimer(double *seconds) = 0;
};

/// What the runs of one size should be.
struct IterationOptions {
  /// Untimed runs, then timed ones.
  int warmup = 5;
  int iterations = 20;
  /// Fresh inputs per iteration (TestData of iteration i), poisoned
  /// outputs, and every element compared after every run, outside the
  /// timed part.
  bool check = false;
  /// All_to_all_v counts given at run time (N x N), else nullptr.
  const int64_t *sendCounts = nullptr;
  /// Input elements per rank (all_to_all_v: unused).
  int64_t count = 0;
};

/// What they measured.
struct IterationResult {
  /// Mean time of one timed run, seconds (0 without timed runs).
  double seconds = 0;
  /// Elements compared and wrong over every run and rank of the target.
  int64_t checked = 0, wrong = 0;
  /// The first run that had wrong elements (-1: none), its counts and its
  /// first few differences.
  int firstWrongIteration = -1;
  int64_t firstWrong = 0, firstChecked = 0;
  std::vector<collrt::check::ElementError> firstExamples;
  /// The run that failed (-1: none failed, or the failure came before
  /// the first run).
  int failedIteration = -1;
};

/// One size of collective `program` on `target`, the one loop of collc-run:
///  - with options.check, each of the warmup + iterations runs gets the
///    inputs of TestData(iteration i) and poisoned outputs first, and every
///    element of every rank of the target (outputs, and inputs, which must
///    not change) is compared with the definition after it; a timed run is
///    timed on its own (startTimer, launch, stopTimer), the mean over them;
///  - without, the inputs of iteration 0 are written once, `warmup` runs,
///    then the `iterations` timed runs are launched back to back between
///    one startTimer and one stopTimer, the time divided by their number.
/// Returns the first failure (with failedIteration set where a run
/// failed); wrong elements are not a failure, they are in result.
collrt::Status runIterations(RunTarget &target,
                             const collc::sched::Program &program,
                             collrt::DataType type, collrt::ReduceOp op,
                             const IterationOptions &options,
                             IterationResult *result);

} // namespace collcrun

#endif
