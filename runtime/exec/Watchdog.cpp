//===- Watchdog.cpp - what every channel is doing, and the report ---------===//
#include "runtime/exec/Watchdog.h"

namespace collrt {
namespace exec {

using collc::sched::Instruction;
using collc::sched::Opcode;
using collc::sched::Program;

static std::string rankName(const RunLayout &layout, int32_t groupRank) {
  return "rank " + std::to_string(layout.worldRankOf(groupRank));
}

std::string describeInstruction(const Instruction &in,
                                const RunLayout &layout) {
  std::string text = collc::sched::opcodeName(in.opcode);
  switch (in.opcode) {
  case Opcode::Send:
    text += " " + describeRange(in.src);
    break;
  case Opcode::Recv:
  case Opcode::RecvCopySend:
    text += " " + describeRange(in.dst);
    break;
  case Opcode::Copy:
    text += " " + describeRange(in.src) + " to " + describeRange(in.dst);
    break;
  case Opcode::Reduce:
    text += " " + describeRange(in.src) + " into " + describeRange(in.dst);
    break;
  case Opcode::RecvReduceSend:
    text += " " + describeRange(in.src);
    break;
  case Opcode::RecvReduceCopy:
  case Opcode::RecvReduceCopySend:
    text += " " + describeRange(in.src) + " to " + describeRange(in.dst);
    break;
  }
  if (collc::sched::opcodeReceives(in.opcode))
    text += " from " + rankName(layout, in.recvPeer);
  if (collc::sched::opcodeSends(in.opcode))
    text += " to " + rankName(layout, in.sendPeer);
  return text;
}

std::string instructionContext(const RunLayout &layout, const Program &program,
                               uint32_t channel, uint64_t tile,
                               uint32_t index) {
  const auto &stream =
      program.ranks[size_t(layout.groupRank)].channels[channel].instructions;
  std::string text = "rank " + std::to_string(layout.worldRank) + " channel " +
                     std::to_string(channel) + " tile " + std::to_string(tile);
  if (index < stream.size())
    text += " step " + std::to_string(stream[index].step) + " instruction " +
            std::to_string(index) + " " +
            describeInstruction(stream[index], layout);
  return text;
}

/// Messages the channel moves per run on the connection to or from `peer`.
static uint64_t connectionMessages(const RunLayout &layout,
                                   const std::vector<Instruction> &stream,
                                   int32_t peer, bool sending) {
  uint64_t perTile = 0;
  for (const Instruction &in : stream)
    if (sending
            ? collc::sched::opcodeSends(in.opcode) && in.sendPeer == peer
            : collc::sched::opcodeReceives(in.opcode) && in.recvPeer == peer)
      ++perTile;
  return perTile * layout.tiles;
}

std::string channelReport(const RunLayout &layout, const Program &program,
                          const ChannelStatus *statuses) {
  const auto &channels = program.ranks[size_t(layout.groupRank)].channels;
  std::string report;
  for (uint32_t c = 0; c < channels.size(); ++c) {
    const ChannelStatus &status = statuses[c];
    auto phase = ChannelPhase(status.phase.load(std::memory_order_relaxed));
    uint64_t tile = status.tile.load(std::memory_order_relaxed);
    uint32_t index = status.instruction.load(std::memory_order_relaxed);
    uint64_t detail = status.detail.load(std::memory_order_relaxed);
    const auto &stream = channels[c].instructions;
    std::string line = "rank " + std::to_string(layout.worldRank) +
                       " channel " + std::to_string(c);
    if (stream.empty()) {
      report += line + ": finished (no instructions)\n";
      continue;
    }
    if (phase == ChannelPhase::Finished || index >= stream.size()) {
      report += line + ": finished (" + std::to_string(stream.size()) +
                (stream.size() == 1 ? " instruction x " : " instructions x ") +
                std::to_string(layout.tiles) +
                (layout.tiles == 1 ? " tile)\n" : " tiles)\n");
      continue;
    }
    const Instruction &in = stream[index];
    line = instructionContext(layout, program, c, tile, index) + ": ";
    switch (phase) {
    case ChannelPhase::Running:
      line += "running (not waiting)";
      break;
    case ChannelPhase::Failed:
      line += "failed";
      break;
    case ChannelPhase::WaitingRecv: {
      std::string peer = rankName(layout, in.recvPeer);
      line += "waiting for " + peer + " to send (message " +
              std::to_string(detail + 1) + " of " +
              std::to_string(
                  connectionMessages(layout, stream, in.recvPeer, false)) +
              " on this connection; " + std::to_string(detail) + " arrived)";
      break;
    }
    case ChannelPhase::WaitingSend: {
      std::string peer = rankName(layout, in.sendPeer);
      line += "waiting for " + peer + " to release a slot (message " +
              std::to_string(detail + 1) + " of " +
              std::to_string(
                  connectionMessages(layout, stream, in.sendPeer, true)) +
              " on this connection; " + std::to_string(detail) +
              " sent, every one of the " + std::to_string(layout.spec.slots) +
              " slots taken)";
      break;
    }
    case ChannelPhase::WaitingDependency: {
      const collc::sched::RankProgram &rank =
          program.ranks[size_t(layout.groupRank)];
      const collc::sched::Dependency &dep =
          rank.dependencies[size_t(in.depBegin) + size_t(detail)];
      const ChannelStatus &other = statuses[dep.channel];
      line +=
          "waiting for channel " + std::to_string(dep.channel) +
          " to finish its instruction " + std::to_string(dep.instruction) +
          " of tile " + std::to_string(tile) + " (channel " +
          std::to_string(dep.channel) + " is at instruction " +
          std::to_string(other.instruction.load(std::memory_order_relaxed)) +
          " of tile " +
          std::to_string(other.tile.load(std::memory_order_relaxed)) + ")";
      break;
    }
    case ChannelPhase::Finished:
      break;
    }
    report += line + "\n";
  }
  return report;
}

} // namespace exec
} // namespace collrt
