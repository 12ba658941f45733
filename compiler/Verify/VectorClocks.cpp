//===- VectorClocks.cpp - copy-on-write vector clocks ---------------------===//
#include "compiler/Verify/VectorClocks.h"

#include <algorithm>
#include <cstring>

namespace collc {
namespace sched {

/// mine[c] = max(mine[c], theirs[c]) for c in [begin, end); whether any
/// grew.
static bool maxInto(uint32_t *__restrict mine,
                    const uint32_t *__restrict theirs, uint32_t begin,
                    uint32_t end) {
  uint32_t grew = 0;
  for (uint32_t c = begin; c < end; ++c) {
    grew |= uint32_t(theirs[c] > mine[c]);
    mine[c] = theirs[c] > mine[c] ? theirs[c] : mine[c];
  }
  return grew != 0;
}

/// to[c] = max(from[c], theirs[c]) for c in [begin, end); whether any
/// theirs[c] > from[c].
static bool maxOf(uint32_t *__restrict to, const uint32_t *__restrict from,
                  const uint32_t *__restrict theirs, uint32_t begin,
                  uint32_t end) {
  uint32_t grew = 0;
  for (uint32_t c = begin; c < end; ++c) {
    grew |= uint32_t(theirs[c] > from[c]);
    to[c] = theirs[c] > from[c] ? theirs[c] : from[c];
  }
  return grew != 0;
}

ClockPool::Block ClockPool::allocate() {
  Block block;
  if (!freeBlocks.empty()) {
    block = freeBlocks.back();
    freeBlocks.pop_back();
  } else {
    block = Block(refs.size());
    refs.push_back(0);
    values.resize(values.size() + width);
  }
  refs[block] = 1;
  return block;
}

bool ClockPool::join(Block *block, Block other, uint32_t skip, uint32_t extra,
                     uint32_t extraValue) {
  // Every component but `skip` counts: the ranges below and above it.
  uint32_t below = std::min(skip, width);
  uint32_t above = skip < width ? skip + 1 : width;
  bool extraGrows =
      extra != UINT32_MAX && extra != skip && extraValue > get(*block, extra);
  bool grows = extraGrows;
  if (other == *block) {
    // Nothing to take from `other`; a shared block is copied before the
    // extra component is written.
    if (!grows)
      return false;
    if (*block == kZero || refs[*block] > 1) {
      Block copy = allocate();
      std::memcpy(&values[size_t(copy) * width],
                  &values[size_t(*block) * width], width * sizeof(uint32_t));
      release(*block);
      *block = copy;
    }
  } else if (*block != kZero && refs[*block] == 1) {
    // Held by the caller alone: join in place, in one pass.
    grows |= maxInto(&values[size_t(*block) * width],
                     &values[size_t(other) * width], 0, below);
    grows |= maxInto(&values[size_t(*block) * width],
                     &values[size_t(other) * width], above, width);
  } else {
    // Shared (or kZero): the join goes to a new block, written in the same
    // pass that finds whether it brings news; a join that brings none
    // frees it again and leaves the shared block alone.
    Block joined = allocate();
    // allocate may have moved `values`: take the pointers now.
    uint32_t *to = &values[size_t(joined) * width];
    const uint32_t *mine = &values[size_t(*block) * width];
    const uint32_t *theirs = &values[size_t(other) * width];
    grows |= maxOf(to, mine, theirs, 0, below);
    grows |= maxOf(to, mine, theirs, above, width);
    if (below < width)
      to[below] = mine[below];
    if (!grows) {
      release(joined);
      return false;
    }
    release(*block);
    *block = joined;
  }
  if (!grows)
    return false;
  if (extraGrows) {
    uint32_t &value = values[size_t(*block) * width + extra];
    value = std::max(value, extraValue);
  }
  return true;
}

} // namespace sched
} // namespace collc
