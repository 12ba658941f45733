//===- Simulator.cpp - check the arguments, build the machine, run --------===//
#include "compiler/Simulate/Simulator.h"
#include "compiler/Simulate/Engine.h"

#include <cmath>

namespace collc::sim {

static_assert(sizeof(TimelineRecord) == 48,
              "a timeline of 2M instructions should stay under 100 MB");

namespace {

/// "" or what is wrong with the arguments other than the program.
std::string checkArguments(const sched::Program &program, int64_t inputElements,
                           unsigned elementBytes,
                           const topo::Topology &topology,
                           const std::vector<int> &gpuOfRank,
                           const SimOptions &options) {
  if (inputElements < 0)
    return "the message has " + std::to_string(inputElements) + " elements";
  if (elementBytes == 0)
    return "elements of 0 bytes";
  if (gpuOfRank.size() != size_t(program.numRanks))
    return "gpuOfRank has " + std::to_string(gpuOfRank.size()) +
           " entries for a group of " + std::to_string(program.numRanks);
  for (size_t r = 0; r < gpuOfRank.size(); ++r)
    if (gpuOfRank[r] < 0 || gpuOfRank[r] >= topology.numGpus())
      return "group rank " + std::to_string(r) + " is on GPU " +
             std::to_string(gpuOfRank[r]) + ", but topology " +
             topology.name() + " has " + std::to_string(topology.numGpus()) +
             " GPUs";
  if (!(options.fixedCost >= 0) || !std::isfinite(options.fixedCost))
    return "fixedCost must be a finite number of seconds >= 0";
  if (options.connectionSlots == 0)
    return "connectionSlots must be at least 1";
  if (!(options.protocolEfficiency > 0 && options.protocolEfficiency <= 1))
    return "protocolEfficiency must be in (0, 1]";
  if (options.channelBandwidth && (!(*options.channelBandwidth >= 0) ||
                                   !std::isfinite(*options.channelBandwidth)))
    return "channelBandwidth must be a finite number of bytes/s >= 0";
  for (const LinkTypeOverride &o : options.linkOverrides) {
    bool known = false;
    for (const topo::LinkType &type : topology.linkTypes())
      known = known || type.name == o.linkType;
    if (!known)
      return "override of unknown link type \"" + o.linkType + "\"";
    if (o.bandwidth && !(*o.bandwidth > 0 && std::isfinite(*o.bandwidth)))
      return "override of \"" + o.linkType + "\": bandwidth must be > 0";
    if (o.latency && !(*o.latency >= 0 && std::isfinite(*o.latency)))
      return "override of \"" + o.linkType + "\": latency must be >= 0";
  }
  return "";
}

} // namespace

double channelCap(const topo::Topology &topology, int gpu,
                  const SimOptions &options) {
  if (options.channelBandwidth)
    return *options.channelBandwidth;
  return topology.gpuModel(gpu).channelBandwidth;
}

bool anyChannelCapped(const topo::Topology &topology,
                      const std::vector<int> &gpus, const SimOptions &options) {
  for (int gpu : gpus)
    if (gpu >= 0 && gpu < topology.numGpus() &&
        channelCap(topology, gpu, options) > 0)
      return true;
  return false;
}

namespace {

Machine buildMachine(const topo::Topology &topology,
                     const std::vector<int> &gpuOfRank,
                     const ProgramIndex &index, const SimOptions &options) {
  Machine machine;
  machine.topology = &topology;
  for (const topo::Link &link : topology.links()) {
    const topo::LinkType &type = topology.linkTypes()[size_t(link.type)];
    double bandwidth = link.bandwidth, latency = link.latency;
    for (const LinkTypeOverride &o : options.linkOverrides) {
      if (o.linkType != type.name)
        continue;
      if (o.bandwidth)
        bandwidth *= *o.bandwidth / type.bandwidth;
      if (o.latency)
        latency = *o.latency;
    }
    machine.linkBandwidth.push_back(bandwidth * options.protocolEfficiency);
    machine.linkLatency.push_back(latency);
  }
  machine.capacity = machine.linkBandwidth;
  size_t firstMemory = machine.capacity.size();
  for (int gpu = 0; gpu < topology.numGpus(); ++gpu)
    machine.capacity.push_back(topology.gpuMemoryBandwidth(gpu));
  for (int gpu : gpuOfRank) {
    machine.device.push_back(topology.gpu(gpu));
    machine.memoryResource.push_back(uint32_t(firstMemory + size_t(gpu)));
  }
  for (uint32_t s = 0; s < index.streamCount(); ++s) {
    double cap = channelCap(topology, gpuOfRank[index.rankOf(s)], options);
    if (cap <= 0)
      continue;
    machine.channelResource.resize(index.streamCount(), kNone);
    machine.channelResource[s] = uint32_t(machine.capacity.size());
    machine.capacity.push_back(cap);
  }
  return machine;
}

std::string linkName(const topo::Topology &topology, const topo::Link &link) {
  return topology.device(link.src).name + "->" + topology.device(link.dst).name;
}

} // namespace

double channelTimeBound(const sched::Program &program, int64_t inputElements,
                        unsigned elementBytes, const topo::Topology &topology,
                        const std::vector<int> &gpuOfRank,
                        const SimOptions &options) {
  // Uncapped (the default): nothing to index.
  if (!anyChannelCapped(topology, gpuOfRank, options))
    return 0;
  if (!checkProgram(program).empty() ||
      !checkArguments(program, inputElements, elementBytes, topology, gpuOfRank,
                      options)
           .empty())
    return 0;
  ProgramIndex index(program, inputElements, elementBytes);
  double bound = 0;
  for (uint32_t s = 0; s < index.streamCount(); ++s) {
    uint32_t rank = index.rankOf(s);
    double cap = channelCap(topology, gpuOfRank[rank], options);
    if (cap <= 0)
      continue;
    double traffic = 0;
    for (uint32_t i = 0; i < index.length(s); ++i) {
      const sched::Instruction &in = index.instruction(s, i);
      double bytes = double(index.bytes(index.id(s, i)));
      if (options.chargeMemory)
        traffic += memoryFactor(in) * bytes;
      // A send between two GPUs crosses links and so the channel; one to a
      // rank of the same GPU moves through memory only.
      if (sched::opcodeSends(in.opcode) &&
          gpuOfRank[size_t(in.sendPeer)] != gpuOfRank[rank])
        traffic += bytes;
    }
    bound = std::max(bound, traffic / cap);
  }
  return bound;
}

SimResult simulate(const sched::Program &program, int64_t inputElements,
                   unsigned elementBytes, const topo::Topology &topology,
                   const std::vector<int> &gpuOfRank,
                   const SimOptions &options) {
  SimResult result;
  result.error = checkProgram(program);
  if (result.error.empty())
    result.error = checkArguments(program, inputElements, elementBytes,
                                  topology, gpuOfRank, options);
  if (!result.error.empty())
    return result;

  ProgramIndex index(program, inputElements, elementBytes);
  Machine machine = buildMachine(topology, gpuOfRank, index, options);
  size_t links = topology.links().size();
  result.rankFinish.assign(size_t(program.numRanks), 0);
  result.memoryBytes.assign(size_t(program.numRanks), 0);
  result.linkBytes.assign(links, 0);
  if (options.recordTimeline) {
    TimelineRecord notRun;
    notRun.start = notRun.end = -1;
    result.timeline.assign(index.instructionCount(), notRun);
  }
  Engine(index, machine, options, result).run();

  result.linkBandwidth = machine.linkBandwidth;
  result.linkUtilization.assign(links, 0);
  for (size_t l = 0; l < links; ++l)
    if (result.totalTime > 0)
      result.linkUtilization[l] =
          result.linkBytes[l] / (machine.linkBandwidth[l] * result.totalTime);
  if (options.recordLinkLoad)
    for (const topo::Link &link : topology.links())
      result.linkNames.push_back(linkName(topology, link));
  return result;
}

} // namespace collc::sim
