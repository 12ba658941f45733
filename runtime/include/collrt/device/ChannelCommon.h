//===- ChannelCommon.h - Channel's instructions, any backend ----*- C++ -*-===//
//
// The implementation of collrt::dev::Channel (Channel.h) once, for the GPU
// (ChannelCuda.cuh) and the host emulation (ChannelHost.h): a backend `B`
// supplies the block's threads, barriers, release/acquire flags, the
// low-latency lines and 16-byte loads and stores; everything else (tiles,
// slices, message layout, protocol choice, waits, checks) is here, so the
// emulator on a machine without a GPU runs what the GPU runs. In layers,
// each a class over the one before:
//
//   ChannelState.h     the block: its tile, progress (`after`), abortFlag,
//                      its waitState record and errors; its buffers' slices
//   ChannelMessages.h  connections, the message layout, slots, LL lines
//   ChannelData.h      moving and combining runs of elements
//   ChannelCommon.h    the instructions (collrt/Opcodes.h's opcodes)
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELCOMMON_H
#define COLLRT_DEVICE_CHANNELCOMMON_H

#include "collrt/device/ChannelData.h"

namespace collrt {
namespace dev {
namespace detail {

template <class T, class Op, class B>
class ChannelImpl : public ChannelData<T, Op, B> {
  using Data = ChannelData<T, Op, B>;
  using Run = typename Data::Run;
  using Data::aborted_;
  using Data::channel_;
  using Data::combinePack;
  using Data::combineWord;
  using Data::complete;
  using Data::connection;
  using Data::ctx_;
  using Data::done_;
  using Data::fail;
  using Data::forwardStaged;
  using Data::inWord;
  using Data::kE;
  using Data::loadPartial;
  using Data::moveRun;
  using Data::opcode_;
  using Data::outPort;
  using Data::outWord;
  using Data::peer_;
  using Data::rangeOk;
  using Data::receiveHeader;
  using Data::setSlice;
  using Data::sliceData;
  using Data::sliceElements;
  using Data::step_;
  using Data::storePartial;
  using Data::tile_;
  using Data::useLL;
  using Data::waitForRoom;

public:
  COLLRT_DEVICE explicit ChannelImpl(const LaunchArgs &args) : Data(args) {}

