//===- CodegenCheck.cpp - run generated kernels on the host emulation -----===//
//
// collc-codegen-check [--threads T] KERNELS.so PLAN:PREFIX...
//
// Loads a shared library of kernels that `collc --emit=cuda` generated and
// the host compiler built (COLLRT_DEVICE_EMULATION: Channel.h's host
// implementation), and runs every collective of every plan with the kernel
// collc named for it (PREFIX_k<index>_<algorithm>_<collective>) on the
// device emulator (runtime/device/Emulator.h): N ranks' blocks as host
// threads. Inputs are TestData's position-dependent values, outputs are
// poisoned first, and every output and input element of every rank is
// compared with the collective's definition (runtime/check), never with
// the schedule. Each kernel runs twice: 37 elements per rank with the
// default options (small messages take the low-latency protocol), and 333
// elements with 256-byte slots and no LL, so that chunks are cut into
// several tiles (all_to_all_v: its plan's send counts, both ways). Then
// twice more with the ranks alternating between two places: as if on two
// hosts (emulateAcrossHosts: every connection between them a network
// connection, moved by the proxies over TCP on loopback), and as if on two
// GPUs without a peer path (DeviceOptions::hostLinks: those connections
// in host memory). With --threads T every block runs as T host threads
// (DeviceOptions::emulatedThreads), so that what one thread of a block
// publishes after the others' stores needs the block's barrier, as on a
// GPU; then a fifth run moves 2000 elements per rank.
//
// Prints "PASS <kernel> ..." or "FAIL <kernel> ..." (with the first wrong
// elements or the emulator's error) per run, then a count; exits 1 if any
// run failed or a kernel is missing.
//
//===----------------------------------------------------------------------===//
#include "collrt/Plan.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"
#include "runtime/device/Emulator.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using collc::sched::Collective;

/// The kernel name collc gives plan collective `index` (CudaEmitter.h's
/// kernelName: characters outside [A-Za-z0-9_] of the algorithm become _).
std::string kernelName(const std::string &prefix, size_t index,
                       const collc::sched::Program &program) {
  std::string name = prefix + "_k" + std::to_string(index) + "_";
  for (char c : program.algorithm)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return name + "_" + collc::sched::collectiveName(program.collective);
}

enum class Placement { OneGpu, TwoHosts, HostMemory };

struct Config {
  int64_t count;
  size_t slotBytes;
  uint32_t llBytes;
  const char *label;
  Placement placement = Placement::OneGpu;
};

