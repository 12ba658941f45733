//===- InProcessTransport.cpp - ranks that are threads of one process -----===//
//
// Every connection is a SlotRing shared by the sending and the receiving
// rank's transports. connect() is a rendezvous of the whole world on the
// fabric: the last rank to arrive checks that the specs agree and builds the
// rings of that generation; the others wait for it (or their deadline).
// abort() marks the rank failed on the fabric, so that its peers' calls and
// checkPeers fail with PeerFailure naming it.
//
//===----------------------------------------------------------------------===//
#include "MemoryRegistry.h"
#include "SlotRing.h"
#include "SpecCheck.h"

#include "collrt/Transport.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <tuple>

namespace collrt {

using transport::SlotRing;

namespace {
/// The rings of one connect() generation, and per rank the result of
/// checking its spec against the others.
struct ConnectionTable {
  /// (sender, receiver, channel) -> ring.
  std::map<std::tuple<int32_t, int32_t, uint32_t>, std::shared_ptr<SlotRing>>
      rings;
  std::vector<Status> results;
};
} // namespace

class InProcessFabric {
public:
  explicit InProcessFabric(int32_t worldSize)
      : worldSize(worldSize), arrived(worldSize, false), specs(worldSize),
        failures(worldSize) {}

  const int32_t worldSize;

  std::mutex mutex;
  std::condition_variable changed;
  /// Completed connect() rendezvous.
  uint64_t generation = 0;
  std::vector<bool> arrived;
  int32_t arrivedCount = 0;
  std::vector<ConnectionSpec> specs;
  /// The table of the last completed generation (each rank picks up its
  /// part before the next generation can complete).
  std::shared_ptr<ConnectionTable> table;

  /// Non-empty: the reason rank r aborted.
  std::vector<std::string> failures;
  std::atomic<bool> anyFailure{false};

  /// Records the failure and sets `flag` under the lock, so that a
  /// waiter that checked both before cannot miss the wake-up.
  void markFailed(int32_t rank, const std::string &reason,
                  std::atomic<bool> &flag) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      flag.store(true, std::memory_order_release);
      if (failures[rank].empty())
        failures[rank] = reason.empty() ? "aborted" : reason;
      anyFailure.store(true, std::memory_order_release);
    }
    changed.notify_all();
  }

  /// PeerFailure naming the first failed rank other than `self`. Caller
  /// holds `mutex`.
  Status firstFailureLocked(int32_t self) const {
    for (int32_t r = 0; r < worldSize; ++r)
      if (r != self && !failures[r].empty())
        return Status(ErrorCode::PeerFailure,
                      "in-process transport, rank " + std::to_string(self) +
                          ": peer rank " + std::to_string(r) +
                          " failed: " + failures[r]);
    return Status::success();
  }

  /// Builds the table once every rank arrived. Caller holds `mutex`.
  void completeLocked() {
    auto next = std::make_shared<ConnectionTable>();
    next->results.resize(worldSize);
    for (int32_t r = 0; r < worldSize; ++r)
      next->results[r] = transport::checkAllSpecsAgree("in-process", r, specs);
    for (int32_t r = 0; r < worldSize; ++r)
      for (const ConnectionKey &key : specs[r].sendTo)
        next->rings[{r, key.peer, key.channel}] =
            std::make_shared<SlotRing>(specs[r].slots);
    table = std::move(next);
    std::fill(arrived.begin(), arrived.end(), false);
    arrivedCount = 0;
    ++generation;
  }
};

namespace {

class InProcessTransport final : public Transport {
public:
  InProcessTransport(std::shared_ptr<InProcessFabric> fabric, int32_t rank)
      : fabric_(std::move(fabric)), rank_(rank) {}
  ~InProcessTransport() override = default;

  const char *name() const override { return "in-process"; }
  int32_t rank() const override { return rank_; }
  int32_t worldSize() const override { return fabric_->worldSize; }

  Status connect(const ConnectionSpec &spec, Deadline deadline) override;

