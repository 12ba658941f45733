//===- Schedules.cpp - hand-built schedules for the executor's tests ------===//
#include "Schedules.h"

namespace collrt {
namespace testing {

static int32_t mod(int32_t a, int32_t n) { return ((a % n) + n) % n; }

Program emptyProgram(Collective collective, int32_t n, uint32_t k,
                     uint32_t scratchChunks, uint32_t channels) {
  Program p;
  p.algorithm = "test";
  p.collective = collective;
  p.numRanks = n;
  p.chunksPerPart = k;
  bool partsIn = collective == Collective::ReduceScatter ||
                 collective == Collective::Scatter ||
                 collective == Collective::AllToAll ||
                 collective == Collective::AllToAllV;
  bool partsOut =
      collective == Collective::AllGather || collective == Collective::Gather ||
      collective == Collective::AllToAll || collective == Collective::AllToAllV;
  p.buffers.inputChunks = partsIn ? k * uint32_t(n) : k;
  p.buffers.outputChunks = partsOut ? k * uint32_t(n) : k;
  p.buffers.scratchChunks = scratchChunks;
  p.ranks.resize(size_t(n));
  for (auto &rank : p.ranks)
    rank.channels.resize(channels);
  return p;
}

uint32_t append(Program &program, int32_t rank, uint32_t channel,
                const Instruction &instruction) {
  auto &channels = program.ranks[size_t(rank)].channels;
  if (channels.size() <= channel)
    channels.resize(channel + 1);
  channels[channel].instructions.push_back(instruction);
  return uint32_t(channels[channel].instructions.size() - 1);
}

void dependOn(Program &program, int32_t rank, uint32_t channel, uint32_t index,
              uint32_t otherChannel, uint32_t otherIndex) {
  auto &r = program.ranks[size_t(rank)];
  Instruction &i = r.channels[channel].instructions[index];
  if (i.depCount == 0)
    i.depBegin = uint32_t(r.dependencies.size());
  r.dependencies.push_back({otherChannel, otherIndex});
  ++i.depCount;
}

Program ringAllReduce(int32_t n, uint32_t segmentChunks, uint32_t channels) {
  uint32_t m = segmentChunks, perChannel = uint32_t(n) * m;
  Program p = emptyProgram(Collective::AllReduce, n, channels * perChannel, 0,
                           channels);
  p.algorithm = "ring";
  for (uint32_t c = 0; c < channels; ++c)
    for (int32_t r = 0; r < n; ++r) {
      auto segment = [&](int32_t s) {
        return c * perChannel + uint32_t(mod(s, n)) * m;
      };
      int32_t next = mod(r + 1, n), prev = mod(r - 1, n);
      append(p, r, c, sendTo(next, in(segment(r), m), 0));
      for (int32_t s = 1; s < n - 1; ++s)
        append(p, r, c,
               op(Opcode::RecvReduceSend, prev, next, in(segment(r - s), m), {},
                  s));
      uint32_t full = segment(r + 1);
      append(p, r, c,
             op(Opcode::RecvReduceCopySend, prev, next, in(full, m),
                out(full, m), n - 1));
      for (int32_t t = 1; t < n - 1; ++t)
        append(p, r, c,
               op(Opcode::RecvCopySend, prev, next, {},
                  out(segment(r + 1 - t), m), n - 1 + t));
      append(p, r, c, recvFrom(prev, out(segment(r + 2 - n), m), 2 * n - 2));
    }
  return p;
}

Program stuckOnChannel0() {
  Program p = emptyProgram(Collective::AllReduce, 2, 2, 0, 3);
  for (int32_t r = 0; r < 2; ++r) {
    append(p, r, 0, recvFrom(1 - r, out(0), 0));
    append(p, r, 0, sendTo(1 - r, in(0), 1));
    append(p, r, 1, copyTo(in(1), out(1), 2));
    dependOn(p, r, 1, 0, 0, 0);
    append(p, r, 2, copyTo(in(1), out(1), 2));
    dependOn(p, r, 2, 0, 0, 0);
  }
  return p;
}

Program directAllToAll(int32_t n, uint32_t k) {
  Program p = emptyProgram(Collective::AllToAll, n, k);
  p.algorithm = "direct";
  for (int32_t r = 0; r < n; ++r) {
    append(p, r, 0, copyTo(in(uint32_t(r) * k, k), out(uint32_t(r) * k, k)));
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = mod(r + i, n);
      append(p, r, 0, sendTo(peer, in(uint32_t(peer) * k, k), i));
    }
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = mod(r - i, n);
      append(p, r, 0, recvFrom(peer, out(uint32_t(peer) * k, k), i));
    }
  }
  return p;
}

