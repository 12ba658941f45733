//===- JsonDocument.cpp - strict JSON parsing for topology files ----------===//
//
// A SAX handler that builds the DOM like nlohmann's own, but refuses
// duplicate keys and deep nesting and keeps the byte offset of a syntax
// error.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonDocument.h"
#include "common/Topology/JsonAccess.h"
#include "common/Topology/SpecError.h"

#include <cstdio>
#include <optional>

namespace collc::topo::detail {
namespace {

/// Builds a Json value from SAX events; stops at the first duplicate key,
/// the first container nested deeper than kMaxJsonDepth, or a syntax error.
class StrictDomBuilder : public nlohmann::json_sax<Json> {
public:
  Json root;
  bool tooDeep = false;
  std::optional<SpecError> duplicateKey;
  std::optional<std::size_t> errorPosition; ///< nlohmann's 1-based count.
  std::string errorMessage;

  bool null() override { return addScalar(Json(nullptr)); }
  bool boolean(bool value) override { return addScalar(Json(value)); }
  bool number_integer(number_integer_t value) override {
    return addScalar(Json(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return addScalar(Json(value));
  }
  bool number_float(number_float_t value, const string_t &) override {
    return addScalar(Json(value));
  }
  bool string(string_t &value) override {
    return addScalar(Json(std::move(value)));
  }
  bool binary(binary_t &value) override {
    return addScalar(Json::binary(std::move(value)));
  }
  bool start_object(std::size_t) override {
    return openContainer(Json::object());
  }
  bool key(string_t &key) override {
    Json &object = *stack_.back();
    if (object.contains(key)) {
      duplicateKey = SpecError{paths_.back(), "duplicate key " + quote(key)};
      return false;
    }
    pendingKey_ = key;
    slot_ = &object[key];
    return true;
  }
  bool end_object() override { return closeContainer(); }
  bool start_array(std::size_t) override {
    return openContainer(Json::array());
  }
  bool end_array() override { return closeContainer(); }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &error) override {
    errorPosition = position;
    errorMessage = error.what();
    return false;
  }

private:
  /// Puts a value where the parser is: the root, the end of the open array,
  /// or the slot of the last key of the open object.
  Json *place(Json &&value) {
    if (stack_.empty()) {
      root = std::move(value);
      return &root;
    }
    Json &top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(value));
      return &top.back();
    }
    *slot_ = std::move(value);
    return slot_;
  }
  bool addScalar(Json &&value) {
    place(std::move(value));
    return true;
  }
  bool openContainer(Json &&value) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      tooDeep = true;
      return false;
    }
    std::string path;
    if (!stack_.empty())
      path = stack_.back()->is_array()
                 ? indexPath(paths_.back(), stack_.back()->size())
                 : childPath(paths_.back(), pendingKey_);
    stack_.push_back(place(std::move(value)));
    paths_.push_back(std::move(path));
    return true;
  }
  bool closeContainer() {
    stack_.pop_back();
    paths_.pop_back();
    return true;
  }

  std::vector<Json *> stack_;      ///< Open containers, outermost first.
  std::vector<std::string> paths_; ///< JSON path of each open container.
  std::string pendingKey_;
  Json *slot_ = nullptr;
};

/// The 0-based offset of the bracket that opens nesting level
/// kMaxJsonDepth + 1 (the text before it is well-formed JSON).
std::size_t findTooDeepOffset(const std::string &text) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth)
        return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return text.size();
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse
/// error at line 1, column 2: " prefix (we give our own location).
std::string stripNlohmannPrefix(std::string message) {
  if (!message.empty() && message[0] == '[') {
    std::size_t end = message.find("] ");
    if (end != std::string::npos)
      message.erase(0, end + 2);
  }
  if (message.rfind("parse error", 0) == 0) {
    std::size_t colon = message.find(": ");
    if (colon != std::string::npos)
      message.erase(0, colon + 2);
  }
  return message;
}

/// Length of the valid UTF-8 sequence starting at text[i], or 0.
std::size_t utf8SequenceLength(const std::string &text, std::size_t i) {
  auto byte = [&](std::size_t k) {
    return static_cast<unsigned char>(text[k]);
  };
  unsigned char lead = byte(i);
  std::size_t length;
  unsigned char secondMin = 0x80, secondMax = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0)
      secondMin = 0xA0; // no overlong forms
    if (lead == 0xED)
      secondMax = 0x9F; // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0)
      secondMin = 0x90;
    if (lead == 0xF4)
      secondMax = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size())
    return 0;
  if (byte(i + 1) < secondMin || byte(i + 1) > secondMax)
    return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return length;
}

} // namespace

void locateOffset(const std::string &text, std::size_t offset,
                  std::size_t &line, std::size_t &column) {
  if (offset > text.size())
    offset = text.size();
  line = 1;
  std::size_t lineStart = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
  column = offset - lineStart + 1;
}

std::string printable(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (std::size_t length = utf8SequenceLength(text, i)) {
        out.append(text, i, length);
        i += length;
        continue;
      }
    }
    char escape[8];
    std::snprintf(escape, sizeof(escape), "\\x%02X", c);
    out += escape;
    ++i;
  }
  return out;
}

Json parseJsonStrict(const std::string &text) {
  StrictDomBuilder builder;
  bool ok = Json::sax_parse(text, &builder, Json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  if (builder.duplicateKey)
    throw *builder.duplicateKey;
  SyntaxError error;
  if (builder.tooDeep) {
    locateOffset(text, findTooDeepOffset(text), error.line, error.column);
    error.message = "JSON nesting is deeper than " +
                    std::to_string(kMaxJsonDepth) + " levels";
    throw error;
  }
  if (builder.errorPosition || !ok) {
    std::size_t position = builder.errorPosition.value_or(0);
    locateOffset(text, position == 0 ? 0 : position - 1, error.line,
                 error.column);
    error.message = builder.errorMessage.empty()
                        ? std::string("malformed JSON")
                        : stripNlohmannPrefix(builder.errorMessage);
    throw error;
  }
  return std::move(builder.root);
}

} // namespace collc::topo::detail