  COLLRT_DEVICE void send(int64_t to, BufferKind src, int64_t srcIndex,
                          int64_t count, int64_t step) {
    execute(Opcode::Send, -1, to, src, srcIndex, Input, 0, count, step);
  }
  COLLRT_DEVICE void recv(int64_t from, BufferKind dst, int64_t dstIndex,
                          int64_t count, int64_t step) {
    execute(Opcode::Recv, from, -1, Input, 0, dst, dstIndex, count, step);
  }
  COLLRT_DEVICE void copy(BufferKind src, int64_t srcIndex, BufferKind dst,
                          int64_t dstIndex, int64_t count, int64_t step) {
    execute(Opcode::Copy, -1, -1, src, srcIndex, dst, dstIndex, count, step);
  }
  COLLRT_DEVICE void reduce(BufferKind src, int64_t srcIndex, BufferKind dst,
                            int64_t dstIndex, int64_t count, int64_t step) {
    execute(Opcode::Reduce, -1, -1, src, srcIndex, dst, dstIndex, count, step);
  }
  /// reduce with fanin: dst[j] = dst[j] (op) src[j] (op) src[count + j]
  /// ... (op) src[(fanin - 1) count + j] for j < count, in one pass over
  /// dst (sched.reduce's `fanin`; the sources must not overlap dst).
  COLLRT_DEVICE_CALL void reduceMany(BufferKind src, int64_t srcIndex,
                                     BufferKind dst, int64_t dstIndex,
                                     int64_t count, int64_t fanin,
                                     int64_t step) {
    if (fanin == 1) {
      execute(Opcode::Reduce, -1, -1, src, srcIndex, dst, dstIndex, count,
              step);
      return;
    }
    if (aborted_) {
      ++done_;
      return;
    }
    opcode_ = opcodeValue(Opcode::Reduce);
    step_ = step;
    peer_ = -1;
    if (fanin < 1 || count < 1 || !rangeOk(src, srcIndex, count * fanin) ||
        !rangeOk(dst, dstIndex, count)) {
      if (!aborted_)
        fail(wait::ChunkRange, uint64_t(count * fanin));
      ++done_;
      return;
    }
    if (src == dst && srcIndex < dstIndex + count &&
        dstIndex < srcIndex + count * fanin) {
      fail(wait::ChunkRange, (uint64_t(uint32_t(src)) << 40) |
                                 uint64_t(srcIndex + count * fanin));
      ++done_;
      return;
    }
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = sliceElements(dst, dstIndex + j);
      bool aligned =
          (reinterpret_cast<uintptr_t>(sliceData(dst, dstIndex + j)) & 15) == 0;
      for (int64_t i = 0; i < fanin; ++i) {
        int64_t other = sliceElements(src, srcIndex + i * count + j);
        if (other != n) {
          fail(wait::SliceMismatch, (uint64_t(j) << 32) | uint64_t(other));
          ++done_;
          return;
        }
        aligned = aligned && (reinterpret_cast<uintptr_t>(
                                  sliceData(src, srcIndex + i * count + j)) &
                              15) == 0;
      }
      char *d = sliceData(dst, dstIndex + j);
      // The first sources' addresses once per slice, not per 16 bytes
      // (sliceData reads the context, which every store to d might alias).
      constexpr int64_t kCached = 8;
      const char *cached[kCached];
      for (int64_t i = 0; i < fanin && i < kCached; ++i)
        cached[i] = sliceData(src, srcIndex + i * count + j);
      auto source = [&](int64_t i) -> const char * {
        return i < kCached ? cached[i]
                           : sliceData(src, srcIndex + i * count + j);
      };
      int64_t bytes = n * kE, start = 0;
      if (aligned) {
        int64_t packs = bytes / 16;
        for (int64_t p = B::tid(); p < packs; p += B::nthreads()) {
          Pack16 v = B::load16(d + 16 * p);
          for (int64_t i = 0; i < fanin; ++i)
            v = combinePack(v, B::load16(source(i) + 16 * p));
          B::store16(d + 16 * p, v);
        }
        start = packs * 16;
      }
      int64_t words = (bytes + 7) / 8;
      for (int64_t w = start / 8 + B::tid(); w < words; w += B::nthreads()) {
        int64_t len = bytes - 8 * w < 8 ? bytes - 8 * w : 8;
        uint64_t v = loadPartial(d + 8 * w, len);
        for (int64_t i = 0; i < fanin; ++i)
          v = combineWord(v, loadPartial(source(i) + 8 * w, len), len);
        storePartial(d + 8 * w, v, len);
      }
    }
    // Every thread's stores to dst before thread 0 publishes progress: a
    // channel that waits for this instruction (`after`) reads dst next.
    B::sync();
    complete();
  }
  COLLRT_DEVICE void recvReduceSend(int64_t from, int64_t to, BufferKind src,
                                    int64_t srcIndex, int64_t count,
                                    int64_t step) {
    execute(Opcode::RecvReduceSend, from, to, src, srcIndex, Input, 0, count,
            step);
  }
  COLLRT_DEVICE void recvCopySend(int64_t from, int64_t to, BufferKind dst,
                                  int64_t dstIndex, int64_t count,
                                  int64_t step) {
    execute(Opcode::RecvCopySend, from, to, Input, 0, dst, dstIndex, count,
            step);
  }
  COLLRT_DEVICE void recvReduceCopy(int64_t from, BufferKind src,
                                    int64_t srcIndex, BufferKind dst,
                                    int64_t dstIndex, int64_t count,
                                    int64_t step) {
    execute(Opcode::RecvReduceCopy, from, -1, src, srcIndex, dst, dstIndex,
            count, step);
  }
  COLLRT_DEVICE void recvReduceCopySend(int64_t from, int64_t to,
                                        BufferKind src, int64_t srcIndex,
                                        BufferKind dst, int64_t dstIndex,
                                        int64_t count, int64_t step) {
    execute(Opcode::RecvReduceCopySend, from, to, src, srcIndex, dst, dstIndex,
            count, step);
  }

private:
  /// Elements of chunk j of the instruction (uniform on every thread).
  COLLRT_DEVICE int64_t chunkElements(Opcode opcode, const Port &in, int src,
                                      int64_t srcIndex, int dst,
                                      int64_t dstIndex, int64_t j) const {
    (void)dst;
    (void)dstIndex;
    // The message's sizes where there is one, else src's.
    if (!opcodeReceives(opcode))
      return sliceElements(src, srcIndex + j);
    return int64_t(inWord(in, 2 + uint64_t(j)));
  }

