//===- SymbolicState.h - buffers of symbolic chunk values -------*- C++ -*-===//
//
// Every chunk of every buffer of every rank holds a symbolic value: which
// input chunk it derives from and which ranks' contributions it sums, or
// undefined. Executing an instruction moves and combines these values and
// checks each reduction.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_SYMBOLICSTATE_H
#define COLLC_COMPILER_VERIFY_SYMBOLICSTATE_H

#include "compiler/Verify/ErrorSink.h"
#include "compiler/Verify/RankSet.h"

namespace collc {
namespace sched {

/// (origin input chunk, contributing ranks), undefined, or invalid (the
/// result of a reduce already reported as wrong, so that one mistake is
/// reported once). Eight bytes, so 1024 ranks x 3K chunks fit in 24 MiB.
struct SymbolicValue {
  static constexpr uint32_t kInvalidOrigin = UINT32_MAX;

  uint32_t origin = 0;
  RankSetPool::Handle ranks = RankSetPool::kNone; ///< kNone: undefined

  bool defined() const { return ranks != RankSetPool::kNone; }
  bool invalid() const { return origin == kInvalidOrigin; }
  static SymbolicValue makeInvalid() {
    return {kInvalidOrigin, RankSetPool::kNone};
  }
};

class SymbolicState {
public:
  /// Input chunk i of rank r holds (i, {r}); output and scratch are
  /// undefined. `program` must be well formed.
  explicit SymbolicState(const Program &program);

  const RankSetPool &rankSets() const { return pool; }

  const SymbolicValue *chunks(uint32_t rank, Buffer buffer) const {
    return &values[slot(rank, buffer)];
  }

  /// Where an instruction runs, for messages.
  struct Site {
    uint32_t rank, channel, index;
    const Instruction &instruction;
  };

  /// Executes the data movement of `site.instruction`. `received` is the
  /// message its recv part takes (nullptr if it has none); returns the
  /// offset of the message its send part posts (see message()), or 0.
  /// Reports InvalidReduce and DoubleCount errors.
  uint64_t execute(const Site &site, const SymbolicValue *received,
                   ErrorSink &errors);

  /// The values of a posted message.
  const SymbolicValue *message(uint64_t offset) const {
    return &messages[offset];
  }

private:
  size_t slot(uint32_t rank, Buffer buffer) const {
    return size_t(rank) * perRank + bufferOffset[size_t(buffer)];
  }
  SymbolicValue *chunks(uint32_t rank, const ChunkRange &range) {
    return &values[slot(rank, range.buffer) + range.index];
  }
  uint64_t post(const SymbolicValue *first, uint32_t count);
  /// `a` (op) `b` for chunk i of `target`: `a` is the arrival when
  /// `aReceived`, else chunk i of `target` itself; `b` is chunk i of `src`.
  SymbolicValue combine(const Site &site, const ChunkRange &target, uint32_t i,
                        SymbolicValue a, bool aReceived, SymbolicValue b,
                        const ChunkRange &src, ErrorSink &errors);
  std::string describeOrigin(SymbolicValue value) const;

  RankSetPool pool;
  size_t perRank = 0;
  size_t bufferOffset[3] = {0, 0, 0};
  std::vector<SymbolicValue> values;
  /// Every message ever posted, back to back (offset 0 is a dummy, so that
  /// 0 can mean "none"); grows with the chunks sent.
  std::vector<SymbolicValue> messages;
  std::vector<SymbolicValue> staging; ///< operands that a write may overlap
};

} // namespace sched
} // namespace collc

#endif
