//===- ChannelMessages.h - a block's connections and messages ---*- C++ -*-===//
//
// collrt::dev::Channel's messages (docs/gpu-runtime.md), over ChannelState.h:
// a block's connections, the message layout, the slots of the simple
// protocol, the LL protocol's lines and the staging buffer.
//
// The logical message of an instruction on c chunks in tile t is the CPU
// executor's, with 16-byte alignment:
//
//   words 0, 1:      t, c
//   words 2 .. c+1:  the elements of each chunk's slice in tile t
//   (padded to 16 bytes), then each slice, each padded to 16 bytes.
//
// Simple protocol: the sender waits for a free slot (posted - *tail <
// slots), writes the logical message into the slot (all threads, 16-byte
// stores where aligned), then one thread publishes *head = posted + 1 with
// release semantics after a block barrier; the receiver's thread 0 polls
// *head with acquire loads, a barrier lets every thread read the slot, and
// after another barrier thread 0 publishes *tail = consumed + 1 (release).
//
// LL protocol (NCCL's LL): word w of the logical message travels in line w
// of the slot's LL area, a 16-byte store of {word low half, flag, word high
// half, flag} with flag = the message number + 1 (32 bits). The receiver's
// threads poll their own lines until both flags match; no head, no fence.
// A message of c chunks uses LL when c * largestSlice * elementSize <=
// llBytes: both sides compute it alike from the launch.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELMESSAGES_H
#define COLLRT_DEVICE_CHANNELMESSAGES_H

#include "collrt/device/ChannelState.h"

namespace collrt {
namespace dev {
namespace detail {

/// `bytes` rounded up to 16.
COLLRT_DEVICE uint64_t round16(uint64_t bytes) {
  return (bytes + 15) & ~uint64_t(15);
}
/// Bytes of a message's header for c chunks (16 + 8 c, padded to 16).
COLLRT_DEVICE uint64_t headerBytes(uint64_t chunks) {
  return round16(16 + 8 * chunks);
}

/// In DeviceConnection::sizes: the message went by the LL protocol.
constexpr uint64_t kLLMessage = 1ull << 63;

/// 16 bytes: what the backends' aligned loads and stores move (load16,
/// store16).
struct alignas(16) Pack16 {
  uint64_t w[2];
};

/// Where a message is read or written: a slot (simple), a slot's LL area
/// (ll), or a staging buffer (simple layout).
struct Port {
  char *data = nullptr;
  bool ll = false;
  uint32_t flag = 0;
};

template <class T, class Op, class B>
class ChannelMessages : public ChannelState<T, Op, B> {
  using State = ChannelState<T, Op, B>;

public:
  COLLRT_DEVICE explicit ChannelMessages(const LaunchArgs &args)
      : State(args) {}

protected:
  using State::aborted_;
  using State::channel_;
  using State::ctx_;
  using State::endWait;
  using State::fail;
  using State::kE;
  using State::opcode_;
  using State::tile_;
  using State::writeState;

  /// This channel's connection to (sending) or from `peer`; fails when
  /// there is none.
  COLLRT_DEVICE const DeviceConnection *connection(bool sending, int64_t peer) {
    const DeviceConnection *c = nullptr;
    if (peer >= 0 && peer < ctx_->nranks) {
      size_t at = size_t(peer) * size_t(ctx_->maxChannels) + size_t(channel_);
      c = sending ? &ctx_->sendTo[at] : &ctx_->recvFrom[at];
      if (!c->buffers)
        c = nullptr;
    }
    if (!c)
      fail(wait::NoConnection,
           (sending ? 0 : (1ull << 40)) | uint64_t(uint32_t(peer)));
    return c;
  }

  /// Whether a message of `count` chunks on `c` goes by the LL protocol.
  COLLRT_DEVICE bool useLL(int64_t count, const DeviceConnection &c) const {
    return c.llBuffers &&
           uint64_t(count) * uint64_t(ctx_->largestSlice) * uint64_t(kE) <=
               ctx_->llBytes;
  }
  /// Thread 0: waits until the connection has a free slot for message
  /// `seq`; false when it gave up.
  COLLRT_DEVICE bool waitForRoom(const DeviceConnection &c, uint64_t seq,
                                 int64_t peer) const {
    if (seq - B::loadAcquireSys(c.tail) < c.slots)
      return true;
    writeState(opcode_, peer, wait::WaitSend, seq);
    typename B::Poller poller;
    while (seq - B::loadAcquireSys(c.tail) >= c.slots)
      if (poller.giveUp(ctx_->abortFlag)) {
        endWait(true);
        return false;
      }
    endWait(false);
    return true;
  }

