//===- JsonAccess.h - typed, path-aware reads of JSON values ----*- C++ -*-===//
//
// Every read names the JSON path of the value it reads, so that a broken rule
// becomes `nodes[0].nics[3].gpus[0]: GPU 9 does not exist ...`. Reads throw
// SpecError; the loader's entry points catch it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_JSONACCESS_H
#define COLLC_COMMON_TOPOLOGY_JSONACCESS_H

#include "common/Topology/JsonDocument.h"
#include "common/Topology/SpecError.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace collc::topo::detail {

/// `path.key`, or `path["key"]` when the key is not a plain identifier.
std::string childPath(const std::string &path, const std::string &key);
/// `path[index]`.
std::string indexPath(const std::string &path, std::size_t index);
/// A string in double quotes, escaped so that it prints on one line.
std::string quote(const std::string &text);
/// "an object", "an array", "a string", "an integer", "a number", ...
std::string describeType(const Json &value);
/// A number as written in messages ("25", "0.3", "1e+20").
std::string formatNumber(double value);

/// Reads of single values; `path` names the value.
std::string readString(const Json &value, const std::string &path);
/// A non-empty string.
std::string readName(const Json &value, const std::string &path);
bool readBool(const Json &value, const std::string &path);
/// An integer in [min, max]; a number with a fraction is an error.
int64_t readInteger(const Json &value, const std::string &path, int64_t min,
                    int64_t max);
/// A finite number > 0.
double readPositive(const Json &value, const std::string &path);
/// A finite number >= min.
double readAtLeast(const Json &value, const std::string &path, double min);
/// Checks that `value` is an array and returns its elements.
const Json::array_t &readArray(const Json &value, const std::string &path);
/// Checks that `value` is an object and returns it.
const Json::object_t &readObject(const Json &value, const std::string &path);

/// The string under "type" of a tagged object (a fabric, a network), which
/// must be present.
std::string readTypeTag(const Json::object_t &object, const std::string &path);

/// An object whose keys have been checked against the allowed ones.
class ObjectReader {
public:
  /// Fails unless `value` is an object whose keys are all in `allowed`.
  ObjectReader(const Json &value, std::string path,
               std::initializer_list<const char *> allowed);
  /// As above, with `context` (e.g. `for fabric type "mesh"`) in the
  /// unknown-key message.
  ObjectReader(const Json &value, std::string path,
               const std::vector<std::string> &allowed,
               const std::string &context);

  const std::string &path() const { return path_; }
  std::string pathOf(const std::string &key) const;
  bool has(const std::string &key) const;
  /// The value of a key that must be present.
  const Json &required(const std::string &key) const;
  /// The value of a key, or nullptr.
  const Json *optional(const std::string &key) const;

  std::string string(const std::string &key) const;
  std::string name(const std::string &key) const;
  int64_t integer(const std::string &key, int64_t min, int64_t max) const;
  double positive(const std::string &key) const;

private:
  void checkKeys(const std::vector<std::string> &allowed,
                 const std::string &context) const;

  const Json::object_t *object_;
  std::string path_;
};

/// A table of names defined in the file ("link_types", "gpu_models",
/// "node_templates"), for checked references.
class NameTable {
public:
  /// `what` names the table in messages, e.g. "link type".
  NameTable(std::string what, std::string definedAt)
      : what_(std::move(what)), definedAt_(std::move(definedAt)) {}
  void add(const std::string &name) {
    index_.emplace(name, static_cast<int>(index_.size()));
  }
  /// The index of `name`, or a failure at `path` listing the defined names.
  int lookup(const std::string &name, const std::string &path) const;
  /// Reads a string at `path` and looks it up.
  int read(const Json &value, const std::string &path) const;

private:
  std::string what_;
  std::string definedAt_;
  std::map<std::string, int> index_;
};

} // namespace collc::topo::detail

#endif // COLLC_COMMON_TOPOLOGY_JSONACCESS_H
