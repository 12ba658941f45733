//===- RankRun.cpp - one rank's sizes, iterations and checks --------------===//
#include "tools/collc-run/RankRun.h"

#include "runtime/check/Reference.h"
#include "tools/collc-run/Iterations.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>

namespace collcrun {

using collc::sched::Collective;
using collc::sched::Program;
using collrt::ErrorCode;
using collrt::Status;

namespace {

class ThreadExchange : public ReportExchange {
public:
  ThreadExchange(int32_t worldSize, double timeoutSeconds)
      : slots_(size_t(worldSize)), arrived_(size_t(worldSize), false),
        timeoutSeconds_(timeoutSeconds) {}

  Status allGather(int32_t rank, const RankReport &mine,
                   std::vector<RankReport> *all) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!abandoned_.empty())
      return Status(ErrorCode::PeerFailure, abandoned_);
    slots_[size_t(rank)] = mine;
    arrived_[size_t(rank)] = true;
    uint64_t generation = generation_;
    if (std::count(arrived_.begin(), arrived_.end(), true) ==
        static_cast<long>(arrived_.size())) {
      result_ = slots_;
      std::fill(arrived_.begin(), arrived_.end(), false);
      ++generation_;
      changed_.notify_all();
      *all = result_;
      return Status::success();
    }
    auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(timeoutSeconds_));
    bool done = changed_.wait_until(lock, deadline, [&] {
      return generation_ != generation || !abandoned_.empty();
    });
    if (generation_ != generation) {
      *all = result_; // stays until every rank, this one too, arrives again
      return Status::success();
    }
    if (done)
      return Status(ErrorCode::PeerFailure, abandoned_);
    std::string missing;
    for (size_t r = 0; r < arrived_.size(); ++r)
      if (!arrived_[r])
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    return Status(ErrorCode::Timeout,
                  "rank " + std::to_string(rank) + " waited " +
                      std::to_string(timeoutSeconds_) +
                      " s for the other ranks to finish the size; ranks " +
                      missing + " never did");
  }

  void abandon(int32_t rank, const std::string &why) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (abandoned_.empty())
      abandoned_ = "rank " + std::to_string(rank) + " stopped: " + why;
    changed_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<RankReport> slots_, result_;
  std::vector<bool> arrived_;
  uint64_t generation_ = 0;
  std::string abandoned_;
  double timeoutSeconds_;
};

/// Three f64 per rank: mean seconds, wrong, checked (exact below 2^53).
constexpr int64_t kReportElements = 3;

/// A direct all_gather of the world: every rank copies its input into its
/// own output part, sends it to every other rank on a connection of its
/// own (one message each, so no send waits), then receives theirs.
Program reportProgram(int32_t n) {
  Program p;
  p.algorithm = "collc-run report exchange (direct all_gather)";
  p.collective = Collective::AllGather;
  p.numRanks = n;
  p.chunksPerPart = 1;
  p.buffers.inputChunks = 1;
  p.buffers.outputChunks = static_cast<uint32_t>(n);
  p.ranks.resize(size_t(n));
  using collc::sched::Buffer;
  using collc::sched::Instruction;
  using collc::sched::Opcode;
  for (int32_t r = 0; r < n; ++r) {
    auto &stream = p.ranks[size_t(r)].channels.emplace_back().instructions;
    Instruction copy;
    copy.opcode = Opcode::Copy;
    copy.src = {Buffer::Input, 0, 1};
    copy.dst = {Buffer::Output, static_cast<uint32_t>(r), 1};
    stream.push_back(copy);
    for (int32_t d = 1; d < n; ++d) {
      Instruction send;
      send.opcode = Opcode::Send;
      send.sendPeer = (r + d) % n;
      send.src = {Buffer::Input, 0, 1};
      send.step = d;
      stream.push_back(send);
    }
    for (int32_t d = 1; d < n; ++d) {
      Instruction recv;
      recv.opcode = Opcode::Recv;
      int32_t from = (r - d + n) % n;
      recv.recvPeer = from;
      recv.dst = {Buffer::Output, static_cast<uint32_t>(from), 1};
      recv.step = d;
      stream.push_back(recv);
    }
  }
  return p;
}

class CommunicatorExchange : public ReportExchange {
public:
  CommunicatorExchange(collrt::Communicator &comm, collrt::Plan plan)
      : comm_(comm), plan_(std::move(plan)) {}

