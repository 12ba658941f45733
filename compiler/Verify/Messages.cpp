//===- Messages.cpp - plain-words pieces of verifier messages -------------===//
#include "compiler/Verify/Messages.h"

#include "compiler/Verify/Verifier.h"

namespace collc {
namespace sched {

const char *verifyErrorKindName(VerifyErrorKind kind) {
  switch (kind) {
  case VerifyErrorKind::Malformed:
    return "malformed";
  case VerifyErrorKind::Mismatch:
    return "mismatch";
  case VerifyErrorKind::Deadlock:
    return "deadlock";
  case VerifyErrorKind::InvalidReduce:
    return "invalid-reduce";
  case VerifyErrorKind::DoubleCount:
    return "double-count";
  case VerifyErrorKind::Postcondition:
    return "postcondition";
  case VerifyErrorKind::CoResidency:
    return "co-residency";
  case VerifyErrorKind::Race:
    return "race";
  }
  return "?";
}

std::string countOf(uint64_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string describeInstruction(const Instruction &instruction) {
  std::string text = opcodeName(instruction.opcode);
  if (opcodeReceives(instruction.opcode))
    text += " from rank " + std::to_string(instruction.recvPeer);
  if (opcodeSends(instruction.opcode))
    text += " to rank " + std::to_string(instruction.sendPeer);
  return text;
}

std::string streamStep(uint32_t rank, uint32_t channel,
                       const Instruction &instruction) {
  return "rank " + std::to_string(rank) + " channel " +
         std::to_string(channel) + " step " + std::to_string(instruction.step);
}

std::string instructionLocation(uint32_t rank, uint32_t channel, uint32_t index,
                                const Instruction &instruction) {
  return streamStep(rank, channel, instruction) + " (instruction " +
         std::to_string(index) + ": " + describeInstruction(instruction) + ")";
}

std::string describeChunk(Buffer buffer, uint64_t index) {
  return std::string(bufferName(buffer)) + " chunk " + std::to_string(index);
}

std::string describeRange(const ChunkRange &range) {
  std::string buffer = bufferName(range.buffer);
  if (range.count == 0)
    return "no " + buffer + " chunks";
  if (range.count == 1)
    return buffer + " chunk " + std::to_string(range.index);
  return buffer + " chunks " + std::to_string(range.index) + ".." +
         std::to_string(uint64_t(range.index) + range.count - 1);
}

std::string formatRankSet(const RankSetPool &pool, RankSetPool::Handle set) {
  uint32_t n = pool.intervalCount(set);
  if (n == 1) {
    RankInterval only = pool.interval(set, 0);
    if (only.last >= only.first + 2)
      return std::to_string(only.first) + ".." + std::to_string(only.last);
  }
  // Sets with many intervals are shown in part: 16 intervals tell what
  // went wrong, the rank count tells how much.
  constexpr uint32_t kShown = 16;
  std::string text = "{";
  auto append = [&](const std::string &item) {
    if (text.size() > 1)
      text += ",";
    text += item;
  };
  for (uint32_t i = 0; i < n && i < kShown; ++i) {
    RankInterval interval = pool.interval(set, i);
    if (interval.last >= interval.first + 2) {
      append(std::to_string(interval.first) + ".." +
             std::to_string(interval.last));
    } else {
      for (uint64_t r = interval.first; r <= interval.last; ++r)
        append(std::to_string(r));
    }
  }
  if (n > kShown) {
    append("...");
    append(std::to_string(pool.interval(set, n - 1).last) + " (" +
           countOf(pool.size(set), "rank") + ")");
  }
  return text + "}";
}

} // namespace sched
} // namespace collc