  Status registerMemory(void *base, size_t bytes,
                        MemoryRegion *region) override {
    if (Status s = abortedStatus(); !s.ok())
      return s;
    return memory_.add(name(), base, bytes, region);
  }
  Status deregisterMemory(const MemoryRegion &region) override {
    return memory_.remove(name(), region);
  }

  Status trySend(const ConnectionKey &to, const void *data, size_t bytes,
                 bool *posted) override;
  Status tryRecv(const ConnectionKey &from, const void **data, size_t *bytes,
                 bool *ready) override;
  Status releaseRecv(const ConnectionKey &from) override;
  Status checkPeers() override;
  void abort(const std::string &reason) override;

private:
  Status abortedStatus() const {
    if (!aborted_.load(std::memory_order_acquire))
      return Status::success();
    std::lock_guard<std::mutex> lock(fabric_->mutex);
    return Status(ErrorCode::TransportError,
                  "in-process transport, rank " + std::to_string(rank_) +
                      " was aborted: " + fabric_->failures[rank_]);
  }
  Status peerFailed(int32_t peer) const {
    std::lock_guard<std::mutex> lock(fabric_->mutex);
    if (fabric_->failures[peer].empty())
      return Status::success();
    return Status(ErrorCode::PeerFailure,
                  "in-process transport, rank " + std::to_string(rank_) +
                      ": peer rank " + std::to_string(peer) +
                      " failed: " + fabric_->failures[peer]);
  }
  Status unknown(const char *what, const ConnectionKey &key) const {
    return Status(ErrorCode::InvalidArgument,
                  "in-process transport, rank " + std::to_string(rank_) + ": " +
                      what + " peer " + std::to_string(key.peer) +
                      " on channel " + std::to_string(key.channel) +
                      ", which the connected spec does not contain");
  }

  std::shared_ptr<InProcessFabric> fabric_;
  const int32_t rank_;
  /// connect() generations this rank completed.
  uint64_t generation_ = 0;
  ConnectionSpec spec_;
  std::map<ConnectionKey, std::shared_ptr<SlotRing>> sends_;
  std::map<ConnectionKey, std::shared_ptr<SlotRing>> recvs_;
  std::atomic<bool> aborted_{false};
  transport::MemoryRegistry memory_;
};

Status InProcessTransport::connect(const ConnectionSpec &spec,
                                   Deadline deadline) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (Status s = transport::checkSpec(name(), rank_, fabric_->worldSize, spec);
      !s.ok())
    return s;
  for (const auto &entry : recvs_)
    if (entry.second->occupied() > 0)
      return Status(
          ErrorCode::InvalidArgument,
          "in-process transport, rank " + std::to_string(rank_) +
              ": connect while " + std::to_string(entry.second->occupied()) +
              " message(s) from peer " + std::to_string(entry.first.peer) +
              " on channel " + std::to_string(entry.first.channel) +
              " are not released");

  InProcessFabric &f = *fabric_;
  std::shared_ptr<ConnectionTable> table;
  {
    std::unique_lock<std::mutex> lock(f.mutex);
    if (f.generation != generation_)
      return Status(ErrorCode::InvalidArgument,
                    "in-process transport, rank " + std::to_string(rank_) +
                        ": connect is collective, but the other ranks "
                        "already completed connect number " +
                        std::to_string(f.generation) + " while this rank " +
                        "completed " + std::to_string(generation_));
    f.specs[rank_] = spec;
    if (!f.arrived[rank_]) {
      f.arrived[rank_] = true;
      ++f.arrivedCount;
    }
    if (f.arrivedCount == f.worldSize) {
      f.completeLocked();
      f.changed.notify_all();
    }
    while (f.generation == generation_) {
      if (aborted_.load(std::memory_order_acquire))
        break;
      // A rank that gives up stays marked as arrived: the others' errors
      // keep naming only the ranks that never came, and this generation
      // can no longer complete for it (its next connect is refused).
      if (Status s = f.firstFailureLocked(rank_); !s.ok())
        return s;
      if (f.changed.wait_until(lock, deadline.at()) ==
              std::cv_status::timeout &&
          f.generation == generation_) {
        std::vector<int32_t> missing;
        for (int32_t r = 0; r < f.worldSize; ++r)
          if (!f.arrived[r])
            missing.push_back(r);
        return Status(ErrorCode::Timeout,
                      "in-process transport, rank " + std::to_string(rank_) +
                          ": connect timed out waiting for " +
                          transport::rankList(missing) +
                          " to connect (the world has " +
                          std::to_string(f.worldSize) + " ranks)");
      }
    }
    if (f.generation != generation_) { // else aborted while waiting
      table = f.table;
      ++generation_;
    }
  }
  if (!table)
    return abortedStatus();
  if (!table->results[rank_].ok())
    return table->results[rank_];

