//===- Expand.cpp - expand a sched.schedule into a Program ----------------===//
//
// The schedule's region tree is compiled once into C++ nodes with compiled
// expressions; each rank then walks the nodes with its own environment
// (symbols, r, loop variables) and appends plain Instructions. No MLIR
// object is created or queried per instruction.
//
//===----------------------------------------------------------------------===//
#include "dialects/Sched/Transforms/Expand.h"
#include "dialects/Sched/IR/SchedExpr.h"
#include "dialects/Sched/Transforms/CompiledExpr.h"
#include "dialects/Sched/Transforms/EnumConversion.h"

#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace collc::sched;

namespace {

/// Channel ids are in [0, kMaxChannels) (see ChannelOp).
constexpr uint32_t kMaxChannels = 256;

struct CompiledInstruction {
  Operation *op = nullptr;
  Opcode opcode = Opcode::Send;
  bool hasFrom = false, hasTo = false, hasSrc = false, hasDst = false;
  Buffer src = Buffer::Input, dst = Buffer::Input;
  CompiledExpr from, to, srcIndex, dstIndex;
  CompiledExpr count = CompiledExpr::constant(1);
  CompiledExpr fanin = CompiledExpr::constant(1); ///< reduce: source ranges
  CompiledExpr step = CompiledExpr::constant(0);
  struct Dependency {
    uint32_t channel;
    CompiledExpr index;
    bool hasChannelExpr = false; ///< channel given by channelExpr
    CompiledExpr channelExpr;
    bool hasChannelEnd = false; ///< every channel of [channel, channelEnd)
    CompiledExpr channelEnd;
  };
  llvm::SmallVector<Dependency, 1> dependencies;
};

struct CompiledNode {
  enum class Kind : uint8_t { Instruction, Loop, Guard, Let };
  Kind kind = Kind::Instruction;
  Operation *op = nullptr;
  uint32_t instruction = 0; ///< Instruction: index into the instructions
  // Loop:
  StringRef var;
  CompiledExpr lower, upper, step = CompiledExpr::constant(1);
  bool geometric = false;
  // Guard: constraints `e == 0` (true) or `e >= 0` (false).
  std::vector<std::pair<CompiledExpr, bool>> constraints;
  // Let: the names and their values, each over the names before it.
  llvm::SmallVector<StringRef, 2> names;
  std::vector<CompiledExpr> values;
  std::vector<CompiledNode> body, elseBody;
};

struct CompiledChannel {
  Operation *op = nullptr;
  uint32_t id;          ///< the channel, or a range's first one
  bool isRange = false; ///< `c = id to upper`
  StringRef var;        ///< a range's variable
  CompiledExpr upper;   ///< a range's bound (symbols only)
  std::vector<CompiledNode> body;
};

/// A schedule's region tree, compiled.
class CompiledSchedule {
public:
  explicit CompiledSchedule(unsigned numSymbols) : numSymbols(numSymbols) {}

  std::vector<CompiledChannel> compileChannels(Region &region) {
    std::vector<CompiledChannel> channels;
    for (ChannelOp channel : region.getOps<ChannelOp>()) {
      CompiledChannel compiled;
      compiled.op = channel;
      compiled.id = static_cast<uint32_t>(channel.getId());
      if (channel.isRange()) {
        compiled.isRange = true;
        compiled.var = *channel.getVar();
        compiled.upper = compile(channel.getUpperAttr());
      }
      compiled.body = compileBody(channel.getBody());
      channels.push_back(std::move(compiled));
    }
    return channels;
  }

  std::vector<CompiledInstruction> instructions;

private:
  CompiledExpr compile(Attribute expr) {
    return CompiledExpr::compile(expr, numSymbols);
  }

