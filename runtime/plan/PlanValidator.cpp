//===- PlanValidator.cpp - every rule of docs/plan-format.md --------------===//
//
// Nothing of a plan runs before all of it is checked: types, ranges, the
// collective's buffer shapes, peers, dependencies, groups, the connection
// summaries and that every send meets a recv of its size. Each violation is
// a PlanError naming the JSON path and the rule.
//
//===----------------------------------------------------------------------===//
#include "PlanDocument.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace collrt {
namespace detail {

namespace sched = collc::sched;

/// The largest world and group a plan may describe (the coll dialect's
/// mesh limit, 2^20 ranks).
constexpr int64_t kMaxRanks = int64_t(1) << 20;
/// Channels of one rank (sched-verify handles 1024).
constexpr int64_t kMaxChannels = 1024;

std::string describe(const Json &value) {
  const char *type = value.is_null()      ? "null"
                     : value.is_boolean() ? "a boolean"
                     : value.is_number()  ? "the number"
                     : value.is_string()  ? "the string"
                     : value.is_array()   ? "an array"
                     : value.is_object()  ? "an object"
                                          : "a value";
  if (value.is_null() || value.is_boolean() || value.is_array() ||
      value.is_object())
    return value.is_boolean() ? std::string(type) + " (" + value.dump() + ")"
                              : std::string(type);
  std::string text = value.dump();
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  return std::string(type) + " " + text;
}

namespace {

[[noreturn]] void fail(std::string path, std::string rule) {
  throw PlanError{std::move(path), std::move(rule)};
}

std::string quoted(const std::string &text) { return Json(text).dump(); }

template <typename Name, typename Enum>
std::string nameList(Name name, Enum last) {
  std::string text;
  for (int i = 0; i <= int(last); ++i)
    text += std::string(i ? ", " : "") + name(static_cast<Enum>(i));
  return text;
}

int64_t integer(const Json &value, const std::string &path, int64_t min,
                int64_t max, const char *what) {
  bool ok = value.is_number_integer();
  int64_t result = 0;
  if (ok) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      ok = false;
    else
      result = value.get<int64_t>();
  }
  if (!ok || result < min || result > max)
    fail(path, std::string(what) + " must be an integer in [" +
                   std::to_string(min) + ", " + std::to_string(max) +
                   "], not " + describe(value));
  return result;
}

const std::string &string(const Json &value, const std::string &path,
                          const char *what) {
  if (!value.is_string())
    fail(path, std::string(what) + " must be a string, not " + describe(value));
  return value.get_ref<const std::string &>();
}

const Json &array(const Json &value, const std::string &path,
                  const char *what) {
  if (!value.is_array())
    fail(path, std::string(what) + " must be an array, not " + describe(value));
  return value;
}

/// Checks that `value` is an object with exactly the keys `required` (plus
/// any of `optional`).
const Json &object(const Json &value, const std::string &path, const char *what,
                   std::initializer_list<const char *> keys,
                   std::initializer_list<const char *> optional = {}) {
  if (!value.is_object())
    fail(path,
         std::string(what) + " must be an object, not " + describe(value));
  for (const char *key : keys)
    if (!value.contains(key))
      fail(path,
           std::string(what) + " has no \"" + key + "\" (a required key)");
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string &key = it.key();
    bool known = false;
    for (const char *k : keys)
      known |= key == k;
    for (const char *k : optional)
      known |= key == k;
    if (!known) {
      std::string all;
      for (const char *k : keys)
        all += std::string(all.empty() ? "" : ", ") + k;
      for (const char *k : optional)
        all += std::string(all.empty() ? "" : ", ") + k;
      fail(path + "." + key, "unknown key " + quoted(key) + " in " + what +
                                 " (its keys: " + all + ")");
    }
  }
  return value;
}

sched::ChunkRange decodeRange(const Json &value, const std::string &path,
                              const char *what) {
  if (!value.is_array() || value.size() != 3)
    fail(path, std::string(what) +
                   " must be a chunk range [buffer, index, count], not " +
                   describe(value));
  sched::ChunkRange range;
  if (!value[0].is_string() ||
      !parseBuffer(value[0].get_ref<const std::string &>(), &range.buffer))
    fail(path + "[0]", std::string("the buffer of ") + what +
                           " must be one of " +
                           nameList(sched::bufferName, sched::Buffer::Scratch) +
                           ", not " + describe(value[0]));
  range.index = uint32_t(
      integer(value[1], path + "[1]", 0, UINT32_MAX, "a range's first chunk"));
  range.count = uint32_t(
      integer(value[2], path + "[2]", 0, UINT32_MAX, "a range's chunk count"));
  return range;
}

