//===- SpecError.h - errors raised while loading a topology -----*- C++ -*-===//
//
// Internal to the loader: parsing and building throw these, and the public
// entry points (Topology.h) catch them and turn them into the error string,
// so no exception ever leaves the library.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_SPECERROR_H
#define COLLC_COMMON_TOPOLOGY_SPECERROR_H

#include <cstddef>
#include <string>

namespace collc::topo::detail {

/// Malformed JSON, located by line and column (1-based, in bytes).
struct SyntaxError {
  std::size_t line = 1;
  std::size_t column = 1;
  std::string message;
};

/// A rule of the topology format broken at a JSON path ("" is the root).
struct SpecError {
  std::string path;
  std::string message;
};

/// Throws SpecError{path, message}.
[[noreturn]] void fail(const std::string &path, const std::string &message);

} // namespace collc::topo::detail

#endif // COLLC_COMMON_TOPOLOGY_SPECERROR_H
