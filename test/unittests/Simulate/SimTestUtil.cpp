//===- SimTestUtil.cpp - hand-built programs and topologies for sim tests -===//
#include "SimTestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace collc::sim::testing {

Program makeProgram(Collective collective, int32_t numRanks,
                    uint32_t chunksPerPart) {
  Program program;
  program.algorithm = "test";
  program.collective = collective;
  program.numRanks = numRanks;
  program.chunksPerPart = chunksPerPart;
  uint32_t k = chunksPerPart, nk = k * uint32_t(numRanks);
  bool wideIn = collective == Collective::ReduceScatter ||
                collective == Collective::Scatter ||
                collective == Collective::AllToAll;
  bool wideOut = collective == Collective::AllGather ||
                 collective == Collective::Gather ||
                 collective == Collective::AllToAll;
  program.buffers.inputChunks = wideIn ? nk : k;
  program.buffers.outputChunks = wideOut ? nk : k;
  program.ranks.resize(size_t(numRanks));
  return program;
}

uint32_t add(Program &program, int32_t rank, uint32_t channel,
             const Instruction &instruction) {
  auto &channels = program.ranks[size_t(rank)].channels;
  if (channels.size() <= channel)
    channels.resize(channel + 1);
  channels[channel].instructions.push_back(instruction);
  return uint32_t(channels[channel].instructions.size() - 1);
}

Program ringAllReduce(int32_t n, uint32_t m) {
  Program program = makeProgram(Collective::AllReduce, n, uint32_t(n) * m);
  program.algorithm = "ring";
  auto segment = [&](int32_t s) { return uint32_t(((s % n) + n) % n) * m; };
  for (int32_t r = 0; r < n; ++r) {
    int32_t next = (r + 1) % n, prev = (r + n - 1) % n;
    add(program, r, 0, send(next, input(segment(r), m), 0));
    for (int32_t s = 1; s < n - 1; ++s)
      add(program, r, 0,
          make(Opcode::RecvReduceSend, prev, next, input(segment(r - s), m), {},
               s));
    uint32_t full = segment(r + 1);
    add(program, r, 0,
        make(Opcode::RecvReduceCopySend, prev, next, input(full, m),
             output(full, m), n - 1));
    for (int32_t t = 1; t < n - 1; ++t)
      add(program, r, 0,
          make(Opcode::RecvCopySend, prev, next, {},
               output(segment(r + 1 - t), m), n - 1 + t));
    add(program, r, 0, recv(prev, output(segment(r + 2 - n), m), 2 * n - 2));
  }
  return program;
}

Program directAllToAll(int32_t n) {
  Program program = makeProgram(Collective::AllToAll, n, 1);
  program.algorithm = "direct";
  for (int32_t r = 0; r < n; ++r) {
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = (r + i) % n;
      add(program, r, 0, send(peer, input(uint32_t(peer)), i));
    }
    for (int32_t i = 1; i < n; ++i) {
      int32_t peer = (r + n - i) % n;
      add(program, r, 0, recv(peer, output(uint32_t(peer)), n - 1 + i));
    }
    add(program, r, 1, copy(input(uint32_t(r)), output(uint32_t(r)), 0));
  }
  return program;
}

Program concurrentAllToAll(int32_t n) {
  Program program = makeProgram(Collective::AllToAll, n, 1);
  program.algorithm = "direct-concurrent";
  for (int32_t r = 0; r < n; ++r) {
    for (int32_t i = 1; i < n; ++i) {
      int32_t to = (r + i) % n, from = (r + n - i) % n;
      add(program, r, uint32_t(i - 1), send(to, input(uint32_t(to)), 1));
      add(program, r, uint32_t(i - 1), recv(from, output(uint32_t(from)), 2));
    }
    add(program, r, uint32_t(n - 1),
        copy(input(uint32_t(r)), output(uint32_t(r)), 0));
  }
  return program;
}