  Status allGather(int32_t, const RankReport &mine,
                   std::vector<RankReport> *all) override {
    double in[kReportElements] = {mine.meanSeconds, double(mine.wrong),
                                  double(mine.checked)};
    std::vector<double> out(size_t(kReportElements * comm_.worldSize()));
    Status s = comm_.run(plan_, 0, in, out.data(), kReportElements,
                         collrt::DataType::F64, collrt::ReduceOp::Sum);
    if (!s.ok())
      return withContext(s, "exchanging the ranks' reports");
    all->assign(size_t(comm_.worldSize()), RankReport());
    for (size_t r = 0; r < all->size(); ++r) {
      (*all)[r].meanSeconds = out[r * kReportElements];
      (*all)[r].wrong = static_cast<int64_t>(out[r * kReportElements + 1]);
      (*all)[r].checked = static_cast<int64_t>(out[r * kReportElements + 2]);
    }
    return Status::success();
  }

  // A failed process exits; the others' exchange runs fail with PeerFailure
  // or the watchdog's report.
  void abandon(int32_t, const std::string &) override {}

private:
  collrt::Communicator &comm_;
  collrt::Plan plan_;
};

std::string sizeLabel(const SizeCase &size) {
  return formatBytes(size.bytesPerRank);
}

} // namespace

std::unique_ptr<ReportExchange> createThreadExchange(int32_t worldSize,
                                                     double timeoutSeconds) {
  return std::make_unique<ThreadExchange>(worldSize, timeoutSeconds);
}

Status createCommunicatorExchange(collrt::Communicator &comm,
                                  std::unique_ptr<ReportExchange> *exchange) {
  collrt::Plan plan;
  plan.producer = "collc-run";
  plan.topology = "-";
  plan.worldSize = comm.worldSize();
  collrt::PlanCollective collective;
  collective.location = "collc-run report exchange";
  collective.dtype = collrt::DataType::F64;
  collective.elementsPerRank = kReportElements;
  collective.groups.emplace_back();
  for (int32_t r = 0; r < comm.worldSize(); ++r)
    collective.groups.back().push_back(r);
  collective.connectionSlots = 1;
  collective.program = reportProgram(comm.worldSize());
  plan.collectives.push_back(std::move(collective));
  // Through the reader, so that the exchange obeys every rule of the
  // format like any plan.
  collrt::Plan checked;
  Status s = collrt::planFromJson(collrt::planToJson(plan),
                                  "collc-run's report-exchange plan", &checked);
  if (!s.ok())
    return s;
  *exchange = std::make_unique<CommunicatorExchange>(comm, std::move(checked));
  return Status::success();
}

double algbwGBps(const Program &program, int64_t bytesPerRank, double seconds) {
  if (!(seconds > 0))
    return 0;
  double bytes = program.collective == Collective::AllGather ||
                         program.collective == Collective::Gather
                     ? double(program.numRanks) * double(bytesPerRank)
                     : double(bytesPerRank);
  return bytes / seconds / 1e9;
}

double busbwFactor(const Program &program) {
  double n = program.numRanks;
  switch (program.collective) {
  case Collective::AllReduce:
    return 2 * (n - 1) / n;
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
  case Collective::AllToAllV:
  case Collective::Scatter:
  case Collective::Gather:
    return (n - 1) / n;
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::SendRecv:
    return 1;
  }
  return 1;
}

