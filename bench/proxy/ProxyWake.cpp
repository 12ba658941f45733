//===- ProxyWake.cpp - how long a message waits for an idle device proxy --===//
//
// collc-bench-proxy (bench/README.md): two DeviceProxies over TCP on
// loopback, for a 2-rank layout whose ranks are on two hosts, as
// DeviceProxyTest sets them up; this program plays the kernels. Each
// iteration waits GAP (the compute between two collectives of a training
// step), tells both proxies that a launch is due (DeviceProxy::launched(),
// what the CUDA executor does when it enqueues a kernel), then posts one
// message of BYTES on rank 0's sending half and times until rank 1's
// receiving half publishes it (its head). The "kernel" polls between
// sleeps of about a microsecond: a GPU's kernel takes no CPU core from
// the proxies. With ProxyPolling::Sleep an idle proxy sleeps up to 100 us
// between polls (exec::Backoff), on both sides; with Launch the launch
// wakes it and it polls every 10 us until the message has moved.
//
//   collc-bench-proxy [--iterations N] [--bytes B]
//
// Prints one table row per (gap, polling) pair: median, 90th percentile
// and largest latency in microseconds; and per gap the host's own wake-up
// latency as a reference: a thread in timed waits of 100 us on a condition
// variable, notified by this one after the gap (on some VMs that alone
// takes milliseconds after a long gap, whatever the proxy does).
//
//===----------------------------------------------------------------------===//
#include "collrt/Plan.h"
#include "runtime/device/DeviceProxy.h"
#include "runtime/device/LaunchLayout.h"
#include "runtime/net/Net.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace collrt;
using collc::sched::Buffer;
using collc::sched::Collective;
using collc::sched::Instruction;
using collc::sched::Opcode;
using collc::sched::Program;
using Clock = std::chrono::steady_clock;

namespace {

uint64_t loadAcquire(const uint64_t *w) {
  return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}
void storeRelease(uint64_t *w, uint64_t v) {
  __atomic_store_n(w, v, __ATOMIC_RELEASE);
}

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "collc-bench-proxy: %s\n", what.c_str());
  std::exit(1);
}

/// Polls `done` between sleeps of about a microsecond (the "kernel" is a
/// GPU's: it takes no core from the proxies) for up to 10 s.
template <typename F> bool waitUntil(F done) {
  exec::Backoff::preciseTimers();
  auto until = Clock::now() + std::chrono::seconds(10);
  while (!done())
    if (Clock::now() > until)
      return false;
    else
      std::this_thread::sleep_for(std::chrono::microseconds(1));
  return true;
}

struct Pair {
  dev::LaunchLayout whole;
  const dev::LaunchLayout::Connection *conn = nullptr;
  std::vector<std::vector<uint64_t>> arenas;
  std::unique_ptr<dev::DeviceProxy> proxies[2];
  int32_t abortFlags[2] = {0, 0};

