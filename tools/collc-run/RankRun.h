//===- RankRun.h - one rank's sizes, iterations and checks -----*- C++ -*-===//
//
// What every rank of a collc-run does, as a thread (--ranks) or as a
// process: for each size, warm-up and timed runs of the plan's collective,
// with --check the inputs of TestData, poisoned outputs and a comparison
// with the reference after every run; then the ranks all-gather their
// reports and rank 0 prints the size's row.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_RANKRUN_H
#define COLLC_TOOLS_COLLC_RUN_RANKRUN_H

#include "collrt/collrt.h"
#include "tools/collc-run/Options.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace collcrun {

/// What a rank reports about one size.
struct RankReport {
  /// Mean time of one timed run, seconds.
  double meanSeconds = 0;
  int64_t wrong = 0;
  int64_t checked = 0;
};

/// All-gathers the reports of every world rank, in rank order.
class ReportExchange {
public:
  virtual ~ReportExchange() = default;
  virtual collrt::Status allGather(int32_t rank, const RankReport &mine,
                                   std::vector<RankReport> *all) = 0;
  /// A rank that stops early (its run failed) says so; the others'
  /// allGather then fail instead of waiting for it.
  virtual void abandon(int32_t rank, const std::string &why) = 0;
};

/// Ranks as threads: shared memory and a condition variable; a wait gives
/// up after `timeoutSeconds` (a rank that never arrives is named).
std::unique_ptr<ReportExchange> createThreadExchange(int32_t worldSize,
                                                     double timeoutSeconds);

/// Ranks as processes: a small all_gather plan of f64 run through `comm`
/// itself (no second rendezvous).
collrt::Status
createCommunicatorExchange(collrt::Communicator &comm,
                           std::unique_ptr<ReportExchange> *exchange);

/// One size of the sweep.
struct SizeCase {
  /// Bytes of each rank's input (all_to_all_v: the mean over ranks).
  int64_t bytesPerRank = 0;
  /// Elements of each rank's input (all_to_all_v: unused, the send counts
  /// fix every rank's).
  int64_t count = 0;
  /// An all_to_all_v whose plan leaves its counts to run time: this size's
  /// N x N counts (collc-run --counts), the same on every rank; else empty.
  std::vector<int64_t> sendCounts;
};

struct RunSetup {
  const collrt::Plan *plan = nullptr;
  size_t index = 0;
  const Options *options = nullptr;
  std::vector<SizeCase> sizes;
  /// Where rank 0 prints the rows.
  FILE *out = stdout;
};

/// nccl-tests' algbw in GB/s of a run of `seconds` (0 when seconds is not
/// positive): the size it divides by is the output, N x M, for all_gather
/// and gather, M otherwise; and the busbw factor.
double algbwGBps(const collc::sched::Program &program, int64_t bytesPerRank,
                 double seconds);
double busbwFactor(const collc::sched::Program &program);

/// The column header of the table (two lines starting with '#').
void printTableHeader(FILE *out);

/// One size's row: `seconds` the time of one run, `wrong` the wrong
/// elements (negative: not checked, "N/A").
void printRow(FILE *out, const collrt::PlanCollective &collective,
              int64_t bytesPerRank, double seconds, int64_t wrong);

/// Runs every size on this rank (rank 0 prints a row per size as it
/// completes). Returns the first failure; CheckFailed when any rank found
/// wrong elements (each rank prints its first few to stderr).
/// With `trace` (CommOptions::trace set), the TraceEvents of this rank's
/// last timed run of the last size go there (taken before the report
/// exchange, which runs through the same communicator).
collrt::Status runRank(const RunSetup &setup, collrt::Communicator &comm,
                       ReportExchange &exchange,
                       std::vector<collrt::TraceEvent> *trace = nullptr);

/// "ring k=8", "ring k=32 ch=4": a candidate of --tuning (its algorithm,
/// chunks per part and, when more than one, the channels it uses).
std::string candidateLabel(const collrt::PlanCollective &collective);

/// One size's rows of --tuning (rank 0): every candidate of setup.plan,
/// fastest first, with its time per call in seconds and wrong elements.
void printTuningRows(const RunSetup &setup, const SizeCase &size,
                     const std::vector<double> &seconds,
                     const std::vector<int64_t> &wrong);

/// --tuning: every collective of setup.plan is a candidate schedule of the
/// same collective. For each size, `rounds` rounds each run every candidate
/// in turn (warm-up and timed iterations, --check if asked) through
/// the same path as runRank; (*best)[size][candidate] is the best over the
/// rounds of the slowest rank's mean time, the same on every rank. Rank 0
/// prints each size's candidates, fastest first.
collrt::Status tuneRank(const RunSetup &setup, int rounds,
                        collrt::Communicator &comm, ReportExchange &exchange,
                        std::vector<std::vector<double>> *best);

} // namespace collcrun

#endif
