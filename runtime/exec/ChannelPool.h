//===- ChannelPool.h - channel threads kept across runs ---------*- C++ -*-===//
//
// A run of the CPU executor runs its channels on up to
// CommOptions::channelThreads threads (the first is the caller's; Fibers.h
// for several channels on one thread). Starting them anew
// for every collective costs more than moving the data of a small one,
// above all when several ranks share few cores, so every rank keeps its
// channel threads in a ChannelPool between runs: worker i runs the i-th
// task of each run and sleeps (blocked on a condition variable, not
// polling) in between. The pool grows to the most workers a run asked for
// and never shrinks; shutdown() joins every worker (the executor calls it
// when a run failed, the communicator at finalize, abort and destruction),
// after which a later run starts new ones.
//
// One thread at a time drives a pool (run, reserve, shutdown): the rank's
// caller. Tasks must not throw (the channel runner reports its failures
// through RunState); one that does ends the process, as an exception
// leaving a std::thread does.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_CHANNELPOOL_H
#define COLLRT_EXEC_CHANNELPOOL_H

#include "collrt/Status.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace collrt {
namespace exec {

class ChannelPool {
public:
  ChannelPool() = default;
  /// Joins every worker.
  ~ChannelPool();
  ChannelPool(const ChannelPool &) = delete;
  ChannelPool &operator=(const ChannelPool &) = delete;

  /// Starts workers until the pool has `workers`. SystemError naming the
  /// worker that could not be started (the ones already there stay).
  Status reserve(size_t workers);

  /// Runs task(i) on worker i for every i < `count` (count <= size()) and
  /// `local` on the calling thread at the same time; returns when all of
  /// them returned.
  void run(size_t count, const std::function<void(size_t)> &task,
           const std::function<void()> &local);

  /// Stops and joins every worker; the pool is then empty (reserve() starts
  /// new ones). Must not be called while run() is in progress.
  void shutdown();

  /// Workers alive now.
  size_t size() const { return workers_.size(); }
  /// Workers started over the pool's life (tests: threads are reused).
  uint64_t threadsStarted() const { return started_; }
  /// Runs that used at least one worker.
  uint64_t runs() const { return runs_; }
  /// The ids of the live workers, by index (tests).
  std::vector<std::thread::id> threadIds() const;

private:
  struct Worker {
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    const std::function<void(size_t)> *task = nullptr;
    size_t index = 0;
    bool stop = false;
  };
  void work(Worker &worker);

  std::vector<std::unique_ptr<Worker>> workers_;
  /// Tasks of the current run not yet finished.
  std::mutex doneMutex_;
  std::condition_variable done_;
  size_t pending_ = 0;
  uint64_t started_ = 0;
  uint64_t runs_ = 0;
};

} // namespace exec
} // namespace collrt

#endif
