//===- InProcessTransport.cpp - ranks that are threads of one process -----===//
//
// Every connection is a SlotRing shared by the sending and the receiving
// rank's transports. connect() is a rendezvous of the whole world on the
// fabric: the last rank to arrive checks that the specs agree and builds the
// rings of that generation; the others wait for it (or their deadline).
// abort() marks the rank failed on the fabric, so that its peers' calls and
// checkPeers fail with PeerFailure naming it.
//
// Single copy: every rank's memory is this process's, so a message sent
// with trySendParts(stable) keeps only its header in the slot and
// references to its other parts; the receiver copies them (readRecv) or
// reads them where they are (viewRecv), and the sender's flushSends waits
// until the receivers freed those slots. A receiver that read a part in
// place checks afterwards that its sender did not fail meanwhile (the
// sender's caller may then have changed the bytes).
//
//===----------------------------------------------------------------------===//
#include "MemoryRegistry.h"
#include "SlotRing.h"
#include "SpecCheck.h"

#include "collrt/Transport.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
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
  Status trySendParts(const ConnectionKey &to, const MessagePart *parts,
                      size_t count, bool stable, bool *posted) override;
  Status flushSends(Deadline deadline) override;
  Status tryRecvPrefix(const ConnectionKey &from, const void **data,
                       size_t *inlineBytes, size_t *bytes,
                       bool *ready) override;
  Status readRecv(const ConnectionKey &from, size_t offset, void *dst,
                  size_t bytes) override;
  Status viewRecv(const ConnectionKey &from, size_t offset, size_t bytes,
                  const void **data) override;
  Status checkPeers() override;
  void abort(const std::string &reason) override;

private:
  /// The sending side of a connection: its ring, and how many messages
  /// it pushed up to the last one that left parts in this rank's memory
  /// (written by the connection's sending thread, read by flushSends).
  struct Sending {
    std::shared_ptr<SlotRing> ring;
    std::atomic<uint64_t> inPlaceUntil{0};
  };
  /// The receiving side: its ring, and the message fetched whole for
  /// tryRecv when parts of it were left in the sender's memory.
  struct Receiving {
    std::shared_ptr<SlotRing> ring;
    std::vector<char> fetched;
    uint64_t fetchedAt = UINT64_MAX; ///< freed() when it was fetched
  };
  /// The receiving side of `from`, or the error of a call named `what`.
  Status findRecv(const char *what, const ConnectionKey &from, Receiving **r);
  /// Copies bytes [offset, offset + bytes) of the oldest message of `r`
  /// (in the slot and the sender's memory) to `dst`.
  static void copyOut(const char *inlineData, size_t inlineBytes,
                      const std::vector<SlotRing::Ref> &refs, size_t offset,
                      char *dst, size_t bytes);
  /// After reading parts in the sender's memory: PeerFailure when the
  /// sender failed meanwhile.
  Status checkSender(const ConnectionKey &from) const {
    if (!fabric_->anyFailure.load(std::memory_order_acquire))
      return Status::success();
    return peerFailed(from.peer);
  }
  /// The oldest message from `from` as its parts, for a `call` of bytes
  /// [offset, offset + bytes) in it (outsideMessage otherwise).
  struct Front {
    Receiving *r = nullptr;
    const char *inlineData = nullptr;
    size_t inlineBytes = 0, size = 0;
    const std::vector<SlotRing::Ref> *refs = nullptr;
  };
  Status frontRange(const char *call, const ConnectionKey &from, size_t offset,
                    size_t bytes, Front *f) {
    std::string what = std::string(call) + " from";
    if (Status s = findRecv(what.c_str(), from, &f->r); !s.ok())
      return s;
    bool ready = f->r->ring->frontParts(&f->inlineData, &f->inlineBytes,
                                        &f->size, &f->refs);
    if (!ready || offset > f->size || bytes > f->size - offset)
      return transport::outsideMessage(
          "in-process transport, rank " + std::to_string(rank_), call, from,
          offset, bytes, ready, f->size);
    return Status::success();
  }

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
  std::map<ConnectionKey, std::unique_ptr<Sending>> sends_;
  std::map<ConnectionKey, Receiving> recvs_;
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
    if (entry.second.ring->occupied() > 0)
      return Status(ErrorCode::InvalidArgument,
                    "in-process transport, rank " + std::to_string(rank_) +
                        ": connect while " +
                        std::to_string(entry.second.ring->occupied()) +
                        " message(s) from peer " +
                        std::to_string(entry.first.peer) + " on channel " +
                        std::to_string(entry.first.channel) +
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
  for (const ConnectionKey &key : spec.sendTo) {
    auto sending = std::make_unique<Sending>();
    sending->ring = table->rings.at({rank_, key.peer, key.channel});
    sends_[key] = std::move(sending);
  }
  for (const ConnectionKey &key : spec.recvFrom)
    recvs_[key].ring = table->rings.at({key.peer, rank_, key.channel});
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
  *posted = it->second->ring->tryPush(data, bytes);
  return Status::success();
}

