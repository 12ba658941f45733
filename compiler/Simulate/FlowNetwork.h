//===- FlowNetwork.h - flows sharing links max-min fairly -------*- C++ -*-===//
//
// Internal: resources of fixed capacity (the topology's links and every
// GPU's memory) and flows, each a number of bytes over a list of resources.
// Active flows share every resource max-min fairly; rates are recomputed
// (by progressive filling) only for the flows connected, through shared
// resources, to a resource whose set of flows changed since the last update.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_FLOWNETWORK_H
#define COLLC_COMPILER_SIMULATE_FLOWNETWORK_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collc::sim {

class FlowNetwork {
public:
  /// `capacity[r]`: bytes per second of resource r (positive). Flows are
  /// slots 0 .. flowSlots - 1, each holding at most one active flow.
  FlowNetwork(std::vector<double> capacity, uint32_t flowSlots);

  /// Starts `bytes` (> 0) over `resources` (not empty, no duplicates) at
  /// time `now` in an idle slot. Its rate is 0 until the next update.
  void start(uint32_t flow, const uint32_t *resources, uint32_t count,
             double bytes, double now);
  /// Removes an active flow.
  void finish(uint32_t flow);

  /// Recomputes the max-min fair rates of the flows connected to a resource
  /// whose flows changed since the last update, as of `now`. Afterwards
  /// changedFlows() lists the flows whose rate (and drain time) changed and
  /// changedResources() the resources whose load changed.
  void update(double now);
  const std::vector<uint32_t> &changedFlows() const { return changedFlows_; }
  const std::vector<uint32_t> &changedResources() const {
    return changedResources_;
  }
  /// Flows whose rates were set by the last update.
  size_t lastComponentSize() const { return componentFlows_.size(); }

  bool active(uint32_t flow) const { return flows_[flow].active; }
  /// Sum of the rates of a resource's flows, bytes/s.
  double load(uint32_t resource) const { return resources_[resource].load; }
  double rate(uint32_t flow) const { return flows_[flow].rate; }
  /// When the flow will have moved all its bytes at its current rate;
  /// +infinity at rate 0.
  double drainTime(uint32_t flow) const;

private:
  struct Member {
    uint32_t flow;
    uint32_t hop; ///< index of the resource in the flow's list
  };
  struct Flow {
    double rate = 0;
    double remaining = 0; ///< bytes left at `since`
    double since = 0;
    bool active = false;
    uint32_t mark = 0; ///< component search epoch
    std::vector<uint32_t> resources;
    std::vector<uint32_t> position; ///< in each resource's member list
  };
  struct Resource {
    double capacity = 0;
    double load = 0; ///< sum of the rates of its flows
    std::vector<Member> members;
    uint32_t mark = 0;
    bool dirty = false;
    // Progressive filling.
    double left = 0;
    uint32_t unfrozen = 0;
    uint32_t stamp = 0;
    bool touched = false;
  };
  struct Share {
    double share;
    uint32_t resource;
    uint32_t stamp;
    bool operator>(const Share &other) const { return share > other.share; }
  };

  /// Collects the component of the dirty resources into component{Flows,
  /// Resources}_.
  void collectComponent();
  /// Sets newRate_ of every flow of the component.
  void fill();
  /// fill() for the resources left in active_, by a heap.
  void fillByHeap();
  /// The fair share of an unfrozen resource.
  double share(uint32_t resource) const;
  /// Freezes the unfrozen flows of a resource at `rate`, charging their
  /// other resources (listed in touched_).
  void freeze(uint32_t resource, double rate);

  /// Levels of progressive filling found by scanning before the heap.
  static constexpr int kScanLevels = 8;

  std::vector<Flow> flows_;
  std::vector<Resource> resources_;
  std::vector<uint32_t> dirty_;
  uint32_t epoch_ = 0;
  std::vector<uint32_t> componentFlows_;
  std::vector<uint32_t> componentResources_;
  std::vector<double> newRate_; ///< per flow slot
  std::vector<Share> heap_;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> active_; ///< resources with unfrozen flows
  std::vector<uint32_t> changedFlows_;
  std::vector<uint32_t> changedResources_;
};

} // namespace collc::sim

#endif
