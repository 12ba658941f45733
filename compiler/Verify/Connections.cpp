//===- Connections.cpp - the connections of a program ---------------------===//
#include "compiler/Verify/Connections.h"

#include <unordered_map>

namespace collc {
namespace sched {

uint64_t ConnectionTable::transfers() const {
  uint64_t pairs = 0;
  for (const Connection &connection : connections)
    pairs += std::min(connection.sendCount, connection.recvCount);
  return pairs;
}

namespace {
/// Assigns connection ids. Well-formed programs have fewer than 2^21 ranks
/// and channels, so (channel, sender, receiver) packs into 63 bits. Each
/// stream remembers its last peers: ring and tree streams talk to one or
/// two peers, so most look-ups skip the hash map.
class ConnectionNumbering {
public:
  ConnectionNumbering(const StreamIndex &streams, ConnectionTable &table)
      : streams(streams), table(table) {}

  uint32_t get(uint32_t sender, uint32_t receiver, uint32_t channel,
               uint32_t *cachedPeer, uint32_t *cachedId, uint32_t peer) {
    if (*cachedPeer == peer)
      return *cachedId;
    uint64_t key = (uint64_t(channel) << 42) | (uint64_t(sender) << 21) |
                   uint64_t(receiver);
    auto [it, inserted] =
        ids.try_emplace(key, uint32_t(table.connections.size()));
    if (inserted) {
      Connection connection;
      connection.sender = sender;
      connection.receiver = receiver;
      connection.channel = channel;
      connection.senderStream = streamOrNone(sender, channel);
      connection.receiverStream = streamOrNone(receiver, channel);
      table.connections.push_back(connection);
    }
    *cachedPeer = peer;
    *cachedId = it->second;
    return it->second;
  }

private:
  uint32_t streamOrNone(uint32_t rank, uint32_t channel) const {
    uint32_t first = streams.stream(rank, 0);
    uint32_t end = streams.stream(rank + 1, 0);
    return first + channel < end ? first + channel : ConnectionTable::kNone;
  }

  const StreamIndex &streams;
  ConnectionTable &table;
  std::unordered_map<uint64_t, uint32_t> ids;
};
} // namespace

ConnectionTable buildConnections(const StreamIndex &streams) {
  ConnectionTable table;
  uint32_t total = streams.instructionCount();
  table.sendConnection.assign(total, ConnectionTable::kNone);
  table.recvConnection.assign(total, ConnectionTable::kNone);
  ConnectionNumbering numbering(streams, table);

  uint32_t sendTotal = 0, recvTotal = 0;
  for (uint32_t s = 0, n = streams.streamCount(); s < n; ++s) {
    uint32_t rank = streams.rankOf(s), channel = streams.channelOf(s);
    uint32_t lastSendPeer = UINT32_MAX, lastSendId = 0;
    uint32_t lastRecvPeer = UINT32_MAX, lastRecvId = 0;
    for (uint32_t i = 0, len = streams.length(s); i < len; ++i) {
      const Instruction &instruction = streams.instruction(s, i);
      uint32_t id = streams.id(s, i);
      if (opcodeSends(instruction.opcode)) {
        uint32_t peer = uint32_t(instruction.sendPeer);
        uint32_t c = numbering.get(rank, peer, channel, &lastSendPeer,
                                   &lastSendId, peer);
        table.sendConnection[id] = c;
        ++table.connections[c].sendCount;
        ++sendTotal;
      }
      if (opcodeReceives(instruction.opcode)) {
        uint32_t peer = uint32_t(instruction.recvPeer);
        uint32_t c = numbering.get(peer, rank, channel, &lastRecvPeer,
                                   &lastRecvId, peer);
        table.recvConnection[id] = c;
        ++table.connections[c].recvCount;
        ++recvTotal;
      }
    }
  }

  // Lay out each connection's sends and recvs contiguously, in stream order
  // (instruction ids grow along a stream, and one stream posts all sends of
  // a connection).
  uint32_t sendOffset = 0, recvOffset = 0;
  for (Connection &connection : table.connections) {
    connection.firstSend = sendOffset;
    connection.firstRecv = recvOffset;
    sendOffset += connection.sendCount;
    recvOffset += connection.recvCount;
    connection.sendCount = connection.recvCount = 0; // refilled below
  }
  table.sends.resize(sendTotal);
  table.recvs.resize(recvTotal);
  for (uint32_t id = 0; id < total; ++id) {
    if (uint32_t c = table.sendConnection[id]; c != ConnectionTable::kNone) {
      Connection &connection = table.connections[c];
      table.sends[connection.firstSend + connection.sendCount++] = id;
    }
    if (uint32_t c = table.recvConnection[id]; c != ConnectionTable::kNone) {
      Connection &connection = table.connections[c];
      table.recvs[connection.firstRecv + connection.recvCount++] = id;
    }
  }
  return table;
}

} // namespace sched
} // namespace collc
