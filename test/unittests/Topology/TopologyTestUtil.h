//===- TopologyTestUtil.h - helpers of the topology unit tests --*- C++ -*-===//
#ifndef COLLC_TEST_UNITTESTS_TOPOLOGY_TOPOLOGYTESTUTIL_H
#define COLLC_TEST_UNITTESTS_TOPOLOGY_TOPOLOGYTESTUTIL_H

#include "common/Topology/Topology.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace collc::topo::test {

constexpr double GBps = 1e9; ///< Bytes per second.
constexpr double us = 1e-6;  ///< Seconds.

/// Loads topologies/NAME.json; nullptr (and a test failure) on error.
std::unique_ptr<Topology> loadBundled(const std::string &name);
/// Loads test/Topology/Inputs/NAME; nullptr (and a test failure) on error.
std::unique_ptr<Topology> loadInput(const std::string &name);
/// The error of loading test/Topology/Inputs/NAME ("" if it loads).
std::string inputError(const std::string &name);
/// Path of test/Topology/Inputs/NAME.
std::string inputPath(const std::string &name);

/// The device called `name`; -1 (and a test failure) if there is none.
DeviceId deviceNamed(const Topology &topology, const std::string &name);
/// The name of a device ("" for a missing NIC).
std::string nameOf(const Topology &topology, std::optional<DeviceId> device);
/// Devices visited by a path, "a > b > c".
std::string describePath(const Topology &topology,
                         const std::vector<LinkId> &path);
/// Every device whose name starts with `prefix` ("node0/" is a node).
std::vector<DeviceId> devicesNamed(const Topology &topology,
                                   const std::string &prefix);

/// A small valid topology (2 nodes of 4 GPUs on an NVSwitch, 2 NUMA nodes,
/// 2 PCIe switches, 2 NICs, rail network) that rejection tests break.
nlohmann::json miniTopology();
/// The error of parsing `doc` as "t.json" ("" if it loads).
std::string errorOf(const nlohmann::json &doc);
/// The error of parsing `text` as "t.json" ("" if it loads).
std::string errorOf(const std::string &text);

} // namespace collc::topo::test

#endif // COLLC_TEST_UNITTESTS_TOPOLOGY_TOPOLOGYTESTUTIL_H
