//===- SpecCheck.cpp - checks shared by every transport -------------------===//
#include "SpecCheck.h"

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

namespace collrt {
namespace transport {

static std::string where(const char *transport, int32_t rank) {
  return std::string(transport) + " transport, rank " + std::to_string(rank);
}

Status checkSpec(const char *transport, int32_t rank, int32_t worldSize,
                 const ConnectionSpec &spec) {
  if (spec.slots < 1)
    return Status(ErrorCode::InvalidArgument,
                  where(transport, rank) +
                      ": connection spec has slots = 0 (needs >= 1)");
  if (spec.slotBytes < 1)
    return Status(ErrorCode::InvalidArgument,
                  where(transport, rank) +
                      ": connection spec has slotBytes = 0 (needs >= 1)");
  for (int dir = 0; dir < 2; ++dir) {
    const auto &keys = dir == 0 ? spec.sendTo : spec.recvFrom;
    const char *field = dir == 0 ? "sendTo" : "recvFrom";
    std::set<ConnectionKey> seen;
    for (size_t i = 0; i < keys.size(); ++i) {
      const ConnectionKey &key = keys[i];
      if (key.peer < 0 || key.peer >= worldSize)
        return Status(ErrorCode::InvalidArgument,
                      where(transport, rank) + ": " + field + "[" +
                          std::to_string(i) + "] names peer " +
                          std::to_string(key.peer) + " outside the world of " +
                          std::to_string(worldSize) + " ranks");
      if (!seen.insert(key).second)
        return Status(ErrorCode::InvalidArgument,
                      where(transport, rank) + ": " + field + "[" +
                          std::to_string(i) + "] repeats the connection to " +
                          "peer " + std::to_string(key.peer) + " channel " +
                          std::to_string(key.channel));
    }
  }
  return Status::success();
}

std::string encodeSpec(const ConnectionSpec &spec) {
  std::ostringstream out;
  out << spec.slots << ' ' << spec.slotBytes << ' ' << spec.sendTo.size();
  for (const ConnectionKey &key : spec.sendTo)
    out << ' ' << key.peer << ' ' << key.channel;
  out << ' ' << spec.recvFrom.size();
  for (const ConnectionKey &key : spec.recvFrom)
    out << ' ' << key.peer << ' ' << key.channel;
  return out.str();
}

bool decodeSpec(const std::string &text, ConnectionSpec *spec) {
  std::istringstream in(text);
  ConnectionSpec result;
  size_t count = 0;
  if (!(in >> result.slots >> result.slotBytes >> count))
    return false;
  for (int dir = 0; dir < 2; ++dir) {
    if (dir == 1 && !(in >> count))
      return false;
    auto &keys = dir == 0 ? result.sendTo : result.recvFrom;
    for (size_t i = 0; i < count; ++i) {
      ConnectionKey key;
      if (!(in >> key.peer >> key.channel))
        return false;
      keys.push_back(key);
    }
  }
  std::string rest;
  if (in >> rest)
    return false;
  *spec = std::move(result);
  return true;
}

static bool contains(const std::vector<ConnectionKey> &keys,
                     const ConnectionKey &key) {
  for (const ConnectionKey &k : keys)
    if (k == key)
      return true;
  return false;
}

Status checkSpecsAgree(const char *transport, int32_t rank,
                       const std::vector<ConnectionSpec> &specs) {
  const ConnectionSpec &mine = specs[rank];
  for (int dir = 0; dir < 2; ++dir) {
    const auto &keys = dir == 0 ? mine.sendTo : mine.recvFrom;
    for (const ConnectionKey &key : keys) {
      const ConnectionSpec &theirs = specs[key.peer];
      const auto &other = dir == 0 ? theirs.recvFrom : theirs.sendTo;
      std::string conn =
          dir == 0 ? "rank " + std::to_string(rank) + " sends to rank " +
                         std::to_string(key.peer)
                   : "rank " + std::to_string(rank) + " receives from rank " +
                         std::to_string(key.peer);
      conn += " on channel " + std::to_string(key.channel);
      if (!contains(other, ConnectionKey{rank, key.channel}))
        return Status(ErrorCode::InvalidArgument,
                      where(transport, rank) + ": " + conn + " but rank " +
                          std::to_string(key.peer) +
                          (dir == 0 ? " does not receive from rank "
                                    : " does not send to rank ") +
                          std::to_string(rank) + " on that channel");
      if (theirs.slots != mine.slots || theirs.slotBytes != mine.slotBytes)
        return Status(ErrorCode::InvalidArgument,
                      where(transport, rank) + ": " + conn + " with " +
                          std::to_string(mine.slots) + " slots of " +
                          std::to_string(mine.slotBytes) + " bytes but rank " +
                          std::to_string(key.peer) + " connects with " +
                          std::to_string(theirs.slots) + " slots of " +
                          std::to_string(theirs.slotBytes) + " bytes");
    }
  }
  return Status::success();
}

Status checkAllSpecsAgree(const char *transport, int32_t rank,
                          const std::vector<ConnectionSpec> &specs) {
  if (Status s = checkSpecsAgree(transport, rank, specs); !s.ok())
    return s;
  for (int32_t r = 0; r < static_cast<int32_t>(specs.size()); ++r)
    if (Status s = checkSpecsAgree(transport, r, specs); !s.ok())
      return withContext(s, where(transport, rank) +
                                ": connect failed because another rank's "
                                "connections do not match");
  return Status::success();
}

std::string rankList(const std::vector<int32_t> &ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0)
      out += i + 1 == ranks.size() ? " and " : ", ";
    out += std::to_string(ranks[i]);
  }
  return out;
}

