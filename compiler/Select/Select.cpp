//===- Select.cpp - choose algorithms by simulated time -------------------===//
#include "compiler/Select/Select.h"

#include "compiler/Plan/PlanBuilder.h"
#include "compiler/Verify/Verifier.h"
#include "compiler/Volume/Volume.h"
#include "dialects/Sched/Transforms/Expand.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace collc {

sim::SimResult simulateLowered(const sched::Program &program,
                               const lowering::LoweredCollective &lowered,
                               const topo::Topology &topology,
                               const sim::SimOptions &options) {
  std::vector<int> gpus(lowered.layout.meshRanks.begin(),
                        lowered.layout.meshRanks.end());
  return sim::simulate(program, lowered.elementsPerRank, lowered.elementBytes,
                       topology, gpus, options);
}

mlir::FailureOr<sched::Program>
expandQuietly(const lowering::Algorithm &algorithm,
              const sched::ExpandOptions &expand, std::string *error) {
  mlir::ScopedDiagnosticHandler silence(algorithm.schedule->getContext(),
                                        [&](mlir::Diagnostic &diag) {
                                          *error = diag.str();
                                          return mlir::success();
                                        });
  return sched::expandSchedule(algorithm.schedule, expand);
}

double quickLowerBound(const sched::Program &program,
                       const lowering::LoweredCollective &lowered,
                       const topo::Topology &topology,
                       const sim::SimOptions &options) {
  size_t longest = 0;
  for (const sched::RankProgram &rank : program.ranks)
    for (const sched::ChannelProgram &channel : rank.channels)
      longest = std::max(longest, channel.instructions.size());
  double bound = double(longest) * options.fixedCost;
  const std::vector<int32_t> &gpus = lowered.layout.meshRanks;
  bound =
      std::max(bound, sim::channelTimeBound(
                          program, lowered.elementsPerRank,
                          lowered.elementBytes, topology,
                          std::vector<int>(gpus.begin(), gpus.end()), options));
  std::set<int32_t> distinct(gpus.begin(), gpus.end());
  if (!options.linkOverrides.empty() || distinct.size() != gpus.size() ||
      gpus.size() != size_t(program.numRanks))
    return bound;
  VolumeReport volumes =
      computeVolumes(program, lowered.elementsPerRank, lowered.elementBytes);
  for (size_t r = 0; r < gpus.size(); ++r) {
    double egress = 0;
    for (topo::LinkId link : topology.linksFrom(topology.gpu(gpus[r])))
      egress += topology.link(link).bandwidth;
    if (egress > 0)
      bound = std::max(bound, double(volumes.ranks[r].bytesSent) / egress);
  }
  return bound;
}

/// Whether `b` is `a` with every chunk range scaled from a's chunks per part
/// to b's: the same instructions, peers, buffers, steps and dependencies.
/// "" when every rank's non-empty channels can be resident at once
/// (sched::VerifyOptions' default limit, as sched-verify checks), else why
/// not.
static std::string tooManyChannels(const sched::Program &program) {
  uint32_t limit = sched::VerifyOptions().maxChannelsPerRank;
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    uint32_t used = program.ranks[r].channelsInUse();
    if (used > limit)
      return "rank " + std::to_string(r) + " uses " + std::to_string(used) +
             " channels, more than the " + std::to_string(limit) +
             " that can run at once";
  }
  return "";
}

