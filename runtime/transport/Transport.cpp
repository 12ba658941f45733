//===- Transport.cpp - the single-copy calls' defaults --------------------===//
//
// Transports that cannot read another process's memory move every message
// through their slots: trySendParts gathers the parts and calls trySend,
// tryRecvPrefix is tryRecv, readRecv copies out of tryRecv's message.
//
//===----------------------------------------------------------------------===//
#include "SpecCheck.h"

#include "collrt/Transport.h"

#include <cstring>
#include <vector>

namespace collrt {

Status Transport::trySendParts(const ConnectionKey &to,
                               const MessagePart *parts, size_t count,
                               bool /*stable*/, bool *posted) {
  *posted = false;
  if (count == 1)
    return trySend(to, parts[0].data, parts[0].bytes, posted);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += parts[i].bytes;
  // One buffer per thread: each connection has one sending thread, and
  // trySend copies before it returns.
  thread_local std::vector<char> gathered;
  if (gathered.size() < total)
    gathered.resize(total);
  char *at = gathered.data();
  for (size_t i = 0; i < count; ++i) {
    if (parts[i].bytes)
      std::memcpy(at, parts[i].data, parts[i].bytes);
    at += parts[i].bytes;
  }
  return trySend(to, gathered.data(), total, posted);
}

Status Transport::flushSends(Deadline) { return Status::success(); }

Status Transport::tryRecvPrefix(const ConnectionKey &from, const void **data,
                                size_t *inlineBytes, size_t *bytes,
                                bool *ready) {
  Status s = tryRecv(from, data, bytes, ready);
  *inlineBytes = *ready ? *bytes : 0;
  return s;
}

/// The message tryRecv returns on `from` and the range [offset, offset +
/// bytes) in it: *at points there.
static Status messageRange(Transport &t, const char *call,
                           const ConnectionKey &from, size_t offset,
                           size_t bytes, const char **at) {
  const void *data = nullptr;
  size_t size = 0;
  bool ready = false;
  if (Status s = t.tryRecv(from, &data, &size, &ready); !s.ok())
    return s;
  if (!ready || offset > size || bytes > size - offset)
    return transport::outsideMessage(
        std::string(t.name()) + " transport, rank " + std::to_string(t.rank()),
        call, from, offset, bytes, ready, size);
  *at = static_cast<const char *>(data) + offset;
  return Status::success();
}

Status Transport::viewRecv(const ConnectionKey &from, size_t offset,
                           size_t bytes, const void **view) {
  const char *at = nullptr;
  if (Status s = messageRange(*this, "viewRecv", from, offset, bytes, &at);
      !s.ok())
    return s;
  *view = at;
  return Status::success();
}

Status Transport::readRecv(const ConnectionKey &from, size_t offset, void *dst,
                           size_t bytes) {
  const char *at = nullptr;
  if (Status s = messageRange(*this, "readRecv", from, offset, bytes, &at);
      !s.ok())
    return s;
  if (bytes)
    std::memcpy(dst, at, bytes);
  return Status::success();
}

} // namespace collrt
