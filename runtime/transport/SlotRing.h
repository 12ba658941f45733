//===- SlotRing.h - a bounded single-producer-consumer FIFO -----*- C++ -*-===//
//
// The in-process connection and the TCP transport's local queues: `slots`
// message buffers in a ring, one sending thread and one receiving thread.
// The sender copies into the slot at `tail` and publishes it with a release
// store; the receiver reads the slot at `head` after an acquire load and
// frees it by advancing `head`. A slot's buffer grows to the largest message
// it held, so memory follows the messages actually sent, not slotBytes.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_SLOTRING_H
#define COLLRT_TRANSPORT_SLOTRING_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace collrt {
namespace transport {

class SlotRing {
public:
  explicit SlotRing(uint32_t slots) : slots_(slots), buffers_(slots) {}

  uint32_t slots() const { return slots_; }

  /// Sender side: true when a slot is free.
  bool canPush() const {
    return tail_.load(std::memory_order_relaxed) -
               head_.load(std::memory_order_acquire) <
           slots_;
  }
  /// Sender side: the buffer of the next slot, sized to `bytes`; fill it,
  /// then commit(). Only valid when canPush().
  char *reserve(size_t bytes) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    Slot &slot = buffers_[tail % slots_];
    if (slot.capacity < bytes) {
      // Messages rotate through the slots, and each slot's buffer grows to
      // the largest message it held: without this, a connection would end
      // up holding `slots` buffers of its largest message. A free slot
      // (the receiver is done with it: indices tail + 1 ... head + slots
      // - 1, head read now; a later pop only frees more) that already has
      // a large enough buffer lends it instead, so the buffers a connection
      // holds are as many as its messages in flight.
      uint64_t end = head_.load(std::memory_order_acquire) + uint64_t(slots_);
      for (uint64_t i = tail + 1; i < end; ++i) {
        Slot &free = buffers_[i % slots_];
        if (free.capacity >= bytes) {
          std::swap(slot.data, free.data);
          std::swap(slot.capacity, free.capacity);
          break;
        }
      }
      if (slot.capacity < bytes) {
        // Uninitialized: the message is written over it before it is read.
        slot.data.reset(new char[bytes]);
        slot.capacity = bytes;
      }
    }
    slot.bytes = bytes;
    slot.inlineBytes = bytes;
    slot.refs.clear();
    return slot.data.get();
  }
  void commit() {
    tail_.store(tail_.load(std::memory_order_relaxed) + 1,
                std::memory_order_release);
  }
  /// Sender side: copies a message in; false when every slot is taken.
  bool tryPush(const void *data, size_t bytes) {
    if (!canPush())
      return false;
    char *dst = reserve(bytes);
    if (bytes)
      std::memcpy(dst, data, bytes);
    commit();
    return true;
  }

  /// A part of a message left in the sender's memory.
  struct Ref {
    const char *data;
    size_t bytes;
  };
  /// Sender side: a message of `count` parts; false when every slot is
  /// taken. Gathered into the slot, or with `inPlace` only parts[0] is
  /// copied and the others are kept as references (the sender keeps them
  /// unchanged until the receiver frees the slot).
  bool tryPushParts(const Ref *parts, size_t count, bool inPlace) {
    if (!canPush())
      return false;
    size_t total = 0;
    for (size_t i = 0; i < count; ++i)
      total += parts[i].bytes;
    size_t copied = inPlace ? parts[0].bytes : total;
    char *dst = reserve(copied);
    Slot &slot = buffers_[tail_.load(std::memory_order_relaxed) % slots_];
    slot.refs.clear();
    for (size_t i = 0, at = 0; i < count; ++i) {
      if (inPlace && i > 0) {
        slot.refs.push_back(parts[i]);
        continue;
      }
      if (parts[i].bytes)
        std::memcpy(dst + at, parts[i].data, parts[i].bytes);
      at += parts[i].bytes;
    }
    slot.bytes = total;
    slot.inlineBytes = copied;
    commit();
    return true;
  }
  /// Receiver side: the oldest message as its parts: the first
  /// *inlineBytes bytes in the slot, the rest (*refs, may be empty) in the
  /// sender's memory; false when none is there.
  bool frontParts(const char **inlineData, size_t *inlineBytes, size_t *bytes,
                  const std::vector<Ref> **refs) const {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire))
      return false;
    const Slot &slot = buffers_[head % slots_];
    *inlineData = slot.data.get();
    *inlineBytes = slot.inlineBytes;
    *bytes = slot.bytes;
    *refs = &slot.refs;
    return true;
  }
  /// Messages freed by the receiver so far (a sender waits for the ones it
  /// left references in).
  uint64_t freed() const { return head_.load(std::memory_order_acquire); }
  /// Messages pushed so far (sender side).
  uint64_t pushed() const { return tail_.load(std::memory_order_relaxed); }

  /// Receiver side: the oldest message, or false when none is there.
  bool front(const void **data, size_t *bytes) const {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire))
      return false;
    const Slot &slot = buffers_[head % slots_];
    *data = slot.data.get();
    *bytes = slot.bytes;
    return true;
  }
  /// Receiver side: frees the oldest message; false when there is none.
  bool pop() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire))
      return false;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  /// Messages not yet freed (either side; a snapshot).
  uint64_t occupied() const {
    return tail_.load(std::memory_order_acquire) -
           head_.load(std::memory_order_acquire);
  }

private:
  struct Slot {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;    ///< bytes `data` holds
    size_t bytes = 0;       ///< of the message in it
    size_t inlineBytes = 0; ///< of those, in `data`; the rest in `refs`
    std::vector<Ref> refs;
  };
  const uint32_t slots_;
  std::vector<Slot> buffers_;
  std::atomic<uint64_t> head_{0};
  std::atomic<uint64_t> tail_{0};
};

} // namespace transport
} // namespace collrt

#endif