  Pair(int64_t elements, dev::ProxyPolling polling) {
    // One message a launch: rank 0 sends chunk 0 to rank 1 on channel 0.
    Program p;
    p.algorithm = "bench";
    p.collective = Collective::AllReduce;
    p.numRanks = 2;
    p.chunksPerPart = 1;
    p.buffers.inputChunks = 1;
    p.buffers.outputChunks = 1;
    p.ranks.resize(2);
    for (auto &rank : p.ranks)
      rank.channels.resize(1);
    Instruction send;
    send.opcode = Opcode::Send;
    send.sendPeer = 1;
    send.src = {Buffer::Input, 0, 1};
    p.ranks[0].channels[0].instructions.push_back(send);
    Instruction recv;
    recv.opcode = Opcode::Recv;
    recv.recvPeer = 0;
    recv.dst = {Buffer::Output, 0, 1};
    p.ranks[1].channels[0].instructions.push_back(recv);
    PlanCollective c;
    c.location = "bench";
    c.dtype = DataType::F32;
    c.reduction = ReduceOp::Sum;
    c.connectionSlots = 2;
    c.program = p;
    c.groups = {{0, 1}};
    dev::DeviceOptions o;
    o.slotBytes = 2 * uint64_t(elements) * 4; // one tile: one message
    o.hosts = {0, 1};
    if (Status s = dev::LaunchLayout::create(c, 0, elements, o, &whole);
        !s.ok())
      die(s.toString());
    for (const auto &cn : whole.connections())
      if (cn.from == 0 && cn.to == 1)
        conn = &cn;
    if (!conn || !conn->net)
      die("the layout has no network connection from rank 0 to rank 1");
    if (whole.tiles() != 1 || whole.slotCapacity() < uint64_t(elements) * 4)
      die("the layout cuts the message into " + std::to_string(whole.tiles()) +
          " tiles of at most " + std::to_string(whole.slotCapacity()) +
          " bytes: want one");
    arenas.resize(2);
    std::vector<std::string> handles(2);
    for (int32_t r = 0; r < 2; ++r) {
      dev::DeviceOptions mine = o;
      mine.ranks = {r};
      dev::LaunchLayout one;
      if (Status s = dev::LaunchLayout::create(c, 0, elements, mine, &one);
          !s.ok())
        die(s.toString());
      arenas[size_t(r)].assign(one.arena(r).hostBytes / 8 + 1, 0);
      std::vector<char *> hosts(2, nullptr);
      hosts[size_t(r)] = reinterpret_cast<char *>(arenas[size_t(r)].data());
      std::unique_ptr<net::Net> socketNet;
      if (Status s = net::createSocketNet("127.0.0.1", "tcp", &socketNet);
          !s.ok())
        die(s.toString());
      if (Status s = dev::DeviceProxy::create(
              std::move(socketNet), 0, one, hosts, "rank " + std::to_string(r),
              &proxies[r]);
          !s.ok())
        die(s.toString());
      proxies[r]->setPolling(polling);
      handles[size_t(r)] = proxies[r]->handle();
    }
    for (int32_t r = 0; r < 2; ++r)
      if (Status s = proxies[r]->start(handles, &abortFlags[r], 10); !s.ok())
        die(s.toString());
  }
  ~Pair() {
    proxies[0]->requestStop(5);
    proxies[1]->requestStop(5);
    Status a = proxies[0]->stop(5), b = proxies[1]->stop(5);
    if (!a.ok() || !b.ok())
      std::fprintf(stderr, "collc-bench-proxy: stopping: %s %s\n",
                   a.toString().c_str(), b.toString().c_str());
  }
  char *host(int32_t r) {
    return reinterpret_cast<char *>(arenas[size_t(r)].data());
  }
  uint64_t *word(int32_t r, uint64_t offset) {
    return reinterpret_cast<uint64_t *>(host(r) + offset);
  }
  /// Waits (waitUntil) until *w >= value; false after 10 s or when a
  /// proxy failed.
  bool waitFor(const uint64_t *w, uint64_t value) {
    return waitUntil([&] {
             return loadAcquire(w) >= value || proxies[0]->failed() ||
                    proxies[1]->failed();
           }) &&
           loadAcquire(w) >= value;
  }
};

struct Row {
  double gapMs = 0;
  std::string what; ///< the polling policy, or "(host wake-up)"
  std::vector<double> us;
  uint64_t wakeups = 0;
};

/// The host's reference: microseconds from notifying a condition variable,
/// after sleeping gapMs, until a thread that waits on it in timed waits of
/// 100 us (as an idle proxy sleeps) runs.
Row hostWakeUp(double gapMs, int n) {
  Row row;
  row.gapMs = gapMs;
  row.what = "(host wake-up)";
  std::mutex m;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0}, seen{0};
  std::atomic<int64_t> wokeAt{0};
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    exec::Backoff::preciseTimers();
    uint64_t last = 0;
    while (!stop.load()) {
      std::unique_lock<std::mutex> lock(m);
      cv.wait_for(lock, std::chrono::microseconds(100),
                  [&] { return generation.load() != last || stop.load(); });
      if (generation.load() != last) {
        last = generation.load();
        wokeAt.store(Clock::now().time_since_epoch().count());
        seen.store(last);
      }
    }
  });
  exec::Backoff::preciseTimers();
  for (int i = 0; i < n; ++i) {
    if (gapMs > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(gapMs));
    auto start = Clock::now();
    generation.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(m);
    }
    cv.notify_all();
    if (!waitUntil([&] { return seen.load() == generation.load(); }))
      die("the host wake-up reference thread did not wake");
    row.us.push_back(
        std::chrono::duration<double, std::micro>(
            Clock::duration(wokeAt.load()) - start.time_since_epoch())
            .count());
  }
  stop.store(true);
  cv.notify_all();
  waiter.join();
  return row;
}

} // namespace

