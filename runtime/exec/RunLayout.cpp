//===- RunLayout.cpp - one rank's view of a collective for one count ------===//
#include "runtime/exec/RunLayout.h"

#include <algorithm>

namespace collrt {
namespace exec {

using collc::sched::Buffer;
using collc::sched::ChunkRange;
using collc::sched::Collective;
using collc::sched::Instruction;
using collc::sched::Opcode;
using collc::sched::Program;
using collc::sched::RankProgram;

const ChunkRange &messageChunks(const Instruction &instruction) {
  Opcode op = instruction.opcode;
  return op == Opcode::Send || op == Opcode::RecvReduceSend ? instruction.src
                                                            : instruction.dst;
}

std::string describeRange(const ChunkRange &range) {
  std::string text = collc::sched::bufferName(range.buffer);
  text += "[" + std::to_string(range.index);
  if (range.count != 1)
    text += ".." + std::to_string(int64_t(range.index) + range.count - 1);
  return text + "]";
}

namespace {

/// FNV-1a over 64-bit words.
struct Fingerprint {
  uint64_t hash = 1469598103934665603ull;
  void add(uint64_t word) {
    for (int i = 0; i < 8; ++i) {
      hash ^= (word >> (8 * i)) & 0xff;
      hash *= 1099511628211ull;
    }
  }
};

class ProgramChecker {
public:
  ProgramChecker(const Program &program, const std::string &name)
      : program_(program), name_(name) {}

  Status check() {
    const Program &p = program_;
    if (p.numRanks < 1)
      return fail("the program has " + std::to_string(p.numRanks) +
                  " ranks; it needs at least one");
    if (p.ranks.size() != size_t(p.numRanks))
      return fail("the program has streams for " +
                  std::to_string(p.ranks.size()) + " ranks but numRanks is " +
                  std::to_string(p.numRanks));
    if (p.chunksPerPart < 1)
      return fail("chunksPerPart is 0");
    if (p.collective == Collective::AllToAllV) {
      size_t n = size_t(p.numRanks);
      // Empty: the counts are given at run time (buildRunLayout checks them).
      if (!p.sendCounts.empty() && p.sendCounts.size() != n * n)
        return fail("all_to_all_v has " + std::to_string(p.sendCounts.size()) +
                    " send counts; " + std::to_string(n) + " ranks need " +
                    std::to_string(n * n));
      for (size_t i = 0; i < p.sendCounts.size(); ++i)
        if (p.sendCounts[i] < 0)
          return fail("send count " + std::to_string(i) + " is negative (" +
                      std::to_string(p.sendCounts[i]) + ")");
    }
    for (int32_t r = 0; r < p.numRanks; ++r) {
      const RankProgram &rank = p.ranks[size_t(r)];
      for (uint32_t c = 0; c < rank.channels.size(); ++c) {
        const auto &stream = rank.channels[c].instructions;
        for (uint32_t i = 0; i < stream.size(); ++i)
          if (Status s = checkInstruction(rank, r, c, i, stream[i]); !s.ok())
            return s;
      }
    }
    return Status::success();
  }

private:
  Status fail(const std::string &what) const {
    return Status(ErrorCode::InvalidPlan, name_ + ": " + what);
  }

