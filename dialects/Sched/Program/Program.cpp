//===- Program.cpp - the expanded form of a schedule ----------------------===//
#include "dialects/Sched/Program/Program.h"

namespace collc {
namespace sched {

const char *collectiveName(Collective collective) {
  switch (collective) {
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::AllGather:
    return "all_gather";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllToAll:
    return "all_to_all";
  case Collective::AllToAllV:
    return "all_to_all_v";
  case Collective::Broadcast:
    return "broadcast";
  case Collective::Reduce:
    return "reduce";
  case Collective::Scatter:
    return "scatter";
  case Collective::Gather:
    return "gather";
  case Collective::SendRecv:
    return "send_recv";
  }
  return "?";
}

const char *bufferName(Buffer buffer) {
  switch (buffer) {
  case Buffer::Input:
    return "input";
  case Buffer::Output:
    return "output";
  case Buffer::Scratch:
    return "scratch";
  }
  return "?";
}

const char *opcodeName(Opcode opcode) {
  switch (opcode) {
  case Opcode::Send:
    return "send";
  case Opcode::Recv:
    return "recv";
  case Opcode::Copy:
    return "copy";
  case Opcode::Reduce:
    return "reduce";
  case Opcode::RecvReduceSend:
    return "recv_reduce_send";
  case Opcode::RecvCopySend:
    return "recv_copy_send";
  case Opcode::RecvReduceCopy:
    return "recv_reduce_copy";
  case Opcode::RecvReduceCopySend:
    return "recv_reduce_copy_send";
  }
  return "?";
}

size_t Program::instructionCount() const {
  size_t count = 0;
  for (const RankProgram &rank : ranks)
    for (const ChannelProgram &channel : rank.channels)
      count += channel.instructions.size();
  return count;
}

int64_t chunkElements(int64_t totalElements, uint32_t chunks, uint32_t index) {
  if (chunks == 0)
    return 0;
  int64_t base = totalElements / chunks;
  int64_t remainder = totalElements % chunks;
  return base + (static_cast<int64_t>(index) < remainder ? 1 : 0);
}

} // namespace sched
} // namespace collc
