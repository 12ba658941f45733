//===- SpecCheck.h - checks shared by every transport -----------*- C++ -*-===//
#ifndef COLLRT_TRANSPORT_SPECCHECK_H
#define COLLRT_TRANSPORT_SPECCHECK_H

#include "collrt/Transport.h"

#include <functional>
#include <string>
#include <vector>

namespace collrt {
namespace transport {

/// InvalidArgument when `spec` names a peer outside the world, repeats a
/// connection, or has slots or slotBytes of 0; the message starts with
/// "<transport> transport, rank <rank>".
Status checkSpec(const char *transport, int32_t rank, int32_t worldSize,
                 const ConnectionSpec &spec);

/// A connection spec as one line of text (for exchange through a
/// bootstrap) and back.
std::string encodeSpec(const ConnectionSpec &spec);
bool decodeSpec(const std::string &text, ConnectionSpec *spec);

/// Checks that the specs of all ranks agree with rank `rank`'s: every
/// connection it sends on is received by the peer, every one it receives
/// on is sent by the peer, with equal slots and slotBytes. The message
/// names both ranks and the channel.
Status checkSpecsAgree(const char *transport, int32_t rank,
                       const std::vector<ConnectionSpec> &specs);

/// checkSpecsAgree for every rank: rank `rank`'s own mismatch, else the
/// first other rank's (so that every rank fails, not only the ones whose
/// connections are wrong).
Status checkAllSpecsAgree(const char *transport, int32_t rank,
                          const std::vector<ConnectionSpec> &specs);

/// InvalidArgument for a readRecv or viewRecv (`call`) of bytes [offset,
/// offset + bytes) from `from` when no message is there (!ready) or the
/// range lies outside its `size` bytes; `where` names the transport and
/// rank ("shm transport, rank 2").
Status outsideMessage(const std::string &where, const char *call,
                      const ConnectionKey &from, size_t offset, size_t bytes,
                      bool ready, size_t size);

/// InvalidArgument for a trySendParts to `to` whose parts are none, hold
/// bytes at a null address, or add up to more than `slotBytes`; else
/// *total is their bytes. `where` as for outsideMessage.
Status checkParts(const std::string &where, const ConnectionKey &to,
                  const MessagePart *parts, size_t count, size_t slotBytes,
                  size_t *total);

/// One connection's progress as flushSends sees it: messages the receiver
/// freed, and how many it must free (up to the last one left in place).
struct LeftInPlace {
  uint64_t freed = 0, until = 0;
};
/// flushSends of a transport that leaves messages in the sender's memory:
/// returns when progress(k).freed reaches progress(k).until for every
/// connection keys[k], polling (yield, then 20 us sleeps) and, while it
/// waits, failing with what check(k) returns (the abort, a dead peer);
/// Timeout at `deadline` naming the peer and channel. `where` as for
/// outsideMessage.
Status waitForReaders(const std::string &where,
                      const std::vector<ConnectionKey> &keys,
                      const std::function<LeftInPlace(size_t)> &progress,
                      const std::function<Status(size_t)> &check,
                      Deadline deadline);
/// The same over a transport's send connections (a map from ConnectionKey
/// to a unique_ptr): progress(connection), check(key).
template <class Connections, class Progress, class Check>
Status waitForReaders(const std::string &where, const Connections &sends,
                      Progress progress, Check check, Deadline deadline) {
  std::vector<ConnectionKey> keys;
  std::vector<const typename Connections::mapped_type::element_type *> each;
  for (const auto &entry : sends) {
    keys.push_back(entry.first);
    each.push_back(entry.second.get());
  }
  std::function<LeftInPlace(size_t)> byIndex = [&](size_t k) {
    return progress(*each[k]);
  };
  std::function<Status(size_t)> checkIndex = [&](size_t k) {
    return check(keys[k]);
  };
  return waitForReaders(where, keys, byIndex, checkIndex, deadline);
}

/// "rank 3", "ranks 1, 4 and 5".
std::string rankList(const std::vector<int32_t> &ranks);

} // namespace transport
} // namespace collrt

#endif