  std::vector<CompiledNode> compileBody(Region &region) {
    std::vector<CompiledNode> nodes;
    for (Operation &op : region.getOps()) {
      CompiledNode node;
      node.op = &op;
      if (auto loop = dyn_cast<ForOp>(op)) {
        node.kind = CompiledNode::Kind::Loop;
        node.var = loop.getVar();
        node.lower = compile(loop.getLowerAttr());
        node.upper = compile(loop.getUpperAttr());
        if (loop.getStepAttr())
          node.step = compile(loop.getStepAttr());
        node.geometric = loop.getGeometric();
        node.body = compileBody(loop.getBody());
      } else if (auto guard = dyn_cast<IfOp>(op)) {
        node.kind = CompiledNode::Kind::Guard;
        IntegerSet set = guard.getConditionSet();
        for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i)
          node.constraints.emplace_back(
              CompiledExpr::compile(set.getConstraint(i), numSymbols),
              set.isEq(i));
        node.body = compileBody(guard.getThenRegion());
        node.elseBody = compileBody(guard.getElseRegion());
      } else if (auto let = dyn_cast<LetOp>(op)) {
        node.kind = CompiledNode::Kind::Let;
        for (auto [name, value] :
             llvm::zip(let.getNames().getAsValueRange<StringAttr>(),
                       let.getValues())) {
          node.names.push_back(name);
          node.values.push_back(compile(value));
        }
        node.body = compileBody(let.getBody());
      } else {
        node.kind = CompiledNode::Kind::Instruction;
        node.instruction = instructions.size();
        instructions.push_back(compileInstruction(&op));
      }
      nodes.push_back(std::move(node));
    }
    return nodes;
  }

  CompiledInstruction compileInstruction(Operation *op) {
    CompiledInstruction result;
    result.op = op;
    result.opcode = cast<InstructionOp>(op).getOpcode();
    if (Attribute from = op->getAttr("from")) {
      result.hasFrom = true;
      result.from = compile(from);
    }
    if (Attribute to = op->getAttr("to")) {
      result.hasTo = true;
      result.to = compile(to);
    }
    if (auto src = op->getAttrOfType<BufferKindAttr>("src")) {
      result.hasSrc = true;
      result.src = toProgramBuffer(src.getValue());
      result.srcIndex = compile(op->getAttr("src_index"));
    }
    if (auto dst = op->getAttrOfType<BufferKindAttr>("dst")) {
      result.hasDst = true;
      result.dst = toProgramBuffer(dst.getValue());
      result.dstIndex = compile(op->getAttr("dst_index"));
    }
    if (Attribute count = op->getAttr("count"))
      result.count = compile(count);
    if (Attribute fanin = op->getAttr("fanin"))
      result.fanin = compile(fanin);
    if (Attribute step = op->getAttr("step"))
      result.step = compile(step);
    if (auto after = op->getAttrOfType<ArrayAttr>("after"))
      for (auto dependency : after.getAsRange<DependencyAttr>()) {
        CompiledInstruction::Dependency compiled;
        compiled.channel = dependency.getChannel();
        compiled.index = compile(dependency.getIndex());
        if (Attribute channelExpr = dependency.getChannelExpr()) {
          compiled.hasChannelExpr = true;
          compiled.channelExpr = compile(channelExpr);
        }
        if (Attribute channelEnd = dependency.getChannelEnd()) {
          compiled.hasChannelEnd = true;
          compiled.channelEnd = compile(channelEnd);
        }
        result.dependencies.push_back(std::move(compiled));
      }
    return result;
  }

  unsigned numSymbols;
};

/// A parameter whose value depends on the rank (send_recv's send_peer and
/// recv_peer): env[slot] = values[rank].
struct PerRankParam {
  unsigned slot;
  std::vector<int32_t> values;
};

/// Expands ranks one at a time into a Program.
class Expander {
public:
  Expander(const ExpandOptions &options, Program &program,
           const CompiledSchedule &schedule, std::vector<int64_t> env,
           unsigned numSymbols)
      : options(options), program(program), schedule(schedule),
        env(std::move(env)), numSymbols(numSymbols) {}

  void setPerRankParams(std::vector<PerRankParam> params) {
    perRankParams = std::move(params);
  }