  Status checkInstruction(const RankProgram &rank, int32_t r, uint32_t c,
                          uint32_t i, const Instruction &in) const {
    // The instruction's name is built only for an error: this check runs
    // on every run, over every rank's streams.
    auto where = [&] {
      std::string w = "program rank " + std::to_string(r) + " channel " +
                      std::to_string(c) + " instruction " + std::to_string(i);
      if (uint8_t(in.opcode) <= uint8_t(Opcode::RecvReduceCopySend))
        w += std::string(" (") + collc::sched::opcodeName(in.opcode) + ")";
      return w;
    };
    if (uint8_t(in.opcode) > uint8_t(Opcode::RecvReduceCopySend))
      return fail(where() + " has an unknown opcode (" +
                  std::to_string(int(in.opcode)) + ")");
    int32_t n = program_.numRanks;
    if (collc::sched::opcodeSends(in.opcode) &&
        (in.sendPeer < 0 || in.sendPeer >= n))
      return fail(where() + " sends to rank " + std::to_string(in.sendPeer) +
                  ", outside the " + std::to_string(n) + " ranks");
    if (collc::sched::opcodeReceives(in.opcode) &&
        (in.recvPeer < 0 || in.recvPeer >= n))
      return fail(where() + " receives from rank " +
                  std::to_string(in.recvPeer) + ", outside the " +
                  std::to_string(n) + " ranks");
    if (collc::sched::opcodeReadsSrc(in.opcode))
      if (Status s = checkRange(where, "src", in.src); !s.ok())
        return s;
    if (collc::sched::opcodeWritesDst(in.opcode))
      if (Status s = checkRange(where, "dst", in.dst); !s.ok())
        return s;
    if (std::string rule = collc::sched::checkRangeCounts(in); !rule.empty())
      return fail(where() + " has src " + describeRange(in.src) + " and dst " +
                  describeRange(in.dst) + ": " + rule);
    if (uint64_t(in.depBegin) + in.depCount > rank.dependencies.size())
      return fail(where() + " has dependencies [" +
                  std::to_string(in.depBegin) + ", " +
                  std::to_string(uint64_t(in.depBegin) + in.depCount) +
                  ") outside the rank's " +
                  std::to_string(rank.dependencies.size()) + " dependencies");
    for (uint32_t d = 0; d < in.depCount; ++d) {
      const collc::sched::Dependency &dep =
          rank.dependencies[size_t(in.depBegin) + d];
      if (dep.channel == c || dep.channel >= rank.channels.size() ||
          dep.instruction >= rank.channels[dep.channel].instructions.size())
        return fail(where() + " depends on channel " +
                    std::to_string(dep.channel) + " instruction " +
                    std::to_string(dep.instruction) +
                    ", which is not an instruction of another channel of "
                    "the rank");
    }
    return Status::success();
  }

  template <typename Where>
  Status checkRange(const Where &where, const char *field,
                    const ChunkRange &range) const {
    if (uint8_t(range.buffer) > uint8_t(Buffer::Scratch))
      return fail(where() + " " + field + " names an unknown buffer (" +
                  std::to_string(int(range.buffer)) + ")");
    uint32_t chunks = program_.buffers.chunks(range.buffer);
    if (uint64_t(range.index) + range.count > chunks)
      return fail(where() + " " + field + " " + describeRange(range) +
                  " is outside the " + collc::sched::bufferName(range.buffer) +
                  " buffer's " + std::to_string(chunks) + " chunks");
    return Status::success();
  }

