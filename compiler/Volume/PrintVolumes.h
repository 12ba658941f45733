//===- PrintVolumes.h - collc --emit=volumes --------------------*- C++ -*-===//
#ifndef COLLC_COMPILER_VOLUME_PRINTVOLUMES_H
#define COLLC_COMPILER_VOLUME_PRINTVOLUMES_H

#include "common/Topology/Topology.h"
#include "compiler/Check/CheckLowered.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace collc {

/// --emit=volumes: per expanded collective, its algorithm and sizes, the
/// closed form of the bytes sent, the bytes every rank sends and receives
/// and the five busiest links of the topology.
void printVolumes(const std::vector<CheckedCollective> &checked,
                  const topo::Topology &topology, llvm::raw_ostream &os);

} // namespace collc

#endif
