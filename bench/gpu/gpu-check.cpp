//===- gpu-check.cpp - plans and primitives on N ranks of one GPU ---------===//
//
// bench/gpu/run.sh's worker (docs/gpu-runtime.md, "bench/gpu"). Three modes,
// each printing tab-separated rows (a header line first, "#" lines are
// comments) and exiting 1 when any element was wrong or a run failed, 2
// for a usage error, 3 where there is no usable GPU (the reason on stderr):
//
//   gpu-check plan PLAN.json KERNELS.fatbin [--index I | --all]
//       [--bytes B[,B...]] [--iters N] [--warmup N] [--graph auto|yes|no]
//       [--slot-bytes B] [--ll-bytes B] [--threads T] [--timeout S]
//       [--no-check] [--kernel NAME] [--device D]
//     Runs collective I (or every one) of a plan with its generated kernel
//     on the plan's N ranks of one GPU: poisoned outputs, position-dependent
//     inputs, every element compared (runtime/check), then timed.
//
//   gpu-check primitives PRIMITIVES.fatbin [--ctas 16,32,132] [--bytes B]
//     The copy, reduce and send/recv primitives of Channel (Primitives.cu)
//     with C channels (CTAs), a plain vectorized copy kernel with the same
//     CTAs, and cuMemcpyDtoDAsync: bytes read + written per second, and the
//     payload per second per CTA.
//
//   gpu-check probe [--device D]
//     Prints the GPU (name, SMs, architecture), or why there is none.
//
//   gpu-check hand HANDKERNELS.fatbin [--ranks N] [--bytes B[,B...]]
//     The hand-written kernels of test/runtime/device/cuda/HandKernels.cu
//     (ring all-reduce for every element type and reduction, direct
//     all-to-all) on N ranks (default 8), checked; at the given sizes per
//     rank, or at 4 KiB and a few MiB (odd sizes: 3 MiB + 6 for the rings,
//     8 MiB + 4 for the all-to-all).
//
//===----------------------------------------------------------------------===//
#include "collrt/collrt.h"
#include "runtime/device/CudaExecutor.h"
#include "tools/collc-run/GpuRun.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace collrt;
using namespace collrt::dev;
using collc::sched::Buffer;
using collc::sched::ChunkRange;
using collc::sched::Collective;
using collc::sched::Instruction;
using collc::sched::Opcode;
using collc::sched::Program;
using collcgpu::GpuRunOptions;
using collcgpu::GpuRunResult;
using collcgpu::runPlanOnOneGpu;

namespace {

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "gpu-check: %s\n"
               "usage: gpu-check plan PLAN.json KERNELS.fatbin [--index I | "
               "--all] [--bytes B[,B...]] [--iters N] [--warmup N] [--graph "
               "auto|yes|no] [--slot-bytes B] [--ll-bytes B] [--threads T] "
               "[--timeout S] [--no-check] [--kernel NAME] [--device D]\n"
               "       gpu-check primitives PRIMITIVES.fatbin [--ctas "
               "16,32,132] [--bytes B] [--iters N]\n"
               "       gpu-check hand HANDKERNELS.fatbin [--ranks N] [--bytes "
               "B[,B...]]\n"
               "       gpu-check probe [--device D]\n",
               why);
  std::exit(2);
}

/// "256MiB", "8KiB", "1048576", "4K" -> bytes.
bool parseBytes(const std::string &text, int64_t *bytes) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || v < 0)
    return false;
  std::string unit(end);
  int64_t scale = 1;
  if (unit == "" || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k")
    scale = 1 << 10;
  else if (unit == "M" || unit == "MiB")
    scale = 1 << 20;
  else if (unit == "G" || unit == "GiB")
    scale = int64_t(1) << 30;
  else
    return false;
  *bytes = int64_t(v * double(scale));
  return true;
}

