//===- GpuCommunicator.cpp - the public GPU interface over CudaCollective -===//
//
// collrt::GpuCommunicator (collrt/GpuCommunicator.h) over the CUDA
// executor: prepare() sets up the launches of one collective and count
// (modules, the links between devices, one CudaCollective per launch, their
// connections: linkLaunches in one process, the bootstrap's exchange of
// arena entries with one rank per process), run() writes the buffers into
// the launches' contexts and enqueues every launch, wait() waits for them
// with the watchdog.
//
//===----------------------------------------------------------------------===//
#include "collrt/GpuCommunicator.h"

#include "common/Topology/Topology.h"
#include "runtime/device/CudaExecutor.h"
#include "runtime/device/GpuLinks.h"
#include "runtime/transport/NetOpen.h"

#include <algorithm>
#include <cstdlib>

namespace collrt {
namespace dev {
namespace {

/// The executor's options for a launch on `device` of `ranks`.
CudaOptions cudaOptions(const GpuOptions &o, int32_t device,
                        std::vector<int32_t> ranks) {
  CudaOptions c;
  c.device = device;
  c.blockThreads = o.blockThreads;
  c.timeoutSeconds = o.timeoutSeconds;
  c.slotBytes = o.slotBytes;
  c.llBytes = o.llBytes;
  c.ranks = std::move(ranks);
  c.hostLinks = o.hostLinks;
  c.gpuDirect = o.gpuDirect;
  (void)parseGpuMemoryRegistration(o.gpuMemoryRegistration,
                                   &c.gpuMemoryRegistration);
  (void)parseProxyPolling(o.proxyPolling, &c.proxyPolling);
  return c;
}

Status loadKernel(size_t index, const GpuOptions &options, int32_t device,
                  std::unique_ptr<CudaModule> *module, std::string *kernel) {
  COLLRT_RETURN_IF_ERROR(
      CudaModule::loadFile(options.kernelFile, device, module));
  *kernel = options.kernel;
  if (kernel->empty())
    COLLRT_RETURN_IF_ERROR(
        (*module)->findPlanKernel(index, options.kernelPrefix, kernel));
  return Status::success();
}

/// --p2p off: every pair of ranks of one host that exchange messages.
std::vector<std::pair<int32_t, int32_t>> everyLocalPair(const LaunchLayout &l) {
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (int32_t r = 0; r < l.nranks(); ++r)
    for (int32_t p : l.peersOf(r))
      if (p > r && !l.acrossHosts(r, p))
        pairs.emplace_back(r, p);
  return pairs;
}

/// waitAndCheck of every launch, none skipped (a failed launch's linked
/// peers are stopped by their peer checks and must be waited for too):
/// the first failure that is not a linked launch's PeerFailure (the cause),
/// with the other launches' reports after it.
Status waitAll(const std::vector<CudaCollective *> &launches,
               const std::vector<cu::Stream> &streams) {
  std::vector<Status> failures;
  for (size_t g = 0; g < launches.size(); ++g)
    if (Status s = launches[g]->waitAndCheck(streams[g]); !s.ok())
      failures.push_back(s);
  if (failures.empty())
    return Status::success();
  size_t cause = 0;
  for (size_t i = 0; i < failures.size(); ++i)
    if (failures[i].code() != ErrorCode::PeerFailure) {
      cause = i;
      break;
    }
  std::string message = failures[cause].message();
  for (size_t i = 0; i < failures.size(); ++i)
    if (i != cause)
      message +=
          "\nand another launch of this collective: " + failures[i].message();
  return Status(failures[cause].code(), message);
}

/// One prepared collective: its launches and what the caller may ask.
struct Prepared {
  size_t index = 0;
  int64_t count = 0;
  /// createForRank: whether this process runs a rank of the collective.
  bool member = true;
  std::vector<std::pair<int32_t, std::unique_ptr<CudaModule>>> modules;
  std::vector<std::unique_ptr<CudaCollective>> owned;
  std::vector<CudaCollective *> launches;
  GpuLaunchInfo info;
  std::vector<int32_t> ranks;
  /// By group rank: its launch, -1 where none here.
  std::vector<int32_t> launchOf;
  /// run(): the buffers the contexts hold; whether the peers' processes
  /// have written theirs (the ready barrier); the streams of the runs in
  /// flight.
  bool haveBuffers = false, ready = false;
  std::vector<cu::DevicePtr> inputs, outputs;
  std::vector<cu::Stream> streams;
  bool inFlight = false;
};

class CudaCommunicator : public GpuCommunicator {
public:
  CudaCommunicator(const Plan &plan, const GpuOptions &options,
                   Bootstrap *bootstrap)
      : plan_(plan), options_(options), bootstrap_(bootstrap) {
    if (bootstrap_)
      who_ = "rank " + std::to_string(bootstrap_->rank());
  }
  ~CudaCommunicator() override { p_.reset(); }

