//===- SimTestUtil.h - hand-built programs and topologies for sim tests ---===//
//
// Builders for small Programs (ring all-reduce, direct all-to-all, binomial
// broadcast) and for topologies written as JSON text (a uniform ring, a
// non-blocking switch, an explicit mesh), so that each test states its
// machine and its schedule next to the closed form it checks.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TEST_UNITTESTS_SIMULATE_SIMTESTUTIL_H
#define COLLC_TEST_UNITTESTS_SIMULATE_SIMTESTUTIL_H

#include "compiler/Simulate/Simulator.h"

#include <memory>
#include <string>
#include <vector>

namespace collc::sim::testing {

using sched::Buffer;
using sched::ChunkRange;
using sched::Collective;
using sched::Instruction;
using sched::Opcode;
using sched::Program;

inline ChunkRange input(uint32_t index, uint32_t count = 1) {
  return {Buffer::Input, index, count};
}
inline ChunkRange output(uint32_t index, uint32_t count = 1) {
  return {Buffer::Output, index, count};
}

inline Instruction make(Opcode opcode, int32_t recvPeer, int32_t sendPeer,
                        ChunkRange src, ChunkRange dst, int32_t step) {
  Instruction in;
  in.opcode = opcode;
  in.recvPeer = recvPeer;
  in.sendPeer = sendPeer;
  in.src = src;
  in.dst = dst;
  in.step = step;
  return in;
}
inline Instruction send(int32_t peer, ChunkRange src, int32_t step) {
  return make(Opcode::Send, -1, peer, src, {}, step);
}
inline Instruction recv(int32_t peer, ChunkRange dst, int32_t step) {
  return make(Opcode::Recv, peer, -1, {}, dst, step);
}
inline Instruction copy(ChunkRange src, ChunkRange dst, int32_t step) {
  return make(Opcode::Copy, -1, -1, src, dst, step);
}

/// A program with the buffers of the collective's table and no
/// instructions.
Program makeProgram(Collective collective, int32_t numRanks,
                    uint32_t chunksPerPart);
/// Appends to (rank, channel), creating the channel; returns the index.
uint32_t add(Program &program, int32_t rank, uint32_t channel,
             const Instruction &instruction);

/// Ring all-reduce on one channel, N segments of `chunksPerSegment` chunks:
/// send, recv_reduce_send x (N-2), recv_reduce_copy_send, recv_copy_send x
/// (N-2), recv. Rank r sends to r+1.
Program ringAllReduce(int32_t n, uint32_t chunksPerSegment = 1);
/// Direct all-to-all: channel 0 sends part r+i to rank r+i (i = 1..N-1, one
/// after the other), then receives from r-1, r-2, ... (a connection's send
/// and recv are on the same channel, so one channel stream carries both);
/// channel 1 copies the own part.
Program directAllToAll(int32_t n);
/// The same with every peer on its own channel: channel i-1 sends to r+i,
/// then receives from r-i; all sends run at once. Channel N-1 copies the
/// own part.
Program concurrentAllToAll(int32_t n);
/// Binomial-tree broadcast from rank 0 of N = 2^k ranks: at step j, ranks
/// r < 2^j send to r + 2^j. A rank forwards what it received with
/// recv_copy_send, then sends from its output; leaves recv.
Program binomialBroadcast(int32_t n);

/// A topology from JSON text; fails the test (and returns nullptr) on error.
std::unique_ptr<topo::Topology> parse(const std::string &json);
/// Loads topologies/NAME.json.
std::unique_ptr<topo::Topology> loadBundled(const std::string &name);

/// One node of `gpus` GPUs whose fabric is `fabric` (a JSON object), one
/// link type "l" of `gbps` GB/s and `latencyUs` per link, GPU memory of
/// `memoryGbps` GB/s.
std::string oneNodeTopology(int gpus, const std::string &fabric, double gbps,
                            double latencyUs, double memoryGbps);
/// A ring: GPU i linked to GPU i+1 and N-1 to 0 (a 1-D torus), n >= 3.
std::string ringTopology(int n, double gbps, double latencyUs,
                         double memoryGbps);
/// Every GPU on one non-blocking switch by one link each way.
std::string switchTopology(int n, double gbps, double latencyUs,
                           double memoryGbps);
/// Direct links [a, b, lanes] between GPUs.
std::string meshTopology(int n, const std::string &links, double gbps,
                         double latencyUs, double memoryGbps);

/// 0, 1, ..., n-1.
std::vector<int> identity(int n);

/// The end time of instruction `index` of (rank, channel) in the timeline.
double endOf(const SimResult &result, const Program &program, int32_t rank,
             uint32_t channel, uint32_t index);

} // namespace collc::sim::testing

#endif
