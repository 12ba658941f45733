//===- MemoryRegistry.h - the regions a transport was given -----*- C++ -*-===//
//
// CPU transports copy through their own slots, so registering memory only
// records it (and checks deregistration); a zero-copy transport (ibverbs,
// CUDA IPC) would pin and register the region here.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_MEMORYREGISTRY_H
#define COLLRT_TRANSPORT_MEMORYREGISTRY_H

#include "collrt/Transport.h"

#include <map>
#include <mutex>

namespace collrt {
namespace transport {

class MemoryRegistry {
public:
  Status add(const char *transport, void *base, size_t bytes,
             MemoryRegion *region);
  Status remove(const char *transport, const MemoryRegion &region);
  size_t size() const;

private:
  mutable std::mutex mutex_;
  uint64_t nextKey_ = 1;
  std::map<uint64_t, MemoryRegion> regions_;
};

} // namespace transport
} // namespace collrt

#endif