  COLLRT_DEVICE_CALL void execute(Opcode opcode, int64_t from, int64_t to,
                                  int src, int64_t srcIndex, int dst,
                                  int64_t dstIndex, int64_t count,
                                  int64_t step) {
    if (aborted_) {
      ++done_;
      return;
    }
    opcode_ = opcodeValue(opcode);
    step_ = step;
    bool receives = opcodeReceives(opcode), sends = opcodeSends(opcode);
    bool readsSrc = opcodeReadsSrc(opcode), writesDst = opcodeWritesDst(opcode);
    // For reduce and the recv_reduce forms, the local operand B is src and
    // A the message (reduce: A is dst), as in the CPU executor.
    bool combines = opcodeReduces(opcode);
    peer_ = receives ? from : to;
    if ((readsSrc && !rangeOk(src, srcIndex, count)) ||
        (writesDst && !rangeOk(dst, dstIndex, count))) {
      ++done_;
      return;
    }
    const DeviceConnection *inConn = nullptr, *outConn = nullptr;
    if ((receives && !(inConn = connection(false, from))) ||
        (sends && !(outConn = connection(true, to)))) {
      ++done_;
      return;
    }

    // The incoming message: wait for it, check its header.
    Port in;
    uint64_t seqIn = 0, inSlot = 0;
    if (receives) {
      seqIn = B::loadRelaxed(inConn->counter);
      inSlot = seqIn % inConn->slots;
      in.ll = useLL(count, *inConn);
      in.flag = uint32_t(seqIn + 1);
      in.data = in.ll ? inConn->llBuffers + inSlot * inConn->llSlotBytes
                      : inConn->buffers + inSlot * inConn->slotBytes;
      if (!receiveHeader(*inConn, in, seqIn, count, from)) {
        ++done_;
        return;
      }
    }

    // Sizes: every chunk's slice, checked against the instruction.
    uint64_t bytes = headerBytes(uint64_t(count));
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
      if (receives && (n < 0 || n > ctx_->tileElements)) {
        fail(wait::MessageSlice, (uint64_t(j) << 32) | uint64_t(uint32_t(n)));
        break;
      }
      if (combines) {
        int64_t other = opcode == Opcode::Reduce
                            ? sliceElements(dst, dstIndex + j)
                            : sliceElements(src, srcIndex + j);
        if (other != n) {
          fail(wait::SliceMismatch, (uint64_t(j) << 32) | uint64_t(other));
          break;
        }
      }
      bytes += round16(uint64_t(n) * uint64_t(kE));
    }
    if (!aborted_ && receives && !in.ll) {
      uint64_t sent =
          B::load64(reinterpret_cast<const char *>(&inConn->sizes[inSlot]));
      if (sent != bytes)
        fail(wait::MessageBytes, (sent & kLLMessage ? 1ull << 47 : 0) |
                                     (sent & ((1ull << 47) - 1)));
    }
    if (aborted_) {
      ++done_;
      return;
    }

    // The outgoing message: its slot when it has room now (a send waits for
    // it), else this channel's staging buffer.
    Port out;
    uint64_t seqOut = 0, outSlot = 0;
    bool staged = false;
    if (sends) {
      seqOut = B::loadRelaxed(outConn->counter);
      outSlot = seqOut % outConn->slots;
      bool room = false, gaveUp = false;
      if (B::tid() == 0) {
        if (!receives)
          gaveUp = !waitForRoom(*outConn, seqOut, to);
        else
          room = seqOut - B::loadAcquireSys(outConn->tail) < outConn->slots;
      }
      if (B::syncAny(gaveUp)) {
        aborted_ = true;
        ++done_;
        return;
      }
      staged = receives && !B::syncAny(room);
      out = outPort(*outConn, seqOut, outSlot, count, staged);
      uint64_t capacity =
          staged ? ctx_->stagingBytes
                 : (out.ll ? outConn->llSlotBytes / 2 : outConn->slotBytes);
      if (bytes > capacity) {
        fail(wait::MessageTooLarge, bytes);
        ++done_;
        return;
      }
      for (int64_t w = B::tid(); w < 2 + count; w += B::nthreads()) {
        uint64_t v = w == 0 ? uint64_t(tile_)
                     : w == 1
                         ? uint64_t(count)
                         : uint64_t(chunkElements(opcode, in, src, srcIndex,
                                                  dst, dstIndex, w - 2));
        outWord(out, uint64_t(w), v);
      }
    }

    bool gaveUp = moveData(opcode, in, out, receives, sends, combines,
                           writesDst, src, srcIndex, dst, dstIndex, count);

