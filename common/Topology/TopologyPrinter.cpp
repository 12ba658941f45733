//===- TopologyPrinter.cpp - the human summary of a topology --------------===//
#include "common/Topology/Topology.h"

#include <iomanip>
#include <map>
#include <sstream>

namespace collc::topo {
namespace {

std::string number(double value) {
  std::ostringstream os;
  os << std::setprecision(6) << value;
  return os.str();
}

std::string gigabytes(double bytesPerSecond) {
  return number(bytesPerSecond / 1e9) + " GB/s";
}

std::string microseconds(double seconds) {
  return number(seconds * 1e6) + " us";
}

/// "A" when every node says A, else "A (nodes 0-5); B (nodes 6-7)" in
/// first-seen order.
template <typename Fn>
std::string perNode(const Topology &topology, Fn describe) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int n = 0; n < topology.numNodes(); ++n) {
    std::string text = describe(topology.node(n));
    auto it = groups.begin();
    while (it != groups.end() && it->first != text)
      ++it;
    if (it == groups.end())
      groups.push_back({text, {n}});
    else
      it->second.push_back(n);
  }
  if (groups.size() == 1)
    return groups[0].first;
  std::string out;
  for (const auto &[text, nodes] : groups)
    out += (out.empty() ? "" : "; ") + text + " (" +
           std::to_string(nodes.size()) + " node" +
           (nodes.size() == 1 ? "" : "s") + ")";
  return out;
}

std::string describeModel(const GpuModel &model) {
  std::string text =
      model.name + ", " + number(model.memoryBytes / 1073741824.0) + " GiB, " +
      gigabytes(model.memoryBandwidth) +
      (model.channelBandwidth > 0
           ? " (" + gigabytes(model.channelBandwidth) + " per channel)"
           : "") +
      ", peak TFLOPS";
  bool first = true;
  for (const char *dtype : {"f64", "f32", "tf32", "bf16", "f16", "f8", "i8"}) {
    auto it = model.peakFlops.find(dtype);
    if (it == model.peakFlops.end())
      continue;
    text += std::string(first ? " " : ", ") + dtype + " " +
            number(it->second / 1e12);
    first = false;
  }
  return text;
}

} // namespace

void Topology::print(std::ostream &os) const {
  const int width = 14;
  auto row = [&](const char *label, const std::string &value) {
    os << "  " << std::left << std::setw(width) << label << value << "\n";
  };
  os << "topology " << name_ << "\n";
  row("nodes:", std::to_string(numNodes()) + " x " +
                    std::to_string(gpusPerNode()) +
                    " GPUs = " + std::to_string(numGpus()) + " GPUs");

  std::vector<int> modelsUsed;
  for (DeviceId id : gpuByRank_) {
    int model = devices_[id].gpuModel;
    bool seen = false;
    for (int used : modelsUsed)
      seen = seen || used == model;
    if (!seen)
      modelsUsed.push_back(model);
  }
  for (int model : modelsUsed)
    row("GPU model:", describeModel(gpuModels_[model]));
  row("NUMA nodes:", perNode(*this, [](const Node &node) {
        return std::to_string(node.numaNodes) + " per node";
      }));
  row("fabric:",
      perNode(*this, [](const Node &node) { return node.fabricSummary; }));
  row("NICs:", perNode(*this, [this](const Node &node) {
        if (node.nics.empty())
          return std::string("none");
        std::map<int, int> byType;
        for (DeviceId nic : node.nics)
          ++byType[devices_[nic].portType];
        std::string text = std::to_string(node.nics.size()) + " per node";
        for (const auto &[type, count] : byType)
          text += ", " + std::to_string(count) + " x " + linkTypes_[type].name +
                  " (" + gigabytes(linkTypes_[type].bandwidth) + ")";
        return text;
      }));
  row("network:", networkSummary_);

  std::map<DeviceKind, int> devicesByKind;
  for (const Device &device : devices_)
    ++devicesByKind[device.kind];
  std::string deviceText = std::to_string(devices_.size());
  const char *separator = ": ";
  for (const auto &[kind, count] : devicesByKind) {
    deviceText +=
        separator + std::to_string(count) + " " + deviceKindName(kind);
    separator = ", ";
  }
  row("devices:", deviceText);
  row("links:", std::to_string(links_.size()) + " directed");

  std::vector<int> linksOfType(linkTypes_.size(), 0);
  for (const Link &l : links_)
    ++linksOfType[l.type];
  os << "  link types:   (per lane, per direction)\n";
  std::size_t nameWidth = 4;
  for (const LinkType &type : linkTypes_)
    nameWidth = std::max(nameWidth, type.name.size());
  for (std::size_t t = 0; t < linkTypes_.size(); ++t) {
    const LinkType &type = linkTypes_[t];
    os << "    " << std::left << std::setw(static_cast<int>(nameWidth) + 2)
       << type.name << std::right << std::setw(12) << gigabytes(type.bandwidth)
       << std::setw(10) << microseconds(type.latency) << std::setw(8)
       << linksOfType[t] << " links\n";
  }
}

} // namespace collc::topo
