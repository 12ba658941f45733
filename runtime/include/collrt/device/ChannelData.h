//===- ChannelData.h - a block's loads, stores and combines -----*- C++ -*-===//
//
// collrt::dev::Channel's data movement, over ChannelMessages.h: runs of
// elements loaded from a local buffer or an incoming message, combined
// with the reduction (collrt/device/DeviceArith.h), stored to a local
// buffer and/or an outgoing message, by all threads of the block: 16-byte
// packs where every operand is aligned (several in flight a thread), else
// 8-byte words (LL lines, unaligned operands, the tail).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELDATA_H
#define COLLRT_DEVICE_CHANNELDATA_H

#include "collrt/device/ChannelMessages.h"

namespace collrt {
namespace dev {
namespace detail {

template <class T, class Op, class B>
class ChannelData : public ChannelMessages<T, Op, B> {
  using Messages = ChannelMessages<T, Op, B>;

public:
  COLLRT_DEVICE explicit ChannelData(const LaunchArgs &args) : Messages(args) {}

protected:
  using Messages::ctx_;
  using Messages::kE;
  using Messages::kOp;
  using typename Messages::Element;
  using typename Messages::S;

  COLLRT_DEVICE static uint64_t loadPartial(const char *p, int64_t bytes) {
    if (bytes == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0)
      return B::load64(p);
    S e[8 / kE] = {};
    for (int64_t k = 0; k < bytes / kE; ++k)
      e[k] = B::template loadElement<S>(p + k * kE);
    uint64_t v;
    __builtin_memcpy(&v, e, 8);
    return v;
  }
  COLLRT_DEVICE static void storePartial(char *p, uint64_t v, int64_t bytes) {
    if (bytes == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
      B::store64(p, v);
      return;
    }
    S e[8 / kE];
    __builtin_memcpy(e, &v, 8);
    for (int64_t k = 0; k < bytes / kE; ++k)
      B::template storeElement<S>(p + k * kE, e[k]);
  }
  COLLRT_DEVICE static uint64_t combineWord(uint64_t a, uint64_t b,
                                            int64_t bytes) {
    S x[8 / kE], y[8 / kE];
    __builtin_memcpy(x, &a, 8);
    __builtin_memcpy(y, &b, 8);
    for (int64_t k = 0; k < bytes / kE; ++k)
      x[k] = arith::combine<Element, kOp>(x[k], y[k]);
    __builtin_memcpy(&a, x, 8);
    return a;
  }
  COLLRT_DEVICE static Pack16 combinePack(Pack16 a, const Pack16 &b) {
    S x[16 / kE], y[16 / kE];
    __builtin_memcpy(x, &a, 16);
    __builtin_memcpy(y, &b, 16);
    COLLRT_UNROLL
    for (int k = 0; k < int(16 / kE); ++k)
      x[k] = arith::combine<Element, kOp>(x[k], y[k]);
    __builtin_memcpy(&a, x, 16);
    return a;
  }

  /// A run of `n` elements: A (local `a`, or the incoming message at byte
  /// `off`), optionally combined with local `b`, stored to local `d` and/or
  /// the outgoing message at byte `off`. Returns whether this thread gave
  /// up waiting for an LL line.
  struct Run {
    const char *a = nullptr;
    const char *b = nullptr;
    char *d = nullptr;
    uint64_t off = 0;
    int64_t n = 0;
  };

  /// Packs i, i + nt, ... of a run, U at a time, while U remain.
  template <int U>
  COLLRT_DEVICE void packLoop(const char *a, const char *b, char *d, char *o,
                              int64_t packs, int64_t nt, int64_t *at) const {
    int64_t i = *at;
    for (; i + (U - 1) * nt < packs; i += U * nt) {
      Pack16 v[U];
      COLLRT_UNROLL
      for (int u = 0; u < U; ++u)
        v[u] = B::load16(a + 16 * (i + u * nt));
      if (b) {
        Pack16 w[U];
        COLLRT_UNROLL
        for (int u = 0; u < U; ++u)
          w[u] = B::load16(b + 16 * (i + u * nt));
        COLLRT_UNROLL
        for (int u = 0; u < U; ++u)
          v[u] = combinePack(v[u], w[u]);
      }
      COLLRT_UNROLL
      for (int u = 0; u < U; ++u) {
        if (d)
          B::store16(d + 16 * (i + u * nt), v[u]);
        if (o)
          B::store16(o + 16 * (i + u * nt), v[u]);
      }
    }
    *at = i;
  }

  COLLRT_DEVICE_CALL bool moveRun(const Run &r, bool aMsg, const Port &in,
                                  bool outUsed, const Port &out) const {
    int64_t bytes = r.n * kE;
    if (bytes <= 0)
      return false;
    const char *a = aMsg ? (in.ll ? nullptr : in.data + r.off) : r.a;
    char *o = outUsed && !out.ll ? out.data + r.off : nullptr;
    int64_t start = 0;
    uintptr_t bits =
        reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(r.b) |
        reinterpret_cast<uintptr_t>(r.d) | reinterpret_cast<uintptr_t>(o);
    if (a && (!outUsed || o) && (bits & 15) == 0) {
      // Every operand 16-byte aligned: whole packs, 8 loads in flight a
      // thread (8 packs of a copy, 4 of each operand of a combine).
      int64_t packs = bytes / 16, nt = B::nthreads();
      int64_t i = B::tid();
      if (r.b)
        packLoop<4>(a, r.b, r.d, o, packs, nt, &i);
      else
        packLoop<8>(a, nullptr, r.d, o, packs, nt, &i);
      for (; i < packs; i += nt) {
        Pack16 v = B::load16(a + 16 * i);
        if (r.b)
          v = combinePack(v, B::load16(r.b + 16 * i));
        if (r.d)
          B::store16(r.d + 16 * i, v);
        if (o)
          B::store16(o + 16 * i, v);
      }
      start = packs * 16;
    }
    // The rest (or everything) by 8-byte words: LL lines, unaligned
    // operands, the tail.
    bool gaveUp = false;
    int64_t words = (bytes + 7) / 8;
    for (int64_t w = start / 8 + B::tid(); w < words; w += B::nthreads()) {
      int64_t len = bytes - 8 * w < 8 ? bytes - 8 * w : 8;
      uint64_t v;
      if (aMsg && in.ll) {
        const char *line = in.data + 16 * (r.off / 8 + uint64_t(w));
        if (!B::loadLine(line, in.flag, &v)) {
          typename B::Poller poller;
          while (!B::loadLine(line, in.flag, &v))
            if (poller.giveUp(ctx_->abortFlag)) {
              gaveUp = true;
              break;
            }
          if (gaveUp)
            break;
        }
      } else {
        v = loadPartial(a + 8 * w, len);
      }
      if (r.b)
        v = combineWord(v, loadPartial(r.b + 8 * w, len), len);
      if (r.d)
        storePartial(r.d + 8 * w, v, len);
      if (outUsed) {
        if (out.ll)
          B::storeLine(out.data + 16 * (r.off / 8 + uint64_t(w)), v, out.flag);
        else
          B::store64(o + 8 * w, v);
      }
    }
    return gaveUp;
  }
};

} // namespace detail
} // namespace dev
} // namespace collrt

#endif
