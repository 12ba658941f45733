//===- DocsTest.cpp - docs/topology.md stays true -------------------------===//
//
// The JSON examples of docs/topology.md are verbatim excerpts of files that
// load; its error examples and its --dump-topology output are what the
// library gives for those files.
//
//===----------------------------------------------------------------------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace collc::topo;
using namespace collc::topo::test;

namespace {

const std::string kRepo = COLLC_TOPOLOGY_REPO_DIR;

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The blocks that follow `<!-- MARKER: PATH -->` in the doc: (PATH, body).
/// A fenced block's body is between the fences; an indented block's body is
/// its lines without the 4-space indent.
std::vector<std::pair<std::string, std::string>>
blocksAfter(const std::string &doc, const std::string &marker) {
  std::vector<std::pair<std::string, std::string>> blocks;
  std::string open = "<!-- " + marker + ": ";
  for (std::size_t at = doc.find(open); at != std::string::npos;
       at = doc.find(open, at + 1)) {
    std::size_t pathStart = at + open.size();
    std::size_t pathEnd = doc.find(" -->", pathStart);
    std::string path = doc.substr(pathStart, pathEnd - pathStart);
    std::size_t line = doc.find('\n', pathEnd) + 1;
    while (doc.compare(line, 1, "\n") == 0)
      ++line;
    std::string body;
    if (doc.compare(line, 3, "```") == 0) {
      std::size_t start = doc.find('\n', line) + 1;
      std::size_t end = doc.find("\n```", start - 1);
      body = doc.substr(start, end + 1 - start);
    } else {
      while (doc.compare(line, 4, "    ") == 0) {
        std::size_t next = doc.find('\n', line) + 1;
        body += doc.substr(line + 4, next - line - 4);
        line = next;
      }
    }
    blocks.emplace_back(path, body);
  }
  return blocks;
}

const std::string &doc() {
  static const std::string text = readFile(kRepo + "/docs/topology.md");
  return text;
}

TEST(Docs, JsonExamplesAreExcerptsOfFilesThatLoad) {
  auto blocks = blocksAfter(doc(), "example");
  EXPECT_GE(blocks.size(), 5u);
  for (const auto &[path, body] : blocks) {
    std::string file = readFile(kRepo + "/" + path);
    EXPECT_NE(file.find(body), std::string::npos)
        << path << " does not contain:\n"
        << body;
    LoadResult result = loadTopologyFile(kRepo + "/" + path);
    EXPECT_EQ(result.error, "") << path;
  }
}

TEST(Docs, ErrorExamplesAreTheErrors) {
  auto blocks = blocksAfter(doc(), "error");
  EXPECT_GE(blocks.size(), 2u);
  for (const auto &[path, body] : blocks) {
    std::string error = loadTopologyFile(kRepo + "/" + path).error;
    ASSERT_EQ(error.rfind(kRepo + "/", 0), 0u) << error;
    EXPECT_EQ(error.substr(kRepo.size() + 1) + "\n", body);
  }
}

TEST(Docs, SummaryExampleIsThePrintout) {
  auto blocks = blocksAfter(doc(), "summary");
  ASSERT_EQ(blocks.size(), 1u);
  LoadResult result = loadTopologyFile(kRepo + "/" + blocks[0].first);
  ASSERT_TRUE(result.topology) << result.error;
  std::ostringstream os;
  result.topology->print(os);
  EXPECT_EQ(os.str(), blocks[0].second);
}

} // namespace
