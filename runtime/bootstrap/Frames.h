//===- Frames.h - the bootstrap's wire format -------------------*- C++ -*-===//
//
// A frame is a 16-byte header (type, aux, payload length; big-endian) and
// the payload. `aux` is a rank or a collective's sequence number.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_BOOTSTRAP_FRAMES_H
#define COLLRT_BOOTSTRAP_FRAMES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace bootstrap {

enum class FrameType : uint32_t {
  /// rank -> master, aux = rank: magic, world size, local rank, host name.
  Hello = 1,
  /// master -> rank: the host names of every rank.
  Welcome = 2,
  /// aux = sequence number: a contribution (rank -> master) or the
  /// gathered list (master -> rank).
  Gather = 3,
  /// aux = the failing rank; payload = reason.
  Failure = 4,
  /// aux = the rank leaving normally.
  Bye = 5,
};

struct Frame {
  FrameType type = FrameType::Hello;
  uint32_t aux = 0;
  std::string payload;
};

/// Frames larger than this are garbage (a stray connection).
constexpr uint64_t kMaxFramePayload = 256u << 20;
constexpr char kHelloMagic[] = "collc-bootstrap-1";

std::string encodeFrame(FrameType type, uint32_t aux,
                        const std::string &payload);

/// Strings as one payload (each length-prefixed) and back.
std::string encodeList(const std::vector<std::string> &items);
bool decodeList(const std::string &payload, std::vector<std::string> *items);

/// Accumulates bytes read from a socket and cuts them into frames.
class FrameReader {
public:
  void feed(const char *data, size_t bytes) { buffer_.append(data, bytes); }
  /// The next complete frame; false when more bytes are needed. Sets
  /// *garbage when the stream cannot be a bootstrap stream.
  bool next(Frame *frame, bool *garbage);

private:
  std::string buffer_;
};

} // namespace bootstrap
} // namespace collrt

#endif