static bool scaledCopy(const sched::Program &b, const sched::Program &a) {
  if (a.numRanks != b.numRanks || a.ranks.size() != b.ranks.size() ||
      a.chunksPerPart == 0)
    return false;
  uint64_t ka = a.chunksPerPart, kb = b.chunksPerPart;
  auto scaled = [&](const sched::ChunkRange &x, const sched::ChunkRange &y) {
    return x.buffer == y.buffer && uint64_t(x.index) * ka == y.index * kb &&
           uint64_t(x.count) * ka == y.count * kb;
  };
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    const sched::RankProgram &ra = a.ranks[r], &rb = b.ranks[r];
    if (ra.channels.size() != rb.channels.size() ||
        ra.dependencies.size() != rb.dependencies.size())
      return false;
    for (size_t d = 0; d < ra.dependencies.size(); ++d)
      if (ra.dependencies[d].channel != rb.dependencies[d].channel ||
          ra.dependencies[d].instruction != rb.dependencies[d].instruction)
        return false;
    for (size_t c = 0; c < ra.channels.size(); ++c) {
      const auto &ia = ra.channels[c].instructions;
      const auto &ib = rb.channels[c].instructions;
      if (ia.size() != ib.size())
        return false;
      for (size_t i = 0; i < ia.size(); ++i) {
        const sched::Instruction &x = ia[i], &y = ib[i];
        if (x.opcode != y.opcode || x.sendPeer != y.sendPeer ||
            x.recvPeer != y.recvPeer || x.depBegin != y.depBegin ||
            x.depCount != y.depCount || !scaled(y.src, x.src) ||
            !scaled(y.dst, x.dst))
          return false;
      }
    }
  }
  return true;
}

llvm::StringMap<int64_t> chosenParams(const Candidate &candidate) {
  llvm::StringMap<int64_t> params;
  if (candidate.channels > 0)
    params[candidate.algorithm->channelParam] = candidate.channels;
  return params;
}

std::vector<unsigned> chunkCountsWithChannels(std::vector<unsigned> counts,
                                              int64_t channels) {
  if (channels > 0)
    for (int64_t c : {channels, 2 * channels, 4 * channels})
      if (!llvm::is_contained(counts, unsigned(c)))
        counts.push_back(unsigned(c));
  return counts;
}

/// The expansion options of a candidate: its chunks and channel count.
static sched::ExpandOptions
expandOptionsOf(const Candidate &candidate,
                const lowering::LoweredCollective &lowered) {
  return lowering::expandOptionsFor(*candidate.algorithm, lowered,
                                    candidate.chunks, chosenParams(candidate));
}

std::string candidateLabel(const Candidate &candidate) {
  std::string label =
      candidate.algorithm->name + " x" + std::to_string(candidate.chunks);
  if (candidate.channels > 0)
    label += " " + candidate.algorithm->channelParam + "=" +
             std::to_string(candidate.channels);
  return label;
}

/// Whether selection chooses `algorithm`'s channel count for `lowered`:
/// it has a channel parameter that --algo-param leaves free, and the
/// topology caps a channel of one of the group's GPUs.
static bool choosesChannels(const lowering::Algorithm &algorithm,
                            const lowering::LoweredCollective &lowered,
                            const topo::Topology &topology,
                            const sim::SimOptions &options) {
  return !algorithm.channelParam.empty() &&
         !lowered.userParams.count(algorithm.channelParam) &&
         sim::anyChannelCapped(
             topology,
             std::vector<int>(lowered.layout.meshRanks.begin(),
                              lowered.layout.meshRanks.end()),
             options);
}

uint32_t channelsInUse(const sched::Program &program) {
  uint32_t used = 0;
  for (const sched::RankProgram &rank : program.ranks)
    used = std::max(used, rank.channelsInUse());
  return used;
}

/// "fastest of 12 simulated candidates, 23 more ruled out by a lower
/// bound, 4 more could not run" (expansion refused them, their channels
/// could not all be resident, or the simulation failed).
static std::string whyText(const SelectionRecord &record) {
  if (!record.measured.empty())
    return record.measured;
  size_t simulated = 0;
  for (const Candidate &c : record.tried)
    simulated += c.seconds >= 0;
  std::string why =
      llvm::formatv("fastest of {0} simulated candidates", simulated).str();
  if (record.pruned)
    why += llvm::formatv(", {0} more ruled out by a lower bound", record.pruned)
               .str();
  if (size_t failed = record.tried.size() - simulated)
    why += llvm::formatv(", {0} more could not run", failed).str();
  return why;
}

/// The lowering's Choice of a decided record.
static lowering::Choice choiceOf(const SelectionRecord &record) {
  lowering::Choice choice;
  choice.algorithm = record.best->algorithm;
  choice.chunks = record.best->chunks;
  choice.params = chosenParams(*record.best);
  choice.why = whyText(record);
  return choice;
}

