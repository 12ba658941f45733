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
uint64_t messageHeaderBytes(uint64_t chunks) {
  return round16(16 + 8 * chunks);
}

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

namespace {

Status checkLayoutArguments(const Program &program, size_t index, int64_t count,
                            const DeviceOptions &options) {
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
  if (!(options.connectSeconds > 0 && options.connectSeconds <= 1e9))
    return Status(ErrorCode::InvalidArgument,
                  "connectSeconds = " + std::to_string(options.connectSeconds) +
                      " must be in (0, 1e9]");
  return Status::success();
}

} // namespace

Status LaunchLayout::create(const PlanCollective &collective, size_t index,
                            int64_t count, const DeviceOptions &options,
                            LaunchLayout *out) {
  LaunchLayout &l = *out;
  l = LaunchLayout();
  COLLRT_RETURN_IF_ERROR(
      checkLayoutArguments(collective.program, index, count, options));
  COLLRT_RETURN_IF_ERROR(l.layOutRanks(collective, index, count, options));
  COLLRT_RETURN_IF_ERROR(l.sizeTilesAndSlots(count, options));
  COLLRT_RETURN_IF_ERROR(l.placeRanks(options));
  l.findConnections(options);
  for (size_t r = 0; r < size_t(l.nranks_); ++r)
    l.layOutArena(r);
  l.layOutLaunch();
  l.key_ = l.computeKey();
  return Status::success();
}

Status LaunchLayout::layOutRanks(const PlanCollective &collective, size_t index,
                                 int64_t count, const DeviceOptions &options) {
  int32_t n = collective.program.numRanks;
  // One group of the program's ranks: the launch runs group ranks 0..N-1.
  collective_ = collective;
  collective_.groups.assign(1, {});
  for (int32_t r = 0; r < n; ++r)
    collective_.groups[0].push_back(r);
  if (options.slots && options.slots < collective.connectionSlots)
    return Status(ErrorCode::InvalidArgument,
                  "slots = " + std::to_string(options.slots) +
                      " is fewer than the " +
                      std::to_string(collective.connectionSlots) +
                      " the schedule was verified with (connectionSlots)");
  slots_ = options.slots ? options.slots : collective.connectionSlots;

  ranks_.resize(size_t(n));
  for (int32_t r = 0; r < n; ++r)
    COLLRT_RETURN_IF_ERROR(exec::buildRunLayout(collective_, index, r, n, count,
                                                options.slotBytes,
                                                &ranks_[size_t(r)]));
  const exec::RunLayout &first = ranks_[0];
  name_ = first.collectiveName;
  nranks_ = n;
  elementSize_ = first.elementSize;
  return Status::success();
}

Status LaunchLayout::sizeTilesAndSlots(int64_t count,
                                       const DeviceOptions &options) {
  const Program &program = collective_.program;
  const exec::RunLayout &first = ranks_[0];
  uint64_t e = elementSize_;
  collc::sched::ChunkLayout chunks(program, count);
  int64_t largest = largestChunk(program, chunks);
  int64_t t = first.tileElements;
  int64_t unit = int64_t(16 / e);
  if (options.alignTiles && unit > 1 && t >= unit)
    t -= t % unit;
  tileElements_ = t;
  tiles_ = std::max<int64_t>(1, (largest + t - 1) / t);
  largestSlice_ = std::min(t, largest);
  for (exec::RunLayout &rank : ranks_) {
    rank.tileElements = tileElements_;
    rank.tiles = uint64_t(tiles_);
  }
  uint64_t c = first.maxMessageChunks;
  uint64_t capacity =
      c ? messageHeaderBytes(c) + c * round16(uint64_t(t) * e) : uint64_t(16);
  uint64_t ll = 0;
  if (options.llBytes && c)
    ll = 2 * round16(messageHeaderBytes(c) + options.llBytes + 16 * c);
  if (capacity > std::numeric_limits<uint32_t>::max() ||
      ll > std::numeric_limits<uint32_t>::max())
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": slotBytes = " + std::to_string(options.slotBytes) +
                      " and llBytes = " + std::to_string(options.llBytes) +
                      " give device slots over 4 GiB");
  slotCapacity_ = uint32_t(capacity);
  llSlotBytes_ = uint32_t(ll);
  llBytes_ = ll ? options.llBytes : 0;
  stagingBytes_ = capacity;
  return Status::success();
}

