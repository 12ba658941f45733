//===- Layout.h - a collective's buffers, sizes and result ------*- C++ -*-===//
//
// The table above `struct Program`, as code: how many chunks the input and
// output buffers have, how many elements a chunk range holds, and what every
// output chunk must hold at the end.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_LAYOUT_H
#define COLLC_COMPILER_VERIFY_LAYOUT_H

#include "common/Program/Program.h"

#include <vector>

namespace collc {
namespace sched {

/// What one output chunk must hold.
struct ExpectedChunk {
  bool free = false;   ///< anything (or nothing) will do
  uint32_t origin = 0; ///< the input chunk index it derives from
  int32_t rank = -1;   ///< input of this rank, or -1: the sum over all ranks
};

class CollectiveLayout {
public:
  /// Elements of one part for every collective but all_to_all_v (see
  /// Verifier.h): chunks of a part differ by one element when K > 1.
  static int64_t nominalPartElements(uint32_t chunksPerPart) {
    return 1009 * int64_t(chunksPerPart) + chunksPerPart / 2;
  }

  /// Chunks the table requires of buffer `buffer` (input or output).
  static uint64_t requiredChunks(const Program &program, Buffer buffer);

  /// `program` must be well formed (checkWellFormed).
  explicit CollectiveLayout(const Program &program);

  /// Elements of `range` in `rank`'s input or output buffer.
  int64_t elements(uint32_t rank, const ChunkRange &range) const;

  /// What output chunk `index` of `rank` must hold.
  ExpectedChunk expected(uint32_t rank, uint32_t index) const;

private:
  int64_t partElements(uint32_t rank, Buffer buffer, uint32_t part) const;

  const Program &program;
  /// send_recv: the rank each rank receives from, or -1.
  std::vector<int32_t> sender;
};

} // namespace sched
} // namespace collc

#endif