  const Program &program_;
  const std::string &name_;
};

/// The send counts of an all_to_all_v run: the plan's, or (when the plan
/// leaves them to run time) the caller's N x N matrix. PlanMismatch for a
/// matrix given to a plan that fixes its counts; InvalidArgument for a
/// missing one or a negative entry.
Status runSendCounts(const PlanCollective &collective, const std::string &rank,
                     const std::string &name, const int64_t *given,
                     const int64_t **counts) {
  const Program &program = collective.program;
  *counts = nullptr;
  if (program.collective != Collective::AllToAllV) {
    if (given)
      return Status(ErrorCode::InvalidArgument,
                    rank + ": send counts were given for " + name +
                        ", which is not an all_to_all_v and takes none");
    return Status::success();
  }
  if (!sendCountsAtRunTime(collective)) {
    if (given)
      return Status(ErrorCode::PlanMismatch,
                    rank + ": send counts were given for " + name +
                        ", whose plan fixes its send counts (run it without "
                        "them, or emit a plan whose counts are given at run "
                        "time)");
    *counts = program.sendCounts.data();
    return Status::success();
  }
  if (!given)
    return Status(ErrorCode::InvalidArgument,
                  rank + ": " + name +
                      " takes its send counts at run time, but none were "
                      "given (pass the " +
                      std::to_string(program.numRanks) + " x " +
                      std::to_string(program.numRanks) +
                      " matrix, row-major by sender, the same on every rank)");
  size_t n = size_t(program.numRanks);
  for (size_t i = 0; i < n * n; ++i)
    if (given[i] < 0)
      return Status(
          ErrorCode::InvalidArgument,
          rank + ": send count [" + std::to_string(i / n) + "][" +
              std::to_string(i % n) + "] (entry " + std::to_string(i) +
              ", from group rank " + std::to_string(i / n) + " to " +
              std::to_string(i % n) + ") of " + name + " is negative (" +
              std::to_string(given[i]) + "); counts are elements >= 0");
  *counts = given;
  return Status::success();
}

/// The largest chunk of any buffer of any rank for `count` (so that every
/// rank cuts the same number of tiles).
int64_t largestChunk(const Program &program,
                     const collc::sched::ChunkLayout &layout,
                     const int64_t *sendCounts) {
  int64_t largest = layout.elements(0, Buffer::Scratch, 0);
  if (program.collective == Collective::AllToAllV) {
    size_t n = size_t(program.numRanks);
    for (size_t i = 0; i < n * n; ++i)
      largest = std::max(largest, collc::sched::chunkElements(
                                      sendCounts[i], program.chunksPerPart, 0));
    return largest;
  }
  // Input chunks are the same on every rank and output chunks are largest
  // on rank 0 (its part of an N-part buffer is the first, which carries
  // the remainder).
  for (Buffer b : {Buffer::Input, Buffer::Output})
    for (uint32_t i = 0; i < program.buffers.chunks(b); ++i)
      largest = std::max(largest, layout.elements(0, b, i));
  return largest;
}

} // namespace

Status buildRunLayout(const PlanCollective &collective, size_t index,
                      int32_t worldRank, int32_t worldSize, int64_t count,
                      size_t slotBytes, RunLayout *out,
                      const int64_t *sendCounts) {
  const Program &program = collective.program;
  RunLayout &layout = *out;
  layout = RunLayout();
  layout.collectiveName =
      "collective " + std::to_string(index) + " (" +
      collc::sched::collectiveName(program.collective) + " '" +
      program.algorithm + "'" +
      (collective.location.empty() ? "" : ", " + collective.location) + ")";
  layout.worldRank = worldRank;
  layout.elementSize = dataTypeSize(collective.dtype);

  if (Status s = ProgramChecker(program, layout.collectiveName).check();
      !s.ok())
    return s;
  if (collective.connectionSlots < 1)
    return Status(ErrorCode::InvalidPlan,
                  layout.collectiveName + ": connectionSlots is 0");
  const int64_t *counts = nullptr;
  if (Status s = runSendCounts(collective, "rank " + std::to_string(worldRank),
                               layout.collectiveName, sendCounts, &counts);
      !s.ok())
    return s;

  // Groups: disjoint, each numRanks world ranks of the world.
  std::vector<bool> seen(size_t(std::max(worldSize, 0)), false);
  for (size_t g = 0; g < collective.groups.size(); ++g) {
    const std::vector<int32_t> &group = collective.groups[g];
    auto where = [&] {
      return layout.collectiveName + ": group " + std::to_string(g);
    };
    if (group.size() != size_t(program.numRanks))
      return Status(ErrorCode::PlanMismatch,
                    where() + " has " + std::to_string(group.size()) +
                        " ranks but the schedule is for " +
                        std::to_string(program.numRanks));
    for (size_t r = 0; r < group.size(); ++r) {
      int32_t world = group[r];
      if (world < 0 || world >= worldSize)
        return Status(ErrorCode::PlanMismatch,
                      where() + " names world rank " + std::to_string(world) +
                          ", outside this world of " +
                          std::to_string(worldSize) + " ranks");
      if (seen[size_t(world)])
        return Status(ErrorCode::PlanMismatch,
                      where() + " names world rank " + std::to_string(world) +
                          ", which is already in a group of the collective");
      seen[size_t(world)] = true;
      if (world == worldRank) {
        layout.groupIndex = int32_t(g);
        layout.groupRank = int32_t(r);
      }
    }
  }

  // What every rank computes alike: the fingerprint and the largest
  // message.
  Fingerprint fingerprint;
  fingerprint.add(uint64_t(program.numRanks));
  fingerprint.add(collective.connectionSlots);
  fingerprint.add(slotBytes);
  for (const std::vector<int32_t> &group : collective.groups) {
    fingerprint.add(group.size());
    for (int32_t world : group)
      fingerprint.add(uint64_t(uint32_t(world)));
  }
  for (const RankProgram &rank : program.ranks) {
    fingerprint.add(rank.channels.size());
    for (const collc::sched::ChannelProgram &channel : rank.channels) {
      fingerprint.add(channel.instructions.size());
      for (const Instruction &in : channel.instructions) {
        bool sends = collc::sched::opcodeSends(in.opcode);
        bool receives = collc::sched::opcodeReceives(in.opcode);
        fingerprint.add(
            (sends ? uint64_t(uint32_t(in.sendPeer)) : ~0ull) ^
            ((receives ? uint64_t(uint32_t(in.recvPeer)) : ~0ull) << 32));
        if (sends || receives)
          layout.maxMessageChunks = std::max<uint64_t>(layout.maxMessageChunks,
                                                       messageChunks(in).count);
      }
    }
  }
  layout.fingerprint = fingerprint.hash;
  {
    Fingerprint agreement;
    agreement.add(fingerprint.hash);
    if (program.collective != Collective::AllToAllV) {
      agreement.add(uint64_t(count));
    } else if (counts) {
      size_t n = size_t(program.numRanks);
      for (size_t i = 0; i < n * n; ++i)
        agreement.add(uint64_t(counts[i]));
    }
    layout.agreement = uint32_t(agreement.hash ^ (agreement.hash >> 32)) | 1u;
  }
  layout.spec.slots = collective.connectionSlots;
  layout.spec.slotBytes = slotBytes;
  if (layout.groupRank < 0)
    return Status::success();

  for (int32_t world : collective.groups[size_t(layout.groupIndex)])
    layout.group.push_back(world);

  // This rank's buffers.
  collc::sched::ChunkLayout chunks(program, count, counts);
  for (Buffer b : {Buffer::Input, Buffer::Output, Buffer::Scratch}) {
    std::vector<int64_t> &offsets = layout.offsets[int(b)];
    uint32_t n = program.buffers.chunks(b);
    offsets.resize(size_t(n) + 1);
    offsets[0] = 0;
    for (uint32_t i = 0; i < n; ++i)
      offsets[i + 1] = offsets[i] + chunks.elements(layout.groupRank, b, i);
  }
  layout.scratchCapacity =
      chunks.elements(layout.groupRank, Buffer::Scratch, 0);

  // Tiles: every chunk's tile-t slice is its elements [t T, (t + 1) T), so
  // that a message of c chunks holds at most c T elements after its header.
  int64_t largest = largestChunk(program, chunks, counts);
  uint64_t c = layout.maxMessageChunks;
  if (c == 0) {
    layout.tileElements = std::max<int64_t>(largest, 1);
  } else {
    size_t header = messageHeaderBytes(c);
    size_t least = header + c * layout.elementSize;
    if (slotBytes < least)
      return Status(
          ErrorCode::InvalidArgument,
          layout.collectiveName + ": slotBytes = " + std::to_string(slotBytes) +
              " is too small: its largest message carries " +
              std::to_string(c) + " chunks and needs at least " +
              std::to_string(least) + " bytes (a " + std::to_string(header) +
              "-byte header and one element per chunk)");
    layout.tileElements =
        int64_t((slotBytes - header) / (c * layout.elementSize));
  }
  layout.tiles = std::max<uint64_t>(
      1, uint64_t((largest + layout.tileElements - 1) / layout.tileElements));

  // This rank's connections, and who writes which chunk.
  const RankProgram &mine = program.ranks[size_t(layout.groupRank)];
  for (int b = 0; b < 3; ++b)
    layout.writers[b].assign(layout.offsets[b].size() - 1, 0);
  for (uint32_t ch = 0; ch < mine.channels.size(); ++ch)
    for (const Instruction &in : mine.channels[ch].instructions) {
      if (collc::sched::opcodeSends(in.opcode))
        layout.spec.sendTo.push_back({layout.worldRankOf(in.sendPeer), ch});
      if (collc::sched::opcodeReceives(in.opcode))
        layout.spec.recvFrom.push_back({layout.worldRankOf(in.recvPeer), ch});
      if (collc::sched::opcodeWritesDst(in.opcode) &&
          in.dst.buffer == Buffer::Input)
        layout.writesInput = true;
      if (collc::sched::opcodeWritesDst(in.opcode)) {
        std::vector<uint32_t> &w = layout.writers[int(in.dst.buffer)];
        for (uint32_t j = 0; j < in.dst.count; ++j)
          if (in.dst.index + j < w.size())
            ++w[in.dst.index + j];
      }
    }
  for (std::vector<ConnectionKey> *keys :
       {&layout.spec.sendTo, &layout.spec.recvFrom}) {
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  }
  return Status::success();
}

} // namespace exec
} // namespace collrt