Status LaunchLayout::placeRanks(const DeviceOptions &options) {
  const int32_t n = nranks_;
  arenaOffset_.assign(size_t(n), 0);
  std::vector<bool> launched(size_t(n), options.ranks.empty());
  for (int32_t r : options.ranks) {
    if (r < 0 || r >= n)
      return Status(ErrorCode::InvalidArgument,
                    name_ + ": DeviceOptions::ranks names rank " +
                        std::to_string(r) + ", outside the program's " +
                        std::to_string(n) + " ranks");
    if (launched[size_t(r)])
      return Status(ErrorCode::InvalidArgument,
                    name_ + ": DeviceOptions::ranks names rank " +
                        std::to_string(r) + " twice");
    launched[size_t(r)] = true;
  }
  for (int32_t r = 0; r < n; ++r)
    if (launched[size_t(r)])
      launched_.push_back(r);
  if (!options.hosts.empty() && options.hosts.size() != size_t(n))
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": DeviceOptions::hosts names the hosts of " +
                      std::to_string(options.hosts.size()) +
                      " ranks for a program of " + std::to_string(n) +
                      " ranks (one per rank, or none: every rank on one "
                      "host)");
  hosts_ = options.hosts;
  if (std::all_of(hosts_.begin(), hosts_.end(),
                  [&](int32_t h) { return h == hosts_[0]; }))
    hosts_.clear();
  if (!options.hostLinks.empty())
    viaHost_.assign(size_t(n) * size_t(n), 0);
  for (auto [a, b] : options.hostLinks) {
    if (a < 0 || a >= n || b < 0 || b >= n || a == b)
      return Status(ErrorCode::InvalidArgument,
                    name_ + ": DeviceOptions::hostLinks names ranks " +
                        std::to_string(a) + " and " + std::to_string(b) +
                        ": a pair of two different ranks of the program's " +
                        std::to_string(n) + " is wanted");
    if (acrossHosts(a, b))
      return Status(ErrorCode::InvalidArgument,
                    name_ + ": DeviceOptions::hostLinks names ranks " +
                        std::to_string(a) + " and " + std::to_string(b) +
                        ", which are on different hosts (their connections "
                        "are network connections)");
    viaHost_[size_t(a) * size_t(n) + size_t(b)] = 1;
    viaHost_[size_t(b) * size_t(n) + size_t(a)] = 1;
  }
  return Status::success();
}

void LaunchLayout::findConnections(const DeviceOptions &options) {
  const Program &program = collective_.program;
  const int32_t n = nranks_;
  std::vector<bool> launched(size_t(n), false);
  for (int32_t r : launched_)
    launched[size_t(r)] = true;
  peers_.resize(size_t(n));
  for (int32_t r = 0; r < n; ++r) {
    const auto &channels = program.ranks[size_t(r)].channels;
    maxChannels_ = std::max(maxChannels_, int32_t(channels.size()));
    for (uint32_t ch = 0; ch < channels.size(); ++ch) {
      if (channels[ch].instructions.empty())
        continue;
      if (launched[size_t(r)]) {
        blockRank_.push_back(r);
        blockChannel_.push_back(int32_t(ch));
      }
      for (const auto &key : ranks_[size_t(r)].spec.sendTo) {
        if (key.channel != ch)
          continue;
        Connection conn;
        conn.from = r;
        conn.to = key.peer;
        conn.channel = ch;
        conn.net = acrossHosts(r, key.peer);
        conn.slotsOnDevice = conn.net && options.gpuDirect;
        conn.viaHost = viaHost(r, key.peer);
        for (const auto &in : channels[ch].instructions)
          if (collc::sched::opcodeSends(in.opcode) && in.sendPeer == key.peer)
            ++conn.messagesPerTile;
        connections_.push_back(conn);
      }
    }
  }
  if (maxChannels_ == 0)
    maxChannels_ = 1;
  for (const Connection &conn : connections_)
    for (auto [a, b] : {std::make_pair(conn.from, conn.to),
                        std::make_pair(conn.to, conn.from)})
      if (a != b &&
          std::find(peers_[size_t(a)].begin(), peers_[size_t(a)].end(), b) ==
              peers_[size_t(a)].end())
        peers_[size_t(a)].push_back(b);
  for (auto &peers : peers_)
    std::sort(peers.begin(), peers.end());
}

