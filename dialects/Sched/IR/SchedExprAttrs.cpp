//===- SchedExprAttrs.cpp - expression attributes and scopes -------------===//
//
// Which attribute holds an expression (an integer, an affine_map, a
// #sched.map), the syntax of #sched.map and #sched.set, and the names in
// scope of an op's expressions.
//
//===----------------------------------------------------------------------===//
#include "dialects/Sched/IR/SchedExpr.h"
#include "dialects/Sched/IR/SchedOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace collc::sched;

namespace collc {
namespace sched {

bool isAffineSyntaxExpressible(AffineExpr expr) {
  bool expressible = true;
  expr.walk([&](AffineExpr sub) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(sub);
    if (!binary)
      return;
    switch (binary.getKind()) {
    case AffineExprKind::Add:
      return;
    case AffineExprKind::Mul:
      if (!binary.getLHS().isSymbolicOrConstant() &&
          !binary.getRHS().isSymbolicOrConstant())
        expressible = false;
      return;
    default:
      if (!binary.getRHS().isSymbolicOrConstant())
        expressible = false;
      return;
    }
  });
  return expressible;
}

Attribute getExprAttr(AffineExpr expr, unsigned numDims, unsigned numSymbols) {
  MLIRContext *context = expr.getContext();
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return IntegerAttr::get(IntegerType::get(context, 64), constant.getValue());
  AffineMap map = AffineMap::get(numDims, numSymbols, expr);
  if (isAffineSyntaxExpressible(expr))
    return AffineMapAttr::get(map);
  return MapAttr::get(context, map);
}

Attribute getConditionAttr(IntegerSet set) {
  if (llvm::all_of(set.getConstraints(), isAffineSyntaxExpressible))
    return IntegerSetAttr::get(set);
  return SetAttr::get(set.getContext(), set);
}

AffineMap getExprMap(Attribute expr) {
  if (auto map = dyn_cast_or_null<AffineMapAttr>(expr))
    return map.getValue();
  if (auto map = dyn_cast_or_null<MapAttr>(expr))
    return map.getValue();
  return AffineMap();
}

IntegerSet getConditionSet(Attribute condition) {
  if (auto set = dyn_cast_or_null<IntegerSetAttr>(condition))
    return set.getValue();
  if (auto set = dyn_cast_or_null<SetAttr>(condition))
    return set.getValue();
  return IntegerSet();
}

AffineExpr getExprAffineExpr(Attribute expr, MLIRContext *context) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(expr))
    return getAffineConstantExpr(integer.getInt(), context);
  if (AffineMap map = getExprMap(expr); map && map.getNumResults() == 1)
    return map.getResult(0);
  return nullptr;
}

void printExprAttr(raw_ostream &os, Attribute expr, const ExprScope &scope) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(expr)) {
    os << integer.getInt();
    return;
  }
  AffineExpr affine = getExprAffineExpr(expr, expr.getContext());
  if (!affine) {
    os << expr; // invalid; the verifier says why
    return;
  }
  std::string text;
  llvm::raw_string_ostream stream(text);
  printAffineExprText(stream, affine, scope);
  // Bare words the custom parser reads as something else stay quoted.
  bool bareOk = isPlainIdentifier(text) &&
                !llvm::is_contained({"true", "false", "affine_map"}, text);
  if (bareOk)
    os << text;
  else
    os << '"' << text << '"';
}

unsigned getLoopDepth(Operation *op) {
  unsigned depth = 0;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<ForOp>(parent) ||
        (isa<ChannelOp>(parent) && cast<ChannelOp>(parent).isRange()))
      ++depth;
    else if (auto let = dyn_cast<LetOp>(parent))
      depth += let.getNames().size();
  return depth;
}

ExprScope getExprScope(Operation *op) {
  ExprScope scope;
  SmallVector<StringRef> loops;
  ScheduleOp schedule;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto loop = dyn_cast<ForOp>(parent))
      loops.push_back(loop.getVar());
    if (auto channel = dyn_cast<ChannelOp>(parent);
        channel && channel.isRange())
      loops.push_back(*channel.getVar());
    // Innermost first, like the loops: the last name first.
    if (auto let = dyn_cast<LetOp>(parent))
      for (Attribute name : llvm::reverse(let.getNames()))
        loops.push_back(isa<StringAttr>(name)
                            ? cast<StringAttr>(name).getValue()
                            : StringRef("?"));
    if ((schedule = dyn_cast<ScheduleOp>(parent)))
      break;
  }
  scope.dims.push_back("r");
  scope.dims.append(loops.rbegin(), loops.rend());
  if (schedule)
    scope.symbols = schedule.getSymbolNames();
  else
    scope.symbols = {"n", "k"};
  return scope;
}