  LogicalResult expandRank(int32_t rank,
                           const std::vector<CompiledChannel> &channels) {
    this->rank = rank;
    env[numSymbols] = rank;
    for (const PerRankParam &param : perRankParams)
      env[param.slot] = param.values[rank];
    RankProgram &rankProgram = program.ranks[rank];
    // The ids of each channel op: one, or a range's [id, upper).
    std::vector<std::pair<uint32_t, uint32_t>> ids;
    std::vector<const CompiledChannel *> owner(kMaxChannels, nullptr);
    uint32_t numChannels = 0;
    for (const CompiledChannel &channel : channels) {
      uint32_t end = channel.id + 1;
      if (channel.isRange) {
        channelId = channel.id;
        int64_t upper;
        if (failed(evaluate(channel.upper, "channel range's upper bound",
                            channel.op, upper)))
          return failure();
        if (upper > kMaxChannels)
          return fail(channel.op,
                      "channel range of rank " + std::to_string(rank) +
                          " reaches channel " + std::to_string(upper - 1) +
                          ", outside [0, " + std::to_string(kMaxChannels) + ")",
                      /*withLoops=*/false);
        end = static_cast<uint32_t>(std::max<int64_t>(upper, channel.id));
      }
      for (uint32_t id = channel.id; id < end; ++id) {
        if (owner[id]) {
          channelId = id;
          return fail(channel.op,
                      "channel " + std::to_string(id) + " of rank " +
                          std::to_string(rank) +
                          " comes from two sched.channel ops",
                      /*withLoops=*/false);
        }
        owner[id] = &channel;
      }
      ids.emplace_back(channel.id, end);
      if (end > channel.id)
        numChannels = std::max(numChannels, end);
    }
    rankProgram.channels.resize(numChannels);
    // Symmetric schedules give every rank the same stream lengths: reserve
    // what the previous rank needed.
    if (rank > 0) {
      const RankProgram &previous = program.ranks[rank - 1];
      for (uint32_t c = 0; c < numChannels && c < previous.channels.size(); ++c)
        rankProgram.channels[c].instructions.reserve(
            previous.channels[c].instructions.size());
      rankProgram.dependencies.reserve(previous.dependencies.size());
    }
    pending.clear();
    for (auto [channel, range] : llvm::zip(channels, ids)) {
      if (channel.isRange)
        loopNames.push_back(channel.var);
      for (uint32_t id = range.first; id < range.second; ++id) {
        channelId = id;
        stream = &rankProgram.channels[id];
        if (channel.isRange)
          env[numSymbols + 1] = id; // the first dim after r
        if (failed(walk(channel.body, channel.isRange ? 1 : 0)))
          return failure();
      }
      if (channel.isRange)
        loopNames.pop_back();
    }
    // Dependencies may point forward into channels expanded later.
    for (const PendingDependency &dependency : pending) {
      channelId = dependency.fromChannel; // for the note
      if (dependency.channel >= numChannels || !owner[dependency.channel])
        return fail(dependency.op,
                    "instruction " + std::to_string(dependency.instruction) +
                        " of rank " + std::to_string(rank) + ", channel " +
                        std::to_string(dependency.fromChannel) +
                        " waits for channel " +
                        std::to_string(dependency.channel) +
                        ", which the rank does not have",
                    /*withLoops=*/false);
      const auto &target = rankProgram.channels[dependency.channel];
      if (dependency.index >= target.instructions.size())
        return fail(dependency.op,
                    "instruction " + std::to_string(dependency.instruction) +
                        " of rank " + std::to_string(rank) + ", channel " +
                        std::to_string(dependency.fromChannel) +
                        " waits for instruction " +
                        std::to_string(dependency.index) + " of channel " +
                        std::to_string(dependency.channel) +
                        ", which has only " +
                        std::to_string(target.instructions.size()) +
                        (target.instructions.size() == 1 ? " instruction"
                                                         : " instructions"),
                    /*withLoops=*/false);
    }
    return success();
  }

private:
  struct PendingDependency {
    Operation *op;
    uint32_t fromChannel;
    uint32_t instruction;
    uint32_t channel;
    uint64_t index;
  };

