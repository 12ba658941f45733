//===- PlanRejectTest.cpp - every rule of the plan format is enforced -----===//
//
// Each case breaks one rule of docs/plan-format.md in a golden plan and
// checks the reader's InvalidPlan error names the JSON path and the rule.
//
//===----------------------------------------------------------------------===//
#include "PlanTestUtil.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <functional>

using namespace collrt;
using namespace collrt::test;
using Json = nlohmann::json;

namespace {

const char *kRing = "plans/ring-all_reduce-3.plan.json";
const char *kV = "plans/direct-all_to_all_v-4.plan.json";
const char *kVRuntime = "plans/direct-all_to_all_v-runtime-4.plan.json";
const char *kBroadcast = "plans/binomial-broadcast-4.plan.json";

Json &program(Json &j) { return j["collectives"][0]["program"]; }
Json &rank(Json &j, int r) { return program(j)["ranks"][r]; }
Json &instruction(Json &j, int r, int c, int i) {
  return rank(j, r)["channels"][c]["instructions"][i];
}
Json &stream(Json &j, int r, int c) {
  return rank(j, r)["channels"][c]["instructions"];
}

const std::string kProgram = "$.collectives[0].program";
std::string at(int r, int c, int i) {
  return kProgram + ".ranks[" + std::to_string(r) + "].channels[" +
         std::to_string(c) + "].instructions[" + std::to_string(i) + "]";
}

struct Case {
  std::string name;
  const char *golden;
  std::function<void(Json &)> mutate;
  std::string path;
  std::string rule;
};

std::vector<Case> cases() {
  const std::string R0 = at(0, 0, 0);
  return {
      {"format", kRing, [](Json &j) { j["format"] = "nccl-plan"; }, "$.format",
       "this is not a collc plan"},
      {"no format", kRing, [](Json &j) { j.erase("format"); }, "$",
       "has no \"format\""},
      {"version", kRing, [](Json &j) { j["version"] = 3; }, "$.version",
       "is not supported: this reader reads versions 1 to 2"},
      {"version 0", kRing, [](Json &j) { j["version"] = 0; }, "$.version",
       "this reader reads versions 1 to 2"},
      {"version before a broken instruction", kRing,
       [](Json &j) {
         j["version"] = 3;
         instruction(j, 0, 0, 0) = "send";
       },
       "$.version", "is not supported"},
      {"world_size type", kRing, [](Json &j) { j["world_size"] = "3"; },
       "$.world_size", "must be an integer in [1, 1048576], not the string"},
      {"missing dtype", kRing,
       [](Json &j) { j["collectives"][0].erase("dtype"); }, "$.collectives[0]",
       "has no \"dtype\" (a required key)"},
      {"unknown key", kRing, [](Json &j) { program(j)["speed"] = 1; },
       kProgram + ".speed", "unknown key \"speed\" in a program"},
      {"dtype", kRing, [](Json &j) { j["collectives"][0]["dtype"] = "f128"; },
       "$.collectives[0].dtype", "unknown dtype \"f128\""},
      {"reduction", kRing,
       [](Json &j) { j["collectives"][0]["reduction"] = "mean"; },
       "$.collectives[0].reduction", "unknown reduction \"mean\""},
      {"elements_per_rank", kRing,
       [](Json &j) { j["collectives"][0]["elements_per_rank"] = -5; },
       "$.collectives[0].elements_per_rank", "must be an integer in [0,"},
      {"connection_slots", kRing,
       [](Json &j) { j["collectives"][0]["connection_slots"] = 0; },
       "$.collectives[0].connection_slots", "must be an integer in [1,"},
      {"collective", kRing,
       [](Json &j) { program(j)["collective"] = "allreduce"; },
       kProgram + ".collective", "unknown collective \"allreduce\""},
      {"num_ranks vs ranks", kRing,
       [](Json &j) { program(j)["num_ranks"] = 4; }, kProgram + ".ranks",
       "must hold num_ranks = 4 rank programs, not 3"},
      {"chunks_per_part", kRing,
       [](Json &j) { program(j)["chunks_per_part"] = 0; },
       kProgram + ".chunks_per_part", "must be an integer in [1,"},
      {"root of a broadcast", kBroadcast,
       [](Json &j) { program(j)["root"] = -1; }, kProgram + ".root",
       "a broadcast needs a root"},
      {"root out of range", kBroadcast, [](Json &j) { program(j)["root"] = 4; },
       kProgram + ".root", "must be an integer in [-1, 3]"},
      {"buffer chunks", kRing,
       [](Json &j) { program(j)["buffers"]["input"] = 4; },
       kProgram + ".buffers.input", "has 3 input chunks, not 4"},
      {"group rank outside the world", kRing,
       [](Json &j) { j["collectives"][0]["groups"][0][2] = 3; },
       "$.collectives[0].groups[0][2]",
       "a world rank (below world_size) must be an integer in [0, 2]"},
      {"group size", kRing,
       [](Json &j) { j["collectives"][0]["groups"][0] = {0, 1}; },
       "$.collectives[0].groups[0]", "must hold num_ranks = 3 world ranks"},
      {"groups overlap", kRing,
       [](Json &j) {
         j["world_size"] = 6;
         j["collectives"][0]["groups"] = {{0, 1, 2}, {2, 3, 4}};
       },
       "$.collectives[0].groups[1][0]",
       "world rank 2 is in groups 0 and 1; groups must be disjoint"},
      {"rank twice in a group", kRing,
       [](Json &j) { j["collectives"][0]["groups"][0] = {0, 1, 1}; },
       "$.collectives[0].groups[0][2]", "appears twice in group 0"},
      {"no groups", kRing,
       [](Json &j) { j["collectives"][0]["groups"] = Json::array(); },
       "$.collectives[0].groups", "at least one group"},
      {"opcode", kRing, [](Json &j) { instruction(j, 0, 0, 0)[0] = "put"; },
       R0 + "[0]", "the opcode must be one of send, recv,"},
      {"instruction arity", kRing,
       [](Json &j) { instruction(j, 0, 0, 0) = {"send", 0}; }, R0,
       "an instruction must be [opcode, step"},
      {"instruction type", kRing, [](Json &j) { instruction(j, 0, 0, 0) = 5; },
       R0, "not the number 5"},
      {"instructions type", kRing,
       [](Json &j) { rank(j, 0)["channels"][0]["instructions"] = 3; },
       kProgram + ".ranks[0].channels[0].instructions",
       "instructions must be an array of instructions"},
      {"chunk range outside the buffer", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[4] = {"input", 2, 2}; },
       R0 + "[4]", "src is input chunks [2, 4), but the input buffer has 3"},
      {"empty chunk range", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[4] = {"input", 0, 0}; },
       R0 + "[4]", "src is an empty range"},
      {"unknown buffer", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[4][0] = "inbox"; }, R0 + "[4][0]",
       "the buffer of src must be one of input, output, scratch"},
      {"src of an opcode without one", kRing,
       [](Json &j) { instruction(j, 0, 0, 4)[4] = {"input", 0, 1}; },
       at(0, 0, 4) + "[4]", "recv reads no src, so src must be null"},
      {"missing src", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[4] = nullptr; }, R0 + "[4]",
       "src must be a chunk range [buffer, index, count], not null"},
      {"src and dst sizes", kRing,
       [](Json &j) { instruction(j, 0, 0, 2)[5] = {"output", 1, 2}; },
       at(0, 0, 2), "reads 1 chunk but writes 2 chunks"},
      {"reduce fanin", kRing,
       [](Json &j) {
         instruction(j, 0, 0, 0) = {"reduce",
                                    0,
                                    -1,
                                    -1,
                                    Json::array({"input", 0, 3}),
                                    Json::array({"output", 0, 2})};
       },
       R0,
       "reduce reads 3 chunks but writes 2 chunks (a reduce reads a whole "
       "number of ranges of its destination's size, its fanin)"},
      {"peer out of range", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[2] = 5; }, R0 + "[2]",
       "send_peer 5 is outside the group's ranks 0..2"},
      {"peer is self", kRing, [](Json &j) { instruction(j, 0, 0, 0)[2] = 0; },
       R0 + "[2]", "send_peer is the rank itself (0)"},
      {"peer of an opcode that does not send", kRing,
       [](Json &j) { instruction(j, 0, 0, 4)[2] = 1; }, at(0, 0, 4) + "[2]",
       "recv does not send, so send_peer must be -1"},
      {"send without peer", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[2] = -1; }, R0 + "[2]",
       "send sends, so send_peer must be a rank, not -1"},
      {"dependency channel", kRing,
       [](Json &j) { instruction(j, 0, 0, 1).push_back({{5, 0}}); },
       at(0, 0, 1) + "[6][0]",
       "depends on channel 5, but rank 0 has 1 channel"},
      {"dependency instruction", kRing,
       [](Json &j) { instruction(j, 0, 0, 1).push_back({{0, 99}}); },
       at(0, 0, 1) + "[6][0]",
       "depends on instruction 99 of channel 0, "
       "which has 5 instructions"},
      {"dependency on itself", kRing,
       [](Json &j) { instruction(j, 0, 0, 2).push_back({{0, 2}}); },
       at(0, 0, 2) + "[6][0]", "the instruction depends on itself"},
      {"dependency on a later instruction", kRing,
       [](Json &j) { instruction(j, 0, 0, 2).push_back({{0, 3}}); },
       at(0, 0, 2) + "[6][0]", "of its own channel, which runs after it"},
      {"dependency shape", kRing,
       [](Json &j) { instruction(j, 0, 0, 2).push_back({0, 1}); },
       at(0, 0, 2) + "[6][0]", "a dependency must be [channel, instruction]"},
      {"send_counts shape", kV,
       [](Json &j) { program(j)["send_counts"].erase(15); },
       kProgram + ".send_counts", "needs 16 send counts"},
      {"negative send count", kV,
       [](Json &j) { program(j)["send_counts"][3] = -1; },
       kProgram + ".send_counts[3]", "must be an integer in [0,"},
      {"missing send_counts", kV,
       [](Json &j) { program(j).erase("send_counts"); }, kProgram,
       "an all_to_all_v needs \"send_counts\""},
      {"null send_counts in version 1", kV,
       [](Json &j) { program(j)["send_counts"] = nullptr; },
       kProgram + ".send_counts",
       "in plan format version 1; counts given at run time (null or "
       "omitted) need version 2"},
      {"run-time send_counts not an array", kVRuntime,
       [](Json &j) { program(j)["send_counts"] = "later"; },
       kProgram + ".send_counts", "send_counts must be an array"},
      {"run-time send_counts shape", kVRuntime,
       [](Json &j) { program(j)["send_counts"] = {1, 2, 3}; },
       kProgram + ".send_counts", "needs 16 send counts"},
      {"null send_counts elsewhere", kRing,
       [](Json &j) {
         j["version"] = 2;
         program(j)["send_counts"] = nullptr;
       },
       kProgram + ".send_counts", "applies to all_to_all_v only"},
      {"send_counts elsewhere", kRing,
       [](Json &j) { program(j)["send_counts"] = {1, 2, 3}; },
       kProgram + ".send_counts", "applies to all_to_all_v only"},
      {"connection message count", kRing,
       [](Json &j) { rank(j, 0)["connections"]["send"][0][2] = 5; },
       kProgram + ".ranks[0].connections.send[0][2]",
       "lists 5 messages to rank 1 on channel 0, but rank 0 sends 4"},
      {"connection missing", kRing,
       [](Json &j) { rank(j, 0)["connections"]["send"] = Json::array(); },
       kProgram + ".ranks[0].connections.send",
       "rank 0 sends 4 messages to rank 1 on channel 0, but the connection "
       "list does not have it"},
      {"connection not used", kRing,
       [](Json &j) { rank(j, 0)["connections"]["recv"].push_back({2, 1, 1}); },
       kProgram + ".ranks[0].connections.recv[1]",
       "lists a connection from rank 2 on channel 1, but rank 0 receives "
       "nothing from it there"},
      {"recv side missing", kRing,
       [](Json &j) {
         stream(j, 0, 0).erase(4);
         rank(j, 0)["connections"]["recv"][0][2] = 3;
       },
       at(2, 0, 3),
       "send #4 of rank 2 -> rank 0 on channel 0 has no recv: rank 2 sends 4 "
       "messages but rank 0 receives 3 (the recv side is missing)"},
      {"send side missing", kRing,
       [](Json &j) {
         stream(j, 2, 0).erase(0);
         rank(j, 2)["connections"]["send"][0][2] = 3;
       },
       at(0, 0, 4),
       "recv #4 of rank 2 -> rank 0 on channel 0 has no send: rank 0 "
       "receives 4 messages but rank 2 sends 3 (the send side is missing)"},
      {"message sizes differ", kRing,
       [](Json &j) { instruction(j, 0, 0, 0)[4] = {"input", 0, 2}; }, R0,
       "send #1 of rank 0 -> rank 1 on channel 0 carries 2 chunks, but the "
       "recv it meets, rank 1's recv #1 (" +
           at(1, 0, 1) + "), takes 1 chunk"},
  };
}

