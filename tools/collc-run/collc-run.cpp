//===- collc-run.cpp - run a plan on real buffers -------------------------===//
//
// collc-run PLAN.plan.json [--ranks N] [--bytes MIN:MAX] [--check] ...:
// runs one collective of a plan that `collc --emit=plan` wrote, with the
// ranks as threads of this process (--ranks) or as processes started by a
// launcher, and prints a row per size as nccl-tests does. With --check every
// element of every iteration is compared with an independent reference
// (runtime/check). With --backend cuda --ranks N the N ranks run as blocks
// of the kernel collc generated (--kernels) on one GPU, through
// collcgpu::runPlanOnOneGpu; without --ranks one rank per process under
// a launcher, each on GPU LOCAL_RANK % devices, through
// collcgpu::runPlanOnRank (CUDA IPC). docs/collc-run.md describes it.
//
//===----------------------------------------------------------------------===//
#include "collrt/Bootstrap.h"
#include "collrt/collrt.h"
#include "runtime/check/Reference.h"
#include "runtime/check/SendCounts.h"
#include "tools/collc-run/GpuRun.h"
#include "tools/collc-run/Options.h"
#include "tools/collc-run/RankRun.h"
#include "tools/collc-run/RunTrace.h"
#include "tools/collc-run/Tune.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

using namespace collcrun;
using collc::sched::Collective;
using collrt::Status;

