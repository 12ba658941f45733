//===- GpuLinks.cpp - which path each pair of GPUs takes ------------------===//
#include "runtime/device/GpuLinks.h"

#include "common/Topology/Topology.h"

#include <map>

namespace collrt {
namespace dev {

namespace {

/// The topology's path between two GPUs as device names, and whether it
/// passes through a CPU.
std::string describePath(const collc::topo::Topology &t,
                         const std::vector<collc::topo::LinkId> &path,
                         bool *throughCpu) {
  *throughCpu = false;
  std::string text;
  for (size_t i = 0; i < path.size(); ++i) {
    const collc::topo::Link &link = t.link(path[i]);
    if (i == 0)
      text = t.device(link.src).name;
    const collc::topo::Device &to = t.device(link.dst);
    text += " -> " + to.name;
    if (to.kind == collc::topo::DeviceKind::Cpu)
      *throughCpu = true;
  }
  return text;
}

} // namespace

Status chooseGpuLinks(const LaunchLayout &layout,
                      const std::vector<int32_t> &devices,
                      const collc::topo::Topology *topology,
                      const PeerAccessQuery &canAccess, GpuLinkChoice *choice) {
  *choice = GpuLinkChoice();
  if (devices.empty())
    return Status(ErrorCode::InvalidArgument,
                  layout.name() + ": no devices to choose links between");
  size_t g = devices.size();
  auto deviceOf = [&](int32_t r) { return devices[size_t(r) % g]; };
  // Every pair of devices whose ranks exchange messages, decided once.
  std::map<std::pair<int32_t, int32_t>, bool> viaHost;
  for (int32_t r = 0; r < layout.nranks(); ++r)
    for (int32_t p : layout.peersOf(r)) {
      int32_t a = deviceOf(r), b = deviceOf(p);
      if (a == b || p < r || a < 0 || b < 0)
        continue; // (a negative device: not on this host)
      std::pair<int32_t, int32_t> key(std::min(a, b), std::max(a, b));
      auto found = viaHost.find(key);
      if (found == viaHost.end()) {
        std::string pair = "GPU " + std::to_string(key.first) + " - GPU " +
                           std::to_string(key.second);
        bool can = false;
        if (Status s = canAccess(key.first, key.second, &can); !s.ok())
          return withContext(s, layout.name() + ": " + pair);
        bool host = !can;
        std::string why;
        if (topology) {
          int gpus = topology->gpusPerNode();
          if (key.first >= gpus || key.second >= gpus)
            return Status(ErrorCode::InvalidArgument,
                          layout.name() + ": " + pair + ": the topology '" +
                              topology->name() + "' has " +
                              std::to_string(gpus) +
                              " GPUs per node (CUDA device d is GPU d of its "
                              "first node)");
          bool throughCpu = false;
          std::string path =
              describePath(*topology,
                           topology->shortestPath(topology->gpu(key.first),
                                                  topology->gpu(key.second)),
                           &throughCpu);
          if (!throughCpu && !can)
            return Status(ErrorCode::Unsupported,
                          layout.name() + ": " + pair + ": the topology '" +
                              topology->name() +
                              "' gives them a peer-to-peer path (" + path +
                              ") but the driver denies peer access "
                              "(cuDeviceCanAccessPeer): the topology file "
                              "does not describe this machine, or peer "
                              "access is off (IOMMU, a VM)");
          host = throughCpu;
          why = host ? "host memory (the topology's path " + path +
                           " crosses a CPU)"
                     : "peer access (the topology's path " + path + ")";
        } else {
          why = host ? "host memory (the driver denies peer access)"
                     : "peer access (the driver allows it)";
        }
        choice->lines.push_back(pair + ": " + why);
        found = viaHost.emplace(key, host).first;
      }
      if (found->second)
        choice->hostLinks.emplace_back(r, p);
    }
  return Status::success();
}

} // namespace dev
} // namespace collrt
