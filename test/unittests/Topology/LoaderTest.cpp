//===- LoaderTest.cpp - files, search directories and the summary ---------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace collc::topo;
using namespace collc::topo::test;

namespace {

const std::string kBundled = COLLC_TOPOLOGIES_DIR;

TEST(Loader, MissingFile) {
  LoadResult result = loadTopologyFile("/nonexistent/topo.json");
  EXPECT_EQ(result.topology, nullptr);
  EXPECT_EQ(result.error, "/nonexistent/topo.json: error: cannot open: No "
                          "such file or directory");
}

TEST(Loader, Directory) {
  LoadResult result = loadTopologyFile(kBundled);
  EXPECT_EQ(result.topology, nullptr);
  EXPECT_EQ(result.error,
            kBundled + ": error: is a directory, not a topology file");
}

TEST(Loader, SourceNameInMessages) {
  EXPECT_EQ(parseTopology("{", "my/file.json").error,
            "my/file.json:1:2: error: syntax error while parsing object key - "
            "unexpected end of input; expected string literal");
}

TEST(Loader, ResolveTopology) {
  // A bare name is looked up as DIR/NAME.json, in the first dir that has it.
  EXPECT_EQ(resolveTopology("dgx8x8", {"/nonexistent", kBundled}),
            kBundled + "/dgx8x8.json");
  EXPECT_EQ(resolveTopology("dgx8x8.json", {kBundled}),
            kBundled + "/dgx8x8.json");
  // A path that exists is used as it is.
  std::string path = kBundled + "/torus4x4.json";
  EXPECT_EQ(resolveTopology(path, {}), path);
  EXPECT_FALSE(resolveTopology("no-such-machine", {kBundled}).has_value());
  EXPECT_FALSE(resolveTopology("", {kBundled}).has_value());
  // Names never walk out of the search directories.
  EXPECT_FALSE(resolveTopology("../topologies/dgx8x8", {kBundled}));
  // A directory is not a topology.
  EXPECT_FALSE(resolveTopology(kBundled, {}).has_value());
}

TEST(Loader, PrintSummary) {
  auto t = loadBundled("dgx8x8");
  ASSERT_TRUE(t);
  std::ostringstream os;
  t->print(os);
  EXPECT_EQ(os.str(),
            "topology dgx8x8\n"
            "  nodes:        8 x 8 GPUs = 64 GPUs\n"
            "  GPU model:    H100-SXM5-80GB, 80 GiB, 3350 GB/s, peak TFLOPS "
            "f64 67, f32 67, tf32 494.5, bf16 989.5, f16 989.5, f8 1979, i8 "
            "1979\n"
            "  NUMA nodes:   2 per node\n"
            "  fabric:       nvswitch, nvlink4 x18 per GPU (450 GB/s per "
            "direction)\n"
            "  NICs:         8 per node, 8 x cx7_ndr400 (50 GB/s)\n"
            "  network:      rail-optimized, 8 rail switches, no spine\n"
            "  devices:      192: 64 GPU, 8 NVSwitch, 32 PCIe switch, 16 CPU, "
            "64 NIC, 8 network switch\n"
            "  links:        592 directed\n"
            "  link types:   (per lane, per direction)\n"
            "    cx7_ndr400       50 GB/s   1.35 us     128 links\n"
            "    nvlink4          25 GB/s    0.3 us     128 links\n"
            "    pcie5_x16        64 GB/s    0.5 us     320 links\n"
            "    upi_16gt         32 GB/s    0.5 us      16 links\n");
}

TEST(Loader, PrintMixedNodes) {
  auto t = loadInput("explicit-fat-tree.json");
  ASSERT_TRUE(t);
  std::ostringstream os;
  t->print(os);
  std::string text = os.str();
  EXPECT_NE(text.find("  NUMA nodes:   1 per node (3 nodes); 2 per node (1 "
                      "node)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  network:      fat-tree, 2 leaf switches of up to 2 "
                      "nodes, oversubscription 2:1, core switch over hdr200 "
                      "uplinks\n"),
            std::string::npos)
      << text;
}

} // namespace
