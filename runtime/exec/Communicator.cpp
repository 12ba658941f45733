//===- Communicator.cpp - collrt.h's Communicator over a Transport --------===//
#include "runtime/exec/TransportCommunicator.h"

#include "collrt/Bootstrap.h"
#include "collrt/collrt.h"

#include <algorithm>
#include <cmath>
#include <sched.h>
#include <thread>

namespace collrt {

using collc::sched::Buffer;
using collc::sched::Collective;

int64_t outputElements(const PlanCollective &collective, int32_t groupRank,
                       int64_t count, const int64_t *sendCounts) {
  const collc::sched::Program &program = collective.program;
  if (groupRank < 0 || groupRank >= program.numRanks || count < 0)
    return 0;
  size_t n = size_t(program.numRanks);
  if (program.collective == Collective::AllToAllV && !sendCounts &&
      program.sendCounts.size() != n * n)
    return 0;
  collc::sched::ChunkLayout layout(
      program, count,
      program.collective == Collective::AllToAllV ? sendCounts : nullptr);
  int64_t total = 0;
  for (uint32_t i = 0; i < program.buffers.outputChunks; ++i)
    total += layout.elements(groupRank, Buffer::Output, i);
  return total;
}

namespace exec {

Status checkCommOptions(const CommOptions &options) {
  if (!(options.timeoutSeconds > 0) || !(options.timeoutSeconds <= 1e9))
    return Status(ErrorCode::InvalidArgument,
                  "CommOptions::timeoutSeconds = " +
                      std::to_string(options.timeoutSeconds) +
                      " must be greater than 0 and at most 1e9");
  if (options.slotBytes < 1)
    return Status(ErrorCode::InvalidArgument,
                  "CommOptions::slotBytes must be at least 1");
  if (options.channelThreads < 0 || options.channelThreads > 1024)
    return Status(ErrorCode::InvalidArgument,
                  "CommOptions::channelThreads = " +
                      std::to_string(options.channelThreads) +
                      " must be 0 (automatic) or 1 to 1024");
  return Status::success();
}

/// The cores this process may run on (its affinity mask: taskset, cpusets),
/// else what the standard library reports, at least 1.
static int32_t usableCores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? int32_t(n) : 1;
}

/// CommOptions::channelThreads = 0: the cores shared out among the ranks of
/// this host, at least one thread each.
static int32_t resolveChannelThreads(const CommOptions &options,
                                     const Bootstrap *bootstrap, int32_t rank,
                                     int32_t worldSize) {
  if (options.channelThreads > 0)
    return options.channelThreads;
  int32_t onHost = worldSize;
  if (bootstrap) {
    const std::vector<std::string> &hosts = bootstrap->hosts();
    if (rank >= 0 && size_t(rank) < hosts.size()) {
      onHost = 0;
      for (const std::string &host : hosts)
        onHost += host == hosts[size_t(rank)];
    }
  }
  return std::max(1, usableCores() / std::max(1, onHost));
}

TransportCommunicator::TransportCommunicator(
    std::unique_ptr<Bootstrap> bootstrap,
    std::shared_ptr<InProcessFabric> fabric,
    std::unique_ptr<Transport> transport, const CommOptions &options)
    : bootstrap_(std::move(bootstrap)), fabric_(std::move(fabric)),
      transport_(std::move(transport)), options_(options) {
  channelThreads_ = resolveChannelThreads(
      options_, bootstrap_.get(), transport_->rank(), transport_->worldSize());
}

std::vector<TraceEvent> TransportCommunicator::lastTrace() const {
  std::vector<TraceEvent> events;
  for (const std::vector<TraceEvent> &channel : state_.trace)
    events.insert(events.end(), channel.begin(), channel.end());
  return events;
}

TransportCommunicator::~TransportCommunicator() {
  if (!finalized_)
    (void)finalize();
  // The transport may refer to the bootstrap: it goes first.
  transport_.reset();
  bootstrap_.reset();
}

int32_t TransportCommunicator::rank() const { return transport_->rank(); }
int32_t TransportCommunicator::worldSize() const {
  return transport_->worldSize();
}
const char *TransportCommunicator::transportName() const {
  return transport_->name();
}
std::string TransportCommunicator::describeTransport() const {
  return transport_->describe();
}

void TransportCommunicator::abort(const std::string &reason) {
  transport_->abort(reason);
  // An aborted communicator runs no more: its channel threads go now,
  // unless a run is using them (that run fails and joins them).
  std::unique_lock<std::mutex> lock(runMutex_, std::try_to_lock);
  if (lock.owns_lock())
    state_.pool.shutdown();
}

Status TransportCommunicator::finalize() {
  if (finalized_)
    return Status::success();
  finalized_ = true;
  {
    // No run() after finalize: the channel threads are not needed again.
    std::lock_guard<std::mutex> lock(runMutex_);
    state_.pool.shutdown();
  }
  // In-process transports deliver at trySend; a failed or aborted world
  // has nothing left to deliver (and maybe nobody left to meet).
  if (!bootstrap_ || !transport_->checkPeers().ok())
    return Status::success();
  if (Status s = bootstrap_->barrier(Deadline::after(options_.timeoutSeconds));
      !s.ok())
    return withContext(s, "rank " + std::to_string(rank()) +
                              ": finalize (waiting for every rank to finish)");
  return Status::success();
}

Status TransportCommunicator::run(const Plan &plan, size_t index,
                                  const void *sendbuf, void *recvbuf,
                                  int64_t count, DataType dtype, ReduceOp op,
                                  const int64_t *sendCounts) {
  // The watchdog's clock starts now.
  Deadline deadline = Deadline::after(options_.timeoutSeconds);
  std::string rankText = "rank " + std::to_string(rank());
  if (finalized_)
    return Status(ErrorCode::InvalidArgument,
                  rankText + ": run() after finalize()");
  COLLRT_RETURN_IF_ERROR_WITH(checkCollectiveIndex(plan, index), rankText);
  if (plan.worldSize != worldSize())
    return Status(ErrorCode::PlanMismatch,
                  rankText + ": the plan is for a world of " +
                      std::to_string(plan.worldSize) +
                      " ranks, this communicator's world has " +
                      std::to_string(worldSize()));
  const PlanCollective &collective = plan.collectives[index];
  std::string which =
      "collective " + std::to_string(index) +
      (collective.location.empty() ? "" : " (" + collective.location + ")");
  if (dtype != collective.dtype)
    return Status(ErrorCode::PlanMismatch,
                  rankText + ": " + which + " was compiled for " +
                      dataTypeName(collective.dtype) + " elements, run() got " +
                      dataTypeName(dtype));
  if (op != collective.reduction)
    return Status(ErrorCode::PlanMismatch,
                  rankText + ": " + which + " was compiled for reduction " +
                      reduceOpName(collective.reduction) + ", run() got " +
                      reduceOpName(op));
  if (count < 0)
    return Status(ErrorCode::InvalidArgument,
                  rankText + ": count = " + std::to_string(count) +
                      " is negative");
  RunRequest request;
  request.collective = &collective;
  request.index = index;
  request.sendbuf = sendbuf;
  request.recvbuf = recvbuf;
  request.count = count;
  request.sendCounts = sendCounts;
  request.slotBytes = options_.slotBytes;
  request.deadline = deadline;
  request.timeoutSeconds = options_.timeoutSeconds;
  request.channelThreads = channelThreads_;
  request.trace = options_.trace;
  std::lock_guard<std::mutex> lock(runMutex_);
  return runCollective(*transport_, state_, request);
}

} // namespace exec

Status Communicator::createInProcessGroup(
    int32_t worldSize, const CommOptions &options,
    std::vector<std::unique_ptr<Communicator>> *comms) {
  comms->clear();
  if (worldSize < 1)
    return Status(ErrorCode::InvalidArgument,
                  "createInProcessGroup: worldSize = " +
                      std::to_string(worldSize) + " must be at least 1");
  if (Status s = exec::checkCommOptions(options); !s.ok())
    return s;
  std::shared_ptr<InProcessFabric> fabric = createInProcessFabric(worldSize);
  for (int32_t r = 0; r < worldSize; ++r) {
    std::unique_ptr<Transport> transport = createInProcessTransport(fabric, r);
    if (!transport) {
      comms->clear();
      return Status(ErrorCode::TransportError,
                    "createInProcessGroup: no in-process transport for rank " +
                        std::to_string(r));
    }
    comms->push_back(std::make_unique<exec::TransportCommunicator>(
        nullptr, fabric, std::move(transport), options));
  }
  return Status::success();
}

} // namespace collrt
