//===- Engine.h - discrete-event execution of channel streams ---*- C++ -*-===//
//
// Internal: runs every (rank, channel) stream of a program in simulated
// time. Instructions start when their dependencies, data and connection
// slot are ready, pay the fixed cost, then move their bytes as flows on the
// FlowNetwork (the route's links for a send, the GPU's memory for local
// work). Events with the same timestamp are handled in one batch, after
// which rates are recomputed once.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_ENGINE_H
#define COLLC_COMPILER_SIMULATE_ENGINE_H

#include "compiler/Simulate/FlowNetwork.h"
#include "compiler/Simulate/ProgramIndex.h"
#include "compiler/Simulate/RouteCache.h"
#include "compiler/Simulate/Simulator.h"

#include <queue>
#include <vector>

namespace collc::sim {

/// The machine as the engine sees it.
struct Machine {
  const topo::Topology *topology = nullptr;
  /// Per topology link: bytes/s and seconds, after overrides.
  std::vector<double> linkBandwidth;
  std::vector<double> linkLatency;
  /// Per group rank: its GPU device and the resource of its memory.
  std::vector<topo::DeviceId> device;
  std::vector<uint32_t> memoryResource;
  /// Per stream: the resource of its thread block, or kNone when its
  /// channel is not capped (SimOptions::channelBandwidth). Empty when no
  /// channel is.
  std::vector<uint32_t> channelResource;
  /// Capacities of all resources: the links, the GPUs' memories, then the
  /// streams' thread blocks.
  std::vector<double> capacity;
};

/// Bytes of GPU memory an instruction reads plus writes, in units of its
/// payload (docs/simulator.md's table).
double memoryFactor(const sched::Instruction &in);

class Engine {
public:
  Engine(const ProgramIndex &index, const Machine &machine,
         const SimOptions &options, SimResult &result);
  /// Runs to the end; sets result.error when streams got stuck.
  void run();

private:
  enum class EventKind : uint8_t {
    FixedDone, ///< a stream's fixed cost has elapsed
    Drained,   ///< a flow has moved its last byte (DrainHeap)
    Delivered, ///< a stream's sent data has crossed the route's latency
  };
  struct Event {
    double time;
    uint32_t id; ///< stream, or flow slot
    EventKind kind;
  };
  struct Later {
    bool operator()(const Event &a, const Event &b) const {
      if (a.time != b.time)
        return a.time > b.time;
      if (a.kind != b.kind)
        return a.kind > b.kind;
      return a.id > b.id;
    }
  };
  /// (instruction, waiting stream), a min-heap on the instruction.
  using Waiter = std::pair<uint32_t, uint32_t>;
  /// The flows' drain times, one entry per flow with a finite one: a
  /// min-heap on (time, flow) whose entries move when a rate changes
  /// (where a heap of events would pile up one stale event per change).
  class DrainHeap {
  public:
    explicit DrainHeap(uint32_t flows) : position_(flows, kAbsent) {}
    bool empty() const { return heap_.empty(); }
    /// The earliest drain, as an event.
    Event top() const {
      return {heap_.front().time, heap_.front().flow, EventKind::Drained};
    }
    void pop() { remove(heap_.front().flow); }
    /// Sets (or moves) a flow's drain time.
    void set(uint32_t flow, double time);
    void remove(uint32_t flow);

  private:
    struct Entry {
      double time;
      uint32_t flow;
      bool operator<(const Entry &o) const {
        return time != o.time ? time < o.time : flow < o.flow;
      }
    };
    static constexpr uint32_t kAbsent = ~0u;
    void place(uint32_t at, Entry entry) {
      heap_[at] = entry;
      position_[entry.flow] = at;
    }
    void siftUp(uint32_t at);
    void siftDown(uint32_t at);
    std::vector<Entry> heap_;
    std::vector<uint32_t> position_;
  };

  void push(double time, EventKind kind, uint32_t id) {
    events_.push({time, id, kind});
  }
  void handle(const Event &event, double now);
  void wake(uint32_t stream);
  void tryStart(uint32_t stream, double now);
  void beginTransfers(uint32_t stream, double now);
  void partDone(uint32_t stream, double now);
  void complete(uint32_t stream, double now);
  void updateRates(double now);
  void reportStuck();
  /// Why `stream`, which has not finished, cannot start its next
  /// instruction.
  std::string waitReason(uint32_t stream) const;

  const ProgramIndex &index_;
  const Machine &machine_;
  const SimOptions &options_;
  SimResult &result_;
  RouteCache routes_;
  FlowNetwork network_;
  uint32_t streams_;

  // Per stream.
  std::vector<uint32_t> pc_;
  std::vector<uint8_t> running_;
  std::vector<uint8_t> queued_;
  std::vector<uint8_t> pending_; ///< flows and deliveries not yet done
  std::vector<double> start_;
  std::vector<double> routeLatency_;
  std::vector<std::vector<Waiter>> dependents_;
  std::vector<uint32_t> route_; ///< a route and the stream's block
  // Per connection.
  std::vector<uint32_t> posted_, delivered_, received_;
  std::vector<uint8_t> senderWaits_, receiverWaits_;

  std::vector<uint32_t> ready_;
  /// Fixed costs and deliveries; drains are in drains_.
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  DrainHeap drains_;
  /// Removes and returns the earliest event of events_ and drains_ (in
  /// Later's order); both are not empty together.
  Event popEarliest();
};

} // namespace collc::sim

#endif