std::vector<std::string> split(const std::string &text, char by) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(by, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

struct Args {
  std::string mode;
  std::vector<std::string> positional;
  std::vector<int64_t> bytes;
  std::vector<int64_t> ctas = {16, 32, 132};
  int index = 0;
  bool all = false;
  int ranks = 8;
  GpuRunOptions run;
};

Args parse(int argc, char **argv) {
  Args a;
  if (argc < 2)
    usage("no mode");
  a.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage((arg + " needs a value").c_str());
      return argv[++i];
    };
    auto number = [&](const std::string &v) -> int64_t {
      char *end = nullptr;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end)
        usage((arg + ": '" + v + "' is not a number").c_str());
      return n;
    };
    if (arg == "--index")
      a.index = int(number(value()));
    else if (arg == "--all")
      a.all = true;
    else if (arg == "--bytes") {
      for (const std::string &b : split(value(), ',')) {
        int64_t n = 0;
        if (!parseBytes(b, &n))
          usage(("--bytes: '" + b + "' is not a size (8KiB, 256MiB)").c_str());
        a.bytes.push_back(n);
      }
    } else if (arg == "--ctas") {
      a.ctas.clear();
      for (const std::string &c : split(value(), ','))
        a.ctas.push_back(number(c));
    } else if (arg == "--iters")
      a.run.iterations = int(number(value()));
    else if (arg == "--warmup")
      a.run.warmup = int(number(value()));
    else if (arg == "--graph") {
      std::string g = value();
      if (g != "auto" && g != "yes" && g != "no")
        usage("--graph takes auto, yes or no");
      a.run.graph = g == "yes" ? 1 : g == "no" ? 0 : -1;
    } else if (arg == "--slot-bytes") {
      int64_t n = 0;
      if (!parseBytes(value(), &n))
        usage("--slot-bytes takes a size");
      a.run.slotBytes = size_t(n);
    } else if (arg == "--ll-bytes") {
      int64_t n = 0;
      if (!parseBytes(value(), &n))
        usage("--ll-bytes takes a size");
      a.run.llBytes = uint32_t(n);
    } else if (arg == "--threads")
      a.run.blockThreads = uint32_t(number(value()));
    else if (arg == "--timeout")
      a.run.timeoutSeconds = std::atof(value().c_str());
    else if (arg == "--no-check")
      a.run.check = false;
    else if (arg == "--kernel")
      a.run.kernel = value();
    else if (arg == "--device")
      a.run.device = int(number(value()));
    else if (arg == "--ranks")
      a.ranks = int(number(value()));
    else if (!arg.empty() && arg[0] == '-')
      usage(("unknown option " + arg).c_str());
    else
      a.positional.push_back(arg);
  }
  return a;
}

const char *kHeader = "kind\tname\tranks\tdtype\top\tbytes_per_rank\tblocks\t"
                      "threads\ttiles\tprotocol\tgraph\tus\talg_GBps\t"
                      "memory_GBps\tchecked\twrong\tstatus";

/// Runs one plan collective at `bytes` per rank and prints its row; false
/// when it failed or was wrong.
bool runOne(const std::string &kind, const std::string &name, const Plan &plan,
            size_t index, const std::string &kernels, int64_t bytes,
            GpuRunOptions options) {
  const PlanCollective &c = plan.collectives[index];
  options.count = collcgpu::countForBytes(c, bytes);
  GpuRunResult r;
  options.kernelFile = kernels;
  Status s = runPlanOnOneGpu(plan, index, options, &r);
  double us = r.microseconds;
  std::printf("%s\t%s\t%d\t%s\t%s\t%lld\t%u\t%u\t%lld\t%s\t%s\t%.2f\t%.1f\t%."
              "1f\t%lld\t%lld\t%s\n",
              kind.c_str(), name.c_str(), c.program.numRanks,
              dataTypeName(c.dtype), reduceOpName(c.reduction),
              (long long)bytes, r.blocks, r.threads, (long long)r.tiles,
              r.ll ? "LL" : "simple", r.graph ? "yes" : "no", us,
              us > 0 ? r.inputBytes / us / 1e3 : 0.0,
              us > 0 ? r.memoryBytes / us / 1e3 : 0.0, (long long)r.checked,
              (long long)r.wrong,
              !s.ok()   ? "FAILED"
              : r.wrong ? "WRONG"
                        : "ok");
  if (!s.ok())
    std::printf("# %s: %s\n", name.c_str(), s.toString().c_str());
  for (const std::string &example : r.examples)
    std::printf("# %s: %s\n", name.c_str(), example.c_str());
  std::fflush(stdout);
  return s.ok() && r.wrong == 0;
}

