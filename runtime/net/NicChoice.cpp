//===- NicChoice.cpp - which NIC a rank uses ------------------------------===//
#include "NicChoice.h"

#include "common/Topology/Topology.h"

#include <cstdlib>

namespace collrt {
namespace net {

Status nicAffinity(const collc::topo::Topology &topology, int32_t rank,
                   NicAffinity *affinity) {
  if (rank < 0 || rank >= topology.numGpus())
    return Status(ErrorCode::InvalidArgument,
                  "NIC choice: rank " + std::to_string(rank) +
                      " is not a GPU of topology " + topology.name() +
                      " (it has " + std::to_string(topology.numGpus()) +
                      " GPUs)");
  using collc::topo::Device;
  const Device &gpu = topology.device(topology.gpu(rank));
  std::optional<collc::topo::DeviceId> nic = topology.nicOf(rank);
  if (!nic)
    return Status(ErrorCode::InvalidArgument,
                  "NIC choice: topology " + topology.name() + " gives GPU " +
                      gpu.name + " (rank " + std::to_string(rank) +
                      ") no NIC (its node lists no \"nics\" serving it)");
  const Device &n = topology.device(*nic);
  NicAffinity a;
  a.topology = topology.name();
  a.rank = rank;
  a.gpu = gpu.name;
  a.nic = n.name;
  size_t slash = n.name.rfind('/');
  a.nicName = slash == std::string::npos ? n.name : n.name.substr(slash + 1);
  a.node = n.node;
  a.position = n.index;
  a.nicsInNode = static_cast<int32_t>(topology.node(n.node).nics.size());
  a.numa = n.numa;
  a.gpuNuma = gpu.numa;
  *affinity = a;
  return Status::success();
}

namespace {

std::string listDevices(const std::vector<NetDeviceInfo> &devices) {
  std::string out;
  for (const NetDeviceInfo &d : devices)
    out += (out.empty() ? "" : ", ") + d.name + ":" + std::to_string(d.port);
  return out.empty() ? "none" : out;
}

std::string ordinal(int32_t n) {
  int32_t tens = n % 100;
  const char *suffix = "th";
  if (tens < 11 || tens > 13) {
    if (n % 10 == 1)
      suffix = "st";
    else if (n % 10 == 2)
      suffix = "nd";
    else if (n % 10 == 3)
      suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

/// A note when the topology and sysfs disagree on the NIC's NUMA node.
std::string numaNote(const NicAffinity &a, const NetDeviceInfo &d) {
  if (a.numa < 0 || d.numa < 0 || a.numa == d.numa)
    return "";
  return "; note: the topology puts " + a.nic + " on NUMA node " +
         std::to_string(a.numa) + " but sysfs says " + d.name +
         " is on NUMA node " + std::to_string(d.numa);
}

} // namespace

Status chooseNic(const std::vector<NetDeviceInfo> &devices,
                 const std::string &requested, const NicAffinity *affinity,
                 int32_t localRank, NicSelection *selection) {
  if (devices.empty())
    return Status(ErrorCode::Unsupported, "NIC choice: no RDMA device");
  if (!requested.empty()) {
    std::string name = requested;
    int32_t port = 0;
    size_t colon = requested.rfind(':');
    if (colon != std::string::npos) {
      name = requested.substr(0, colon);
      port = std::atoi(requested.c_str() + colon + 1);
    }
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i].name == name && (port == 0 || devices[i].port == port)) {
        selection->device = i;
        selection->reason = "asked for by name ('" + requested + "')";
        return Status::success();
      }
    return Status(ErrorCode::InvalidArgument,
                  "NIC choice: no active RDMA port '" + requested +
                      "' on this host (it has " + listDevices(devices) + ")");
  }
  if (affinity) {
    const NicAffinity &a = *affinity;
    std::string pair = "the topology " + a.topology + " gives GPU " + a.gpu +
                       " (rank " + std::to_string(a.rank) + ") the NIC " +
                       a.nic +
                       (a.numa >= 0 ? " (NUMA " + std::to_string(a.numa) + ")"
                                    : std::string());
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i].name == a.nicName) {
        selection->device = i;
        selection->reason =
            pair + ", an RDMA device of that name" + numaNote(a, devices[i]);
        return Status::success();
      }
    if (static_cast<int32_t>(devices.size()) == a.nicsInNode) {
      const NetDeviceInfo &d = devices[a.position];
      selection->device = static_cast<size_t>(a.position);
      selection->reason =
          pair + ", the " + ordinal(a.position + 1) + " of its node's " +
          std::to_string(a.nicsInNode) + " NICs; no RDMA device is named " +
          a.nicName + ", and this host has as many active RDMA ports, so the " +
          ordinal(a.position + 1) + " by name: " + d.name + " port " +
          std::to_string(d.port) + numaNote(a, d);
      return Status::success();
    }
    return Status(ErrorCode::InvalidArgument,
                  "NIC choice: " + pair +
                      ", but this host has no RDMA device "
                      "named " +
                      a.nicName + " and " + std::to_string(devices.size()) +
                      " active RDMA port(s) (" + listDevices(devices) +
                      ") where the node has " + std::to_string(a.nicsInNode) +
                      " NICs, so the NIC cannot be matched by position: name "
                      "the topology's NICs after the RDMA devices, or name "
                      "the device (collc-run --ib-device, "
                      "CommOptions::ibDevice, IbTransportOptions::device)");
  }
  size_t index =
      static_cast<size_t>(localRank < 0 ? 0 : localRank) % devices.size();
  selection->device = index;
  selection->reason = "no topology given: local rank " +
                      std::to_string(localRank) + " modulo " +
                      std::to_string(devices.size()) + " active RDMA port(s)";
  return Status::success();
}

} // namespace net
} // namespace collrt