/// One expanded candidate waiting for its simulation.
struct Selector::SimJob {
  size_t tried = 0; ///< its entry in SelectionRecord::tried
  const lowering::Algorithm *algorithm = nullptr;
  sched::Program program;
  /// quickLowerBound of the program; -1 when it cannot be pruned (a user's
  /// algorithm, or pruning off).
  double bound = -1;
  enum State {
    Waiting, ///< in line for a helper
    Skipped, ///< taken out of line by a helper that found it prunable
    Running,
    Done,   ///< `result` is set
    Pruned, ///< taken out of line by its decision
  } state = Waiting;
  sim::SimResult result;
};

/// Simulates the candidates of one selection in order, deciding each
/// (pruned, or simulated and counted) exactly as one thread would: helper
/// threads only simulate ahead the candidates that come next, and a result
/// is used only when its candidate is not pruned by the time its turn
/// comes. A helper leaves alone a candidate that the candidates decided so
/// far already prune: more decided candidates only lower the best and the
/// runner-up times, so it will be pruned in its turn too. At most
/// `helpers` + 1 expanded programs are held at once.
class Selector::InOrderSimulation {
public:
  InOrderSimulation(Selector &selector, SelectionRecord &record,
                    const lowering::LoweredCollective &lowered,
                    const sim::SimOptions &simOptions)
      : selector(selector), record(record), lowered(lowered),
        simOptions(simOptions), begun(std::chrono::steady_clock::now()) {
    unsigned threads = selector.options.threads;
    if (threads == 0)
      threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    helpers = threads - 1;
    if (simOptions.routes)
      while (selector.workerRoutes.size() < helpers)
        selector.workerRoutes.push_back(
            std::make_shared<RouteMemo>(selector.topology));
  }
  ~InOrderSimulation() { finish(); }

  /// Queues an expanded candidate (its entry of record.tried), deciding
  /// earlier ones once more than `helpers` wait.
  void add(size_t tried, sched::Program program) {
    auto job = std::make_unique<SimJob>();
    job->tried = tried;
    job->algorithm = record.tried[tried].algorithm;
    job->program = std::move(program);
    if (selector.options.prune && job->algorithm->builtin)
      job->bound =
          quickLowerBound(job->program, lowered, selector.topology, simOptions);
    if (helpers > 0) {
      std::lock_guard<std::mutex> lock(mutex);
      waiting.push_back(job.get());
      if (pool.size() < helpers && pool.size() < waiting.size())
        pool.emplace_back([this, h = pool.size()] { help(h); });
      started.notify_one();
    }
    undecided.push_back(std::move(job));
    while (undecided.size() > helpers)
      decide();
  }

  /// Decides every candidate left and stops the helpers; removes the
  /// pruned candidates from record.tried.
  void finish() {
    while (!undecided.empty())
      decide();
    {
      std::lock_guard<std::mutex> lock(mutex);
      closing = true;
    }
    started.notify_all();
    for (std::thread &t : pool)
      t.join();
    pool.clear();
    if (pruned.empty())
      return;
    std::vector<Candidate> tried;
    for (size_t i = 0; i < record.tried.size(); ++i)
      if (!pruned.count(i))
        tried.push_back(std::move(record.tried[i]));
    record.tried = std::move(tried);
    pruned.clear();
  }

private:
  /// Whether a candidate of `algorithm` with quick bound `bound` (-1: not
  /// prunable) can be neither the fastest nor the runner-up of the
  /// candidates decided so far. Callers hold `mutex` when helpers run.
  bool prunable(const lowering::Algorithm *algorithm, double bound) const {
    if (bound < 0 || bestOf.empty())
      return false;
    const lowering::Algorithm *bestAlgorithm = nullptr;
    double best = -1, second = -1;
    for (auto [a, t] : bestOf)
      if (best < 0 || t < best)
        best = t, bestAlgorithm = a;
    for (auto [a, t] : bestOf)
      if (a != bestAlgorithm && (second < 0 || t < second))
        second = t;
    return bound >= best &&
           (algorithm == bestAlgorithm || (second >= 0 && bound >= second));
  }