/// One run of a kernel; false on any failure (printed).
bool runOnce(const collrt::PlanCollective &entry, size_t index,
             collrt::dev::KernelFunction kernel, const std::string &name,
             const Config &config, uint64_t iteration, uint32_t threads) {
  const collc::sched::Program &program = entry.program;
  int32_t n = program.numRanks;
  bool isV = program.collective == Collective::AllToAllV;
  int64_t count = isV ? 0 : config.count;
  collrt::check::TestData data(program, entry.dtype, entry.reduction,
                               iteration);
  size_t size = collrt::dataTypeSize(entry.dtype);
  // 8-byte words: aligned for every element type.
  std::vector<std::vector<uint64_t>> in(n), out(n);
  std::vector<const void *> inputs(n);
  std::vector<void *> outputs(n);
  std::vector<int64_t> inElements(n), outElements(n);
  for (int32_t r = 0; r < n; ++r) {
    inElements[r] = collrt::check::referenceInputElements(program, r, count);
    outElements[r] = collrt::check::referenceOutputElements(program, r, count);
    in[r].assign((size_t(inElements[r]) * size + 7) / 8 + 1, 0);
    out[r].assign((size_t(outElements[r]) * size + 7) / 8 + 1, 0);
    data.fillInput(r, in[r].data(), inElements[r]);
    collrt::check::TestData::poison(entry.dtype, out[r].data(), outElements[r]);
    inputs[r] = in[r].data();
    outputs[r] = out[r].data();
  }
  collrt::dev::DeviceOptions options;
  options.slotBytes = config.slotBytes;
  options.llBytes = config.llBytes;
  options.timeoutSeconds = 60;
  options.emulatedThreads = threads;
  std::string what =
      name + " n=" + std::to_string(n) + " " +
      collrt::dataTypeName(entry.dtype) +
      (collrt::check::reduces(program.collective)
           ? std::string(" ") + collrt::reduceOpName(entry.reduction)
           : std::string()) +
      " k=" + std::to_string(program.chunksPerPart) + " " +
      (isV ? std::string("send_counts") : "count=" + std::to_string(count)) +
      " " + config.label +
      (threads > 1 ? ", " + std::to_string(threads) + " threads per block"
                   : std::string());
  std::vector<int32_t> hosts;
  for (int32_t r = 0; r < n; ++r)
    hosts.push_back(r % 2);
  if (config.placement == Placement::HostMemory)
    for (int32_t r = 0; r < n; ++r)
      for (int32_t p = r + 1; p < n; ++p)
        if (hosts[size_t(r)] != hosts[size_t(p)])
          options.hostLinks.emplace_back(r, p);
  collrt::Status status =
      config.placement == Placement::TwoHosts
          ? collrt::dev::emulateAcrossHosts(entry, index, kernel, count, inputs,
                                            outputs, hosts, options)
          : collrt::dev::emulate(entry, index, kernel, count, inputs, outputs,
                                 options);
  if (!status.ok()) {
    std::printf("FAIL %s: %s\n", what.c_str(), status.toString().c_str());
    return false;
  }
  int64_t checked = 0, wrong = 0;
  std::vector<collrt::check::ElementError> examples;
  for (int32_t r = 0; r < n; ++r) {
    collrt::check::CheckResult result =
        collrt::check::checkRank(data, r, count, in[r].data(), inElements[r],
                                 out[r].data(), outElements[r]);
    checked += result.checked;
    wrong += result.wrong;
    for (const auto &example : result.examples)
      if (examples.size() < 5)
        examples.push_back(example);
  }
  if (wrong || checked == 0) {
    std::printf("FAIL %s: %lld of %lld elements wrong\n", what.c_str(),
                (long long)wrong, (long long)checked);
    for (const auto &example : examples)
      std::printf("  %s\n", example.describe().c_str());
    return false;
  }
  std::printf("PASS %s (%lld elements)\n", what.c_str(), (long long)checked);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  uint32_t threads = 1;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--threads") {
    threads = uint32_t(std::atoi(argv[2]));
    first = 3;
  }
  if (argc < first + 2 || threads < 1 || threads > 64) {
    std::fprintf(stderr, "usage: collc-codegen-check [--threads T (1..64)] "
                         "KERNELS.so PLAN:PREFIX...\n");
    return 2;
  }
  const char *path = argv[first];
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "collc-codegen-check: cannot load '%s': %s\n", path,
                 dlerror());
    return 1;
  }
  std::vector<Config> configs = {
      {37, size_t(1) << 20, 16384, "default"},
      {333, 256, 0, "slot=256B"},
      {91, 512, 16384, "2 hosts", Placement::TwoHosts},
      {91, 512, 16384, "host memory", Placement::HostMemory},
  };
  if (threads > 1)
    configs.push_back({2000, size_t(1) << 20, 0, "2000 elements"});
  int runs = 0, failures = 0;
  for (int a = first + 1; a < argc; ++a) {
    std::string arg = argv[a];
    size_t colon = arg.rfind(':');
    if (colon == std::string::npos) {
      std::fprintf(stderr, "collc-codegen-check: '%s' is not PLAN:PREFIX\n",
                   arg.c_str());
      return 2;
    }
    std::string planPath = arg.substr(0, colon), prefix = arg.substr(colon + 1);
    collrt::Plan plan;
    if (collrt::Status s = collrt::loadPlanFile(planPath, &plan); !s.ok()) {
      std::printf("FAIL %s: %s\n", planPath.c_str(), s.toString().c_str());
      ++failures;
      continue;
    }
    for (size_t i = 0; i < plan.collectives.size(); ++i) {
      const collrt::PlanCollective &entry = plan.collectives[i];
      std::string name = kernelName(prefix, i, entry.program);
      auto kernel = reinterpret_cast<collrt::dev::KernelFunction>(
          dlsym(library, name.c_str()));
      if (!kernel) {
        std::printf("FAIL %s: no such kernel in %s (plan %s, collective %zu)\n",
                    name.c_str(), path, planPath.c_str(), i);
        ++failures;
        continue;
      }
      for (size_t c = 0; c < configs.size(); ++c) {
        ++runs;
        if (!runOnce(entry, i, kernel, name, configs[c], c + 1, threads))
          ++failures;
      }
    }
  }
  std::printf("codegen-check: %d runs, %d failed\n", runs, failures);
  return failures ? 1 : 0;
}
