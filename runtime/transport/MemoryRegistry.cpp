//===- MemoryRegistry.cpp - the regions a transport was given -------------===//
#include "MemoryRegistry.h"

namespace collrt {
namespace transport {

Status MemoryRegistry::add(const char *transport, void *base, size_t bytes,
                           MemoryRegion *region) {
  if (!region)
    return Status(ErrorCode::InvalidArgument,
                  std::string(transport) +
                      " transport: registerMemory needs a region to fill");
  if (!base && bytes > 0)
    return Status(ErrorCode::InvalidArgument,
                  std::string(transport) + " transport: registerMemory of " +
                      std::to_string(bytes) + " bytes at a null address");
  std::lock_guard<std::mutex> lock(mutex_);
  MemoryRegion r{base, bytes, nextKey_++};
  regions_[r.key] = r;
  *region = r;
  return Status::success();
}

Status MemoryRegistry::remove(const char *transport,
                              const MemoryRegion &region) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.find(region.key);
  if (it == regions_.end() || it->second.base != region.base ||
      it->second.bytes != region.bytes)
    return Status(ErrorCode::InvalidArgument,
                  std::string(transport) +
                      " transport: deregisterMemory of region key " +
                      std::to_string(region.key) +
                      " that is not registered (or was already deregistered)");
  regions_.erase(it);
  return Status::success();
}

size_t MemoryRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return regions_.size();
}

} // namespace transport
} // namespace collrt
