//===- TopologyLoader.cpp - the loading entry points of Topology.h --------===//
//
// Reading, parsing and building throw internally; these entry points catch
// everything and return the error as one line of text.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonDocument.h"
#include "common/Topology/SpecError.h"
#include "common/Topology/Topology.h"
#include "common/Topology/TopologySpec.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

namespace collc::topo {

namespace fs = std::filesystem;

/// Larger files are refused before parsing; a real one is a few KiB.
constexpr std::size_t kMaxFileBytes = std::size_t(64) << 20;

LoadResult parseTopology(const std::string &text,
                         const std::string &sourceName) {
  LoadResult result;
  try {
    detail::Json root = detail::parseJsonStrict(text);
    detail::TopologySpec spec = detail::parseTopologySpec(root);
    result.topology = detail::buildTopology(spec);
  } catch (const detail::SyntaxError &error) {
    result.error = sourceName + ":" + std::to_string(error.line) + ":" +
                   std::to_string(error.column) + ": error: " + error.message;
  } catch (const detail::SpecError &error) {
    result.error = sourceName +
                   ": error: " + (error.path.empty() ? "(root)" : error.path) +
                   ": " + error.message;
  } catch (const std::bad_alloc &) {
    result.error = sourceName + ": error: out of memory loading the topology";
  } catch (const std::exception &error) {
    result.error = sourceName +
                   ": error: internal error loading the "
                   "topology: " +
                   error.what();
  } catch (...) {
    result.error = sourceName + ": error: internal error loading the topology";
  }
  if (!result.error.empty()) {
    result.topology.reset();
    result.error = detail::printable(result.error);
  }
  return result;
}

LoadResult loadTopologyFile(const std::string &path) {
  LoadResult result;
  try {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      result.error = detail::printable(path + ": error: is a directory, "
                                              "not a topology file");
      return result;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      result.error = detail::printable(
          path + ": error: cannot open: " + std::strerror(errno));
      return result;
    }
    std::string text;
    char buffer[65536];
    while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxFileBytes) {
        result.error =
            detail::printable(path + ": error: the file is larger than " +
                              std::to_string(kMaxFileBytes >> 20) + " MiB");
        return result;
      }
    }
    if (in.bad()) {
      result.error = detail::printable(
          path + ": error: cannot read: " + std::strerror(errno));
      return result;
    }
    return parseTopology(text, path);
  } catch (...) {
    result.topology.reset();
    result.error = detail::printable(path + ": error: cannot read the file");
    return result;
  }
}

std::optional<std::string>
resolveTopology(const std::string &nameOrPath,
                const std::vector<std::string> &searchDirs) {
  try {
    std::error_code ec;
    if (nameOrPath.empty())
      return std::nullopt;
    if (fs::is_regular_file(nameOrPath, ec))
      return nameOrPath;
    if (nameOrPath.find('/') != std::string::npos)
      return std::nullopt;
    std::vector<std::string> fileNames = {nameOrPath + ".json"};
    const std::string suffix = ".json";
    if (nameOrPath.size() > suffix.size() &&
        nameOrPath.compare(nameOrPath.size() - suffix.size(), suffix.size(),
                           suffix) == 0)
      fileNames.push_back(nameOrPath);
    for (const std::string &dir : searchDirs) {
      if (dir.empty())
        continue;
      for (const std::string &fileName : fileNames) {
        fs::path candidate = fs::path(dir) / fileName;
        if (fs::is_regular_file(candidate, ec))
          return candidate.string();
      }
    }
  } catch (...) {
  }
  return std::nullopt;
}

} // namespace collc::topo