bool isRooted(sched::Collective c) {
  return c == sched::Collective::Broadcast || c == sched::Collective::Reduce ||
         c == sched::Collective::Scatter || c == sched::Collective::Gather;
}

/// The input or output chunks `program` must have (Program.h's table).
uint64_t requiredChunks(const sched::Program &program, bool input) {
  uint64_t k = program.chunksPerPart;
  uint64_t nk = k * uint64_t(program.numRanks);
  switch (program.collective) {
  case sched::Collective::AllGather:
  case sched::Collective::Gather:
    return input ? k : nk;
  case sched::Collective::ReduceScatter:
  case sched::Collective::Scatter:
    return input ? nk : k;
  case sched::Collective::AllToAll:
  case sched::Collective::AllToAllV:
    return nk;
  default:
    return k;
  }
}

std::string countOf(uint64_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

class Validator {
public:
  explicit Validator(PlanDocument &document) : document(document) {}

  void run(Plan *plan) {
    const Json &root = document.root;
    if (!root.is_object())
      fail("$", "a plan must be a JSON object, not " + describe(root));
    if (!root.contains("format"))
      fail("$", "has no \"format\": this is not a collc plan (a plan starts "
                "with \"format\": \"collc-plan\")");
    if (!root["format"].is_string() || root["format"] != "collc-plan")
      fail("$.format", "the format must be \"collc-plan\", not " +
                           describe(root["format"]) +
                           ": this is not a collc plan");
    if (!root.contains("version"))
      fail("$", "has no \"version\" (a required key)");
    const Json &version = root["version"];
    if (!version.is_number_integer() || version < kPlanOldestVersion ||
        version > kPlanVersion)
      fail("$.version", "plan format version " + describe(version) +
                            " is not supported: this reader reads versions " +
                            std::to_string(kPlanOldestVersion) + " to " +
                            std::to_string(kPlanVersion) +
                            " (emit the plan again with the collc that "
                            "matches this runtime)");
    version_ = int(version.get<int64_t>());
    if (document.hasDeferredError)
      throw document.deferredError;
    object(root, "$", "a plan",
           {"format", "version", "producer", "topology", "world_size",
            "collectives"});
    plan->version = version_;
    plan->producer = string(root["producer"], "$.producer", "producer");
    plan->topology = string(root["topology"], "$.topology", "topology");
    plan->worldSize = int32_t(integer(root["world_size"], "$.world_size", 1,
                                      kMaxRanks, "world_size"));
    const Json &collectives =
        array(root["collectives"], "$.collectives", "collectives");
    plan->collectives.resize(collectives.size());
    for (size_t i = 0; i < collectives.size(); ++i)
      collective(collectives[i], "$.collectives[" + std::to_string(i) + "]",
                 plan->worldSize, plan->collectives[i]);
  }

private:
  /// The plan's format version (checked first).
  int version_ = kPlanVersion;

  void collective(const Json &value, const std::string &path, int32_t worldSize,
                  PlanCollective &out) {
    object(value, path, "a collective",
           {"location", "dtype", "reduction", "elements_per_rank",
            "connection_slots", "groups", "program"});
    out.location = string(value["location"], path + ".location", "location");
    const std::string &dtype = string(value["dtype"], path + ".dtype", "dtype");
    if (!parseDataType(dtype, &out.dtype))
      fail(path + ".dtype",
           "unknown dtype " + quoted(dtype) + "; the dtypes are " +
               nameList(dataTypeName, DataType(kNumDataTypes - 1)));
    const std::string &reduction =
        string(value["reduction"], path + ".reduction", "reduction");
    if (!parseReduceOp(reduction, &out.reduction))
      fail(path + ".reduction",
           "unknown reduction " + quoted(reduction) + "; the reductions are " +
               nameList(reduceOpName, ReduceOp(kNumReduceOps - 1)));
    const Json &elements = value["elements_per_rank"];
    out.elementsPerRank =
        elements.is_null()
            ? -1
            : integer(elements, path + ".elements_per_rank", 0,
                      std::numeric_limits<int64_t>::max(),
                      "elements_per_rank (or null: known at run time)");
    out.connectionSlots =
        uint32_t(integer(value["connection_slots"], path + ".connection_slots",
                         1, UINT32_MAX, "connection_slots"));
    program(value["program"], path + ".program", out.program);
    groups(value["groups"], path + ".groups", worldSize, out);
  }

  void groups(const Json &value, const std::string &path, int32_t worldSize,
              PlanCollective &out) {
    array(value, path, "groups");
    if (value.empty())
      fail(path, "groups must list at least one group of world ranks");
    int32_t n = out.program.numRanks;
    // World rank -> the group it is in, to find overlaps.
    std::vector<int32_t> owner(size_t(worldSize), -1);
    out.groups.resize(value.size());
    for (size_t g = 0; g < value.size(); ++g) {
      std::string groupPath = path + "[" + std::to_string(g) + "]";
      const Json &group = array(value[g], groupPath, "a group");
      if (group.size() != size_t(n))
        fail(groupPath, "a group must hold num_ranks = " + std::to_string(n) +
                            " world ranks (group rank i is entry i), but "
                            "this one holds " +
                            std::to_string(group.size()));
      for (size_t i = 0; i < group.size(); ++i) {
        std::string at = groupPath + "[" + std::to_string(i) + "]";
        auto rank = int32_t(integer(group[i], at, 0, worldSize - 1,
                                    "a world rank (below world_size)"));
        if (owner[size_t(rank)] >= 0)
          fail(at, "world rank " + std::to_string(rank) +
                       (size_t(owner[size_t(rank)]) == g
                            ? " appears twice in group " + std::to_string(g)
                            : " is in groups " +
                                  std::to_string(owner[size_t(rank)]) +
                                  " and " + std::to_string(g)) +
                       "; groups must be disjoint");
        owner[size_t(rank)] = int32_t(g);
        out.groups[g].push_back(rank);
      }
    }
  }

  void program(const Json &value, const std::string &path, sched::Program &p) {
    object(value, path, "a program",
           {"collective", "algorithm", "num_ranks", "root", "peer",
            "chunks_per_part", "buffers", "ranks"},
           {"send_to", "send_counts"});
    const std::string &name =
        string(value["collective"], path + ".collective", "collective");
    if (!parseCollective(name, &p.collective))
      fail(path + ".collective",
           "unknown collective " + quoted(name) + "; the collectives are " +
               nameList(sched::collectiveName, sched::Collective::SendRecv));
    p.algorithm = string(value["algorithm"], path + ".algorithm", "algorithm");
    p.numRanks = int32_t(integer(value["num_ranks"], path + ".num_ranks", 1,
                                 kMaxRanks, "num_ranks"));
    int32_t n = p.numRanks;
    p.root = int32_t(
        integer(value["root"], path + ".root", -1, n - 1, "root (-1: none)"));
    p.peer = int32_t(
        integer(value["peer"], path + ".peer", -1, n - 1, "peer (-1: none)"));
    if (isRooted(p.collective) && p.root < 0)
      fail(path + ".root",
           std::string("a ") + sched::collectiveName(p.collective) +
               " needs a root in [0, " + std::to_string(n - 1) + "], not -1");
    bool sendRecv = p.collective == sched::Collective::SendRecv;
    if (sendRecv != value.contains("send_to"))
      fail(path + (sendRecv ? "" : ".send_to"),
           sendRecv ? "a send_recv needs \"send_to\" (the rank each rank "
                      "sends to, or [] for the single pair root -> peer)"
                    : "\"send_to\" applies to send_recv only, not to " + name);
    if (sendRecv)
      sendTo(value["send_to"], path, p);
    p.chunksPerPart =
        uint32_t(integer(value["chunks_per_part"], path + ".chunks_per_part", 1,
                         UINT32_MAX, "chunks_per_part"));
    const Json &buffers = object(value["buffers"], path + ".buffers", "buffers",
                                 {"input", "output", "scratch"});
    p.buffers.inputChunks =
        uint32_t(integer(buffers["input"], path + ".buffers.input", 0,
                         UINT32_MAX, "input chunks"));
    p.buffers.outputChunks =
        uint32_t(integer(buffers["output"], path + ".buffers.output", 0,
                         UINT32_MAX, "output chunks"));
    p.buffers.scratchChunks =
        uint32_t(integer(buffers["scratch"], path + ".buffers.scratch", 0,
                         UINT32_MAX, "scratch chunks"));
    for (bool input : {true, false}) {
      uint64_t required = requiredChunks(p, input);
      uint64_t actual = input ? p.buffers.inputChunks : p.buffers.outputChunks;
      if (required != actual)
        fail(path + ".buffers." + (input ? "input" : "output"),
             std::string("a ") + name + " of " + countOf(uint64_t(n), "rank") +
                 " with " + countOf(p.chunksPerPart, "chunk") +
                 " per part has " + std::to_string(required) + " " +
                 (input ? "input" : "output") + " chunks, not " +
                 std::to_string(actual));
    }
    bool v = p.collective == sched::Collective::AllToAllV;
    if (!v && value.contains("send_counts"))
      fail(path + ".send_counts",
           "\"send_counts\" applies to all_to_all_v only, not to " + name);
    // Version 2: an all_to_all_v's counts may be given at run time
    // (omitted or null); version 1 requires them.
    bool atRunTime =
        v && (!value.contains("send_counts") || value["send_counts"].is_null());
    if (atRunTime && version_ < 2)
      fail(path + (value.contains("send_counts") ? ".send_counts" : ""),
           "an all_to_all_v needs \"send_counts\" (num_ranks x num_ranks "
           "element counts, row-major by sender) in plan format version " +
               std::to_string(version_) +
               "; counts given at run time (null or omitted) need version 2");
    if (v && !atRunTime)
      sendCounts(value["send_counts"], path + ".send_counts", p);
    ranks(value["ranks"], path + ".ranks", p);
  }

  void sendTo(const Json &value, const std::string &programPath,
              sched::Program &p) {
    std::string path = programPath + ".send_to";
    int32_t n = p.numRanks;
    array(value, path, "send_to");
    if (value.empty()) {
      if (p.root < 0 || p.peer < 0 || p.root == p.peer)
        fail(programPath,
             "a send_recv with an empty send_to sends from root to peer, so "
             "both must be ranks and differ, but root is " +
                 std::to_string(p.root) + " and peer " +
                 std::to_string(p.peer));
      return;
    }
    if (value.size() != size_t(n))
      fail(path, "send_to must have num_ranks = " + std::to_string(n) +
                     " entries (or none), not " + std::to_string(value.size()));
    std::vector<int32_t> sender(size_t(n), -1);
    for (size_t r = 0; r < value.size(); ++r) {
      std::string at = path + "[" + std::to_string(r) + "]";
      auto to = int32_t(
          integer(value[r], at, -1, n - 1, "a send_to entry (-1: no send)"));
      if (to == int32_t(r))
        fail(at, "rank " + std::to_string(r) + " cannot send to itself");
      if (to >= 0 && sender[size_t(to)] >= 0)
        fail(at, "ranks " + std::to_string(sender[size_t(to)]) + " and " +
                     std::to_string(r) + " both send to rank " +
                     std::to_string(to) + "; a rank receives from one at most");
      if (to >= 0)
        sender[size_t(to)] = int32_t(r);
      p.sendTo.push_back(to);
    }
    if ((p.root != -1 || p.peer != -1) &&
        !(p.root >= 0 && p.sendTo[size_t(p.root)] == p.peer))
      fail(programPath, "root " + std::to_string(p.root) + " and peer " +
                            std::to_string(p.peer) +
                            " must both be -1 or a pair of send_to");
  }

  void sendCounts(const Json &value, const std::string &path,
                  sched::Program &p) {
    uint64_t n = uint64_t(p.numRanks);
    array(value, path, "send_counts");
    if (value.size() != n * n)
      fail(path, "an all_to_all_v of " + countOf(n, "rank") + " needs " +
                     std::to_string(n * n) +
                     " send counts (num_ranks x num_ranks, row-major by "
                     "sender), not " +
                     std::to_string(value.size()));
    p.sendCounts.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i)
      p.sendCounts.push_back(
          integer(value[i], path + "[" + std::to_string(i) + "]", 0,
                  std::numeric_limits<int64_t>::max(),
                  "a send count (elements from rank i / n to rank i % n)"));
  }

  static std::string instructionPath(const std::string &ranksPath, size_t rank,
                                     size_t channel, size_t index) {
    return ranksPath + "[" + std::to_string(rank) + "].channels[" +
           std::to_string(channel) + "].instructions[" + std::to_string(index) +
           "]";
  }

  void ranks(const Json &value, const std::string &path, sched::Program &p) {
    array(value, path, "ranks");
    if (value.size() != size_t(p.numRanks))
      fail(path, "ranks must hold num_ranks = " + std::to_string(p.numRanks) +
                     " rank programs, not " + std::to_string(value.size()));
    p.ranks.resize(value.size());
    for (size_t r = 0; r < value.size(); ++r) {
      std::string rankPath = path + "[" + std::to_string(r) + "]";
      const Json &rank =
          object(value[r], rankPath, "a rank", {"connections", "channels"});
      const Json &channels =
          array(rank["channels"], rankPath + ".channels", "channels");
      if (int64_t(channels.size()) > kMaxChannels)
        fail(rankPath + ".channels",
             "a rank may have at most " + std::to_string(kMaxChannels) +
                 " channels, not " + std::to_string(channels.size()));
      sched::RankProgram &rankProgram = p.ranks[r];
      rankProgram.channels.resize(channels.size());
      for (size_t c = 0; c < channels.size(); ++c) {
        std::string channelPath =
            rankPath + ".channels[" + std::to_string(c) + "]";
        const Json &channel =
            object(channels[c], channelPath, "a channel", {"instructions"});
        const Json &stream = channel["instructions"];
        if (!stream.is_binary() || !stream.get_binary().has_subtype() ||
            stream.get_binary().subtype() >= document.channels.size())
          fail(channelPath + ".instructions",
               "instructions must be an array of instructions, not " +
                   describe(stream));
        // Each decoded stream belongs to one channel: moved, not copied.
        DecodedChannel &decoded =
            document.channels[size_t(stream.get_binary().subtype())];
        auto base = uint32_t(rankProgram.dependencies.size());
        rankProgram.dependencies.insert(rankProgram.dependencies.end(),
                                        decoded.deps.begin(),
                                        decoded.deps.end());
        auto &instructions = rankProgram.channels[c].instructions;
        instructions = std::move(decoded.instructions);
        decoded = DecodedChannel();
        for (sched::Instruction &instruction : instructions)
          if (instruction.depCount)
            instruction.depBegin += base;
          else
            instruction.depBegin = 0;
      }
      for (size_t c = 0; c < rankProgram.channels.size(); ++c) {
        const auto &instructions = rankProgram.channels[c].instructions;
        for (size_t i = 0; i < instructions.size(); ++i)
          checkInstruction(p, int32_t(r), c, i, instructions[i],
                           instructionPath(path, r, c, i));
      }
      connections(rank["connections"], rankPath + ".connections", p,
                  int32_t(r));
    }
    matchConnections(p, path);
  }

  void checkPeer(const sched::Program &p, int32_t rank, int32_t peer,
                 const std::string &path, const char *field) {
    if (peer < 0)
      return; // whether it may be -1 was checked when decoding
    if (peer >= p.numRanks)
      fail(path, std::string(field) + " " + std::to_string(peer) +
                     " is outside the group's ranks 0.." +
                     std::to_string(p.numRanks - 1));
    if (peer == rank)
      fail(path, std::string(field) + " is the rank itself (" +
                     std::to_string(rank) + "); a rank cannot " +
                     (std::string(field) == "send_peer" ? "send to"
                                                        : "receive from") +
                     " itself");
  }

  void checkRange(const sched::Program &p, const sched::ChunkRange &range,
                  const std::string &path, const char *field) {
    uint32_t chunks = p.buffers.chunks(range.buffer);
    if (range.count == 0)
      fail(path, std::string(field) + " is an empty range; an instruction "
                                      "moves at least one chunk");
    if (uint64_t(range.index) + range.count > chunks)
      fail(path, std::string(field) + " is " + sched::bufferName(range.buffer) +
                     " chunks [" + std::to_string(range.index) + ", " +
                     std::to_string(uint64_t(range.index) + range.count) +
                     "), but the " + sched::bufferName(range.buffer) +
                     " buffer has " + countOf(chunks, "chunk"));
  }

  void checkInstruction(const sched::Program &p, int32_t rank, size_t channel,
                        size_t index, const sched::Instruction &instruction,
                        const std::string &path) {
    sched::Opcode op = instruction.opcode;
    checkPeer(p, rank, instruction.sendPeer, path + "[2]", "send_peer");
    checkPeer(p, rank, instruction.recvPeer, path + "[3]", "recv_peer");
    if (sched::opcodeReadsSrc(op))
      checkRange(p, instruction.src, path + "[4]", "src");
    if (sched::opcodeWritesDst(op))
      checkRange(p, instruction.dst, path + "[5]", "dst");
    if (std::string rule = sched::checkRangeCounts(instruction); !rule.empty())
      fail(path, std::string(sched::opcodeName(op)) + " " + rule);
    const sched::RankProgram &rankProgram = p.ranks[size_t(rank)];
    for (uint32_t d = 0; d < instruction.depCount; ++d) {
      const sched::Dependency &dep =
          rankProgram.dependencies[size_t(instruction.depBegin) + d];
      std::string at = path + "[6][" + std::to_string(d) + "]";
      if (dep.channel >= rankProgram.channels.size())
        fail(at, "depends on channel " + std::to_string(dep.channel) +
                     ", but rank " + std::to_string(rank) + " has " +
                     countOf(rankProgram.channels.size(), "channel"));
      size_t length = rankProgram.channels[dep.channel].instructions.size();
      if (dep.instruction >= length)
        fail(at, "depends on instruction " + std::to_string(dep.instruction) +
                     " of channel " + std::to_string(dep.channel) +
                     ", which has " + countOf(length, "instruction"));
      if (dep.channel == channel && dep.instruction >= index)
        fail(at, dep.instruction == index
                     ? std::string("the instruction depends on itself")
                     : "depends on instruction " +
                           std::to_string(dep.instruction) +
                           " of its own channel, which runs after it");
    }
  }

  std::vector<PlanConnection> connectionList(const Json &value,
                                             const std::string &path) {
    array(value, path, "a connection list");
    std::vector<PlanConnection> result;
    for (size_t i = 0; i < value.size(); ++i) {
      std::string at = path + "[" + std::to_string(i) + "]";
      if (!value[i].is_array() || value[i].size() != 3)
        fail(at, "a connection must be [peer, channel, messages], not " +
                     describe(value[i]));
      PlanConnection c;
      c.peer = int32_t(integer(value[i][0], at + "[0]", 0, kMaxRanks - 1,
                               "a connection's peer"));
      c.channel = uint32_t(integer(value[i][1], at + "[1]", 0, kMaxChannels - 1,
                                   "a connection's channel"));
      c.messages = uint64_t(integer(value[i][2], at + "[2]", 1,
                                    std::numeric_limits<int64_t>::max(),
                                    "a connection's message count"));
      result.push_back(c);
    }
    return result;
  }

  void connections(const Json &value, const std::string &path,
                   const sched::Program &p, int32_t rank) {
    object(value, path, "connections", {"send", "recv"});
    RankConnections actual = rankConnections(p, rank);
    for (bool send : {true, false}) {
      std::string listPath = path + (send ? ".send" : ".recv");
      std::vector<PlanConnection> listed =
          connectionList(value[send ? "send" : "recv"], listPath);
      const std::vector<PlanConnection> &used =
          send ? actual.send : actual.recv;
      const char *verb = send ? "sends" : "receives";
      const char *dir = send ? "to" : "from";
      for (size_t i = 0; i < std::max(listed.size(), used.size()); ++i) {
        if (i < listed.size() && i < used.size() && listed[i] == used[i])
          continue;
        std::string at = listPath + "[" + std::to_string(i) + "]";
        if (i >= used.size() ||
            (i < listed.size() && std::tie(listed[i].peer, listed[i].channel) <
                                      std::tie(used[i].peer, used[i].channel)))
          fail(at, "lists a connection " + std::string(dir) + " rank " +
                       std::to_string(listed[i].peer) + " on channel " +
                       std::to_string(listed[i].channel) + ", but rank " +
                       std::to_string(rank) + " " + verb + " nothing " + dir +
                       " it there (or the list is not sorted by peer, "
                       "channel)");
        if (i >= listed.size() ||
            std::tie(used[i].peer, used[i].channel) <
                std::tie(listed[i].peer, listed[i].channel))
          fail(i >= listed.size() ? listPath : at,
               "rank " + std::to_string(rank) + " " + verb + " " +
                   countOf(used[i].messages, "message") + " " + dir + " rank " +
                   std::to_string(used[i].peer) + " on channel " +
                   std::to_string(used[i].channel) +
                   ", but the connection list does not have it");
        fail(at + "[2]", "lists " + countOf(listed[i].messages, "message") +
                             " " + dir + " rank " +
                             std::to_string(used[i].peer) + " on channel " +
                             std::to_string(used[i].channel) + ", but rank " +
                             std::to_string(rank) + " " + verb + " " +
                             std::to_string(used[i].messages));
      }
    }
  }

  /// The k-th send of (a, b, channel) must meet the k-th recv of the same
  /// chunk count.
  void matchConnections(const sched::Program &p, const std::string &path) {
    struct Message {
      size_t channelIndex, index;
      uint32_t chunks;
    };
    using Key = std::tuple<int32_t, int32_t, uint32_t>; // sender, receiver, ch
    std::map<Key, std::vector<Message>> sends, recvs;
    for (size_t r = 0; r < p.ranks.size(); ++r) {
      const auto &channels = p.ranks[r].channels;
      for (size_t c = 0; c < channels.size(); ++c) {
        const auto &instructions = channels[c].instructions;
        for (size_t i = 0; i < instructions.size(); ++i) {
          const sched::Instruction &in = instructions[i];
          uint32_t chunks = messageRange(in).count;
          if (sched::opcodeSends(in.opcode))
            sends[Key(int32_t(r), in.sendPeer, uint32_t(c))].push_back(
                {c, i, chunks});
          if (sched::opcodeReceives(in.opcode))
            recvs[Key(in.recvPeer, int32_t(r), uint32_t(c))].push_back(
                {c, i, chunks});
        }
      }
    }
    static const std::vector<Message> none;
    auto check = [&](const Key &key) {
      auto [a, b, channel] = key;
      auto s = sends.find(key);
      auto v = recvs.find(key);
      const std::vector<Message> &sent = s == sends.end() ? none : s->second;
      const std::vector<Message> &received =
          v == recvs.end() ? none : v->second;
      std::string connection = "rank " + std::to_string(a) + " -> rank " +
                               std::to_string(b) + " on channel " +
                               std::to_string(channel);
      for (size_t k = 0; k < std::min(sent.size(), received.size()); ++k) {
        if (sent[k].chunks == received[k].chunks)
          continue;
        fail(instructionPath(path, size_t(a), sent[k].channelIndex,
                             sent[k].index),
             "send #" + std::to_string(k + 1) + " of " + connection +
                 " carries " + countOf(sent[k].chunks, "chunk") +
                 ", but the recv it meets, rank " + std::to_string(b) +
                 "'s recv #" + std::to_string(k + 1) + " (" +
                 instructionPath(path, size_t(b), received[k].channelIndex,
                                 received[k].index) +
                 "), takes " + countOf(received[k].chunks, "chunk"));
      }
      if (sent.size() > received.size()) {
        const Message &m = sent[received.size()];
        fail(instructionPath(path, size_t(a), m.channelIndex, m.index),
             "send #" + std::to_string(received.size() + 1) + " of " +
                 connection + " has no recv: rank " + std::to_string(a) +
                 " sends " + countOf(sent.size(), "message") + " but rank " +
                 std::to_string(b) + " receives " +
                 std::to_string(received.size()) +
                 " (the recv side is missing)");
      }
      if (received.size() > sent.size()) {
        const Message &m = received[sent.size()];
        fail(instructionPath(path, size_t(b), m.channelIndex, m.index),
             "recv #" + std::to_string(sent.size() + 1) + " of " + connection +
                 " has no send: rank " + std::to_string(b) + " receives " +
                 countOf(received.size(), "message") + " but rank " +
                 std::to_string(a) + " sends " + std::to_string(sent.size()) +
                 " (the send side is missing)");
      }
    };
    for (const auto &entry : sends)
      check(entry.first);
    for (const auto &entry : recvs)
      if (!sends.count(entry.first))
        check(entry.first);
  }

  PlanDocument &document;
};

} // namespace

