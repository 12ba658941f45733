//===- TuningTest.cpp - the tuning file: read, write, merge, look up ------===//
#include "collrt/Tuning.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

using collc::sched::Collective;
using namespace collrt;

TuningEntry entry(Collective c, int32_t ranks, int64_t bytes,
                  std::vector<std::pair<std::string, double>> times) {
  TuningEntry e;
  e.collective = c;
  e.ranks = ranks;
  e.bytesPerRank = bytes;
  e.host = "h\"ost";
  e.transport = "shm";
  e.processes = true;
  e.buffers = "host";
  e.measured = "2026-11-30T10:00:00Z";
  e.rounds = 3;
  e.iters = 20;
  uint64_t fp = 1;
  for (auto &[name, seconds] : times)
    e.candidates.push_back({name, 4, fp++ * 0x1000000000001ull, seconds});
  return e;
}

std::string parseError(const std::string &text) {
  TuningTable table;
  Status s = tuningFromJson(text, "t.json", &table);
  return s.ok() ? "" : s.message();
}

TEST(TuningTest, RoundTripKeepsEveryField) {
  TuningTable table;
  addTuningEntry(table, entry(Collective::AllReduce, 4, 1 << 20,
                              {{"ring", 1e-3}, {"recursive_doubling", 2e-3}}));
  addTuningEntry(table,
                 entry(Collective::AllGather, 8, 4096, {{"direct", 5e-6}}));
  TuningTable back;
  Status s = tuningFromJson(tuningToJson(table), "t.json", &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.entries.size(), 2u);
  const TuningEntry &e = back.entries[0];
  EXPECT_EQ(e.collective, Collective::AllReduce);
  EXPECT_EQ(e.ranks, 4);
  EXPECT_EQ(e.bytesPerRank, 1 << 20);
  EXPECT_EQ(e.host, "h\"ost");
  EXPECT_EQ(e.transport, "shm");
  EXPECT_TRUE(e.processes);
  EXPECT_EQ(e.buffers, "host");
  EXPECT_EQ(e.rounds, 3);
  EXPECT_EQ(e.iters, 20);
  ASSERT_EQ(e.candidates.size(), 2u);
  EXPECT_EQ(e.candidates[1].algorithm, "recursive_doubling");
  EXPECT_EQ(e.candidates[1].chunksPerPart, 4u);
  EXPECT_EQ(e.candidates[1].fingerprint, 2 * 0x1000000000001ull);
  EXPECT_DOUBLE_EQ(e.candidates[1].seconds, 2e-3);
  EXPECT_EQ(tuningToJson(back), tuningToJson(table));
}

TEST(TuningTest, AddReplacesTheSameKeyAndKeepsOrder) {
  TuningTable table;
  addTuningEntry(table,
                 entry(Collective::AllReduce, 4, 1 << 20, {{"ring", 1}}));
  addTuningEntry(table, entry(Collective::AllReduce, 4, 4096, {{"ring", 1}}));
  addTuningEntry(table, entry(Collective::AllReduce, 2, 4096, {{"ring", 1}}));
  addTuningEntry(table,
                 entry(Collective::AllReduce, 4, 1 << 20, {{"one_shot", 0.5}}));
  ASSERT_EQ(table.entries.size(), 3u);
  EXPECT_EQ(table.entries[0].ranks, 2);
  EXPECT_EQ(table.entries[1].bytesPerRank, 4096);
  EXPECT_EQ(table.entries[2].candidates[0].algorithm, "one_shot");
  // Another reduction is another entry; for all_gather it does not count.
  TuningEntry max = entry(Collective::AllReduce, 4, 4096, {{"ring", 1}});
  max.reduction = ReduceOp::Max;
  addTuningEntry(table, max);
  EXPECT_EQ(table.entries.size(), 4u);
  addTuningEntry(table, entry(Collective::AllGather, 4, 4096, {{"ring", 1}}));
  TuningEntry ag = entry(Collective::AllGather, 4, 4096, {{"direct", 1}});
  ag.reduction = ReduceOp::Max;
  addTuningEntry(table, ag);
  EXPECT_EQ(table.entries.size(), 5u);
  EXPECT_EQ(tuningEntriesFor(table, Collective::AllGather, 4, DataType::F32,
                             ReduceOp::Sum)
                .front()
                ->candidates[0]
                .algorithm,
            "direct");
  EXPECT_EQ(tuningEntriesFor(table, Collective::AllReduce, 4, DataType::F32,
                             ReduceOp::Sum)
                .size(),
            2u);
  EXPECT_TRUE(tuningEntriesFor(table, Collective::AllReduce, 4, DataType::BF16,
                               ReduceOp::Sum)
                  .empty());
}

