//===- BusBandwidth.cpp - nccl-tests' algbw and busbw ---------------------===//
#include "compiler/Simulate/BusBandwidth.h"

namespace collc::sim {

using sched::Collective;

double ncclTestsSize(Collective collective, int numRanks, double inputBytes) {
  bool output =
      collective == Collective::AllGather || collective == Collective::Gather;
  return output ? numRanks * inputBytes : inputBytes;
}

double busBandwidthFactor(Collective collective, int numRanks) {
  double n = numRanks;
  switch (collective) {
  case Collective::AllReduce:
    return 2 * (n - 1) / n;
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
  case Collective::AllToAllV:
  case Collective::Scatter:
  case Collective::Gather:
    return (n - 1) / n;
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::SendRecv:
    return 1;
  }
  return 1;
}

Bandwidths ncclTestsBandwidths(Collective collective, int numRanks,
                               double inputBytes, double seconds) {
  Bandwidths b;
  if (seconds <= 0)
    return b;
  b.algorithm = ncclTestsSize(collective, numRanks, inputBytes) / seconds;
  b.bus = b.algorithm * busBandwidthFactor(collective, numRanks);
  return b;
}

} // namespace collc::sim