Program binomialBroadcast(int32_t n) {
  Program program = makeProgram(Collective::Broadcast, n, 1);
  program.algorithm = "binomial";
  program.root = 0;
  int32_t steps = 0;
  while ((1 << steps) < n)
    ++steps;
  for (int32_t j = 0; j < steps; ++j)
    add(program, 0, 0, send(1 << j, input(0), j));
  add(program, 0, 1, copy(input(0), output(0), 0));
  for (int32_t r = 1; r < n; ++r) {
    int32_t h = 0;
    while ((2 << h) <= r)
      ++h;
    int32_t parent = r - (1 << h);
    bool forwarded = false;
    for (int32_t j = h + 1; j < steps; ++j) {
      int32_t child = r + (1 << j);
      if (child >= n)
        break;
      if (!forwarded)
        add(program, r, 0,
            make(Opcode::RecvCopySend, parent, child, {}, output(0), h));
      else
        add(program, r, 0, send(child, output(0), j));
      forwarded = true;
    }
    if (!forwarded)
      add(program, r, 0, recv(parent, output(0), h));
  }
  return program;
}

std::unique_ptr<topo::Topology> parse(const std::string &json) {
  topo::LoadResult result = topo::parseTopology(json, "test.json");
  if (!result.error.empty())
    ADD_FAILURE() << result.error << "\n" << json;
  return std::move(result.topology);
}

std::unique_ptr<topo::Topology> loadBundled(const std::string &name) {
  topo::LoadResult result = topo::loadTopologyFile(
      std::string(COLLC_TOPOLOGIES_DIR) + "/" + name + ".json");
  if (!result.error.empty())
    ADD_FAILURE() << result.error;
  return std::move(result.topology);
}

static std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string oneNodeTopology(int gpus, const std::string &fabric, double gbps,
                            double latencyUs, double memoryGbps) {
  return R"({"format_version": 1, "name": "test",
  "link_types": {"l": {"bandwidth_GBps": )" +
         number(gbps) + R"(, "latency_us": )" + number(latencyUs) + R"(}},
  "gpu_models": {"g": {"memory_GiB": 80, "memory_bandwidth_GBps": )" +
         number(memoryGbps) + R"(, "peak_TFLOPS": {"bf16": 1000}}},
  "node_templates": {"t": {"numa_nodes": 1,
    "gpus": {"count": )" +
         std::to_string(gpus) + R"(, "model": "g", "numa": 0},
    "fabric": )" +
         fabric + R"(}},
  "nodes": {"count": 1, "template": "t"},
  "network": {"type": "none"}})";
}

std::string ringTopology(int n, double gbps, double latencyUs,
                         double memoryGbps) {
  return oneNodeTopology(n,
                         R"({"type": "torus", "link_type": "l", "lanes": 1,
                             "dims": [)" +
                             std::to_string(n) + R"(], "wraparound": true})",
                         gbps, latencyUs, memoryGbps);
}

std::string switchTopology(int n, double gbps, double latencyUs,
                           double memoryGbps) {
  return oneNodeTopology(
      n, R"({"type": "nvswitch", "link_type": "l", "lanes": 1})", gbps,
      latencyUs, memoryGbps);
}

std::string meshTopology(int n, const std::string &links, double gbps,
                         double latencyUs, double memoryGbps) {
  return oneNodeTopology(
      n, R"({"type": "mesh", "link_type": "l", "links": )" + links + "}", gbps,
      latencyUs, memoryGbps);
}

std::vector<int> identity(int n) {
  std::vector<int> ranks(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    ranks[size_t(r)] = r;
  return ranks;
}

double endOf(const SimResult &result, const Program &program, int32_t rank,
             uint32_t channel, uint32_t index) {
  size_t id = 0;
  for (int32_t r = 0; r < rank; ++r)
    for (const auto &c : program.ranks[size_t(r)].channels)
      id += c.instructions.size();
  for (uint32_t c = 0; c < channel; ++c)
    id += program.ranks[size_t(rank)].channels[c].instructions.size();
  return result.timeline.at(id + index).end;
}

} // namespace collc::sim::testing
