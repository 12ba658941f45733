// A ring all-reduce written against collrt/device/Channel.h, as collc
// --emit=cuda writes kernels, run on 4 ranks by the host emulator (a thread
// per block): rank r contributes r + 1 everywhere, so every output element
// must be 1 + 2 + 3 + 4.
#include "collrt/device/Channel.h"
#include "runtime/device/Emulator.h"

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace collrt::dev;

// One channel; chunk c of every buffer is the c-th quarter.
COLLRT_KERNEL(ring_all_reduce)(LaunchArgs args) {
  Channel<float, SumOp> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  const int64_t next = floorMod(r + 1, n), prev = floorMod(r - 1, n);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.send(next, Input, r, 1, 0);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvReduceSend(prev, next, Input, floorMod(r - s, n), 1, s);
    ch.recvReduceCopySend(prev, next, Input, floorMod(r + 1, n), Output,
                          floorMod(r + 1, n), 1, n - 1);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvCopySend(prev, next, Output, floorMod(r + 1 - s, n), 1, n - 1 + s);
    ch.recv(prev, Output, floorMod(r + 2 - n, n), 1, 2 * n - 2);
    ch.endTile();
  }
}

// The same schedule as a sched::Program: what the plan would hold.
static collc::sched::Program ringProgram(int32_t n) {
  using namespace collc::sched;
  Program p;
  p.algorithm = "ring";
  p.collective = Collective::AllReduce;
  p.numRanks = n;
  p.chunksPerPart = uint32_t(n);
  p.buffers.inputChunks = p.buffers.outputChunks = uint32_t(n);
  p.ranks.resize(size_t(n));
  auto at = [n](int64_t s) { return uint32_t(floorMod(s, n)); };
  for (int32_t r = 0; r < n; ++r) {
    auto &stream = p.ranks[size_t(r)].channels.emplace_back().instructions;
    auto add = [&](Opcode op, int32_t from, int32_t to, ChunkRange src,
                   ChunkRange dst, int32_t step) {
      Instruction i;
      i.opcode = op;
      i.recvPeer = from;
      i.sendPeer = to;
      i.src = src;
      i.dst = dst;
      i.step = step;
      stream.push_back(i);
    };
    int32_t next = int32_t(at(r + 1)), prev = int32_t(at(r - 1));
    add(Opcode::Send, -1, next, {Buffer::Input, at(r), 1}, {}, 0);
    for (int32_t s = 1; s < n - 1; ++s)
      add(Opcode::RecvReduceSend, prev, next, {Buffer::Input, at(r - s), 1}, {},
          s);
    add(Opcode::RecvReduceCopySend, prev, next, {Buffer::Input, at(r + 1), 1},
        {Buffer::Output, at(r + 1), 1}, n - 1);
    for (int32_t s = 1; s < n - 1; ++s)
      add(Opcode::RecvCopySend, prev, next, {},
          {Buffer::Output, at(r + 1 - s), 1}, n - 1 + s);
    add(Opcode::Recv, prev, -1, {}, {Buffer::Output, at(r + 2 - n), 1},
        2 * n - 2);
  }
  return p;
}

int main() {
  const int32_t n = 4;
  const int64_t count = 1000;
  collrt::PlanCollective collective;
  collective.dtype = collrt::DataType::F32;
  collective.reduction = collrt::ReduceOp::Sum;
  collective.program = ringProgram(n);
  collective.groups = {{0, 1, 2, 3}};

  std::vector<std::vector<float>> send(n), recv(n);
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  for (int32_t r = 0; r < n; ++r) {
    send[r].assign(count, float(r + 1));
    recv[r].assign(count, -1.0f);
    inputs.push_back(send[r].data());
    outputs.push_back(recv[r].data());
  }
  DeviceOptions options;
  options.slotBytes = 1024; // small slots: many tiles
  options.timeoutSeconds = 10;
  int failures = 0;
  // On one GPU; then as if ranks 0, 1 and ranks 2, 3 were on two hosts:
  // the ring's connections 1 -> 2 and 3 -> 0 go over the network (TCP on
  // this machine's loopback), moved by a proxy thread per process.
  for (bool twoHosts : {false, true}) {
    for (int32_t r = 0; r < n; ++r)
      std::fill(recv[r].begin(), recv[r].end(), -1.0f);
    collrt::Status s =
        twoHosts ? emulateAcrossHosts(collective, 0, &ring_all_reduce, count,
                                      inputs, outputs, {0, 0, 1, 1}, options)
                 : emulate(collective, 0, &ring_all_reduce, count, inputs,
                           outputs, options);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.toString().c_str());
      return 1;
    }
    int wrong = 0;
    for (int32_t r = 0; r < n; ++r)
      for (float v : recv[r])
        wrong += v != 10.0f;
    std::printf("%s: %d ranks, %lld elements each: %s (rank 0 holds %g)\n",
                twoHosts ? "two hosts" : "one GPU", n, (long long)count,
                wrong ? "WRONG" : "ok", recv[0][0]);
    failures += wrong != 0;
  }
  return failures ? 1 : 0;
}
