//===- VectorClocks.cpp - copy-on-write vector clocks ---------------------===//
#include "compiler/Verify/VectorClocks.h"

#include <algorithm>
#include <cstring>

namespace collc {
namespace sched {

ClockPool::Block ClockPool::copyOf(Block from) {
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
  std::memcpy(&values[size_t(block) * width], &values[size_t(from) * width],
              width * sizeof(uint32_t));
  return block;
}

bool ClockPool::join(Block *block, Block other, uint32_t skip, uint32_t extra,
                     uint32_t extraValue) {
  // Look before writing: most joins of a collective bring news, but those
  // that do not must not copy a shared block.
  bool grows =
      extra != UINT32_MAX && extra != skip && extraValue > get(*block, extra);
  if (!grows && other != *block) {
    const uint32_t *mine = &values[size_t(*block) * width];
    const uint32_t *theirs = &values[size_t(other) * width];
    for (uint32_t c = 0; c < width && !grows; ++c)
      grows = c != skip && theirs[c] > mine[c];
  }
  if (!grows)
    return false;
  if (*block == kZero || refs[*block] > 1) {
    Block copy = copyOf(*block);
    release(*block);
    *block = copy;
  }
  // copyOf may have moved `values`: take the pointers now.
  uint32_t *mine = &values[size_t(*block) * width];
  const uint32_t *theirs = &values[size_t(other) * width];
  if (other != *block)
    for (uint32_t c = 0; c < width; ++c)
      if (c != skip)
        mine[c] = std::max(mine[c], theirs[c]);
  if (extra != UINT32_MAX && extra != skip)
    mine[extra] = std::max(mine[extra], extraValue);
  return true;
}

} // namespace sched
} // namespace collc
