//===- BenchScale.cpp - lowering + verification at 8 ... 4096 ranks -------===//
//
// collc-bench-scale: for every collective that has algorithms in the
// library, every algorithm and N = 8, 16, ..., 4096 ranks, builds a one-op
// coll module on a mesh [N/8, 8] ["node", "gpu"] of N/8 DGX H100 nodes,
// lowers it with that algorithm, expands the schedule and runs sched-verify
// (and optionally the simulator), and prints one table row per case: the
// time of each stage, the size of the schedule's IR, the instruction count
// and the peak resident memory.
//
// Every case runs in a child process (this binary re-executed with
// `--case COLLECTIVE ALGORITHM N`), so that each row's peak memory (VmHWM,
// which never goes down) is its own and a case that runs out of time or
// memory cannot take the rest of the table with it.
//
// See bench/README.md for what each column means.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/Topology.h"
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Simulate/Simulator.h"
#include "compiler/Verify/Verifier.h"
#include "dialects/Sched/Transforms/Expand.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/LowerCollectives.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sched = collc::sched;
namespace lowering = collc::lowering;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// CPU seconds this process has used (user + system). The case runs on
/// one thread, so this is its own work, whatever else loads the machine.
double cpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

/// A field of /proc/self/status in kB ("VmHWM", "VmRSS"); 0 if absent.
uint64_t procStatusKiB(const char *field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  size_t length = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, length, field) == 0 && line.size() > length &&
        line[length] == ':')
      return std::strtoull(line.c_str() + length + 1, nullptr, 10);
  return 0;
}

/// The collectives the benchmark knows how to build, in table order.
const char *const kCollectives[] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "all_to_all_v",
    "broadcast",  "reduce",     "scatter",        "gather"};

/// The one-op coll module of `collective` on N ranks, with `elements` f32
/// elements of message per rank (the input of all_reduce, all_to_all,
/// broadcast, reduce, reduce_scatter and scatter; the output of all_gather
/// and gather). `elements` is a multiple of N.
std::string buildModuleText(const std::string &collective, int64_t n,
                            int64_t elements) {
  int64_t part = elements / n;
  auto t = [](int64_t e) { return "tensor<" + std::to_string(e) + "xf32>"; };
  std::string in = t(elements), out = t(elements), op;
  if (collective == "all_reduce") {
    op = "coll.all_reduce %x on @world reduce = sum";
  } else if (collective == "all_gather") {
    in = t(part);
    op = "coll.all_gather %x on @world gather_axis = 0";
  } else if (collective == "reduce_scatter") {
    out = t(part);
    op = "coll.reduce_scatter %x on @world scatter_axis = 0 reduce = sum";
  } else if (collective == "all_to_all") {
    op = "coll.all_to_all %x on @world split_axis = 0 concat_axis = 0";
  } else if (collective == "all_to_all_v") {
    op = "coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<" +
         std::to_string(part) + "> : tensor<" + std::to_string(n) + "x" +
         std::to_string(n) + "xi64>";
  } else if (collective == "broadcast") {
    op = "coll.broadcast %x on @world root = 0";
  } else if (collective == "reduce") {
    op = "coll.reduce %x on @world root = 0 reduce = sum";
  } else if (collective == "scatter") {
    out = t(part);
    op = "coll.scatter %x on @world root = 0 scatter_axis = 0";
  } else if (collective == "gather") {
    in = t(part);
    op = "coll.gather %x on @world root = 0 gather_axis = 0";
  } else {
    return "";
  }
  std::ostringstream os;
  os << "coll.mesh @world shape = [" << n / 8 << ", 8] names = [\"node\", "
     << "\"gpu\"]\n"
     << "func.func @bench(%x: " << in << ") -> " << out << " {\n"
     << "  %r = " << op << " : " << in << " -> " << out << "\n"
     << "  return %r : " << out << "\n"
     << "}\n";
  return os.str();
}

