//===- SchedSyntax.cpp - custom directives of the sched ops' syntax -------===//
//
// Expressions name the dims and symbols in scope ("(r + s) mod n"). The
// names are bound by enclosing ops (sched.schedule binds r, n, k and the
// parameters; sched.for its variable; sched.let its names) that are not
// built yet while their
// bodies are parsed, so the body directives keep the names in a parse-time
// stack that the expression directives read. Printing walks the parents.
//
//===----------------------------------------------------------------------===//
#include "dialects/Sched/IR/SchedExpr.h"
#include "dialects/Sched/IR/SchedOps.h"

#include "mlir/IR/OpImplementation.h"

#include <vector>

using namespace mlir;
using namespace collc::sched;

namespace {

/// The scopes of the bodies being parsed on this thread, innermost last.
thread_local std::vector<ExprScope> parseScopes;

/// Makes `scope` the innermost parse scope while alive.
class ParseScopeGuard {
public:
  explicit ParseScopeGuard(ExprScope scope) {
    parseScopes.push_back(std::move(scope));
  }
  ~ParseScopeGuard() { parseScopes.pop_back(); }
  ParseScopeGuard(const ParseScopeGuard &) = delete;
  ParseScopeGuard &operator=(const ParseScopeGuard &) = delete;
};

ExprScope currentParseScope() {
  return parseScopes.empty() ? ExprScope() : parseScopes.back();
}

ExprScope headerScope(DictionaryAttr params) {
  ExprScope scope;
  scope.symbols = {"n", "k"};
  if (params)
    for (NamedAttribute param : params)
      scope.symbols.push_back(param.getName().getValue());
  return scope;
}

/// Parses an expression: an integer, a name, or a quoted expression.
ParseResult parseExprIn(OpAsmParser &parser, const ExprScope &scope,
                        Attribute &result) {
  MLIRContext *context = parser.getContext();
  int64_t value = 0;
  OptionalParseResult integer = parser.parseOptionalInteger(value);
  if (integer.has_value()) {
    if (failed(*integer))
      return failure();
    result = IntegerAttr::get(IntegerType::get(context, 64), value);
    return success();
  }
  SMLoc loc = parser.getCurrentLocation();
  // A map written positionally: affine_map<(d0)[s0, s1] -> (d0 + 1)>.
  if (succeeded(parser.parseOptionalKeyword("affine_map"))) {
    AffineMap map;
    if (parser.parseLess() || parser.parseAffineMap(map) ||
        parser.parseGreater())
      return failure();
    result = map.isSingleConstant()
                 ? Attribute(IntegerAttr::get(IntegerType::get(context, 64),
                                              map.getSingleConstantResult()))
                 : Attribute(AffineMapAttr::get(map));
    return success();
  }
  std::string text;
  StringRef name;
  bool quoted = succeeded(parser.parseOptionalString(&text));
  if (!quoted) {
    if (failed(parser.parseOptionalKeyword(&name))) {
      // An attribute alias (#map) or a #sched.map.
      Attribute attr;
      OptionalParseResult parsed = parser.parseOptionalAttribute(attr);
      if (parsed.has_value()) {
        if (failed(*parsed))
          return failure();
        if (!isa<IntegerAttr, AffineMapAttr, MapAttr>(attr))
          return parser.emitError(loc, "expected an integer or a map, got ")
                 << attr;
        result = attr;
        return success();
      }
      return parser.emitError(loc, "expected an integer, a name, a quoted "
                                   "expression or a map");
    }
    text = name.str();
  }
  ExprSyntaxError error;
  FailureOr<Attribute> expr = parseExprText(context, text, scope, error);
  if (failed(expr)) {
    // Point into the string, past its opening quote.
    SMLoc at = quoted
                   ? SMLoc::getFromPointer(loc.getPointer() + 1 + error.offset)
                   : loc;
    return parser.emitError(at, error.message);
  }
  result = *expr;
  return success();
}

void printExprIn(OpAsmPrinter &printer, const ExprScope &scope,
                 Attribute expr) {
  printExprAttr(printer.getStream(), expr, scope);
}

/// Parses `{` region `}`, giving an empty region its block.
ParseResult parseBodyRegion(OpAsmParser &parser, Region &body) {
  if (parser.parseRegion(body, /*arguments=*/{}))
    return failure();
  if (body.empty())
    body.emplaceBlock();
  return success();
}

void printBodyRegion(OpAsmPrinter &printer, Region &body) {
  printer.printRegion(body, /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/false,
                      /*printEmptyBlock=*/false);
}

} // namespace

