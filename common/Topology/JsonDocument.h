//===- JsonDocument.h - strict JSON parsing for topology files --*- C++ -*-===//
//
// Parses JSON text into an nlohmann::json value, stricter than nlohmann's
// own parse: a duplicate key in an object is an error (nlohmann keeps the
// last one silently), nesting is limited, and syntax errors carry a line and
// column computed from the byte offset.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_JSONDOCUMENT_H
#define COLLC_COMMON_TOPOLOGY_JSONDOCUMENT_H

#include <nlohmann/json.hpp>

#include <string>

namespace collc::topo::detail {

using Json = nlohmann::json;

/// Deepest nesting of arrays and objects accepted; the format needs ~6.
constexpr int kMaxJsonDepth = 64;

/// Parses `text` as one JSON value. Throws SyntaxError for malformed JSON or
/// nesting deeper than kMaxJsonDepth, SpecError for a duplicate key.
Json parseJsonStrict(const std::string &text);

/// Line and column (1-based; the column counts bytes) of the byte at
/// `offset` (0-based) in `text`; an offset past the end is located just after
/// the last byte.
void locateOffset(const std::string &text, std::size_t offset,
                  std::size_t &line, std::size_t &column);

/// `text` with control characters and bytes that are not valid UTF-8 written
/// as \xNN escapes, so that an error message stays printable.
std::string printable(const std::string &text);

} // namespace collc::topo::detail

#endif // COLLC_COMMON_TOPOLOGY_JSONDOCUMENT_H
