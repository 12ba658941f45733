//===- NetOpen.h - the Net a tcp or ib connection uses ----------*- C++ -*-===//
//
// What the tcp and ib transports (NetTransportCreate.cpp) and the GPU
// backend's device proxy (runtime/device/DeviceProxy.h) share: the Net of a
// rank and the device on it. tcp listens on the address `interface` names
// ("" = the one that reached the bootstrap's master); ib loads libibverbs
// and picks an RDMA port by IbTransportOptions (a device, the topology's
// GPU-NIC affinity, or the local rank modulo the active ports). Where ib is
// not possible it fails with Unsupported naming tcp: never a fallback.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_NETOPEN_H
#define COLLRT_TRANSPORT_NETOPEN_H

#include "collrt/Bootstrap.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "runtime/net/Net.h"

#include <memory>
#include <string>

namespace collrt {
namespace transport {

struct OpenedNet {
  std::unique_ptr<net::Net> net;
  int device = 0;
  /// "rank 3 listens on eth0 (...)", "rank 3 uses mlx5_3 port 1 (...):
  /// <why that NIC>".
  std::string description;
};

/// kind "tcp": `interface` as createTcpTransport's; kind "ib": `ib`.
/// `here` starts the messages ("tcp transport, rank 3").
Status openNet(Bootstrap &bootstrap, const std::string &kind,
               const std::string &interface, const IbTransportOptions &ib,
               const std::string &here, OpenedNet *opened);

} // namespace transport
} // namespace collrt

#endif