namespace collc {
namespace sched {

//===----------------------------------------------------------------------===//
// Expressions and chunk ranges
//===----------------------------------------------------------------------===//

ParseResult parseExpr(OpAsmParser &parser, Attribute &expr) {
  return parseExprIn(parser, currentParseScope(), expr);
}

void printExpr(OpAsmPrinter &printer, Operation *op, Attribute expr) {
  printExprIn(printer, getExprScope(op), expr);
}

/// A bare collective name (the enum attribute's own printer would add a
/// space).
ParseResult parseCollective(OpAsmParser &parser,
                            CollectiveKindAttr &collective) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(name);
  if (!kind)
    return parser.emitError(loc, "unknown collective '")
           << name << "'; expected all_reduce, all_gather, reduce_scatter, "
           << "all_to_all, all_to_all_v, broadcast, reduce, scatter, gather "
           << "or send_recv";
  collective = CollectiveKindAttr::get(parser.getContext(), *kind);
  return success();
}

void printCollective(OpAsmPrinter &printer, Operation *,
                     CollectiveKindAttr collective) {
  printer << stringifyCollectiveKind(collective.getValue());
}

/// `input[EXPR]`
ParseResult parseChunk(OpAsmParser &parser, BufferKindAttr &buffer,
                       Attribute &index) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<BufferKind> kind = symbolizeBufferKind(name);
  if (!kind)
    return parser.emitError(loc, "unknown buffer '")
           << name << "'; expected input, output or scratch";
  buffer = BufferKindAttr::get(parser.getContext(), *kind);
  if (parser.parseLSquare() || parseExpr(parser, index) ||
      parser.parseRSquare())
    return failure();
  return success();
}

void printChunk(OpAsmPrinter &printer, Operation *op, BufferKindAttr buffer,
                Attribute index) {
  printer << stringifyBufferKind(buffer.getValue()) << '[';
  printExpr(printer, op, index);
  printer << ']';
}

/// `[(channel 1, index EXPR), ...]`
ParseResult parseDependencies(OpAsmParser &parser, ArrayAttr &dependencies) {
  SmallVector<Attribute> list;
  auto parseOne = [&]() -> ParseResult {
    uint32_t channel = 0;
    Attribute channelExpr, index;
    if (parser.parseLParen() || parser.parseKeyword("channel"))
      return failure();
    // An integer, or (inside a channel range) an expression.
    SMLoc loc = parser.getCurrentLocation();
    int64_t value = 0;
    OptionalParseResult integer = parser.parseOptionalInteger(value);
    if (integer.has_value()) {
      if (failed(*integer))
        return failure();
      if (value < 0 || value > UINT32_MAX)
        return parser.emitError(loc, "channel ")
               << value << " of a dependency is not a channel id";
      channel = static_cast<uint32_t>(value);
    } else {
      if (parseExpr(parser, channelExpr))
        return failure();
      if (auto constant = dyn_cast<IntegerAttr>(channelExpr)) {
        if (constant.getInt() < 0 || constant.getInt() > UINT32_MAX)
          return parser.emitError(loc, "channel ")
                 << constant.getInt() << " of a dependency is not a channel id";
        channel = static_cast<uint32_t>(constant.getInt());
        channelExpr = Attribute();
      }
    }
    // `to END`: every channel of [channel, END).
    Attribute channelEnd;
    if (succeeded(parser.parseOptionalKeyword("to")) &&
        parseExpr(parser, channelEnd))
      return failure();
    if (parser.parseComma() || parser.parseKeyword("index") ||
        parseExpr(parser, index) || parser.parseRParen())
      return failure();
    list.push_back(DependencyAttr::get(parser.getContext(), channel, index,
                                       channelExpr, channelEnd));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseOne))
    return failure();
  dependencies = ArrayAttr::get(parser.getContext(), list);
  return success();
}