void LaunchLayout::layOutArena(size_t r) {
  const Program &program = collective_.program;
  const uint64_t e = elementSize_;
  size_t m = size_t(maxChannels_), N = size_t(nranks_);
  arenas_.resize(N);
  // Its own offsets from 0: control first, then data.
  Allocator a;
  RankArena &ra = arenas_[r];
  for (int b = 0; b < 3; ++b)
    ra.offsets[b] = a.take(ranks_[r].offsets[b].size() * 8);
  ra.sendTo = a.take(N * m * sizeof(DeviceConnection));
  ra.recvFrom = a.take(N * m * sizeof(DeviceConnection));
  ra.progress = a.take(m * 8);
  ra.tileEpoch = a.take(m * 8);
  ra.waitState = a.take(m * 8 * wait::kWords);
  ra.scratchSlices =
      a.take(uint64_t(program.buffers.scratchChunks) * tiles_ * 8 + 8);
  // The words each side polls are in its own arena; the other side
  // writes them. A network connection's words and slots are in each
  // side's host arena (below); only the counters stay here.
  for (Connection &conn : connections_) {
    bool inHost = conn.net || conn.viaHost;
    if (size_t(conn.to) == r) {
      if (!inHost) {
        conn.head = a.take(8, 128);
        conn.sizes = a.take(8 * slots_);
      }
      conn.recvCounter = a.take(8, 128);
    }
    if (size_t(conn.from) == r) {
      if (!inHost)
        conn.tail = a.take(8, 128);
      conn.sendCounter = a.take(8, 128);
    }
  }
  ra.controlBytes = a.take(0);
  for (Connection &conn : connections_) {
    if (conn.slotsOnDevice) { // GPUDirect: the network's slots here
      if (size_t(conn.to) == r)
        conn.buffers = a.take(uint64_t(slots_) * slotCapacity_);
      if (size_t(conn.from) == r)
        conn.sendBuffers = a.take(uint64_t(slots_) * slotCapacity_);
      continue;
    }
    if (size_t(conn.to) != r || conn.net || conn.viaHost)
      continue;
    conn.buffers = a.take(uint64_t(slots_) * slotCapacity_);
    if (llSlotBytes_)
      conn.llBuffers = a.take(uint64_t(slots_) * llSlotBytes_);
  }
  ra.hostBytes = layOutHostArena(r);
  const exec::RunLayout &rl = ranks_[r];
  ra.scratch = a.take(uint64_t(rl.bufferElements(Buffer::Scratch)) * e + 16);
  ra.staging = a.take(m * stagingBytes_);
  if (rl.writesInput)
    ra.inputCopy = a.take(uint64_t(rl.bufferElements(Buffer::Input)) * e + 16);
  ra.bytes = a.take(0, 256);
}

uint64_t LaunchLayout::layOutHostArena(size_t r) {
  // Each network connection's half on this side, a complete local
  // connection (slots, sizes, head, tail) that the proxy moves messages
  // out of (sender) or into (receiver); each host-memory connection.
  Allocator h;
  for (Connection &conn : connections_) {
    if (conn.viaHost) {
      // One connection, as in device memory, in pinned host memory.
      if (size_t(conn.to) == r) {
        conn.head = h.take(8, 128);
        conn.sizes = h.take(8 * slots_);
        conn.buffers = h.take(uint64_t(slots_) * slotCapacity_);
        if (llSlotBytes_)
          conn.llBuffers = h.take(uint64_t(slots_) * llSlotBytes_);
      }
      if (size_t(conn.from) == r)
        conn.tail = h.take(8, 128);
      continue;
    }
    if (!conn.net)
      continue;
    if (size_t(conn.to) == r) {
      conn.head = h.take(8, 128);
      conn.recvTail = h.take(8, 128);
      conn.sizes = h.take(8 * slots_);
      if (!conn.slotsOnDevice)
        conn.buffers = h.take(uint64_t(slots_) * slotCapacity_);
    }
    if (size_t(conn.from) == r) {
      conn.sendHead = h.take(8, 128);
      conn.tail = h.take(8, 128);
      conn.sendSizes = h.take(8 * slots_);
      if (!conn.slotsOnDevice)
        conn.sendBuffers = h.take(uint64_t(slots_) * slotCapacity_);
    }
  }
  return h.take(0, 256);
}