void decodeInstruction(const Json &value, DecodedChannel &channel) {
  if (!value.is_array() || value.size() < 6 || value.size() > 7)
    fail("", "an instruction must be [opcode, step, send_peer, recv_peer, "
             "src, dst] or [..., deps], not " +
                 describe(value) +
                 (value.is_array() ? " of " + countOf(value.size(), "element")
                                   : std::string()));
  sched::Instruction instruction;
  if (!value[0].is_string() ||
      !parseOpcode(value[0].get_ref<const std::string &>(),
                   &instruction.opcode))
    fail("[0]",
         "the opcode must be one of " +
             nameList(sched::opcodeName, sched::Opcode::RecvReduceCopySend) +
             ", not " + describe(value[0]));
  sched::Opcode op = instruction.opcode;
  const char *name = sched::opcodeName(op);
  instruction.step =
      int32_t(integer(value[1], "[1]", INT32_MIN, INT32_MAX, "the step"));
  instruction.sendPeer =
      int32_t(integer(value[2], "[2]", -1, INT32_MAX, "send_peer (-1: none)"));
  instruction.recvPeer =
      int32_t(integer(value[3], "[3]", -1, INT32_MAX, "recv_peer (-1: none)"));
  if (sched::opcodeSends(op) != (instruction.sendPeer >= 0))
    fail("[2]", sched::opcodeSends(op)
                    ? std::string(name) + " sends, so send_peer must be a "
                                          "rank, not -1"
                    : std::string(name) +
                          " does not send, so send_peer "
                          "must be -1, not " +
                          std::to_string(instruction.sendPeer));
  if (sched::opcodeReceives(op) != (instruction.recvPeer >= 0))
    fail("[3]", sched::opcodeReceives(op)
                    ? std::string(name) + " receives, so recv_peer must be a "
                                          "rank, not -1"
                    : std::string(name) +
                          " does not receive, so recv_peer "
                          "must be -1, not " +
                          std::to_string(instruction.recvPeer));
  if (sched::opcodeReadsSrc(op))
    instruction.src = decodeRange(value[4], "[4]", "src");
  else if (!value[4].is_null())
    fail("[4]", std::string(name) +
                    " reads no src, so src must be null, "
                    "not " +
                    describe(value[4]));
  if (sched::opcodeWritesDst(op))
    instruction.dst = decodeRange(value[5], "[5]", "dst");
  else if (!value[5].is_null())
    fail("[5]", std::string(name) +
                    " writes no dst, so dst must be null, "
                    "not " +
                    describe(value[5]));
  if (value.size() == 7) {
    const Json &deps = value[6];
    if (!deps.is_array())
      fail("[6]", "deps must be an array of [channel, instruction], not " +
                      describe(deps));
    instruction.depBegin = uint32_t(channel.deps.size());
    instruction.depCount = uint32_t(deps.size());
    for (size_t d = 0; d < deps.size(); ++d) {
      std::string at = "[6][" + std::to_string(d) + "]";
      if (!deps[d].is_array() || deps[d].size() != 2)
        fail(at, "a dependency must be [channel, instruction], not " +
                     describe(deps[d]));
      sched::Dependency dep;
      dep.channel =
          uint32_t(integer(deps[d][0], at + "[0]", 0, kMaxChannels - 1,
                           "a dependency's channel"));
      dep.instruction = uint32_t(integer(deps[d][1], at + "[1]", 0, UINT32_MAX,
                                         "a dependency's instruction"));
      channel.deps.push_back(dep);
    }
  }
  channel.instructions.push_back(instruction);
}

void validatePlan(PlanDocument &document, Plan *plan) {
  Validator(document).run(plan);
}

} // namespace detail
} // namespace collrt