/// The topology of N/8 DGX H100 nodes: topologies/dgx8x8.json with its node
/// count replaced, in the `{"count", "template"}` shorthand.
std::optional<std::string> topologyText(int64_t n, std::string &error) {
  std::string path = std::string(COLLC_BUNDLED_TOPOLOGIES_DIR) + "/dgx8x8.json";
  std::ifstream in(path);
  if (!in) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded() || !json.contains("node_templates") ||
      !json["node_templates"].contains("dgx-h100")) {
    error = path + " has no node template \"dgx-h100\"";
    return std::nullopt;
  }
  json["name"] = "dgx-h100-x" + std::to_string(n / 8);
  json["description"] = std::to_string(n / 8) +
                        " DGX H100 nodes on rails (collc-bench-scale, from "
                        "the node template of dgx8x8.json)";
  json["nodes"] = {{"count", n / 8}, {"template", "dgx-h100"}};
  return json.dump(2);
}

/// What one case measured; printed by the child as key=value pairs.
struct CaseResult {
  std::string error; ///< empty on success
  int64_t irOps = 0;
  uint64_t instructions = 0;
  uint64_t bufferChunks = 0; ///< input + output + scratch chunks, all ranks
  double setupMs = 0, lowerMs = 0, expandMs = 0, verifyMs = 0;
  /// CPU time of each stage.
  double lowerCpuMs = 0, expandCpuMs = 0, verifyCpuMs = 0;
  uint64_t baselineKiB = 0, peakKiB = 0;
  bool simulated = false;
  double simMs = 0, simCpuMs = 0, simSeconds = 0;
  uint64_t simPeakKiB = 0;
  std::string simError;
};

const char *const kResultTag = "@@RESULT";