  /// decideOldest, then tells options.progress where the selection stands.
  void decide() {
    size_t tried = undecided.front()->tried;
    decideOldest();
    if (!selector.options.progress)
      return;
    ++progress.decided;
    progress.pruned = record.pruned;
    const Candidate &c = record.tried[tried];
    if (!pruned.count(tried) && c.seconds >= 0) {
      ++progress.simulated;
      if (progress.bestSeconds < 0 || c.seconds < progress.bestSeconds) {
        progress.bestSeconds = c.seconds;
        progress.best = candidateLabel(c);
      }
    }
    progress.op = lowered.op;
    progress.elapsedSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begun)
            .count();
    selector.options.progress(progress);
  }

  void help(size_t h) {
    sim::SimOptions o = simOptions;
    if (o.routes)
      o.routes = selector.workerRoutes[h];
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      started.wait(lock, [&] { return closing || !waiting.empty(); });
      if (waiting.empty())
        return;
      SimJob &job = *waiting.front();
      waiting.pop_front();
      if (prunable(job.algorithm, job.bound)) {
        job.state = SimJob::Skipped;
        continue;
      }
      job.state = SimJob::Running;
      lock.unlock();
      sim::SimResult result =
          simulateLowered(job.program, lowered, selector.topology, o);
      lock.lock();
      job.result = std::move(result);
      job.state = SimJob::Done;
      finished.notify_all();
    }
  }

  void decideOldest() {
    std::unique_ptr<SimJob> jobPtr = std::move(undecided.front());
    undecided.pop_front();
    SimJob &job = *jobPtr;
    Candidate &candidate = record.tried[job.tried];
    const lowering::Algorithm *algorithm = candidate.algorithm;
    std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
    if (helpers > 0)
      lock.lock();
    // A candidate that cannot beat the best so far is not simulated (a
    // user's algorithm always is: its failures must be reported).
    // Nor one that could not even be the runner-up: the report's
    // runner-up stays the true one.
    if (prunable(algorithm, job.bound)) {
      ++record.pruned;
      pruned.insert(job.tried);
      // A helper that already runs it finishes in vain; wait for it,
      // since it reads the program.
      if (job.state == SimJob::Waiting && helpers > 0) {
        waiting.pop_front(); // the oldest undecided is first in line
        job.state = SimJob::Pruned;
      } else if (job.state == SimJob::Running) {
        finished.wait(lock, [&] { return job.state == SimJob::Done; });
      }
      return;
    }
    bool mine = true;
    if (helpers > 0) {
      if (job.state == SimJob::Waiting) {
        waiting.pop_front();
        job.state = SimJob::Running;
      } else if (job.state != SimJob::Skipped) {
        mine = false;
        finished.wait(lock, [&] { return job.state == SimJob::Done; });
      }
      lock.unlock();
    }
    if (mine)
      job.result =
          simulateLowered(job.program, lowered, selector.topology, simOptions);
    const sim::SimResult &result = job.result;
    if (!result.error.empty()) {
      candidate.error = result.error;
      if (!algorithm->builtin)
        for (const sched::VerifyError &e :
             sched::verifyProgram(job.program, sched::VerifyOptions()).errors)
          candidate.verifierMessages.push_back(e.message);
      return;
    }
    candidate.seconds = result.totalTime;
    if (helpers > 0)
      lock.lock();
    auto [it, fresh] = bestOf.try_emplace(algorithm, candidate.seconds);
    if (!fresh)
      it->second = std::min(it->second, candidate.seconds);
  }

  Selector &selector;
  SelectionRecord &record;
  const lowering::LoweredCollective &lowered;
  const sim::SimOptions &simOptions;
  std::chrono::steady_clock::time_point begun;
  SelectProgress progress;
  size_t helpers = 0;
  std::set<size_t> pruned; ///< entries of record.tried
  std::deque<std::unique_ptr<SimJob>> undecided;

  std::mutex mutex; ///< guards the rest and every job's state and result
  std::condition_variable started, finished;
  /// The best simulated time of every algorithm decided so far.
  std::map<const lowering::Algorithm *, double> bestOf;
  std::deque<SimJob *> waiting; ///< not started yet, in order
  bool closing = false;
  std::vector<std::thread> pool;
};

