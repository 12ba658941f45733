//===- Options.cpp - collc-run's command line -----------------------------===//
#include "tools/collc-run/Options.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

namespace collcrun {

namespace {

/// Largest size per rank collc-run accepts (what one rank's input may be).
constexpr int64_t kMaxBytesPerRank = int64_t(1) << 40;

bool parseInteger(const std::string &text, int64_t min, int64_t max,
                  int64_t *value) {
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-'))
    return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end || v < min || v > max)
    return false;
  *value = v;
  return true;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parseBytesRange(const std::string &text, Options *o, std::string *error) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  if (parts.size() > 3) {
    *error = "--bytes '" + text +
             "' has too many ':'; write SIZE or MIN:MAX[:FACTOR]";
    return false;
  }
  if (!parseByteSize(parts[0], &o->minBytes, error) ||
      (parts.size() >= 2 && !parseByteSize(parts[1], &o->maxBytes, error))) {
    *error = "--bytes " + *error;
    return false;
  }
  if (parts.size() == 1)
    o->maxBytes = o->minBytes;
  if (o->maxBytes < o->minBytes) {
    *error = "--bytes '" + text + "': the range ends (" +
             formatBytes(o->maxBytes) + ") below where it starts (" +
             formatBytes(o->minBytes) + ")";
    return false;
  }
  if (parts.size() == 3 && !parseInteger(parts[2], 2, 1024, &o->factor)) {
    *error = "--bytes '" + text + "': the factor '" + parts[2] +
             "' must be a whole number from 2 to 1024";
    return false;
  }
  o->bytesGiven = true;
  return true;
}

} // namespace