int planMode(const Args &a) {
  if (a.positional.size() != 2)
    usage("plan needs PLAN.json and KERNELS.fatbin");
  Plan plan;
  if (Status s = loadPlanFile(a.positional[0], &plan); !s.ok()) {
    std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
    return 1;
  }
  std::vector<int64_t> sizes = a.bytes;
  if (sizes.empty())
    sizes.push_back(1 << 20);
  std::printf("%s\n", kHeader);
  bool ok = true;
  for (size_t i = 0; i < plan.collectives.size(); ++i) {
    if (!a.all && i != size_t(a.index))
      continue;
    const PlanCollective &c = plan.collectives[i];
    std::string name =
        std::string(collc::sched::collectiveName(c.program.collective)) + "/" +
        c.program.algorithm;
    for (int64_t bytes : sizes)
      ok &= runOne("plan", name, plan, i, a.positional[1], bytes, a.run);
  }
  if (!a.all && size_t(a.index) >= plan.collectives.size()) {
    std::fprintf(stderr, "gpu-check: --index %d: the plan has %zu\n", a.index,
                 plan.collectives.size());
    return 1;
  }
  return ok ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Programs built here (primitives, hand kernels)
//===----------------------------------------------------------------------===//

Program emptyProgram(Collective collective, int32_t n, uint32_t k,
                     uint32_t channels) {
  Program p;
  p.algorithm = "bench";
  p.collective = collective;
  p.numRanks = n;
  p.chunksPerPart = k;
  bool partsIn = collective == Collective::AllToAll;
  bool partsOut = collective == Collective::AllToAll;
  p.buffers.inputChunks = partsIn ? k * uint32_t(n) : k;
  p.buffers.outputChunks = partsOut ? k * uint32_t(n) : k;
  p.ranks.resize(size_t(n));
  for (auto &rank : p.ranks)
    rank.channels.resize(channels);
  return p;
}

Instruction make(Opcode op, int32_t from, int32_t to, ChunkRange src,
                 ChunkRange dst, int32_t step) {
  Instruction i;
  i.opcode = op;
  i.recvPeer = from;
  i.sendPeer = to;
  i.src = src;
  i.dst = dst;
  i.step = step;
  return i;
}

ChunkRange in(uint32_t i, uint32_t n = 1) { return {Buffer::Input, i, n}; }
ChunkRange out(uint32_t i, uint32_t n = 1) { return {Buffer::Output, i, n}; }

Plan planOf(const Program &p, DataType type, ReduceOp op) {
  Plan plan;
  plan.worldSize = p.numRanks;
  PlanCollective c;
  c.location = "gpu-check";
  c.dtype = type;
  c.reduction = op;
  c.program = p;
  c.connectionSlots = 8;
  c.groups.assign(1, {});
  for (int32_t r = 0; r < p.numRanks; ++r)
    c.groups[0].push_back(r);
  plan.collectives.push_back(c);
  return plan;
}

/// Schedules.h's ringAllReduce(n, 1, channels).
Program ringAllReduce(int32_t n, uint32_t channels) {
  auto mod = [](int32_t a, int32_t b) { return ((a % b) + b) % b; };
  Program p =
      emptyProgram(Collective::AllReduce, n, channels * uint32_t(n), channels);
  p.algorithm = "hand-ring";
  for (uint32_t c = 0; c < channels; ++c)
    for (int32_t r = 0; r < n; ++r) {
      auto seg = [&](int32_t s) {
        return c * uint32_t(n) + uint32_t(mod(s, n));
      };
      int32_t next = mod(r + 1, n), prev = mod(r - 1, n);
      auto &stream = p.ranks[size_t(r)].channels[c].instructions;
      stream.push_back(make(Opcode::Send, -1, next, in(seg(r)), {}, 0));
      for (int32_t s = 1; s < n - 1; ++s)
        stream.push_back(
            make(Opcode::RecvReduceSend, prev, next, in(seg(r - s)), {}, s));
      stream.push_back(make(Opcode::RecvReduceCopySend, prev, next,
                            in(seg(r + 1)), out(seg(r + 1)), n - 1));
      for (int32_t t = 1; t < n - 1; ++t)
        stream.push_back(make(Opcode::RecvCopySend, prev, next, {},
                              out(seg(r + 1 - t)), n - 1 + t));
      stream.push_back(
          make(Opcode::Recv, prev, -1, {}, out(seg(r + 2 - n)), 2 * n - 2));
    }
  return p;
}

Program directAllToAll(int32_t n) {
  const uint32_t k = 2;
  auto mod = [](int32_t a, int32_t b) { return ((a % b) + b) % b; };
  Program p = emptyProgram(Collective::AllToAll, n, k, 1);
  p.algorithm = "hand-direct";
  for (int32_t r = 0; r < n; ++r) {
    auto &stream = p.ranks[size_t(r)].channels[0].instructions;
    stream.push_back(make(Opcode::Copy, -1, -1, in(uint32_t(r) * k, k),
                          out(uint32_t(r) * k, k), 0));
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = mod(r + i, n);
      stream.push_back(
          make(Opcode::Send, -1, peer, in(uint32_t(peer) * k, k), {}, i));
    }
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = mod(r - i, n);
      stream.push_back(
          make(Opcode::Recv, peer, -1, {}, out(uint32_t(peer) * k, k), i));
    }
  }
  return p;
}

