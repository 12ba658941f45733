//===- Sysfs.cpp - what sysfs says about a network device -----------------===//
#include "Sysfs.h"

#include <climits>
#include <cstdlib>
#include <fstream>

namespace collrt {
namespace net {

std::string readSysfsLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    return "";
  return line;
}

std::string sysfsPciPath(const std::string &classDir) {
  char resolved[PATH_MAX];
  std::string link = classDir + "/device";
  if (!::realpath(link.c_str(), resolved))
    return "";
  return resolved;
}

int sysfsNumaNode(const std::string &classDir) {
  std::string text = readSysfsLine(classDir + "/device/numa_node");
  if (text.empty())
    return -1;
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || value < 0 || value > INT_MAX)
    return -1;
  return static_cast<int>(value);
}

} // namespace net
} // namespace collrt
