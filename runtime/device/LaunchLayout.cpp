//===- LaunchLayout.cpp - one launch of N ranks' blocks, in memory --------===//
#include "runtime/device/LaunchLayout.h"

#include "collrt/device/Channel.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace collrt {
namespace dev {

using collc::sched::Buffer;
using collc::sched::Collective;
using collc::sched::Program;

namespace {

uint64_t round16(uint64_t bytes) { return (bytes + 15) & ~uint64_t(15); }
uint64_t headerBytes(uint64_t chunks) { return round16(16 + 8 * chunks); }

/// RunLayout.cpp's largestChunk: the largest chunk of any buffer of any
/// rank (what the tile count is computed from).
int64_t largestChunk(const Program &program,
                     const collc::sched::ChunkLayout &layout) {
  int64_t largest = layout.elements(0, Buffer::Scratch, 0);
  if (program.collective == Collective::AllToAllV) {
    for (int64_t sent : program.sendCounts)
      largest = std::max(
          largest, collc::sched::chunkElements(sent, program.chunksPerPart, 0));
    return largest;
  }
  for (Buffer b : {Buffer::Input, Buffer::Output})
    for (uint32_t i = 0; i < program.buffers.chunks(b); ++i)
      largest = std::max(largest, layout.elements(0, b, i));
  return largest;
}

/// Hands out aligned offsets.
struct Allocator {
  uint64_t next = 0;
  uint64_t take(uint64_t bytes, uint64_t align = 256) {
    next = (next + align - 1) / align * align;
    uint64_t at = next;
    next += bytes;
    return at;
  }
};

template <class T>
void put(std::vector<uint8_t> &image, uint64_t at, const T &value) {
  std::memcpy(image.data() + at, &value, sizeof value);
}

template <class P> P *pointer(uint64_t base, uint64_t offset) {
  return reinterpret_cast<P *>(uintptr_t(base + offset));
}

} // namespace

Status LaunchLayout::create(const PlanCollective &collective, size_t index,
                            int64_t count, const DeviceOptions &options,
                            LaunchLayout *out) {
  LaunchLayout &l = *out;
  l = LaunchLayout();
  const Program &program = collective.program;
  int32_t n = program.numRanks;
  if (n < 1)
    return Status(ErrorCode::InvalidPlan,
                  "collective " + std::to_string(index) + ": the program has " +
                      std::to_string(n) + " ranks");
  if (count < 0)
    return Status(ErrorCode::InvalidArgument,
                  "count = " + std::to_string(count) + " is negative");
  if (!(options.timeoutSeconds > 0 && options.timeoutSeconds <= 1e9))
    return Status(ErrorCode::InvalidArgument,
                  "timeoutSeconds = " + std::to_string(options.timeoutSeconds) +
                      " must be in (0, 1e9]");
  // One group of the program's ranks: the launch runs group ranks 0..N-1.
  l.collective_ = collective;
  l.collective_.groups.assign(1, {});
  for (int32_t r = 0; r < n; ++r)
    l.collective_.groups[0].push_back(r);
  if (options.slots && options.slots < collective.connectionSlots)
    return Status(ErrorCode::InvalidArgument,
                  "slots = " + std::to_string(options.slots) +
                      " is fewer than the " +
                      std::to_string(collective.connectionSlots) +
                      " the schedule was verified with (connectionSlots)");
  l.slots_ = options.slots ? options.slots : collective.connectionSlots;

  l.ranks_.resize(size_t(n));
  for (int32_t r = 0; r < n; ++r)
    if (Status s =
            exec::buildRunLayout(l.collective_, index, r, n, count,
                                 options.slotBytes, &l.ranks_[size_t(r)]);
        !s.ok())
      return s;
  const exec::RunLayout &first = l.ranks_[0];
  l.name_ = first.collectiveName;
  l.nranks_ = n;
  l.elementSize_ = first.elementSize;
  uint64_t e = l.elementSize_;

  collc::sched::ChunkLayout chunks(program, count);
  int64_t largest = largestChunk(program, chunks);
  int64_t t = first.tileElements;
  int64_t unit = int64_t(16 / e);
  if (options.alignTiles && unit > 1 && t >= unit)
    t -= t % unit;
  l.tileElements_ = t;
  l.tiles_ = std::max<int64_t>(1, (largest + t - 1) / t);
  l.largestSlice_ = std::min(t, largest);
  for (exec::RunLayout &rank : l.ranks_) {
    rank.tileElements = l.tileElements_;
    rank.tiles = uint64_t(l.tiles_);
  }
  uint64_t c = first.maxMessageChunks;
  uint64_t capacity =
      c ? headerBytes(c) + c * round16(uint64_t(t) * e) : uint64_t(16);
  uint64_t ll = 0;
  if (options.llBytes && c)
    ll = 2 * round16(headerBytes(c) + options.llBytes + 16 * c);
  if (capacity > std::numeric_limits<uint32_t>::max() ||
      ll > std::numeric_limits<uint32_t>::max())
    return Status(ErrorCode::InvalidArgument,
                  l.name_ +
                      ": slotBytes = " + std::to_string(options.slotBytes) +
                      " and llBytes = " + std::to_string(options.llBytes) +
                      " give device slots over 4 GiB");
  l.slotCapacity_ = uint32_t(capacity);
  l.llSlotBytes_ = uint32_t(ll);
  l.llBytes_ = ll ? options.llBytes : 0;
  l.stagingBytes_ = capacity;

  // The grid and the connections.
  for (int32_t r = 0; r < n; ++r) {
    const auto &channels = program.ranks[size_t(r)].channels;
    l.maxChannels_ = std::max(l.maxChannels_, int32_t(channels.size()));
    for (uint32_t ch = 0; ch < channels.size(); ++ch) {
      if (channels[ch].instructions.empty())
        continue;
      l.blockRank_.push_back(r);
      l.blockChannel_.push_back(int32_t(ch));
      for (const auto &key : l.ranks_[size_t(r)].spec.sendTo) {
        if (key.channel != ch)
          continue;
        Connection conn;
        conn.from = r;
        conn.to = key.peer;
        conn.channel = ch;
        for (const auto &in : channels[ch].instructions)
          if (collc::sched::opcodeSends(in.opcode) && in.sendPeer == key.peer)
            ++conn.messagesPerTile;
        l.connections_.push_back(conn);
      }
    }
  }
  if (l.maxChannels_ == 0)
    l.maxChannels_ = 1;

  // The arena: control first, then data.
  Allocator a;
  size_t m = size_t(l.maxChannels_), N = size_t(n);
  l.arenas_.resize(N);
  uint64_t contexts = a.take(N * sizeof(RankContext));
  for (size_t r = 0; r < N; ++r)
    l.arenas_[r].context = contexts + r * sizeof(RankContext);
  l.blockRankOffset_ = a.take(l.blockRank_.size() * 4 + 4);
  l.blockChannelOffset_ = a.take(l.blockChannel_.size() * 4 + 4);
  for (size_t r = 0; r < N; ++r) {
    RankArena &ra = l.arenas_[r];
    for (int b = 0; b < 3; ++b)
      ra.offsets[b] = a.take(l.ranks_[r].offsets[b].size() * 8);
    ra.sendTo = a.take(N * m * sizeof(DeviceConnection));
    ra.recvFrom = a.take(N * m * sizeof(DeviceConnection));
    ra.progress = a.take(m * 8);
    ra.tileEpoch = a.take(m * 8);
    ra.waitState = a.take(m * 8 * wait::kWords);
    ra.scratchSlices =
        a.take(uint64_t(program.buffers.scratchChunks) * l.tiles_ * 8 + 8);
  }
  for (Connection &conn : l.connections_) {
    conn.head = a.take(8, 128);
    conn.tail = a.take(8, 128);
    conn.sendCounter = a.take(8, 128);
    conn.recvCounter = a.take(8, 128);
    conn.sizes = a.take(8 * l.slots_);
  }
  l.controlBytes_ = a.take(0);
  for (Connection &conn : l.connections_) {
    conn.buffers = a.take(uint64_t(l.slots_) * l.slotCapacity_);
    if (l.llSlotBytes_)
      conn.llBuffers = a.take(uint64_t(l.slots_) * l.llSlotBytes_);
  }
  for (size_t r = 0; r < N; ++r) {
    RankArena &ra = l.arenas_[r];
    const exec::RunLayout &rl = l.ranks_[r];
    ra.scratch = a.take(uint64_t(rl.bufferElements(Buffer::Scratch)) * e + 16);
    ra.staging = a.take(m * l.stagingBytes_);
    if (rl.writesInput)
      ra.inputCopy =
          a.take(uint64_t(rl.bufferElements(Buffer::Input)) * e + 16);
  }
  l.arenaBytes_ = a.take(0);
  return Status::success();
}

int64_t LaunchLayout::inputElements(int32_t r) const {
  return ranks_[size_t(r)].bufferElements(Buffer::Input);
}
int64_t LaunchLayout::outputElements(int32_t r) const {
  return ranks_[size_t(r)].bufferElements(Buffer::Output);
}

bool LaunchLayout::holdsReduction(int32_t r) const {
  switch (program().collective) {
  case Collective::AllReduce:
  case Collective::ReduceScatter:
    return true;
  case Collective::Reduce:
    return r == program().root;
  default:
    return false;
  }
}

std::vector<uint8_t>
LaunchLayout::contextImage(uint64_t base, const std::vector<uint64_t> &inputs,
                           const std::vector<uint64_t> &outputs,
                           uint64_t abortFlag) const {
  std::vector<uint8_t> image(size_t(nranks_) * sizeof(RankContext));
  for (int32_t r = 0; r < nranks_; ++r) {
    const RankArena &ra = arenas_[size_t(r)];
    const exec::RunLayout &rl = ranks_[size_t(r)];
    RankContext ctx;
    ctx.rank = r;
    ctx.nranks = nranks_;
    ctx.buffers[Input] = ra.inputCopy ? pointer<char>(base, ra.inputCopy)
                                      : pointer<char>(inputs[size_t(r)], 0);
    ctx.buffers[Output] = pointer<char>(outputs[size_t(r)], 0);
    ctx.buffers[Scratch] = pointer<char>(base, ra.scratch);
    for (int b = 0; b < 3; ++b) {
      ctx.chunkOffsets[b] = pointer<const int64_t>(base, ra.offsets[b]);
      ctx.chunkCounts[b] = int32_t(rl.offsets[b].size() - 1);
    }
    ctx.tileElements = tileElements_;
    ctx.tiles = tiles_;
    ctx.sendTo = pointer<DeviceConnection>(base, ra.sendTo);
    ctx.recvFrom = pointer<DeviceConnection>(base, ra.recvFrom);
    ctx.maxChannels = maxChannels_;
    ctx.progress = pointer<uint64_t>(base, ra.progress);
    ctx.abortFlag = pointer<volatile int32_t>(abortFlag, 0);
    ctx.waitState = pointer<uint64_t>(base, ra.waitState);
    ctx.elementSize = int32_t(elementSize_);
    ctx.scratchCapacity = rl.scratchCapacity;
    ctx.scratchSlices = pointer<uint64_t>(base, ra.scratchSlices);
    ctx.tileEpoch = pointer<uint64_t>(base, ra.tileEpoch);
    ctx.largestSlice = largestSlice_;
    ctx.llBytes = llBytes_;
    ctx.staging = pointer<char>(base, ra.staging);
    ctx.stagingBytes = stagingBytes_;
    std::memcpy(image.data() + size_t(r) * sizeof(RankContext), &ctx,
                sizeof ctx);
  }
  return image;
}

std::vector<uint8_t>
LaunchLayout::controlImage(uint64_t base, const std::vector<uint64_t> &inputs,
                           const std::vector<uint64_t> &outputs,
                           uint64_t abortFlag) const {
  std::vector<uint8_t> image(controlBytes_, 0);
  std::vector<uint8_t> contexts =
      contextImage(base, inputs, outputs, abortFlag);
  std::memcpy(image.data() + arenas_[0].context, contexts.data(),
              contexts.size());
  std::memcpy(image.data() + blockRankOffset_, blockRank_.data(),
              blockRank_.size() * 4);
  std::memcpy(image.data() + blockChannelOffset_, blockChannel_.data(),
              blockChannel_.size() * 4);
  size_t m = size_t(maxChannels_);
  for (int32_t r = 0; r < nranks_; ++r) {
    const RankArena &ra = arenas_[size_t(r)];
    for (int b = 0; b < 3; ++b) {
      const std::vector<int64_t> &o = ranks_[size_t(r)].offsets[b];
      std::memcpy(image.data() + ra.offsets[b], o.data(), o.size() * 8);
    }
  }
  for (const Connection &conn : connections_) {
    DeviceConnection d;
    d.buffers = pointer<char>(base, conn.buffers);
    d.head = pointer<uint64_t>(base, conn.head);
    d.tail = pointer<uint64_t>(base, conn.tail);
    d.sizes = pointer<uint64_t>(base, conn.sizes);
    d.slots = slots_;
    d.slotBytes = slotCapacity_;
    d.llBuffers = llSlotBytes_ ? pointer<char>(base, conn.llBuffers) : nullptr;
    d.llSlotBytes = llSlotBytes_;
    d.counter = pointer<uint64_t>(base, conn.sendCounter);
    put(image,
        arenas_[size_t(conn.from)].sendTo +
            (size_t(conn.to) * m + conn.channel) * sizeof(DeviceConnection),
        d);
    d.counter = pointer<uint64_t>(base, conn.recvCounter);
    put(image,
        arenas_[size_t(conn.to)].recvFrom +
            (size_t(conn.from) * m + conn.channel) * sizeof(DeviceConnection),
        d);
  }
  return image;
}

} // namespace dev
} // namespace collrt
