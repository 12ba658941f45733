//===- DeviceDocsTest.cpp - docs/gpu-runtime.md shows the tested example --===//
//
// The page's code block after "<!-- example: FILE -->" must be FILE as it
// is; FILE itself is built and run by the test collrt.docs.emulate_ring.
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

TEST(DeviceDocsTest, ExampleIsTheTestedFile) {
  std::string root = COLLRT_SOURCE_ROOT;
  std::string page = readFile(root + "/docs/gpu-runtime.md");
  const std::string file = "docs/examples/device/emulate_ring.cpp";
  std::string marker = "<!-- example: " + file + " -->\n```cpp\n";
  size_t begin = page.find(marker);
  ASSERT_NE(begin, std::string::npos) << "docs/gpu-runtime.md lacks " << marker;
  begin += marker.size();
  size_t end = page.find("```\n", begin);
  ASSERT_NE(end, std::string::npos);
  std::string example = readFile(root + "/" + file);
  ASSERT_FALSE(example.empty());
  EXPECT_EQ(page.substr(begin, end - begin), example)
      << "docs/gpu-runtime.md's example differs from " << file;
}

} // namespace