void printDependencies(OpAsmPrinter &printer, Operation *op,
                       ArrayAttr dependencies) {
  printer << '[';
  llvm::interleaveComma(dependencies, printer, [&](Attribute attr) {
    auto dependency = dyn_cast<DependencyAttr>(attr);
    if (!dependency) {
      printer << attr;
      return;
    }
    printer << "(channel ";
    if (Attribute channelExpr = dependency.getChannelExpr())
      printExpr(printer, op, channelExpr);
    else
      printer << dependency.getChannel();
    if (Attribute channelEnd = dependency.getChannelEnd()) {
      printer << " to ";
      printExpr(printer, op, channelEnd);
    }
    printer << ", index ";
    printExpr(printer, op, dependency.getIndex());
    printer << ')';
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Schedule header and bodies
//===----------------------------------------------------------------------===//

ParseResult parseScheduleBody(OpAsmParser &parser, DictionaryAttr &params,
                              Attribute &root, Attribute &peer,
                              Attribute &scratch, DenseI64ArrayAttr &sendCounts,
                              DenseI64ArrayAttr &sendTo,
                              StringAttr &description, Region &body) {
  MLIRContext *context = parser.getContext();
  if (succeeded(parser.parseOptionalKeyword("params"))) {
    // `{gpus_per_node = 8, nodes = 4}`
    SmallVector<NamedAttribute> list;
    auto parseOne = [&]() -> ParseResult {
      SMLoc loc = parser.getCurrentLocation();
      StringRef name;
      int64_t value;
      if (parser.parseKeyword(&name) || parser.parseEqual() ||
          parser.parseInteger(value))
        return failure();
      for (NamedAttribute &other : list)
        if (other.getName() == name)
          return parser.emitError(loc, "parameter '")
                 << name << "' is given twice";
      list.emplace_back(StringAttr::get(context, name),
                        IntegerAttr::get(IntegerType::get(context, 64), value));
      return success();
    };
    if (parser.parseEqual() || parser.parseCommaSeparatedList(
                                   OpAsmParser::Delimiter::Braces, parseOne))
      return failure();
    params = DictionaryAttr::get(context, list);
  }
  ExprScope scope = headerScope(params);
  // send_recv's peer is a function of the rank.
  ExprScope peerScope = scope;
  peerScope.dims.push_back("r");
  for (auto [keyword, expr] : {std::pair<StringRef, Attribute *>("root", &root),
                               {"peer", &peer},
                               {"scratch", &scratch}}) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    if (parser.parseEqual() ||
        parseExprIn(parser, expr == &peer ? peerScope : scope, *expr))
      return failure();
  }
  for (auto [keyword, array] :
       {std::pair<StringRef, DenseI64ArrayAttr *>("send_counts", &sendCounts),
        {"send_to", &sendTo}}) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    SMLoc loc = parser.getCurrentLocation();
    Attribute value;
    if (parser.parseEqual() || parser.parseAttribute(value))
      return failure();
    *array = dyn_cast<DenseI64ArrayAttr>(value);
    if (!*array)
      return parser.emitError(loc) << keyword << " must be an array<i64: ...>";
  }
  if (succeeded(parser.parseOptionalKeyword("description"))) {
    std::string text;
    if (parser.parseEqual() || parser.parseString(&text))
      return failure();
    description = StringAttr::get(context, text);
  }

  scope.dims.push_back("r");
  ParseScopeGuard guard(std::move(scope));
  return parseBodyRegion(parser, body);
}

void printScheduleBody(OpAsmPrinter &printer, Operation *,
                       DictionaryAttr params, Attribute root, Attribute peer,
                       Attribute scratch, DenseI64ArrayAttr sendCounts,
                       DenseI64ArrayAttr sendTo, StringAttr description,
                       Region &body) {
  // The generated printer has put a space before this directive, so each
  // part ends with one.
  if (params) {
    printer << "params = {";
    llvm::interleaveComma(params, printer, [&](NamedAttribute param) {
      printer << param.getName().getValue() << " = ";
      if (auto value = dyn_cast<IntegerAttr>(param.getValue()))
        printer << value.getInt();
      else
        printer << param.getValue();
    });
    printer << "} ";
  }
  ExprScope scope = headerScope(params);
  ExprScope peerScope = scope;
  peerScope.dims.push_back("r");
  for (auto [keyword, expr] : {std::pair<StringRef, Attribute>("root", root),
                               {"peer", peer},
                               {"scratch", scratch}}) {
    if (!expr)
      continue;
    printer << keyword << " = ";
    printExprIn(printer, keyword == "peer" ? peerScope : scope, expr);
    printer << ' ';
  }
  if (sendCounts)
    printer << "send_counts = " << Attribute(sendCounts) << ' ';
  if (sendTo)
    printer << "send_to = " << Attribute(sendTo) << ' ';
  if (description) {
    printer << "description = ";
    printer.printString(description.getValue());
    printer << ' ';
  }
  printBodyRegion(printer, body);
}

ParseResult parseChannelRange(OpAsmParser &parser, IntegerAttr &id,
                              StringAttr &var, Attribute &upper) {
  MLIRContext *context = parser.getContext();
  auto channelId = [&](int32_t value) {
    return IntegerAttr::get(IntegerType::get(context, 32, IntegerType::Signed),
                            value);
  };
  int32_t value = 0;
  OptionalParseResult integer = parser.parseOptionalInteger(value);
  if (integer.has_value()) {
    if (failed(*integer))
      return failure();
    id = channelId(value);
    return success();
  }
  // `c = LB to UB`
  StringRef name;
  if (failed(parser.parseOptionalKeyword(&name)))
    return parser.emitError(parser.getCurrentLocation(),
                            "expected a channel id or a range `c = 0 to UB`");
  var = StringAttr::get(context, name);
  if (parser.parseEqual() || parser.parseInteger(value) ||
      parser.parseKeyword("to"))
    return failure();
  id = channelId(value);
  SMLoc loc = parser.getCurrentLocation();
  ExprScope scope = currentParseScope();
  Attribute bound;
  if (parseExprIn(parser, scope, bound))
    return failure();
  if (isa<IntegerAttr>(bound)) {
    upper = bound;
    return success();
  }
  AffineExpr expr = getExprAffineExpr(bound, context);
  AffineMap map = getExprMap(bound);
  if (!expr || !map)
    return parser.emitError(loc, "expected an expression as the channel "
                                 "range's upper bound");
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (expr.isFunctionOfDim(d))
      return parser.emitError(loc, "the upper bound of a channel range may "
                                   "only use n, k and the parameters, not '")
             << (d < scope.dims.size() ? scope.dims[d] : StringRef("?")) << "'";
  // Symbols only: the header's scope, without dims.
  upper = getExprAttr(expr, 0, map.getNumSymbols());
  return success();
}

void printChannelRange(OpAsmPrinter &printer, Operation *op, IntegerAttr id,
                       StringAttr var, Attribute upper) {
  if (!var) {
    printer << id.getInt();
    return;
  }
  printer << var.getValue() << " = " << id.getInt() << " to ";
  ExprScope scope;
  if (auto schedule = op->getParentOfType<ScheduleOp>())
    scope.symbols = schedule.getSymbolNames();
  else
    scope.symbols = {"n", "k"};
  if (upper)
    printExprIn(printer, scope, upper);
  else
    printer << "\"?\""; // invalid; the verifier says why
}

ParseResult parseChannelBody(OpAsmParser &parser, StringAttr var,
                             Region &body) {
  if (!var)
    return parseBodyRegion(parser, body);
  ExprScope scope = currentParseScope();
  scope.dims.push_back(var.getValue());
  ParseScopeGuard guard(std::move(scope));
  return parseBodyRegion(parser, body);
}

void printChannelBody(OpAsmPrinter &printer, Operation *, StringAttr,
                      Region &body) {
  printBodyRegion(printer, body);
}

ParseResult parseBody(OpAsmParser &parser, Region &body) {
  return parseBodyRegion(parser, body);
}

void printBody(OpAsmPrinter &printer, Operation *, Region &body) {
  printBodyRegion(printer, body);
}

//===----------------------------------------------------------------------===//
// Loops and guards
//===----------------------------------------------------------------------===//

ParseResult parseLoopVar(OpAsmParser &parser, StringAttr &var) {
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  var = StringAttr::get(parser.getContext(), name);
  return success();
}

void printLoopVar(OpAsmPrinter &printer, Operation *, StringAttr var) {
  printer << var.getValue();
}

/// `step EXPR` (additive) or `step * EXPR` (geometric).
ParseResult parseStep(OpAsmParser &parser, Attribute &step,
                      UnitAttr &geometric) {
  if (succeeded(parser.parseOptionalStar()))
    geometric = UnitAttr::get(parser.getContext());
  return parseExpr(parser, step);
}

void printStep(OpAsmPrinter &printer, Operation *op, Attribute step,
               UnitAttr geometric) {
  if (geometric)
    printer << "* ";
  if (step)
    printExpr(printer, op, step);
  else
    printer << 1; // invalid without a factor; the verifier says so
}

ParseResult parseLoopBody(OpAsmParser &parser, StringAttr var, Region &body) {
  ExprScope scope = currentParseScope();
  scope.dims.push_back(var.getValue());
  ParseScopeGuard guard(std::move(scope));
  return parseBodyRegion(parser, body);
}

void printLoopBody(OpAsmPrinter &printer, Operation *, StringAttr,
                   Region &body) {
  printBodyRegion(printer, body);
}

//===----------------------------------------------------------------------===//
// Lets
//===----------------------------------------------------------------------===//

ParseResult parseLetBindings(OpAsmParser &parser, ArrayAttr &names,
                             ArrayAttr &values) {
  MLIRContext *context = parser.getContext();
  ExprScope scope = currentParseScope();
  SmallVector<Attribute> nameList, valueList;
  auto parseOne = [&]() -> ParseResult {
    StringRef name;
    Attribute value;
    if (parser.parseKeyword(&name) || parser.parseEqual() ||
        parseExprIn(parser, scope, value))
      return failure();
    // The names bound so far; the verifier checks that they are new.
    StringAttr nameAttr = StringAttr::get(context, name);
    scope.dims.push_back(nameAttr.getValue());
    nameList.push_back(nameAttr);
    valueList.push_back(value);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseOne))
    return failure();
  names = ArrayAttr::get(context, nameList);
  values = ArrayAttr::get(context, valueList);
  return success();
}

