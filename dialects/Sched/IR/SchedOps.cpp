//===- SchedOps.cpp - verifiers of the sched dialect's operations ---------===//
#include "dialects/Sched/IR/SchedOps.h"
#include "dialects/Sched/IR/SchedExpr.h"
#include "dialects/Sched/IR/SchedSyntax.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace collc::sched;

/// The most channels a rank may have: channel ids are in [0, kMaxChannels).
static constexpr int32_t kMaxChannels = 256;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {

/// What the expressions of an op may refer to.
struct ScopeShape {
  unsigned numLoops = 0;  ///< dims: r (when hasRank) and this many loops
  bool hasRank = true;    ///< false in the schedule's header
  unsigned numParams = 0; ///< symbols: n, k and this many parameters

  unsigned numDims() const { return (hasRank ? 1 : 0) + numLoops; }
  unsigned numSymbols() const { return 2 + numParams; }
};

ScopeShape getScopeShape(Operation *op) {
  ScopeShape shape;
  shape.numLoops = getLoopDepth(op);
  if (auto schedule = op->getParentOfType<ScheduleOp>())
    shape.numParams = schedule.getNumSymbols() - 2;
  return shape;
}

std::string describeDims(const ScopeShape &shape) {
  if (!shape.hasRank)
    return "none in a schedule's header";
  return "r and " + std::to_string(shape.numLoops) +
         (shape.numLoops == 1 ? " loop variable" : " loop variables");
}

/// Checks that `expr` is an integer or a one-result map over exactly the
/// scope's dims and symbols, with positive constant divisors.
LogicalResult verifyExpr(Operation *op, StringRef what, Attribute expr,
                         const ScopeShape &shape) {
  if (!expr || isa<IntegerAttr>(expr))
    return success();
  AffineMap map = getExprMap(expr);
  if (!map)
    return op->emitOpError() << what << " must be an integer or a map";
  if (map.getNumResults() != 1)
    return op->emitOpError() << what << " has " << map.getNumResults()
                             << " results; an expression has one";
  if (map.getNumDims() != shape.numDims())
    return op->emitOpError() << what << " has " << map.getNumDims()
                             << " dims but " << shape.numDims()
                             << " are in scope (" << describeDims(shape) << ")";
  if (map.getNumSymbols() != shape.numSymbols())
    return op->emitOpError()
           << what << " has " << map.getNumSymbols() << " symbols but "
           << shape.numSymbols() << " are in scope (n, k and "
           << shape.numParams << " parameters)";
  LogicalResult result = success();
  map.getResult(0).walk([&](AffineExpr sub) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(sub);
    if (!binary || binary.getKind() == AffineExprKind::Add ||
        binary.getKind() == AffineExprKind::Mul)
      return;
    if (auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
        divisor && divisor.getValue() <= 0 && succeeded(result))
      result = op->emitOpError()
               << what << " divides by " << divisor.getValue();
  });
  return result;
}

/// " of 8 ranks" when the group size is known.
std::string ofGroup(int64_t groupSize) {
  return groupSize > 0 ? " of " + std::to_string(groupSize) + " ranks" : "";
}

/// Whether `value` is a rank of a group of `groupSize` ranks (any
/// non-negative value when the size is unknown, 0).
bool inGroup(int64_t value, int64_t groupSize) {
  return value >= 0 && (groupSize <= 0 || value < groupSize);
}

std::optional<int64_t> getConstant(Attribute expr) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(expr))
    return integer.getInt();
  return std::nullopt;
}

/// Checks that the ops of a stream body (a channel, loop or guard) are
/// instructions, loops and guards.
LogicalResult verifyStreamBody(Operation *op, Region &region) {
  for (Operation &child : region.getOps())
    if (!isa<InstructionOp, ForOp, IfOp, LetOp>(child))
      return op->emitOpError("may only hold sched instructions, sched.for, "
                             "sched.if and sched.let; found '")
             << child.getName() << "'";
  return success();
}

/// What binds `name` in the scope of `op` ("an enclosing loop's variable",
/// or for a let's name "the name of an enclosing sched.let"), or empty
/// when nothing does; a channel range's variable counts as a loop's.
std::string describeBinder(Operation *op, StringRef name) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto let = dyn_cast<LetOp>(parent))
      for (Attribute bound : let.getNames())
        if (auto text = dyn_cast<StringAttr>(bound); text && text == name)
          return "the name of an enclosing sched.let";
    if (auto loop = dyn_cast<ForOp>(parent); loop && loop.getVar() == name)
      return "an enclosing loop's variable";
    if (auto channel = dyn_cast<ChannelOp>(parent);
        channel && channel.isRange() && *channel.getVar() == name)
      return "an enclosing loop's variable";
    if (isa<ScheduleOp>(parent))
      break;
  }
  return "";
}