void printTableHeader(FILE *out) {
  std::fprintf(out, "#%11s %12s %8s %6s %11s %8s %8s %8s\n", "size", "count",
               "type", "redop", "time", "algbw", "busbw", "#wrong");
  std::fprintf(out, "#%11s %12s %8s %6s %11s %8s %8s %8s\n", "(B)",
               "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
  std::fflush(out);
}

void printRow(FILE *out, const collrt::PlanCollective &collective,
              int64_t bytesPerRank, double seconds, int64_t wrong) {
  const Program &program = collective.program;
  const int64_t elementSize =
      static_cast<int64_t>(collrt::dataTypeSize(collective.dtype));
  double algbw = algbwGBps(program, bytesPerRank, seconds);
  std::string wrongText = wrong >= 0 ? std::to_string(wrong) : "N/A";
  bool reducing = collrt::check::reduces(program.collective);
  std::fprintf(out, "%12lld %12lld %8s %6s %11.2f %8.3f %8.3f %8s\n",
               static_cast<long long>(bytesPerRank),
               static_cast<long long>(bytesPerRank / elementSize),
               collrt::dataTypeName(collective.dtype),
               reducing ? collrt::reduceOpName(collective.reduction) : "none",
               seconds * 1e6, algbw, algbw * busbwFactor(program),
               wrongText.c_str());
  std::fflush(out);
}

namespace {

/// Who a rank is in messages: "rank W" or "rank W (group rank G)".
std::string rankName(int32_t world, int32_t rank) {
  return rank == world || rank < 0
             ? "rank " + std::to_string(world)
             : "rank " + std::to_string(world) + " (group rank " +
                   std::to_string(rank) + ")";
}

/// A rank's send or receive buffer: zero-filled bytes from the C++ heap or
/// from collrt::allocateHostBuffer (--buffers host).
class RankBuffer {
public:
  RankBuffer() = default;
  RankBuffer(const RankBuffer &) = delete;
  RankBuffer &operator=(const RankBuffer &) = delete;
  ~RankBuffer() {
    if (host_)
      (void)collrt::freeHostBuffer(data_);
  }
  Status allocate(size_t bytes, bool host) {
    if (!host) {
      heap_.assign(bytes, 0);
      data_ = heap_.data();
      return Status::success();
    }
    void *p = nullptr;
    if (Status s = collrt::allocateHostBuffer(bytes, &p); !s.ok())
      return s;
    host_ = true;
    data_ = static_cast<uint8_t *>(p);
    std::memset(data_, 0, bytes);
    return Status::success();
  }
  uint8_t *data() { return data_; }

private:
  std::vector<uint8_t> heap_;
  uint8_t *data_ = nullptr;
  bool host_ = false;
};

/// The CPU executor as runIterations' target: this rank's buffers in host
/// memory (the loop reads and writes them in place) and a run through
/// the Communicator, which returns when the run has ended; the host clock
/// times it.
class CpuTarget : public RunTarget {
public:
  /// `rank` the group rank (-1: outside the collective, which still runs
  /// for the exchanges).
  CpuTarget(collrt::Communicator &comm, const collrt::Plan &plan, size_t index,
            int32_t rank, int64_t count, const int64_t *counts,
            int64_t inputElements, int64_t outputElements)
      : comm_(comm), plan_(plan), index_(index), count_(count), counts_(counts),
        inputElements_(inputElements), outputElements_(outputElements) {
    if (rank >= 0)
      ranks_.push_back(rank);
  }
  Status allocate(size_t elementSize, bool host) {
    elementSize_ = elementSize;
    COLLRT_RETURN_IF_ERROR(input_.allocate(
        size_t(std::max<int64_t>(inputElements_, 1)) * elementSize, host));
    return output_.allocate(
        size_t(std::max<int64_t>(outputElements_, 1)) * elementSize, host);
  }

  const std::vector<int32_t> &ranks() const override { return ranks_; }
  int64_t inputElements(int32_t) const override { return inputElements_; }
  int64_t outputElements(int32_t) const override { return outputElements_; }
  void *hostInput(int32_t) override { return input_.data(); }
  void *hostOutput(int32_t) override { return output_.data(); }
  Status storeInput(int32_t, const void *host) override {
    std::memcpy(input_.data(), host, size_t(inputElements_) * elementSize_);
    return Status::success();
  }
  Status storeOutput(int32_t, const void *host) override {
    std::memcpy(output_.data(), host, size_t(outputElements_) * elementSize_);
    return Status::success();
  }
  Status loadInput(int32_t, void *host) override {
    std::memcpy(host, input_.data(), size_t(inputElements_) * elementSize_);
    return Status::success();
  }
  Status loadOutput(int32_t, void *host) override {
    std::memcpy(host, output_.data(), size_t(outputElements_) * elementSize_);
    return Status::success();
  }
  Status launch() override {
    const collrt::PlanCollective &c = plan_.collectives[index_];
    return comm_.run(plan_, index_, input_.data(), output_.data(), count_,
                     c.dtype, c.reduction, counts_);
  }
  Status wait() override { return Status::success(); }
  Status startTimer() override {
    start_ = std::chrono::steady_clock::now();
    return Status::success();
  }
  Status stopTimer(double *seconds) override {
    *seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    return Status::success();
  }

private:
  collrt::Communicator &comm_;
  const collrt::Plan &plan_;
  size_t index_;
  int64_t count_;
  const int64_t *counts_;
  int64_t inputElements_, outputElements_;
  size_t elementSize_ = 0;
  std::vector<int32_t> ranks_;
  RankBuffer input_, output_;
  std::chrono::steady_clock::time_point start_;
};

/// One size of collective `index` of the plan on this rank: warm-up and
/// timed runs through runIterations (with --check, fresh inputs, poisoned
/// outputs and a check after every run); then the reports of every rank are
/// exchanged and
/// `*total` gets the slowest rank's mean time and the wrong elements of all.
/// With `trace`, this rank's last run's events go there.
Status runOneSize(const RunSetup &setup, size_t index, const SizeCase &size,
                  collrt::Communicator &comm, ReportExchange &exchange,
                  std::vector<collrt::TraceEvent> *trace, RankReport *total) {
  const collrt::PlanCollective &collective = setup.plan->collectives[index];
  const Program &program = collective.program;
  const Options &options = *setup.options;
  const collrt::DataType type = collective.dtype;
  const collrt::ReduceOp op = collective.reduction;
  const size_t elementSize = collrt::dataTypeSize(type);
  const int32_t world = comm.rank();
  const int32_t rank = collrt::groupRankOf(collective, world);
  const std::string who = rankName(world, rank);

  int64_t count = size.count, inputElements = 0, outputElements = 0;
  const int64_t *counts =
      size.sendCounts.empty() ? nullptr : size.sendCounts.data();
  if (rank >= 0) {
    if (program.collective == Collective::AllToAllV)
      count = collrt::check::referenceInputElements(program, rank, 0, counts);
    inputElements =
        collrt::check::referenceInputElements(program, rank, count, counts);
    outputElements = collrt::outputElements(collective, rank, count, counts);
    int64_t defined =
        collrt::check::referenceOutputElements(program, rank, count, counts);
    if (outputElements != defined) {
      Status s(ErrorCode::CheckFailed,
               who + ": libcollrt's outputElements gives " +
                   std::to_string(outputElements) + " elements for " +
                   std::to_string(count) + " input elements of " +
                   collc::sched::collectiveName(program.collective) +
                   ", whose definition gives " + std::to_string(defined));
      exchange.abandon(world, s.message());
      return s;
    }
  }
  CpuTarget target(comm, *setup.plan, index, rank, count, counts, inputElements,
                   outputElements);
  if (Status s = target.allocate(elementSize, options.buffers == "host");
      !s.ok()) {
    Status failed = withContext(s, who + ", " + sizeLabel(size));
    exchange.abandon(world, failed.message());
    return failed;
  }
  IterationOptions loop;
  loop.warmup = options.warmup;
  loop.iterations = options.iters;
  loop.check = options.check;
  loop.sendCounts = counts;
  loop.count = count;
  IterationResult result;
  if (Status s = runIterations(target, program, type, op, loop, &result);
      !s.ok()) {
    Status failed = withContext(
        s, who + ", " + sizeLabel(size) +
               (result.failedIteration >= 0
                    ? ", iteration " + std::to_string(result.failedIteration)
                    : std::string()));
    exchange.abandon(world, failed.message());
    return failed;
  }
  if (result.firstWrongIteration >= 0) {
    std::string text =
        "collc-run: " + who + ", " + sizeLabel(size) + ", iteration " +
        std::to_string(result.firstWrongIteration) + ": " +
        std::to_string(result.firstWrong) + " of " +
        std::to_string(result.firstChecked) + " elements wrong\n";
    for (const auto &e : result.firstExamples)
      text += "collc-run:   " + e.describe() + "\n";
    std::fputs(text.c_str(), stderr);
  }
  RankReport report;
  report.meanSeconds = result.seconds;
  report.wrong = result.wrong;
  report.checked = result.checked;
  if (trace)
    *trace = comm.lastTrace();

  std::vector<RankReport> all;
  Status s = exchange.allGather(world, report, &all);
  if (!s.ok())
    return withContext(s, who + ", " + sizeLabel(size));
  *total = RankReport();
  for (const RankReport &r : all) {
    total->meanSeconds = std::max(total->meanSeconds, r.meanSeconds);
    total->wrong += r.wrong;
    total->checked += r.checked;
  }
  return Status::success();
}

Status wrongTotal(int64_t totalWrong, const char *where) {
  return Status(ErrorCode::CheckFailed, std::to_string(totalWrong) +
                                            " wrong elements over all ranks, " +
                                            where + " and iterations");
}

} // namespace

Status runRank(const RunSetup &setup, collrt::Communicator &comm,
               ReportExchange &exchange,
               std::vector<collrt::TraceEvent> *trace) {
  const collrt::PlanCollective &collective =
      setup.plan->collectives[setup.index];
  int64_t totalWrong = 0;
  for (const SizeCase &size : setup.sizes) {
    RankReport total;
    Status s = runOneSize(
        setup, setup.index, size, comm, exchange,
        trace && &size == &setup.sizes.back() ? trace : nullptr, &total);
    if (!s.ok())
      return s;
    totalWrong += total.wrong;
    if (comm.rank() == 0)
      printRow(setup.out, collective, size.bytesPerRank, total.meanSeconds,
               setup.options->check ? total.wrong : -1);
  }
  if (totalWrong)
    return wrongTotal(totalWrong, "sizes");
  return Status::success();
}

std::string candidateLabel(const collrt::PlanCollective &collective) {
  uint32_t channels = 0;
  for (const auto &rank : collective.program.ranks)
    channels = std::max(channels, rank.channelsInUse());
  // Candidates of one algorithm and k may differ in their channel count
  // (collc --emit=candidates where channels are capped: ring rings=1, 4).
  return collective.program.algorithm +
         " k=" + std::to_string(collective.program.chunksPerPart) +
         (channels > 1 ? " ch=" + std::to_string(channels) : "");
}

void printTuningRows(const RunSetup &setup, const SizeCase &size,
                     const std::vector<double> &seconds,
                     const std::vector<int64_t> &wrong) {
  const size_t candidates = setup.plan->collectives.size();
  std::vector<size_t> order(candidates);
  for (size_t c = 0; c < candidates; ++c)
    order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return seconds[a] < seconds[b]; });
  for (size_t i = 0; i < candidates; ++i) {
    const collrt::PlanCollective &collective =
        setup.plan->collectives[order[i]];
    const Program &program = collective.program;
    double time = seconds[order[i]];
    double algbw = algbwGBps(program, size.bytesPerRank, time);
    std::string wrongText = setup.options->check
                                ? std::to_string(wrong[order[i]])
                                : std::string("N/A");
    std::fprintf(setup.out, "%12s  %-28s %11.2f %8.3f %8.3f %8s%s\n",
                 i == 0 ? std::to_string(size.bytesPerRank).c_str() : "",
                 candidateLabel(collective).c_str(), time * 1e6, algbw,
                 algbw * busbwFactor(program), wrongText.c_str(),
                 i == 0 ? "  fastest" : "");
  }
  std::fflush(setup.out);
}