void printLetBindings(OpAsmPrinter &printer, Operation *op, ArrayAttr names,
                      ArrayAttr values) {
  ExprScope scope = getExprScope(op);
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i)
      printer << ", ";
    StringRef text = isa<StringAttr>(name) ? cast<StringAttr>(name).getValue()
                                           : StringRef("?");
    printer << text << " = ";
    if (i < values.size())
      printExprIn(printer, scope, values[i]);
    else
      printer << "\"?\""; // invalid; the verifier says why
    scope.dims.push_back(text);
  }
}

ParseResult parseLetBody(OpAsmParser &parser, ArrayAttr names, Region &body) {
  ExprScope scope = currentParseScope();
  for (Attribute name : names)
    scope.dims.push_back(cast<StringAttr>(name).getValue());
  ParseScopeGuard guard(std::move(scope));
  return parseBodyRegion(parser, body);
}

void printLetBody(OpAsmPrinter &printer, Operation *, ArrayAttr, Region &body) {
  printBodyRegion(printer, body);
}

/// A quoted conjunction of comparisons: "2 * r + 1 < n, r >= 1".
ParseResult parseCondition(OpAsmParser &parser, Attribute &condition) {
  SMLoc loc = parser.getCurrentLocation();
  // A set written positionally: affine_set<(d0)[s0, s1] : (d0 - 1 >= 0)>.
  if (succeeded(parser.parseOptionalKeyword("affine_set"))) {
    IntegerSet set;
    if (parser.parseLess() || parser.parseIntegerSet(set) ||
        parser.parseGreater())
      return failure();
    condition = IntegerSetAttr::get(set);
    return success();
  }
  std::string text;
  if (parser.parseString(&text))
    return failure();
  ExprSyntaxError error;
  FailureOr<IntegerSet> set =
      parseConditionText(parser.getContext(), text, currentParseScope(), error);
  if (failed(set))
    return parser.emitError(
        SMLoc::getFromPointer(loc.getPointer() + 1 + error.offset),
        error.message);
  condition = getConditionAttr(*set);
  return success();
}

void printCondition(OpAsmPrinter &printer, Operation *op, Attribute condition) {
  IntegerSet set = getConditionSet(condition);
  if (!set) {
    printer << condition; // invalid; the verifier says why
    return;
  }
  printer << '"';
  printConditionText(printer.getStream(), set, getExprScope(op));
  printer << '"';
}

} // namespace sched
} // namespace collc
