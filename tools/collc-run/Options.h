//===- Options.h - collc-run's command line --------------------*- C++ -*-===//
#ifndef COLLC_TOOLS_COLLC_RUN_OPTIONS_H
#define COLLC_TOOLS_COLLC_RUN_OPTIONS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collcrun {

/// Defaults are those of docs/collc-run.md; the header collc-run prints
/// shows every value in effect.
struct Options {
  std::string planPath;
  /// --tuning FILE: measure the plans (planPath and morePlans, each one
  /// candidate schedule of the same collective) and record the fastest per
  /// size in FILE ("" = no tuning).
  std::string tunePath;
  std::vector<std::string> morePlans;
  /// --tuning-rounds: rounds of every candidate per size (best kept).
  int tuneRounds = 3;
  /// The plan's collective to run (its index in "collectives").
  size_t collective = 0;
  /// Ranks as threads of this process (--ranks); 0: one process per rank
  /// under a launcher.
  int32_t ranks = 0;
  /// --bytes: sizes per rank, MIN, MIN*factor, ... <= MAX; empty: the
  /// plan's elements_per_rank.
  bool bytesGiven = false;
  int64_t minBytes = 0, maxBytes = 0, factor = 2;
  /// --counts: an all_to_all_v whose plan leaves its send counts to run
  /// time runs with counts drawn at random (countsFile empty; every rank's
  /// row sums to its --bytes) or read from countsFile (a JSON N x N array).
  bool countsGiven = false;
  uint64_t countsSeed = 1;
  std::string countsFile;
  bool check = false;
  int iters = 20;
  int warmup = 5;
  double timeoutSeconds = 60;
  std::string transport = "auto";
  bool transportGiven = false;
  /// --ib-device and --topology (the ib transport's NIC choice; "" = not
  /// given).
  std::string ibDevice;
  std::string topologyFile;
  size_t slotBytes = size_t(1) << 20;
  /// --buffers: where the send and receive buffers come from: "malloc"
  /// (the C++ heap) or "host" (collrt::allocateHostBuffer, which the shm
  /// transport's receivers map and copy with memcpy).
  std::string buffers = "malloc";
  /// --p2p auto|off (cuda): off sends every message between ranks of one
  /// host through pinned host memory.
  std::string p2p = "auto";
  bool p2pGiven = false;
  /// --gpu-direct (cuda, --transport ib): network slots in GPU memory.
  bool gpuDirect = false;
  /// --gpu-memory-registration auto|dma-buf|peermem (with --gpu-direct):
  /// how the GPU memory is registered with the NIC
  /// (collrt::dev::GpuMemoryRegistration).
  std::string gpuMemoryRegistration = "auto";
  bool gpuMemoryRegistrationGiven = false;
  /// --proxy-polling sleep|launch (cuda): how the device proxies of network
  /// connections wait (collrt::dev::ProxyPolling).
  std::string proxyPolling = "sleep";
  bool proxyPollingGiven = false;
  /// --channel-threads: CommOptions::channelThreads (0 = automatic).
  int32_t channelThreads = 0;
  /// --trace FILE: the last run as a Chrome trace ("" = none).
  std::string tracePath;
  /// --backend: "cpu" (libcollrt's CPU executor) or "cuda" (the generated
  /// kernels of --kernels on the N ranks of one GPU, --ranks N).
  std::string backend = "cpu";
  /// --kernels: the fatbin, cubin or PTX `collc --emit=fatbin` wrote for
  /// the same program (--backend cuda only).
  std::string kernelsPath;
  /// --backend cuda --tuning: kernelsPath split at its commas, one file per
  /// candidate plan (planPath, then morePlans).
  std::vector<std::string> kernelFiles;
  /// --devices: cuda with --ranks: the CUDA devices of this process's
  /// launches (rank r on devices[r % size]); empty: GPU 0.
  std::vector<int32_t> devices;
  bool help = false;
};

/// Parses argv; false with `error` (one line naming the argument) on any
/// bad argument.
bool parseOptions(int argc, char **argv, Options *options, std::string *error);

/// The --help text.
const char *helpText();

/// A byte size as collc writes it: 8, 64K, 1MiB, 8G (powers of 1024); false
/// with `error` otherwise.
bool parseByteSize(const std::string &text, int64_t *bytes, std::string *error);

/// "4 KiB", "1 MiB", "1536 B".
std::string formatBytes(int64_t bytes);

} // namespace collcrun

#endif
