//===- RouteMemo.cpp - routes remembered across simulations ---------------===//
#include "compiler/Routing/RouteMemo.h"

namespace collc {

RouteMemo::Path RouteMemo::path(topo::DeviceId from, topo::DeviceId to) {
  uint64_t key = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
  auto [it, fresh] = index_.try_emplace(key);
  if (fresh) {
    const std::vector<topo::LinkId> &links = routes_.path(from, to);
    it->second = {uint32_t(links_.size()), uint32_t(links.size())};
    links_.insert(links_.end(), links.begin(), links.end());
    ++routed_;
  }
  return {links_.data() + it->second.first, it->second.second};
}

} // namespace collc