namespace {

/// Exit codes (docs/collc-run.md).
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

int fail(int code, const std::string &message) {
  std::fprintf(stderr, "collc-run: %s\n", message.c_str());
  return code;
}

/// --counts FILE: a JSON array of N arrays of N element counts >= 0, or
/// false with `error` naming the file and the entry.
bool readCountsFile(const std::string &path, int32_t n,
                    std::vector<int64_t> *counts, std::string *error) {
  std::ifstream in(path);
  if (!in) {
    *error = "--counts " + path + ": cannot read the file";
    return false;
  }
  nlohmann::json value;
  try {
    in >> value;
  } catch (const nlohmann::json::exception &e) {
    *error = "--counts " + path + ": not JSON: " + e.what();
    return false;
  }
  std::string shape = "a JSON array of " + std::to_string(n) +
                      " arrays (one per sender) of " + std::to_string(n) +
                      " element counts >= 0";
  if (!value.is_array() || value.size() != size_t(n)) {
    *error = "--counts " + path + ": the plan's all_to_all_v has " +
             std::to_string(n) + " ranks, so the file must hold " + shape;
    return false;
  }
  counts->clear();
  for (size_t s = 0; s < value.size(); ++s) {
    const nlohmann::json &row = value[s];
    if (!row.is_array() || row.size() != size_t(n)) {
      *error = "--counts " + path + ": row " + std::to_string(s) +
               " must be an array of " + std::to_string(n) + " counts (" +
               shape + ")";
      return false;
    }
    for (size_t r = 0; r < row.size(); ++r) {
      if (!row[r].is_number_integer() || row[r].get<int64_t>() < 0) {
        *error = "--counts " + path + ": entry [" + std::to_string(s) + "][" +
                 std::to_string(r) + "] is " + row[r].dump() +
                 ", not an element count >= 0";
        return false;
      }
      counts->push_back(row[r].get<int64_t>());
    }
  }
  return true;
}

/// --counts random[:SEED]: each size's counts, every rank's row a random
/// split of its `count` elements (collrt::check::randomSendCounts).
void addRandomCounts(const Options &o, const collrt::PlanCollective &collective,
                     std::vector<SizeCase> *sizes) {
  if (!collrt::sendCountsAtRunTime(collective))
    return;
  for (SizeCase &size : *sizes)
    size.sendCounts = collrt::check::randomSendCounts(
        collective.program.numRanks, size.count, 1, o.countsSeed);
}

/// The sizes to run, or false with `error`.
bool chooseSizes(const Options &o, const collrt::PlanCollective &collective,
                 std::vector<SizeCase> *sizes, std::string *error) {
  const collc::sched::Program &program = collective.program;
  const int64_t elementSize =
      static_cast<int64_t>(collrt::dataTypeSize(collective.dtype));
  const bool runtimeCounts = collrt::sendCountsAtRunTime(collective);
  if (o.countsGiven && !runtimeCounts) {
    *error = "--counts applies to an all_to_all_v whose plan gives its send "
             "counts at run time (\"send_counts\": null); the plan's "
             "collective " +
             std::to_string(o.collective) + " is " +
             collc::sched::collectiveName(program.collective) +
             (program.collective == Collective::AllToAllV
                  ? " with its counts in the plan"
                  : "");
    return false;
  }
  if (runtimeCounts && !o.countsFile.empty()) {
    if (o.bytesGiven) {
      *error = "--counts " + o.countsFile +
               ": the file's counts fix the sizes; --bytes does not apply";
      return false;
    }
    std::vector<int64_t> counts;
    if (!readCountsFile(o.countsFile, program.numRanks, &counts, error))
      return false;
    int64_t total = 0;
    for (int64_t c : counts)
      total += c;
    sizes->push_back(
        {total * elementSize / std::max(program.numRanks, 1), -1, counts});
    return true;
  }
  if (program.collective == Collective::AllToAllV && !runtimeCounts) {
    if (o.bytesGiven) {
      *error = "all_to_all_v's sizes are its send counts, compiled into the "
               "plan; --bytes does not apply to it";
      return false;
    }
    int64_t total = 0;
    for (int64_t c : program.sendCounts)
      total += c;
    sizes->push_back(
        {total * elementSize / std::max(program.numRanks, 1), -1, {}});
    return true;
  }
  if (!o.bytesGiven) {
    if (collective.elementsPerRank < 0) {
      *error = "the plan's collective " + std::to_string(o.collective) +
               " was compiled without a size (elements_per_rank -1); give "
               "--bytes SIZE or MIN:MAX";
      return false;
    }
    sizes->push_back({collective.elementsPerRank * elementSize,
                      collective.elementsPerRank,
                      {}});
    addRandomCounts(o, collective, sizes);
    return true;
  }
  for (int64_t b = o.minBytes; b <= o.maxBytes; b *= o.factor) {
    if (b % elementSize) {
      *error = "--bytes: " + std::to_string(b) + " bytes is not a whole " +
               "number of " + collrt::dataTypeName(collective.dtype) +
               " elements (" + std::to_string(elementSize) + " bytes each)";
      return false;
    }
    sizes->push_back({b, b / elementSize, {}});
    if (b > o.maxBytes / o.factor)
      break;
  }
  addRandomCounts(o, collective, sizes);
  return true;
}

/// Bytes of input and output buffers `ranks` of this process hold at the
/// largest size.
double bufferBytes(const collrt::PlanCollective &collective,
                   const std::vector<SizeCase> &sizes,
                   const std::vector<int32_t> &worldRanks) {
  const auto &program = collective.program;
  double most = 0;
  for (const SizeCase &size : sizes) {
    double bytes = 0;
    for (int32_t world : worldRanks)
      for (const auto &group : collective.groups)
        for (size_t g = 0; g < group.size(); ++g)
          if (group[g] == world) {
            int32_t r = static_cast<int32_t>(g);
            int64_t count =
                program.collective == Collective::AllToAllV ? 0 : size.count;
            const int64_t *counts =
                size.sendCounts.empty() ? nullptr : size.sendCounts.data();
            bytes += double(collrt::check::referenceInputElements(
                                program, r, count, counts) +
                            collrt::check::referenceOutputElements(
                                program, r, count, counts)) *
                     double(collrt::dataTypeSize(collective.dtype));
          }
    most = std::max(most, bytes);
  }
  return most;
}

bool checkMemory(double needed, std::string *error) {
  double physical =
      double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (physical > 0 && needed > 0.8 * physical) {
    *error = "the buffers need " +
             std::to_string(static_cast<long long>(needed / (1 << 20))) +
             " MiB in this process, more than 80% of the machine's " +
             std::to_string(static_cast<long long>(physical / (1 << 20))) +
             " MiB; use a smaller --bytes or fewer --ranks";
    return false;
  }
  return true;
}

/// `how`: how the ranks run ("4 ranks as threads of one process, transport
/// in-process").
void printHeader(const Options &o, const collrt::Plan &plan,
                 const collrt::PlanCollective &collective,
                 const std::string &how) {
  const auto &program = collective.program;
  bool tuning = !o.tunePath.empty();
  if (tuning) {
    std::printf(
        "# collc-run --tuning: %zu candidate plan(s) (written by %s for "
        "topology %s, world %d), collective %zu of each:\n",
        plan.collectives.size(), plan.producer.c_str(), plan.topology.c_str(),
        plan.worldSize, o.collective);
    for (size_t c = 0; c < plan.collectives.size(); ++c)
      std::printf("#   %s  %s\n", candidateLabel(plan.collectives[c]).c_str(),
                  (c == 0 ? o.planPath : o.morePlans[c - 1]).c_str());
    std::printf("# %s at %s, %zu group%s of %d ranks; best of %d round(s) "
                "per size into %s\n",
                collc::sched::collectiveName(program.collective),
                collective.location.c_str(), collective.groups.size(),
                collective.groups.size() == 1 ? "" : "s", program.numRanks,
                o.tuneRounds, o.tunePath.c_str());
  } else {
    std::printf("# collc-run: plan %s (written by %s for topology %s, world "
                "%d)\n",
                o.planPath.c_str(), plan.producer.c_str(),
                plan.topology.c_str(), plan.worldSize);
    std::printf("# collective %zu of %zu: %s at %s, algorithm %s, %zu group%s "
                "of %d ranks, chunks per part %u\n",
                o.collective, plan.collectives.size(),
                collc::sched::collectiveName(program.collective),
                collective.location.c_str(), program.algorithm.c_str(),
                collective.groups.size(),
                collective.groups.size() == 1 ? "" : "s", program.numRanks,
                program.chunksPerPart);
  }
  std::printf("# dtype %s, op %s; %s\n", collrt::dataTypeName(collective.dtype),
              collrt::check::reduces(program.collective)
                  ? collrt::reduceOpName(collective.reduction)
                  : "none",
              how.c_str());
  std::string backend = "backend " + o.backend;
  if (o.backend == "cuda") {
    // How the GPUs reach each other (docs/gpu-runtime.md, "Links" and
    // "Across hosts").
    backend += ", kernels " + o.kernelsPath + ", p2p " + o.p2p;
    if (!o.topologyFile.empty() && (o.devices.size() > 1 || o.ranks == 0))
      backend += " (links by topology " + o.topologyFile + ")";
    if (o.ranks == 0)
      backend += ", network between hosts " +
                 (o.transportGiven ? o.transport : std::string("none"));
    if (o.gpuDirect)
      backend += " with GPUDirect RDMA (GPU memory registration " +
                 o.gpuMemoryRegistration + ")";
    if (o.proxyPollingGiven)
      backend += ", proxy polling " + o.proxyPolling;
  }
  if (collrt::sendCountsAtRunTime(collective)) {
    if (o.countsFile.empty())
      std::printf("# send counts given at run time: random, seed %llu (every "
                  "rank's --bytes split at random among the %d ranks)\n",
                  (unsigned long long)o.countsSeed, program.numRanks);
    else
      std::printf("# send counts given at run time: from %s\n",
                  o.countsFile.c_str());
  }
  std::printf("# iters %d, warmup %d, timeout %g s, slot bytes %s, %u "
              "connection slots, check %s, %s\n",
              o.iters, o.warmup, o.timeoutSeconds,
              formatBytes(int64_t(o.slotBytes)).c_str(),
              collective.connectionSlots, o.check ? "on" : "off",
              backend.c_str());
  if (o.backend == "cpu")
    std::printf("# buffers %s\n",
                o.buffers == "host"
                    ? "host (collrt::allocateHostBuffer: mapped by the other "
                      "processes of the host)"
                    : "malloc (the C++ heap)");
  if (tuning) {
    std::printf("#%11s  %-28s %11s %8s %8s %8s\n", "size", "candidate", "time",
                "algbw", "busbw", "#wrong");
    std::printf("#%11s  %-28s %11s %8s %8s %8s\n", "(B)", "", "(us)", "(GB/s)",
                "(GB/s)", "");
    std::fflush(stdout);
  } else {
    printTableHeader(stdout);
  }
}

/// The trace's title: the plan and the collective's algorithm.
std::string traceTitle(const Options &o, const collrt::Plan &plan) {
  const auto &collective = plan.collectives[o.collective];
  return "collc-run " + o.planPath + ": " +
         collc::sched::collectiveName(collective.program.collective) + " (" +
         collective.program.algorithm + "), the last run";
}

int runThreads(const Options &o, const collrt::Plan &plan,
               const RunSetup &setup, const TuneSetup *tune) {
  const auto &collective = plan.collectives[setup.index];
  std::vector<int32_t> all;
  for (int32_t r = 0; r < o.ranks; ++r)
    all.push_back(r);
  std::string error;
  if (!checkMemory(bufferBytes(collective, setup.sizes, all), &error))
    return fail(kExitBadInput, error);
  collrt::CommOptions comm;
  comm.timeoutSeconds = o.timeoutSeconds;
  comm.slotBytes = o.slotBytes;
  comm.channelThreads = o.channelThreads;
  comm.trace = !o.tracePath.empty();
  std::vector<std::unique_ptr<collrt::Communicator>> comms;
  Status s = collrt::Communicator::createInProcessGroup(o.ranks, comm, &comms);
  if (!s.ok())
    return fail(kExitFailed, s.toString());
  printHeader(o, plan, collective,
              std::to_string(o.ranks) +
                  " ranks as threads of one process, transport " +
                  comms[0]->transportName() + ", channel threads " +
                  std::to_string(comms[0]->channelThreads()) + " per rank");
  // A rank waits for the others' reports at most as long as all its runs
  // could take under the watchdog.
  // (At most 30 days, which the clock's duration holds.)
  auto exchange = createThreadExchange(
      o.ranks,
      std::min(o.timeoutSeconds * (double(o.warmup) + o.iters + 2), 2.6e6));
  std::vector<Status> results(size_t(o.ranks));
  std::vector<std::vector<collrt::TraceEvent>> traces(size_t(o.ranks));
  bool tracing = !o.tracePath.empty();
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < o.ranks; ++r)
    threads.emplace_back([&, r] {
      Status result = runOrTune(setup, tune, *comms[size_t(r)], *exchange,
                                tracing ? &traces[size_t(r)] : nullptr);
      // A rank that stops for a reason of its own (not a failed run, which
      // aborts by itself) stops the others' runs too.
      if (!result.ok() && result.code() != collrt::ErrorCode::CheckFailed)
        comms[size_t(r)]->abort(result.message());
      results[size_t(r)] = result;
    });
  for (std::thread &t : threads)
    t.join();
  int code = 0;
  std::string lastCheckFailure;
  for (const Status &result : results) {
    if (result.ok())
      continue;
    code = kExitFailed;
    // Every rank reports the same total of wrong elements: print it once.
    if (result.code() == collrt::ErrorCode::CheckFailed &&
        result.message() == lastCheckFailure)
      continue;
    if (result.code() == collrt::ErrorCode::CheckFailed)
      lastCheckFailure = result.message();
    std::fprintf(stderr, "collc-run: %s\n", result.toString().c_str());
  }
  if (code == 0 && !o.tracePath.empty()) {
    std::vector<collrt::TraceEvent> events;
    for (const auto &mine : traces)
      events.insert(events.end(), mine.begin(), mine.end());
    std::string error = writeRunTrace(events, traceTitle(o, plan), o.tracePath);
    if (!error.empty())
      return fail(kExitFailed, "--trace: " + error);
    std::printf("# trace: the last run of %zu instructions and tiles, every "
                "rank, in %s\n",
                events.size(), o.tracePath.c_str());
  }
  return code;
}

