//===- RaceCheck.cpp - unordered accesses of a rank's channels ------------===//
//
// Vector clocks over the streams that can race, carried by every stream:
// an instruction joins the clocks its dependencies left when they completed
// and the clock its recv's send left when it was posted, then its accesses
// are checked against each chunk's last write and the reads since (as in
// FastTrack, Flanagan and Freund, PLDI 2009). Matching is by order per
// connection, so which send meets which recv, and with it happens-before,
// is the same in every interleaving: the one execution sees every race.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/RaceCheck.h"

#include "compiler/Verify/Messages.h"

#include <algorithm>
#include <tuple>

namespace collc {
namespace sched {

RaceCheck::RaceCheck(const Program &program, const VerifyOptions &options,
                     const StreamIndex &streams, const ConnectionTable &table)
    : program(program), streams(streams),
      maxClockBytes(options.maxRaceClockBytes) {
  if (!options.checkRaces) {
    skipped = "disabled (VerifyOptions::checkRaces is false)";
    return;
  }
  RaceCandidates candidates = findRaceCandidates(program, streams);
  if (candidates.streams == 0)
    return;
  if (candidates.streams > options.maxRaceStreams) {
    skipped = "skipped: " + countOf(candidates.streams, "channel stream") +
              " on " + countOf(candidates.ranks, "rank") +
              " share chunks with another channel of their rank, more than "
              "the " +
              std::to_string(options.maxRaceStreams) +
              " it follows (VerifyOptions::maxRaceStreams)";
    return;
  }
  followed = candidates.streams;
  component = std::move(candidates.component);
  clocks = std::make_unique<ClockPool>(followed);
  streamClock.assign(streams.streamCount(), ClockPool::kZero);
  messages.resize(table.sends.size());

  for (uint32_t r = 0; r < uint32_t(program.ranks.size()); ++r) {
    const RankProgram &rank = program.ranks[r];
    for (const ChannelProgram &channel : rank.channels)
      for (const Instruction &instruction : channel.instructions)
        for (uint32_t d = 0; d < instruction.depCount; ++d) {
          const Dependency &dep = rank.dependencies[instruction.depBegin + d];
          if (targetOf.empty())
            targetOf.assign(streams.instructionCount(), kNone);
          uint32_t &slot = targetOf[streams.id(streams.stream(r, dep.channel),
                                               dep.instruction)];
          if (slot == kNone) {
            slot = uint32_t(targets.size());
            targets.emplace_back();
          }
          ++targets[slot].waiting;
        }
  }

  const BufferShape &shape = program.buffers;
  bufferOffset[size_t(Buffer::Input)] = 0;
  bufferOffset[size_t(Buffer::Output)] = shape.inputChunks;
  bufferOffset[size_t(Buffer::Scratch)] =
      size_t(shape.inputChunks) + shape.outputChunks;
  perRank =
      size_t(shape.inputChunks) + shape.outputChunks + shape.scratchChunks;
  rankHistory.assign(program.ranks.size(), kNone);
  size_t tracked = 0;
  for (uint32_t s = 0; s < streams.streamCount(); ++s) {
    uint32_t rank = streams.rankOf(s);
    if (component[s] != kNone && rankHistory[rank] == kNone)
      rankHistory[rank] = uint32_t(tracked++);
  }
  history.resize(tracked * perRank);
}

RaceCheck::Snapshot RaceCheck::snapshot(uint32_t stream, uint32_t completed) {
  clocks->retain(streamClock[stream]);
  return {streamClock[stream], component[stream], completed};
}

void RaceCheck::join(uint32_t stream, const Snapshot &from) {
  // A stream's own component is its program counter, kept out of the block.
  uint32_t own = component[stream] == kNone ? UINT32_MAX : component[stream];
  uint32_t extra = from.component == kNone ? UINT32_MAX : from.component;
  clocks->join(&streamClock[stream], from.block, own, extra, from.own);
}

bool RaceCheck::ordered(const Access &earlier, uint32_t stream) const {
  return earlier.stream == stream ||
         clocks->get(streamClock[stream], component[earlier.stream]) >
             earlier.index;
}

void RaceCheck::read(uint32_t stream, uint32_t index, ChunkHistory &chunk,
                     Buffer buffer, uint32_t at) {
  if (chunk.write.stream != kNone && !ordered(chunk.write, stream))
    conflicts.push_back({chunk.write, true, false, buffer, at});
  Access self{stream, index};
  if (chunk.shared != kNone) {
    // Reads ordered before this one need not be remembered: a write that
    // this read happens before, they happen before too.
    std::vector<Access> &reads = sharedReads[chunk.shared];
    reads.erase(std::remove_if(reads.begin(), reads.end(),
                               [&](const Access &earlier) {
                                 return ordered(earlier, stream);
                               }),
                reads.end());
    reads.push_back(self);
    return;
  }
  if (chunk.read.stream == kNone || ordered(chunk.read, stream)) {
    chunk.read = self;
    return;
  }
  if (freeShared.empty()) {
    chunk.shared = uint32_t(sharedReads.size());
    sharedReads.emplace_back();
  } else {
    chunk.shared = freeShared.back();
    freeShared.pop_back();
  }
  sharedReads[chunk.shared] = {chunk.read, self};
  chunk.read = Access();
}

void RaceCheck::releaseShared(ChunkHistory &chunk) {
  if (chunk.shared == kNone)
    return;
  sharedReads[chunk.shared].clear();
  freeShared.push_back(chunk.shared);
  chunk.shared = kNone;
}

void RaceCheck::write(uint32_t stream, uint32_t index, ChunkHistory &chunk,
                      Buffer buffer, uint32_t at) {
  if (chunk.write.stream != kNone && !ordered(chunk.write, stream))
    conflicts.push_back({chunk.write, true, true, buffer, at});
  auto checkRead = [&](const Access &earlier) {
    if (!ordered(earlier, stream))
      conflicts.push_back({earlier, false, true, buffer, at});
  };
  if (chunk.shared != kNone) {
    for (const Access &earlier : sharedReads[chunk.shared])
      checkRead(earlier);
    releaseShared(chunk);
  } else if (chunk.read.stream != kNone) {
    checkRead(chunk.read);
  }
  chunk.write = {stream, index};
  chunk.read = Access();
}

void RaceCheck::stopIfTooLarge() {
  if (clocks->bytes() <= maxClockBytes)
    return;
  skipped = "stopped part-way: the vector clocks of the " +
            countOf(followed, "channel stream") + " it follows outgrew " +
            (maxClockBytes % (1 << 20) == 0
                 ? std::to_string(maxClockBytes >> 20) + " MiB"
                 : countOf(maxClockBytes, "byte")) +
            " (VerifyOptions::maxRaceClockBytes); races reported before "
            "stand";
  clocks.reset();
  streamClock = {};
  messages = {};
  targets = {};
  targetOf = {};
  history = {};
  sharedReads = {};
}

void RaceCheck::execute(uint32_t stream, uint32_t index, uint32_t recvEntry,
                        uint32_t sendEntry, ErrorSink &errors) {
  if (!clocks)
    return;
  uint32_t rank = streams.rankOf(stream);
  const Instruction &instruction = streams.instruction(stream, index);
  const RankProgram &rankProgram = program.ranks[rank];
  for (uint32_t d = 0; d < instruction.depCount; ++d) {
    const Dependency &dep = rankProgram.dependencies[instruction.depBegin + d];
    DependencyTarget &target = targets[targetOf[streams.id(
        streams.stream(rank, dep.channel), dep.instruction)]];
    join(stream, target.snapshot);
    if (--target.waiting == 0)
      clocks->release(target.snapshot.block);
  }
  if (recvEntry != ConnectionTable::kNone) {
    join(stream, messages[recvEntry]);
    clocks->release(messages[recvEntry].block);
  }

  if (component[stream] != kNone) {
    ChunkHistory *chunks = &history[size_t(rankHistory[rank]) * perRank];
    auto visit = [&](const ChunkRange &range, bool isWrite) {
      ChunkHistory *chunk =
          chunks + bufferOffset[size_t(range.buffer)] + range.index;
      for (uint32_t i = 0; i < range.count; ++i, ++chunk) {
        if (isWrite)
          write(stream, index, *chunk, range.buffer, range.index + i);
        else
          read(stream, index, *chunk, range.buffer, range.index + i);
      }
    };
    // Reads first: an instruction that reads and writes a chunk (reduce)
    // is one access that writes.
    if (opcodeReadsSrc(instruction.opcode))
      visit(instruction.src, false);
    if (opcodeWritesDst(instruction.opcode))
      visit(instruction.dst, true);
    if (!conflicts.empty())
      report(stream, index, errors);
  }

  if (sendEntry != ConnectionTable::kNone)
    messages[sendEntry] = snapshot(stream, index + 1);
  if (!targets.empty()) {
    uint32_t target = targetOf[streams.id(stream, index)];
    if (target != kNone)
      targets[target].snapshot = snapshot(stream, index + 1);
  }
  stopIfTooLarge();
}

std::string RaceCheck::describe(uint32_t stream, uint32_t index) const {
  const Instruction &instruction = streams.instruction(stream, index);
  return "channel " + std::to_string(streams.channelOf(stream)) + " step " +
         std::to_string(instruction.step) + " (instruction " +
         std::to_string(index) + ": " + describeInstruction(instruction) + ")";
}

void RaceCheck::report(uint32_t stream, uint32_t index, ErrorSink &errors) {
  // One conflict per (other instruction, chunk), writes winning: a reduce
  // reads and writes its dst, a copy may read and write one chunk.
  auto key = [](const Conflict &c) {
    return std::make_tuple(c.other.stream, c.other.index, uint8_t(c.buffer),
                           c.chunk);
  };
  std::sort(
      conflicts.begin(), conflicts.end(),
      [&](const Conflict &a, const Conflict &b) { return key(a) < key(b); });
  std::vector<Conflict> merged;
  for (const Conflict &c : conflicts) {
    if (!merged.empty() && key(merged.back()) == key(c)) {
      merged.back().otherWrites |= c.otherWrites;
      merged.back().selfWrites |= c.selfWrites;
      continue;
    }
    merged.push_back(c);
  }
  conflicts.clear();

  uint32_t rank = streams.rankOf(stream);
  for (size_t i = 0; i < merged.size();) {
    const Conflict &first = merged[i];
    size_t end = i + 1;
    while (end < merged.size() &&
           merged[end].other.stream == first.other.stream &&
           merged[end].other.index == first.other.index &&
           merged[end].buffer == first.buffer &&
           merged[end].otherWrites == first.otherWrites &&
           merged[end].selfWrites == first.selfWrites &&
           merged[end].chunk == merged[end - 1].chunk + 1)
      ++end;
    uint32_t count = uint32_t(end - i);
    i = end;
    if (!errors.wants(VerifyErrorKind::Race)) {
      errors.count(VerifyErrorKind::Race);
      continue;
    }
    std::string chunks = describeRange({first.buffer, first.chunk, count}) +
                         (count == 1 ? " is " : " are ");
    std::string earlier = describe(first.other.stream, first.other.index);
    std::string later = describe(stream, index);
    std::string how =
        first.otherWrites && first.selfWrites
            ? "written by " + earlier + " and by " + later
            : std::string(first.otherWrites ? "written" : "read") + " by " +
                  earlier + " and " + (first.selfWrites ? "written" : "read") +
                  " by " + later;
    // Either wait orders them; which one is meant depends on what the
    // algorithm means, and the run's order is the one the postcondition saw.
    auto wait = [&](uint32_t waiter, uint32_t waiterIndex, uint32_t awaited,
                    uint32_t awaitedIndex) {
      return "`after = [(channel " +
             std::to_string(streams.channelOf(awaited)) + ", index " +
             std::to_string(awaitedIndex) + ")]` on channel " +
             std::to_string(streams.channelOf(waiter)) + "'s instruction " +
             std::to_string(waiterIndex);
    };
    errors.report(
        VerifyErrorKind::Race,
        "race: rank " + std::to_string(rank) + ", " + chunks + how +
            ", and neither happens before the other (no chain of program "
            "order, `after` dependencies and messages leads from one to the "
            "other); " +
            wait(stream, index, first.other.stream, first.other.index) +
            " orders them as this run did, " +
            wait(first.other.stream, first.other.index, stream, index) +
            " the other way");
  }
}

} // namespace sched
} // namespace collc
