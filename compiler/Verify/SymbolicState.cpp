//===- SymbolicState.cpp - buffers of symbolic chunk values ---------------===//
#include "compiler/Verify/SymbolicState.h"

#include "compiler/Verify/Messages.h"

#include <cstring>

namespace collc {
namespace sched {

SymbolicState::SymbolicState(const Program &program)
    : pool(uint32_t(program.numRanks)) {
  const BufferShape &shape = program.buffers;
  bufferOffset[size_t(Buffer::Input)] = 0;
  bufferOffset[size_t(Buffer::Output)] = shape.inputChunks;
  bufferOffset[size_t(Buffer::Scratch)] =
      size_t(shape.inputChunks) + shape.outputChunks;
  perRank =
      size_t(shape.inputChunks) + shape.outputChunks + shape.scratchChunks;
  values.resize(perRank * size_t(program.numRanks));
  for (uint32_t r = 0; r < uint32_t(program.numRanks); ++r) {
    SymbolicValue *input = &values[slot(r, Buffer::Input)];
    for (uint32_t i = 0; i < shape.inputChunks; ++i)
      input[i] = {i, pool.singleton(r)};
  }
  messages.resize(1);
}

uint64_t SymbolicState::post(const SymbolicValue *first, uint32_t count) {
  uint64_t offset = messages.size();
  messages.insert(messages.end(), first, first + count);
  return offset;
}

std::string SymbolicState::describeOrigin(SymbolicValue value) const {
  std::string text = "input chunk " + std::to_string(value.origin) + " of ";
  if (pool.size(value.ranks) == 1)
    return text + "rank " + std::to_string(pool.interval(value.ranks, 0).first);
  return text + "ranks " + formatRankSet(pool, value.ranks);
}

SymbolicValue SymbolicState::combine(const Site &site, const ChunkRange &target,
                                     uint32_t i, SymbolicValue a,
                                     bool aReceived, SymbolicValue b,
                                     const ChunkRange &src, ErrorSink &errors) {
  if (a.invalid() || b.invalid())
    return SymbolicValue::makeInvalid();
  auto where = [&] {
    return instructionLocation(site.rank, site.channel, site.index,
                               site.instruction) +
           ", " + describeChunk(target.buffer, uint64_t(target.index) + i) +
           ": ";
  };
  auto report = [&](VerifyErrorKind kind, auto problem) {
    if (errors.wants(kind))
      errors.report(kind, where() + problem());
    else
      errors.count(kind);
  };
  if (!a.defined() || !b.defined()) {
    report(VerifyErrorKind::InvalidReduce, [&] {
      std::string operand =
          !a.defined()
              ? (aReceived
                     ? "the value received from rank " +
                           std::to_string(site.instruction.recvPeer)
                     : describeChunk(target.buffer, uint64_t(target.index) + i))
              : describeChunk(src.buffer, uint64_t(src.index) + i);
      return "reduces " + operand + ", which was never written";
    });
    return SymbolicValue::makeInvalid();
  }
  if (a.origin != b.origin) {
    report(VerifyErrorKind::InvalidReduce, [&] {
      return "reduces " + describeOrigin(a) + " with " + describeOrigin(b);
    });
    return SymbolicValue::makeInvalid();
  }
  RankSetPool::Handle overlap;
  SymbolicValue sum{a.origin, pool.unite(a.ranks, b.ranks, &overlap)};
  if (overlap != RankSetPool::kNone)
    report(VerifyErrorKind::DoubleCount, [&] {
      if (pool.size(overlap) == 1)
        return "the contribution of rank " +
               std::to_string(pool.interval(overlap, 0).first) +
               " is counted twice";
      return "the contributions of ranks " + formatRankSet(pool, overlap) +
             " are counted twice";
    });
  return sum;
}

uint64_t SymbolicState::execute(const Site &site, const SymbolicValue *received,
                                ErrorSink &errors) {
  const Instruction &instruction = site.instruction;
  const ChunkRange &src = instruction.src;
  const ChunkRange &dst = instruction.dst;
  switch (instruction.opcode) {
  case Opcode::Send:
    return post(chunks(site.rank, src), src.count);
  case Opcode::Recv:
    std::memcpy(chunks(site.rank, dst), received,
                dst.count * sizeof(SymbolicValue));
    return 0;
  case Opcode::RecvCopySend: {
    // Copy out first: post() may move the message arena `received` is in.
    std::memcpy(chunks(site.rank, dst), received,
                dst.count * sizeof(SymbolicValue));
    return post(chunks(site.rank, dst), dst.count);
  }
  case Opcode::Copy:
    // memmove: a copy may shift a range within one buffer.
    std::memmove(chunks(site.rank, dst), chunks(site.rank, src),
                 dst.count * sizeof(SymbolicValue));
    return 0;
  case Opcode::Reduce: {
    // Stage the operands: dst may overlap src.
    const SymbolicValue *operand = chunks(site.rank, src);
    staging.assign(operand, operand + src.count);
    SymbolicValue *target = chunks(site.rank, dst);
    // With fanin w, src is w ranges of dst.count chunks, combined in order.
    uint32_t fanin = reduceFanin(site.instruction);
    for (uint32_t w = 0; w < fanin; ++w) {
      ChunkRange part{src.buffer, src.index + w * dst.count, dst.count};
      for (uint32_t i = 0; i < dst.count; ++i)
        target[i] = combine(site, dst, i, target[i], false,
                            staging[w * dst.count + i], part, errors);
    }
    return 0;
  }
  case Opcode::RecvReduceSend: {
    const SymbolicValue *operand = chunks(site.rank, src);
    staging.resize(src.count);
    for (uint32_t i = 0; i < src.count; ++i)
      staging[i] =
          combine(site, src, i, received[i], true, operand[i], src, errors);
    return post(staging.data(), src.count);
  }
  case Opcode::RecvReduceCopy:
  case Opcode::RecvReduceCopySend: {
    const SymbolicValue *operand = chunks(site.rank, src);
    staging.resize(src.count);
    for (uint32_t i = 0; i < src.count; ++i)
      staging[i] =
          combine(site, dst, i, received[i], true, operand[i], src, errors);
    std::memcpy(chunks(site.rank, dst), staging.data(),
                dst.count * sizeof(SymbolicValue));
    if (instruction.opcode == Opcode::RecvReduceCopy)
      return 0;
    return post(staging.data(), dst.count);
  }
  }
  return 0;
}

} // namespace sched
} // namespace collc