Status InProcessTransport::trySendParts(const ConnectionKey &to,
                                        const MessagePart *parts, size_t count,
                                        bool stable, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = sends_.find(to);
  if (it == sends_.end())
    return unknown("trySend to", to);
  size_t total = 0;
  if (Status s = transport::checkParts(
          "in-process transport, rank " + std::to_string(rank_), to, parts,
          count, spec_.slotBytes, &total);
      !s.ok())
    return s;
  if (fabric_->anyFailure.load(std::memory_order_acquire))
    if (Status s = peerFailed(to.peer); !s.ok())
      return s;
  // Each channel's thread sends on its own connections: its own list.
  thread_local std::vector<SlotRing::Ref> refs;
  refs.resize(count);
  for (size_t i = 0; i < count; ++i)
    refs[i] = {static_cast<const char *>(parts[i].data), parts[i].bytes};
  bool inPlace = stable && count > 1;
  Sending &sending = *it->second;
  *posted = sending.ring->tryPushParts(refs.data(), count, inPlace);
  if (*posted && inPlace)
    sending.inPlaceUntil.store(sending.ring->pushed(),
                               std::memory_order_release);
  return Status::success();
}

Status InProcessTransport::flushSends(Deadline deadline) {
  // sends_ changes only at connect, on this thread.
  return transport::waitForReaders(
      "in-process transport, rank " + std::to_string(rank_), sends_,
      [](const Sending &sending) {
        return transport::LeftInPlace{
            sending.ring->freed(),
            sending.inPlaceUntil.load(std::memory_order_acquire)};
      },
      [&](const ConnectionKey &key) {
        if (Status s = abortedStatus(); !s.ok())
          return s;
        if (fabric_->anyFailure.load(std::memory_order_acquire))
          return peerFailed(key.peer);
        return Status::success();
      },
      deadline);
}

Status InProcessTransport::findRecv(const char *what, const ConnectionKey &from,
                                    Receiving **r) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown(what, from);
  *r = &it->second;
  return Status::success();
}

void InProcessTransport::copyOut(const char *inlineData, size_t inlineBytes,
                                 const std::vector<SlotRing::Ref> &refs,
                                 size_t offset, char *dst, size_t bytes) {
  size_t end = offset + bytes;
  if (offset < inlineBytes) {
    size_t n = std::min(end, inlineBytes) - offset;
    std::memcpy(dst, inlineData + offset, n);
  }
  size_t at = inlineBytes;
  for (const SlotRing::Ref &ref : refs) {
    size_t lo = std::max(at, offset), hi = std::min(at + ref.bytes, end);
    if (lo < hi)
      std::memcpy(dst + (lo - offset), ref.data + (lo - at), hi - lo);
    at += ref.bytes;
  }
}