void LaunchLayout::layOutLaunch() {
  // The header, then the launched ranks' arenas.
  Allocator a;
  a.take(size_t(nranks_) * sizeof(RankContext));
  blockRankOffset_ = a.take(blockRank_.size() * 4 + 4);
  blockChannelOffset_ = a.take(blockChannel_.size() * 4 + 4);
  headerBytes_ = a.take(0);
  for (int32_t r : launched_)
    arenaOffset_[size_t(r)] = a.take(arenas_[size_t(r)].bytes);
  launchBytes_ = a.take(0, 256);
}

uint64_t LaunchLayout::computeKey() const {
  // What peers must agree on (FNV-1a over the numbers).
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (char ch : name_)
    mix(uint64_t(uint8_t(ch)));
  for (uint64_t v :
       {uint64_t(nranks_), uint64_t(maxChannels_), uint64_t(elementSize_),
        uint64_t(tileElements_), uint64_t(tiles_), uint64_t(largestSlice_),
        uint64_t(slots_), uint64_t(slotCapacity_), uint64_t(llSlotBytes_),
        uint64_t(llBytes_), stagingBytes_})
    mix(v);
  for (const Connection &c : connections_)
    for (uint64_t v :
         {uint64_t(c.from), uint64_t(c.to), uint64_t(c.channel),
          c.messagesPerTile, c.head, c.recvCounter, c.sizes, c.buffers,
          c.llBuffers, c.tail, c.sendCounter, uint64_t(c.net), c.sendHead,
          c.sendSizes, c.sendBuffers, c.recvTail, uint64_t(c.viaHost),
          uint64_t(c.slotsOnDevice)})
      mix(v);
  for (const RankArena &ra : arenas_)
    for (uint64_t v :
         {ra.offsets[0], ra.offsets[1], ra.offsets[2], ra.sendTo, ra.recvFrom,
          ra.progress, ra.tileEpoch, ra.waitState, ra.scratchSlices, ra.scratch,
          ra.staging, ra.inputCopy, ra.controlBytes, ra.bytes, ra.hostBytes})
      mix(v);
  return h;
}

bool LaunchLayout::usesNet() const {
  for (const Connection &c : connections_)
    if (c.net && (launches(c.from) || launches(c.to)))
      return true;
  return false;
}

bool LaunchLayout::viaHost(int32_t r, int32_t p) const {
  return !viaHost_.empty() &&
         viaHost_[size_t(r) * size_t(nranks_) + size_t(p)] != 0;
}