std::optional<lowering::Choice>
Selector::choose(const lowering::LoweredCollective &lowered,
                 llvm::ArrayRef<const lowering::Algorithm *> candidates,
                 unsigned chunks) {
  SelectionRecord &record = records[lowered.op];
  if (lowered.elementsPerRank < 0) {
    record.note = "sizes known only at run time: chosen by the default rule, "
                  "not simulated";
    return std::nullopt;
  }
  std::string key;
  {
    llvm::raw_string_ostream k(key);
    k << static_cast<int>(lowered.collective) << '/' << lowered.elementsPerRank
      << '/' << lowered.elementBytes << '/' << chunks << '/';
    for (int32_t r : lowered.layout.meshRanks)
      k << r << ',';
    k << '/';
    for (int64_t c : lowered.expand.sendCounts)
      k << c << ',';
    k << '/';
    for (const lowering::Algorithm *a : candidates)
      k << a << ',';
    if (auto root = lowered.op->getAttrOfType<mlir::IntegerAttr>("root"))
      k << "/root" << root.getInt();
  }
  if (auto it = memo.find(key); it != memo.end()) {
    record = it->second;
    if (!record.best)
      return std::nullopt;
    return choiceOf(record);
  }
  std::vector<unsigned> chunkCounts =
      chunks ? std::vector<unsigned>{chunks} : options.chunkCounts;
  sim::SimOptions simOptions = options.simulation;
  simOptions.recordTimeline = false;
  simOptions.recordLinkLoad = false;
  // The expanded candidates are simulated (or ruled out) in the order of
  // record.tried.
  InOrderSimulation simulation(*this, record, lowered, simOptions);
  for (const lowering::Algorithm *algorithm : candidates) {
    // A schedule written for a fixed chunk count (the explicit form) is
    // tried with that count only.
    std::vector<unsigned> counts = chunkCounts;
    if (std::optional<int32_t> fixed =
            sched::ScheduleOp(algorithm->schedule).getChunksPerPart()) {
      int64_t unit = lowering::chunkUnitValue(*algorithm, lowered.layout.size,
                                              lowered.expand.params);
      counts = {static_cast<unsigned>(
          std::max<int64_t>(1, *fixed / std::max<int64_t>(1, unit)))};
      // --chunks cannot change an explicit schedule: when it is the
      // algorithm asked for, a different --chunks is an error, not
      // silently replaced.
      if (chunks && counts.front() != chunks && candidates.size() == 1) {
        lowered.op->emitError("--chunks ")
            << chunks << " does not apply to algorithm '" << algorithm->name
            << "' (" << algorithm->source
            << "): it is an explicit schedule written for " << *fixed
            << " chunk(s) per part, which is " << counts.front()
            << " per algorithm unit; drop --chunks or "
            << "pass --chunks " << counts.front();
        userFailure = true;
        return std::nullopt;
      }
    }
    // The channel counts to try (0: the algorithm's own).
    std::vector<int64_t> channelCounts = {0};
    if (choosesChannels(*algorithm, lowered, topology, simOptions))
      channelCounts = options.channelCounts;
    MoreChannelsAtWork worthTrying;
    // A built-in schedule puts more of its channels to work as its chunks
    // grow, and all of its `channels` sets once it has that many chunks
    // per unit. So a program that cannot be resident (too many channels)
    // with c chunks cannot with more, and one with c >= channels chunks
    // cannot with more channels and as many chunks as channels or more:
    // those are not expanded (at 32 rings and 128 chunks an expansion
    // costs tens of ms). Fewer chunks than channels still are. Part of
    // pruning: --select-prune=false expands them all.
    int64_t crowdedFrom = 0; // the smallest such channel count, 0: none
    for (int64_t channels : channelCounts) {
      // This algorithm's first expansion. A larger chunk count whose program
      // is the same instruction for instruction (opcodes, peers, buffers)
      // with every range scaled by the chunk count moves the same fraction of
      // the data in every instruction: it would simulate to the same time
      // (e.g. schedules whose instructions all move the whole buffer), so it
      // is not simulated again.
      std::optional<sched::Program> first;
      // C channels need C chunks per unit to all have work, and more
      // (chunkCountsWithChannels), where the chunk count is free.
      std::vector<unsigned> chunksToTry =
          chunks || sched::ScheduleOp(algorithm->schedule).getChunksPerPart()
              ? counts
              : chunkCountsWithChannels(counts, channels);
      unsigned crowdedAt = 0; // the fewest chunks found crowded, 0: none
      for (unsigned c : chunksToTry) {
        if (algorithm->builtin && options.prune &&
            ((crowdedAt > 0 && c >= crowdedAt) ||
             (crowdedFrom > 0 && channels > crowdedFrom &&
              int64_t(c) >= channels)))
          continue;
        Candidate candidate;
        candidate.algorithm = algorithm;
        candidate.chunks = c;
        candidate.channels = channels;
        sched::ExpandOptions expand = expandOptionsOf(candidate, lowered);
        candidate.k = expand.chunksPerPart;
        // Chunks smaller than an element pipeline nothing.
        if (lowered.elementsPerRank > 0 &&
            static_cast<int64_t>(expand.chunksPerPart) >
                lowered.elementsPerRank &&
            c > 1)
          continue;
        // Expansion errors of a library algorithm are recorded, not shown.
        mlir::FailureOr<sched::Program> program =
            expandQuietly(*algorithm, expand, &candidate.error);
        if (failed(program)) {
          record.tried.push_back(candidate);
          continue;
        }
        // A schedule whose channels cannot all be resident at once could
        // hang on a GPU (sched-verify's co-residency rule): not a candidate.
        if (std::string why = tooManyChannels(*program); !why.empty()) {
          candidate.error = why;
          record.tried.push_back(candidate);
          if (crowdedAt == 0 || c < crowdedAt)
            crowdedAt = c;
          if (channels > 0 && int64_t(c) >= channels &&
              (crowdedFrom == 0 || channels < crowdedFrom))
            crowdedFrom = channels;
          continue;
        }
        // More channels than get work run as fewer would (a ring per chunk
        // at most): that smaller count is tried already.
        if (!worthTrying.admit(channels, channelsInUse(*program)))
          continue;
        if (!first)
          first = *program;
        else if (scaledCopy(*program, *first))
          continue;
        record.tried.push_back(candidate);
        simulation.add(record.tried.size() - 1, std::move(*program));
      }
    }
  }
  simulation.finish();
  // A researcher's algorithm that cannot run is an error, never silently
  // passed over (built-ins are verified by the test suite).
  std::set<const lowering::Algorithm *> reported;
  for (const Candidate &c : record.tried)
    if (c.seconds < 0 && !c.algorithm->builtin &&
        reported.insert(c.algorithm).second) {
      if (!c.verifierMessages.empty()) {
        mlir::InFlightDiagnostic diag =
            lowered.op->emitError("sched-verify: the ")
            << c.algorithm->name << " schedule of this "
            << sched::collectiveName(lowered.collective) << " ("
            << c.algorithm->source << ", n = " << lowered.layout.size
            << ", k = " << c.k << ") is wrong";
        for (const std::string &message : c.verifierMessages)
          diag.attachNote() << message;
      } else {
        lowered.op->emitError("algorithm '")
            << c.algorithm->name << "' from " << c.algorithm->source
            << " cannot run this " << sched::collectiveName(lowered.collective)
            << " (k = " << c.k << "): " << c.error;
      }
      userFailure = true;
    }
  for (const Candidate &c : record.tried) {
    if (c.seconds < 0)
      continue;
    if (!record.best || c.seconds < record.best->seconds)
      record.best = c;
  }
  if (!record.best) {
    record.note = "no candidate could be simulated: chosen by the default rule";
    memo[key] = record;
    return std::nullopt;
  }
  for (const Candidate &c : record.tried)
    if (c.seconds >= 0 && c.algorithm != record.best->algorithm &&
        (!record.runnerUp || c.seconds < record.runnerUp->seconds))
      record.runnerUp = c;
  if (options.tuning && !applyTuning(lowered, candidates, chunks, record))
    return std::nullopt;
  memo[key] = record;
  return choiceOf(record);
}