/// The child: runs one case and prints one `@@RESULT` line.
int runCase(const std::string &collective, const std::string &algorithm,
            int64_t n, int64_t elements, unsigned chunks, bool simulate) {
  CaseResult r;
  auto finish = [&]() {
    std::cout << kResultTag;
    if (!r.error.empty()) {
      std::string e = r.error;
      for (char &c : e)
        if (c == '\n')
          c = ' ';
      std::cout << " error=" << e << "\n";
      return 0;
    }
    std::cout << " ir_ops=" << r.irOps << " instructions=" << r.instructions
              << " buffer_chunks=" << r.bufferChunks
              << " setup_ms=" << r.setupMs << " lower_ms=" << r.lowerMs
              << " expand_ms=" << r.expandMs << " verify_ms=" << r.verifyMs
              << " lower_cpu_ms=" << r.lowerCpuMs
              << " expand_cpu_ms=" << r.expandCpuMs
              << " verify_cpu_ms=" << r.verifyCpuMs
              << " baseline_kib=" << r.baselineKiB << " peak_kib=" << r.peakKiB;
    if (r.simulated) {
      if (!r.simError.empty())
        std::cout << " sim_error=1";
      std::cout << " sim_ms=" << r.simMs << " sim_cpu_ms=" << r.simCpuMs
                << " sim_s=" << r.simSeconds
                << " sim_peak_kib=" << r.simPeakKiB;
    }
    std::cout << "\n";
    std::cout.flush();
    return 0;
  };

  // ---- setup: topology, module, front end, algorithm library ----
  Clock::time_point start = Clock::now();
  std::string error;
  std::optional<std::string> text = topologyText(n, error);
  if (!text) {
    r.error = error;
    return finish();
  }
  collc::topo::LoadResult loaded = collc::topo::parseTopology(*text, "bench");
  if (!loaded.topology) {
    r.error = loaded.error;
    return finish();
  }
  const collc::topo::Topology &topology = *loaded.topology;

  mlir::DialectRegistry registry;
  collc::registerCollcDialects(registry);
  // Nothing here runs in parallel; no thread pool keeps the memory figures
  // about the schedule.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error &&
        diagnostics.empty())
      diagnostics = diag.str();
    return mlir::success();
  });
  auto failWith = [&](const std::string &what) {
    r.error = what + (diagnostics.empty() ? "" : ": " + diagnostics);
    return finish();
  };

  std::string moduleText = buildModuleText(collective, n, elements);
  if (moduleText.empty())
    return failWith("the benchmark cannot build a " + collective);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(moduleText, &context);
  if (!module)
    return failWith("the generated module does not parse");
  mlir::PassManager pm(&context);
  collc::buildCollcFrontendPipeline(pm);
  if (mlir::failed(pm.run(*module)))
    return failWith("the front end rejects the generated module");
  if (mlir::failed(collc::checkMeshesFitTopology(*module, topology, "bench")))
    return failWith("mesh and topology disagree");
  collc::attachTopology(*module, topology, "bench");
  lowering::AlgorithmLibrary library(&context);
  if (mlir::failed(library.loadBuiltins()))
    return failWith("the built-in algorithms do not load");
  r.setupMs = msSince(start);
  r.baselineKiB = procStatusKiB("VmRSS");

  // ---- lower ----
  double cpuStart = cpuSeconds();
  start = Clock::now();
  lowering::LoweringOptions options;
  options.algo = collective + "=" + algorithm;
  options.chunks = chunks;
  mlir::FailureOr<std::vector<lowering::LoweredCollective>> lowered =
      lowering::lowerCollectives(*module, library, options);
  r.lowerMs = msSince(start);
  r.lowerCpuMs = (cpuSeconds() - cpuStart) * 1000;
  if (mlir::failed(lowered))
    return failWith("n/a");
  if (lowered->size() != 1 || !(*lowered)[0].algorithm)
    return failWith("n/a: " + (lowered->empty() ? std::string("nothing lowered")
                                                : (*lowered)[0].whyNot));
  lowering::LoweredCollective &l = (*lowered)[0];
  l.schedule->walk([&](mlir::Operation *) { ++r.irOps; });

  // ---- expand ----
  cpuStart = cpuSeconds();
  start = Clock::now();
  mlir::FailureOr<sched::Program> program =
      sched::expandSchedule(l.schedule, l.expand);
  r.expandMs = msSince(start);
  r.expandCpuMs = (cpuSeconds() - cpuStart) * 1000;
  if (mlir::failed(program))
    return failWith("expansion failed");
  r.instructions = program->instructionCount();
  r.bufferChunks =
      uint64_t(program->numRanks) *
      (uint64_t(program->buffers.inputChunks) + program->buffers.outputChunks +
       program->buffers.scratchChunks);

  // ---- verify ----
  cpuStart = cpuSeconds();
  start = Clock::now();
  sched::VerifyResult verified = sched::verifyProgram(*program);
  r.verifyMs = msSince(start);
  r.verifyCpuMs = (cpuSeconds() - cpuStart) * 1000;
  r.peakKiB = procStatusKiB("VmHWM");
  if (!verified.ok())
    return failWith("sched-verify: " + verified.errors.front().message);

  // ---- simulate (optional) ----
  if (simulate) {
    r.simulated = true;
    collc::sim::SimOptions simOptions;
    simOptions.recordTimeline = false;
    simOptions.recordLinkLoad = false;
    std::vector<int> gpus(l.layout.meshRanks.begin(), l.layout.meshRanks.end());
    cpuStart = cpuSeconds();
    start = Clock::now();
    collc::sim::SimResult sim =
        collc::sim::simulate(*program, l.elementsPerRank, l.elementBytes,
                             topology, gpus, simOptions);
    r.simMs = msSince(start);
    r.simCpuMs = (cpuSeconds() - cpuStart) * 1000;
    r.simSeconds = sim.totalTime;
    r.simError = sim.error;
    r.simPeakKiB = procStatusKiB("VmHWM");
  }
  return finish();
}

// ----------------------------------------------------------------------------
// The parent: options, the case list, children, the table.
// ----------------------------------------------------------------------------

struct Options {
  std::vector<std::string> collectives; ///< empty: all
  std::vector<std::string> algorithms;  ///< empty: all
  int64_t minN = 8, maxN = 4096;
  double timeLimitS = 60;
  double killAfterS = 900;
  double memLimitGiB = 0; ///< 0: 3/4 of MemTotal, at most 16 GiB
  bool simulate = false;
  /// Stage columns in CPU time instead of wall time.
  bool cpuTime = false;
  int64_t simulateMaxN = 1024;
  int64_t bytes = int64_t(64) << 20;
  unsigned chunks = 0;
};