int runGpuProcess(const Options &o, const collrt::Plan &plan,
                  const RunSetup &setup);

/// The options both GPU paths run with: the device and the command line's
/// iterations, check, watchdog and slot size.
collcgpu::GpuRunOptions gpuRunOptions(const Options &o, int device) {
  collcgpu::GpuRunOptions g;
  g.device = device;
  g.iterations = o.iters;
  g.warmup = o.warmup;
  g.check = o.check;
  g.timeoutSeconds = o.timeoutSeconds;
  g.slotBytes = o.slotBytes;
  // Between hosts (runPlanOnRank): the network only when asked for.
  if (o.transportGiven)
    g.network = o.transport;
  g.ib.device = o.ibDevice;
  g.ib.topologyFile = o.topologyFile;
  if (o.devices.size() > 1 || o.ranks == 0)
    g.topologyFile = o.topologyFile; // the links between the GPUs
  g.peerToPeer = o.p2p != "off";
  g.gpuDirect = o.gpuDirect;
  // (Options checked the names.)
  g.gpuMemoryRegistration = o.gpuMemoryRegistration;
  g.proxyPolling = o.proxyPolling;
  return g;
}

/// --backend cuda --ranks N: each size runs collective o.collective on the
/// N ranks of GPU 0 (or of the GPUs of --devices, rank r on
/// devices[r % G], one launch per entry) with the kernel collc generated for
/// it (collcgpu::runPlanOnDevices: each rank its own device buffers, a
/// device's ranks' blocks in one launch). Without --ranks: runGpuProcess.
int runGpu(const Options &o, const collrt::Plan &plan, const RunSetup &setup) {
  const auto &collective = plan.collectives[o.collective];
  const auto &program = collective.program;
  if (o.ranks > 0 && o.ranks != program.numRanks)
    return fail(kExitBadInput,
                "--backend cuda --ranks " + std::to_string(o.ranks) +
                    ": collective " + std::to_string(o.collective) + " of " +
                    o.planPath + " (" +
                    collc::sched::collectiveName(program.collective) + ", " +
                    program.algorithm + ") runs on groups of " +
                    std::to_string(program.numRanks) +
                    " ranks, and one GPU runs one group: pass --ranks " +
                    std::to_string(program.numRanks));
  {
    std::ifstream kernels(o.kernelsPath, std::ios::binary);
    if (!kernels)
      return fail(kExitBadInput,
                  "--kernels '" + o.kernelsPath +
                      "': cannot open it: " + std::strerror(errno) +
                      " (write it with collc --emit=fatbin -o " +
                      o.kernelsPath + ")");
  }
  // Without a usable GPU, say so once, before the header.
  const int device = o.devices.empty() ? 0 : o.devices[0];
  std::string gpu;
  Status s = collcgpu::describeGpu(device, &gpu);
  if (!s.ok())
    return fail(kExitFailed,
                s.toString() +
                    ". --backend cuda runs the generated kernels on an NVIDIA "
                    "GPU through its driver (libcuda.so.1); this machine has "
                    "no usable one. Run on a machine with a GPU, or run the "
                    "plan on the CPU executor here: drop --backend cuda and "
                    "--kernels");
  if (o.ranks == 0)
    return runGpuProcess(o, plan, setup);
  std::string groups;
  if (plan.worldSize != program.numRanks)
    groups = " (one group of the plan's world of " +
             std::to_string(plan.worldSize) + ")";
  std::string where = " on one GPU: GPU " + std::to_string(device) + ", " + gpu;
  if (o.devices.size() > 1) {
    // Which ranks each launch runs, and each GPU once.
    size_t g = o.devices.size();
    where = " on " + std::to_string(g) +
            " launches of this process (rank r on devices[r % " +
            std::to_string(g) + "]):";
    std::vector<std::vector<int32_t>> dealt =
        collrt::dev::dealRanks(o.ranks, int32_t(g));
    for (size_t i = 0; i < g; ++i) {
      where += (i ? ";" : "") + std::string(" GPU ") +
               std::to_string(o.devices[i]) + " ranks";
      for (size_t k = 0; k < dealt[i].size(); ++k)
        where += (k ? "," : " ") + std::to_string(dealt[i][k]);
    }
    std::vector<int32_t> seen;
    for (int32_t d : o.devices) {
      if (std::find(seen.begin(), seen.end(), d) != seen.end())
        continue;
      seen.push_back(d);
      std::string description;
      s = collcgpu::describeGpu(d, &description);
      if (!s.ok())
        return fail(kExitFailed, "--devices: GPU " + std::to_string(d) + ": " +
                                     s.toString());
      where += "; GPU " + std::to_string(d) + ": " + description;
    }
    if (seen.size() < g)
      where += " (a GPU listed more than once runs several launches at once: "
               "their messages do not cross a link, and nothing guarantees "
               "that it runs all of their blocks together)";
  }
  printHeader(o, plan, collective,
              std::to_string(o.ranks) + " ranks" + groups + where);

  collcgpu::GpuRunOptions g = gpuRunOptions(o, device);
  g.kernelFile = o.kernelsPath;
  g.devices = o.devices;
  int64_t totalWrong = 0;
  for (const SizeCase &size : setup.sizes) {
    g.count = collcgpu::countForBytes(collective, size.bytesPerRank);
    collcgpu::GpuRunResult r;
    s = collcgpu::runPlanOnDevices(plan, o.collective, g, &r);
    if (!s.ok())
      return fail(kExitFailed,
                  formatBytes(size.bytesPerRank) + ": " + s.toString());
    if (&size == &setup.sizes.front())
      for (const std::string &line : r.links)
        std::fprintf(stderr, "collc-run: link %s\n", line.c_str());
    if (r.wrong) {
      std::string text = "collc-run: " + formatBytes(size.bytesPerRank) + ": " +
                         std::to_string(r.wrong) + " of " +
                         std::to_string(r.checked) + " elements wrong\n";
      for (const std::string &example : r.examples)
        text += "collc-run:   " + example + "\n";
      std::fputs(text.c_str(), stderr);
    }
    totalWrong += r.wrong;
    printRow(stdout, collective, size.bytesPerRank, r.microseconds * 1e-6,
             o.check ? r.wrong : -1);
    std::printf("#   %s\n", collcgpu::describeLaunch(r).c_str());
    std::fflush(stdout);
  }
  if (totalWrong)
    return fail(kExitFailed,
                collrt::Status(collrt::ErrorCode::CheckFailed,
                               std::to_string(totalWrong) +
                                   " wrong elements over all ranks and sizes")
                    .toString());
  return 0;
}