int main(int argc, char **argv) {
  int iterations = 200;
  int64_t bytes = 8192;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--iterations" && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (a == "--bytes" && i + 1 < argc)
      bytes = std::atoll(argv[++i]);
    else
      die("usage: collc-bench-proxy [--iterations N] [--bytes B] (got '" + a +
          "')");
  }
  if (iterations < 1 || bytes < 4 || bytes % 4 != 0)
    die("--iterations must be >= 1 and --bytes a positive multiple of 4");
  std::vector<Row> rows;
  for (double gapMs : {0.0, 0.2, 1.0, 10.0}) {
    // Fewer iterations for the long gap: it is mostly sleep.
    int n = gapMs >= 10 ? std::max(1, iterations / 4) : iterations;
    rows.push_back(hostWakeUp(gapMs, n));
    for (dev::ProxyPolling polling :
         {dev::ProxyPolling::Sleep, dev::ProxyPolling::Launch}) {
      Pair pair(bytes / 4, polling);
      uint64_t seq = 0, slots = pair.whole.slots();
      Row row;
      row.gapMs = gapMs;
      row.what = dev::proxyPollingName(polling);
      for (int i = 0; i < n; ++i, ++seq) {
        if (gapMs > 0)
          std::this_thread::sleep_for(
              std::chrono::duration<double, std::milli>(gapMs));
        pair.proxies[0]->launched();
        pair.proxies[1]->launched();
        // The slot of message seq - slots has come back (outside the time).
        if (seq >= slots &&
            !pair.waitFor(pair.word(0, pair.conn->tail), seq + 1 - slots))
          die("a slot did not come back");
        auto start = Clock::now();
        uint64_t slot = seq % slots;
        std::memset(pair.host(0) + pair.conn->sendBuffers +
                        slot * pair.whole.slotCapacity(),
                    int(seq & 0x7f), size_t(bytes));
        __atomic_store_n(pair.word(0, pair.conn->sendSizes) + slot,
                         uint64_t(bytes), __ATOMIC_RELAXED);
        storeRelease(pair.word(0, pair.conn->sendHead), seq + 1);
        if (!pair.waitFor(pair.word(1, pair.conn->head), seq + 1))
          die("message " + std::to_string(seq) +
              " did not arrive: " + pair.proxies[0]->error().toString() + " " +
              pair.proxies[1]->error().toString());
        row.us.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - start)
                .count());
        storeRelease(pair.word(1, pair.conn->recvTail), seq + 1);
        for (int r = 0; r < 2; ++r) // the launch's one message has moved
          if (pair.proxies[r]->messagesDue() != 0 &&
              !waitUntil([&] { return pair.proxies[r]->messagesDue() == 0; }))
            die("rank " + std::to_string(r) + "'s proxy still counts " +
                std::to_string(pair.proxies[r]->messagesDue()) +
                " message(s) due");
      }
      row.wakeups = pair.proxies[0]->wakeups() + pair.proxies[1]->wakeups();
      rows.push_back(std::move(row));
    }
  }
  std::printf("collc-bench-proxy: one %lld-byte message between two device "
              "proxies over TCP on loopback, after an idle gap\n",
              static_cast<long long>(bytes));
  std::printf("| gap | --proxy-polling | iterations | median us | p90 us | "
              "max us | wake-ups |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (Row &row : rows) {
    std::sort(row.us.begin(), row.us.end());
    auto at = [&](double q) {
      return row.us[std::min(row.us.size() - 1, size_t(q * row.us.size()))];
    };
    std::printf("| %.1f ms | %s | %zu | %.1f | %.1f | %.1f | %llu |\n",
                row.gapMs, row.what.c_str(), row.us.size(), at(0.5), at(0.9),
                row.us.back(), static_cast<unsigned long long>(row.wakeups));
  }
  std::printf("wake-ups: launches that found a proxy asleep (both proxies "
              "counted)\n");
  return 0;
}
