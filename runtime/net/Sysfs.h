//===- Sysfs.h - what sysfs says about a network device ---------*- C++ -*-===//
#ifndef COLLRT_NET_SYSFS_H
#define COLLRT_NET_SYSFS_H

#include <string>

namespace collrt {
namespace net {

/// The first line of a sysfs file; "" when it cannot be read.
std::string readSysfsLine(const std::string &path);
/// The PCI device behind `classDir` (e.g. /sys/class/net/eth0,
/// /sys/class/infiniband/mlx5_0): the resolved path of its "device" link,
/// or "" (virtual devices have none).
std::string sysfsPciPath(const std::string &classDir);
/// The NUMA node of that device, or -1 (unknown or no NUMA).
int sysfsNumaNode(const std::string &classDir);

} // namespace net
} // namespace collrt

#endif