    // Release the received slot, publish the message.
    if (B::syncAny(gaveUp) || aborted_) {
      aborted_ = true;
      ++done_;
      return;
    }
    if (receives && B::tid() == 0) {
      B::storeReleaseSys(inConn->tail, seqIn + 1);
      B::storeRelaxed(inConn->counter, seqIn + 1);
    }
    if (staged) {
      bool waited = false;
      if (B::tid() == 0)
        waited = !waitForRoom(*outConn, seqOut, to);
      if (B::syncAny(waited)) {
        aborted_ = true;
        ++done_;
        return;
      }
      Port staging = out;
      out = outPort(*outConn, seqOut, outSlot, count, false);
      forwardStaged(staging, out, bytes);
      B::sync();
    }
    if (sends && B::tid() == 0) {
      // head also counts LL messages (the receiver does not wait for it;
      // a simple receiver of an LL message sees kLLMessage in sizes).
      B::storeRelaxed(&outConn->sizes[outSlot],
                      bytes | (out.ll ? kLLMessage : 0));
#if COLLRT_LL_RELAXED_HEAD
      // An LL receiver polls its lines, never head: head only counts the
      // message (the watchdog, the counts after the launch), so no
      // system-scope fence (which would wait for every outgoing LL store of
      // the block). A simple receiver that wrongly gets an LL message may
      // then see head before sizes: its diagnosis may name stale sizes.
      if (out.ll)
        B::storeRelaxedSys(outConn->head, seqOut + 1);
      else
#endif
        B::storeReleaseSys(outConn->head, seqOut + 1);
      B::storeRelaxed(outConn->counter, seqOut + 1);
    }
    complete();
  }

  /// The data of every chunk, merged into runs where slices are
  /// contiguous. Same-buffer copies and combines of overlapping ranges go
  /// chunk by chunk in the CPU executor's order (copies like memmove).
  COLLRT_DEVICE_CALL bool moveData(Opcode opcode, const Port &in,
                                   const Port &out, bool receives, bool sends,
                                   bool combines, bool writesDst, int src,
                                   int64_t srcIndex, int dst, int64_t dstIndex,
                                   int64_t count) {
    // src and dst both local (copy, reduce, recv_reduce_copy[_send]).
    bool local = opcodeReadsSrc(opcode) && writesDst;
    bool overlap = local && src == dst && srcIndex != dstIndex &&
                   srcIndex < dstIndex + count && dstIndex < srcIndex + count;
    if (overlap) {
      bool backwards = opcode == Opcode::Copy && dstIndex > srcIndex;
      uint64_t off = headerBytes(uint64_t(count));
      // Message offsets of chunk j: only the recv_reduce forms use them,
      // and they go forwards.
      bool gaveUp = false;
      for (int64_t k = 0; k < count; ++k) {
        int64_t j = backwards ? count - 1 - k : k;
        int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
        Run r;
        r.n = n;
        r.off = off;
        r.d = sliceData(dst, dstIndex + j);
        if (opcode == Opcode::Copy) {
          r.a = sliceData(src, srcIndex + j);
        } else if (opcode == Opcode::Reduce) {
          r.a = sliceData(dst, dstIndex + j);
          r.b = sliceData(src, srcIndex + j);
        } else {
          r.b = sliceData(src, srcIndex + j);
        }
        B::sync();
        if (opcode != Opcode::Reduce && !setSlice(dst, dstIndex + j, j, n))
          return false;
        gaveUp |= moveRun(r, receives, in, sends, out);
        B::sync();
        off += round16(uint64_t(n) * uint64_t(kE));
      }
      return gaveUp;
    }

    bool gaveUp = false;
    Run run;
    bool open = false;
    uint64_t off = headerBytes(uint64_t(count));
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
      if (writesDst && !setSlice(dst, dstIndex + j, j, n))
        return false;
      Run r;
      r.n = n;
      r.off = off;
      if (opcode == Opcode::Send || opcode == Opcode::Copy)
        r.a = sliceData(src, srcIndex + j);
      else if (opcode == Opcode::Reduce)
        r.a = sliceData(dst, dstIndex + j);
      if (combines)
        r.b = sliceData(src, srcIndex + j);
      if (writesDst)
        r.d = sliceData(dst, dstIndex + j);
      off += round16(uint64_t(n) * uint64_t(kE));
      int64_t bytes = run.n * kE;
      bool contiguous =
          open && (!r.a || r.a == run.a + bytes) &&
          (!r.b || r.b == run.b + bytes) && (!r.d || r.d == run.d + bytes) &&
          (!(receives || sends) || r.off == run.off + uint64_t(bytes));
      if (contiguous) {
        run.n += n;
        continue;
      }
      if (open)
        gaveUp |= moveRun(run, receives, in, sends, out);
      run = r;
      open = true;
    }
    if (open)
      gaveUp |= moveRun(run, receives, in, sends, out);
    return gaveUp;
  }
};

} // namespace detail
} // namespace dev
} // namespace collrt

#endif