const char *lookupEnvironment(const char *name) { return std::getenv(name); }

int runProcess(const Options &o, const collrt::Plan &plan,
               const RunSetup &setup, const TuneSetup *tune) {
  const auto &collective = plan.collectives[setup.index];
  collrt::LaunchInfo launch;
  Status s = collrt::detectLaunch(lookupEnvironment, &launch);
  if (!s.ok())
    return fail(
        kExitBadInput,
        "without --ranks, collc-run is one rank of a launcher's world, and "
        "this process cannot join one: " +
            s.message() +
            ". To run N ranks as threads of this process, pass --ranks N");
  s = collrt::checkPlanWorld(plan, launch.worldSize);
  if (!s.ok())
    return fail(kExitBadInput,
                "rank " + std::to_string(launch.rank) + ": " + s.toString());
  std::string error;
  if (!checkMemory(bufferBytes(collective, setup.sizes, {launch.rank}), &error))
    return fail(kExitBadInput,
                "rank " + std::to_string(launch.rank) + ": " + error);
  collrt::CommOptions comm;
  comm.transport = o.transport;
  comm.ibDevice = o.ibDevice;
  comm.topologyFile = o.topologyFile;
  comm.timeoutSeconds = o.timeoutSeconds;
  comm.slotBytes = o.slotBytes;
  comm.channelThreads = o.channelThreads;
  comm.trace = !o.tracePath.empty();
  std::unique_ptr<collrt::Communicator> communicator;
  s = collrt::Communicator::createFromEnvironment(comm, &communicator);
  if (!s.ok())
    return fail(kExitFailed,
                "rank " + std::to_string(launch.rank) + ": " + s.toString());
  // Every rank says what its transport uses (for ib: which NIC and why),
  // on its own stderr.
  std::fprintf(stderr, "collc-run: rank %d transport: %s; channel threads %d\n",
               communicator->rank(), communicator->describeTransport().c_str(),
               communicator->channelThreads());
  std::unique_ptr<ReportExchange> exchange;
  s = createCommunicatorExchange(*communicator, &exchange);
  if (!s.ok())
    return fail(kExitFailed, s.toString());
  if (communicator->rank() == 0)
    printHeader(o, plan, collective,
                std::to_string(communicator->worldSize()) +
                    " ranks as processes, transport " +
                    communicator->transportName() + ", channel threads " +
                    std::to_string(communicator->channelThreads()) +
                    " on rank 0");
  std::vector<collrt::TraceEvent> trace;
  s = runOrTune(setup, tune, *communicator, *exchange,
                o.tracePath.empty() ? nullptr : &trace);
  if (s.ok() && !o.tracePath.empty()) {
    std::string path = rankTracePath(o.tracePath, communicator->rank());
    std::string error = writeRunTrace(trace, traceTitle(o, plan), path);
    if (!error.empty())
      s = Status(collrt::ErrorCode::SystemError,
                 "rank " + std::to_string(communicator->rank()) +
                     ": --trace: " + error);
    else if (communicator->rank() == 0)
      std::printf("# trace: each rank's last run in %s (rank 0), ...\n",
                  path.c_str());
  }
  if (s.ok() || s.code() == collrt::ErrorCode::CheckFailed) {
    // Every run finished. The closing barrier: no process leaves while a
    // peer may still need its last messages.
    Status closed = communicator->finalize();
    if (!closed.ok())
      return fail(kExitFailed, closed.toString());
  } else {
    // This rank stops: the others' runs fail at once instead of waiting
    // for the watchdog.
    communicator->abort(s.message());
  }
  if (s.ok())
    return 0;
  // Each process reports its own failure; wrong elements are reported
  // (with the total) by rank 0 only.
  if (s.code() != collrt::ErrorCode::CheckFailed || communicator->rank() == 0)
    std::fprintf(stderr, "collc-run: %s\n", s.toString().c_str());
  return kExitFailed;
}