namespace {
std::string microseconds(double seconds) {
  return seconds >= 1e-3 ? llvm::formatv("{0:F2} ms", seconds * 1e3).str()
                         : llvm::formatv("{0:F1} us", seconds * 1e6).str();
}
} // namespace

bool Selector::applyTuning(
    const lowering::LoweredCollective &lowered,
    llvm::ArrayRef<const lowering::Algorithm *> candidates, unsigned chunks,
    SelectionRecord &record) {
  const collrt::TuningTable &table = *options.tuning;
  const std::string file = "tuning " + options.tuningPath;
  const char *name = sched::collectiveName(lowered.collective);
  collrt::DataType dtype = collrt::DataType::F32;
  collrt::ReduceOp reduction = collrt::ReduceOp::Sum;
  if (!planDataType(lowered.op, dtype) ||
      !planReduceOp(lowered.op, reduction)) {
    record.tuningNote = file + " not applied: this " + std::string(name) +
                        "'s element type or reduction has no plan name";
    return true;
  }
  std::vector<const collrt::TuningEntry *> entries = collrt::tuningEntriesFor(
      table, lowered.collective, lowered.layout.size, dtype, reduction);
  std::string what = std::string(name) + " of " + collrt::dataTypeName(dtype) +
                     " on " + std::to_string(lowered.layout.size) + " ranks";
  if (entries.empty()) {
    record.tuningNote =
        file + " has no measurement of " + what + ": chosen by simulation";
    return true;
  }
  int64_t bytes = lowered.elementsPerRank * int64_t(lowered.elementBytes);
  const collrt::TuningEntry *entry = collrt::nearestTuningEntry(entries, bytes);
  if (!entry) {
    record.tuningNote =
        file + " measured " + what + " from " +
        std::to_string(entries.front()->bytesPerRank) + " to " +
        std::to_string(entries.back()->bytesPerRank) + " bytes per rank; " +
        std::to_string(bytes) +
        " lies more than a factor of 2 outside: chosen by simulation";
    return true;
  }
  if (candidates.size() == 1 || chunks) {
    record.tuningNote = file + " not applied: --algo or --chunks decide";
    return true;
  }
  std::string path = file + ": entries[" +
                     std::to_string(entry - table.entries.data()) +
                     "].candidates[0]";
  const collrt::TuningCandidate &fastest = entry->candidates.front();
  const lowering::Algorithm *algorithm = nullptr;
  for (const lowering::Algorithm *a : candidates)
    if (a->name == fastest.algorithm)
      algorithm = a;
  std::string measuredAs = fastest.algorithm +
                           " k=" + std::to_string(fastest.chunksPerPart) +
                           ", measured fastest";
  if (!algorithm) {
    lowered.op->emitError(path)
        << ": " << measuredAs << ", is not an algorithm collc can run this "
        << name << " with (none of its applicable algorithms has that name; "
        << "a researcher's algorithm needs its --algo-file); tune with plans "
        << "of this collc, or drop --tuning";
    userFailure = true;
    return false;
  }
  int64_t unit = std::max<int64_t>(
      1, lowering::chunkUnitValue(*algorithm, lowered.layout.size,
                                  lowered.expand.params));
  Candidate tuned;
  tuned.algorithm = algorithm;
  tuned.chunks = unsigned(std::max<int64_t>(1, fastest.chunksPerPart / unit));
  std::string expandError;
  std::optional<sched::Program> program;
  // The channel counts selection tries are the ones the measured schedule
  // may have been made with (collc --emit=candidates writes them all).
  std::vector<int64_t> channelCounts = {0};
  sim::SimOptions simOptions = options.simulation;
  if (choosesChannels(*algorithm, lowered, topology, simOptions))
    channelCounts = options.channelCounts;
  for (int64_t channels : channelCounts) {
    tuned.channels = channels;
    sched::ExpandOptions expand = expandOptionsOf(tuned, lowered);
    tuned.k = expand.chunksPerPart;
    mlir::FailureOr<sched::Program> expanded =
        expandQuietly(*algorithm, expand, &expandError);
    if (failed(expanded))
      continue;
    program = std::move(*expanded);
    if (sched::fingerprint(*program) == fastest.fingerprint)
      break;
  }
  if (!program || tuned.k != fastest.chunksPerPart ||
      sched::fingerprint(*program) != fastest.fingerprint) {
    mlir::InFlightDiagnostic diag = lowered.op->emitError(path);
    diag << ": " << measuredAs << ", is not the schedule collc makes of "
         << fastest.algorithm << " here: ";
    if (!program)
      diag << "it does not expand (" << expandError << ")";
    else if (tuned.k != fastest.chunksPerPart)
      diag << "its chunks per part come in multiples of " << unit;
    else
      diag << "its program's fingerprint is "
           << collrt::fingerprintText(sched::fingerprint(*program))
           << ", the measured one's "
           << collrt::fingerprintText(fastest.fingerprint);
    diag << " (measured with other --algo-param values, or by another "
            "collc); tune again with plans of this collc, or drop --tuning";
    userFailure = true;
    return false;
  }
  for (const Candidate &c : record.tried)
    if (c.algorithm == tuned.algorithm && c.chunks == tuned.chunks &&
        c.channels == tuned.channels)
      tuned.seconds = c.seconds;
  std::string text =
      llvm::formatv("measured fastest: {0} per call at {1} bytes per rank, "
                    "best of {2} candidates ({3} entries[{4}]: ",
                    microseconds(fastest.seconds), entry->bytesPerRank,
                    entry->candidates.size(), file,
                    entry - table.entries.data())
          .str();
  text += "host " + entry->host + ", " + entry->transport +
          (entry->processes ? " between processes" : " between threads") +
          ", " + entry->buffers + " buffers, " + entry->measured + ")";
  if (entry->candidates.size() > 1)
    text += "; measured next: " + entry->candidates[1].algorithm +
            " k=" + std::to_string(entry->candidates[1].chunksPerPart) + " " +
            microseconds(entry->candidates[1].seconds);
  SelectionRecord::Measurement numbers;
  numbers.file = options.tuningPath;
  numbers.entry = size_t(entry - table.entries.data());
  numbers.bytesPerRank = entry->bytesPerRank;
  numbers.seconds = fastest.seconds;
  numbers.candidates = entry->candidates.size();
  if (record.best) {
    text += "; the model's choice " + candidateLabel(*record.best);
    std::optional<uint64_t> modelFingerprint;
    std::string ignored;
    mlir::FailureOr<sched::Program> expanded =
        expandQuietly(*record.best->algorithm,
                      expandOptionsOf(*record.best, lowered), &ignored);
    if (succeeded(expanded))
      modelFingerprint = sched::fingerprint(*expanded);
    for (const collrt::TuningCandidate &c : entry->candidates)
      if (c.algorithm == record.best->algorithm->name &&
          c.chunksPerPart == record.best->k &&
          (!modelFingerprint || c.fingerprint == *modelFingerprint))
        numbers.modelSeconds = c.seconds;
    text += numbers.modelSeconds >= 0
                ? " measured " + microseconds(numbers.modelSeconds)
                : std::string(" was not measured");
  }
  record.measurement = numbers;
  record.modelBest = record.best;
  record.best = tuned;
  record.runnerUp.reset();
  record.measured = text;
  return true;
}

const SelectionRecord *Selector::record(mlir::Operation *op) const {
  auto it = records.find(op);
  return it == records.end() ? nullptr : &it->second;
}

} // namespace collc