bool parseByteSize(const std::string &text, int64_t *bytes,
                   std::string *error) {
  size_t digits = 0;
  while (digits < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  if (digits == 0) {
    *error = "'" + text +
             "' is not a size: expected a whole number of bytes with an "
             "optional unit (8, 64K, 1MiB, 8G)";
    return false;
  }
  std::string unit = lower(text.substr(digits));
  if (!unit.empty() && (unit[0] == '.' || unit[0] == ',')) {
    *error = "'" + text +
             "' is not a whole number of bytes (write 1536K, "
             "not 1.5M)";
    return false;
  }
  int shift;
  if (unit.empty() || unit == "b")
    shift = 0;
  else if (unit == "k" || unit == "kib")
    shift = 10;
  else if (unit == "m" || unit == "mib")
    shift = 20;
  else if (unit == "g" || unit == "gib")
    shift = 30;
  else {
    *error = "'" + text + "': unknown unit '" + text.substr(digits) +
             "'; use B, K or KiB, M or MiB, G or GiB (powers of 1024)";
    return false;
  }
  int64_t value = 0;
  if (!parseInteger(text.substr(0, digits), 0, kMaxBytesPerRank, &value) ||
      (value << shift) > kMaxBytesPerRank) {
    *error = "'" + text + "' is too large: at most " +
             formatBytes(kMaxBytesPerRank) + " per rank";
    return false;
  }
  if (value == 0) {
    *error = "'" + text + "': the size must be at least 1 byte";
    return false;
  }
  *bytes = value << shift;
  return true;
}

std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  int64_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

const char *helpText() {
  return R"(USAGE: collc-run PLAN.plan.json [options]
       collc-run PLAN.plan.json MORE.plan.json ... --tuning FILE [options]

Runs collective I of a plan written by `collc --emit=plan` on real buffers
and prints a row per size as nccl-tests does (docs/collc-run.md).

  --ranks N             run N ranks as threads of this process (in-process
                        transport); without it, collc-run is one rank of a
                        multi-process world started by a launcher: mpirun,
                        torchrun, srun, or COLLC_RANK/COLLC_WORLD_SIZE plus
                        COLLC_MASTER_ADDR/COLLC_MASTER_PORT (or MASTER_ADDR/
                        MASTER_PORT)
  --collective I        the plan's collective to run (default 0)
  --bytes SIZE|MIN:MAX[:FACTOR]
                        bytes of each rank's input buffer (8, 64K, 1MiB, 8G:
                        powers of 1024); a range runs MIN, MIN*FACTOR, ...
                        up to MAX (FACTOR 2 by default). Default: the plan's
                        elements_per_rank
  --check               fill inputs with position-dependent data, poison the
                        outputs, and compare every element of every iteration
                        with an independent reference
  --iters N             timed iterations per size (default 20)
  --warmup N            untimed iterations before them (default 5)
  --timeout SECONDS     the watchdog: a run (or the set-up) that takes longer
                        fails with a report of what every channel waits for
                        (default 60)
  --transport auto|shm|tcp|ib
                        between processes: shared memory (one host), TCP,
                        RDMA over ibverbs, or auto (shm when every rank is on
                        one host, else tcp; never ib; default)
  --ib-device NAME      ib: the RDMA device (mlx5_0) or device and port
                        (mlx5_0:1) of every rank; default: by --topology's
                        GPU-NIC affinity, else the local rank modulo the
                        active ports
  --topology FILE       ib: a topology file (collc --topo) whose GPU-NIC
                        affinity picks each rank's NIC (the rank's GPU is
                        its world rank); cuda with --devices: its paths
                        between GPUs decide which pairs exchange messages
                        through host memory (through a CPU) and which by
                        peer access (CUDA device d is GPU d of node 0)
  --slot-bytes N        the largest message a connection slot holds; chunks
                        are cut into tiles that fit (default 1MiB)
  --buffers malloc|host cpu: where each rank's send and receive buffers come
                        from: the C++ heap (default), or
                        collrt::allocateHostBuffer, whose pages the other
                        processes of the host map, so that the shm
                        transport's receivers copy them with memcpy instead
                        of process_vm_readv
  --channel-threads N   cpu: threads that run a rank's channels, several
                        channels of one thread as fibers (default 0: the
                        cores shared out among the ranks of the host)
  --counts random[:SEED]|FILE
                        an all_to_all_v whose plan gives its send counts at
                        run time: counts drawn at random, every rank sending
                        its --bytes split at random among the ranks (seed
                        SEED, default random:1), or read from FILE, a JSON
                        N x N array of element counts, row-major by sender
  --trace FILE          cpu: write the last run (of the last size) as a
                        Chrome trace, a process per rank and a thread per
                        channel (ranks as processes: each rank its own
                        FILE with .rankR before .json)
  --backend cpu|cuda    cpu: libcollrt's CPU executor (default); cuda: the
                        kernels of --kernels with the N ranks of --ranks N on
                        one GPU (each rank its own buffers, every rank's
                        blocks in one launch), or without --ranks one rank
                        per process under a launcher, on GPU LOCAL_RANK %
                        devices, CUDA IPC between the processes of a host
                        and, between hosts, the network of --transport tcp
                        or ib (moved by a proxy thread per process)
  --kernels FILE        cuda: the fatbin, cubin or PTX that collc
                        --emit=fatbin wrote for the same program (required;
                        with --tuning a comma-separated list, one per
                        candidate plan, in the same order)
  --devices LIST        cuda with --ranks: the CUDA devices of this process,
                        e.g. 0,1 (rank r on devices[r % count], one launch
                        per entry, peer access between them; an entry may
                        repeat: 0,0 is two launches on GPU 0); default 0
  --gpu-direct          cuda with --transport ib: the network connections'
                        slots in GPU memory, which the NIC reads and writes
                        (GPUDirect RDMA: nvidia-peermem or dma-buf), instead
                        of pinned host memory
  --gpu-memory-registration auto|dma-buf|peermem
                        with --gpu-direct: how the GPU memory is registered
                        with the NIC: dma-buf (the driver exports it,
                        ibv_reg_dmabuf_mr; CUDA 11.7+), peermem (ibv_reg_mr
                        of the GPU address; the nvidia-peermem module), or
                        auto (default): dma-buf where the driver, GPU and
                        libibverbs support it, else peermem; each rank says
                        which it used, and why, on stderr
  --proxy-polling sleep|launch
                        cuda, ranks across hosts: how the device proxy that
                        moves network messages waits: sleep (default) backs
                        off to sleeps of up to 100 us while nothing moves;
                        launch also wakes it at each launch and polls every
                        10 us until that launch's messages have moved
  --p2p auto|off        cuda: how ranks of one host exchange messages: by
                        peer access or CUDA IPC where their GPUs have a
                        peer-to-peer path (auto: by --topology's paths, else
                        the driver's answer), or always through pinned host
                        memory (off)
  --tuning FILE         measure several candidate plans of one collective
                        (collc-run A.plan.json B.plan.json ... --tuning
                        FILE): at every size of --bytes, --tuning-rounds
                        rounds run every plan in turn; the candidates,
                        fastest first, go into FILE (added to what it
                        holds), which collc --tuning FILE applies
                        (docs/tuning.md); with --backend cuda one rank per
                        process, as a plain cuda run without --ranks
  --tuning-rounds R     rounds per size with --tuning; each candidate's best
                        round counts (default 3)
  --help                this text

Exit status: 0 when every run succeeded (and, with --check, every element was
right); 1 on a wrong element or a failed run (its message says why); 2 on a
bad argument or plan.
)";
}