/// A process of a launcher's world under --backend cuda without --ranks:
/// its rank, GPU, bootstrap, and the header's and tuning file's words for
/// how the ranks reach each other.
struct GpuWorld {
  collrt::LaunchInfo launch;
  std::string who;
  int device = 0;
  std::unique_ptr<collrt::Bootstrap> bootstrap;
  /// "2 ranks as processes, one per GPU context, CUDA IPC between them
  /// (0: ...)".
  std::string description;
  /// The tuning file's "transport": cuda-ipc or cuda-host-memory (--p2p
  /// off), "+tcp"/"+ib" across hosts.
  std::string transport;
};

/// Joins the launcher's world on GPU LOCAL_RANK % devices. 0, or the exit
/// status after printing why not.
int joinGpuWorld(const Options &o, const collrt::Plan &plan, GpuWorld *w) {
  Status s = collrt::detectLaunch(lookupEnvironment, &w->launch);
  if (!s.ok())
    return fail(kExitBadInput,
                "--backend cuda without --ranks runs one rank per process "
                "under a launcher (mpirun, torchrun, Slurm), and this process "
                "cannot join one: " +
                    s.message() +
                    ". To run the plan's N ranks on one GPU in this process, "
                    "pass --ranks N");
  const collrt::LaunchInfo &launch = w->launch;
  w->who = "rank " + std::to_string(launch.rank);
  s = collrt::checkPlanWorld(plan, launch.worldSize);
  if (!s.ok())
    return fail(kExitBadInput, w->who + ": " + s.toString());
  int devices = 0;
  std::string gpu;
  s = collcgpu::deviceForLocalRank(launch.localRank, &w->device, &devices);
  if (s.ok())
    s = collcgpu::describeGpu(w->device, &gpu);
  if (!s.ok())
    return fail(kExitFailed, w->who + ": " + s.toString());
  s = collrt::createTcpBootstrap(
      launch, collrt::Deadline::after(o.timeoutSeconds), &w->bootstrap);
  if (!s.ok())
    return fail(kExitFailed, w->who + ": " + s.toString());
  std::fprintf(stderr,
               "collc-run: rank %d (local rank %d) uses GPU %d of %d: %s\n",
               launch.rank, launch.localRank, w->device, devices, gpu.c_str());
  // Which GPU every rank uses, for the header; ranks sharing one say so.
  std::vector<std::string> where;
  s = w->bootstrap->allGather(w->bootstrap->hosts()[size_t(launch.rank)] +
                                  " GPU " + std::to_string(w->device),
                              &where,
                              collrt::Deadline::after(o.timeoutSeconds));
  if (!s.ok())
    return fail(kExitFailed, w->who + ": " + s.toString());
  std::string placement, shared;
  for (size_t r = 0; r < where.size(); ++r) {
    placement += (r ? ", " : "") + std::to_string(r) + ": " + where[r];
    for (size_t q = 0; q < r && shared.empty(); ++q)
      if (where[q] == where[r])
        shared = "; ranks " + std::to_string(q) + " and " + std::to_string(r) +
                 " share " + where[r] +
                 " (their kernels take turns on it unless MPS runs: times "
                 "are not those of separate GPUs)";
  }
  std::vector<std::string> hosts = w->bootstrap->hosts();
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  // --p2p off: the ranks of a host meet in pinned host memory (their
  // arenas still travel as IPC handles, unused).
  std::string local = o.p2p == "off" ? "pinned host memory" : "CUDA IPC";
  std::string links =
      hosts.size() == 1
          ? local + " between them"
          : local + " between the processes of a host, " +
                (o.transportGiven ? o.transport : std::string("no network")) +
                " between the " + std::to_string(hosts.size()) + " hosts";
  w->description = std::to_string(launch.worldSize) +
                   " ranks as processes, one per GPU context, " + links + " (" +
                   placement + ")" + shared;
  w->transport = o.p2p == "off" ? "cuda-host-memory" : "cuda-ipc";
  if (hosts.size() > 1)
    w->transport +=
        "+" + (o.transportGiven ? o.transport : std::string("none"));
  return 0;
}

