//===- Topology.h - the machine a collective runs on ------------*- C++ -*-===//
//
// An explicit graph of devices (GPUs, NVSwitches, PCIe switches, CPUs, NICs,
// network switches) and directed links, loaded from a topology JSON file
// (docs/topology.md), with the queries the lowering and the simulator need.
// Plain C++17: no LLVM or MLIR, so the runtime can reuse it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_TOPOLOGY_H
#define COLLC_COMMON_TOPOLOGY_TOPOLOGY_H

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace collc::topo {

/// Index of a device in Topology::devices().
using DeviceId = int;
/// Index of a link in Topology::links().
using LinkId = int;

/// What a device is.
enum class DeviceKind { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, NetworkSwitch };
/// "GPU", "NVSwitch", "PCIe switch", "CPU", "NIC" or "network switch".
const char *deviceKindName(DeviceKind kind);

/// What a link carries: the intra-node GPU fabric (NVLink, xGMI, torus), the
/// PCIe tree, the CPU-CPU inter-socket link, or the inter-node network.
enum class LinkKind { Fabric, Pcie, InterSocket, Network };
/// "fabric", "PCIe", "inter-socket" or "network".
const char *linkKindName(LinkKind kind);

/// The intra-node GPU fabric of a node.
enum class FabricKind { NvSwitch, Mesh, Torus, Pcie };
/// The inter-node network.
enum class NetworkKind { None, RailOptimized, FatTree };

/// One entry of the file's "link_types" table: one lane of a link.
struct LinkType {
  std::string name;
  double bandwidth = 0; ///< Bytes per second per direction, per lane.
  double latency = 0;   ///< Seconds.
  std::string description;
};

/// One entry of the file's "gpu_models" table.
struct GpuModel {
  std::string name;
  double memoryBytes = 0;
  double memoryBandwidth = 0; ///< Bytes per second.
  /// Bytes per second one thread block (a schedule's channel) reads and
  /// writes: what one channel of this GPU can move, counted as memory
  /// traffic (a copy of B bytes is 2B: read and written; a send of B is B
  /// read here and B written at the peer). 0: not given (channels are not
  /// capped). "channel_bandwidth_GBps" in the file.
  double channelBandwidth = 0;
  /// Dense peak FLOP/s per dtype ("f64", "f32", "tf32", "bf16", "f16", "f8",
  /// "i8"); only the dtypes the file gives.
  std::map<std::string, double> peakFlops;
  std::string description;
};

/// A device of the graph.
struct Device {
  DeviceKind kind = DeviceKind::Gpu;
  /// Unique, e.g. "node3/gpu5", "node3/pex0", "node3/nic5", "rail5".
  std::string name;
  /// The node the device belongs to; -1 for network switches.
  int node = -1;
  /// Index among the devices of its kind in its node (a GPU's local index, a
  /// NIC's position in "nics"), or among the network switches.
  int index = 0;
  /// NUMA node (CPU socket) of a GPU, CPU, PCIe switch or NIC; else -1.
  int numa = -1;
  /// GPU only: its rank (node * gpusPerNode + local index).
  int rank = -1;
  /// GPU only: index into Topology::gpuModels().
  int gpuModel = -1;
  /// GPU only: the NIC it uses (GPU-NIC affinity), or -1.
  DeviceId nic = -1;
  /// NIC only: the link type of its network port (index into linkTypes()).
  int portType = -1;
};

/// A directed link. Every link has a reverse twin with the same figures.
struct Link {
  DeviceId src = -1;
  DeviceId dst = -1;
  LinkKind kind = LinkKind::Fabric;
  int type = -1; ///< Index into Topology::linkTypes().
  int lanes = 1; ///< Parallel lanes of the link type bundled in the link.
  double bandwidth = 0; ///< Bytes per second in this direction (all lanes).
  double latency = 0;   ///< Seconds.
  LinkId reverse = -1;  ///< The link from dst to src.
};

/// A node (server) of the topology.
struct Node {
  std::string name;
  FabricKind fabric = FabricKind::Pcie;
  std::string fabricSummary; ///< e.g. "nvswitch, nvlink4 x18 per GPU".
  int numaNodes = 1;
  std::vector<DeviceId> gpus; ///< By local index.
  std::vector<DeviceId> nics; ///< In file order.
  std::vector<DeviceId> cpus; ///< By NUMA node; empty without a "pcie" tree.
  std::vector<DeviceId> pcieSwitches;
  DeviceId nvSwitch = -1;
  std::vector<DeviceId> devices; ///< All the devices of the node.
};

/// The device/link graph and its queries. Built only by the loader; immutable
/// once loaded. Arguments named `rank` are GPU ranks in [0, numGpus());
/// arguments named `device` are DeviceIds. Out-of-range arguments are
/// programming errors (checked by assert).
class Topology {
public:
  const std::string &name() const { return name_; }
  const std::string &description() const { return description_; }

  /// Counts. Every node has the same number of GPUs.
  int numGpus() const { return static_cast<int>(gpuByRank_.size()); }
  int numNodes() const { return static_cast<int>(nodes_.size()); }
  int gpusPerNode() const { return gpusPerNode_; }

  /// The GPU device of a rank; ranks are node-major.
  DeviceId gpu(int rank) const;
  /// The node a rank runs on: rank / gpusPerNode().
  int nodeOf(int rank) const;

  const std::vector<Device> &devices() const { return devices_; }
  const Device &device(DeviceId device) const;
  const std::vector<Link> &links() const { return links_; }
  const Link &link(LinkId link) const;
  /// The links leaving a device, by increasing LinkId.
  const std::vector<LinkId> &linksFrom(DeviceId device) const;
  const std::vector<LinkType> &linkTypes() const { return linkTypes_; }
  const std::vector<GpuModel> &gpuModels() const { return gpuModels_; }
  const Node &node(int node) const;
  NetworkKind networkKind() const { return networkKind_; }
  /// e.g. "rail-optimized, 8 rail switches, no spine".
  const std::string &networkSummary() const { return networkSummary_; }

  /// The path from `from` to `to` with the least total latency, ties broken
  /// by fewer links (then deterministically); empty when from == to or when
  /// `to` cannot be reached.
  std::vector<LinkId> shortestPath(DeviceId from, DeviceId to) const;
  /// Sum of the latencies of the links of a path, in seconds.
  double pathLatency(const std::vector<LinkId> &path) const;
  /// Widest path: the maximum over all paths of the smallest link bandwidth
  /// on the path (bytes/s). Infinity when from == to, 0 when unreachable.
  double bottleneckBandwidth(DeviceId from, DeviceId to) const;
  /// Sum of the bandwidth of the links from the devices of `node` to devices
  /// outside it (bytes/s).
  double egressBandwidth(int node) const;
  /// Sum of the bandwidth of the links from a device in `set` to a device not
  /// in it (bytes/s). Duplicates in `set` are ignored.
  double cutBandwidth(const std::vector<DeviceId> &set) const;
  /// The NIC a rank's GPU uses (its affinity in the file), if it has one.
  /// Every GPU of a multi-node topology has one.
  std::optional<DeviceId> nicOf(int rank) const;
  /// NUMA node (CPU socket) of a rank's GPU.
  int gpuNuma(int rank) const;
  const GpuModel &gpuModel(int rank) const;
  /// Dense peak FLOP/s of a rank's GPU for `dtype` ("bf16", "f32", ...), if
  /// the file gives it.
  std::optional<double> gpuPeakFlops(int rank, const std::string &dtype) const;
  /// Memory bandwidth of a rank's GPU, bytes/s.
  double gpuMemoryBandwidth(int rank) const;

  /// A human summary: name, nodes, GPUs per node, GPU model, fabric, NICs,
  /// network, device and link counts, and per link type its bandwidth,
  /// latency and number of links.
  void print(std::ostream &os) const;

private:
  friend class TopologyBuilder;

  std::string name_;
  std::string description_;
  std::vector<LinkType> linkTypes_;
  std::vector<GpuModel> gpuModels_;
  std::vector<Node> nodes_;
  std::vector<Device> devices_;
  std::vector<Link> links_;
  std::vector<std::vector<LinkId>> linksFrom_;
  std::vector<DeviceId> gpuByRank_;
  int gpusPerNode_ = 0;
  NetworkKind networkKind_ = NetworkKind::None;
  std::string networkSummary_;
};

/// The outcome of loading a topology: a topology, or an error.
struct LoadResult {
  std::unique_ptr<Topology> topology;
  /// Empty on success. Otherwise one line, either
  /// `FILE:LINE:COL: error: MESSAGE` (malformed JSON) or
  /// `FILE: error: JSON.PATH: MESSAGE` (a rule of the format broken).
  std::string error;
};

/// Reads and parses a topology file. Never throws.
LoadResult loadTopologyFile(const std::string &path);

/// Parses topology JSON text; `sourceName` is the FILE of error messages.
/// Never throws.
LoadResult parseTopology(const std::string &text,
                         const std::string &sourceName);

/// `nameOrPath` if it is an existing file; otherwise, for a bare NAME (no
/// '/'), DIR/NAME.json in the first of `searchDirs` that has it (also
/// DIR/NAME when NAME already ends in ".json"); otherwise nothing.
std::optional<std::string>
resolveTopology(const std::string &nameOrPath,
                const std::vector<std::string> &searchDirs);

} // namespace collc::topo

#endif // COLLC_COMMON_TOPOLOGY_TOPOLOGY_H
