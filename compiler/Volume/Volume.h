//===- Volume.h - bytes each rank and each link carries --------*- C++ -*-===//
//
// Counts what an expanded schedule moves: the bytes every rank sends and
// receives and, given a topology and the GPU of every rank, the bytes every
// link carries along the routes the topology gives. collc --emit=volumes
// prints these beside the closed forms of docs/algorithms.md.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VOLUME_VOLUME_H
#define COLLC_COMPILER_VOLUME_VOLUME_H

#include "common/Program/Program.h"

#include <cstdint>
#include <vector>

namespace collc {
namespace topo {
class Topology;
} // namespace topo

struct RankVolume {
  int64_t bytesSent = 0;
  int64_t bytesReceived = 0;
};

struct VolumeReport {
  std::vector<RankVolume> ranks;
  /// Bytes per directed link of the topology (indexed by link id); empty
  /// when no topology was given.
  std::vector<int64_t> linkBytes;
  int64_t maxBytesSent() const;
  int64_t totalBytesSent() const;
};

/// Counts the bytes of every send of `program` for a message of
/// `inputElements` elements of `elementBytes` bytes per rank. With a topology,
/// `gpuOfRank[r]` is the topology rank (GPU) that group rank r runs on and
/// every transfer is charged to each link of its route.
VolumeReport computeVolumes(const sched::Program &program,
                            int64_t inputElements, unsigned elementBytes,
                            const topo::Topology *topology = nullptr,
                            const std::vector<int> &gpuOfRank = {});

} // namespace collc

#endif