/// One size of collective `index` of `plan` (kernels in `kernelsPath`) on
/// this rank (collcgpu::runPlanOnRank), then every rank's result
/// exchanged: `slowest` the slowest rank's time per call in microseconds,
/// `wrong` every rank's wrong elements (this rank's, with examples, on
/// stderr). The first size also prints this rank's links and network.
Status runGpuSize(const Options &o, const collrt::Plan &plan, size_t index,
                  const std::string &kernelsPath, const GpuWorld &w,
                  const SizeCase &size, bool first, collcgpu::GpuRunResult *r,
                  double *slowest, int64_t *wrong) {
  const auto &collective = plan.collectives[index];
  collcgpu::GpuRunOptions g = gpuRunOptions(o, w.device);
  g.kernelFile = kernelsPath;
  g.count = collcgpu::countForBytes(collective, size.bytesPerRank);
  Status s = collcgpu::runPlanOnRank(plan, index, g, *w.bootstrap, r);
  if (!s.ok())
    return s;
  if (!r->network.empty() && first)
    std::fprintf(stderr,
                 "collc-run: %s: network connections to other hosts: %s\n",
                 w.who.c_str(), r->network.c_str());
  if (first)
    for (const std::string &line : r->links)
      std::fprintf(stderr, "collc-run: %s: link %s\n", w.who.c_str(),
                   line.c_str());
  if (r->wrong) {
    std::string text = "collc-run: " + w.who + ", " +
                       formatBytes(size.bytesPerRank) + ": " +
                       std::to_string(r->wrong) + " of " +
                       std::to_string(r->checked) + " elements wrong\n";
    for (const std::string &example : r->examples)
      text += "collc-run:   " + example + "\n";
    std::fputs(text.c_str(), stderr);
  }
  std::vector<std::string> all;
  s = w.bootstrap->allGather(collcgpu::encodeRankResult(*r), &all,
                             collrt::Deadline::after(o.timeoutSeconds));
  if (!s.ok())
    return withContext(s, w.who + ": exchanging the ranks' results");
  *slowest = 0;
  *wrong = 0;
  for (size_t q = 0; q < all.size(); ++q) {
    collcgpu::GpuRunResult peer;
    if (!collcgpu::decodeRankResult(all[q], &peer))
      return Status(collrt::ErrorCode::PlanMismatch,
                    w.who + ": rank " + std::to_string(q) +
                        " sent a result this collc-run cannot read: '" +
                        all[q] + "'");
    *slowest = std::max(*slowest, peer.microseconds);
    *wrong += peer.wrong;
  }
  return Status::success();
}

