//===- Engine.cpp - discrete-event execution of channel streams -----------===//
#include "compiler/Simulate/Engine.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace collc::sim {

using sched::Instruction;
using sched::Opcode;

namespace {

/// Events closer than this (relative) are one batch: symmetric schedules
/// produce equal times that differ in the last bits.
constexpr double kBatchTolerance = 1e-12;

} // namespace

/// Bytes of GPU memory read plus written, in units of the payload. Received
/// data lands in a staging slot written by the link; the thread block reads
/// it from there (Simple protocol), reads src and writes dst.
double memoryFactor(const Instruction &in) {
  switch (in.opcode) {
  case Opcode::Send:
    return 1; // read src
  case Opcode::Recv:
    return 2; // read staged, write dst
  case Opcode::Copy:
    return 2; // read src, write dst
  case Opcode::Reduce:
    // read the fanin w source ranges (the payload) and dst, a w-th of
    // them, write dst: 1 + 2/w (3 for a plain reduce)
    return 1.0 + 2.0 / double(std::max<uint32_t>(1, sched::reduceFanin(in)));
  case Opcode::RecvReduceSend:
    return 2; // read staged and src
  case Opcode::RecvCopySend:
    return 2; // read staged, write dst
  case Opcode::RecvReduceCopy:
  case Opcode::RecvReduceCopySend:
    return 3; // read staged and src, write dst
  }
  return 0;
}

Engine::Engine(const ProgramIndex &index, const Machine &machine,
               const SimOptions &options, SimResult &result)
    : index_(index), machine_(machine), options_(options), result_(result),
      routes_(*machine.topology, machine.device, machine.linkLatency,
              options.routes.get()),
      network_(machine.capacity, 2 * index.streamCount()),
      streams_(index.streamCount()), pc_(streams_, 0), running_(streams_, 0),
      queued_(streams_, 0), pending_(streams_, 0), start_(streams_, 0),
      routeLatency_(streams_, 0), dependents_(streams_),
      posted_(index.connectionCount(), 0),
      delivered_(index.connectionCount(), 0),
      received_(index.connectionCount(), 0),
      senderWaits_(index.connectionCount(), 0),
      receiverWaits_(index.connectionCount(), 0),
      drains_(2 * index.streamCount()) {}

void Engine::DrainHeap::set(uint32_t flow, double time) {
  uint32_t at = position_[flow];
  if (at == kAbsent) {
    heap_.push_back({time, flow});
    position_[flow] = uint32_t(heap_.size() - 1);
    return siftUp(uint32_t(heap_.size() - 1));
  }
  double old = heap_[at].time;
  heap_[at].time = time;
  if (time < old)
    siftUp(at);
  else
    siftDown(at);
}

void Engine::DrainHeap::remove(uint32_t flow) {
  uint32_t at = position_[flow];
  if (at == kAbsent)
    return;
  position_[flow] = kAbsent;
  Entry last = heap_.back();
  heap_.pop_back();
  if (at == heap_.size())
    return;
  place(at, last);
  siftUp(at);
  siftDown(position_[last.flow]);
}

void Engine::DrainHeap::siftUp(uint32_t at) {
  Entry entry = heap_[at];
  while (at > 0) {
    uint32_t parent = (at - 1) / 2;
    if (!(entry < heap_[parent]))
      break;
    place(at, heap_[parent]);
    at = parent;
  }
  place(at, entry);
}

void Engine::DrainHeap::siftDown(uint32_t at) {
  Entry entry = heap_[at];
  uint32_t size = uint32_t(heap_.size());
  for (;;) {
    uint32_t child = 2 * at + 1;
    if (child >= size)
      break;
    if (child + 1 < size && heap_[child + 1] < heap_[child])
      ++child;
    if (!(heap_[child] < entry))
      break;
    place(at, heap_[child]);
    at = child;
  }
  place(at, entry);
}

Engine::Event Engine::popEarliest() {
  if (drains_.empty() ||
      (!events_.empty() && Later()(drains_.top(), events_.top()))) {
    Event event = events_.top();
    events_.pop();
    return event;
  }
  Event event = drains_.top();
  drains_.pop();
  return event;
}

void Engine::run() {
  for (uint32_t s = 0; s < streams_; ++s)
    wake(s);
  double now = 0;
  for (;;) {
    while (!ready_.empty()) {
      uint32_t s = ready_.back();
      ready_.pop_back();
      queued_[s] = 0;
      tryStart(s, now);
    }
    updateRates(now);
    ++result_.batches;
    if (events_.empty() && drains_.empty())
      break;
    auto earliest = [&] {
      double t = std::numeric_limits<double>::infinity();
      if (!events_.empty())
        t = events_.top().time;
      if (!drains_.empty())
        t = std::min(t, drains_.top().time);
      return t;
    };
    now = earliest();
    double limit = now + kBatchTolerance * now;
    while (earliest() <= limit)
      handle(popEarliest(), now);
  }
  for (uint32_t s = 0; s < streams_; ++s) {
    if (pc_[s] < index_.length(s)) {
      reportStuck();
      return;
    }
  }
}

void Engine::handle(const Event &event, double now) {
  switch (event.kind) {
  case EventKind::FixedDone:
    return beginTransfers(event.id, now);
  case EventKind::Delivered:
    return partDone(event.id, now);
  case EventKind::Drained:
    break;
  }
  uint32_t flow = event.id;
  network_.finish(flow);
  if (flow >= streams_)
    return partDone(flow - streams_, now);
  if (routeLatency_[flow] > 0)
    return push(now + routeLatency_[flow], EventKind::Delivered, flow);
  partDone(flow, now);
}

void Engine::wake(uint32_t stream) {
  if (queued_[stream])
    return;
  queued_[stream] = 1;
  ready_.push_back(stream);
}

