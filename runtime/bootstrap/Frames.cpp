//===- Frames.cpp - the bootstrap's wire format ---------------------------===//
#include "Frames.h"

namespace collrt {
namespace bootstrap {

static void putU32(std::string &out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}
static void putU64(std::string &out, uint64_t v) {
  putU32(out, static_cast<uint32_t>(v >> 32));
  putU32(out, static_cast<uint32_t>(v));
}
static uint32_t getU32(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
static uint64_t getU64(const char *p) {
  return (static_cast<uint64_t>(getU32(p)) << 32) | getU32(p + 4);
}

std::string encodeFrame(FrameType type, uint32_t aux,
                        const std::string &payload) {
  std::string out;
  out.reserve(16 + payload.size());
  putU32(out, static_cast<uint32_t>(type));
  putU32(out, aux);
  putU64(out, payload.size());
  out += payload;
  return out;
}

std::string encodeList(const std::vector<std::string> &items) {
  std::string out;
  putU64(out, items.size());
  for (const std::string &item : items) {
    putU64(out, item.size());
    out += item;
  }
  return out;
}

bool decodeList(const std::string &payload, std::vector<std::string> *items) {
  size_t pos = 0;
  auto take = [&](uint64_t *v) {
    if (payload.size() - pos < 8)
      return false;
    *v = getU64(payload.data() + pos);
    pos += 8;
    return true;
  };
  uint64_t count = 0;
  if (!take(&count) || count > payload.size())
    return false;
  std::vector<std::string> result;
  result.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0;
    if (!take(&len) || len > payload.size() - pos)
      return false;
    result.emplace_back(payload.data() + pos, len);
    pos += len;
  }
  if (pos != payload.size())
    return false;
  *items = std::move(result);
  return true;
}

bool FrameReader::next(Frame *frame, bool *garbage) {
  *garbage = false;
  if (buffer_.size() < 16)
    return false;
  uint32_t type = getU32(buffer_.data());
  uint64_t length = getU64(buffer_.data() + 8);
  if (type < static_cast<uint32_t>(FrameType::Hello) ||
      type > static_cast<uint32_t>(FrameType::Bye) ||
      length > kMaxFramePayload) {
    *garbage = true;
    return false;
  }
  if (buffer_.size() < 16 + length)
    return false;
  frame->type = static_cast<FrameType>(type);
  frame->aux = getU32(buffer_.data() + 4);
  frame->payload.assign(buffer_.data() + 16, length);
  buffer_.erase(0, 16 + length);
  return true;
}

} // namespace bootstrap
} // namespace collrt
