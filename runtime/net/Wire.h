//===- Wire.h - big-endian integers in byte buffers -------------*- C++ -*-===//
//
// The wire formats of SocketNet's frames, IbvNet's connection set-up and
// the transport's control messages are big-endian, whatever the host.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_WIRE_H
#define COLLRT_NET_WIRE_H

#include <cstdint>

namespace collrt {
namespace net {

inline void putU32(char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}
inline uint32_t getU32(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
inline void putU64(char *p, uint64_t v) {
  putU32(p, static_cast<uint32_t>(v >> 32));
  putU32(p + 4, static_cast<uint32_t>(v));
}
inline uint64_t getU64(const char *p) {
  return (static_cast<uint64_t>(getU32(p)) << 32) | getU32(p + 4);
}

} // namespace net
} // namespace collrt

#endif