bool LaunchLayout::usesHostArenas() const {
  for (int32_t r : launched_)
    if (arenas_[size_t(r)].hostBytes)
      return true;
  return false;
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

std::vector<uint64_t> LaunchLayout::localArenas(uint64_t base) const {
  std::vector<uint64_t> arenas(size_t(nranks_), 0);
  for (int32_t r : launched_)
    arenas[size_t(r)] = base + arenaOffset_[size_t(r)];
  return arenas;
}

std::vector<uint8_t> LaunchLayout::contextImage(
    const std::vector<uint64_t> &arenas, const std::vector<uint64_t> &inputs,
    const std::vector<uint64_t> &outputs, uint64_t abortFlag) const {
  std::vector<uint8_t> image(size_t(nranks_) * sizeof(RankContext), 0);
  for (int32_t r : launched_) {
    const RankArena &ra = arenas_[size_t(r)];
    const exec::RunLayout &rl = ranks_[size_t(r)];
    uint64_t base = arenas[size_t(r)];
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

std::vector<uint8_t> LaunchLayout::headerImage(
    const std::vector<uint64_t> &arenas, const std::vector<uint64_t> &inputs,
    const std::vector<uint64_t> &outputs, uint64_t abortFlag) const {
  std::vector<uint8_t> image(headerBytes_, 0);
  std::vector<uint8_t> contexts =
      contextImage(arenas, inputs, outputs, abortFlag);
  std::memcpy(image.data() + contextsOffset(), contexts.data(),
              contexts.size());
  std::memcpy(image.data() + blockRankOffset_, blockRank_.data(),
              blockRank_.size() * 4);
  std::memcpy(image.data() + blockChannelOffset_, blockChannel_.data(),
              blockChannel_.size() * 4);
  return image;
}

Status
LaunchLayout::rankControlImage(int32_t r, const std::vector<uint64_t> &arenas,
                               std::vector<uint8_t> *out,
                               const std::vector<uint64_t> &hostArenas) const {
  if (r < 0 || r >= nranks_ || arenas.size() != size_t(nranks_))
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": rank " + std::to_string(r) + " and " +
                      std::to_string(arenas.size()) +
                      " arena addresses for a program of " +
                      std::to_string(nranks_) + " ranks");
  const RankArena &ra = arenas_[size_t(r)];
  std::vector<uint8_t> image(ra.controlBytes, 0);
  for (int b = 0; b < 3; ++b) {
    const std::vector<int64_t> &o = ranks_[size_t(r)].offsets[b];
    std::memcpy(image.data() + ra.offsets[b], o.data(), o.size() * 8);
  }
  size_t m = size_t(maxChannels_);
  for (const Connection &conn : connections_) {
    if (conn.from != r && conn.to != r)
      continue;
    int32_t peer = conn.from == r ? conn.to : conn.from;
    size_t slot =
        size_t(conn.from == r ? conn.to : conn.from) * m + conn.channel;
    auto hostOf = [&](int32_t rank) -> uint64_t {
      return size_t(rank) < hostArenas.size() ? hostArenas[size_t(rank)] : 0;
    };
    uint64_t hostArena = hostOf(r);
    if (conn.net) {
      // This side's half, in its own host arena (the proxy bridges them).
      if (!hostArena || !arenas[size_t(r)])
        return Status(ErrorCode::InvalidArgument,
                      name_ + ": rank " + std::to_string(r) +
                          " has no host arena for its network connection " +
                          (conn.from == r ? "to" : "from") + " rank " +
                          std::to_string(peer) + " on channel " +
                          std::to_string(conn.channel));
      DeviceConnection d;
      d.slots = slots_;
      d.slotBytes = slotCapacity_;
      // The slots: in the host arena, or (GPUDirect) the device arena.
      uint64_t slotsBase = conn.slotsOnDevice ? arenas[size_t(r)] : hostArena;
      if (conn.from == r) {
        d.buffers = pointer<char>(slotsBase, conn.sendBuffers);
        d.head = pointer<uint64_t>(hostArena, conn.sendHead);
        d.tail = pointer<uint64_t>(hostArena, conn.tail);
        d.sizes = pointer<uint64_t>(hostArena, conn.sendSizes);
        d.counter = pointer<uint64_t>(arenas[size_t(r)], conn.sendCounter);
        put(image, ra.sendTo + slot * sizeof(DeviceConnection), d);
      } else {
        d.buffers = pointer<char>(slotsBase, conn.buffers);
        d.head = pointer<uint64_t>(hostArena, conn.head);
        d.tail = pointer<uint64_t>(hostArena, conn.recvTail);
        d.sizes = pointer<uint64_t>(hostArena, conn.sizes);
        d.counter = pointer<uint64_t>(arenas[size_t(r)], conn.recvCounter);
        put(image, ra.recvFrom + slot * sizeof(DeviceConnection), d);
      }
      continue;
    }
    // In device memory, or (viaHost) in the host arenas: one connection.
    uint64_t sender =
                 conn.viaHost ? hostOf(conn.from) : arenas[size_t(conn.from)],
             receiver =
                 conn.viaHost ? hostOf(conn.to) : arenas[size_t(conn.to)];
    if (conn.viaHost && (!sender || !receiver || !arenas[size_t(r)]))
      return Status(
          ErrorCode::InvalidArgument,
          name_ + ": rank " + std::to_string(r) +
              " has no host arena address for rank " +
              std::to_string(!sender ? conn.from : conn.to) +
              ", whose connection " + (conn.from == r ? "to" : "from") +
              " rank " + std::to_string(peer) + " on channel " +
              std::to_string(conn.channel) + " goes through host memory");
    if (!sender || !receiver)
      return Status(
          ErrorCode::InvalidArgument,
          name_ + ": rank " + std::to_string(r) + " has no address for rank " +
              std::to_string(peer) + "'s arena, which it " +
              (conn.from == r ? "sends to" : "receives from") + " on channel " +
              std::to_string(conn.channel) +
              ": every peer of a rank must be in the table of arenas (the "
              "peers' exchange did not provide it)");
    DeviceConnection d;
    d.buffers = pointer<char>(receiver, conn.buffers);
    d.head = pointer<uint64_t>(receiver, conn.head);
    d.tail = pointer<uint64_t>(sender, conn.tail);
    d.sizes = pointer<uint64_t>(receiver, conn.sizes);
    d.slots = slots_;
    d.slotBytes = slotCapacity_;
    d.llBuffers =
        llSlotBytes_ ? pointer<char>(receiver, conn.llBuffers) : nullptr;
    d.llSlotBytes = llSlotBytes_;
    if (conn.from == r) {
      d.counter = pointer<uint64_t>(arenas[size_t(r)], conn.sendCounter);
      put(image,
          ra.sendTo +
              (size_t(conn.to) * m + conn.channel) * sizeof(DeviceConnection),
          d);
    }
    if (conn.to == r) {
      d.counter = pointer<uint64_t>(arenas[size_t(r)], conn.recvCounter);
      put(image,
          ra.recvFrom +
              (size_t(conn.from) * m + conn.channel) * sizeof(DeviceConnection),
          d);
    }
  }
  *out = std::move(image);
  return Status::success();
}

Status
LaunchLayout::checkPeerTable(const std::vector<ArenaEntry> &table) const {
  if (table.size() != size_t(nranks_))
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": a table of " + std::to_string(table.size()) +
                      " arenas for a program of " + std::to_string(nranks_) +
                      " ranks");
  for (int32_t r : launched_)
    for (int32_t p : peers_[size_t(r)]) {
      const ArenaEntry &e = table[size_t(p)];
      std::string head = name_ + ": rank " + std::to_string(r) + "'s peer " +
                         std::to_string(p) + ": ";
      if (e.rank < 0)
        return Status(ErrorCode::InvalidArgument,
                      head + "no arena in the table (rank " +
                          std::to_string(r) + " exchanges messages with it, " +
                          "so every process must publish the arenas of its "
                          "ranks before any launch)");
      if (e.rank != p)
        return Status(ErrorCode::InvalidArgument,
                      head + "the table's entry " + std::to_string(p) +
                          " is rank " + std::to_string(e.rank) +
                          "'s arena (entries are by rank)");
      if (e.layoutKey != key_ || e.arenaBytes != arenas_[size_t(p)].bytes)
        return Status(
            ErrorCode::PlanMismatch,
            head + "its arena was laid out differently (" +
                std::to_string(e.arenaBytes) + " bytes, layout key " +
                std::to_string(e.layoutKey) + "; this process expects " +
                std::to_string(arenas_[size_t(p)].bytes) + " bytes, key " +
                std::to_string(key_) +
                "): every process must run the same plan, collective, "
                "count, slot bytes, slots and LL threshold");
      if (acrossHosts(r, p)) {
        if (e.netHandle.empty())
          return Status(ErrorCode::InvalidArgument,
                        head + "it is on another host but its entry names "
                               "no proxy to connect to (netHandle)");
      } else if (viaHost(r, p) && !e.hostAddress && !e.hostKey) {
        return Status(ErrorCode::InvalidArgument,
                      head + "their connections go through host memory but "
                             "its entry has no host arena address");
      } else if (!e.address && !e.offset) {
        return Status(ErrorCode::InvalidArgument,
                      head + "its entry has no address");
      }
    }
  return Status::success();
}

namespace {
void putWord(std::string &s, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s.push_back(char((v >> (8 * i)) & 0xff));
}
uint64_t getWord(const std::string &s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(s[at + size_t(i)])) << (8 * i);
  return v;
}
constexpr uint64_t kEntryMagic = 0x32414e4552414c43ull; // "CLARENA2"
constexpr size_t kEntryFixed = 10 * 8 + 64;
} // namespace

