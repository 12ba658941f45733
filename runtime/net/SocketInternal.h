//===- SocketInternal.h - SocketNet's frames and communicators --*- C++ -*-===//
//
// Internal to CollRtNet. Frames: a 32-byte big-endian header (type, tag,
// sequence, size) and, for hello and data, a payload.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_SOCKETINTERNAL_H
#define COLLRT_NET_SOCKETINTERNAL_H

#include "Net.h"
#include "Wire.h"

#include "bootstrap/Socket.h"

#include <cerrno>
#include <memory>
#include <string>

namespace collrt {
namespace net {
namespace sock {

constexpr size_t kHeaderBytes = 32;
inline constexpr char kMagic[] = "collc-net-socket-1";
constexpr uint32_t kMaxDepth = 1u << 20;
constexpr size_t kMaxHelloBytes = 256;

enum class Frame : uint32_t { Hello = 1, ClearToSend = 2, Data = 3 };

struct Header {
  Frame type = Frame::Data;
  uint64_t tag = 0;
  uint64_t seq = 0;
  uint64_t size = 0;
};

inline void encode(const Header &h, char out[kHeaderBytes]) {
  putU32(out, static_cast<uint32_t>(h.type));
  putU32(out + 4, 0);
  putU64(out + 8, h.tag);
  putU64(out + 16, h.seq);
  putU64(out + 24, h.size);
}

inline bool decode(const char in[kHeaderBytes], Header *h) {
  uint32_t type = getU32(in);
  if (type < 1 || type > 3 || getU32(in + 4) != 0)
    return false;
  h->type = static_cast<Frame>(type);
  h->tag = getU64(in + 8);
  h->seq = getU64(in + 16);
  h->size = getU64(in + 24);
  return true;
}

inline bool transient(int err) {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

/// PeerFailure for a reset connection, TransportError otherwise.
Status connectionError(const std::string &peer, int err);

/// Host memory "registered" with sockets: a range to check accesses
/// against.
class SocketMemory final : public NetMemory {
public:
  SocketMemory(void *base, size_t bytes,
               NetMemoryKind kind = NetMemoryKind::Host)
      : NetMemory(base, bytes, kind) {}
};

/// The communicators over a connected socket (SocketComm.cpp).
std::unique_ptr<NetSendComm> makeSendComm(Fd fd, std::string peer);
std::unique_ptr<NetRecvComm> makeRecvComm(Fd fd, std::string peer,
                                          uint32_t depth);

} // namespace sock
} // namespace net
} // namespace collrt

#endif