  LogicalResult walk(const std::vector<CompiledNode> &nodes, unsigned depth) {
    for (const CompiledNode &node : nodes) {
      switch (node.kind) {
      case CompiledNode::Kind::Instruction:
        if (failed(emit(schedule.instructions[node.instruction])))
          return failure();
        break;
      case CompiledNode::Kind::Loop:
        if (failed(runLoop(node, depth)))
          return failure();
        break;
      case CompiledNode::Kind::Guard: {
        bool holds = true;
        for (const auto &[constraint, isEquality] : node.constraints) {
          int64_t value;
          if (failed(evaluate(constraint, "condition", node.op, value)))
            return failure();
          if (isEquality ? value != 0 : value < 0) {
            holds = false;
            break;
          }
        }
        if (failed(walk(holds ? node.body : node.elseBody, depth)))
          return failure();
        break;
      }
      case CompiledNode::Kind::Let:
        if (failed(runLet(node, depth)))
          return failure();
        break;
      }
    }
    return success();
  }

  LogicalResult runLoop(const CompiledNode &node, unsigned depth) {
    int64_t lower, upper, step;
    if (failed(evaluate(node.lower, "lower bound", node.op, lower)) ||
        failed(evaluate(node.upper, "upper bound", node.op, upper)) ||
        failed(evaluate(node.step, "step", node.op, step)))
      return failure();
    if (!node.geometric && step < 1)
      return fail(node.op, "loop step " + std::to_string(step) + " of rank " +
                               std::to_string(rank) + " is not positive");
    if (node.geometric && step < 2)
      return fail(node.op, "geometric step factor " + std::to_string(step) +
                               " of rank " + std::to_string(rank) +
                               " is less than 2");
    if (node.geometric && lower < 1 && lower < upper)
      return fail(node.op, "geometric loop of rank " + std::to_string(rank) +
                               " starts at " + std::to_string(lower) +
                               "; it must start at 1 or more");
    size_t slot = numSymbols + 1 + depth;
    loopNames.push_back(node.var);
    for (int64_t value = lower; value < upper;) {
      if (++loopIterations > options.maxLoopIterations)
        return fail(node.op, "expansion exceeds the limit of " +
                                 std::to_string(options.maxLoopIterations) +
                                 " loop iterations");
      env[slot] = value;
      if (failed(walk(node.body, depth + 1)))
        return failure();
      bool overflow = node.geometric
                          ? __builtin_mul_overflow(value, step, &value)
                          : __builtin_add_overflow(value, step, &value);
      if (overflow)
        break;
    }
    loopNames.pop_back();
    return success();
  }

  /// Binds the let's names, in order, in the slots after `depth`'s, and
  /// walks its body once.
  LogicalResult runLet(const CompiledNode &node, unsigned depth) {
    size_t bound = 0;
    LogicalResult result = success();
    for (auto [name, value] : llvm::zip(node.names, node.values)) {
      int64_t v;
      if (EvalError error = value.evaluate(env.data(), v);
          error != EvalError::None) {
        result = fail(node.op, "the value of '" + name.str() + "' " +
                                   evalErrorMessage(error));
        break;
      }
      env[numSymbols + 1 + depth + bound] = v;
      loopNames.push_back(name);
      ++bound;
    }
    if (succeeded(result))
      result = walk(node.body, depth + bound);
    loopNames.resize(loopNames.size() - bound);
    return result;
  }

