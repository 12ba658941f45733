//===- SpecCheck.cpp - checks shared by every transport -------------------===//
#include "SpecCheck.h"

#include <set>
#include <sstream>

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
      return Status(s.code(), where(transport, rank) +
                                  ": connect failed because another rank's "
                                  "connections do not match: " +
                                  s.message());
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

} // namespace transport
} // namespace collrt