Status InProcessTransport::tryRecvPrefix(const ConnectionKey &from,
                                         const void **data, size_t *inlineBytes,
                                         size_t *bytes, bool *ready) {
  *ready = false;
  Receiving *r = nullptr;
  if (Status s = findRecv("tryRecv from", from, &r); !s.ok())
    return s;
  const char *inlineData = nullptr;
  const std::vector<SlotRing::Ref> *refs = nullptr;
  if (!r->ring->frontParts(&inlineData, inlineBytes, bytes, &refs)) {
    if (fabric_->anyFailure.load(std::memory_order_acquire))
      return peerFailed(from.peer);
    return Status::success();
  }
  if (r->fetchedAt == r->ring->freed()) {
    *data = r->fetched.data();
    *inlineBytes = *bytes;
  } else {
    *data = inlineData;
  }
  *ready = true;
  return Status::success();
}

Status InProcessTransport::readRecv(const ConnectionKey &from, size_t offset,
                                    void *dst, size_t bytes) {
  Front f;
  if (Status s = frontRange("readRecv", from, offset, bytes, &f); !s.ok())
    return s;
  copyOut(f.inlineData, f.inlineBytes, *f.refs, offset,
          static_cast<char *>(dst), bytes);
  return f.refs->empty() ? Status::success() : checkSender(from);
}

Status InProcessTransport::viewRecv(const ConnectionKey &from, size_t offset,
                                    size_t bytes, const void **data) {
  Front f;
  if (Status s = frontRange("viewRecv", from, offset, bytes, &f); !s.ok())
    return s;
  if (f.r->fetchedAt == f.r->ring->freed()) {
    *data = f.r->fetched.data() + offset;
    return Status::success();
  }
  if (offset + bytes <= f.inlineBytes) {
    *data = f.inlineData + offset;
    return Status::success();
  }
  size_t at = f.inlineBytes;
  for (const SlotRing::Ref &ref : *f.refs) {
    if (offset >= at && offset + bytes <= at + ref.bytes) {
      *data = ref.data + (offset - at);
      return Status::success();
    }
    at += ref.bytes;
  }
  const void *whole = nullptr;
  size_t size = 0;
  bool ready = false;
  if (Status s = tryRecv(from, &whole, &size, &ready); !s.ok())
    return s;
  *data = static_cast<const char *>(whole) + offset;
  return Status::success();
}

Status InProcessTransport::tryRecv(const ConnectionKey &from, const void **data,
                                   size_t *bytes, bool *ready) {
  *ready = false;
  Receiving *r = nullptr;
  if (Status s = findRecv("tryRecv from", from, &r); !s.ok())
    return s;
  const char *inlineData = nullptr;
  size_t inlineBytes = 0;
  const std::vector<SlotRing::Ref> *refs = nullptr;
  if (r->ring->frontParts(&inlineData, &inlineBytes, bytes, &refs)) {
    if (refs->empty()) {
      *data = inlineData;
    } else {
      // Parts left in the sender's memory: fetched whole, once per message.
      if (r->fetchedAt != r->ring->freed()) {
        r->fetched.resize(*bytes);
        copyOut(inlineData, inlineBytes, *refs, 0, r->fetched.data(), *bytes);
        if (Status s = checkSender(from); !s.ok())
          return s;
        r->fetchedAt = r->ring->freed();
      }
      *data = r->fetched.data();
    }
    *ready = true;
    return Status::success();
  }
  if (fabric_->anyFailure.load(std::memory_order_acquire))
    return peerFailed(from.peer);
  return Status::success();
}

Status InProcessTransport::releaseRecv(const ConnectionKey &from) {
  Receiving *r = nullptr;
  if (Status s = findRecv("releaseRecv from", from, &r); !s.ok())
    return s;
  const char *inlineData = nullptr;
  size_t inlineBytes = 0, size = 0;
  const std::vector<SlotRing::Ref> *refs = nullptr;
  // Views into the sender's memory were read by now: as after a copy, a
  // sender that failed meanwhile may have changed what they showed.
  bool inPlace = r->ring->frontParts(&inlineData, &inlineBytes, &size, &refs) &&
                 !refs->empty();
  if (!r->ring->pop())
    return Status(ErrorCode::InvalidArgument,
                  "in-process transport, rank " + std::to_string(rank_) +
                      ": releaseRecv from peer " + std::to_string(from.peer) +
                      " on channel " + std::to_string(from.channel) +
                      " with no message received");
  return inPlace ? checkSender(from) : Status::success();
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
