//===- JsonAccess.cpp - typed, path-aware reads of JSON values ------------===//
#include "common/Topology/JsonAccess.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace collc::topo::detail {

void fail(const std::string &path, const std::string &message) {
  throw SpecError{path, message};
}

static bool isPlainKey(const std::string &key) {
  if (key.empty())
    return false;
  for (char c : key) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '$';
    if (!plain)
      return false;
  }
  return true;
}

std::string childPath(const std::string &path, const std::string &key) {
  if (!isPlainKey(key))
    return path + "[" + quote(key) + "]";
  return path.empty() ? key : path + "." + key;
}

std::string indexPath(const std::string &path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return printable(out + "\"");
}

std::string describeType(const Json &value) {
  switch (value.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
    return "an integer";
  case Json::value_t::number_float:
    return "a number";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  default:
    return "binary data";
  }
}

std::string formatNumber(double value) {
  std::ostringstream os;
  os.precision(10);
  os << value;
  return os.str();
}

/// The number in `value` as written in messages.
static std::string numberText(const Json &value) {
  if (value.is_number_unsigned())
    return std::to_string(value.get<uint64_t>());
  if (value.is_number_integer())
    return std::to_string(value.get<int64_t>());
  // A JSON number written with a fraction or an exponent: show that it is
  // not an integer even when its value is integral (2.0, not 2).
  double number = value.get<double>();
  std::string text = formatNumber(number);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string readString(const Json &value, const std::string &path) {
  if (!value.is_string())
    fail(path, "expected a string, got " + describeType(value));
  return value.get<std::string>();
}

std::string readName(const Json &value, const std::string &path) {
  std::string name = readString(value, path);
  if (name.empty())
    fail(path, "must not be empty");
  return name;
}

bool readBool(const Json &value, const std::string &path) {
  if (!value.is_boolean())
    fail(path, "expected a boolean, got " + describeType(value));
  return value.get<bool>();
}

int64_t readInteger(const Json &value, const std::string &path, int64_t min,
                    int64_t max) {
  bool unbounded = min <= -std::numeric_limits<int64_t>::max() &&
                   max == std::numeric_limits<int64_t>::max();
  std::string range = unbounded ? ", got "
                                : " from " + std::to_string(min) + " to " +
                                      std::to_string(max) + ", got ";
  if (value.is_number_float())
    fail(path, "must be an integer" + range + numberText(value));
  if (!value.is_number())
    fail(path, "expected an integer, got " + describeType(value));
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    fail(path, "must be an integer" + range + numberText(value));
  int64_t number = value.get<int64_t>();
  if (number < min || number > max)
    fail(path, "must be an integer" + range + numberText(value));
  return number;
}

double readPositive(const Json &value, const std::string &path) {
  if (!value.is_number())
    fail(path, "expected a number, got " + describeType(value));
  double number = value.get<double>();
  if (!std::isfinite(number) || number <= 0)
    fail(path, "must be a positive number, got " + numberText(value));
  return number;
}

double readAtLeast(const Json &value, const std::string &path, double min) {
  if (!value.is_number())
    fail(path, "expected a number, got " + describeType(value));
  double number = value.get<double>();
  if (!std::isfinite(number) || number < min)
    fail(path, "must be a number >= " + formatNumber(min) + ", got " +
                   numberText(value));
  return number;
}

const Json::array_t &readArray(const Json &value, const std::string &path) {
  if (!value.is_array())
    fail(path, "expected an array, got " + describeType(value));
  return value.get_ref<const Json::array_t &>();
}

const Json::object_t &readObject(const Json &value, const std::string &path) {
  if (!value.is_object())
    fail(path, "expected an object, got " + describeType(value));
  return value.get_ref<const Json::object_t &>();
}

std::string readTypeTag(const Json::object_t &object, const std::string &path) {
  auto typeIt = object.find("type");
  if (typeIt == object.end())
    fail(path, "missing required key \"type\"");
  return readString(typeIt->second, childPath(path, "type"));
}

ObjectReader::ObjectReader(const Json &value, std::string path,
                           std::initializer_list<const char *> allowed)
    : object_(&readObject(value, path)), path_(std::move(path)) {
  checkKeys(std::vector<std::string>(allowed.begin(), allowed.end()), "");
}

ObjectReader::ObjectReader(const Json &value, std::string path,
                           const std::vector<std::string> &allowed,
                           const std::string &context)
    : object_(&readObject(value, path)), path_(std::move(path)) {
  checkKeys(allowed, context);
}

void ObjectReader::checkKeys(const std::vector<std::string> &allowed,
                             const std::string &context) const {
  for (const auto &entry : *object_) {
    bool known = false;
    for (const std::string &key : allowed)
      known = known || key == entry.first;
    if (known)
      continue;
    std::string list;
    for (const std::string &key : allowed)
      list += (list.empty() ? "" : ", ") + key;
    fail(path_, "unknown key " + quote(entry.first) +
                    (context.empty() ? "" : " " + context) +
                    " (allowed: " + list + ")");
  }
}

std::string ObjectReader::pathOf(const std::string &key) const {
  return childPath(path_, key);
}

bool ObjectReader::has(const std::string &key) const {
  return object_->count(key) != 0;
}

const Json &ObjectReader::required(const std::string &key) const {
  auto it = object_->find(key);
  if (it == object_->end())
    fail(path_, "missing required key " + quote(key));
  return it->second;
}

const Json *ObjectReader::optional(const std::string &key) const {
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &it->second;
}

std::string ObjectReader::string(const std::string &key) const {
  return readString(required(key), pathOf(key));
}

std::string ObjectReader::name(const std::string &key) const {
  return readName(required(key), pathOf(key));
}

int64_t ObjectReader::integer(const std::string &key, int64_t min,
                              int64_t max) const {
  return readInteger(required(key), pathOf(key), min, max);
}

double ObjectReader::positive(const std::string &key) const {
  return readPositive(required(key), pathOf(key));
}

int NameTable::lookup(const std::string &name, const std::string &path) const {
  auto it = index_.find(name);
  if (it != index_.end())
    return it->second;
  std::string defined;
  int listed = 0;
  for (const auto &entry : index_) {
    if (++listed > 20) {
      defined += ", ...";
      break;
    }
    defined += (defined.empty() ? "" : ", ") + entry.first;
  }
  fail(path, "unknown " + what_ + " " + quote(name) + "; " + definedAt_ +
                 (defined.empty() ? " defines none" : " defines: " + defined));
}

int NameTable::read(const Json &value, const std::string &path) const {
  return lookup(readString(value, path), path);
}

} // namespace collc::topo::detail
