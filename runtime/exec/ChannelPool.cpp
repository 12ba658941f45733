//===- ChannelPool.cpp - channel threads kept across runs -----------------===//
#include "runtime/exec/ChannelPool.h"

#include <pthread.h>

#include <string>
#include <system_error>

namespace collrt {
namespace exec {

ChannelPool::~ChannelPool() { shutdown(); }

Status ChannelPool::reserve(size_t workers) {
  while (workers_.size() < workers) {
    auto worker = std::make_unique<Worker>();
    Worker *w = worker.get();
    try {
      worker->thread = std::thread([this, w] { work(*w); });
    } catch (const std::system_error &e) {
      return Status(ErrorCode::SystemError,
                    "could not start channel thread " +
                        std::to_string(workers_.size() + 1) + " (" +
                        std::to_string(workers_.size()) +
                        " running): " + e.what());
    }
    // For ps/top/gdb: "collrt-chan-N" (at most 15 characters).
    std::string name = "collrt-chan-" + std::to_string(workers_.size() + 1);
    if (name.size() > 15)
      name.resize(15);
    ::pthread_setname_np(worker->thread.native_handle(), name.c_str());
    workers_.push_back(std::move(worker));
    ++started_;
  }
  return Status::success();
}

void ChannelPool::work(Worker &worker) {
  for (;;) {
    const std::function<void(size_t)> *task;
    size_t index;
    {
      std::unique_lock<std::mutex> lock(worker.mutex);
      worker.wake.wait(lock, [&] { return worker.task || worker.stop; });
      if (!worker.task)
        return; // stopped while idle
      task = worker.task;
      index = worker.index;
      worker.task = nullptr;
    }
    (*task)(index);
    std::lock_guard<std::mutex> lock(doneMutex_);
    if (--pending_ == 0)
      done_.notify_one();
  }
}

void ChannelPool::run(size_t count, const std::function<void(size_t)> &task,
                      const std::function<void()> &local) {
  if (count > workers_.size())
    count = workers_.size(); // the caller reserve()d; never run past the pool
  if (count > 0) {
    ++runs_;
    {
      std::lock_guard<std::mutex> lock(doneMutex_);
      pending_ = count;
    }
    for (size_t i = 0; i < count; ++i) {
      Worker &w = *workers_[i];
      {
        std::lock_guard<std::mutex> lock(w.mutex);
        w.task = &task;
        w.index = i;
      }
      w.wake.notify_one();
    }
  }
  local();
  if (count > 0) {
    std::unique_lock<std::mutex> lock(doneMutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }
}

void ChannelPool::shutdown() {
  for (auto &w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mutex);
      w->stop = true;
    }
    w->wake.notify_one();
  }
  for (auto &w : workers_)
    if (w->thread.joinable())
      w->thread.join();
  workers_.clear();
}

std::vector<std::thread::id> ChannelPool::threadIds() const {
  std::vector<std::thread::id> ids;
  for (const auto &w : workers_)
    ids.push_back(w->thread.get_id());
  return ids;
}

} // namespace exec
} // namespace collrt