void Engine::tryStart(uint32_t s, double now) {
  if (running_[s] || pc_[s] >= index_.length(s))
    return;
  uint32_t rank = index_.rankOf(s);
  const Instruction &in = index_.instruction(s, pc_[s]);
  const auto &deps = index_.program().ranks[rank].dependencies;
  for (uint32_t d = 0; d < in.depCount; ++d) {
    const sched::Dependency &dep = deps[in.depBegin + d];
    uint32_t other = index_.stream(rank, dep.channel);
    if (pc_[other] > dep.instruction)
      continue;
    std::vector<Waiter> &heap = dependents_[other];
    heap.emplace_back(dep.instruction, s);
    std::push_heap(heap.begin(), heap.end(), std::greater<Waiter>());
    return;
  }
  uint32_t id = index_.id(s, pc_[s]);
  uint32_t incoming = index_.recvConnection(id);
  if (sched::opcodeReceives(in.opcode)) {
    if (incoming == kNone)
      return; // no sender: stuck, reported at the end
    if (delivered_[incoming] <= received_[incoming]) {
      receiverWaits_[incoming] = 1;
      return;
    }
  }
  uint32_t out = index_.sendConnection(id);
  if (out != kNone &&
      posted_[out] - received_[out] >= options_.connectionSlots) {
    senderWaits_[out] = 1;
    return;
  }
  running_[s] = 1;
  start_[s] = now;
  if (out != kNone)
    ++posted_[out];
  if (options_.fixedCost > 0)
    return push(now + options_.fixedCost, EventKind::FixedDone, s);
  beginTransfers(s, now);
}

void Engine::beginTransfers(uint32_t s, double now) {
  uint32_t rank = index_.rankOf(s);
  const Instruction &in = index_.instruction(s, pc_[s]);
  int64_t bytes = index_.bytes(index_.id(s, pc_[s]));
  uint8_t pending = 0;
  double memory = options_.chargeMemory ? memoryFactor(in) * bytes : 0;
  uint32_t channel =
      machine_.channelResource.empty() ? kNone : machine_.channelResource[s];
  if (memory > 0) {
    uint32_t resources[2] = {machine_.memoryResource[rank], channel};
    network_.start(streams_ + s, resources, channel == kNone ? 1 : 2, memory,
                   now);
    result_.memoryBytes[rank] += memory;
    ++pending;
  }
  if (sched::opcodeSends(in.opcode)) {
    ++result_.transfers;
    RouteCache::Route route = routes_.route(rank, uint32_t(in.sendPeer));
    for (uint32_t hop = 0; hop < route.count; ++hop)
      result_.linkBytes[route.links[hop]] += double(bytes);
    double latency = route.latency;
    routeLatency_[s] = latency;
    if (route.count && bytes > 0 && channel != kNone) {
      route_.assign(route.links, route.links + route.count);
      route_.push_back(channel);
      network_.start(s, route_.data(), uint32_t(route_.size()), double(bytes),
                     now);
      ++pending;
    } else if (route.count && bytes > 0) {
      network_.start(s, route.links, route.count, double(bytes), now);
      ++pending;
    } else if (latency > 0) {
      push(now + latency, EventKind::Delivered, s);
      ++pending;
    }
  }
  pending_[s] = pending;
  if (!pending)
    complete(s, now);
}

void Engine::partDone(uint32_t s, double now) {
  if (--pending_[s] == 0)
    complete(s, now);
}

void Engine::complete(uint32_t s, double now) {
  uint32_t index = pc_[s];
  uint32_t id = index_.id(s, index);
  uint32_t rank = index_.rankOf(s);
  const Instruction &in = index_.instruction(s, index);
  if (options_.recordTimeline) {
    TimelineRecord &record = result_.timeline[id];
    record.start = start_[s];
    record.end = now;
    record.bytes = index_.bytes(id);
    record.rank = int32_t(rank);
    record.instruction = index;
    record.step = in.step;
    record.sendPeer = in.sendPeer;
    record.recvPeer = in.recvPeer;
    record.channel = uint16_t(index_.channelOf(s));
    record.opcode = in.opcode;
  }
  result_.rankFinish[rank] = std::max(result_.rankFinish[rank], now);
  result_.totalTime = std::max(result_.totalTime, now);
  ++result_.instructions;
  ++pc_[s];
  running_[s] = 0;
  uint32_t c = index_.recvConnection(id);
  if (c != kNone) {
    ++received_[c];
    if (senderWaits_[c]) {
      senderWaits_[c] = 0;
      wake(index_.connectionSender(c));
    }
  }
  c = index_.sendConnection(id);
  if (c != kNone) {
    ++delivered_[c];
    if (receiverWaits_[c]) {
      receiverWaits_[c] = 0;
      wake(index_.connectionReceiver(c));
    }
  }
  std::vector<Waiter> &heap = dependents_[s];
  while (!heap.empty() && heap.front().first < pc_[s]) {
    wake(heap.front().second);
    std::pop_heap(heap.begin(), heap.end(), std::greater<Waiter>());
    heap.pop_back();
  }
  wake(s);
}

void Engine::updateRates(double now) {
  network_.update(now);
  result_.rateComputations += network_.lastComponentSize();
  for (uint32_t flow : network_.changedFlows()) {
    double drain = network_.drainTime(flow);
    if (drain < std::numeric_limits<double>::infinity())
      drains_.set(flow, drain);
    else
      drains_.remove(flow);
  }
  if (!options_.recordLinkLoad)
    return;
  size_t links = machine_.linkBandwidth.size();
  for (uint32_t resource : network_.changedResources())
    if (resource < links)
      result_.linkLoad.push_back(
          {now, topo::LinkId(resource), network_.load(resource)});
}

} // namespace collc::sim