  Status prepare(size_t index, int64_t count) override;
  const GpuLaunchInfo &launchInfo() const override {
    static const GpuLaunchInfo none;
    return p_ ? p_->info : none;
  }
  size_t launchCount() const override { return p_ ? p_->launches.size() : 0; }
  int32_t launchDevice(size_t g) const override {
    return p_->launches[g]->device();
  }
  std::string launchName(size_t g) const override {
    return p_->launches[g]->launchName();
  }
  std::string collectiveName() const override {
    return p_ && !p_->launches.empty() ? p_->launches[0]->layout().name()
                                       : std::string();
  }
  std::vector<int32_t> ranks() const override {
    return p_ ? p_->ranks : std::vector<int32_t>();
  }
  int32_t launchOf(int32_t rank) const override {
    return p_ && rank >= 0 && size_t(rank) < p_->launchOf.size()
               ? p_->launchOf[size_t(rank)]
               : -1;
  }
  int64_t inputElements(int32_t rank) const override {
    return p_->launches[size_t(launchOf(rank))]->layout().inputElements(rank);
  }
  int64_t outputElements(int32_t rank) const override {
    return p_->launches[size_t(launchOf(rank))]->layout().outputElements(rank);
  }
  Status makeCurrent(size_t g) const override {
    return p_->launches[g]->makeCurrent();
  }
  Status run(size_t index, const std::vector<const void *> &sendbufs,
             const std::vector<void *> &recvbufs, int64_t count, DataType dtype,
             ReduceOp op, const std::vector<GpuStream> &streams,
             const int64_t *sendCounts) override;
  Status wait() override;
  void abort(const std::string &reason) override;
  Status release() override;

private:
  Status prepareInProcess(Prepared *p);
  Status prepareForRank(Prepared *p);
  /// createForRank: "rank W: " in front, and the peers told.
  Status fail(const Status &s) {
    if (!bootstrap_)
      return s;
    // This process's kernels stop before the peers stop sending to them
    // (a failed wait may leave them running, and freeing memory waits for
    // them).
    if (p_)
      for (CudaCollective *c : p_->launches)
        c->abort();
    Status named = withContext(s, who_);
    bootstrap_->announceFailure(named.message());
    return named;
  }
  void describe(Prepared *p, const std::string &kernel);