  LogicalResult emit(const CompiledInstruction &source) {
    Operation *op = source.op;
    int64_t step, count, fanin;
    if (failed(evaluate(source.step, "step", op, step)) ||
        failed(evaluate(source.count, "count", op, count)) ||
        failed(evaluate(source.fanin, "fanin", op, fanin)))
      return failure();
    if (step < std::numeric_limits<int32_t>::min() ||
        step > std::numeric_limits<int32_t>::max())
      return fail(op, "step " + std::to_string(step) + " of rank " +
                          std::to_string(rank) + " does not fit in 32 bits");
    // Built only on error paths: this runs once per instruction.
    auto where = [&] {
      return " of rank " + std::to_string(rank) + " at step " +
             std::to_string(step);
    };
    if (count < 1)
      return fail(op, "count " + std::to_string(count) + where() +
                          " is not positive");
    if (fanin < 1)
      return fail(op, "fanin " + std::to_string(fanin) + where() +
                          " is not positive");
    if (count > std::numeric_limits<int32_t>::max() / fanin)
      return fail(op, "fanin " + std::to_string(fanin) + " x count " +
                          std::to_string(count) + where() +
                          " does not fit in 32 bits");

    Instruction instruction;
    instruction.opcode = source.opcode;
    instruction.step = static_cast<int32_t>(step);
    auto peer = [&](const CompiledExpr &expr, const char *what,
                    const char *verb, int32_t &result) -> LogicalResult {
      int64_t value;
      if (failed(evaluate(expr, what, op, value)))
        return failure();
      if (value < 0 || value >= program.numRanks)
        return fail(op, "peer " + std::to_string(value) + where() +
                            " is outside the group of " +
                            std::to_string(program.numRanks) + " ranks");
      if (value == rank)
        return fail(op, "rank " + std::to_string(rank) + " at step " +
                            std::to_string(step) + " " + verb +
                            " itself; use sched.copy for local moves");
      result = static_cast<int32_t>(value);
      return success();
    };
    auto range = [&](const CompiledExpr &expr, const char *what, Buffer buffer,
                     ChunkRange &result, int64_t count) -> LogicalResult {
      int64_t index;
      if (failed(evaluate(expr, what, op, index)))
        return failure();
      int64_t chunks = program.buffers.chunks(buffer);
      if (index < 0 || count > chunks || index > chunks - count)
        return fail(op, std::string(bufferName(buffer)) + " chunks [" +
                            std::to_string(index) + ", " +
                            std::to_string(index + count) + ")" + where() +
                            " are outside the buffer's " +
                            std::to_string(chunks) + " chunks");
      result = {buffer, static_cast<uint32_t>(index),
                static_cast<uint32_t>(count)};
      return success();
    };
    if (source.hasTo && failed(peer(source.to, "peer ('to')", "sends to",
                                    instruction.sendPeer)))
      return failure();
    if (source.hasFrom && failed(peer(source.from, "peer ('from')",
                                      "receives from", instruction.recvPeer)))
      return failure();
    // A reduce with fanin w reads w consecutive ranges of count chunks.
    if (source.hasSrc &&
        failed(range(source.srcIndex, "source index", source.src,
                     instruction.src, count * fanin)))
      return failure();
    if (source.hasDst && failed(range(source.dstIndex, "destination index",
                                      source.dst, instruction.dst, count)))
      return failure();

    RankProgram &rankProgram = program.ranks[rank];
    instruction.depBegin = rankProgram.dependencies.size();
    for (const auto &dependency : source.dependencies) {
      int64_t index;
      if (failed(evaluate(dependency.index, "dependency index", op, index)))
        return failure();
      if (index < 0)
        return fail(op, "dependency index " + std::to_string(index) + where() +
                            " is negative");
      uint32_t target = dependency.channel;
      if (dependency.hasChannelExpr) {
        int64_t value;
        if (failed(evaluate(dependency.channelExpr, "dependency channel", op,
                            value)))
          return failure();
        if (value < 0 || value >= kMaxChannels)
          return fail(op, "dependency channel " + std::to_string(value) +
                              where() + " is outside [0, " +
                              std::to_string(kMaxChannels) + ")");
        target = static_cast<uint32_t>(value);
      }
      uint32_t end = target + 1;
      if (dependency.hasChannelEnd) {
        int64_t value;
        if (failed(evaluate(dependency.channelEnd,
                            "dependency channel range end", op, value)))
          return failure();
        if (value > kMaxChannels)
          return fail(
              op, "dependency channel range [" + std::to_string(target) + ", " +
                      std::to_string(value) + ")" + where() +
                      " goes past channel " + std::to_string(kMaxChannels - 1));
        end = static_cast<uint32_t>(std::max<int64_t>(value, target));
      }
      for (uint32_t channel = target; channel < end; ++channel) {
        if (channel == channelId)
          return fail(op,
                      "instruction" + where() + " depends on its own channel " +
                          std::to_string(channel) +
                          "; a channel's instructions already run in order");
        pending.push_back({op, channelId,
                           static_cast<uint32_t>(stream->instructions.size()),
                           channel, static_cast<uint64_t>(index)});
        rankProgram.dependencies.push_back(
            {channel,
             static_cast<uint32_t>(std::min<int64_t>(index, UINT32_MAX))});
      }
    }
    instruction.depCount =
        uint32_t(rankProgram.dependencies.size() - instruction.depBegin);
    if (++instructionCount > options.maxInstructions)
      return fail(op, "expansion exceeds the limit of " +
                          std::to_string(options.maxInstructions) +
                          " instructions");
    stream->instructions.push_back(instruction);
    return success();
  }

