//===- Volume.cpp - bytes each rank and each link carries -----------------===//
#include "compiler/Volume/Volume.h"

#include "common/Topology/Topology.h"
#include "compiler/Routing/Routes.h"

#include <algorithm>
#include <memory>

namespace collc {

int64_t VolumeReport::maxBytesSent() const {
  int64_t most = 0;
  for (const RankVolume &r : ranks)
    most = std::max(most, r.bytesSent);
  return most;
}

int64_t VolumeReport::totalBytesSent() const {
  int64_t total = 0;
  for (const RankVolume &r : ranks)
    total += r.bytesSent;
  return total;
}

VolumeReport computeVolumes(const sched::Program &program,
                            int64_t inputElements, unsigned elementBytes,
                            const topo::Topology *topology,
                            const std::vector<int> &gpuOfRank) {
  VolumeReport report;
  report.ranks.resize(program.numRanks);
  sched::ChunkLayout layout(program, inputElements);
  std::unique_ptr<Routes> routes;
  if (topology) {
    routes = std::make_unique<Routes>(*topology);
    report.linkBytes.assign(topology->links().size(), 0);
  }
  for (int32_t rank = 0; rank < program.numRanks; ++rank) {
    for (const sched::ChannelProgram &channel : program.ranks[rank].channels) {
      for (const sched::Instruction &inst : channel.instructions) {
        if (!sched::opcodeSends(inst.opcode) || inst.sendPeer < 0 ||
            inst.sendPeer >= program.numRanks)
          continue;
        // A fused send forwards what it received or computed: the size of
        // its src range, or of dst for recv_copy_send.
        const sched::ChunkRange &range =
            inst.opcode == sched::Opcode::RecvCopySend ? inst.dst : inst.src;
        int64_t bytes = layout.elements(rank, range) * elementBytes;
        report.ranks[rank].bytesSent += bytes;
        report.ranks[inst.sendPeer].bytesReceived += bytes;
        if (routes) {
          int fromRank = gpuOfRank.empty() ? rank : gpuOfRank[rank];
          int toRank =
              gpuOfRank.empty() ? inst.sendPeer : gpuOfRank[inst.sendPeer];
          for (topo::LinkId link :
               routes->path(topology->gpu(fromRank), topology->gpu(toRank)))
            report.linkBytes[link] += bytes;
        }
      }
    }
  }
  return report;
}

} // namespace collc