void usage(std::ostream &os) {
  os << "usage: collc-bench-scale [options]\n"
        "  --collective=A,B   only these collectives (all_reduce, all_gather,\n"
        "                     reduce_scatter, all_to_all, all_to_all_v,\n"
        "                     broadcast, reduce, scatter, gather)\n"
        "  --algorithm=A,B    only these algorithms (e.g. ring,direct)\n"
        "  --min-n=N          smallest group size (default 8)\n"
        "  --max-n=N          largest group size (default 4096)\n"
        "  --quick            --max-n=1024\n"
        "  --time-limit=S     once a case takes more than S seconds (CPU "
        "seconds\n"
        "                     with --cpu-time), skip the larger N of that\n"
        "                     algorithm (default 60)\n"
        "  --kill-after=S     kill a case that runs S seconds (default 900)\n"
        "  --mem-limit=GIB    address-space limit of each case (default: 3/4\n"
        "                     of the machine's memory, at most 16 GiB)\n"
        "  --simulate         also run the simulator, for N <= 1024\n"
        "  --cpu-time         stage columns in CPU time (the process's own\n"
        "                     work), wall time as the extra column; for a\n"
        "                     loaded machine\n"
        "  --simulate-max-n=N simulate up to this N (default 1024)\n"
        "  --bytes=B          message bytes per rank (default 64 MiB; f32)\n"
        "  --chunks=K         --chunks of the lowering (default 1)\n";
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      items.push_back(item);
  return items;
}

bool contains(const std::vector<std::string> &list, const std::string &item) {
  for (const std::string &s : list)
    if (s == item)
      return true;
  return false;
}

/// The (collective, algorithm) pairs of the library, in table order.
std::vector<std::pair<std::string, std::string>>
listAlgorithms(const Options &options) {
  mlir::DialectRegistry registry;
  collc::registerCollcDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  lowering::AlgorithmLibrary library(&context);
  if (mlir::failed(library.loadBuiltins())) {
    std::cerr << "collc-bench-scale: the built-in algorithms do not load\n";
    std::exit(1);
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const char *name : kCollectives) {
    if (!options.collectives.empty() && !contains(options.collectives, name))
      continue;
    std::optional<sched::Collective> c = lowering::collectiveFromName(name);
    if (!c)
      continue;
    for (const lowering::Algorithm *a : library.forCollective(*c))
      if (options.algorithms.empty() || contains(options.algorithms, a->name))
        pairs.emplace_back(name, a->name);
  }
  return pairs;
}

/// What the parent learned from one child.
struct ChildOutcome {
  std::map<std::string, std::string> fields; ///< of the @@RESULT line
  bool gotResult = false;
  std::string lastLine; ///< the last other line of output (an abort message)
  double wallS = 0;
  double cpuS = 0; ///< user + system time of the child
  bool killed = false;
  int status = 0;
};

std::string selfPath;

ChildOutcome runChild(const std::vector<std::string> &args,
                      const Options &options) {
  ChildOutcome outcome;
  int fds[2];
  if (pipe(fds) != 0) {
    outcome.lastLine = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(selfPath.c_str()));
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);

  rlim_t memLimit = static_cast<rlim_t>(options.memLimitGiB * (1 << 30));
  Clock::time_point start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    outcome.lastLine = std::string("fork: ") + std::strerror(errno);
    return outcome;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (memLimit > 0) {
      struct rlimit limit = {memLimit, memLimit};
      setrlimit(RLIMIT_AS, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string output;
  char buffer[4096];
  for (;;) {
    double left = options.killAfterS - msSince(start) / 1000.0;
    if (left <= 0) {
      kill(pid, SIGKILL);
      outcome.killed = true;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, static_cast<int>(std::min(left, 1.0) * 1000));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      continue;
    ssize_t got = read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    output.append(buffer, static_cast<size_t>(got));
  }
  close(fds[0]);
  struct rusage usage;
  std::memset(&usage, 0, sizeof usage);
  wait4(pid, &outcome.status, 0, &usage);
  outcome.wallS = msSince(start) / 1000.0;
  outcome.cpuS = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                 double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;

  std::stringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(kResultTag, 0) == 0) {
      outcome.gotResult = true;
      std::string rest = line.substr(std::strlen(kResultTag));
      // `error=` takes the rest of the line; other fields are one word.
      size_t errorAt = rest.find(" error=");
      if (errorAt != std::string::npos) {
        outcome.fields["error"] = rest.substr(errorAt + 7);
        continue;
      }
      std::stringstream words(rest);
      std::string word;
      while (words >> word) {
        size_t eq = word.find('=');
        if (eq != std::string::npos)
          outcome.fields[word.substr(0, eq)] = word.substr(eq + 1);
      }
    } else if (!line.empty()) {
      outcome.lastLine = line;
    }
  }
  return outcome;
}

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string formatSeconds(double s) {
  return s < 10 ? fixed(s, 1) + " s" : fixed(s, 0) + " s";
}

