//===- Kernels.cpp - hand-written kernels for the device tests ------------===//
#include "Kernels.h"

#include "collrt/device/Channel.h"

namespace collrt {
namespace testing {

using namespace collrt::dev;

namespace {

template <class T, class Op> void ringAllReduce(LaunchArgs args) {
  constexpr int64_t m = 1;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks(), c = ch.channel();
  auto seg = [&](int64_t s) { return c * n * m + floorMod(s, n) * m; };
  const int64_t next = floorMod(r + 1, n), prev = floorMod(r - 1, n);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.send(next, Input, seg(r), m, 0);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvReduceSend(prev, next, Input, seg(r - s), m, s);
    ch.recvReduceCopySend(prev, next, Input, seg(r + 1), Output, seg(r + 1), m,
                          n - 1);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvCopySend(prev, next, Output, seg(r + 1 - s), m, n - 1 + s);
    ch.recv(prev, Output, seg(r + 2 - n), m, 2 * n - 2);
    ch.endTile();
  }
}

template <class T, class Op> void directAllToAll(LaunchArgs args) {
  constexpr int64_t k = 2;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.copy(Input, r * k, Output, r * k, k, 0);
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r + i, n);
      ch.send(peer, Input, peer * k, k, i);
    }
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r - i, n);
      ch.recv(peer, Output, peer * k, k, i);
    }
    ch.endTile();
  }
}

template <class T, class Op> void chainBroadcast(LaunchArgs args) {
  constexpr int64_t k = 3, root = 1;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  const int64_t i = floorMod(r - root, n);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    if (i == 0)
      ch.copy(Input, 0, Output, 0, k, 0);
    for (int64_t c = 0; c < k; ++c) {
      if (i == 0)
        ch.send(floorMod(r + 1, n), Input, c, 1, c);
      else if (i < n - 1)
        ch.recvCopySend(floorMod(r - 1, n), floorMod(r + 1, n), Output, c, 1,
                        c + i);
      else
        ch.recv(floorMod(r - 1, n), Output, c, 1, c + i);
    }
    ch.endTile();
  }
}

template <class T, class Op> void chainReduce(LaunchArgs args) {
  constexpr int64_t k = 2, root = 0;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  const int64_t i = floorMod(r - root - 1, n);
  const int64_t prev = floorMod(r - 1, n), next = floorMod(r + 1, n);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    for (int64_t c = 0; c < k; ++c) {
      if (i == 0)
        ch.send(next, Input, c, 1, c);
      else if (i < n - 1)
        ch.recvReduceSend(prev, next, Input, c, 1, c + i);
      else
        ch.recvReduceCopy(prev, Input, c, Output, c, 1, c + i);
    }
    ch.endTile();
  }
}

template <class T, class Op> void stagedAllGather(LaunchArgs args) {
  constexpr int64_t k = 2;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  const int64_t next = floorMod(r + 1, n), prev = floorMod(r - 1, n);
  // Channel 0's index of the recv of pair p = (s - 1) k + c.
  auto recvIndex = [&](int64_t s, int64_t c) {
    int64_t index = k;
    for (int64_t q = 1; q < s; ++q)
      index += k * (q < n - 1 ? 2 : 1);
    return index + c * (s < n - 1 ? 2 : 1);
  };
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    switch (ch.channel()) {
    case 0:
      for (int64_t c = 0; c < k; ++c)
        ch.send(next, Input, c, 1, 0);
      for (int64_t s = 1; s < n; ++s)
        for (int64_t c = 0; c < k; ++c) {
          int64_t p = (s - 1) * k + c;
          if (p > 0)
            ch.after(1, p); // channel 1's copy of pair p - 1
          ch.recv(prev, Scratch, 0, 1, s);
          if (s < n - 1)
            ch.send(next, Scratch, 0, 1, s);
        }
      break;
    case 1:
      ch.copy(Input, 0, Output, r * k, k, 0);
      for (int64_t s = 1; s < n; ++s)
        for (int64_t c = 0; c < k; ++c) {
          ch.after(0, recvIndex(s, c));
          ch.copy(Scratch, 0, Output, floorMod(r - s, n) * k + c, 1, s);
        }
      break;
    }
    ch.endTile();
  }
}

template <class T, class Op> void directReduceScatter(LaunchArgs args) {
  constexpr int64_t k = 2;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.copy(Input, r * k, Output, 0, k, 0);
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r + i, n);
      ch.send(peer, Input, peer * k, k, i);
    }
    for (int64_t i = 1; i < n; ++i) {
      ch.recv(floorMod(r - i, n), Scratch, 0, k, i);
      ch.reduce(Scratch, 0, Output, 0, k, i);
    }
    ch.endTile();
  }
}

template <class T, class Op> void deadlockRing(LaunchArgs args) {
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.recv(floorMod(r - 1, n), Output, 0, 1, 0);
    ch.send(floorMod(r + 1, n), Input, 0, 1, 1);
    ch.endTile();
  }
}

template <class T, class Op> void wrongCountAllToAll(LaunchArgs args) {
  constexpr int64_t k = 2;
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.copy(Input, r * k, Output, r * k, k, 0);
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r + i, n);
      ch.send(peer, Input, peer * k, 1, i); // one chunk, not k
    }
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r - i, n);
      ch.recv(peer, Output, peer * k, k, i);
    }
    ch.endTile();
  }
}

template <class T, class Op> KernelFunction pick(KernelKind kind) {
  switch (kind) {
  case KernelKind::RingAllReduce:
    return &ringAllReduce<T, Op>;
  case KernelKind::DirectAllToAll:
    return &directAllToAll<T, Op>;
  case KernelKind::ChainBroadcast:
    return &chainBroadcast<T, Op>;
  case KernelKind::ChainReduce:
    return &chainReduce<T, Op>;
  case KernelKind::StagedAllGather:
    return &stagedAllGather<T, Op>;
  case KernelKind::DirectReduceScatter:
    return &directReduceScatter<T, Op>;
  case KernelKind::DeadlockRing:
    return &deadlockRing<T, Op>;
  case KernelKind::WrongCountAllToAll:
    return &wrongCountAllToAll<T, Op>;
  }
  return nullptr;
}

template <class T> KernelFunction pickOp(KernelKind kind, ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    return pick<T, SumOp>(kind);
  case ReduceOp::Prod:
    return pick<T, ProdOp>(kind);
  case ReduceOp::Min:
    return pick<T, MinOp>(kind);
  case ReduceOp::Max:
    return pick<T, MaxOp>(kind);
  }
  return nullptr;
}

} // namespace

KernelFunction kernel(KernelKind kind, DataType type, ReduceOp op) {
  switch (type) {
  case DataType::F64:
    return pickOp<double>(kind, op);
  case DataType::F32:
    return pickOp<float>(kind, op);
  case DataType::F16:
    return pickOp<f16>(kind, op);
  case DataType::BF16:
    return pickOp<bf16>(kind, op);
  case DataType::F8E4M3FN:
    return pickOp<f8e4m3>(kind, op);
  case DataType::F8E5M2:
    return pickOp<f8e5m2>(kind, op);
  case DataType::I64:
    return pickOp<int64_t>(kind, op);
  case DataType::I32:
    return pickOp<int32_t>(kind, op);
  case DataType::I8:
    return pickOp<int8_t>(kind, op);
  }
  return nullptr;
}

} // namespace testing
} // namespace collrt