int handMode(const Args &a) {
  if (a.positional.size() != 1)
    usage("hand needs HANDKERNELS.fatbin");
  std::printf("%s\n", kHeader);
  struct Typed {
    DataType type;
    ReduceOp op;
    const char *kernel;
  };
  const Typed rings[] = {
      {DataType::F64, ReduceOp::Sum, "hand_ring_all_reduce_f64_sum"},
      {DataType::F32, ReduceOp::Sum, "hand_ring_all_reduce_f32_sum"},
      {DataType::F32, ReduceOp::Prod, "hand_ring_all_reduce_f32_prod"},
      {DataType::F32, ReduceOp::Min, "hand_ring_all_reduce_f32_min"},
      {DataType::F32, ReduceOp::Max, "hand_ring_all_reduce_f32_max"},
      {DataType::F32, ReduceOp::Avg, "hand_ring_all_reduce_f32_sum"},
      {DataType::F16, ReduceOp::Sum, "hand_ring_all_reduce_f16_sum"},
      {DataType::BF16, ReduceOp::Sum, "hand_ring_all_reduce_bf16_sum"},
      {DataType::F8E4M3FN, ReduceOp::Sum, "hand_ring_all_reduce_f8e4m3_sum"},
      {DataType::F8E5M2, ReduceOp::Sum, "hand_ring_all_reduce_f8e5m2_sum"},
      {DataType::I64, ReduceOp::Sum, "hand_ring_all_reduce_i64_sum"},
      {DataType::I32, ReduceOp::Sum, "hand_ring_all_reduce_i32_sum"},
      {DataType::I8, ReduceOp::Sum, "hand_ring_all_reduce_i8_sum"},
  };
  bool ok = true;
  GpuRunOptions o = a.run;
  o.iterations = 3;
  o.warmup = 1;
  std::vector<int64_t> ringSizes = {int64_t(4096), int64_t(3 << 20) + 6};
  std::vector<int64_t> a2aSizes = {int64_t(4096), int64_t(8 << 20) + 4};
  if (!a.bytes.empty())
    ringSizes = a2aSizes = a.bytes;
  for (const Typed &t : rings)
    for (int64_t bytes : ringSizes) {
      Plan plan = planOf(ringAllReduce(a.ranks, 4), t.type, t.op);
      o.kernel = t.kernel;
      // Small slots: many tiles and, below llBytes, the LL protocol.
      for (size_t slot : {size_t(1) << 20, size_t(4096)}) {
        o.slotBytes = slot;
        ok &= runOne("hand",
                     std::string(t.kernel) + "/slot" + std::to_string(slot),
                     plan, 0, a.positional[0], bytes, o);
      }
    }
  Plan a2a = planOf(directAllToAll(a.ranks), DataType::F32, ReduceOp::Sum);
  o.kernel = "hand_direct_all_to_all_f32";
  for (int64_t bytes : a2aSizes)
    ok &= runOne("hand", o.kernel, a2a, 0, a.positional[0], bytes, o);
  return ok ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Primitives
//===----------------------------------------------------------------------===//

/// One rank, C channels, channel c runs `op` on chunk c (copy: input to
/// output; reduce: input into output). Or two ranks of C / 2 channels each
/// (C CTAs in all), rank 0 channel c sending chunk c to rank 1.
Program primitiveProgram(const std::string &which, uint32_t ctas) {
  if (which == "sendrecv") {
    ctas = ctas / 2 > 0 ? ctas / 2 : 1;
    Program p = emptyProgram(Collective::SendRecv, 2, ctas, ctas);
    p.algorithm = "sendrecv";
    p.root = 0;
    p.peer = 1;
    for (uint32_t c = 0; c < ctas; ++c) {
      p.ranks[0].channels[c].instructions.push_back(
          make(Opcode::Send, -1, 1, in(c), {}, 0));
      p.ranks[1].channels[c].instructions.push_back(
          make(Opcode::Recv, 0, -1, {}, out(c), 0));
    }
    return p;
  }
  Program p = emptyProgram(Collective::AllReduce, 1, ctas, ctas);
  p.algorithm = which;
  for (uint32_t c = 0; c < ctas; ++c)
    p.ranks[0].channels[c].instructions.push_back(
        make(which == "copy" ? Opcode::Copy : Opcode::Reduce, -1, -1, in(c),
             out(c), 0));
  return p;
}

int primitivesMode(const Args &a) {
  if (a.positional.size() != 1)
    usage("primitives needs PRIMITIVES.fatbin");
  int64_t bytes = a.bytes.empty() ? int64_t(512) << 20 : a.bytes[0];
  std::printf("kind\tname\tctas\tpayload_bytes\tus\tmemory_GBps\t"
              "payload_GBps_per_cta\tchecked\twrong\tstatus\n");
  bool ok = true;
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(a.run.device, &d); !s.ok()) {
    std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
    return 1;
  }
  std::unique_ptr<CudaModule> module;
  if (Status s = CudaModule::loadFile(a.positional[0], a.run.device, &module);
      !s.ok()) {
    std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
    return 1;
  }
  int iters = a.run.iterations > 0 ? a.run.iterations : 20;

  // The baselines: cuMemcpyDtoDAsync and a plain vectorized copy kernel.
  {
    cu::DevicePtr src = 0, dst = 0;
    cu::Stream stream = nullptr;
    cu::Event start = nullptr, stop = nullptr;
    if (d->cuMemAlloc(&src, size_t(bytes)) != cu::kSuccess ||
        d->cuMemAlloc(&dst, size_t(bytes)) != cu::kSuccess ||
        d->cuStreamCreate(&stream, cu::kStreamNonBlocking) != cu::kSuccess ||
        d->cuEventCreate(&start, 0) != cu::kSuccess ||
        d->cuEventCreate(&stop, 0) != cu::kSuccess) {
      std::fprintf(stderr, "gpu-check: allocating the copy baseline failed\n");
      return 1;
    }
    // Every call checked: a failed launch must not pass for a fast one.
    std::string failed;
    auto check = [&](const char *call, cu::Result r) {
      if (r != cu::kSuccess && failed.empty())
        failed = d->error(call, r);
    };
    check("cuMemsetD8", d->cuMemsetD8(src, 1, size_t(bytes)));
    auto timeIt = [&](auto &&body) {
      for (int i = 0; i < 3; ++i)
        body();
      check("cuEventRecord", d->cuEventRecord(start, stream));
      for (int i = 0; i < iters; ++i)
        body();
      check("cuEventRecord", d->cuEventRecord(stop, stream));
      check("cuEventSynchronize", d->cuEventSynchronize(stop));
      float ms = 0;
      check("cuEventElapsedTime", d->cuEventElapsedTime(&ms, start, stop));
      return double(ms) * 1000.0 / iters;
    };
    auto fail = [&](const char *what) {
      std::printf("baseline\t%s\t-\t%lld\t-\t-\t-\t-\t-\tFAILED\n# %s: %s\n",
                  what, (long long)bytes, what, failed.c_str());
      std::fflush(stdout);
      return 1;
    };
    double us = timeIt([&] {
      check("cuMemcpyDtoDAsync",
            d->cuMemcpyDtoDAsync(dst, src, size_t(bytes), stream));
    });
    if (!failed.empty())
      return fail("memcpy");
    std::printf("baseline\tmemcpy\t-\t%lld\t%.2f\t%.1f\t-\t-\t-\tok\n",
                (long long)bytes, us, 2.0 * double(bytes) / us / 1e3);
    cu::Function copy = nullptr;
    if (Status s = module->function("bench_copy_kernel", &copy); !s.ok()) {
      std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
      return 1;
    }
    for (int64_t ctas : a.ctas) {
      unsigned long long n = (unsigned long long)bytes / 16;
      void *params[] = {&src, &dst, &n};
      double t = timeIt([&] {
        check("cuLaunchKernel",
              d->cuLaunchKernel(copy, unsigned(ctas), 1, 1, 512, 1, 1, 0,
                                stream, params, nullptr));
      });
      if (!failed.empty())
        return fail("copy-kernel");
      std::printf("baseline\tcopy-kernel\t%lld\t%lld\t%.2f\t%.1f\t%.1f\t-\t-\t"
                  "ok\n",
                  (long long)ctas, (long long)bytes, t,
                  2.0 * double(bytes) / t / 1e3,
                  double(bytes) / t / 1e3 / double(ctas));
    }
    std::fflush(stdout);
    d->cuEventDestroy(start);
    d->cuEventDestroy(stop);
    d->cuStreamDestroy(stream);
    d->cuMemFree(src);
    d->cuMemFree(dst);
  }

  struct Prim {
    const char *name, *kernel;
    DataType type;
    double factor; ///< bytes read + written per payload byte
    bool check;
  };
  const Prim prims[] = {
      {"copy", "bench_prim_copy", DataType::BF16, 2, true},
      {"reduce", "bench_prim_reduce", DataType::F32, 3, false},
      {"sendrecv", "bench_prim_sendrecv", DataType::BF16, 4, true},
  };
  for (const Prim &p : prims)
    for (int64_t ctas : a.ctas) {
      Plan plan = planOf(primitiveProgram(p.name, uint32_t(ctas)), p.type,
                         ReduceOp::Sum);
      GpuRunOptions o = a.run;
      o.kernel = p.kernel;
      o.check = p.check;
      o.iterations = iters;
      o.graph = 0;
      o.count = bytes / int64_t(dataTypeSize(p.type));
      o.kernelFile = a.positional[0];
      GpuRunResult r;
      Status s = runPlanOnOneGpu(plan, 0, o, &r);
      double us = r.microseconds;
      std::printf("primitive\t%s\t%lld\t%lld\t%.2f\t%.1f\t%.1f\t%lld\t%lld\t%"
                  "s\n",
                  p.name, (long long)ctas, (long long)bytes, us,
                  us > 0 ? p.factor * double(bytes) / us / 1e3 : 0.0,
                  us > 0 ? double(bytes) / us / 1e3 / double(ctas) : 0.0,
                  (long long)r.checked, (long long)r.wrong,
                  !s.ok()   ? "FAILED"
                  : r.wrong ? "WRONG"
                            : "ok");
      if (!s.ok())
        std::printf("# %s: %s\n", p.name, s.toString().c_str());
      for (const std::string &example : r.examples)
        std::printf("# %s: %s\n", p.name, example.c_str());
      std::fflush(stdout);
      ok &= s.ok() && r.wrong == 0;
    }
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  Args a = parse(argc, argv);
  if (a.mode != "plan" && a.mode != "primitives" && a.mode != "hand" &&
      a.mode != "probe")
    usage(("unknown mode '" + a.mode + "'").c_str());
  if (a.mode == "probe") {
    // Whether there is a usable GPU: its name and size, or why not (the
    // same line as collc-run --backend cuda's header).
    std::string gpu;
    if (Status s = collcgpu::describeGpu(a.run.device, &gpu); !s.ok()) {
      std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
      return s.code() == ErrorCode::Unsupported ? 3 : 1;
    }
    std::printf("CUDA device %d: %s\n", a.run.device, gpu.c_str());
    return 0;
  }
  size_t files = a.mode == "plan" ? 2 : 1;
  if (a.positional.size() != files)
    usage(a.mode == "plan"         ? "plan needs PLAN.json and KERNELS.fatbin"
          : a.mode == "primitives" ? "primitives needs PRIMITIVES.fatbin"
                                   : "hand needs HANDKERNELS.fatbin");
  if (a.mode == "plan") {
    // The plan is checked before the GPU, so that a bad plan is named
    // anywhere.
    Plan plan;
    if (Status s = loadPlanFile(a.positional[0], &plan); !s.ok()) {
      std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
      return 1;
    }
    if (!a.all && size_t(a.index) >= plan.collectives.size()) {
      std::fprintf(stderr,
                   "gpu-check: --index %d is out of range: the plan has %zu "
                   "collective(s)\n",
                   a.index, plan.collectives.size());
      return 2;
    }
  }
  // Without a GPU, say so once (exit 3) rather than failing every row.
  const CudaDriver *driver = nullptr;
  if (Status s = loadCudaDriver(a.run.device, &driver); !s.ok()) {
    std::fprintf(stderr, "gpu-check: %s\n", s.toString().c_str());
    return s.code() == ErrorCode::Unsupported ? 3 : 1;
  }
  if (a.mode == "plan")
    return planMode(a);
  if (a.mode == "primitives")
    return primitivesMode(a);
  return handMode(a);
}
