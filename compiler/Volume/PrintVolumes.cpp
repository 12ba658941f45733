//===- PrintVolumes.cpp - collc --emit=volumes ----------------------------===//
#include "compiler/Volume/PrintVolumes.h"

#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Volume/Volume.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace collc {

void printVolumes(const std::vector<CheckedCollective> &checked,
                  const topo::Topology &topology, llvm::raw_ostream &os) {
  for (const CheckedCollective &c : checked) {
    if (!c.program)
      continue;
    const lowering::LoweredCollective &l = c.lowered;
    std::string location = formatLocation(l.op->getLoc());
    os << sched::collectiveName(l.collective) << " at " << location << ": "
       << l.algorithm->name;
    for (const auto &entry : l.chosenParams)
      os << " " << entry.getKey() << "=" << entry.getValue();
    os << ", n = " << l.layout.size << ", k = " << l.expand.chunksPerPart;
    if (l.elementsPerRank < 0) {
      os << ": sizes known only at run time\n";
      continue;
    }
    int64_t bytes = l.elementsPerRank * l.elementBytes;
    os << ", M = " << bytes << " B per rank\n";
    if (!l.algorithm->volume.empty())
      os << "  closed form of the bytes sent: " << l.algorithm->volume << "\n";
    std::vector<int> gpus(l.layout.meshRanks.begin(), l.layout.meshRanks.end());
    VolumeReport volumes = computeVolumes(*c.program, l.elementsPerRank,
                                          l.elementBytes, &topology, gpus);
    os << "  rank        sent    received\n";
    for (size_t r = 0; r < volumes.ranks.size(); ++r)
      os << llvm::formatv("  {0,4} {1,11} {2,11}\n", r,
                          volumes.ranks[r].bytesSent,
                          volumes.ranks[r].bytesReceived);
    os << "  total sent: " << volumes.totalBytesSent() << " B\n";
    // The busiest links, by bytes carried.
    std::vector<size_t> order(volumes.linkBytes.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return volumes.linkBytes[a] > volumes.linkBytes[b];
    });
    os << "  busiest links:\n";
    for (size_t i = 0; i < order.size() && i < 5; ++i) {
      if (volumes.linkBytes[order[i]] == 0)
        break;
      const topo::Link &link = topology.link(order[i]);
      os << llvm::formatv(
          "    {0} -> {1}: {2} B\n", topology.device(link.src).name,
          topology.device(link.dst).name, volumes.linkBytes[order[i]]);
    }
  }
}

} // namespace collc
