//===- Connections.h - the connections of a program -------------*- C++ -*-===//
//
// A connection is (sender rank, receiver rank, channel); its k-th send is
// received by its k-th recv. The table lists each connection's sends and
// recvs in stream order, and tells for each instruction the connections its
// send and recv parts use.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_CONNECTIONS_H
#define COLLC_COMPILER_VERIFY_CONNECTIONS_H

#include "compiler/Verify/Streams.h"

namespace collc {
namespace sched {

struct Connection {
  uint32_t sender = 0;
  uint32_t receiver = 0;
  uint32_t channel = 0;
  /// Stream (sender, channel) and (receiver, channel), or kNone where the
  /// rank has no such channel.
  uint32_t senderStream = 0;
  uint32_t receiverStream = 0;
  uint32_t firstSend = 0; ///< into ConnectionTable::sends
  uint32_t sendCount = 0;
  uint32_t firstRecv = 0; ///< into ConnectionTable::recvs
  uint32_t recvCount = 0;
};

struct ConnectionTable {
  static constexpr uint32_t kNone = UINT32_MAX;

  std::vector<Connection> connections;
  /// Per instruction id: the connection of its send part, or kNone.
  std::vector<uint32_t> sendConnection;
  /// Per instruction id: the connection of its recv part, or kNone.
  std::vector<uint32_t> recvConnection;
  /// Instruction ids of the sends of each connection, in order.
  std::vector<uint32_t> sends;
  /// Instruction ids of the recvs of each connection, in order.
  std::vector<uint32_t> recvs;

  /// Matched send/recv pairs.
  uint64_t transfers() const;
};

/// Builds the table of a well-formed program.
ConnectionTable buildConnections(const StreamIndex &streams);

} // namespace sched
} // namespace collc

#endif