/// Rank 0's last words when elements were wrong (every rank exits 1).
int wrongElements(const GpuWorld &w, int64_t totalWrong, const char *over) {
  if (w.launch.rank == 0)
    fail(kExitFailed, collrt::Status(collrt::ErrorCode::CheckFailed,
                                     std::to_string(totalWrong) +
                                         " wrong elements over " + over)
                          .toString());
  return kExitFailed;
}

/// --backend cuda without --ranks: this process is one rank of a
/// launcher's world, on GPU LOCAL_RANK % devices; the processes meet over
/// the environment's TCP bootstrap, exchange their arenas (CUDA IPC) and
/// each runs its rank's blocks (collcgpu::runPlanOnRank); rank 0 prints
/// the rows (the slowest rank's time, every rank's wrong elements).
int runGpuProcess(const Options &o, const collrt::Plan &plan,
                  const RunSetup &setup) {
  const auto &collective = plan.collectives[o.collective];
  GpuWorld w;
  if (int code = joinGpuWorld(o, plan, &w))
    return code;
  if (w.launch.rank == 0)
    printHeader(o, plan, collective, w.description);
  int64_t totalWrong = 0;
  for (const SizeCase &size : setup.sizes) {
    collcgpu::GpuRunResult r;
    double slowest = 0;
    int64_t wrong = 0;
    Status s = runGpuSize(o, plan, o.collective, o.kernelsPath, w, size,
                          &size == &setup.sizes.front(), &r, &slowest, &wrong);
    if (!s.ok())
      return fail(kExitFailed,
                  formatBytes(size.bytesPerRank) + ": " + s.toString());
    totalWrong += wrong;
    if (w.launch.rank == 0) {
      printRow(stdout, collective, size.bytesPerRank, slowest * 1e-6,
               o.check ? wrong : -1);
      std::printf("#   rank 0's %s\n", collcgpu::describeLaunch(r).c_str());
      std::fflush(stdout);
    }
  }
  if (totalWrong)
    return wrongElements(w, totalWrong, "all ranks and sizes");
  return 0;
}

