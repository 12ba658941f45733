//===- MpiCollectives.cpp - Open MPI's collectives, timed like collc-run --===//
//
// collc-bench-mpi times MPI_Allreduce, MPI_Allgather,
// MPI_Reduce_scatter_block and MPI_Alltoall on f32 (sum) over a range of
// sizes and prints the rows collc-run prints (docs/collc-run.md): size is
// each rank's input buffer in bytes, time the mean of the timed iterations
// of the slowest rank, algbw and busbw as nccl-tests defines them. bench/mpi/
// run.sh runs it beside collc-run (bench/README.md).
//
//===----------------------------------------------------------------------===//
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string collective = "all_reduce";
  long long minBytes = 4 << 10, maxBytes = 64 << 20;
  int iters = 20, warmup = 5;
};

long long parseSize(const char *text, bool *ok) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  std::string unit = end;
  long long scale = 1;
  if (unit == "K" || unit == "KiB")
    scale = 1 << 10;
  else if (unit == "M" || unit == "MiB")
    scale = 1 << 20;
  else if (unit == "G" || unit == "GiB")
    scale = 1 << 30;
  else if (!unit.empty() && unit != "B")
    *ok = false;
  if (end == text || v <= 0)
    *ok = false;
  return v * scale;
}

bool parse(int argc, char **argv, Options *o, std::string *error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) {
      *error = arg + " needs a value";
      return false;
    }
    const char *v = argv[++i];
    bool ok = true;
    if (arg == "--collective") {
      o->collective = v;
      ok = o->collective == "all_reduce" || o->collective == "all_gather" ||
           o->collective == "reduce_scatter" || o->collective == "all_to_all";
    } else if (arg == "--bytes") {
      std::string s = v;
      size_t colon = s.find(':');
      o->minBytes = parseSize(s.substr(0, colon).c_str(), &ok);
      o->maxBytes = colon == std::string::npos
                        ? o->minBytes
                        : parseSize(s.substr(colon + 1).c_str(), &ok);
      ok = ok && o->maxBytes >= o->minBytes;
    } else if (arg == "--iters") {
      o->iters = std::atoi(v);
      ok = o->iters >= 1;
    } else if (arg == "--warmup") {
      o->warmup = std::atoi(v);
      ok = o->warmup >= 0;
    } else {
      ok = false;
    }
    if (!ok) {
      *error = "bad argument: " + arg + " " + v +
               " (--collective all_reduce|all_gather|reduce_scatter|"
               "all_to_all, --bytes MIN[:MAX] with K/M/G, --iters N >= 1, "
               "--warmup N >= 0)";
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Options o;
  std::string error;
  if (!parse(argc, argv, &o, &error)) {
    if (rank == 0)
      std::fprintf(stderr, "collc-bench-mpi: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  const std::string &c = o.collective;
  double factor = c == "all_reduce" ? 2.0 * (n - 1) / n : double(n - 1) / n;
  if (rank == 0) {
    std::printf("# collc-bench-mpi: %s (MPI), f32 sum, %d processes, iters "
                "%d, warmup %d\n",
                c.c_str(), n, o.iters, o.warmup);
    std::printf("#%11s %12s %8s %6s %11s %8s %8s %8s\n", "size", "count",
                "type", "redop", "time", "algbw", "busbw", "#wrong");
    std::printf("#%11s %12s %8s %6s %11s %8s %8s %8s\n", "(B)", "(elements)",
                "", "", "(us)", "(GB/s)", "(GB/s)", "");
    std::fflush(stdout);
  }
  for (long long bytes = o.minBytes; bytes <= o.maxBytes; bytes *= 2) {
    long long count = bytes / 4; // f32 elements of each rank's input
    if (count % n && (c == "reduce_scatter" || c == "all_to_all")) {
      if (rank == 0)
        std::fprintf(stderr,
                     "collc-bench-mpi: %lld bytes do not split into %d "
                     "parts of f32\n",
                     bytes, n);
      continue;
    }
    size_t outCount = c == "all_gather"       ? size_t(count) * n
                      : c == "reduce_scatter" ? size_t(count / n)
                                              : size_t(count);
    std::vector<float> in(static_cast<size_t>(count));
    std::vector<float> out(std::max<size_t>(outCount, 1));
    for (long long i = 0; i < count; ++i)
      in[size_t(i)] = float((rank * 7 + i) % 13);
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < o.warmup + o.iters; ++it) {
      double start = MPI_Wtime();
      if (c == "all_reduce")
        MPI_Allreduce(in.data(), out.data(), int(count), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
      else if (c == "all_gather")
        MPI_Allgather(in.data(), int(count), MPI_FLOAT, out.data(), int(count),
                      MPI_FLOAT, MPI_COMM_WORLD);
      else if (c == "reduce_scatter")
        MPI_Reduce_scatter_block(in.data(), out.data(), int(count / n),
                                 MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      else
        MPI_Alltoall(in.data(), int(count / n), MPI_FLOAT, out.data(),
                     int(count / n), MPI_FLOAT, MPI_COMM_WORLD);
      double end = MPI_Wtime();
      if (it >= o.warmup)
        total += end - start;
    }
    double mean = total / o.iters, slowest = 0;
    MPI_Reduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double algbwBytes = c == "all_gather" ? double(bytes) * n : double(bytes);
      double algbw = algbwBytes / slowest / 1e9;
      std::printf("%12lld %12lld %8s %6s %11.2f %8.3f %8.3f %8s\n", bytes,
                  count, "f32", c == "all_gather" ? "none" : "sum",
                  slowest * 1e6, algbw, algbw * factor, "N/A");
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
