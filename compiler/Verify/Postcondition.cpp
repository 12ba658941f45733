//===- Postcondition.cpp - do the outputs hold what they must? ------------===//
//
// After a complete run, compares every constrained output chunk with the
// collective's table (Program.h) and says what it holds and what it must.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Checks.h"
#include "compiler/Verify/Messages.h"
#include "compiler/Verify/SymbolicState.h"

namespace collc {
namespace sched {
namespace {

/// "input chunk 4 of rank 1", or "the sum over ranks 0..7" (followed by
/// "of input chunk 6" when `withOrigin`).
std::string describeValue(const RankSetPool &pool, uint32_t origin,
                          RankSetPool::Handle ranks, bool withOrigin) {
  if (pool.size(ranks) == 1)
    return "input chunk " + std::to_string(origin) + " of rank " +
           std::to_string(pool.interval(ranks, 0).first);
  std::string text = "the sum over ranks " + formatRankSet(pool, ranks);
  if (withOrigin)
    text += " of input chunk " + std::to_string(origin);
  return text;
}

} // namespace

void checkPostcondition(const Program &program, const CollectiveLayout &layout,
                        const SymbolicState &state, ErrorSink &errors) {
  const RankSetPool &pool = state.rankSets();
  for (uint32_t r = 0; r < uint32_t(program.numRanks); ++r) {
    const SymbolicValue *output = state.chunks(r, Buffer::Output);
    for (uint32_t j = 0; j < program.buffers.outputChunks; ++j) {
      ExpectedChunk expected = layout.expected(r, j);
      if (expected.free)
        continue;
      RankSetPool::Handle expectedRanks =
          expected.rank < 0 ? pool.allRanks() : pool.singleton(expected.rank);
      SymbolicValue value = output[j];
      if (value.defined() && value.origin == expected.origin &&
          pool.equal(value.ranks, expectedRanks))
        continue;
      if (!errors.wants(VerifyErrorKind::Postcondition)) {
        errors.count(VerifyErrorKind::Postcondition);
        continue;
      }
      bool otherOrigin = value.defined() && value.origin != expected.origin;
      std::string holds =
          value.invalid() ? "holds the result of an invalid reduce"
          : !value.defined()
              ? "was never written"
              : "holds " +
                    describeValue(pool, value.origin, value.ranks, otherOrigin);
      errors.report(
          VerifyErrorKind::Postcondition,
          "rank " + std::to_string(r) + ", " +
              describeChunk(Buffer::Output, j) + " " + holds +
              " but must hold " +
              describeValue(pool, expected.origin, expectedRanks, otherOrigin));
    }
  }
}

} // namespace sched
} // namespace collc