/// --backend cuda --tuning (without --ranks): as runGpuProcess, with every
/// candidate plan in turn at every size, --tuning-rounds rounds each (a
/// candidate's time: its best round's slowest rank), the kernels of
/// candidate c the c-th file of --kernels; rank 0 prints each size's
/// candidates, fastest first, and adds them to the tuning file (transport
/// cuda-ipc ..., device buffers). `combined` holds the candidates (Tune.h).
int tuneGpuProcess(const Options &o, const collrt::Plan &combined,
                   const RunSetup &setup, const TuneSetup &tune) {
  const size_t candidates = combined.collectives.size();
  std::vector<std::string> paths = {o.planPath};
  paths.insert(paths.end(), o.morePlans.begin(), o.morePlans.end());
  const std::vector<std::string> &kernels = o.kernelFiles; // one per plan
  // Each candidate runs from its own plan (its kernel is that plan's).
  std::vector<collrt::Plan> plans(candidates);
  for (size_t c = 0; c < candidates; ++c) {
    if (Status s = collrt::loadPlanFile(paths[c], &plans[c]); !s.ok())
      return fail(kExitBadInput, s.toString());
    std::ifstream file(kernels[c], std::ios::binary);
    if (!file)
      return fail(kExitBadInput,
                  "--kernels: '" + kernels[c] + "' (candidate " + paths[c] +
                      "): cannot open it: " + std::strerror(errno));
  }
  GpuWorld w;
  if (int code = joinGpuWorld(o, combined, &w))
    return code;
  if (w.launch.rank == 0)
    printHeader(o, combined, combined.collectives.front(), w.description);
  std::vector<std::vector<double>> best(setup.sizes.size(),
                                        std::vector<double>(candidates, -1));
  int64_t totalWrong = 0;
  for (size_t z = 0; z < setup.sizes.size(); ++z) {
    const SizeCase &size = setup.sizes[z];
    std::vector<int64_t> wrong(candidates, 0);
    // Rounds alternate the candidates (as the CPU's tuneRank).
    for (int round = 0; round < o.tuneRounds; ++round)
      for (size_t c = 0; c < candidates; ++c) {
        collcgpu::GpuRunResult r;
        double slowest = 0;
        int64_t bad = 0;
        Status s =
            runGpuSize(o, plans[c], o.collective, kernels[c], w, size,
                       z == 0 && round == 0 && c == 0, &r, &slowest, &bad);
        if (!s.ok())
          return fail(kExitFailed, formatBytes(size.bytesPerRank) +
                                       ": candidate " + std::to_string(c) +
                                       " (" +
                                       candidateLabel(combined.collectives[c]) +
                                       "): " + s.toString());
        wrong[c] += bad;
        double seconds = slowest * 1e-6;
        if (best[z][c] < 0 || seconds < best[z][c])
          best[z][c] = seconds;
      }
    for (int64_t bad : wrong)
      totalWrong += bad;
    if (w.launch.rank == 0)
      printTuningRows(setup, size, best[z], wrong);
  }
  if (totalWrong)
    return wrongElements(w, totalWrong, "all ranks, candidates and sizes");
  if (w.launch.rank != 0)
    return 0;
  if (Status s = saveTuning(setup, tune, best, w.transport, "device"); !s.ok())
    return fail(kExitFailed, s.toString());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseOptions(argc, argv, &o, &error)) {
    std::fprintf(stderr,
                 "collc-run: %s\n(collc-run --help lists the "
                 "options)\n",
                 error.c_str());
    return kExitBadInput;
  }
  if (o.help) {
    std::fputs(helpText(), stdout);
    return 0;
  }
  collrt::Plan plan;
  if (!o.tunePath.empty()) {
    // The candidates become one plan, candidate c its collective c.
    TuneSetup tune;
    Status s = combineCandidatePlans(o, &plan, &tune.fingerprints);
    if (s.ok())
      s = loadTuningTarget(o.tunePath, &tune.table);
    if (!s.ok())
      return fail(kExitBadInput, s.toString());
    tune.processes = o.ranks == 0;
    RunSetup setup;
    setup.plan = &plan;
    setup.index = 0;
    setup.options = &o;
    if (!chooseSizes(o, plan.collectives[0], &setup.sizes, &error))
      return fail(kExitBadInput, error);
    if (o.backend == "cuda")
      return tuneGpuProcess(o, plan, setup, tune);
    if (o.ranks > 0) {
      s = collrt::checkPlanWorld(plan, o.ranks);
      if (!s.ok())
        return fail(kExitBadInput, s.toString());
      return runThreads(o, plan, setup, &tune);
    }
    return runProcess(o, plan, setup, &tune);
  }
  Status s = collrt::loadPlanFile(o.planPath, &plan);
  if (!s.ok())
    return fail(kExitBadInput, s.toString());
  if (o.collective >= plan.collectives.size()) {
    std::string list;
    for (size_t i = 0; i < plan.collectives.size(); ++i)
      list +=
          "\n  " + std::to_string(i) + ": " +
          collc::sched::collectiveName(plan.collectives[i].program.collective) +
          " (" + plan.collectives[i].program.algorithm + ") at " +
          plan.collectives[i].location;
    return fail(kExitBadInput, "--collective " + std::to_string(o.collective) +
                                   ": " + o.planPath + " has " +
                                   std::to_string(plan.collectives.size()) +
                                   " collective(s):" + list);
  }
  RunSetup setup;
  setup.plan = &plan;
  setup.index = o.collective;
  setup.options = &o;
  if (!chooseSizes(o, plan.collectives[o.collective], &setup.sizes, &error))
    return fail(kExitBadInput, error);
  if (o.backend == "cuda" &&
      collrt::sendCountsAtRunTime(plan.collectives[o.collective]))
    return fail(kExitBadInput,
                "--backend cuda: collective " + std::to_string(o.collective) +
                    " is an all_to_all_v whose send counts are given at run "
                    "time, which the generated kernels do not take (they fix "
                    "the counts); run it with --backend cpu");
  if (o.backend == "cuda")
    return runGpu(o, plan, setup);
  if (o.ranks > 0) {
    s = collrt::checkPlanWorld(plan, o.ranks);
    if (!s.ok())
      return fail(kExitBadInput, s.toString());
    return runThreads(o, plan, setup, nullptr);
  }
  return runProcess(o, plan, setup, nullptr);
}