  /// Word w of an incoming message (after it arrived).
  COLLRT_DEVICE uint64_t inWord(const Port &in, uint64_t w) const {
    if (in.ll) {
      uint64_t v = 0;
      B::loadLine(in.data + 16 * w, in.flag, &v);
      return v;
    }
    return B::load64(in.data + 8 * w);
  }
  COLLRT_DEVICE void outWord(const Port &out, uint64_t w, uint64_t v) const {
    if (out.ll)
      B::storeLine(out.data + 16 * w, v, out.flag);
    else
      B::store64(out.data + 8 * w, v);
  }

  /// Where outgoing message `seq` goes: its slot (`slot`, LL or simple),
  /// or this channel's staging buffer when `staged`.
  COLLRT_DEVICE Port outPort(const DeviceConnection &c, uint64_t seq,
                             uint64_t slot, int64_t count, bool staged) const {
    Port p;
    if (staged) {
      p.data = ctx_->staging + size_t(channel_) * ctx_->stagingBytes;
      return p;
    }
    p.ll = useLL(count, c);
    p.flag = uint32_t(seq + 1);
    p.data = p.ll ? c.llBuffers + slot * c.llSlotBytes
                  : c.buffers + slot * c.slotBytes;
    return p;
  }

  /// Waits for message `seq` and checks its tile and chunk count (every
  /// thread alike afterwards). False when the block gave up or failed.
  COLLRT_DEVICE bool receiveHeader(const DeviceConnection &c, const Port &in,
                                   uint64_t seq, int64_t count, int64_t from) {
    bool gaveUp = false;
    if (!in.ll) {
      if (B::tid() == 0 && B::loadAcquireSys(c.head) <= seq) {
        writeState(opcode_, from, wait::WaitRecv, seq);
        typename B::Poller poller;
        while (B::loadAcquireSys(c.head) <= seq)
          if (poller.giveUp(ctx_->abortFlag)) {
            gaveUp = true;
            break;
          }
        endWait(gaveUp);
      }
    } else {
      // The tile and chunk count first (a message of another chunk count
      // has other header lines), then the slices' lines, a thread each;
      // thread 0 records the wait.
      gaveUp = !pollLines(in, 0, 2, from, seq);
    }
    if (B::syncAny(gaveUp)) {
      aborted_ = true;
      return false;
    }
    uint64_t tile = inWord(in, 0), chunks = inWord(in, 1);
    if (tile != uint64_t(tile_)) {
      fail(wait::MessageTile, tile);
      return false;
    }
    if (chunks != uint64_t(count)) {
      fail(wait::MessageChunks, chunks);
      return false;
    }
    if (in.ll && B::syncAny(!pollLines(in, 2, 2 + count, from, seq))) {
      aborted_ = true;
      return false;
    }
    return true;
  }

  /// Polls LL lines [first, end) of `in`, a thread each; false when this
  /// thread gave up.
  COLLRT_DEVICE bool pollLines(const Port &in, int64_t first, int64_t end,
                               int64_t from, uint64_t seq) const {
    uint64_t v;
    for (int64_t w = first + B::tid(); w < end; w += B::nthreads()) {
      const char *line = in.data + 16 * w;
      if (B::loadLine(line, in.flag, &v))
        continue;
      bool records = B::tid() == 0 && w == first;
      if (records)
        writeState(opcode_, from, wait::WaitRecv, seq);
      typename B::Poller poller;
      bool gaveUp = false;
      while (!B::loadLine(line, in.flag, &v))
        if (poller.giveUp(ctx_->abortFlag)) {
          gaveUp = true;
          break;
        }
      if (records)
        endWait(gaveUp);
      if (gaveUp)
        return false;
    }
    return true;
  }

  /// Copies a staged message (simple layout) into its slot.
  COLLRT_DEVICE void forwardStaged(const Port &staging, const Port &out,
                                   uint64_t bytes) const {
    if (out.ll) {
      for (uint64_t w = B::tid(); w < bytes / 8; w += B::nthreads())
        B::storeLine(out.data + 16 * w, B::load64(staging.data + 8 * w),
                     out.flag);
      return;
    }
    for (uint64_t i = B::tid(); i < bytes / 16; i += B::nthreads())
      B::store16(out.data + 16 * i, B::load16(staging.data + 16 * i));
  }
};

} // namespace detail
} // namespace dev
} // namespace collrt

#endif