Program directAllToAllV(int32_t n, uint32_t k,
                        const std::vector<int64_t> &sendCounts) {
  Program p = directAllToAll(n, k);
  p.collective = Collective::AllToAllV;
  p.sendCounts = sendCounts;
  return p;
}

Program chainBroadcast(int32_t n, uint32_t k, int32_t root) {
  Program p = emptyProgram(Collective::Broadcast, n, k);
  p.algorithm = "chain";
  p.root = root;
  append(p, root, 0, copyTo(in(0, k), out(0, k)));
  for (int32_t i = 0; i < n; ++i) {
    int32_t r = mod(root + i, n), prev = mod(r - 1, n), next = mod(r + 1, n);
    for (uint32_t c = 0; c < k; ++c) {
      if (i == 0)
        append(p, r, 0, sendTo(next, in(c), int32_t(c)));
      else if (i < n - 1)
        append(
            p, r, 0,
            op(Opcode::RecvCopySend, prev, next, {}, out(c), int32_t(c + i)));
      else
        append(p, r, 0, recvFrom(prev, out(c), int32_t(c + i)));
    }
  }
  return p;
}

Program chainReduce(int32_t n, uint32_t k, int32_t root) {
  Program p = emptyProgram(Collective::Reduce, n, k);
  p.algorithm = "chain";
  p.root = root;
  // Position i of the chain is rank root + 1 + i; the root is last.
  for (int32_t i = 0; i < n; ++i) {
    int32_t r = mod(root + 1 + i, n), prev = mod(r - 1, n),
            next = mod(r + 1, n);
    for (uint32_t c = 0; c < k; ++c) {
      if (n == 1)
        append(p, r, 0, copyTo(in(c), out(c)));
      else if (i == 0)
        append(p, r, 0, sendTo(next, in(c), int32_t(c)));
      else if (i < n - 1)
        append(
            p, r, 0,
            op(Opcode::RecvReduceSend, prev, next, in(c), {}, int32_t(c + i)));
      else
        append(p, r, 0,
               op(Opcode::RecvReduceCopy, prev, -1, in(c), out(c),
                  int32_t(c + i)));
    }
  }
  return p;
}

Program stagedRingAllGather(int32_t n, uint32_t k) {
  Program p = emptyProgram(Collective::AllGather, n, k, /*scratch=*/1, 2);
  p.algorithm = "staged-ring";
  for (int32_t r = 0; r < n; ++r) {
    int32_t next = mod(r + 1, n), prev = mod(r - 1, n);
    uint32_t own = uint32_t(r) * k;
    append(p, r, 1, copyTo(in(0, k), out(own, k)));
    for (uint32_t c = 0; c < k; ++c)
      append(p, r, 0, sendTo(next, in(c), 0));
    uint32_t lastCopy = 0;
    bool first = true;
    for (int32_t s = 1; s < n; ++s) {
      uint32_t part = uint32_t(mod(r - s, n)) * k;
      for (uint32_t c = 0; c < k; ++c) {
        uint32_t recv = append(p, r, 0, recvFrom(prev, tmp(0), s));
        if (!first)
          dependOn(p, r, 0, recv, 1, lastCopy);
        first = false;
        if (s < n - 1)
          append(p, r, 0, sendTo(next, tmp(0), s));
        lastCopy = append(p, r, 1, copyTo(tmp(0), out(part + c), s));
        dependOn(p, r, 1, lastCopy, 0, recv);
      }
    }
  }
  return p;
}

Program directReduceScatter(int32_t n, uint32_t k) {
  Program p = emptyProgram(Collective::ReduceScatter, n, k, /*scratch=*/k);
  p.algorithm = "direct-reduce";
  for (int32_t r = 0; r < n; ++r) {
    append(p, r, 0, copyTo(in(uint32_t(r) * k, k), out(0, k)));
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = mod(r + i, n);
      append(p, r, 0, sendTo(peer, in(uint32_t(peer) * k, k), i));
    }
    for (int32_t i = 1; i < n; ++i) {
      append(p, r, 0, recvFrom(mod(r - i, n), tmp(0, k), i));
      append(p, r, 0, op(Opcode::Reduce, -1, -1, tmp(0, k), out(0, k), i));
    }
  }
  return p;
}

} // namespace testing
} // namespace collrt