Status parse(const std::string &text, Plan *plan) {
  return planFromJson(text, "test.plan.json", plan);
}

} // namespace

TEST(PlanReject, EveryRuleNamesItsPathAndRule) {
  for (const Case &c : cases()) {
    SCOPED_TRACE(c.name);
    Json j = Json::parse(readInput(c.golden));
    // The golden plan itself is valid.
    Plan plan;
    ASSERT_TRUE(parse(j.dump(), &plan).ok());
    c.mutate(j);
    Status status = parse(j.dump(1), &plan);
    EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
    const std::string &message = status.message();
    EXPECT_EQ(message.rfind("test.plan.json: " + c.path + ": ", 0), 0u)
        << message;
    EXPECT_NE(message.find(c.rule), std::string::npos) << message;
  }
}

TEST(PlanReject, TruncatedFileGivesLineAndColumn) {
  std::string text = readInput(kRing);
  std::string cut = text.substr(0, text.size() / 2);
  size_t lines = size_t(std::count(cut.begin(), cut.end(), '\n'));
  size_t column = cut.size() - (cut.rfind('\n') + 1) + 1;
  Plan plan;
  Status status = parse(cut, &plan);
  EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
  std::string where = "test.plan.json:" + std::to_string(lines + 1) + ":" +
                      std::to_string(column) + ": ";
  EXPECT_EQ(status.message().rfind(where, 0), 0u) << status.message();
  EXPECT_NE(status.message().find("the plan ends early"), std::string::npos)
      << status.message();
  status = parse("", &plan);
  EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
  EXPECT_EQ(status.message().rfind("test.plan.json:1:1: ", 0), 0u)
      << status.message();
}

