//===- RouteCache.cpp - the routes of a group's transfers -----------------===//
#include "compiler/Simulate/RouteCache.h"

namespace collc::sim {

RouteCache::RouteCache(const topo::Topology &topology,
                       const std::vector<topo::DeviceId> &device,
                       const std::vector<double> &linkLatency, RouteMemo *memo)
    : routes_(topology),
      memo_(memo && &memo->topology() == &topology ? memo : nullptr),
      device_(device), linkLatency_(linkLatency), sources_(device.size()) {}

void RouteCache::walk(uint32_t from, uint32_t to, std::vector<uint32_t> &links,
                      double &latency) {
  latency = 0;
  if (memo_) {
    RouteMemo::Path path = memo_->path(device_[from], device_[to]);
    for (uint32_t i = 0; i < path.count; ++i) {
      links.push_back(uint32_t(path.links[i]));
      latency += linkLatency_[size_t(path.links[i])];
    }
    return;
  }
  for (topo::LinkId link : routes_.path(device_[from], device_[to])) {
    links.push_back(uint32_t(link));
    latency += linkLatency_[size_t(link)];
  }
}

void RouteCache::buildAll(Source &source, uint32_t from) {
  size_t n = device_.size();
  source.begin.reserve(n + 1);
  source.latency.resize(n);
  source.begin.push_back(0);
  for (uint32_t to = 0; to < n; ++to) {
    walk(from, to, source.links, source.latency[to]);
    source.begin.push_back(uint32_t(source.links.size()));
  }
}

RouteCache::Route RouteCache::route(uint32_t from, uint32_t to) {
  Source &source = sources_[from];
  if (!source.begin.empty())
    return {source.links.data() + source.begin[to],
            source.begin[to + 1] - source.begin[to], source.latency[to]};
  if (to != source.lastTo) {
    if (++source.misses >= kBulkAfter) {
      buildAll(source, from);
      source.last = {};
      return route(from, to);
    }
    source.last.clear();
    walk(from, to, source.last, source.lastLatency);
    source.lastTo = to;
  }
  return {source.last.data(), uint32_t(source.last.size()), source.lastLatency};
}

} // namespace collc::sim