TEST(TuningTest, NearestSizeWithinAFactorOfTwo) {
  TuningTable table;
  for (int64_t b : {4096, 65536, 1 << 20})
    addTuningEntry(table, entry(Collective::AllReduce, 4, b, {{"ring", 1}}));
  auto entries = tuningEntriesFor(table, Collective::AllReduce, 4,
                                  DataType::F32, ReduceOp::Sum);
  auto at = [&](int64_t b) {
    const TuningEntry *e = nearestTuningEntry(entries, b);
    return e ? e->bytesPerRank : -1;
  };
  EXPECT_EQ(at(4096), 4096);
  EXPECT_EQ(at(2048), 4096);
  EXPECT_EQ(at(2047), -1);
  EXPECT_EQ(at(2 << 20), 1 << 20);
  EXPECT_EQ(at((2 << 20) + 1), -1);
  EXPECT_EQ(at(16384), 4096); // 4x from both: the smaller
  EXPECT_EQ(at(16385), 65536);
  EXPECT_EQ(at(200000), 65536);
  EXPECT_EQ(at(300000), 1 << 20);
  EXPECT_EQ(nearestTuningEntry({}, 4096), nullptr);
}

TEST(TuningTest, RejectsWithThePathAndTheRule) {
  TuningTable table;
  addTuningEntry(table, entry(Collective::AllReduce, 4, 4096,
                              {{"ring", 1e-3}, {"rd", 2e-3}}));
  std::string good = tuningToJson(table);
  auto edit = [&](const std::string &from, const std::string &to) {
    std::string text = good;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_EQ(parseError(good), "");
  EXPECT_NE(parseError("{").find("t.json: not JSON: parse error at line 1"),
            std::string::npos)
      << parseError("{");
  EXPECT_EQ(parseError("[]"),
            "t.json: (the document): a tuning file is a JSON object");
  EXPECT_EQ(parseError(edit("collc-tuning", "collc-plan")),
            "t.json: format: must be \"collc-tuning\"");
  EXPECT_EQ(parseError(edit("\"version\": 1", "\"version\": 2")),
            "t.json: version: must be 1 (the version this collc reads)");
  EXPECT_EQ(parseError(edit("\"version\": 1", "\"version\": 1, \"x\": 1")),
            "t.json: x: unknown key");
  EXPECT_EQ(
      parseError(edit("all_reduce", "all_reduced")),
      "t.json: entries[0].collective: unknown collective \"all_reduced\"");
  EXPECT_NE(parseError(edit("all_reduce", "all_to_all_v"))
                .find("entries[0].collective: all_to_all_v is not tuned"),
            std::string::npos);
  EXPECT_EQ(parseError(edit("\"ranks\": 4", "\"ranks\": 0")),
            "t.json: entries[0].ranks: must be from 1 to 1048576");
  EXPECT_EQ(parseError(edit("\"ranks\": 4", "\"ranks\": \"4\"")),
            "t.json: entries[0].ranks: must be an integer");
  EXPECT_EQ(parseError(edit("\"f32\"", "\"f31\"")),
            "t.json: entries[0].dtype: unknown element type \"f31\"");
  EXPECT_EQ(parseError(edit("\"sum\"", "\"add\"")),
            "t.json: entries[0].reduction: unknown reduction \"add\"");
  EXPECT_EQ(parseError(edit("\"processes\": true", "\"processes\": 1")),
            "t.json: entries[0].processes: must be true or false");
  EXPECT_EQ(parseError(edit("\"buffers\": \"host\"", "\"buffers\": \"gpu\"")),
            "t.json: entries[0].buffers: must be \"malloc\", \"host\" or "
            "\"device\"");
  {
    // A file written before collc-run had host buffers: malloc.
    TuningTable old;
    ASSERT_TRUE(
        tuningFromJson(edit("\"buffers\": \"host\", ", ""), "t.json", &old)
            .ok());
    EXPECT_EQ(old.entries[0].buffers, "malloc");
  }
  EXPECT_EQ(parseError(edit("\"host\": \"h\\\"ost\", ", "")),
            "t.json: entries[0].host: is missing");
  EXPECT_EQ(parseError(edit("\"seconds\": 0.001", "\"seconds\": 0")),
            "t.json: entries[0].candidates[0].seconds: must be a number > 0");
  EXPECT_EQ(parseError(edit("\"seconds\": 0.002", "\"seconds\": 0.0005")),
            "t.json: entries[0].candidates[1].seconds: candidates must be in "
            "order of time, fastest first");
  EXPECT_EQ(parseError(edit("0x0001000000000001", "0x1")),
            "t.json: entries[0].candidates[0].fingerprint: must be \"0x\" and "
            "16 hexadecimal digits");
  EXPECT_EQ(parseError(edit("0x0002000000000002", "0x0001000000000001")),
            "t.json: entries[0].candidates[1].fingerprint: the same program "
            "as an earlier candidate (ring k=4)");
  EXPECT_EQ(parseError(edit("\"algorithm\": \"ring\"", "\"algorithm\": \"\"")),
            "t.json: entries[0].candidates[0].algorithm: must not be empty");
  EXPECT_EQ(
      parseError(edit("\"candidates\": [", "\"candidates\": [], \"c\": [")),
      "t.json: entries[0].c: unknown key");
  // The same measurement twice.
  TuningTable twice = table;
  twice.entries.push_back(table.entries[0]);
  EXPECT_EQ(parseError(tuningToJson(twice)),
            "t.json: entries[1]: measures the same collective, group size, "
            "type, reduction and size as an earlier entry");
}

TEST(TuningTest, MissingFileIsASystemError) {
  TuningTable table;
  Status s = loadTuningFile("/nonexistent/t.json", &table);
  EXPECT_EQ(s.code(), ErrorCode::SystemError);
  EXPECT_EQ(s.message(), "cannot read tuning file '/nonexistent/t.json': No "
                         "such file or directory");
}

TEST(TuningTest, FingerprintSeesEveryPartOfTheProgram) {
  using namespace collc::sched;
  Program p;
  p.algorithm = "ring";
  p.collective = Collective::AllReduce;
  p.numRanks = 2;
  p.chunksPerPart = 1;
  p.buffers = {1, 1, 0};
  p.ranks.resize(2);
  for (auto &rank : p.ranks) {
    rank.channels.resize(1);
    Instruction in;
    in.opcode = Opcode::Send;
    in.sendPeer = 1;
    in.src = {Buffer::Input, 0, 1};
    rank.channels[0].instructions.push_back(in);
  }
  uint64_t base = fingerprint(p);
  Program q = p;
  q.algorithm = "other name";
  EXPECT_EQ(fingerprint(q), base);
  std::vector<std::function<void(Program &)>> edits = {
      [](Program &x) { x.collective = Collective::AllGather; },
      [](Program &x) { x.numRanks = 3; },
      [](Program &x) { x.root = 0; },
      [](Program &x) { x.chunksPerPart = 2; },
      [](Program &x) { x.buffers.scratchChunks = 1; },
      [](Program &x) { x.ranks[1].channels[0].instructions[0].sendPeer = 0; },
      [](Program &x) { x.ranks[1].channels[0].instructions[0].src.count = 2; },
      [](Program &x) { x.ranks[1].channels[0].instructions[0].step = 1; },
      [](Program &x) {
        x.ranks[0].channels[0].instructions[0].opcode = Opcode::Recv;
      },
      [](Program &x) { x.ranks[0].channels.emplace_back(); },
      [](Program &x) {
        x.ranks[0].dependencies.push_back({0, 0});
        x.ranks[0].channels[0].instructions[0].depCount = 1;
      },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Program e = p;
    edits[i](e);
    EXPECT_NE(fingerprint(e), base) << "edit " << i;
  }
}

} // namespace
