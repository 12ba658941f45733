//===- WaitReport.cpp - the watchdog's report of a device launch ----------===//
#include "runtime/device/WaitReport.h"

#include "collrt/Opcodes.h"
#include "collrt/device/WaitState.h"
#include "runtime/exec/Watchdog.h"

#include <algorithm>
#include <optional>

namespace collrt {
namespace dev {

using collc::sched::Instruction;

namespace {

struct Words {
  uint64_t tile, index;
  uint32_t opcode;
  int64_t step;
  int32_t peer;
  uint32_t state;
  bool gaveUp;
  uint64_t detail;
};

Words decode(const uint64_t *w) {
  Words d;
  d.tile = w[0];
  d.index = w[1];
  d.opcode = uint32_t(w[2] >> 56);
  d.step = int64_t((w[2] >> 32) & 0xffffff);
  d.peer = int32_t(uint32_t(w[2]));
  uint32_t s = uint32_t(w[3] >> 56);
  d.state = s & ~wait::kGaveUp;
  d.gaveUp = (s & wait::kGaveUp) != 0;
  d.detail = w[3] & ((1ull << 56) - 1);
  return d;
}

/// What word 2's opcode field names: an opcode (collrt/Opcodes.h's value),
/// or one of WaitState.h's marks of a wait outside an instruction.
const char *opcodeText(uint32_t opcode) {
  Opcode op;
  if (opcodeFromValue(opcode, &op))
    return opcodeName(op);
  if (opcode == wait::kAfter)
    return "after";
  return "the kernel's start";
}

/// The connection index of (from, to, channel), or -1.
int64_t findConnection(const LaunchLayout &layout, int32_t from, int32_t to,
                       uint32_t channel) {
  const auto &conns = layout.connections();
  for (size_t i = 0; i < conns.size(); ++i)
    if (conns[i].from == from && conns[i].to == to &&
        conns[i].channel == channel)
      return int64_t(i);
  return -1;
}

uint64_t at(const std::vector<uint64_t> &v, int64_t i) {
  return i >= 0 && size_t(i) < v.size() ? v[size_t(i)] : 0;
}

/// "rank 1 channel 0 tile 0 step 2 instruction 3 recv output[1] from rank
/// 0", with a note when the kernel's instruction is not the program's.
std::string context(const LaunchLayout &layout, int32_t rank, uint32_t channel,
                    const Words &w) {
  const exec::RunLayout &rl = layout.rank(rank);
  const auto &stream =
      layout.program().ranks[size_t(rank)].channels[channel].instructions;
  std::string text = "rank " + std::to_string(rank) + " channel " +
                     std::to_string(channel) + " tile " +
                     std::to_string(w.tile);
  if (w.opcode == wait::kSetup)
    return text + " (before its first instruction)";
  if (w.index < stream.size()) {
    text = exec::instructionContext(rl, layout.program(), channel, w.tile,
                                    uint32_t(w.index));
    const Instruction &in = stream[size_t(w.index)];
    Opcode recorded;
    if (opcodeFromValue(w.opcode, &recorded)) {
      int32_t peer = opcodeReceives(in.opcode) ? in.recvPeer : in.sendPeer;
      bool peered = opcodeReceives(in.opcode) || opcodeSends(in.opcode);
      if (recorded != in.opcode || (peered && w.peer != peer))
        text += std::string(" (but the kernel runs ") + opcodeText(w.opcode) +
                (peered ? " with rank " + std::to_string(w.peer) : "") +
                " step " + std::to_string(w.step) +
                " there: it does not follow the program)";
    }
    return text;
  }
  return text + " instruction " + std::to_string(w.index) + " " +
         opcodeText(w.opcode) + " (peer " + std::to_string(w.peer) +
         "; the program's stream has only " + std::to_string(stream.size()) +
         " instructions)";
}

std::string errorText(const LaunchLayout &layout, int32_t rank,
                      const Words &w) {
  uint32_t kind = uint32_t(w.detail >> 48);
  uint64_t value = w.detail & ((1ull << 48) - 1);
  uint64_t chunk = value >> 32, low = value & 0xffffffffu;
  const exec::RunLayout &rl = layout.rank(rank);
  const char *bufferNames[3] = {"input", "output", "scratch"};
  switch (kind) {
  case wait::ElementSize:
    return "the kernel was compiled for " + std::to_string(value) +
           "-byte elements, the plan's " +
           dataTypeName(layout.collective().dtype) + " has " +
           std::to_string(layout.elementSize());
  case wait::ChunkRange: {
    uint64_t buffer = value >> 40, end = value & ((1ull << 40) - 1);
    std::string name = buffer < 3 ? bufferNames[buffer] : "an unknown buffer";
    uint64_t chunks = buffer < 3 ? rl.offsets[buffer].size() - 1 : uint64_t(0);
    return "its chunk range of " + name + " ends at chunk " +
           std::to_string(end) + ", outside the buffer's " +
           std::to_string(chunks) + " chunks (or has no chunks)";
  }
  case wait::NoConnection:
    return std::string("it ") + ((value >> 40) ? "receives from" : "sends to") +
           " rank " + std::to_string(int32_t(uint32_t(value))) +
           " on a connection the program does not have";
  case wait::MessageTile:
    return "the message belongs to tile " + std::to_string(value) +
           ", this instruction runs tile " + std::to_string(w.tile);
  case wait::MessageChunks:
    return "the message carries " + std::to_string(value) +
           " chunks, this instruction receives a different number";
  case wait::MessageSlice:
    return "the message (or copy) has " + std::to_string(low) +
           " elements for its chunk " + std::to_string(chunk) +
           ", which does not fit the destination's slice in this tile "
           "(tile of " +
           std::to_string(layout.tileElements()) + " elements)";
  case wait::SliceMismatch:
    return "chunk " + std::to_string(chunk) +
           " combines slices of different sizes (the local operand has " +
           std::to_string(low) + " elements in this tile)";
  case wait::MessageTooLarge:
    return "its message of " + std::to_string(value) +
           " bytes does not fit a slot of " +
           std::to_string(layout.slotCapacity()) + " bytes";
  case wait::BadChannel:
    return "after() names channel " + std::to_string(int64_t(value)) +
           ", outside the rank's " + std::to_string(layout.maxChannels()) +
           " channels";
  case wait::ScratchOverflow:
    return std::to_string(low) + " elements for scratch chunk " +
           std::to_string(chunk) + " exceed a scratch chunk's tile";
  case wait::MessageBytes:
    if (value >> 47)
      return "the sender sent the message by the LL protocol, this "
             "instruction expects the simple one (their chunk counts "
             "differ)";
    return "the sender recorded " + std::to_string(value) +
           " bytes for the message, which does not match its header";
  default:
    return "error " + std::to_string(kind) + " (value " +
           std::to_string(value) + ")";
  }
}

} // namespace

namespace {
uint64_t load(const char *control, uint64_t offset) {
  return __atomic_load_n(reinterpret_cast<const uint64_t *>(control + offset),
                         __ATOMIC_ACQUIRE);
}
} // namespace

LaunchSnapshot readSnapshot(const LaunchLayout &layout,
                            const std::vector<const char *> &controls,
                            const std::vector<const char *> &hostArenas) {
  LaunchSnapshot s;
  size_t m = size_t(layout.maxChannels());
  auto control = [&](int32_t r) -> const char * {
    return size_t(r) < controls.size() && layout.launches(r)
               ? controls[size_t(r)]
               : nullptr;
  };
  auto hostArena = [&](int32_t r) -> const char * {
    return size_t(r) < hostArenas.size() && layout.launches(r)
               ? hostArenas[size_t(r)]
               : nullptr;
  };
  for (int32_t r = 0; r < layout.nranks(); ++r) {
    const LaunchLayout::RankArena &ra = layout.arena(r);
    std::vector<uint64_t> words, progress;
    if (const char *c = control(r)) {
      words.resize(m * wait::kWords);
      progress.resize(m);
      for (size_t i = 0; i < words.size(); ++i)
        words[i] = load(c, ra.waitState + 8 * i);
      for (size_t i = 0; i < m; ++i)
        progress[i] = load(c, ra.progress + 8 * i);
    }
    s.waitState.push_back(std::move(words));
    s.progress.push_back(std::move(progress));
  }
  for (const LaunchLayout::Connection &c : layout.connections()) {
    const char *sender = control(c.from), *receiver = control(c.to);
    // Network and host-memory connections keep head and tail in the host
    // arenas.
    const char *headAt = c.net || c.viaHost ? hostArena(c.to) : receiver;
    const char *tailAt = c.net || c.viaHost ? hostArena(c.from) : sender;
    uint64_t head = headAt ? load(headAt, c.head) : 0;
    uint64_t tail = tailAt ? load(tailAt, c.tail) : 0;
    s.head.push_back(head);
    s.tail.push_back(tail);
    s.sent.push_back(sender ? load(sender, c.sendCounter) : head);
    s.received.push_back(receiver ? load(receiver, c.recvCounter) : tail);
  }
  s.sentBefore.assign(s.sent.size(), 0);
  s.receivedBefore.assign(s.received.size(), 0);
  return s;
}

std::string blockReport(const LaunchLayout &layout,
                        const LaunchSnapshot &snapshot) {
  std::string report;
  const auto &ranks = layout.blockRank();
  const auto &channels = layout.blockChannel();
  uint64_t tiles = uint64_t(layout.tiles());
  // The messages a launch sends on connection `conn`.
  auto perLaunch = [&](int64_t conn) -> uint64_t {
    return conn >= 0
               ? layout.connections()[size_t(conn)].messagesPerTile * tiles
               : 0;
  };
  // The counter of `conn` before the launch that message number `detail`
  // belongs to.
  auto before = [&](const std::vector<uint64_t> &counters, int64_t conn,
                    uint64_t detail) -> uint64_t {
    uint64_t total = perLaunch(conn);
    if (!snapshot.launchUnknown || total == 0)
      return at(counters, conn);
    return detail / total * total;
  };
  // Where the launch is unknown: the epoch of the launch the waits are in
  // (the latest one a wait's message number places), if any wait says.
  std::optional<uint64_t> epochBefore;
  if (!snapshot.launchUnknown)
    epochBefore = snapshot.epochBefore;
  else
    for (size_t b = 0; b < ranks.size(); ++b) {
      int32_t r = ranks[b];
      uint32_t c = uint32_t(channels[b]);
      Words w = decode(snapshot.waitState[size_t(r)].data() +
                       size_t(c) * wait::kWords);
      int64_t conn =
          w.state == wait::WaitRecv   ? findConnection(layout, w.peer, r, c)
          : w.state == wait::WaitSend ? findConnection(layout, r, w.peer, c)
                                      : -1;
      if (uint64_t total = perLaunch(conn); total > 0)
        epochBefore =
            std::max(epochBefore.value_or(0), w.detail / total * tiles);
    }
  for (size_t b = 0; b < ranks.size(); ++b) {
    int32_t r = ranks[b];
    uint32_t c = uint32_t(channels[b]);
    const uint64_t *words =
        snapshot.waitState[size_t(r)].data() + size_t(c) * wait::kWords;
    Words w = decode(words);
    const auto &stream =
        layout.program().ranks[size_t(r)].channels[c].instructions;
    std::string head = "rank " + std::to_string(r) + " channel " +
                       std::to_string(c) + " (block " + std::to_string(b) + ")";
    switch (w.state) {
    case wait::NotStarted:
      report += head + (w.gaveUp ? ": did nothing (the launch was already "
                                   "aborted when it started)\n"
                                 : ": never waited or finished (not started, "
                                   "or running without a wait)\n");
      continue;
    case wait::Finished:
      report += head + ": finished (" + std::to_string(w.index) +
                (w.index == 1 ? " instruction x " : " instructions x ") +
                std::to_string(w.tile) + (w.tile == 1 ? " tile" : " tiles") +
                (w.index != stream.size() ? "; the program's stream has " +
                                                std::to_string(stream.size())
                                          : std::string()) +
                ")\n";
      continue;
    default:
      break;
    }
    std::string line = context(layout, r, c, w) + ": ";
    switch (w.state) {
    case wait::Running:
      line += "running (not waiting)";
      break;
    case wait::Error:
      line += "failed: " + errorText(layout, r, w);
      break;
    case wait::WaitRecv: {
      int64_t conn = findConnection(layout, w.peer, r, c);
      uint64_t start = before(snapshot.receivedBefore, conn, w.detail);
      uint64_t sent = at(snapshot.sent, conn);
      uint64_t sentStart = snapshot.launchUnknown
                               ? std::min(sent, start)
                               : at(snapshot.sentBefore, conn);
      line += "waiting for rank " + std::to_string(w.peer) +
              " to send (message " + std::to_string(w.detail - start + 1) +
              " of " + std::to_string(perLaunch(conn)) +
              " on this connection; " + std::to_string(sent - sentStart) +
              " sent)";
      break;
    }
    case wait::WaitSend: {
      int64_t conn = findConnection(layout, r, w.peer, c);
      uint64_t start = before(snapshot.sentBefore, conn, w.detail);
      uint64_t received = at(snapshot.received, conn);
      uint64_t receivedStart = snapshot.launchUnknown
                                   ? std::min(received, start)
                                   : at(snapshot.receivedBefore, conn);
      line += "waiting for rank " + std::to_string(w.peer) +
              " to release a slot (message " +
              std::to_string(w.detail - start + 1) + " of " +
              std::to_string(perLaunch(conn)) + " on this connection; " +
              std::to_string(w.detail - start) + " sent, " +
              std::to_string(received - receivedStart) +
              " consumed, every one of the " + std::to_string(layout.slots()) +
              " slots taken)";
      break;
    }
    case wait::WaitAfter: {
      uint32_t other = uint32_t(w.peer);
      line += "waiting for channel " + std::to_string(other) +
              " to finish its instruction " + std::to_string(w.detail) +
              " of tile " + std::to_string(w.tile);
      if (other < snapshot.progress[size_t(r)].size()) {
        uint64_t p = snapshot.progress[size_t(r)][other];
        uint64_t tile = p >> 32;
        if (p == 0 || (epochBefore && tile < *epochBefore))
          line += " (channel " + std::to_string(other) +
                  " has not started this launch)";
        else
          line += " (channel " + std::to_string(other) + " completed " +
                  std::to_string(p & 0xffffffffu) + " instructions of tile " +
                  std::to_string(epochBefore
                                     ? tile - *epochBefore
                                     : tile % std::max<uint64_t>(1, tiles)) +
                  ")";
      }
      break;
    }
    default:
      line += "in an unknown state " + std::to_string(w.state);
    }
    if (w.gaveUp)
      line += "; gave up when the launch was aborted";
    report += line + "\n";
  }
  return report;
}

Status blockError(const LaunchLayout &layout, const LaunchSnapshot &snapshot) {
  const auto &ranks = layout.blockRank();
  const auto &channels = layout.blockChannel();
  for (size_t b = 0; b < ranks.size(); ++b) {
    int32_t r = ranks[b];
    uint32_t c = uint32_t(channels[b]);
    Words w =
        decode(snapshot.waitState[size_t(r)].data() + size_t(c) * wait::kWords);
    if (w.state != wait::Error)
      continue;
    return Status(ErrorCode::PlanMismatch,
                  context(layout, r, c, w) + ": " + errorText(layout, r, w));
  }
  return Status::success();
}

Status checkMessageCounts(const LaunchLayout &layout,
                          const LaunchSnapshot &snapshot) {
  const auto &conns = layout.connections();
  for (size_t i = 0; i < conns.size(); ++i) {
    const LaunchLayout::Connection &c = conns[i];
    uint64_t sent =
        at(snapshot.sent, int64_t(i)) - at(snapshot.sentBefore, int64_t(i));
    uint64_t received = at(snapshot.received, int64_t(i)) -
                        at(snapshot.receivedBefore, int64_t(i));
    uint64_t expected = c.messagesPerTile * uint64_t(layout.tiles());
    if ((layout.launches(c.from) && sent != expected) ||
        (layout.launches(c.to) && received != expected))
      return Status(
          ErrorCode::PlanMismatch,
          layout.name() + ": on the connection from rank " +
              std::to_string(c.from) + " to rank " + std::to_string(c.to) +
              " channel " + std::to_string(c.channel) + " the kernel sent " +
              std::to_string(sent) + " and received " +
              std::to_string(received) + " messages; the program sends " +
              std::to_string(expected) + " (" +
              std::to_string(c.messagesPerTile) + " per tile x " +
              std::to_string(layout.tiles()) +
              " tiles): the kernel does not run the plan's "
              "schedule");
  }
  return Status::success();
}

} // namespace dev
} // namespace collrt
