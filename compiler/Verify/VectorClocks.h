//===- VectorClocks.h - copy-on-write vector clocks -------------*- C++ -*-===//
//
// Internal to the race check (RaceCheck.cpp): vector clocks of a fixed
// width, one component per followed channel stream. Component c of a clock
// counts the instructions of stream c known to have completed. A stream's
// clock and the snapshots its sends and depended-on instructions leave
// behind share one block until the stream's clock next grows, so a run of
// sends between two receives costs one block, not one per send.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_VECTORCLOCKS_H
#define COLLC_COMPILER_VERIFY_VECTORCLOCKS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collc {
namespace sched {

class ClockPool {
public:
  /// A block of `width` components, reference counted.
  using Block = uint32_t;
  /// The all-zero clock: shared by everyone, never freed or written.
  static constexpr Block kZero = 0;

  explicit ClockPool(uint32_t width)
      : width(width), values(width, 0), refs(1) {}

  uint32_t get(Block block, uint32_t component) const {
    return values[size_t(block) * width + component];
  }

  void retain(Block block) {
    if (block != kZero)
      ++refs[block];
  }
  void release(Block block) {
    if (block != kZero && --refs[block] == 0)
      freeBlocks.push_back(block);
  }

  /// Makes `*block` (held once by the caller) at least `other` in every
  /// component but `skip`, and component `extra` at least `extraValue`
  /// (UINT32_MAX: none). Copies the block first when it is shared or
  /// kZero. Returns whether anything grew.
  bool join(Block *block, Block other, uint32_t skip, uint32_t extra,
            uint32_t extraValue);

  /// Memory held by the blocks, live or free.
  uint64_t bytes() const { return uint64_t(values.size()) * sizeof(uint32_t); }

private:
  /// A block (contents undefined), referenced once.
  Block allocate();

  uint32_t width;
  std::vector<uint32_t> values; ///< width per block
  std::vector<uint32_t> refs;   ///< per block; kZero's is unused
  std::vector<Block> freeBlocks;
};

} // namespace sched
} // namespace collc

#endif