  LogicalResult evaluate(const CompiledExpr &expr, const char *what,
                         Operation *op, int64_t &result) {
    EvalError error = expr.evaluate(env.data(), result);
    if (error == EvalError::None)
      return success();
    return fail(op, std::string("the ") + what + " expression " +
                        evalErrorMessage(error));
  }

  /// Reports `message` at `op`, with where the expansion was as a note.
  LogicalResult fail(Operation *op, const std::string &message,
                     bool withLoops = true) {
    InFlightDiagnostic diagnostic = op->emitError(message);
    std::string context;
    llvm::raw_string_ostream os(context);
    os << "expanding rank " << rank << ", channel " << channelId
       << " for n = " << program.numRanks << ", k = " << program.chunksPerPart;
    if (withLoops)
      for (auto [i, name] : llvm::enumerate(loopNames))
        os << ", " << name << " = " << env[numSymbols + 1 + i];
    diagnostic.attachNote() << context;
    return failure();
  }

  const ExpandOptions &options;
  Program &program;
  const CompiledSchedule &schedule;
  std::vector<int64_t> env; ///< symbols, r, loop variables
  unsigned numSymbols;
  int32_t rank = 0;
  uint32_t channelId = 0;
  ChannelProgram *stream = nullptr;
  llvm::SmallVector<StringRef> loopNames;
  std::vector<PendingDependency> pending;
  std::vector<PerRankParam> perRankParams;
  uint64_t instructionCount = 0;
  uint64_t loopIterations = 0;
};

/// The most dims after r in any scope: loop variables, a channel range's
/// variable and the names of lets.
unsigned getMaxLoopDepth(Region &region) {
  unsigned depth = 0;
  region.walk(
      [&](ForOp loop) { depth = std::max(depth, getLoopDepth(loop) + 1); });
  region.walk([&](LetOp let) {
    depth =
        std::max<unsigned>(depth, getLoopDepth(let) + let.getNames().size());
  });
  region.walk([&](ChannelOp channel) {
    if (channel.isRange())
      depth = std::max(depth, 1u);
  });
  return depth;
}

/// Input and output chunks of each collective, from Program.h's table.
BufferShape getBufferShape(Collective collective, uint64_t n, uint64_t k) {
  uint64_t part = k, all = n * k;
  switch (collective) {
  case Collective::AllGather:
  case Collective::Gather:
    return {uint32_t(part), uint32_t(all), 0};
  case Collective::ReduceScatter:
  case Collective::Scatter:
    return {uint32_t(all), uint32_t(part), 0};
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return {uint32_t(all), uint32_t(all), 0};
  default:
    return {uint32_t(part), uint32_t(part), 0};
  }
}

} // namespace