/// The rank an op belongs to in the explicit form.
std::optional<int32_t> getExplicitRank(Operation *op) {
  if (auto rank = op->getParentOfType<RankOp>())
    return rank.getRank();
  return std::nullopt;
}

/// The ids a channel op stands for: [first, end), end unknown (nullopt)
/// for a range whose bound is symbolic.
struct ChannelIds {
  int64_t first = 0;
  std::optional<int64_t> end;
};

ChannelIds getChannelIds(ChannelOp channel) {
  ChannelIds ids;
  ids.first = channel.getId();
  if (!channel.isRange())
    ids.end = ids.first + 1;
  else if (std::optional<int64_t> upper = getConstant(channel.getUpperAttr()))
    ids.end = std::max(*upper, ids.first);
  return ids;
}

/// Checks that the channel ops of a block stand for distinct ids, where the
/// ids are known before expansion (expansion checks the others).
LogicalResult verifyDistinctChannels(Block &block, StringRef where) {
  SmallVector<std::pair<ChannelOp, ChannelIds>> seen;
  for (ChannelOp channel : block.getOps<ChannelOp>()) {
    ChannelIds ids = getChannelIds(channel);
    for (auto &[other, otherIds] : seen) {
      if (!ids.end || !otherIds.end)
        continue;
      int64_t first = std::max(ids.first, otherIds.first);
      if (first < std::min(*ids.end, *otherIds.end))
        return channel.emitOpError("channel ")
               << first << " appears twice in " << where;
    }
    seen.emplace_back(channel, ids);
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// ScheduleOp
//===----------------------------------------------------------------------===//

bool ScheduleOp::isExplicit() { return !getBody().getOps<RankOp>().empty(); }

unsigned ScheduleOp::getNumSymbols() {
  return 2 + (getParams() ? getParams()->size() : 0);
}

SmallVector<StringRef> ScheduleOp::getSymbolNames() {
  SmallVector<StringRef> names = {"n", "k"};
  if (auto params = getParams())
    for (NamedAttribute param : *params)
      names.push_back(param.getName().getValue());
  return names;
}

static bool isRooted(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::broadcast:
  case CollectiveKind::reduce:
  case CollectiveKind::scatter:
  case CollectiveKind::gather:
  case CollectiveKind::send_recv:
    return true;
  default:
    return false;
  }
}

LogicalResult ScheduleOp::verify() {
  std::optional<int32_t> groupSize = getGroupSize();
  if (groupSize && *groupSize < 1)
    return emitOpError("group_size must be positive, got ") << *groupSize;
  if (getChunksPerPart() && *getChunksPerPart() < 1)
    return emitOpError("chunks_per_part must be positive, got ")
           << *getChunksPerPart();

  if (auto params = getParams()) {
    for (NamedAttribute param : *params) {
      StringRef name = param.getName().getValue();
      if (!isPlainIdentifier(name))
        return emitOpError("parameter name '")
               << name
               << "' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
      if (isReservedName(name))
        return emitOpError("parameter name '")
               << name << "' is reserved (r, n, k, mod, floordiv, ceildiv)";
      if (!isa<IntegerAttr>(param.getValue()))
        return emitOpError("parameter '") << name << "' is not an integer";
    }
  }

  // Root and peer, by collective.
  CollectiveKind collective = getCollective();
  StringRef collectiveName = stringifyCollectiveKind(collective);
  bool sendRecv = collective == CollectiveKind::send_recv;
  // send_recv's root is optional: without it every rank sends.
  if (isRooted(collective) && !sendRecv && !getRoot())
    return emitOpError("collective ") << collectiveName << " needs a root";
  if (!isRooted(collective) && getRoot())
    return emitOpError("collective ") << collectiveName << " takes no root";
  if (sendRecv && !getPeer() && !getSendTo())
    return emitOpError("collective send_recv needs a peer (the receiver) "
                       "or a send_to table");
  if (!sendRecv && getPeer())
    return emitOpError("only send_recv takes a peer");
  if (!sendRecv && getSendTo())
    return emitOpError("only send_recv takes send_to");
  if (getSendTo() && (getPeer() || getRoot()))
    return emitOpError("send_to replaces root and peer; give one or the other");

  ScopeShape header;
  header.hasRank = false;
  header.numParams = getNumSymbols() - 2;
  ScopeShape peerScope = header;
  peerScope.hasRank = true;
  if (failed(verifyExpr(*this, "root", getRootAttr(), header)) ||
      failed(verifyExpr(*this, "peer", getPeerAttr(), peerScope)) ||
      failed(verifyExpr(*this, "scratch", getScratchAttr(), header)))
    return failure();
  if (std::optional<ArrayRef<int64_t>> sendTo = getSendTo()) {
    if (!groupSize)
      return emitOpError("send_to needs a group_size");
    int64_t n = *groupSize;
    if (static_cast<int64_t>(sendTo->size()) != n)
      return emitOpError("send_to has ")
             << sendTo->size() << " entries; a group of " << n
             << " ranks needs " << n;
    llvm::SmallVector<int64_t> sender(n, -1);
    for (auto [rank, to] : llvm::enumerate(*sendTo)) {
      if (to == -1)
        continue;
      if (!inGroup(to, n))
        return emitOpError("send_to sends rank ")
               << rank << " to " << to << ", outside the group" << ofGroup(n)
               << " (-1: no send)";
      if (to == static_cast<int64_t>(rank))
        return emitOpError("send_to sends rank ") << rank << " to itself";
      if (sender[to] >= 0)
        return emitOpError("send_to sends ranks ")
               << sender[to] << " and " << rank << " to rank " << to;
      sender[to] = static_cast<int64_t>(rank);
    }
  }
  for (auto [name, expr] :
       {std::pair<StringRef, Attribute>("root", getRootAttr()),
        {"peer", getPeerAttr()}}) {
    std::optional<int64_t> value = getConstant(expr);
    if (!value)
      continue;
    if (!inGroup(*value, groupSize.value_or(0)))
      return emitOpError() << name << " " << *value << " is outside the group"
                           << ofGroup(groupSize.value_or(0));
  }
  std::optional<int64_t> root = getConstant(getRootAttr());
  std::optional<int64_t> peer = getConstant(getPeerAttr());
  if (root && peer && *root == *peer)
    return emitOpError("send_recv's root and peer are both rank ") << *root;
  if (std::optional<int64_t> scratch = getConstant(getScratchAttr());
      scratch && *scratch < 0)
    return emitOpError("scratch must not be negative, got ") << *scratch;

  if (auto counts = getSendCounts()) {
    if (collective != CollectiveKind::all_to_all_v)
      return emitOpError("only all_to_all_v takes send_counts");
    if (!groupSize)
      return emitOpError("send_counts needs a group_size");
    int64_t n = *groupSize;
    if (static_cast<int64_t>(counts->size()) != n * n)
      return emitOpError("send_counts has ")
             << counts->size() << " entries; a group of " << n
             << " ranks needs " << n * n;
    for (int64_t count : *counts)
      if (count < 0)
        return emitOpError("send_counts holds the negative count ") << count;
  }

  // The body: channels (parametric) or ranks (explicit).
  bool hasChannels = false, hasRanks = false;
  llvm::SmallDenseSet<int32_t> rankIds;
  for (Operation &child : getBody().getOps()) {
    if (isa<ChannelOp>(child)) {
      hasChannels = true;
    } else if (auto rank = dyn_cast<RankOp>(child)) {
      hasRanks = true;
      if (!rankIds.insert(rank.getRank()).second)
        return rank.emitOpError("rank ")
               << rank.getRank() << " appears twice in the schedule";
    } else {
      return emitOpError("may only hold sched.channel or sched.rank ops; "
                         "found '")
             << child.getName() << "'";
    }
  }
  if (failed(verifyDistinctChannels(getBody().front(), "the schedule")))
    return failure();
  if (hasChannels && hasRanks)
    return emitOpError("holds both sched.channel ops (the parametric form) "
                       "and sched.rank ops (the explicit form)");
  if (hasRanks && !groupSize)
    return emitOpError("explicit schedule (sched.rank ops) needs a "
                       "group_size");
  return success();
}

//===----------------------------------------------------------------------===//
// RankOp and ChannelOp
//===----------------------------------------------------------------------===//

LogicalResult RankOp::verify() {
  auto schedule = (*this)->getParentOfType<ScheduleOp>();
  int64_t groupSize = schedule.getGroupSize().value_or(0);
  if (!inGroup(getRank(), groupSize))
    return emitOpError("rank ")
           << getRank() << " is outside the group" << ofGroup(groupSize);
  for (Operation &child : getBody().getOps())
    if (!isa<ChannelOp>(child))
      return emitOpError("may only hold sched.channel ops; found '")
             << child.getName() << "'";
  return verifyDistinctChannels(getBody().front(),
                                "rank " + std::to_string(getRank()));
}

LogicalResult ChannelOp::verify() {
  if (getId() < 0 || getId() >= kMaxChannels)
    return emitOpError("channel id ")
           << getId() << " is outside [0, " << kMaxChannels << ")";
  if (static_cast<bool>(getVarAttr()) != static_cast<bool>(getUpperAttr()))
    return emitOpError("a channel range needs both a variable and an upper "
                       "bound");
  if (isRange()) {
    StringRef var = *getVar();
    if (!isPlainIdentifier(var))
      return emitOpError("channel variable '")
             << var << "' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
    if (isReservedName(var))
      return emitOpError("channel variable '")
             << var << "' is reserved (r, n, k, mod, floordiv, ceildiv)";
    ExprScope scope = getExprScope(*this);
    if (llvm::is_contained(scope.symbols, var))
      return emitOpError("channel variable '")
             << var << "' shadows the schedule's parameter";
    ScopeShape header;
    header.hasRank = false;
    if (auto schedule = (*this)->getParentOfType<ScheduleOp>())
      header.numParams = schedule.getNumSymbols() - 2;
    if (failed(verifyExpr(*this, "channel range's upper bound", getUpperAttr(),
                          header)))
      return failure();
    if (std::optional<int64_t> upper = getConstant(getUpperAttr());
        upper && *upper > kMaxChannels)
      return emitOpError("channel range reaches channel ")
             << *upper - 1 << ", outside [0, " << kMaxChannels << ")";
  }
  return verifyStreamBody(*this, getBody());
}

//===----------------------------------------------------------------------===//
// ForOp and IfOp
//===----------------------------------------------------------------------===//

LogicalResult ForOp::verify() {
  StringRef var = getVar();
  if (!isPlainIdentifier(var))
    return emitOpError("loop variable '")
           << var << "' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (isReservedName(var))
    return emitOpError("loop variable '")
           << var << "' is reserved (r, n, k, mod, floordiv, ceildiv)";
  ExprScope scope = getExprScope(*this);
  if (std::string binder = describeBinder(*this, var); !binder.empty())
    return emitOpError("loop variable '") << var << "' shadows " << binder;
  if (llvm::is_contained(scope.symbols, var))
    return emitOpError("loop variable '")
           << var << "' shadows the schedule's parameter";

  ScopeShape shape = getScopeShape(*this);
  if (failed(verifyExpr(*this, "lower bound", getLowerAttr(), shape)) ||
      failed(verifyExpr(*this, "upper bound", getUpperAttr(), shape)) ||
      failed(verifyExpr(*this, "step", getStepAttr(), shape)))
    return failure();
  std::optional<int64_t> step = getConstant(getStepAttr());
  if (getGeometric()) {
    if (!getStepAttr())
      return emitOpError("a geometric loop needs a factor (step * c)");
    if (step && *step < 2)
      return emitOpError("geometric step factor must be at least 2, got ")
             << *step;
    if (std::optional<int64_t> lower = getConstant(getLowerAttr());
        lower && *lower < 1)
      return emitOpError("a geometric loop must start at 1 or more, got ")
             << *lower;
  } else if (step && *step < 1) {
    return emitOpError("step must be positive, got ") << *step;
  }
  return verifyStreamBody(*this, getBody());
}

//===----------------------------------------------------------------------===//
// LetOp
//===----------------------------------------------------------------------===//

LogicalResult LetOp::verify() {
  ArrayAttr names = getNames(), values = getValues();
  if (names.empty())
    return emitOpError("binds no name; write `sched.let NAME = EXPR { ... }`");
  if (names.size() != values.size())
    return emitOpError("binds ")
           << names.size() << " names to " << values.size() << " values";
  ExprScope scope = getExprScope(*this);
  ScopeShape shape = getScopeShape(*this);
  for (auto [i, attr] : llvm::enumerate(names)) {
    StringRef name = cast<StringAttr>(attr).getValue();
    if (!isPlainIdentifier(name))
      return emitOpError("name '")
             << name << "' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
    if (isReservedName(name))
      return emitOpError("name '")
             << name << "' is reserved (r, n, k, mod, floordiv, ceildiv)";
    if (llvm::is_contained(scope.symbols, name))
      return emitOpError("name '")
             << name << "' shadows the schedule's parameter";
    if (std::string binder = describeBinder(*this, name); !binder.empty())
      return emitOpError("name '") << name << "' shadows " << binder;
    for (Attribute earlier : names.getValue().take_front(i))
      if (cast<StringAttr>(earlier).getValue() == name)
        return emitOpError("name '") << name << "' is bound twice";
    // Value i sees the enclosing scope and the names before it.
    ScopeShape valueShape = shape;
    valueShape.numLoops += i;
    if (failed(verifyExpr(*this, "value of '" + name.str() + "'", values[i],
                          valueShape)))
      return failure();
  }
  return verifyStreamBody(*this, getBody());
}

IntegerSet IfOp::getConditionSet() {
  return collc::sched::getConditionSet(getCondition());
}

LogicalResult IfOp::verify() {
  ScopeShape shape = getScopeShape(*this);
  IntegerSet set = getConditionSet();
  if (set.getNumDims() != shape.numDims())
    return emitOpError("condition has ")
           << set.getNumDims() << " dims but " << shape.numDims()
           << " are in scope (" << describeDims(shape) << ")";
  if (set.getNumSymbols() != shape.numSymbols())
    return emitOpError("condition has ")
           << set.getNumSymbols() << " symbols but " << shape.numSymbols()
           << " are in scope (n, k and " << shape.numParams << " parameters)";
  for (AffineExpr constraint : set.getConstraints()) {
    AffineMap map =
        AffineMap::get(set.getNumDims(), set.getNumSymbols(), constraint);
    if (failed(verifyExpr(*this, "condition", MapAttr::get(getContext(), map),
                          shape)))
      return failure();
  }
  if (failed(verifyStreamBody(*this, getThenRegion())))
    return failure();
  return verifyStreamBody(*this, getElseRegion());
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// The checks shared by every instruction.
static LogicalResult verifyInstruction(Operation *op) {
  ScopeShape shape = getScopeShape(op);
  auto schedule = op->getParentOfType<ScheduleOp>();
  if (!schedule)
    return success(); // the enclosing ops' parent checks report it
  int64_t groupSize = schedule.getGroupSize().value_or(0);
  std::optional<int32_t> rank = getExplicitRank(op);

  for (StringRef name :
       {"from", "to", "src_index", "dst_index", "count", "fanin", "step"}) {
    Attribute expr = op->getAttr(name);
    StringRef what = name == "from"        ? "peer ('from')"
                     : name == "to"        ? "peer ('to')"
                     : name == "src_index" ? "source index"
                     : name == "dst_index" ? "destination index"
                                           : name;
    if (failed(verifyExpr(op, what, expr, shape)))
      return failure();
    std::optional<int64_t> value = getConstant(expr);
    if (!value)
      continue;
    if (name == "from" || name == "to") {
      if (!inGroup(*value, groupSize))
        return op->emitOpError("peer ")
               << *value << " is outside the group" << ofGroup(groupSize);
      if (rank && *value == *rank)
        return op->emitOpError("rank ")
               << *rank << (name == "to" ? " sends to" : " receives from")
               << " itself; use sched.copy for local moves";
    } else if ((name == "src_index" || name == "dst_index") && *value < 0) {
      return op->emitOpError("chunk index ") << *value << " is negative";
    } else if (name == "count" && *value < 1) {
      return op->emitOpError("count must be at least 1, got ") << *value;
    } else if (name == "fanin" && *value < 1) {
      return op->emitOpError("fanin must be at least 1, got ") << *value;
    } else if (name == "step" && (*value < INT32_MIN || *value > INT32_MAX)) {
      return op->emitOpError("step ") << *value << " does not fit in 32 bits";
    }
  }

  // Scratch chunks exist only when the schedule declares some.
  std::optional<int64_t> scratch = getConstant(schedule.getScratchAttr());
  bool noScratch = !schedule.getScratchAttr() || (scratch && *scratch == 0);
  for (StringRef name : {"src", "dst"}) {
    auto buffer = op->getAttrOfType<BufferKindAttr>(name);
    if (buffer && buffer.getValue() == BufferKind::scratch && noScratch)
      return op->emitOpError("uses scratch chunks but the schedule declares "
                             "none (scratch = ...)");
  }

  // Dependencies name another channel of the same rank.
  auto dependencies = op->getAttrOfType<ArrayAttr>("after");
  if (!dependencies)
    return success();
  auto channel = op->getParentOfType<ChannelOp>();
  Block &channels = channel->getParentRegion()->front();
  for (Attribute attr : dependencies) {
    auto dependency = cast<DependencyAttr>(attr);
    Attribute index = dependency.getIndex();
    if (Attribute channelEnd = dependency.getChannelEnd()) {
      // A range of channels: evaluated, and checked, when expanded.
      if ((dependency.getChannelExpr() &&
           failed(verifyExpr(op, "dependency channel",
                             dependency.getChannelExpr(), shape))) ||
          failed(verifyExpr(op, "dependency channel range end", channelEnd,
                            shape)) ||
          failed(verifyExpr(op, "dependency index", index, shape)))
        return failure();
      continue;
    }
    if (Attribute channelExpr = dependency.getChannelExpr()) {
      // Evaluated, and checked, when the schedule is expanded.
      if (failed(verifyExpr(op, "dependency channel", channelExpr, shape)) ||
          failed(verifyExpr(op, "dependency index", index, shape)))
        return failure();
      continue;
    }
    int64_t target = dependency.getChannel();
    ChannelIds own = getChannelIds(channel);
    if (target == channel.getId() || (channel.isRange() && own.end &&
                                      target >= own.first && target < *own.end))
      return op->emitOpError("depends on its own channel ")
             << target << "; a channel's instructions already run in order";
    bool exists = llvm::any_of(channels.getOps<ChannelOp>(), [&](ChannelOp c) {
      ChannelIds ids = getChannelIds(c);
      return target >= ids.first && (!ids.end || target < *ids.end);
    });
    if (!exists)
      return op->emitOpError("depends on channel ")
             << target << ", which "
             << (rank ? "rank " + std::to_string(*rank) : "the schedule")
             << " does not have";
    if (failed(verifyExpr(op, "dependency index", index, shape)))
      return failure();
    if (std::optional<int64_t> value = getConstant(index); value && *value < 0)
      return op->emitOpError("dependency index ") << *value << " is negative";
  }
  return success();
}

LogicalResult SendOp::verify() { return verifyInstruction(*this); }
LogicalResult RecvOp::verify() { return verifyInstruction(*this); }
LogicalResult CopyOp::verify() { return verifyInstruction(*this); }
LogicalResult ReduceOp::verify() { return verifyInstruction(*this); }
LogicalResult RecvReduceSendOp::verify() { return verifyInstruction(*this); }
LogicalResult RecvCopySendOp::verify() { return verifyInstruction(*this); }
LogicalResult RecvReduceCopyOp::verify() { return verifyInstruction(*this); }
LogicalResult RecvReduceCopySendOp::verify() {
  return verifyInstruction(*this);
}

#define GET_OP_CLASSES
#include "dialects/Sched/IR/SchedOps.cpp.inc"

namespace {

/// Whether Op's name is "sched." and its opcode's name (collrt/Opcodes.h).
template <class Op> constexpr bool namedByOpcode() {
  constexpr llvm::StringLiteral name = Op::getOperationName();
  constexpr llvm::StringLiteral prefix = "sched.";
  for (size_t i = 0; i < prefix.size(); ++i)
    if (i >= name.size() || name.data()[i] != prefix.data()[i])
      return false;
  return collrt::opcodeNameIs(Op::getOpcode(), name.data() + prefix.size(),
                              name.size() - prefix.size());
}

static_assert(namedByOpcode<SendOp>() && namedByOpcode<RecvOp>() &&
                  namedByOpcode<CopyOp>() && namedByOpcode<ReduceOp>() &&
                  namedByOpcode<RecvReduceSendOp>() &&
                  namedByOpcode<RecvCopySendOp>() &&
                  namedByOpcode<RecvReduceCopyOp>() &&
                  namedByOpcode<RecvReduceCopySendOp>(),
              "a sched instruction op is named by its opcode");

} // namespace