const char *gpuMemoryRegistrationName(GpuMemoryRegistration registration) {
  switch (registration) {
  case GpuMemoryRegistration::Auto:
    return "auto";
  case GpuMemoryRegistration::DmaBuf:
    return "dma-buf";
  case GpuMemoryRegistration::PeerMem:
    return "peermem";
  }
  return "?";
}

bool parseGpuMemoryRegistration(const std::string &name,
                                GpuMemoryRegistration *registration) {
  for (GpuMemoryRegistration r :
       {GpuMemoryRegistration::Auto, GpuMemoryRegistration::DmaBuf,
        GpuMemoryRegistration::PeerMem})
    if (name == gpuMemoryRegistrationName(r)) {
      *registration = r;
      return true;
    }
  return false;
}

const char *proxyPollingName(ProxyPolling polling) {
  return polling == ProxyPolling::Launch ? "launch" : "sleep";
}

bool parseProxyPolling(const std::string &name, ProxyPolling *polling) {
  for (ProxyPolling p : {ProxyPolling::Sleep, ProxyPolling::Launch})
    if (name == proxyPollingName(p)) {
      *polling = p;
      return true;
    }
  return false;
}

std::string encodeArenaEntry(const ArenaEntry &e) {
  std::string s;
  putWord(s, kEntryMagic);
  putWord(s, uint64_t(int64_t(e.rank)));
  putWord(s, e.layoutKey);
  putWord(s, e.arenaBytes);
  putWord(s, uint64_t(e.process));
  putWord(s, uint64_t(int64_t(e.device)));
  putWord(s, e.address);
  putWord(s, e.offset);
  putWord(s, e.hostAddress);
  putWord(s, e.hostKey);
  s.append(reinterpret_cast<const char *>(e.handle), sizeof e.handle);
  // The host name, a newline, the proxy's handle (one line each).
  s += e.host;
  s += '\n';
  s += e.netHandle;
  return s;
}