  Plan plan_;
  GpuOptions options_;
  Bootstrap *bootstrap_ = nullptr;
  std::string who_;
  std::unique_ptr<Prepared> p_;
};

void CudaCommunicator::describe(Prepared *p, const std::string &kernel) {
  GpuLaunchInfo &info = p->info;
  info.kernel = kernel;
  info.ranks = 0;
  info.blocks = 0;
  info.memoryBytes = 0;
  info.launches = int32_t(p->launches.size());
  p->launchOf.clear();
  for (size_t g = 0; g < p->launches.size(); ++g) {
    const CudaCollective *c = p->launches[g];
    const LaunchLayout &l = c->layout();
    info.ranks += int32_t(l.launched().size());
    info.blocks += c->gridBlocks();
    info.memoryBytes += memoryTraffic(l);
    p->launchOf.resize(size_t(l.nranks()), -1);
    for (int32_t r : l.launched()) {
      p->ranks.push_back(r);
      p->launchOf[size_t(r)] = int32_t(g);
    }
  }
  std::sort(p->ranks.begin(), p->ranks.end());
  if (p->launches.empty())
    return;
  const LaunchLayout &first = p->launches[0]->layout();
  size_t e = first.elementSize();
  info.threads = p->launches[0]->blockThreads();
  info.tiles = first.tiles();
  info.tileElements = first.tileElements();
  info.ll =
      first.llBytes() && uint64_t(first.largestSlice()) * e <= first.llBytes();
  info.graph = options_.graph == 1 ||
               (options_.graph < 0 && double(p->count) * double(e) <=
                                          double(options_.graphBelowBytes));
}

Status CudaCommunicator::prepare(size_t index, int64_t count) {
  if (p_ && p_->index == index && p_->count == count)
    return Status::success();
  if (p_)
    COLLRT_RETURN_IF_ERROR(release());
  auto p = std::make_unique<Prepared>();
  p->index = index;
  p->count = count;
  Status s = bootstrap_ ? prepareForRank(p.get()) : prepareInProcess(p.get());
  if (!s.ok())
    return s;
  p_ = std::move(p);
  return Status::success();
}

Status CudaCommunicator::prepareInProcess(Prepared *p) {
  const size_t index = p->index;
  const int64_t count = p->count;
  COLLRT_RETURN_IF_ERROR(checkCollectiveIndex(plan_, index));
  const PlanCollective &collective = plan_.collectives[index];
  std::vector<int32_t> devices = options_.devices;
  if (devices.empty())
    devices = {options_.device};
  int32_t n = collective.program.numRanks;
  if (devices.size() > size_t(std::max(n, 1)))
    return Status(ErrorCode::InvalidArgument,
                  "collective " + std::to_string(index) + " runs on " +
                      std::to_string(n) +
                      " ranks: " + std::to_string(devices.size()) +
                      " devices would leave some without a rank (rank r runs "
                      "on devices[r % devices])");
  // One module per distinct device; the kernel's name from the first.
  std::string kernel;
  auto moduleFor = [&](int32_t device, const CudaModule **module) -> Status {
    for (auto &[d, m] : p->modules)
      if (d == device) {
        *module = m.get();
        return Status::success();
      }
    std::unique_ptr<CudaModule> m;
    std::string name;
    COLLRT_RETURN_IF_ERROR(loadKernel(index, options_, device, &m, &name));
    if (kernel.empty())
      kernel = name;
    *module = m.get();
    p->modules.emplace_back(device, std::move(m));
    return Status::success();
  };
  std::vector<std::vector<int32_t>> groups =
      devices.size() == 1 ? std::vector<std::vector<int32_t>>{{}}
                          : dealRanks(n, int32_t(devices.size()));
  // Which pairs of devices exchange messages through host memory: the
  // topology's paths, else the driver's peer access (GpuLinks.h).
  std::vector<std::pair<int32_t, int32_t>> hostLinks = options_.hostLinks;
  LaunchLayout probe; // every rank: who exchanges messages with whom
  if (options_.hostLinks.empty() &&
      (!options_.peerToPeer || devices.size() > 1))
    COLLRT_RETURN_IF_ERROR(LaunchLayout::create(
        collective, index, count, cudaOptions(options_, options_.device, {}),
        &probe));
  if (!options_.peerToPeer && options_.hostLinks.empty()) {
    hostLinks = everyLocalPair(probe);
    p->info.links = {"every pair of ranks: host memory (peer-to-peer off)"};
  } else if (devices.size() > 1 && options_.hostLinks.empty()) {
    // The driver and the kernel first: without them nothing is decided.
    const CudaModule *first = nullptr;
    COLLRT_RETURN_IF_ERROR(moduleFor(devices[0], &first));
    std::unique_ptr<collc::topo::Topology> topology;
    if (!options_.topologyFile.empty()) {
      collc::topo::LoadResult loaded =
          collc::topo::loadTopologyFile(options_.topologyFile);
      if (!loaded.topology)
        return Status(ErrorCode::InvalidArgument,
                      "the topology for the GPU links: " + loaded.error);
      topology = std::move(loaded.topology);
    }
    GpuLinkChoice choice;
    COLLRT_RETURN_IF_ERROR(
        chooseGpuLinks(probe, devices, topology.get(), canAccessPeer, &choice));
    hostLinks = choice.hostLinks;
    p->info.links = choice.lines;
  }
  for (size_t g = 0; g < devices.size(); ++g) {
    const CudaModule *module = nullptr;
    COLLRT_RETURN_IF_ERROR(moduleFor(devices[g], &module));
    CudaOptions o = cudaOptions(options_, devices[g], groups[g]);
    o.hostLinks = hostLinks;
    std::unique_ptr<CudaCollective> c;
    COLLRT_RETURN_IF_ERROR(CudaCollective::create(collective, index, count,
                                                  *module, kernel, o, &c));
    p->launches.push_back(c.get());
    p->owned.push_back(std::move(c));
  }
  // Launches that share a device: all their blocks resident at once.
  const std::vector<CudaCollective *> &launches = p->launches;
  for (size_t g = 0; g < launches.size(); ++g) {
    uint64_t blocks = 0;
    std::string which;
    size_t sharing = 0;
    for (CudaCollective *c : launches)
      if (c->device() == launches[g]->device()) {
        blocks += c->gridBlocks();
        which += (which.empty() ? "" : "; ") + c->launchName() + ": " +
                 std::to_string(c->gridBlocks()) + " blocks";
        ++sharing;
      }
    if (sharing > 1 && blocks > launches[g]->residentBlocks())
      return Status(
          ErrorCode::Unsupported,
          collective.program.algorithm + ": " + std::to_string(sharing) +
              " launches share CUDA device " +
              std::to_string(launches[g]->device()) + " (" + which +
              "), and their " + std::to_string(blocks) +
              " blocks wait for each other, but kernel '" + kernel +
              "' keeps " + std::to_string(launches[g]->residentBlocks()) +
              " resident (" + launches[g]->residency() +
              "): use fewer ranks, channels or launches there");
  }
  COLLRT_RETURN_IF_ERROR(linkLaunches(launches));
  describe(p, kernel);
  return Status::success();
}

Status CudaCommunicator::prepareForRank(Prepared *p) {
  Bootstrap &bootstrap = *bootstrap_;
  const size_t index = p->index;
  const int64_t count = p->count;
  const int32_t world = bootstrap.rank();
  Deadline deadline = Deadline::after(options_.timeoutSeconds);
  who_ = "rank " + std::to_string(world);
  if (Status s = checkCollectiveIndex(plan_, index); !s.ok())
    return fail(s);
  const PlanCollective &collective = plan_.collectives[index];
  int32_t group = -1, rank = -1;
  for (size_t g = 0; g < collective.groups.size() && rank < 0; ++g)
    for (size_t i = 0; i < collective.groups[g].size(); ++i)
      if (collective.groups[g][i] == world) {
        group = int32_t(g);
        rank = int32_t(i);
      }
  if (rank < 0) {
    // Not in the collective: take part in the exchanges only (run: the
    // ready barrier, release: the closing one).
    p->member = false;
    std::vector<std::string> all;
    if (options_.hostLinks.empty() && options_.peerToPeer &&
        !options_.topologyFile.empty())
      COLLRT_RETURN_IF_ERROR_WITH(bootstrap.allGather("-1", &all, deadline),
                                  who_);
    COLLRT_RETURN_IF_ERROR_WITH(bootstrap.allGather("", &all, deadline), who_);
    return Status::success();
  }
  if (rank != world)
    who_ += " (group rank " + std::to_string(rank) + ")";
  std::unique_ptr<CudaModule> module;
  std::string kernel;
  if (Status s = loadKernel(index, options_, options_.device, &module, &kernel);
      !s.ok())
    return fail(s);
  CudaOptions mine = cudaOptions(options_, options_.device, {rank});
  // The hosts of the group's ranks (the bootstrap's host names): ranks on
  // different hosts talk through network connections.
  const std::vector<int32_t> &members = collective.groups[size_t(group)];
  std::vector<std::string> hostNames;
  for (int32_t w : members) {
    if (w < 0 || size_t(w) >= bootstrap.hosts().size())
      return fail(Status(ErrorCode::InvalidPlan,
                         "group " + std::to_string(group) +
                             " names world rank " + std::to_string(w) +
                             ", outside the world of " +
                             std::to_string(bootstrap.hosts().size())));
    const std::string &name = bootstrap.hosts()[size_t(w)];
    int32_t h = int32_t(std::find(hostNames.begin(), hostNames.end(), name) -
                        hostNames.begin());
    if (size_t(h) == hostNames.size())
      hostNames.push_back(name);
    mine.hosts.push_back(h);
  }
  // Host-memory links between the processes of this host: all of them
  // (peer-to-peer off), or where the topology's path between their GPUs
  // crosses a CPU (the devices exchanged first).
  if (options_.hostLinks.empty() &&
      (!options_.peerToPeer || !options_.topologyFile.empty())) {
    LaunchLayout probe;
    DeviceOptions all = mine;
    all.ranks.clear();
    if (Status s = LaunchLayout::create(collective, index, count, all, &probe);
        !s.ok())
      return fail(s);
    if (!options_.peerToPeer) {
      mine.hostLinks = everyLocalPair(probe);
      p->info.links = {"every pair of ranks of a host: host memory "
                       "(peer-to-peer off)"};
    } else {
      collc::topo::LoadResult loaded =
          collc::topo::loadTopologyFile(options_.topologyFile);
      if (!loaded.topology)
        return fail(Status(ErrorCode::InvalidArgument,
                           "the topology for the GPU links: " + loaded.error));
      std::vector<std::string> devices;
      if (Status s = bootstrap.allGather(std::to_string(options_.device),
                                         &devices, deadline);
          !s.ok())
        return fail(s);
      std::vector<int32_t> byRank;
      for (size_t i = 0; i < members.size(); ++i)
        byRank.push_back(probe.acrossHosts(rank, int32_t(i))
                             ? -1
                             : std::atoi(devices[size_t(members[i])].c_str()));
      GpuLinkChoice choice;
      if (Status s = chooseGpuLinks(probe, byRank, loaded.topology.get(),
                                    canAccessPeer, &choice);
          !s.ok())
        return fail(s);
      mine.hostLinks = choice.hostLinks;
      p->info.links = choice.lines;
    }
  }
  std::unique_ptr<CudaCollective> c;
  if (Status s = CudaCollective::create(collective, index, count, *module,
                                        kernel, mine, &c);
      !s.ok())
    return fail(s);
  if (c->layout().usesNet()) {
    int32_t peer = -1;
    for (int32_t q : c->layout().peersOf(rank))
      if (peer < 0 && c->layout().acrossHosts(rank, q))
        peer = q;
    std::string pair = "group rank " + std::to_string(rank) + " (on " +
                       bootstrap.hosts()[size_t(world)] + ") and its peer " +
                       std::to_string(peer) + " (world rank " +
                       std::to_string(members[size_t(peer)]) + ", on " +
                       bootstrap.hosts()[size_t(members[size_t(peer)])] + ")";
    if (options_.network.empty())
      return fail(Status(ErrorCode::Unsupported,
                         pair + " are on different hosts, so their "
                                "connections go over the network, and no "
                                "network was chosen: give "
                                "GpuRunOptions::network (collc-run "
                                "--transport tcp or ib)"));
    transport::OpenedNet opened;
    if (Status s = transport::openNet(
            bootstrap, options_.network, options_.netInterface, options_.ib,
            "GPU network connections (" + options_.network + "), " + who_,
            &opened);
        !s.ok())
      return fail(s);
    p->info.network = options_.network + ": " + opened.description;
    if (Status s = c->startNetwork(std::move(opened.net), opened.device);
        !s.ok())
      return fail(s);
    // GPUDirect: which way the GPU memory was registered, and why.
    if (std::string how = c->gpuMemoryRegistration(); !how.empty())
      p->info.network += "; " + how;
  }

  // The exchange: every process's entries, by world rank.
  std::vector<ArenaEntry> exported;
  if (Status s = c->exportArenas(&exported); !s.ok())
    return fail(s);
  std::vector<std::string> all;
  if (Status s =
          bootstrap.allGather(encodeArenaEntry(exported.at(0)), &all, deadline);
      !s.ok())
    return fail(s);
  std::vector<ArenaEntry> table(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    int32_t w = members[i];
    if (w < 0 || size_t(w) >= all.size())
      return fail(Status(ErrorCode::InvalidPlan,
                         "group " + std::to_string(group) +
                             " names world rank " + std::to_string(w) +
                             ", outside the world of " +
                             std::to_string(all.size())));
    if (Status s = decodeArenaEntry(all[size_t(w)], w, &table[i]); !s.ok())
      return fail(s);
  }
  if (Status s = c->connect(table); !s.ok())
    return fail(s);
  Bootstrap *b = bootstrap_;
  c->setPeerCheck([b] { return b->checkPeers(); });
  p->launches.push_back(c.get());
  p->owned.push_back(std::move(c));
  p->modules.emplace_back(options_.device, std::move(module));
  describe(p, kernel);
  return Status::success();
}

Status CudaCommunicator::run(size_t index,
                             const std::vector<const void *> &sendbufs,
                             const std::vector<void *> &recvbufs, int64_t count,
                             DataType dtype, ReduceOp op,
                             const std::vector<GpuStream> &streams,
                             const int64_t *sendCounts) {
  COLLRT_RETURN_IF_ERROR(prepare(index, count));
  Prepared &p = *p_;
  if (!p.member) {
    // The peers' ready barrier.
    if (!p.ready) {
      COLLRT_RETURN_IF_ERROR_WITH(
          bootstrap_->barrier(Deadline::after(options_.timeoutSeconds)), who_);
      p.ready = true;
    }
    return Status::success();
  }
  const PlanCollective &collective = plan_.collectives[index];
  const std::string &name = p.launches[0]->layout().name();
  if (dtype != collective.dtype || op != collective.reduction)
    return fail(Status(
        ErrorCode::PlanMismatch,
        name + ": run with " + dataTypeName(dtype) + " " + reduceOpName(op) +
            ", and the plan's collective is " + dataTypeName(collective.dtype) +
            " " + reduceOpName(collective.reduction)));
  if (sendCounts)
    return fail(Status(ErrorCode::Unsupported,
                       name + ": send counts given at run time: the GPU "
                              "executor runs all_to_all_v with the plan's "
                              "compiled counts only"));
  if (streams.size() != p.launches.size())
    return fail(Status(ErrorCode::InvalidArgument,
                       name + ": " + std::to_string(streams.size()) +
                           " streams given for " +
                           std::to_string(p.launches.size()) + " launches"));
  size_t n = p.launchOf.size();
  if (sendbufs.size() != n || recvbufs.size() != n)
    return fail(Status(ErrorCode::InvalidArgument,
                       name + ": " + std::to_string(sendbufs.size()) +
                           " send and " + std::to_string(recvbufs.size()) +
                           " receive buffers given for " + std::to_string(n) +
                           " ranks"));
  std::vector<cu::DevicePtr> inputs(n), outputs(n);
  for (size_t r = 0; r < n; ++r) {
    inputs[r] = cu::DevicePtr(uintptr_t(sendbufs[r]));
    outputs[r] = cu::DevicePtr(uintptr_t(recvbufs[r]));
  }
  p.streams.assign(streams.size(), nullptr);
  for (size_t g = 0; g < streams.size(); ++g)
    p.streams[g] = static_cast<cu::Stream>(streams[g]);
  if (!p.haveBuffers || inputs != p.inputs || outputs != p.outputs) {
    // Every launch's control parts are written before any kernel starts.
    for (CudaCollective *c : p.launches)
      if (Status s = c->setBuffers(inputs, outputs); !s.ok())
        return fail(s);
    p.inputs = inputs;
    p.outputs = outputs;
    p.haveBuffers = true;
  }
  if (bootstrap_ && !p.ready) {
    // After setBuffers wrote this process's arenas, and before any
    // launch: no kernel writes into an arena whose control part is not
    // written yet.
    if (Status s =
            bootstrap_->barrier(Deadline::after(options_.timeoutSeconds));
        !s.ok())
      return fail(s);
  }
  p.ready = true;
  // Every launch's graph is captured and instantiated before any kernel
  // runs (nothing that might wait for the device while a launch spins).
  if (p.info.graph)
    for (size_t g = 0; g < p.launches.size(); ++g)
      if (Status s = p.launches[g]->prepareGraph(p.streams[g]); !s.ok())
        return fail(s);
  // Every launch enqueued before any is waited for (producers and
  // consumers on different devices spin on each other). Each launch's
  // throttle bounds its launches in flight (a GPU whose launch queue is
  // full blocks the enqueuing thread, and a kernel that waits for a dead
  // peer would then never let the watchdog run).
  p.inFlight = true;
  Status s;
  for (size_t g = 0; g < p.launches.size() && s.ok(); ++g)
    s = p.info.graph ? p.launches[g]->enqueueGraph(p.streams[g])
                     : p.launches[g]->enqueue(p.streams[g]);
  for (size_t g = 0; g < p.launches.size() && s.ok(); ++g)
    s = p.launches[g]->throttle(p.streams[g]);
  if (!s.ok()) {
    // A launch that fails to enqueue after others were enqueued: wait for
    // those (their watchdogs end them).
    for (CudaCollective *c : p.launches)
      c->abort();
    (void)waitAll(p.launches, p.streams);
    p.inFlight = false;
    return fail(s);
  }
  return Status::success();
}

Status CudaCommunicator::wait() {
  if (!p_ || !p_->member || !p_->inFlight)
    return Status::success();
  p_->inFlight = false;
  if (Status s = waitAll(p_->launches, p_->streams); !s.ok())
    return fail(s);
  return Status::success();
}

void CudaCommunicator::abort(const std::string &reason) {
  if (p_ && p_->inFlight) {
    for (CudaCollective *c : p_->launches)
      c->abort();
    (void)waitAll(p_->launches, p_->streams);
    p_->inFlight = false;
  }
  if (bootstrap_)
    bootstrap_->announceFailure(reason);
}

Status CudaCommunicator::release() {
  if (!p_)
    return Status::success();
  std::unique_ptr<Prepared> p = std::move(p_);
  if (!bootstrap_)
    return Status::success();
  if (!p->member)
    return bootstrap_->barrier(Deadline::after(options_.timeoutSeconds));
  // The closing barrier: a peer's kernel may still write into this
  // process's arena (the tail of a message it consumed last) until every
  // process has waited for its launches.
  COLLRT_RETURN_IF_ERROR_WITH(
      bootstrap_->barrier(Deadline::after(options_.timeoutSeconds)), who_);
  // Every rank's kernels have ended: what the proxy still holds has left or
  // is in flight to a peer that has received it all.
  for (CudaCollective *c : p->launches)
    COLLRT_RETURN_IF_ERROR_WITH(c->stopNetwork(5), who_);
  return Status::success();
}

} // namespace
} // namespace dev

Status
GpuCommunicator::createInProcess(const Plan &plan, const GpuOptions &options,
                                 std::unique_ptr<GpuCommunicator> *comm) {
  *comm = std::make_unique<dev::CudaCommunicator>(plan, options, nullptr);
  return Status::success();
}

Status GpuCommunicator::createForRank(const Plan &plan,
                                      const GpuOptions &options,
                                      Bootstrap &bootstrap,
                                      std::unique_ptr<GpuCommunicator> *comm) {
  *comm = std::make_unique<dev::CudaCommunicator>(plan, options, &bootstrap);
  return Status::success();
}

} // namespace collrt