class Table {
public:
  Table(bool simulate, bool cpuTime) : simulate(simulate), cpuTime(cpuTime) {}

  void header() {
    std::string t = cpuTime ? " CPU ms" : " ms";
    std::vector<std::string> h = {"collective",
                                  "algorithm",
                                  "N",
                                  "IR ops",
                                  "instructions",
                                  "buffer chunks",
                                  "setup ms",
                                  "lower" + t,
                                  "expand" + t,
                                  "verify" + t,
                                  "total" + t,
                                  cpuTime ? "total wall ms" : "total CPU ms",
                                  "peak MiB",
                                  "delta MiB",
                                  "B/instr",
                                  "B/(instr+chunk)"};
    if (simulate) {
      h.push_back("sim" + t);
      h.push_back("sim peak MiB");
      h.push_back("simulated");
    }
    row(h);
    std::vector<std::string> rule;
    for (size_t i = 0; i < h.size(); ++i)
      rule.push_back(i < 2 ? ":--" : "--:");
    row(rule);
  }

  void row(const std::vector<std::string> &cells) {
    std::string line = "|";
    for (size_t i = 0; i < cells.size(); ++i)
      line += " " + cells[i] + " |";
    std::cout << line << "\n";
    std::cout.flush();
  }

  /// A row that says why a case has no numbers.
  void note(const std::string &collective, const std::string &algorithm,
            int64_t n, const std::string &text) {
    std::vector<std::string> cells = {collective, algorithm, std::to_string(n),
                                      text};
    size_t columns = simulate ? 19 : 16;
    while (cells.size() < columns)
      cells.push_back("");
    row(cells);
  }

  bool simulate;
  bool cpuTime;
};

double field(const ChildOutcome &o, const char *name) {
  auto it = o.fields.find(name);
  return it == o.fields.end() ? 0 : std::strtod(it->second.c_str(), nullptr);
}

std::string formatSimTime(double seconds) {
  if (seconds < 1e-3)
    return fixed(seconds * 1e6, 1) + " us";
  if (seconds < 1)
    return fixed(seconds * 1e3, 2) + " ms";
  return fixed(seconds, 3) + " s";
}

