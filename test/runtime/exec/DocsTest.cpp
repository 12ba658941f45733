//===- DocsTest.cpp - docs/runtime.md shows the example that is tested ----===//
//
// The page's code block after "<!-- example: FILE -->" must be FILE as it
// is; FILE itself is built and run by the test collrt.docs.threads_all_reduce.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DocsTest, ExampleIsTheTestedFile) {
  std::string root = COLLRT_SOURCE_ROOT;
  std::string page = readFile(root + "/docs/runtime.md");
  const std::string file = "docs/examples/runtime/threads_all_reduce.cpp";
  std::string marker = "<!-- example: " + file + " -->\n```cpp\n";
  size_t begin = page.find(marker);
  ASSERT_NE(begin, std::string::npos) << "docs/runtime.md lacks " << marker;
  begin += marker.size();
  size_t end = page.find("```\n", begin);
  ASSERT_NE(end, std::string::npos);
  std::string example = readFile(root + "/" + file);
  ASSERT_FALSE(example.empty());
  EXPECT_EQ(page.substr(begin, end - begin), example)
      << "docs/runtime.md's example differs from " << file;
}

} // namespace