Status tuneRank(const RunSetup &setup, int rounds, collrt::Communicator &comm,
                ReportExchange &exchange,
                std::vector<std::vector<double>> *best) {
  const size_t candidates = setup.plan->collectives.size();
  best->assign(setup.sizes.size(), std::vector<double>(candidates, -1));
  int64_t totalWrong = 0;
  for (size_t z = 0; z < setup.sizes.size(); ++z) {
    const SizeCase &size = setup.sizes[z];
    std::vector<double> &mine = (*best)[z];
    std::vector<int64_t> wrong(candidates, 0);
    // Rounds alternate the candidates, so that a slow spell of the machine
    // does not fall on one candidate only.
    for (int round = 0; round < rounds; ++round)
      for (size_t c = 0; c < candidates; ++c) {
        RankReport total;
        Status s = runOneSize(setup, c, size, comm, exchange, nullptr, &total);
        if (!s.ok())
          return withContext(s, "candidate " + std::to_string(c) + " (" +
                                    candidateLabel(setup.plan->collectives[c]) +
                                    ")");
        wrong[c] += total.wrong;
        if (mine[c] < 0 || total.meanSeconds < mine[c])
          mine[c] = total.meanSeconds;
      }
    if (comm.rank() != 0)
      continue;
    printTuningRows(setup, size, mine, wrong);
    for (int64_t w : wrong)
      totalWrong += w;
  }
  if (totalWrong)
    return wrongTotal(totalWrong, "candidates, sizes");
  return Status::success();
}

} // namespace collcrun