int runParent(const Options &options, const std::string &commandLine) {
  std::vector<std::pair<std::string, std::string>> pairs =
      listAlgorithms(options);
  if (pairs.empty()) {
    std::cerr << "collc-bench-scale: no algorithm matches the filters\n";
    return 1;
  }
  std::cout << "collc-bench-scale: lowering + verification at scale\n"
            << "command: " << commandLine << "\n"
            << "message: " << options.bytes << " bytes per rank (f32); "
            << "mesh [N/8, 8] [\"node\", \"gpu\"] on N/8 DGX H100 nodes "
               "(dgx8x8.json's node template, rail network)\n"
            << "chunks: " << (options.chunks ? options.chunks : 1)
            << " per algorithm unit; time limit " << options.timeLimitS
            << " s per case, kill after " << options.killAfterS
            << " s, address-space limit " << fixed(options.memLimitGiB, 1)
            << " GiB per case\n"
            << "times: " << (options.cpuTime ? "CPU time" : "wall time")
            << " of each stage (--cpu-time: CPU)\n"
            << "algorithms:";
  for (const auto &[c, a] : pairs)
    std::cout << " " << c << "/" << a;
  std::cout << "\n\n";

  Table table(options.simulate, options.cpuTime);
  table.header();
  int failures = 0;
  for (const auto &[collective, algorithm] : pairs) {
    std::string skipReason;
    for (int64_t n = 8; n <= options.maxN; n *= 2) {
      if (n < options.minN)
        continue;
      if (!skipReason.empty()) {
        table.note(collective, algorithm, n, skipReason);
        continue;
      }
      int64_t elements = options.bytes / 4;
      elements -= elements % n;
      if (elements <= 0)
        elements = n;
      bool simulate = options.simulate && n <= options.simulateMaxN;
      std::vector<std::string> args = {"--case",
                                       collective,
                                       algorithm,
                                       std::to_string(n),
                                       std::to_string(elements),
                                       std::to_string(options.chunks),
                                       simulate ? "1" : "0"};
      ChildOutcome o = runChild(args, options);
      // The time limit applies to the case's whole process: wall time, or
      // with --cpu-time its CPU time.
      double took = options.cpuTime ? o.cpuS : o.wallS;
      std::string tookText = "N=" + std::to_string(n) + " took " +
                             formatSeconds(took) +
                             (options.cpuTime ? " CPU" : "");
      if (o.killed) {
        table.note(collective, algorithm, n,
                   "killed after " + formatSeconds(o.wallS));
        skipReason = "skipped: " + tookText + " (killed)";
        ++failures;
        continue;
      }
      if (!o.gotResult || o.fields.count("error")) {
        std::string why;
        if (o.fields.count("error"))
          why = o.fields["error"];
        else if (WIFSIGNALED(o.status))
          why = std::string("died of signal ") + strsignal(WTERMSIG(o.status)) +
                (o.lastLine.empty() ? "" : ": " + o.lastLine);
        else
          why = "exit status " + std::to_string(WEXITSTATUS(o.status)) +
                (o.lastLine.empty() ? "" : ": " + o.lastLine);
        if (why.find("bad_alloc") != std::string::npos ||
            why.find("out of memory") != std::string::npos)
          why = "out of memory (limit " + fixed(options.memLimitGiB, 1) +
                " GiB): " + why;
        bool notApplicable = why.rfind("n/a", 0) == 0;
        if (!notApplicable)
          ++failures;
        table.note(collective, algorithm, n,
                   notApplicable ? why : "FAILED: " + why);
        if (!notApplicable && took > options.timeLimitS)
          skipReason = "skipped: " + tookText;
        continue;
      }
      const char *suffix = options.cpuTime ? "_cpu_ms" : "_ms";
      double lower = field(o, ("lower" + std::string(suffix)).c_str()),
             expand = field(o, ("expand" + std::string(suffix)).c_str()),
             verify = field(o, ("verify" + std::string(suffix)).c_str());
      double other = options.cpuTime
                         ? field(o, "lower_ms") + field(o, "expand_ms") +
                               field(o, "verify_ms")
                         : field(o, "lower_cpu_ms") +
                               field(o, "expand_cpu_ms") +
                               field(o, "verify_cpu_ms");
      double peakKiB = field(o, "peak_kib"), baseKiB = field(o, "baseline_kib");
      double instructions = field(o, "instructions");
      double chunks = field(o, "buffer_chunks");
      double deltaBytes = (peakKiB - baseKiB) * 1024;
      double bytesPerInstruction =
          instructions > 0 ? deltaBytes / instructions : 0;
      double bytesPerItem = deltaBytes / std::max(1.0, instructions + chunks);
      std::vector<std::string> cells = {collective,
                                        algorithm,
                                        std::to_string(n),
                                        o.fields["ir_ops"],
                                        o.fields["instructions"],
                                        o.fields["buffer_chunks"],
                                        fixed(field(o, "setup_ms"), 0),
                                        fixed(lower, 1),
                                        fixed(expand, 1),
                                        fixed(verify, 1),
                                        fixed(lower + expand + verify, 1),
                                        fixed(other, 1),
                                        fixed(peakKiB / 1024, 1),
                                        fixed((peakKiB - baseKiB) / 1024, 1),
                                        fixed(bytesPerInstruction, 0),
                                        fixed(bytesPerItem, 0)};
      if (options.simulate) {
        if (!o.fields.count("sim_ms")) {
          cells.insert(cells.end(), {"-", "-", "-"});
        } else {
          cells.push_back(
              fixed(field(o, options.cpuTime ? "sim_cpu_ms" : "sim_ms"), 1));
          cells.push_back(fixed(field(o, "sim_peak_kib") / 1024, 1));
          cells.push_back(o.fields.count("sim_error")
                              ? "stuck/error"
                              : formatSimTime(field(o, "sim_s")));
        }
      }
      table.row(cells);
      if (took > options.timeLimitS)
        skipReason = "skipped: " + tookText;
    }
  }
  if (failures)
    std::cout << "\n" << failures << " case(s) failed\n";
  return failures ? 1 : 0;
}