TEST(PlanReject, SyntaxErrorGivesLineAndColumn) {
  Plan plan;
  Status status = parse("{\n  \"format\": \"collc-plan\",\n  oops\n}", &plan);
  EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
  EXPECT_EQ(status.message().rfind("test.plan.json:3:3: ", 0), 0u)
      << status.message();
  EXPECT_NE(status.message().find("not valid JSON"), std::string::npos)
      << status.message();
}

TEST(PlanReject, DuplicateKeysAndNonObjects) {
  Plan plan;
  std::string text = readInput(kRing);
  std::string duplicated = text;
  duplicated.replace(duplicated.find("\"version\": 1,"), 13,
                     "\"version\": 1, \"version\": 1,");
  Status status = parse(duplicated, &plan);
  EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
  EXPECT_EQ(status.message(), "test.plan.json: $: duplicate key \"version\"");
  status = parse("[]", &plan);
  EXPECT_EQ(status.message(),
            "test.plan.json: $: a plan must be a JSON object, not an array");
}

TEST(PlanReject, NestingTooDeep) {
  Plan plan;
  std::string text =
      "{\"format\": " + std::string(100, '[') + std::string(100, ']') + "}";
  Status status = parse(text, &plan);
  EXPECT_EQ(status.code(), ErrorCode::InvalidPlan);
  EXPECT_NE(status.message().find("nests deeper than 64 levels"),
            std::string::npos)
      << status.message();
}

TEST(PlanReject, AFailedReadLeavesThePlanUntouched) {
  Plan plan;
  plan.producer = "before";
  Status status = parse("{}", &plan);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(plan.producer, "before");
}
