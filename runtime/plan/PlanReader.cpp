//===- PlanReader.cpp - parse a plan in one pass --------------------------===//
//
// A SAX handler builds the JSON tree of everything but the instruction
// streams, and decodes each instruction as soon as its array closes (see
// PlanDocument.h). Syntax errors are reported at a line and column.
//
//===----------------------------------------------------------------------===//
#include "PlanDocument.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace collrt {

namespace sched = collc::sched;

namespace detail {
namespace {

/// Deeper nesting is never a plan (a plan nests 11 levels).
constexpr size_t kMaxDepth = 64;

class PlanSax : public nlohmann::json_sax<Json> {
public:
  explicit PlanSax(PlanDocument &document) : document(document) {}

  bool failed = false;
  PlanError error;
  bool syntaxError = false;
  size_t errorPosition = 0;
  std::string errorMessage;

  bool null() override { return scalar(Json(nullptr)); }
  bool boolean(bool value) override { return scalar(Json(value)); }
  bool number_integer(number_integer_t value) override {
    return scalar(Json(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return scalar(Json(value));
  }
  bool number_float(number_float_t value, const string_t &) override {
    return scalar(Json(value));
  }
  bool string(string_t &value) override {
    return scalar(Json(std::move(value)));
  }
  bool binary(binary_t &value) override {
    return scalar(Json::binary(std::move(value)));
  }
  bool start_object(size_t) override { return open(Json::object()); }
  bool start_array(size_t) override { return open(Json::array()); }
  bool key(string_t &key) override {
    Frame &top = stack.back();
    if (top.value->contains(key))
      return fail(path(), "duplicate key \"" + key + "\"");
    top.key = key;
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(size_t position, const std::string &,
                   const nlohmann::detail::exception &exception) override {
    syntaxError = true;
    errorPosition = position;
    errorMessage = exception.what();
    return false;
  }

private:
  struct Frame {
    Json *value;
    std::string part; ///< ".name" or "[i]": where it is in its parent
    std::string key;  ///< objects: the key of the value being parsed
    bool instructions = false;
    Json *slot = nullptr; ///< instructions: the placeholder's place
  };

  bool fail(std::string where, std::string rule) {
    failed = true;
    error = {std::move(where), std::move(rule)};
    return false;
  }

  std::string path() const {
    std::string text = "$";
    for (size_t i = 1; i < stack.size(); ++i)
      text += stack[i].part;
    return text;
  }

  /// Where the next value goes, as a path part.
  std::string nextPart() const {
    const Frame &top = stack.back();
    if (top.instructions)
      return "[" +
             std::to_string(document.channels.back().instructions.size()) + "]";
    if (top.value->is_array())
      return "[" + std::to_string(top.value->size()) + "]";
    return "." + top.key;
  }

  Json *place(Json &&value) {
    if (stack.empty()) {
      document.root = std::move(value);
      return &document.root;
    }
    Frame &top = stack.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(value));
      return &top.value->back();
    }
    Json &slot = (*top.value)[top.key];
    slot = std::move(value);
    return &slot;
  }

  /// Decodes the element just completed in an open instructions array.
  bool decodeElement() {
    Frame &top = stack.back();
    DecodedChannel &channel = document.channels.back();
    if (!document.hasDeferredError) {
      try {
        decodeInstruction(top.value->back(), channel);
      } catch (const PlanError &e) {
        document.hasDeferredError = true;
        document.deferredError = {
            path() + "[" + std::to_string(channel.instructions.size()) + "]" +
                e.path,
            e.rule};
      }
    }
    top.value->clear();
    return true;
  }

  bool scalar(Json &&value) {
    place(std::move(value));
    if (!stack.empty() && stack.back().instructions)
      return decodeElement();
    return true;
  }

  bool isInstructionsArray() const {
    // $.collectives[c].program.ranks[r].channels[h].instructions
    return stack.size() == 8 && stack[7].key == "instructions" &&
           stack[7].value->is_object() && stack[1].part == ".collectives" &&
           stack[3].part == ".program" && stack[4].part == ".ranks" &&
           stack[6].part == ".channels";
  }

  bool open(Json &&container) {
    if (stack.size() >= kMaxDepth)
      return fail(path(), "the JSON nests deeper than " +
                              std::to_string(kMaxDepth) +
                              " levels; a plan nests 11");
    std::string part = stack.empty() ? "" : nextPart();
    if (container.is_array() && isInstructionsArray()) {
      Json *slot = place(Json(nullptr));
      document.channels.emplace_back();
      stack.push_back({&scratch, std::move(part), "", true, slot});
      return true;
    }
    Json *value = place(std::move(container));
    stack.push_back({value, std::move(part), "", false, nullptr});
    return true;
  }

  bool close() {
    Frame frame = stack.back();
    stack.pop_back();
    if (frame.instructions) {
      *frame.slot = Json::binary(Json::binary_t::container_type{},
                                 document.channels.size() - 1);
      scratch = Json::array();
      return true;
    }
    if (!stack.empty() && stack.back().instructions)
      return decodeElement();
    return true;
  }

  PlanDocument &document;
  std::vector<Frame> stack;
  /// The element of the open instructions array being parsed.
  Json scratch = Json::array();
};

void locate(const std::string &text, size_t offset, size_t &line,
            size_t &column) {
  line = 1;
  size_t lineStart = 0;
  offset = std::min(offset, text.size());
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  column = offset - lineStart + 1;
}

/// nlohmann's message without its "[json.exception...] parse error at line
/// L, column C: " prefix (we give the position ourselves).
std::string syntaxMessage(const std::string &what) {
  size_t at = what.find("syntax error");
  if (at != std::string::npos)
    return what.substr(at);
  at = what.find("] ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

} // namespace

bool parsePlanDocument(const std::string &text, PlanDocument *document,
                       std::string *error) {
  PlanSax sax(*document);
  bool ok = Json::sax_parse(text, &sax, Json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  if (sax.failed)
    throw sax.error;
  if (sax.syntaxError || !ok) {
    size_t line, column;
    size_t position = sax.errorPosition;
    locate(text, position == 0 ? 0 : position - 1, line, column);
    *error = std::to_string(line) + ":" + std::to_string(column) + ": " +
             (sax.errorMessage.empty() ? std::string("malformed JSON")
                                       : syntaxMessage(sax.errorMessage));
    return false;
  }
  return true;
}

} // namespace detail

Status planFromJson(const std::string &text, const std::string &sourceName,
                    Plan *plan) {
  detail::PlanDocument document;
  Plan result;
  try {
    std::string syntax;
    if (!detail::parsePlanDocument(text, &document, &syntax)) {
      bool truncated = syntax.find("end of input") != std::string::npos;
      return Status(ErrorCode::InvalidPlan,
                    sourceName + ":" + syntax +
                        (truncated ? " (the plan ends early: a truncated or "
                                     "partly written file?)"
                                   : " (the plan is not valid JSON)"));
    }
    detail::validatePlan(document, &result);
  } catch (const detail::PlanError &error) {
    return Status(ErrorCode::InvalidPlan,
                  sourceName + ": " + error.path + ": " + error.rule);
  }
  *plan = std::move(result);
  return Status::success();
}

Status loadPlanFile(const std::string &path, Plan *plan) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    return Status(ErrorCode::SystemError,
                  "cannot open plan '" + path + "': " + std::strerror(errno));
  // Read in one piece: plans of 1024 ranks are hundreds of megabytes.
  std::streamoff size = in.tellg();
  std::string text(size > 0 ? size_t(size) : 0, '\0');
  in.seekg(0);
  if (size < 0 || !in.read(text.data(), std::streamsize(text.size())))
    return Status(ErrorCode::SystemError,
                  "cannot read plan '" + path + "': " + std::strerror(errno));
  return planFromJson(text, path, plan);
}

int planVersionNeeded(const Plan &plan) {
  for (const PlanCollective &collective : plan.collectives)
    if (sendCountsAtRunTime(collective))
      return 2;
  return 1;
}

int32_t groupRankOf(const PlanCollective &collective, int32_t worldRank) {
  for (const std::vector<int32_t> &group : collective.groups)
    for (size_t i = 0; i < group.size(); ++i)
      if (group[i] == worldRank)
        return static_cast<int32_t>(i);
  return -1;
}

Status checkCollectiveIndex(const Plan &plan, size_t index) {
  if (index < plan.collectives.size())
    return Status::success();
  return Status(ErrorCode::InvalidArgument,
                "collective index " + std::to_string(index) +
                    " is out of range: the plan has " +
                    std::to_string(plan.collectives.size()) + " collective(s)");
}

Status checkPlanWorld(const Plan &plan, int32_t worldSize) {
  if (plan.worldSize == worldSize)
    return Status::success();
  return Status(ErrorCode::PlanMismatch,
                "the plan is for a world of " + std::to_string(plan.worldSize) +
                    " ranks, but this world has " + std::to_string(worldSize) +
                    " ranks; compile a plan for " + std::to_string(worldSize) +
                    " ranks (collc --emit=plan with a topology of that many "
                    "GPUs)");
}

} // namespace collrt
