//===- JsonSyntaxTest.cpp - malformed, hostile and truncated JSON ---------===//
//
// Malformed JSON is reported as FILE:LINE:COL with nlohmann's message; a
// duplicate key or deep nesting is refused; no input crashes or throws.
//
//===----------------------------------------------------------------------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace collc::topo;
using namespace collc::topo::test;

namespace {

TEST(JsonSyntax, EmptyFile) {
  EXPECT_EQ(errorOf(std::string()),
            "t.json:1:1: error: syntax error while parsing value - unexpected "
            "end of input; expected '[', '{', or a literal");
}

TEST(JsonSyntax, MissingColonIsLocated) {
  EXPECT_EQ(errorOf(std::string("{\n  \"format_version\": 1,\n  \"name\" "
                                "\"x\"\n}\n")),
            "t.json:3:12: error: syntax error while parsing object separator "
            "- unexpected string literal; expected ':'");
}

TEST(JsonSyntax, TrailingCommaIsLocated) {
  EXPECT_EQ(errorOf(std::string("{\"name\": \"x\",\n}")),
            "t.json:2:1: error: syntax error while parsing object key - "
            "unexpected '}'; expected string literal");
}

TEST(JsonSyntax, TruncatedFile) {
  EXPECT_EQ(errorOf(std::string("{\"format_version\": 1, \"link_types\": {")),
            "t.json:1:38: error: syntax error while parsing object key - "
            "unexpected end of input; expected string literal");
}

TEST(JsonSyntax, TrailingGarbage) {
  EXPECT_EQ(errorOf(std::string("{}\n]")),
            "t.json:2:1: error: syntax error while parsing value - unexpected "
            "']'; expected end of input");
}

TEST(JsonSyntax, InvalidUtf8IsEscapedInTheMessage) {
  EXPECT_EQ(errorOf(std::string("{\"name\": \"\xff\"}")),
            "t.json:1:11: error: syntax error while parsing value - invalid "
            "string: ill-formed UTF-8 byte; last read: '\"\\xFF'");
}

TEST(JsonSyntax, NumberOverflow) {
  EXPECT_EQ(errorOf(std::string("{\"format_version\": 1e400}")),
            "t.json:1:24: error: number overflow parsing '1e400'");
}

TEST(JsonSyntax, NotJsonLiterals) {
  EXPECT_EQ(errorOf(std::string("{\"format_version\": NaN}")),
            "t.json:1:20: error: syntax error while parsing value - invalid "
            "literal; last read: '\"format_version\": N'");
  EXPECT_EQ(errorOf(std::string("// comment\n{}")),
            "t.json:1:1: error: syntax error while parsing value - invalid "
            "literal; last read: '/'");
}

TEST(JsonSyntax, DeepNestingIsRefused) {
  EXPECT_EQ(errorOf(std::string(65, '[') + std::string(65, ']')),
            "t.json:1:65: error: JSON nesting is deeper than 64 levels");
  // Far deeper than any stack could recurse: refused at the same place.
  EXPECT_EQ(errorOf("{\"a\": " + std::string(1000000, '[')),
            "t.json:1:70: error: JSON nesting is deeper than 64 levels");
  // 64 levels are fine as JSON (then rejected as a topology).
  EXPECT_EQ(errorOf(std::string(64, '[') + std::string(64, ']')),
            "t.json: error: (root): expected an object, got an array");
}

TEST(JsonSyntax, DuplicateKeys) {
  EXPECT_EQ(errorOf(std::string("{\"name\": \"a\", \"name\": \"b\"}")),
            "t.json: error: (root): duplicate key \"name\"");
  EXPECT_EQ(errorOf(std::string("{\"link_types\": {\"x\": {}, \"x\": {}}}")),
            "t.json: error: link_types: duplicate key \"x\"");
  EXPECT_EQ(
      errorOf(std::string(
          "{\"nodes\": [{\"name\": \"a\"}, {\"gpus\": 1, \"gpus\": 2}]}")),
      "t.json: error: nodes[1]: duplicate key \"gpus\"");
  EXPECT_EQ(errorOf(std::string("{\"a b\": {\"c\": 1, \"c\": 1}}")),
            "t.json: error: [\"a b\"]: duplicate key \"c\"");
}

TEST(JsonSyntax, RootMustBeAnObject) {
  EXPECT_EQ(errorOf(std::string("[]")),
            "t.json: error: (root): expected an object, got an array");
  EXPECT_EQ(errorOf(std::string("null")),
            "t.json: error: (root): expected an object, got null");
}

TEST(JsonSyntax, ControlCharactersAreEscaped) {
  std::string text = "{\"name\": \"a";
  text += '\x01';
  text += "\"}";
  std::string error = errorOf(text);
  EXPECT_EQ(error.find('\x01'), std::string::npos) << error;
  EXPECT_EQ(error.rfind("t.json:1:12: error: syntax error", 0), 0u) << error;
}

TEST(JsonSyntax, KeysAreQuotedInPaths) {
  nlohmann::json doc = miniTopology();
  doc["link_types"]["odd.name"] = {{"bandwidth_GBps", -1}, {"latency_us", 1}};
  EXPECT_EQ(errorOf(doc), "t.json: error: link_types[\"odd.name\"]."
                          "bandwidth_GBps: must be a positive number, got -1");
}

/// The text of a bundled file.
std::string bundledText(const std::string &name) {
  std::ifstream in(std::string(COLLC_TOPOLOGIES_DIR) + "/" + name + ".json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(JsonSyntax, EveryTruncationIsAnError) {
  std::string text = bundledText("dgx1-v100");
  ASSERT_FALSE(text.empty());
  // The last byte is a newline: dropping it changes nothing.
  for (std::size_t length = 0; length + 1 < text.size(); ++length) {
    LoadResult result = parseTopology(text.substr(0, length), "t.json");
    ASSERT_EQ(result.topology, nullptr) << length;
    ASSERT_NE(result.error.find("error: "), std::string::npos) << length;
  }
}

TEST(JsonSyntax, MutationsNeverCrash) {
  const std::string tokens[] = {
      "{",    "}",     "[",        "]",
      ":",    ",",     "\"",       "0",
      "-1",   "1e400", "9",        "null",
      "\xff", "[[[[",  "\"gpus\"", "99999999999999999999"};
  std::mt19937 random(7);
  for (const char *name : {"dgx8x8", "pcie-2numa", "torus4x4"}) {
    std::string original = bundledText(name);
    for (int round = 0; round < 300; ++round) {
      std::string text = original;
      for (int edit = 0; edit < 3; ++edit) {
        std::size_t at = random() % text.size();
        switch (random() % 3) {
        case 0:
          text.erase(at, random() % 12);
          break;
        case 1:
          text.insert(at, tokens[random() % std::size(tokens)]);
          break;
        default:
          text[at] = static_cast<char>(random() % 256);
        }
        if (text.empty())
          text = "{";
      }
      LoadResult result = parseTopology(text, "t.json");
      EXPECT_EQ(result.topology == nullptr, !result.error.empty());
    }
  }
}

} // namespace
