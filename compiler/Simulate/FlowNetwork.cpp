//===- FlowNetwork.cpp - flows sharing links max-min fairly ---------------===//
//
// Max-min fairness by progressive filling: raise the rates of all unfrozen
// flows together; the resource whose fair share (capacity left / unfrozen
// flows) is smallest saturates first and freezes its flows at that share;
// repeat. The first levels are found by scanning (O(R) each, fast when there
// are few distinct rates); after kScanLevels a min-heap of shares with lazy
// deletion takes over, O(F h log R) for F flows of h hops over R resources.
//
//===----------------------------------------------------------------------===//
#include "compiler/Simulate/FlowNetwork.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace collc::sim {

FlowNetwork::FlowNetwork(std::vector<double> capacity, uint32_t flowSlots)
    : flows_(flowSlots), resources_(capacity.size()), newRate_(flowSlots, 0) {
  for (size_t r = 0; r < capacity.size(); ++r)
    resources_[r].capacity = capacity[r];
}

void FlowNetwork::start(uint32_t flow, const uint32_t *resources,
                        uint32_t count, double bytes, double now) {
  Flow &f = flows_[flow];
  f.resources.assign(resources, resources + count);
  f.position.resize(count);
  for (uint32_t hop = 0; hop < count; ++hop) {
    Resource &r = resources_[resources[hop]];
    f.position[hop] = uint32_t(r.members.size());
    r.members.push_back({flow, hop});
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(resources[hop]);
    }
  }
  f.active = true;
  f.rate = 0;
  f.remaining = bytes;
  f.since = now;
}

void FlowNetwork::finish(uint32_t flow) {
  Flow &f = flows_[flow];
  for (uint32_t hop = 0; hop < f.resources.size(); ++hop) {
    uint32_t id = f.resources[hop];
    Resource &r = resources_[id];
    Member last = r.members.back();
    r.members[f.position[hop]] = last;
    flows_[last.flow].position[last.hop] = f.position[hop];
    r.members.pop_back();
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(id);
    }
  }
  f.active = false;
  f.rate = 0;
  f.remaining = 0;
}

double FlowNetwork::drainTime(uint32_t flow) const {
  const Flow &f = flows_[flow];
  if (f.rate <= 0)
    return std::numeric_limits<double>::infinity();
  return f.since + f.remaining / f.rate;
}

void FlowNetwork::collectComponent() {
  ++epoch_;
  componentFlows_.clear();
  componentResources_.clear();
  for (uint32_t id : dirty_) {
    resources_[id].dirty = false;
    if (resources_[id].mark != epoch_) {
      resources_[id].mark = epoch_;
      componentResources_.push_back(id);
    }
  }
  dirty_.clear();
  for (size_t i = 0; i < componentResources_.size(); ++i) {
    for (const Member &m : resources_[componentResources_[i]].members) {
      Flow &f = flows_[m.flow];
      if (f.mark == epoch_)
        continue;
      f.mark = epoch_;
      componentFlows_.push_back(m.flow);
      for (uint32_t id : f.resources) {
        if (resources_[id].mark != epoch_) {
          resources_[id].mark = epoch_;
          componentResources_.push_back(id);
        }
      }
    }
  }
}

double FlowNetwork::share(uint32_t id) const {
  const Resource &r = resources_[id];
  return std::max(r.left, 0.0) / r.unfrozen;
}

void FlowNetwork::freeze(uint32_t id, double rate) {
  Resource &r = resources_[id];
  r.unfrozen = 0;
  for (const Member &m : r.members) {
    if (newRate_[m.flow] >= 0)
      continue;
    newRate_[m.flow] = rate;
    for (uint32_t other : flows_[m.flow].resources) {
      Resource &o = resources_[other];
      if (o.unfrozen == 0)
        continue;
      o.left -= rate;
      --o.unfrozen;
      if (!o.touched) {
        o.touched = true;
        touched_.push_back(other);
      }
    }
  }
}

void FlowNetwork::fill() {
  for (uint32_t f : componentFlows_)
    newRate_[f] = -1; // unfrozen
  active_.clear();
  for (uint32_t id : componentResources_) {
    Resource &r = resources_[id];
    r.left = r.capacity;
    r.unfrozen = uint32_t(r.members.size());
    if (r.unfrozen)
      active_.push_back(id);
  }
  // Symmetric schedules have few distinct rates: scan for the least share
  // and freeze every resource at it, level by level. Shares only rise as
  // flows freeze, so a resource tied at the least share stays there.
  for (int level = 0; !active_.empty(); ++level) {
    if (level == kScanLevels)
      return fillByHeap();
    double least = std::numeric_limits<double>::infinity();
    for (uint32_t id : active_)
      least = std::min(least, share(id));
    double limit = least * (1 + 1e-12);
    touched_.clear();
    for (uint32_t id : active_)
      if (resources_[id].unfrozen && share(id) <= limit)
        freeze(id, share(id));
    for (uint32_t id : touched_)
      resources_[id].touched = false;
    size_t kept = 0;
    for (uint32_t id : active_)
      if (resources_[id].unfrozen)
        active_[kept++] = id;
    active_.resize(kept);
  }
}

void FlowNetwork::fillByHeap() {
  auto push = [&](uint32_t id) {
    heap_.push_back({share(id), id, ++resources_[id].stamp});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<Share>());
  };
  heap_.clear();
  for (uint32_t id : active_)
    push(id);
  while (!heap_.empty()) {
    Share top = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Share>());
    heap_.pop_back();
    Resource &r = resources_[top.resource];
    if (top.stamp != r.stamp || r.unfrozen == 0)
      continue;
    // Its flows' other resources get one new share each, after all of them
    // are frozen.
    touched_.clear();
    freeze(top.resource, top.share);
    for (uint32_t id : touched_) {
      resources_[id].touched = false;
      if (resources_[id].unfrozen)
        push(id);
    }
  }
}

void FlowNetwork::update(double now) {
  changedFlows_.clear();
  changedResources_.clear();
  if (dirty_.empty())
    return;
  collectComponent();
  fill();
  for (uint32_t id : componentFlows_) {
    Flow &f = flows_[id];
    double rate = newRate_[id];
    if (rate == f.rate)
      continue; // its drain time stands
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.since));
    f.since = now;
    f.rate = rate;
    changedFlows_.push_back(id);
  }
  for (uint32_t id : componentResources_) {
    Resource &r = resources_[id];
    double load = 0;
    for (const Member &m : r.members)
      load += flows_[m.flow].rate;
    // Sums in another order differ in the last bits; that is no change.
    if (std::fabs(load - r.load) > 1e-9 * r.capacity) {
      r.load = load;
      changedResources_.push_back(id);
    }
  }
}

} // namespace collc::sim