Status checkParts(const std::string &where, const ConnectionKey &to,
                  const MessagePart *parts, size_t count, size_t slotBytes,
                  size_t *total) {
  *total = 0;
  for (size_t i = 0; i < count; ++i) {
    if (parts[i].bytes > 0 && !parts[i].data)
      return Status(ErrorCode::InvalidArgument,
                    where + ": trySend of " + std::to_string(parts[i].bytes) +
                        " bytes from a null pointer");
    *total += parts[i].bytes;
  }
  if (count == 0 || *total > slotBytes)
    return Status(
        ErrorCode::InvalidArgument,
        where + ": trySend of " + std::to_string(*total) + " bytes in " +
            std::to_string(count) + " part(s) to peer " +
            std::to_string(to.peer) + " on channel " +
            std::to_string(to.channel) +
            (count == 0 ? ": no parts"
                        : " exceeds slotBytes = " + std::to_string(slotBytes)));
  return Status::success();
}

Status waitForReaders(const std::string &where,
                      const std::vector<ConnectionKey> &keys,
                      const std::function<LeftInPlace(size_t)> &progress,
                      const std::function<Status(size_t)> &check,
                      Deadline deadline) {
  uint32_t rounds = 0;
  for (size_t k = 0; k < keys.size(); ++k) {
    for (;;) {
      LeftInPlace p = progress(k);
      if (p.freed >= p.until)
        break;
      if (Status s = check(k); !s.ok())
        return s;
      if (deadline.expired())
        return Status(ErrorCode::Timeout,
                      where + ": rank " + std::to_string(keys[k].peer) +
                          " did not read the messages this rank left in its "
                          "memory for it on channel " +
                          std::to_string(keys[k].channel) + " (single copy; " +
                          std::to_string(p.freed) + " of " +
                          std::to_string(p.until) + " released)");
      // The receivers are copying: yield at first, then sleep briefly.
      if (++rounds < 64)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  return Status::success();
}

Status outsideMessage(const std::string &where, const char *call,
                      const ConnectionKey &from, size_t offset, size_t bytes,
                      bool ready, size_t size) {
  return Status(
      ErrorCode::InvalidArgument,
      where + ": " + call + " of bytes [" + std::to_string(offset) + ", " +
          std::to_string(offset + bytes) + ") from peer " +
          std::to_string(from.peer) + " on channel " +
          std::to_string(from.channel) +
          (ready ? " outside its message of " + std::to_string(size) + " bytes"
                 : " with no message received"));
}

} // namespace transport
} // namespace collrt