FailureOr<Program> collc::sched::expandSchedule(ScheduleOp schedule,
                                                const ExpandOptions &options) {
  std::string name = "schedule @" + schedule.getSymName().str();
  auto fail = [&](const Twine &message) {
    schedule.emitError() << name << " " << message;
    return failure();
  };

  // n and k.
  int64_t n = options.groupSize;
  std::optional<int32_t> fixedN = schedule.getGroupSize();
  if (n == 0 && !fixedN)
    return fail("is parametric; expanding it needs a group size");
  if (n == 0)
    n = *fixedN;
  if (n < 1 || n > (1 << 20))
    return fail("cannot be expanded for " + Twine(n) +
                " ranks; the group size must be in [1, 2^20]");
  if (fixedN && *fixedN != n)
    return fail("is written for " + Twine(*fixedN) + " ranks, not " + Twine(n));
  int64_t k = options.chunksPerPart;
  std::optional<int32_t> fixedK = schedule.getChunksPerPart();
  if (k == 0)
    k = fixedK ? *fixedK : 1;
  if (fixedK && *fixedK != k)
    return fail("is written for " + Twine(*fixedK) + " chunks per part, not " +
                Twine(k));
  if (n * k > std::numeric_limits<uint32_t>::max())
    return fail("needs " + Twine(n * k) + " chunks per buffer, more than 2^32");

  // The environment: n, k, the parameters, r, the loop variables.
  std::vector<int64_t> env = {n, k};
  llvm::StringMap<bool> used;
  if (auto params = schedule.getParams()) {
    for (NamedAttribute param : *params) {
      StringRef paramName = param.getName().getValue();
      auto override = options.params.find(paramName);
      bool overridden = override != options.params.end();
      env.push_back(overridden ? override->second
                               : cast<IntegerAttr>(param.getValue()).getInt());
      used[paramName] = true;
    }
  }
  for (const auto &entry : options.params)
    if (!used.count(entry.getKey()))
      return fail("has no parameter '" + entry.getKey() + "'");
  unsigned numSymbols = env.size();
  env.resize(numSymbols + 1 + getMaxLoopDepth(schedule.getBody()), 0);

  Program program;
  program.algorithm = schedule.getAlgorithm() ? schedule.getAlgorithm()->str()
                                              : schedule.getSymName().str();
  program.collective = toProgramCollective(schedule.getCollective());
  program.numRanks = static_cast<int32_t>(n);
  program.chunksPerPart = static_cast<uint32_t>(k);
  program.buffers = getBufferShape(program.collective, n, k);

  auto evaluateHeader = [&](Attribute attr, const char *what,
                            int64_t &value) -> LogicalResult {
    EvalError error =
        CompiledExpr::compile(attr, numSymbols).evaluate(env.data(), value);
    if (error != EvalError::None)
      return fail(Twine("has a ") + what + " expression that " +
                  evalErrorMessage(error));
    return success();
  };
  bool sendRecv = program.collective == Collective::SendRecv;
  std::vector<PerRankParam> perRankParams;
  for (auto [attr, what, field] :
       {std::tuple(schedule.getRootAttr(), "root", &program.root),
        std::tuple(sendRecv ? Attribute() : schedule.getPeerAttr(), "peer",
                   &program.peer)}) {
    if (!attr)
      continue;
    int64_t value;
    if (failed(evaluateHeader(attr, what, value)))
      return failure();
    if (value < 0 || value >= n)
      return fail(Twine("has ") + what + " " + Twine(value) +
                  ", outside the group of " + Twine(n) + " ranks");
    *field = static_cast<int32_t>(value);
  }
  if (!sendRecv && !options.sendTo.empty())
    return fail("is a " + Twine(collectiveName(program.collective)) +
                " schedule; only send_recv takes a send_to table");
  // send_recv's permutation: the expansion's table, the schedule's table,
  // the single pair root -> peer(root), or peer(r) for every rank.
  if (sendRecv) {
    std::vector<int32_t> &sendTo = program.sendTo;
    if (!options.sendTo.empty()) {
      sendTo = options.sendTo;
    } else if (auto table = schedule.getSendTo()) {
      sendTo.assign(table->begin(), table->end());
    } else if (Attribute peer = schedule.getPeerAttr()) {
      CompiledExpr compiledPeer = CompiledExpr::compile(peer, numSymbols);
      sendTo.assign(n, -1);
      for (int64_t r = 0; r < n; ++r) {
        if (program.root >= 0 && r != program.root)
          continue;
        env[numSymbols] = r;
        int64_t value;
        EvalError error = compiledPeer.evaluate(env.data(), value);
        if (error != EvalError::None)
          return fail("has a peer expression that " +
                      Twine(evalErrorMessage(error)) + " for rank " + Twine(r));
        if (value < 0 || value >= n)
          return fail("has peer " + Twine(value) + " for rank " + Twine(r) +
                      ", outside the group of " + Twine(n) + " ranks");
        if (value == r)
          return fail("sends and receives on the same rank " + Twine(r));
        sendTo[r] = static_cast<int32_t>(value);
      }
      env[numSymbols] = 0;
    }
    if (sendTo.size() != static_cast<size_t>(n))
      return fail("gets a send_to table of " + Twine(sendTo.size()) +
                  " entries; " + Twine(n) + " ranks need " + Twine(n));
    std::vector<int32_t> sender(n, -1);
    int64_t senders = 0;
    for (int64_t r = 0; r < n; ++r) {
      int32_t to = sendTo[r];
      if (to == -1)
        continue;
      if (to < 0 || to >= n)
        return fail("sends rank " + Twine(r) + " to " + Twine(to) +
                    ", outside the group of " + Twine(n) +
                    " ranks (-1: no send)");
      if (to == r)
        return fail("sends and receives on the same rank " + Twine(r));
      if (sender[to] >= 0)
        return fail("sends ranks " + Twine(sender[to]) + " and " + Twine(r) +
                    " to rank " + Twine(to) +
                    "; a rank receives from one at most");
      sender[to] = static_cast<int32_t>(r);
      ++senders;
    }
    // root and peer name the pair when there is only one.
    program.root = program.peer = -1;
    if (senders == 1)
      for (int64_t r = 0; r < n; ++r)
        if (sendTo[r] >= 0) {
          program.root = static_cast<int32_t>(r);
          program.peer = sendTo[r];
        }
    // The per-rank parameters send_peer and recv_peer.
    if (auto params = schedule.getParams()) {
      unsigned slot = 2;
      for (NamedAttribute param : *params) {
        StringRef paramName = param.getName().getValue();
        if (paramName == "send_peer" || paramName == "recv_peer") {
          if (options.params.count(paramName))
            return fail("sets its parameter '" + paramName +
                        "' per rank from the permutation; it cannot be "
                        "overridden");
          perRankParams.push_back(
              {slot, paramName == "send_peer" ? sendTo : sender});
        }
        ++slot;
      }
    }
  }
  if (Attribute scratch = schedule.getScratchAttr()) {
    int64_t value;
    if (failed(evaluateHeader(scratch, "scratch", value)))
      return failure();
    if (value < 0 || value > std::numeric_limits<uint32_t>::max())
      return fail("has " + Twine(value) +
                  " scratch chunks; expected [0, 2^32)");
    program.buffers.scratchChunks = static_cast<uint32_t>(value);
  }
  if (program.collective == Collective::AllToAllV) {
    if (!options.sendCounts.empty())
      program.sendCounts = options.sendCounts;
    else if (auto counts = schedule.getSendCounts())
      program.sendCounts.assign(counts->begin(), counts->end());
    if (!program.sendCounts.empty() &&
        program.sendCounts.size() != static_cast<size_t>(n * n))
      return fail("gets " + Twine(program.sendCounts.size()) +
                  " send counts; " + Twine(n) + " ranks need " + Twine(n * n));
  }

  program.ranks.resize(n);
  CompiledSchedule compiled(numSymbols);
  Expander expander(options, program, compiled, std::move(env), numSymbols);
  expander.setPerRankParams(std::move(perRankParams));
  if (schedule.isExplicit()) {
    for (RankOp rank : schedule.getBody().getOps<RankOp>()) {
      std::vector<CompiledChannel> channels =
          compiled.compileChannels(rank.getBody());
      if (failed(expander.expandRank(rank.getRank(), channels)))
        return failure();
    }
  } else {
    std::vector<CompiledChannel> channels =
        compiled.compileChannels(schedule.getBody());
    for (int32_t rank = 0; rank < n; ++rank)
      if (failed(expander.expandRank(rank, channels)))
        return failure();
  }
  return program;
}

FailureOr<Program> collc::sched::expandSchedule(ScheduleOp schedule,
                                                int32_t groupSize,
                                                uint32_t chunksPerPart) {
  ExpandOptions options;
  options.groupSize = groupSize;
  options.chunksPerPart = chunksPerPart;
  return expandSchedule(schedule, options);
}