  sends_.clear();
  recvs_.clear();
  for (const ConnectionKey &key : spec.sendTo)
    sends_[key] = table->rings.at({rank_, key.peer, key.channel});
  for (const ConnectionKey &key : spec.recvFrom)
    recvs_[key] = table->rings.at({key.peer, rank_, key.channel});
  spec_ = spec;
  return Status::success();
}

Status InProcessTransport::trySend(const ConnectionKey &to, const void *data,
                                   size_t bytes, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = sends_.find(to);
  if (it == sends_.end())
    return unknown("trySend to", to);
  if (bytes > spec_.slotBytes)
    return Status(
        ErrorCode::InvalidArgument,
        "in-process transport, rank " + std::to_string(rank_) +
            ": trySend of " + std::to_string(bytes) + " bytes to peer " +
            std::to_string(to.peer) + " on channel " +
            std::to_string(to.channel) +
            " exceeds slotBytes = " + std::to_string(spec_.slotBytes));
  if (bytes > 0 && !data)
    return Status(ErrorCode::InvalidArgument,
                  "in-process transport, rank " + std::to_string(rank_) +
                      ": trySend of " + std::to_string(bytes) +
                      " bytes from a null pointer");
  if (fabric_->anyFailure.load(std::memory_order_acquire))
    if (Status s = peerFailed(to.peer); !s.ok())
      return s;
  *posted = it->second->tryPush(data, bytes);
  return Status::success();
}

Status InProcessTransport::tryRecv(const ConnectionKey &from, const void **data,
                                   size_t *bytes, bool *ready) {
  *ready = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("tryRecv from", from);
  if (it->second->front(data, bytes)) {
    *ready = true;
    return Status::success();
  }
  if (fabric_->anyFailure.load(std::memory_order_acquire))
    return peerFailed(from.peer);
  return Status::success();
}

Status InProcessTransport::releaseRecv(const ConnectionKey &from) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("releaseRecv from", from);
  if (!it->second->pop())
    return Status(ErrorCode::InvalidArgument,
                  "in-process transport, rank " + std::to_string(rank_) +
                      ": releaseRecv from peer " + std::to_string(from.peer) +
                      " on channel " + std::to_string(from.channel) +
                      " with no message received");
  return Status::success();
}

Status InProcessTransport::checkPeers() {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (!fabric_->anyFailure.load(std::memory_order_acquire))
    return Status::success();
  std::lock_guard<std::mutex> lock(fabric_->mutex);
  return fabric_->firstFailureLocked(rank_);
}

void InProcessTransport::abort(const std::string &reason) {
  fabric_->markFailed(rank_, reason, aborted_);
}

} // namespace

std::shared_ptr<InProcessFabric> createInProcessFabric(int32_t worldSize) {
  if (worldSize < 1)
    return nullptr;
  return std::make_shared<InProcessFabric>(worldSize);
}

std::unique_ptr<Transport>
createInProcessTransport(std::shared_ptr<InProcessFabric> fabric,
                         int32_t rank) {
  if (!fabric || rank < 0 || rank >= fabric->worldSize)
    return nullptr;
  return std::make_unique<InProcessTransport>(std::move(fabric), rank);
}

} // namespace collrt