bool parseOptions(int argc, char **argv, Options *o, std::string *error) {
  auto value = [&](int &i, const std::string &name, std::string *out) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      *out = arg.substr(eq + 1);
      return true;
    }
    if (i + 1 >= argc) {
      *error = name + " needs a value";
      return false;
    }
    *out = argv[++i];
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg.substr(0, arg.find('='));
    std::string v;
    int64_t n = 0;
    if (arg == "--help" || arg == "-h") {
      o->help = true;
      return true;
    }
    if (arg == "--check") {
      o->check = true;
    } else if (name == "--ranks") {
      if (!value(i, name, &v))
        return false;
      if (!parseInteger(v, 1, 4096, &n)) {
        *error = "--ranks '" + v + "' must be a whole number from 1 to 4096";
        return false;
      }
      o->ranks = static_cast<int32_t>(n);
    } else if (name == "--collective") {
      if (!value(i, name, &v))
        return false;
      if (!parseInteger(v, 0, 1 << 30, &n)) {
        *error = "--collective '" + v +
                 "' must be the index of one of the plan's collectives (0, "
                 "1, ...)";
        return false;
      }
      o->collective = static_cast<size_t>(n);
    } else if (name == "--bytes") {
      if (!value(i, name, &v) || !parseBytesRange(v, o, error))
        return false;
    } else if (name == "--iters" || name == "--warmup") {
      if (!value(i, name, &v))
        return false;
      if (!parseInteger(v, name == "--iters" ? 1 : 0, 1000000000, &n)) {
        *error = name + " '" + v + "' must be a whole number from " +
                 (name == "--iters" ? "1" : "0") + " to 1000000000";
        return false;
      }
      (name == "--iters" ? o->iters : o->warmup) = static_cast<int>(n);
    } else if (name == "--timeout") {
      if (!value(i, name, &v))
        return false;
      char *end = nullptr;
      errno = 0;
      double t = std::strtod(v.c_str(), &end);
      if (v.empty() || errno || *end || !std::isfinite(t) || t <= 0 ||
          t > 86400) {
        *error = "--timeout '" + v +
                 "' must be a number of seconds above 0 and at most 86400";
        return false;
      }
      o->timeoutSeconds = t;
    } else if (name == "--transport") {
      if (!value(i, name, &v))
        return false;
      if (v != "auto" && v != "shm" && v != "tcp" && v != "ib") {
        *error = "--transport '" + v + "' must be auto, shm, tcp or ib";
        return false;
      }
      o->transport = v;
      o->transportGiven = true;
    } else if (name == "--ib-device" || name == "--topology") {
      if (!value(i, name, &v))
        return false;
      if (v.empty()) {
        *error = name + " needs a non-empty value";
        return false;
      }
      (name == "--ib-device" ? o->ibDevice : o->topologyFile) = v;
    } else if (name == "--slot-bytes") {
      if (!value(i, name, &v))
        return false;
      int64_t bytes = 0;
      if (!parseByteSize(v, &bytes, error)) {
        *error = "--slot-bytes " + *error;
        return false;
      }
      o->slotBytes = static_cast<size_t>(bytes);
    } else if (arg == "--gpu-direct") {
      o->gpuDirect = true;
    } else if (name == "--gpu-memory-registration") {
      if (!value(i, name, &v))
        return false;
      if (v != "auto" && v != "dma-buf" && v != "peermem") {
        *error = "--gpu-memory-registration '" + v +
                 "' must be auto, dma-buf or peermem";
        return false;
      }
      o->gpuMemoryRegistration = v;
      o->gpuMemoryRegistrationGiven = true;
    } else if (name == "--proxy-polling") {
      if (!value(i, name, &v))
        return false;
      if (v != "sleep" && v != "launch") {
        *error = "--proxy-polling '" + v + "' must be sleep or launch";
        return false;
      }
      o->proxyPolling = v;
      o->proxyPollingGiven = true;
    } else if (name == "--p2p") {
      if (!value(i, name, &v))
        return false;
      if (v != "auto" && v != "off") {
        *error = "--p2p '" + v + "' must be auto or off";
        return false;
      }
      o->p2p = v;
      o->p2pGiven = true;
    } else if (name == "--buffers") {
      if (!value(i, name, &v))
        return false;
      if (v != "malloc" && v != "host") {
        *error = "--buffers '" + v + "' must be malloc or host";
        return false;
      }
      o->buffers = v;
    } else if (name == "--counts") {
      if (!value(i, name, &v))
        return false;
      o->countsGiven = true;
      if (v == "random" || v.rfind("random:", 0) == 0) {
        std::string seed = v == "random" ? "1" : v.substr(7);
        int64_t parsed = 0;
        if (!parseInteger(seed, 0, std::numeric_limits<int64_t>::max(),
                          &parsed)) {
          *error = "--counts '" + v +
                   "': the seed of random:SEED must be a whole number >= 0";
          return false;
        }
        o->countsSeed = uint64_t(parsed);
        o->countsFile.clear();
      } else if (v.empty()) {
        *error = "--counts needs random, random:SEED or a file name";
        return false;
      } else {
        o->countsFile = v;
      }
    } else if (name == "--trace") {
      if (!value(i, name, &v))
        return false;
      if (v.empty()) {
        *error = "--trace needs a file name";
        return false;
      }
      o->tracePath = v;
    } else if (name == "--tuning") {
      if (!value(i, name, &v))
        return false;
      if (v.empty()) {
        *error = "--tuning needs a file name";
        return false;
      }
      o->tunePath = v;
    } else if (name == "--tuning-rounds") {
      if (!value(i, name, &v))
        return false;
      if (!parseInteger(v, 1, 1000, &n)) {
        *error =
            "--tuning-rounds '" + v + "' must be a whole number from 1 to 1000";
        return false;
      }
      o->tuneRounds = static_cast<int>(n);
    } else if (name == "--channel-threads") {
      if (!value(i, name, &v))
        return false;
      if (!parseInteger(v, 0, 1024, &n)) {
        *error = "--channel-threads '" + v +
                 "' must be a whole number from 0 (automatic) to 1024";
        return false;
      }
      o->channelThreads = static_cast<int32_t>(n);
    } else if (name == "--backend") {
      if (!value(i, name, &v))
        return false;
      if (v != "cpu" && v != "cuda") {
        *error = "--backend '" + v + "' must be cpu or cuda";
        return false;
      }
      o->backend = v;
    } else if (name == "--devices") {
      if (!value(i, name, &v))
        return false;
      o->devices.clear();
      size_t start = 0;
      for (;;) {
        size_t comma = v.find(',', start);
        std::string item =
            v.substr(start, comma == std::string::npos ? std::string::npos
                                                       : comma - start);
        if (!parseInteger(item, 0, 1023, &n)) {
          *error = "--devices '" + v +
                   "' must be CUDA device ordinals from 0 to 1023 separated "
                   "by commas, e.g. 0,1";
          return false;
        }
        o->devices.push_back(static_cast<int32_t>(n));
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (name == "--kernels") {
      if (!value(i, name, &v))
        return false;
      if (v.empty()) {
        *error = name + " needs a non-empty value";
        return false;
      }
      o->kernelsPath = v;
    } else if (!arg.empty() && arg[0] == '-') {
      *error = "unknown option '" + arg + "'";
      return false;
    } else if (o->planPath.empty()) {
      o->planPath = arg;
    } else {
      o->morePlans.push_back(arg);
    }
  }
  if (!o->morePlans.empty() && o->tunePath.empty()) {
    *error = "more than one plan given ('" + o->planPath + "' and '" +
             o->morePlans.front() +
             "'); collc-run runs one plan, or measures several candidate "
             "plans of one collective with --tuning FILE";
    return false;
  }
  if (!o->tunePath.empty()) {
    // What tuning does not do is refused rather than ignored.
    for (const auto &[option, given] :
         {std::make_pair("--trace", !o->tracePath.empty()),
          std::make_pair("--counts", o->countsGiven)})
      if (given) {
        *error = std::string(option) +
                 " does not go with --tuning, which measures plans at every "
                 "size of --bytes (all_to_all_v, whose time depends on its "
                 "counts, is not tuned)";
        return false;
      }
    if (o->backend == "cuda" && o->ranks > 0) {
      *error = "--backend cuda --tuning measures the candidates as they are "
               "deployed, one rank per process on its GPU under a launcher "
               "(mpirun, torchrun, Slurm): drop --ranks (N ranks sharing one "
               "GPU are not tuned)";
      return false;
    }
    if (o->backend == "cuda" && !o->kernelsPath.empty()) {
      for (size_t at = 0;;) {
        size_t comma = o->kernelsPath.find(',', at);
        o->kernelFiles.push_back(o->kernelsPath.substr(at, comma - at));
        if (comma == std::string::npos)
          break;
        at = comma + 1;
      }
      size_t files = o->kernelFiles.size(), plans = 1 + o->morePlans.size();
      if (files != plans) {
        *error = "--backend cuda --tuning: --kernels names " +
                 std::to_string(files) + " kernel file(s) for " +
                 std::to_string(plans) +
                 " candidate plans: one per plan, comma-separated, in the "
                 "plans' order (collc --emit=fatbin with each plan's options)";
        return false;
      }
    }
  }
  if (o->planPath.empty()) {
    *error = "no plan given: collc-run PLAN.plan.json [options] (write one "
             "with collc --emit=plan -o PLAN.plan.json)";
    return false;
  }
  if (o->backend == "cuda" && !o->tracePath.empty()) {
    *error = "--trace applies to --backend cpu (the CPU executor's "
             "instructions); --backend cuda reports its launches' times";
    return false;
  }
  if (o->backend == "cuda" && o->buffers != "malloc") {
    *error = "--buffers applies to --backend cpu (host memory); --backend "
             "cuda allocates each rank's buffers on its GPU";
    return false;
  }
  if (o->backend == "cuda" && o->channelThreads != 0) {
    *error = "--channel-threads applies to --backend cpu (the threads that "
             "run the CPU executor's channels); --backend cuda runs every "
             "channel as a thread block";
    return false;
  }
  if (o->backend == "cuda") {
    // What does not apply to the generated kernels is refused rather than
    // ignored.
    if (o->transportGiven && o->transport != "tcp" && o->transport != "ib") {
      *error = "--transport " + o->transport +
               " does not apply to --backend cuda: its ranks exchange "
               "messages through GPU memory on one host (CUDA IPC, peer "
               "access); --transport tcp or ib names the network for ranks "
               "on different hosts";
      return false;
    }
    if (o->transportGiven && o->ranks > 0) {
      *error = "--transport " + o->transport +
               " with --backend cuda is the network between processes on "
               "different hosts; --ranks runs every rank in this process";
      return false;
    }
    if (!o->devices.empty() && o->ranks == 0) {
      *error = "--devices needs --ranks N (this process runs the N ranks on "
               "those GPUs); without --ranks each process of a launcher "
               "runs one rank on GPU LOCAL_RANK % devices";
      return false;
    }
    if (o->devices.size() > size_t(o->ranks)) {
      *error = "--devices lists " + std::to_string(o->devices.size()) +
               " devices for --ranks " + std::to_string(o->ranks) +
               ": every device needs a rank (rank r runs on devices[r % " +
               std::to_string(o->devices.size()) + "])";
      return false;
    }
    if (o->kernelsPath.empty()) {
      *error = "--backend cuda needs --kernels FILE: the fatbin that collc "
               "--emit=fatbin -o FILE writes for the same program (the "
               "options that wrote the plan)";
      return false;
    }
  } else if (!o->kernelsPath.empty()) {
    *error = "--kernels applies to --backend cuda (the CPU executor runs the "
             "plan's schedule itself)";
    return false;
  } else if (!o->devices.empty()) {
    *error = "--devices applies to --backend cuda (the GPUs that run the "
             "ranks' kernels)";
    return false;
  }
  if (o->ranks > 0 && o->transportGiven) {
    *error = "--transport applies between processes; --ranks runs the ranks "
             "as threads of one process over the in-process transport";
    return false;
  }
  if (o->gpuDirect && (o->backend != "cuda" || o->transport != "ib")) {
    *error = "--gpu-direct puts the slots of network connections in GPU "
             "memory, which only the ib transport's NIC reads and writes: it "
             "needs --backend cuda and --transport ib";
    return false;
  }
  if (o->gpuMemoryRegistrationGiven && !o->gpuDirect) {
    *error = "--gpu-memory-registration chooses how --gpu-direct registers "
             "GPU memory with the NIC (dma-buf or nvidia-peermem); it needs "
             "--gpu-direct";
    return false;
  }
  if (o->proxyPollingGiven && o->backend != "cuda") {
    *error = "--proxy-polling sets how the CUDA backend's device proxies "
             "wait for network messages; it needs --backend cuda";
    return false;
  }
  if (o->p2pGiven && o->backend != "cuda") {
    *error = "--p2p applies to --backend cuda (how the ranks' GPUs reach "
             "each other)";
    return false;
  }
  // --backend cuda with --devices LIST, or one rank per process: the
  // topology decides which GPUs exchange messages through host memory.
  bool topologyForLinks =
      o->backend == "cuda" && (o->devices.size() > 1 || o->ranks == 0);
  if (!o->topologyFile.empty() && o->backend == "cuda" && o->ranks > 0 &&
      !topologyForLinks) {
    *error = "--topology with --backend cuda --ranks decides how the GPUs of "
             "--devices are linked (peer access or host memory); it needs "
             "--devices with two entries or more";
    return false;
  }
  for (const auto &[option, given] :
       {std::make_pair("--ib-device", !o->ibDevice.empty()),
        std::make_pair("--topology",
                       !o->topologyFile.empty() && !topologyForLinks)})
    if (given && o->transport != "ib") {
      *error = std::string(option) +
               " chooses the ib transport's NIC; it needs --transport ib "
               "(auto never chooses ib)";
      return false;
    }
  return true;
}

} // namespace collcrun