Status decodeArenaEntry(const std::string &text, int32_t from,
                        ArenaEntry *out) {
  ArenaEntry e;
  if (text.empty()) { // a process without a rank of the collective
    *out = e;
    return Status::success();
  }
  if (text.size() < kEntryFixed || getWord(text, 0) != kEntryMagic)
    return Status(ErrorCode::PlanMismatch,
                  "the arena entry of rank " + std::to_string(from) + " (" +
                      std::to_string(text.size()) +
                      " bytes) is not one this libcollrt writes: every "
                      "process must run the same collc-run");
  e.rank = int32_t(int64_t(getWord(text, 8)));
  e.layoutKey = getWord(text, 16);
  e.arenaBytes = getWord(text, 24);
  e.process = int64_t(getWord(text, 32));
  e.device = int32_t(int64_t(getWord(text, 40)));
  e.address = getWord(text, 48);
  e.offset = getWord(text, 56);
  e.hostAddress = getWord(text, 64);
  e.hostKey = getWord(text, 72);
  std::memcpy(e.handle, text.data() + 80, sizeof e.handle);
  std::string rest = text.substr(kEntryFixed);
  size_t newline = rest.find('\n');
  if (newline == std::string::npos)
    return Status(ErrorCode::PlanMismatch,
                  "the arena entry of rank " + std::to_string(from) +
                      " has no proxy handle: every process must run the "
                      "same collc-run");
  e.host = rest.substr(0, newline);
  e.netHandle = rest.substr(newline + 1);
  *out = e;
  return Status::success();
}

std::vector<std::vector<int32_t>> dealRanks(int32_t nranks, int32_t launches) {
  std::vector<std::vector<int32_t>> groups;
  if (launches < 1)
    return groups;
  groups.resize(size_t(launches));
  for (int32_t r = 0; r < nranks; ++r)
    groups[size_t(r % launches)].push_back(r);
  return groups;
}

} // namespace dev
} // namespace collrt