bool parseOption(const std::string &arg, const char *name, std::string &value) {
  std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0)
    return false;
  value = arg.substr(prefix.size());
  return true;
}

uint64_t memTotalKiB() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "MemTotal:")
      return value;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // Re-executing ourselves needs our own path, not argv[0]'s guess.
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  selfPath = length > 0 ? std::string(path, static_cast<size_t>(length))
                        : std::string(argv[0]);

  if (argc == 8 && std::string(argv[1]) == "--case")
    return runCase(argv[2], argv[3], std::atoll(argv[4]), std::atoll(argv[5]),
                   static_cast<unsigned>(std::atoi(argv[6])),
                   std::string(argv[7]) == "1");

  Options options;
  std::string commandLine = "collc-bench-scale";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    commandLine += " " + arg;
    if (arg == "--help" || arg == "-h") {
      usage(std::cout);
      return 0;
    } else if (arg == "--quick") {
      options.maxN = std::min<int64_t>(options.maxN, 1024);
    } else if (arg == "--simulate") {
      options.simulate = true;
    } else if (arg == "--cpu-time") {
      options.cpuTime = true;
    } else if (parseOption(arg, "collective", value)) {
      options.collectives = splitList(value);
    } else if (parseOption(arg, "algorithm", value)) {
      options.algorithms = splitList(value);
    } else if (parseOption(arg, "min-n", value)) {
      options.minN = std::atoll(value.c_str());
    } else if (parseOption(arg, "max-n", value)) {
      options.maxN = std::atoll(value.c_str());
    } else if (parseOption(arg, "time-limit", value)) {
      options.timeLimitS = std::atof(value.c_str());
    } else if (parseOption(arg, "kill-after", value)) {
      options.killAfterS = std::atof(value.c_str());
    } else if (parseOption(arg, "mem-limit", value)) {
      options.memLimitGiB = std::atof(value.c_str());
    } else if (parseOption(arg, "simulate-max-n", value)) {
      options.simulateMaxN = std::atoll(value.c_str());
    } else if (parseOption(arg, "bytes", value)) {
      options.bytes = std::atoll(value.c_str());
    } else if (parseOption(arg, "chunks", value)) {
      options.chunks = static_cast<unsigned>(std::atoi(value.c_str()));
    } else {
      std::cerr << "collc-bench-scale: unknown option '" << arg << "'\n";
      usage(std::cerr);
      return 2;
    }
  }
  for (const std::string &c : options.collectives)
    if (!contains(std::vector<std::string>(std::begin(kCollectives),
                                           std::end(kCollectives)),
                  c)) {
      std::cerr << "collc-bench-scale: unknown collective '" << c << "'\n";
      return 2;
    }
  if (options.maxN < 8 || options.bytes < 4) {
    std::cerr << "collc-bench-scale: --max-n must be at least 8 and --bytes "
                 "at least 4\n";
    return 2;
  }
  if (options.memLimitGiB <= 0) {
    double total = memTotalKiB() / double(1 << 20);
    options.memLimitGiB = std::min(16.0, total > 0 ? total * 0.75 : 16.0);
  }
  return runParent(options, commandLine);
}