bool isPlainIdentifier(StringRef name) {
  if (name.empty() ||
      !(isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool isReservedName(StringRef name) {
  return llvm::is_contained({"r", "n", "k", "mod", "floordiv", "ceildiv"},
                            name);
}

} // namespace sched
} // namespace collc

//===----------------------------------------------------------------------===//
// #sched.map and #sched.set
//===----------------------------------------------------------------------===//

/// `(d0, d1)[s0]`: the names of a standalone map or set, by position.
/// `storage` owns the names `scope` refers to.
static ParseResult parseBinder(AsmParser &parser, ExprScope &scope,
                               std::vector<std::string> &storage) {
  std::vector<std::string> dims, symbols;
  auto name = [&](std::vector<std::string> &names) {
    return [&]() -> ParseResult {
      names.emplace_back();
      return parser.parseKeywordOrString(&names.back());
    };
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, name(dims)) ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::OptionalSquare,
                                     name(symbols)))
    return failure();
  storage = std::move(dims);
  storage.insert(storage.end(), symbols.begin(), symbols.end());
  size_t numDims = storage.size() - symbols.size();
  for (size_t i = 0; i < storage.size(); ++i)
    (i < numDims ? scope.dims : scope.symbols).push_back(storage[i]);
  return success();
}

static void printBinder(AsmPrinter &printer, unsigned numDims,
                        unsigned numSymbols, ExprScope &scope,
                        std::vector<std::string> &storage) {
  storage.reserve(numDims + numSymbols);
  for (unsigned i = 0; i < numDims; ++i)
    storage.push_back("d" + std::to_string(i));
  for (unsigned i = 0; i < numSymbols; ++i)
    storage.push_back("s" + std::to_string(i));
  for (unsigned i = 0; i < numDims; ++i)
    scope.dims.push_back(storage[i]);
  for (unsigned i = 0; i < numSymbols; ++i)
    scope.symbols.push_back(storage[numDims + i]);
  printer << '(';
  llvm::interleaveComma(scope.dims, printer);
  printer << ")[";
  llvm::interleaveComma(scope.symbols, printer);
  printer << ']';
}

/// Reports an expression error at its place in the quoted text at `loc`.
static ParseResult emitTextError(AsmParser &parser, SMLoc loc,
                                 const ExprSyntaxError &error) {
  return parser.emitError(
      SMLoc::getFromPointer(loc.getPointer() + 1 + error.offset),
      error.message);
}

Attribute MapAttr::parse(AsmParser &parser, Type) {
  ExprScope scope;
  std::vector<std::string> storage;
  std::string text;
  if (parser.parseLess() || parseBinder(parser, scope, storage) ||
      parser.parseArrow())
    return {};
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseString(&text))
    return {};
  ExprSyntaxError error;
  FailureOr<AffineExpr> expr =
      parseAffineExprText(parser.getContext(), text, scope, error);
  if (failed(expr)) {
    (void)emitTextError(parser, loc, error);
    return {};
  }
  if (parser.parseGreater())
    return {};
  return MapAttr::get(
      parser.getContext(),
      AffineMap::get(scope.dims.size(), scope.symbols.size(), *expr));
}

void MapAttr::print(AsmPrinter &printer) const {
  AffineMap map = getValue();
  ExprScope scope;
  std::vector<std::string> storage;
  printer << '<';
  printBinder(printer, map.getNumDims(), map.getNumSymbols(), scope, storage);
  printer << " -> \"";
  llvm::interleaveComma(map.getResults(), printer, [&](AffineExpr result) {
    printAffineExprText(printer.getStream(), result, scope);
  });
  printer << "\">";
}

Attribute SetAttr::parse(AsmParser &parser, Type) {
  ExprScope scope;
  std::vector<std::string> storage;
  std::string text;
  if (parser.parseLess() || parseBinder(parser, scope, storage) ||
      parser.parseColon())
    return {};
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseString(&text))
    return {};
  ExprSyntaxError error;
  FailureOr<IntegerSet> set =
      parseConditionText(parser.getContext(), text, scope, error);
  if (failed(set)) {
    (void)emitTextError(parser, loc, error);
    return {};
  }
  if (parser.parseGreater())
    return {};
  return SetAttr::get(parser.getContext(), *set);
}

void SetAttr::print(AsmPrinter &printer) const {
  IntegerSet set = getValue();
  ExprScope scope;
  std::vector<std::string> storage;
  printer << '<';
  printBinder(printer, set.getNumDims(), set.getNumSymbols(), scope, storage);
  printer << " : \"";
  printConditionText(printer.getStream(), set, scope);
  printer << "\">";
}
