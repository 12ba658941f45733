//===- Matching.cpp - does every send meet a recv of its size? ------------===//
//
// The k-th send of a connection is received by its k-th recv. Both must move
// the same number of chunks and, where both ranges have a size of their own
// (input and output chunks; scratch chunks are as large as the largest),
// the same number of elements.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Checks.h"
#include "compiler/Verify/Messages.h"

namespace collc {
namespace sched {
namespace {

/// The local range a message has the size of: what a send puts on the wire
/// and what a recv stores the arrival into or combines it with. Fused forms
/// that store send what they stored; recv_reduce_send and send have only
/// `src`.
const ChunkRange &wireRange(const Instruction &instruction) {
  bool stores = opcodeWritesDst(instruction.opcode);
  return stores ? instruction.dst : instruction.src;
}

class MatchingChecker {
public:
  MatchingChecker(const StreamIndex &streams, const ConnectionTable &table,
                  const CollectiveLayout &layout, ErrorSink &errors)
      : streams(streams), table(table), layout(layout), errors(errors) {}

  bool check() {
    for (const Connection &connection : table.connections)
      checkConnection(connection);
    return errors.reported(VerifyErrorKind::Mismatch) == 0;
  }

private:
  struct Side {
    uint32_t rank, channel;
    const Instruction *instruction;
  };

  Side side(uint32_t id) const {
    uint32_t stream = streams.streamOf(id);
    return {streams.rankOf(stream), streams.channelOf(stream),
            &streams.instruction(stream, id - streams.id(stream, 0))};
  }

  static std::string amount(uint32_t chunks, int64_t elements) {
    std::string text = countOf(chunks, "chunk");
    if (elements >= 0)
      text += " (" + countOf(uint64_t(elements), "element") + ")";
    return text;
  }

  void mismatch(std::string message) {
    errors.report(VerifyErrorKind::Mismatch, std::move(message));
  }

  /// "rank 2 channel 0 step 3 sends 2 chunks to rank 3 on channel 0 (its
  /// send #4 on that connection)".
  std::string sendText(const Side &sender, const Connection &connection,
                       uint32_t ordinal, int64_t elements) const {
    return streamStep(sender.rank, sender.channel, *sender.instruction) +
           " sends " + amount(wireRange(*sender.instruction).count, elements) +
           " to rank " + std::to_string(connection.receiver) + " on channel " +
           std::to_string(connection.channel) + " (its send #" +
           std::to_string(ordinal) + " on that connection)";
  }

  std::string recvText(const Side &receiver, const Connection &connection,
                       uint32_t ordinal, int64_t elements, bool full) const {
    return streamStep(receiver.rank, receiver.channel, *receiver.instruction) +
           " receives " +
           amount(wireRange(*receiver.instruction).count, elements) +
           " from rank " + std::to_string(connection.sender) +
           (full ? " on channel " + std::to_string(connection.channel) +
                       " (its recv #" + std::to_string(ordinal) +
                       " on that connection)"
                 : " (its recv #" + std::to_string(ordinal) + ")");
  }

  void checkConnection(const Connection &connection) {
    uint32_t pairs = std::min(connection.sendCount, connection.recvCount);
    for (uint32_t k = 0; k < pairs; ++k)
      checkPair(connection, k);
    if (connection.sendCount > connection.recvCount) {
      if (!errors.wants(VerifyErrorKind::Mismatch))
        return errors.count(VerifyErrorKind::Mismatch);
      uint32_t k = connection.recvCount;
      Side sender = side(table.sends[connection.firstSend + k]);
      mismatch(
          sendText(sender, connection, k + 1, -1) + ", but rank " +
          std::to_string(connection.receiver) +
          (k == 0 ? " never receives from rank " +
                        std::to_string(connection.sender) + " on channel " +
                        std::to_string(connection.channel)
                  : " receives from rank " + std::to_string(connection.sender) +
                        " on channel " + std::to_string(connection.channel) +
                        " only " + countOf(k, "time")));
    } else if (connection.recvCount > connection.sendCount) {
      if (!errors.wants(VerifyErrorKind::Mismatch))
        return errors.count(VerifyErrorKind::Mismatch);
      uint32_t k = connection.sendCount;
      Side receiver = side(table.recvs[connection.firstRecv + k]);
      mismatch(recvText(receiver, connection, k + 1, -1, true) + ", but rank " +
               std::to_string(connection.sender) +
               (k == 0
                    ? " never sends to rank " +
                          std::to_string(connection.receiver) + " on channel " +
                          std::to_string(connection.channel)
                    : " sends to rank " + std::to_string(connection.receiver) +
                          " on channel " + std::to_string(connection.channel) +
                          " only " + countOf(k, "time")));
    }
  }

  void checkPair(const Connection &connection, uint32_t k) {
    uint32_t sendId = table.sends[connection.firstSend + k];
    uint32_t recvId = table.recvs[connection.firstRecv + k];
    const Instruction &send =
        streams.instruction(streams.streamOf(sendId), streams.indexOf(sendId));
    const Instruction &recv =
        streams.instruction(streams.streamOf(recvId), streams.indexOf(recvId));
    const ChunkRange &sent = wireRange(send);
    const ChunkRange &received = wireRange(recv);
    int64_t sentElements = -1, receivedElements = -1;
    if (sent.count == received.count) {
      if (sent.buffer == Buffer::Scratch || received.buffer == Buffer::Scratch)
        return;
      sentElements = layout.elements(connection.sender, sent);
      receivedElements = layout.elements(connection.receiver, received);
      if (sentElements == receivedElements)
        return;
    }
    if (!errors.wants(VerifyErrorKind::Mismatch))
      return errors.count(VerifyErrorKind::Mismatch);
    mismatch(
        sendText(side(sendId), connection, k + 1, sentElements) + ", but " +
        recvText(side(recvId), connection, k + 1, receivedElements, false));
  }

  const StreamIndex &streams;
  const ConnectionTable &table;
  const CollectiveLayout &layout;
  ErrorSink &errors;
};

} // namespace

bool checkMatching(const StreamIndex &streams, const ConnectionTable &table,
                   const CollectiveLayout &layout, ErrorSink &errors) {
  return MatchingChecker(streams, table, layout, errors).check();
}

} // namespace sched
} // namespace collc
