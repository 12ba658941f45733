//===- NetTransportCreate.cpp - createTcpTransport and createIbTransport --===//
//
// Both build the same NetTransport; they differ in the Net underneath and
// how its device is chosen: tcp listens on the address `interface` names,
// ib picks an RDMA port by the topology's GPU-NIC affinity (NicChoice).
//
//===----------------------------------------------------------------------===//
#include "NetOpen.h"
#include "NetTransport.h"

#include "net/IbvNet.h"
#include "net/NicChoice.h"

#include "common/Topology/Topology.h"

#include <ifaddrs.h>
#include <netinet/in.h>

#include <cstring>

namespace collrt {
namespace transport {

/// The local address to listen on for `interface`: a network interface's
/// name (its first IPv4 address, else IPv6), or an address or host name;
/// "" = `fallback` (the address that reached the bootstrap's master).
static Status listenAddress(const std::string &interface,
                            const std::string &fallback,
                            const std::string &here, std::string *host) {
  if (interface.empty()) {
    if (fallback.empty())
      return Status(ErrorCode::InvalidArgument,
                    here + ": the bootstrap has no local address; name an "
                           "interface");
    *host = fallback;
    return Status::success();
  }
  ifaddrs *list = nullptr;
  if (::getifaddrs(&list) == 0) {
    std::string v4, v6;
    for (ifaddrs *a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || !a->ifa_name || interface != a->ifa_name)
        continue;
      net::Endpoint e;
      if (a->ifa_addr->sa_family == AF_INET) {
        std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in));
        if (v4.empty())
          v4 = e.host();
      } else if (a->ifa_addr->sa_family == AF_INET6) {
        std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in6));
        if (v6.empty())
          v6 = e.host();
      }
    }
    ::freeifaddrs(list);
    if (!v4.empty() || !v6.empty()) {
      *host = v4.empty() ? v6 : v4;
      return Status::success();
    }
  }
  net::Endpoint e;
  if (Status s = net::resolve(interface, 0, &e); !s.ok())
    return Status(ErrorCode::InvalidArgument,
                  here + ": interface '" + interface +
                      "' is neither a network interface of this host nor an "
                      "address: " +
                      s.message());
  *host = e.host();
  return Status::success();
}

Status openNet(Bootstrap &bootstrap, const std::string &kind,
               const std::string &interface, const IbTransportOptions &options,
               const std::string &here, OpenedNet *opened) {
  const std::string rank = "rank " + std::to_string(bootstrap.rank());
  if (kind == "tcp") {
    std::string host;
    if (Status s =
            listenAddress(interface, bootstrap.localAddress(), here, &host);
        !s.ok())
      return s;
    if (Status s = net::createSocketNet(host, here, &opened->net); !s.ok())
      return s;
    opened->device = 0;
    opened->description =
        rank + " listens on " + opened->net->devices()[0].describe();
    return Status::success();
  }
  if (kind != "ib")
    return Status(ErrorCode::InvalidArgument,
                  here + ": network '" + kind + "' must be tcp or ib");
  // The topology first: a wrong file is an error on every machine.
  std::unique_ptr<collc::topo::Topology> topology;
  net::NicAffinity affinity;
  if (!options.topologyFile.empty()) {
    collc::topo::LoadResult loaded =
        collc::topo::loadTopologyFile(options.topologyFile);
    if (!loaded.topology)
      return Status(ErrorCode::InvalidArgument,
                    here +
                        ": the topology for the NIC choice: " + loaded.error);
    topology = std::move(loaded.topology);
    int32_t gpu =
        options.topologyRank >= 0 ? options.topologyRank : bootstrap.rank();
    if (Status s = net::nicAffinity(*topology, gpu, &affinity); !s.ok())
      return withContext(s, here);
  }
  std::string host;
  if (Status s = listenAddress(options.interface, bootstrap.localAddress(),
                               here, &host);
      !s.ok())
    return s;
  net::IbvNetOptions ibv;
  ibv.library = options.library;
  ibv.oobHost = host;
  ibv.gidIndex = options.gidIndex;
  if (Status s = net::createIbvNet(ibv, here, &opened->net); !s.ok())
    return s;
  net::NicSelection selection;
  if (Status s = net::chooseNic(opened->net->devices(), options.device,
                                topology ? &affinity : nullptr,
                                bootstrap.localRank(), &selection);
      !s.ok())
    return withContext(s, here);
  opened->device = static_cast<int>(selection.device);
  opened->description = rank + " uses " +
                        opened->net->devices()[selection.device].describe() +
                        ": " + selection.reason;
  return Status::success();
}

} // namespace transport

Status createTcpTransport(Bootstrap &bootstrap, const std::string &interface,
                          std::unique_ptr<Transport> *transport) {
  const std::string here =
      "tcp transport, rank " + std::to_string(bootstrap.rank());
  transport::OpenedNet opened;
  if (Status s = transport::openNet(bootstrap, "tcp", interface,
                                    IbTransportOptions(), here, &opened);
      !s.ok())
    return s;
  auto result = std::make_unique<transport::NetTransport>(
      "tcp", bootstrap, std::move(opened.net), 0, "tcp: " + opened.description);
  if (Status s = result->start(); !s.ok())
    return Status(s.code(),
                  s.message() + (interface.empty()
                                     ? std::string()
                                     : " (is '" + interface +
                                           "' an address of this host?)"));
  *transport = std::move(result);
  return Status::success();
}

Status createIbTransport(Bootstrap &bootstrap,
                         const IbTransportOptions &options,
                         std::unique_ptr<Transport> *transport) {
  const std::string here =
      "ib transport, rank " + std::to_string(bootstrap.rank());
  transport::OpenedNet opened;
  if (Status s =
          transport::openNet(bootstrap, "ib", "", options, here, &opened);
      !s.ok())
    return s;
  auto result = std::make_unique<transport::NetTransport>(
      "ib", bootstrap, std::move(opened.net), opened.device,
      "ib: " + opened.description);
  if (Status s = result->start(); !s.ok())
    return s;
  *transport = std::move(result);
  return Status::success();
}

} // namespace collrt
