//===- Net.cpp - what every Net shares ------------------------------------===//
#include "Net.h"

#include <cstdio>

namespace collrt {
namespace net {

std::string NetDeviceInfo::describe() const {
  std::string out = name;
  if (port > 0)
    out += " port " + std::to_string(port);
  std::string details = address;
  auto add = [&](const std::string &item) {
    details += (details.empty() ? "" : ", ") + item;
  };
  if (speedMbps > 0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.0f Mbit/s", speedMbps);
    add(buf);
  }
  if (numa >= 0)
    add("NUMA " + std::to_string(numa));
  if (!pciPath.empty())
    add("PCI " + pciPath);
  if (!details.empty())
    out += " (" + details + ")";
  return out;
}

bool NetMemory::contains(const void *data, size_t bytes) const {
  auto begin = reinterpret_cast<uintptr_t>(base_);
  auto p = reinterpret_cast<uintptr_t>(data);
  if (bytes == 0)
    return p >= begin && p <= begin + bytes_;
  return p >= begin && p - begin <= bytes_ && bytes <= bytes_ - (p - begin);
}

} // namespace net
} // namespace collrt
