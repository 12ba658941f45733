//===- CudaEmitter.cpp - sched schedules to CUDA C++ ----------------------===//
//
// A kernel is printed from the schedule's region tree. Every expression is
// the op's affine expression with the symbols n, k and the parameters
// replaced by their values (MLIR folds what becomes constant) and, in an
// explicit schedule, r by the rank; what remains is printed as C++ over r,
// the channel-range variable, the loop variables and the names of lets (a
// const local each, or the value where it is constant), floordiv, mod and
// ceildiv as collrt::dev::floorDiv, floorMod and ceilDiv. Guards that fold
// to a constant keep only the branch taken; loops with constant bounds and
// no iterations disappear. An interval bound of every expression decides
// whether a loop's increment could overflow (expansion stops a loop there),
// in which case the loop tests before it steps.
//
//===----------------------------------------------------------------------===//
#include "lowering/SchedToCUDA/CudaEmitter.h"

#include "dialects/Sched/IR/SchedExpr.h"
#include "dialects/Sched/Transforms/EnumConversion.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace collc::sched;

namespace collc {
namespace cuda {

std::string kernelName(llvm::StringRef prefix, int planIndex,
                       llvm::StringRef algorithm, Collective collective) {
  std::string name = prefix.str() + "_k" + std::to_string(planIndex) + "_";
  for (char c : algorithm)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  name += "_";
  name += collectiveName(collective);
  return name;
}

const char *deviceElementType(collrt::DataType type) {
  switch (type) {
  case collrt::DataType::F64:
    return "double";
  case collrt::DataType::F32:
    return "float";
  case collrt::DataType::F16:
    return "f16";
  case collrt::DataType::BF16:
    return "bf16";
  case collrt::DataType::F8E4M3FN:
    return "f8e4m3";
  case collrt::DataType::F8E5M2:
    return "f8e5m2";
  case collrt::DataType::I64:
    return "int64_t";
  case collrt::DataType::I32:
    return "int32_t";
  case collrt::DataType::I8:
    return "int8_t";
  }
  return "float";
}

const char *deviceReduceOp(std::optional<collrt::ReduceOp> op) {
  if (!op)
    return "SumOp";
  switch (*op) {
  case collrt::ReduceOp::Sum:
  case collrt::ReduceOp::Avg:
    return "SumOp";
  case collrt::ReduceOp::Prod:
    return "ProdOp";
  case collrt::ReduceOp::Min:
    return "MinOp";
  case collrt::ReduceOp::Max:
    return "MaxOp";
  }
  return "SumOp";
}

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
/// Lines longer than this are wrapped at call arguments.
constexpr size_t kLineWidth = 80;

//===----------------------------------------------------------------------===//
// Interval bounds of expressions (saturating at the int64 limits)
//===----------------------------------------------------------------------===//

struct Interval {
  int64_t lo = kMin, hi = kMax;
  static Interval point(int64_t v) { return {v, v}; }
};

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r))
    return r;
  return a > 0 ? kMax : kMin;
}

int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r))
    return r;
  return ((a < 0) != (b < 0)) ? kMin : kMax;
}

int64_t floorDivide(int64_t a, int64_t b) {
  int64_t q = a / b, m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDivide(int64_t a, int64_t b) {
  int64_t q = a / b, m = a % b;
  return (m != 0 && ((m < 0) == (b < 0))) ? q + 1 : q;
}

Interval corners(Interval a, Interval b, int64_t (*f)(int64_t, int64_t)) {
  int64_t v[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
  return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// Identifiers a schedule's variable must not take in the generated code:
/// C++ keywords, the kernel's own locals and what `using namespace
/// collrt::dev` brings in.
const llvm::StringSet<> &reservedIdentifiers() {
  static const llvm::StringSet<> names = {
      // C++17 keywords and alternative tokens.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class",
      "compl", "const", "constexpr", "const_cast", "continue", "decltype",
      "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // The kernel's locals and the types and functions in scope.
      "args", "ch", "r", "channel", "tile", "int64_t", "int32_t", "int8_t",
      "uint64_t", "uint32_t", "collrt", "dev", "std", "Input", "Output",
      "Scratch", "BufferKind", "floorDiv", "floorMod", "ceilDiv", "Channel",
      "SumOp", "ProdOp", "MinOp", "MaxOp", "AvgOp", "LaunchArgs", "RankContext",
      "DeviceConnection", "f16", "bf16", "f8e4m3", "f8e5m2", "INT64_MAX",
      "INT64_MIN"};
  return names;
}

std::string formatLocation(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(fileLoc.getFilename()),
                         fileLoc.getLine(), fileLoc.getColumn())
        .str();
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return formatLocation(nameLoc.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  return "?";
}

bool isIdentifier(llvm::StringRef name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return llvm::all_of(name, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// An expression as the schedule's source writes it ("rings", "n - 1").
std::string sourceText(Operation *op, Attribute expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printExprAttr(os, expr, getExprScope(op));
  return text;
}

const char *bufferKindName(Buffer buffer) {
  switch (buffer) {
  case Buffer::Input:
    return "Input";
  case Buffer::Output:
    return "Output";
  case Buffer::Scratch:
    return "Scratch";
  }
  return "Input";
}

//===----------------------------------------------------------------------===//
// Expressions as C++
//===----------------------------------------------------------------------===//

/// A dim of the scope: the rank, a channel-range variable or a loop
/// variable, as a C++ name or (r of an explicit schedule) a constant.
struct Dim {
  std::string name;
  std::optional<int64_t> constant;
  Interval range;
};

/// A term of a sum: `sign * magnitude`.
struct Term {
  bool negative = false;
  AffineExpr magnitude;
};

/// What the printed expressions use: r, and which (per-rank) symbols.
struct Usage {
  bool rank = false;
  std::vector<bool> symbols;
  std::vector<bool> dims; ///< by position in the current scope
};

class ExprPrinter {
public:
  ExprPrinter(const std::vector<Dim> &dims,
              const std::vector<std::string> &symbolNames,
              const std::vector<Interval> &symbolRanges, Usage &usage)
      : dims(dims), symbolNames(symbolNames), symbolRanges(symbolRanges),
        usage(usage) {}

  /// Operator precedence contexts.
  enum Context { Sum = 0, Product = 1 };

  std::string print(AffineExpr expr, Context context = Sum) {
    switch (expr.getKind()) {
    case AffineExprKind::Constant: {
      int64_t v = cast<AffineConstantExpr>(expr).getValue();
      if (v == kMin)
        return "INT64_MIN";
      std::string text = std::to_string(v);
      return (v < 0 && context == Product) ? "(" + text + ")" : text;
    }
    case AffineExprKind::DimId: {
      unsigned position = cast<AffineDimExpr>(expr).getPosition();
      if (position == 0)
        usage.rank = true;
      if (usage.dims.size() <= position)
        usage.dims.resize(position + 1, false);
      usage.dims[position] = true;
      return dims[position].name;
    }
    case AffineExprKind::SymbolId: {
      // Only per-rank parameters are left unfolded: values of a table
      // indexed by r.
      unsigned position = cast<AffineSymbolExpr>(expr).getPosition();
      usage.rank = true;
      usage.symbols[position] = true;
      return symbolNames[position];
    }
    case AffineExprKind::Add: {
      std::vector<Term> terms = sumTerms(expr);
      // Lead with a positive term where there is one: `3 - r`, not
      // `-r + 3`.
      auto positive =
          llvm::find_if(terms, [](const Term &t) { return !t.negative; });
      if (positive != terms.end())
        std::rotate(terms.begin(), positive, positive + 1);
      std::string text;
      for (size_t i = 0; i < terms.size(); ++i) {
        std::string term = print(terms[i].magnitude, Product);
        if (i == 0)
          text = terms[i].negative ? "-" + term : term;
        else
          text += (terms[i].negative ? " - " : " + ") + term;
      }
      return context == Product ? "(" + text + ")" : text;
    }
    case AffineExprKind::Mul: {
      auto binary = cast<AffineBinaryOpExpr>(expr);
      AffineExpr lhs = binary.getLHS(), rhs = binary.getRHS();
      if (auto c = dyn_cast<AffineConstantExpr>(rhs)) {
        if (c.getValue() == -1 && !isa<AffineConstantExpr>(lhs))
          return context == Product ? "(-" + print(lhs, Product) + ")"
                                    : "-" + print(lhs, Product);
        // Constant factor first: `2 * r`.
        if (!isa<AffineConstantExpr>(lhs))
          std::swap(lhs, rhs);
      }
      return print(lhs, Product) + " * " + print(rhs, Product);
    }
    case AffineExprKind::Mod:
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv: {
      auto binary = cast<AffineBinaryOpExpr>(expr);
      const char *function = expr.getKind() == AffineExprKind::Mod ? "floorMod"
                             : expr.getKind() == AffineExprKind::FloorDiv
                                 ? "floorDiv"
                                 : "ceilDiv";
      return std::string(function) + "(" + print(binary.getLHS()) + ", " +
             print(binary.getRHS()) + ")";
    }
    }
    return "0";
  }

  /// `expr >= 0` or `expr == 0` as a comparison with the negative terms on
  /// the right: `r >= 1`, `2 * r + 2 <= 4`, `floorMod(r, 2) == 0`.
  std::string printConstraint(AffineExpr expr, bool equality) {
    std::vector<Term> terms = sumTerms(expr);
    std::vector<Term> left, right;
    for (Term &term : terms)
      (term.negative ? right : left).push_back({false, term.magnitude});
    auto sum = [&](const std::vector<Term> &side) {
      if (side.empty())
        return std::string("0");
      std::string text;
      for (size_t i = 0; i < side.size(); ++i)
        text += (i ? " + " : "") + print(side[i].magnitude, Product);
      return text;
    };
    auto isConstant = [](const std::vector<Term> &side) {
      return side.empty() ||
             (side.size() == 1 && isa<AffineConstantExpr>(side[0].magnitude));
    };
    const char *op = equality ? " == " : " >= ";
    // A variable side goes first: `r <= 3`, not `3 >= r`.
    if (isConstant(left) && !isConstant(right))
      return sum(right) + (equality ? " == " : " <= ") + sum(left);
    return sum(left) + op + sum(right);
  }

  Interval range(AffineExpr expr) const {
    switch (expr.getKind()) {
    case AffineExprKind::Constant:
      return Interval::point(cast<AffineConstantExpr>(expr).getValue());
    case AffineExprKind::DimId:
      return dims[cast<AffineDimExpr>(expr).getPosition()].range;
    case AffineExprKind::SymbolId:
      return symbolRanges[cast<AffineSymbolExpr>(expr).getPosition()];
    default:
      break;
    }
    auto binary = cast<AffineBinaryOpExpr>(expr);
    Interval a = range(binary.getLHS()), b = range(binary.getRHS());
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return {saturatingAdd(a.lo, b.lo), saturatingAdd(a.hi, b.hi)};
    case AffineExprKind::Mul:
      return corners(a, b, saturatingMul);
    case AffineExprKind::Mod:
      if (b.lo < 1)
        return {};
      if (a.lo >= 0 && a.hi < b.lo)
        return a;
      return {0, b.hi - 1};
    case AffineExprKind::FloorDiv:
      if (b.lo < 1)
        return {};
      return corners(a, b, floorDivide);
    case AffineExprKind::CeilDiv:
      if (b.lo < 1)
        return {};
      return corners(a, b, ceilDivide);
    default:
      return {};
    }
  }

private:
  /// The terms of a sum with its constants added up into one last term
  /// (none when they cancel).
  static std::vector<Term> sumTerms(AffineExpr expr) {
    std::vector<Term> collected, terms;
    collectTerms(expr, collected);
    int64_t constant = 0;
    bool overflow = false;
    for (const Term &term : collected) {
      auto c = dyn_cast<AffineConstantExpr>(term.magnitude);
      if (!c) {
        terms.push_back(term);
        continue;
      }
      int64_t value = term.negative ? -c.getValue() : c.getValue();
      overflow |= __builtin_add_overflow(constant, value, &constant);
    }
    if (overflow)
      return collected;
    if (constant != 0 && constant != kMin)
      terms.push_back({constant < 0, getAffineConstantExpr(
                                         constant < 0 ? -constant : constant,
                                         expr.getContext())});
    if (terms.empty())
      terms.push_back({false, getAffineConstantExpr(0, expr.getContext())});
    return terms;
  }

  /// The terms of `expr` as a sum, distributing constant factors over
  /// sums (`(r + q) * -1` is `-r - q`).
  static void collectTerms(AffineExpr expr, std::vector<Term> &terms,
                           bool negate = false, int64_t factor = 1) {
    auto scaled = [&](AffineExpr e) { return factor == 1 ? e : e * factor; };
    if (expr.getKind() == AffineExprKind::Add) {
      auto binary = cast<AffineBinaryOpExpr>(expr);
      collectTerms(binary.getLHS(), terms, negate, factor);
      collectTerms(binary.getRHS(), terms, negate, factor);
      return;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      int64_t value = c.getValue();
      if (value < 0 && value != kMin)
        terms.push_back({!negate, scaled(getAffineConstantExpr(
                                      -value, expr.getContext()))});
      else
        terms.push_back({negate, scaled(expr)});
      return;
    }
    if (expr.getKind() == AffineExprKind::Mul) {
      auto binary = cast<AffineBinaryOpExpr>(expr);
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS());
          c && c.getValue() != kMin && c.getValue() != 0) {
        int64_t value = c.getValue(), magnitude = value < 0 ? -value : value;
        int64_t product;
        if (!__builtin_mul_overflow(factor, magnitude, &product)) {
          collectTerms(binary.getLHS(), terms, negate != (value < 0), product);
          return;
        }
      }
    }
    terms.push_back({negate, scaled(expr)});
  }

  const std::vector<Dim> &dims;
  const std::vector<std::string> &symbolNames;
  const std::vector<Interval> &symbolRanges;
  Usage &usage;
};

//===----------------------------------------------------------------------===//
// The code writer
//===----------------------------------------------------------------------===//

class Writer {
public:
  explicit Writer(std::string &out) : out(out) {}

  void line(llvm::StringRef text) {
    if (!text.empty())
      out.append(2 * depth, ' ');
    out += text;
    out += '\n';
  }
  /// Text already indented (another Writer's output).
  void raw(llvm::StringRef text) { out += text.str(); }
  void open(llvm::StringRef text) {
    line(text);
    ++depth;
  }
  void close(llvm::StringRef text = "}") {
    --depth;
    line(text);
  }

  /// `open` then `parts` then `close` on one line, or, when too long, the
  /// parts packed onto lines under the first one (as `for (a; b; c) {` or
  /// `if (a && b) {` wrap).
  void header(const std::string &open, llvm::ArrayRef<std::string> parts,
              llvm::StringRef close) {
    size_t indent = 2 * depth;
    std::string whole = open;
    for (const std::string &part : parts)
      whole += part;
    whole += close.str();
    if (indent + whole.size() <= kLineWidth) {
      line(whole);
      ++depth;
      return;
    }
    std::string current = open;
    std::string hang(open.size(), ' ');
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string piece = parts[i];
      if (i + 1 == parts.size())
        piece += close.str();
      std::string trimmed = llvm::StringRef(piece).ltrim(' ').str();
      if (current == open || current == hang)
        current += trimmed;
      else if (indent + current.size() + piece.size() <= kLineWidth)
        current += piece;
      else {
        line(llvm::StringRef(current).rtrim(' '));
        current = hang + trimmed;
      }
    }
    line(current);
    ++depth;
  }

  /// `head(args...);`, its arguments wrapped under the parenthesis when
  /// the line is too long.
  void call(llvm::StringRef head, llvm::ArrayRef<std::string> args) {
    list(head.str() + "(", args, ");");
  }

  /// `open` args, separated by commas, then `close`, wrapped like a call.
  void list(const std::string &open, llvm::ArrayRef<std::string> args,
            llvm::StringRef close) {
    size_t indent = 2 * depth;
    std::string whole = open + llvm::join(args, ", ") + close.str();
    if (indent + whole.size() <= kLineWidth) {
      line(whole);
      return;
    }
    size_t column = indent + open.size();
    std::string current = open;
    // Deep calls continue four columns in instead.
    if (column > 40) {
      line(current);
      column = indent + 4;
      current = std::string(4, ' ');
    }
    bool fresh = true;
    for (size_t i = 0; i < args.size(); ++i) {
      std::string piece =
          args[i] + (i + 1 == args.size() ? close.str() : std::string(","));
      if (fresh) {
        current += piece;
        fresh = false;
      } else if (indent + current.size() + 1 + piece.size() <= kLineWidth) {
        current += " " + piece;
      } else {
        line(current);
        current = std::string(column - indent, ' ') + piece;
      }
    }
    line(current);
  }

  unsigned depth = 0;

private:
  std::string &out;
};

//===----------------------------------------------------------------------===//
// One kernel
//===----------------------------------------------------------------------===//

class KernelEmitter {
public:
  KernelEmitter(const KernelInput &input, std::string name)
      : input(input), schedule(input.schedule), name(std::move(name)),
        context(input.schedule->getContext()) {}

  LogicalResult emit(std::string &out);

private:
  LogicalResult setUpSymbols();
  void emitChannels(Region &region, Writer &w);
  void emitBody(Region &region, Writer &w);
  void emitLoop(ForOp loop, Writer &w);
  void emitGuard(IfOp guard, Writer &w);
  void emitLet(LetOp let, Writer &w);
  void emitInstruction(Operation *op, Writer &w);

  /// The op's expression with the constants folded in.
  AffineExpr fold(Operation *op, Attribute expr);
  std::string print(AffineExpr expr) {
    ExprPrinter printer(dims, symbolNames, symbolRanges, usage);
    return printer.print(expr);
  }
  Interval range(AffineExpr expr) {
    ExprPrinter printer(dims, symbolNames, symbolRanges, usage);
    return printer.range(expr);
  }
  /// A C++ name for a schedule variable, distinct from everything in scope.
  std::string bindName(llvm::StringRef var);
  void fail(Operation *op, const llvm::Twine &message) {
    if (!failed_)
      op->emitError() << "cannot generate CUDA for schedule @"
                      << schedule.getSymName() << ": " << message;
    failed_ = true;
  }

  const KernelInput &input;
  ScheduleOp schedule;
  std::string name;
  MLIRContext *context;

  std::vector<AffineExpr> symbolValues; ///< n, k, parameters (folded)
  std::vector<std::string> symbolNames; ///< per-rank parameters' names
  std::vector<Interval> symbolRanges;
  /// Per-rank parameters (send_recv's send_peer and recv_peer): name and
  /// value per rank.
  std::vector<std::pair<std::string, std::vector<int64_t>>> perRank;
  std::vector<unsigned> perRankSymbol; ///< their symbol positions
  std::vector<Dim> dims;
  Usage usage;
  bool usesChannel = false;
  bool failed_ = false;
};

LogicalResult KernelEmitter::setUpSymbols() {
  const Program &program = *input.program;
  int64_t n = program.numRanks, k = program.chunksPerPart;
  symbolValues = {getAffineConstantExpr(n, context),
                  getAffineConstantExpr(k, context)};
  symbolNames = {"n", "k"};
  symbolRanges = {Interval::point(n), Interval::point(k)};
  bool sendRecv = program.collective == Collective::SendRecv;
  // send_recv's permutation, as expansion sets send_peer and recv_peer.
  std::vector<int64_t> sendTo(n, -1), recvFrom(n, -1);
  if (sendRecv)
    for (int32_t r = 0; r < n; ++r) {
      int32_t to = program.sendTarget(r);
      sendTo[r] = to;
      if (to >= 0 && to < n)
        recvFrom[to] = r;
    }
  if (DictionaryAttr params = schedule.getParamsAttr()) {
    unsigned position = 2;
    for (NamedAttribute param : params) {
      llvm::StringRef paramName = param.getName().getValue();
      if (sendRecv && (paramName == "send_peer" || paramName == "recv_peer")) {
        std::string local = bindName(paramName);
        symbolValues.push_back(getAffineSymbolExpr(position, context));
        symbolNames.push_back(local);
        symbolRanges.push_back({-1, n - 1});
        perRank.emplace_back(local,
                             paramName == "send_peer" ? sendTo : recvFrom);
        perRankSymbol.push_back(position);
      } else {
        int64_t value = cast<IntegerAttr>(param.getValue()).getInt();
        auto override = input.expand->params.find(paramName);
        if (override != input.expand->params.end())
          value = override->second;
        symbolValues.push_back(getAffineConstantExpr(value, context));
        symbolNames.push_back(paramName.str());
        symbolRanges.push_back(Interval::point(value));
      }
      ++position;
    }
  }
  if (schedule.getNumSymbols() != symbolValues.size()) {
    fail(schedule, "its symbols do not match its parameters");
    return failure();
  }
  usage.symbols.assign(symbolValues.size(), false);
  return success();
}

std::string KernelEmitter::bindName(llvm::StringRef var) {
  std::string candidate = var.str();
  if (!isIdentifier(candidate) || candidate[0] == '_')
    candidate = "v_" + candidate;
  auto taken = [&](const std::string &c) {
    if (reservedIdentifiers().contains(c))
      return true;
    for (const Dim &dim : dims)
      if (dim.name == c)
        return true;
    for (const auto &entry : perRank)
      if (entry.first == c || entry.first + "_of_rank" == c)
        return true;
    return false;
  };
  while (taken(candidate))
    candidate += "_";
  return candidate;
}

AffineExpr KernelEmitter::fold(Operation *op, Attribute expr) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(expr))
    return getAffineConstantExpr(integer.getInt(), context);
  AffineMap map = getExprMap(expr);
  // Header-like expressions (a channel range's bound) have no dims.
  if (!map || map.getNumResults() != 1 ||
      (map.getNumDims() != dims.size() && map.getNumDims() != 0) ||
      map.getNumSymbols() != symbolValues.size()) {
    fail(op, "an expression does not have the " + llvm::Twine(dims.size()) +
                 " dims and " + llvm::Twine(symbolValues.size()) +
                 " symbols of its scope");
    return getAffineConstantExpr(0, context);
  }
  llvm::SmallVector<AffineExpr> dimValues;
  for (unsigned i = 0; i < map.getNumDims(); ++i)
    dimValues.push_back(dims[i].constant
                            ? getAffineConstantExpr(*dims[i].constant, context)
                            : getAffineDimExpr(i, context));
  return map.getResult(0).replaceDimsAndSymbols(dimValues, symbolValues);
}

/// The channel ids a rank runs, "0", "0-3", or, when ranks differ, the
/// most: "up to 0-3".
std::string channelSummary(const Program &program) {
  size_t most = 0, least = SIZE_MAX;
  for (const RankProgram &rank : program.ranks) {
    most = std::max(most, rank.channels.size());
    least = std::min(least, rank.channels.size());
  }
  if (most == 0)
    return "none";
  std::string ids = most == 1 ? "0" : "0-" + std::to_string(most - 1);
  return least == most ? ids : "up to " + ids;
}

LogicalResult KernelEmitter::emit(std::string &out) {
  if (failed(setUpSymbols()))
    return failure();
  const Program &program = *input.program;

  // The body first: it tells whether r and channel are used.
  std::string body;
  Writer w(body);
  w.depth = 2;
  if (schedule.isExplicit()) {
    w.line("switch (ch.rank()) {");
    for (RankOp rank : schedule.getBody().getOps<RankOp>()) {
      w.line("case " + std::to_string(rank.getRank()) + ": {");
      ++w.depth;
      w.line("// sched.rank " + std::to_string(rank.getRank()) + " at " +
             formatLocation(rank.getLoc()));
      dims = {
          Dim{"r", int64_t(rank.getRank()), Interval::point(rank.getRank())}};
      emitChannels(rank.getBody(), w);
      w.line("break;");
      --w.depth;
      w.line("}");
    }
    w.line("default:");
    w.line("  break;");
    w.line("}");
  } else {
    dims = {Dim{"r", std::nullopt, {0, program.numRanks - 1}}};
    emitChannels(schedule.getBody(), w);
  }
  if (failed_)
    return failure();

  Writer k(out);
  k.open("COLLRT_KERNEL(" + name + ")(collrt::dev::LaunchArgs args) {");
  k.line("using namespace collrt::dev;");
  k.line(llvm::formatv("Channel<{0}, {1}> ch(args);",
                       deviceElementType(input.dtype),
                       deviceReduceOp(input.reduction))
             .str());
  bool tables = false;
  for (size_t i = 0; i < perRank.size(); ++i)
    tables |= bool(usage.symbols[perRankSymbol[i]]);
  if (usage.rank || tables)
    k.line("const int64_t r = ch.rank();");
  for (size_t i = 0; i < perRank.size(); ++i) {
    if (!usage.symbols[perRankSymbol[i]])
      continue;
    const auto &[local, values] = perRank[i];
    std::vector<std::string> items;
    for (int64_t v : values)
      items.push_back(std::to_string(v));
    k.list("const int64_t " + local + "_of_rank[" +
               std::to_string(values.size()) + "] = {",
           items, "};");
    k.line("const int64_t " + local + " = " + local + "_of_rank[r];");
  }
  if (usesChannel)
    k.line("const int64_t channel = ch.channel();");
  k.open("for (int64_t tile = 0; tile < ch.tiles(); ++tile) {");
  k.line("ch.beginTile(tile);");
  out += body;
  k.line("ch.endTile();");
  k.close();
  k.close();
  return success();
}

void KernelEmitter::emitChannels(Region &region, Writer &w) {
  bool first = true;
  for (ChannelOp channel : region.getOps<ChannelOp>()) {
    std::string where = formatLocation(channel.getLoc());
    std::string condition;
    std::optional<std::string> var;
    Interval ids = Interval::point(channel.getId());
    if (channel.isRange()) {
      AffineExpr upper = fold(channel, channel.getUpperAttr());
      Interval bound = range(upper);
      std::string upperText = print(upper);
      if (auto c = dyn_cast<AffineConstantExpr>(upper);
          c && c.getValue() <= int64_t(channel.getId())) {
        w.line("// sched.channel " + channel.getVar()->str() + " = " +
               std::to_string(channel.getId()) + " to " +
               sourceText(channel, channel.getUpperAttr()) + " at " + where +
               ": no channels");
        continue;
      }
      condition = channel.getId() == 0
                      ? "channel < " + upperText
                      : "channel >= " + std::to_string(channel.getId()) +
                            " && channel < " + upperText;
      ids = {int64_t(channel.getId()), saturatingAdd(bound.hi, -1)};
      var = bindName(*channel.getVar());
      where = "sched.channel " + channel.getVar()->str() + " = " +
              std::to_string(channel.getId()) + " to " +
              sourceText(channel, channel.getUpperAttr()) + " at " + where;
    } else {
      condition = "channel == " + std::to_string(channel.getId());
      where =
          "sched.channel " + std::to_string(channel.getId()) + " at " + where;
    }
    usesChannel = true;
    w.open((first ? "if (" : "} else if (") + condition + ") {");
    w.line("// " + where);
    first = false;
    if (!var) {
      emitBody(channel.getBody(), w);
      --w.depth;
      continue;
    }
    // The range's variable, declared only where the body uses it.
    size_t position = dims.size();
    dims.push_back(Dim{*var, std::nullopt, ids});
    if (usage.dims.size() > position)
      usage.dims[position] = false;
    std::string body;
    Writer inner(body);
    inner.depth = w.depth;
    emitBody(channel.getBody(), inner);
    dims.pop_back();
    if (usage.dims.size() > position && usage.dims[position])
      w.line("const int64_t " + *var + " = channel;");
    w.raw(body);
    --w.depth;
  }
  if (!first)
    w.line("}");
}

void KernelEmitter::emitBody(Region &region, Writer &w) {
  for (Operation &op : region.getOps()) {
    if (failed_)
      return;
    if (auto loop = dyn_cast<ForOp>(op))
      emitLoop(loop, w);
    else if (auto guard = dyn_cast<IfOp>(op))
      emitGuard(guard, w);
    else if (auto let = dyn_cast<LetOp>(op))
      emitLet(let, w);
    else if (isa<InstructionOp>(op))
      emitInstruction(&op, w);
    else
      fail(&op,
           "unexpected op '" + op.getName().getStringRef() + "' in a channel");
  }
}

void KernelEmitter::emitLoop(ForOp loop, Writer &w) {
  AffineExpr lower = fold(loop, loop.getLowerAttr());
  AffineExpr upper = fold(loop, loop.getUpperAttr());
  AffineExpr step = loop.getStepAttr() ? fold(loop, loop.getStepAttr())
                                       : getAffineConstantExpr(1, context);
  bool geometric = loop.getGeometric();
  auto lowerConst = dyn_cast<AffineConstantExpr>(lower);
  auto upperConst = dyn_cast<AffineConstantExpr>(upper);
  if (lowerConst && upperConst &&
      lowerConst.getValue() >= upperConst.getValue()) {
    w.line("// sched.for " + loop.getVar().str() + " = " +
           sourceText(loop, loop.getLowerAttr()) + " to " +
           sourceText(loop, loop.getUpperAttr()) + " at " +
           formatLocation(loop.getLoc()) + ": no iterations");
    return;
  }
  Interval lowerRange = range(lower), upperRange = range(upper),
           stepRange = range(step);
  std::string lowerText = print(lower), upperText = print(upper),
              stepText = print(step);
  std::string var = bindName(loop.getVar());
  // Expansion stops a loop whose increment overflows; that cannot happen
  // when the bound plus (or times) the step stays within int64.
  bool safe = geometric ? saturatingMul(upperRange.hi, stepRange.hi) < kMax
                        : saturatingAdd(upperRange.hi, stepRange.hi) < kMax;
  std::string increment = geometric         ? var + " *= " + stepText
                          : stepText == "1" ? "++" + var
                                            : var + " += " + stepText;
  if (safe)
    w.header("for (",
             {"int64_t " + var + " = " + lowerText + ";",
              " " + var + " < " + upperText + ";", " " + increment},
             ") {");
  else
    w.header("for (",
             {"int64_t " + var + " = " + lowerText + ";",
              " " + var + " < " + upperText + ";"},
             ") {");
  dims.push_back(Dim{
      var, std::nullopt, {lowerRange.lo, saturatingAdd(upperRange.hi, -1)}});
  emitBody(loop.getBody(), w);
  dims.pop_back();
  if (!safe) {
    w.line("// Expansion stops where the next " + var + " would leave int64.");
    w.line(geometric
               ? "if (" + var + " > INT64_MAX / (" + stepText + ")) break;"
               : "if (" + var + " > INT64_MAX - (" + stepText + ")) break;");
    w.line(increment + ";");
  }
  w.close();
}

void KernelEmitter::emitGuard(IfOp guard, Writer &w) {
  IntegerSet set = guard.getConditionSet();
  std::vector<std::string> constraints;
  bool alwaysFalse = false;
  for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i) {
    if (set.getNumDims() != dims.size() ||
        set.getNumSymbols() != symbolValues.size()) {
      fail(guard, "a condition does not have the dims and symbols of its "
                  "scope");
      return;
    }
    llvm::SmallVector<AffineExpr> dimValues;
    for (unsigned d = 0; d < dims.size(); ++d)
      dimValues.push_back(
          dims[d].constant ? getAffineConstantExpr(*dims[d].constant, context)
                           : getAffineDimExpr(d, context));
    AffineExpr expr =
        set.getConstraint(i).replaceDimsAndSymbols(dimValues, symbolValues);
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      bool holds = set.isEq(i) ? c.getValue() == 0 : c.getValue() >= 0;
      if (!holds) {
        alwaysFalse = true;
        break;
      }
      continue;
    }
    ExprPrinter printer(dims, symbolNames, symbolRanges, usage);
    constraints.push_back(printer.printConstraint(expr, set.isEq(i)));
  }
  Region &thenRegion = guard.getThenRegion();
  Region &elseRegion = guard.getElseRegion();
  bool hasElse = !elseRegion.empty() && !elseRegion.front().empty();
  bool hasThen = !thenRegion.empty() && !thenRegion.front().empty();
  if (alwaysFalse) {
    if (hasElse)
      emitBody(elseRegion, w);
    return;
  }
  if (constraints.empty()) {
    if (hasThen)
      emitBody(thenRegion, w);
    return;
  }
  if (!hasThen && !hasElse)
    return;
  std::vector<std::string> parts;
  for (size_t i = 0; i < constraints.size(); ++i)
    parts.push_back((i ? " && " : "") + constraints[i]);
  if (!hasThen) {
    w.header("if (!(", parts, ")) {");
    emitBody(elseRegion, w);
    w.close();
    return;
  }
  w.header("if (", parts, ") {");
  emitBody(thenRegion, w);
  if (hasElse) {
    --w.depth;
    w.open("} else {");
    emitBody(elseRegion, w);
  }
  w.close();
}

void KernelEmitter::emitLet(LetOp let, Writer &w) {
  // A name whose value folds to a constant is inlined; the others become
  // C++ locals in a block of their own, declared where the body uses them.
  size_t first = dims.size();
  std::vector<AffineExpr> values;
  for (auto [name, value] : llvm::zip(
           let.getNames().getAsValueRange<StringAttr>(), let.getValues())) {
    AffineExpr expr = fold(let, value);
    if (failed_)
      return;
    values.push_back(expr);
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      dims.push_back(
          Dim{name.str(), c.getValue(), Interval::point(c.getValue())});
    else
      dims.push_back(Dim{bindName(name), std::nullopt, range(expr)});
  }
  size_t end = dims.size();
  if (usage.dims.size() < end)
    usage.dims.resize(end, false);
  for (size_t d = first; d < end; ++d)
    usage.dims[d] = false;
  std::string body;
  Writer inner(body);
  inner.depth = w.depth + 1;
  emitBody(let.getBody(), inner);
  // Last first: a used name's value may use the names before it.
  std::vector<std::string> declarations(end - first);
  for (size_t d = end; d-- > first;) {
    if (dims[d].constant || !usage.dims[d])
      continue;
    declarations[d - first] = "const int64_t " + dims[d].name + " = " +
                              print(values[d - first]) + ";";
  }
  dims.resize(first);
  bool declares = llvm::any_of(
      declarations, [](const std::string &text) { return !text.empty(); });
  if (!declares) {
    // No block: the body one level out.
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(body).split(lines, '\n');
    std::string dedented;
    for (size_t i = 0; i + 1 < lines.size(); ++i)
      dedented +=
          (lines[i].starts_with("  ") ? lines[i].drop_front(2) : lines[i])
              .str() +
          "\n";
    w.raw(dedented);
    return;
  }
  w.open("{");
  for (const std::string &declaration : declarations)
    if (!declaration.empty())
      w.line(declaration);
  w.raw(body);
  w.close();
}

void KernelEmitter::emitInstruction(Operation *op, Writer &w) {
  Opcode opcode = cast<InstructionOp>(op).getOpcode();
  auto expr = [&](llvm::StringRef attr, int64_t absent) {
    Attribute value = op->getAttr(attr);
    return print(value ? fold(op, value)
                       : getAffineConstantExpr(absent, context));
  };
  auto buffer = [&](llvm::StringRef attr) -> std::string {
    auto kind = op->getAttrOfType<BufferKindAttr>(attr);
    if (!kind) {
      fail(op, "its '" + attr + "' buffer is missing");
      return "Input";
    }
    return bufferKindName(toProgramBuffer(kind.getValue()));
  };
  w.line("// " + op->getName().getStringRef().str() + " at " +
         formatLocation(op->getLoc()));
  if (auto after = op->getAttrOfType<ArrayAttr>("after"))
    for (auto dependency : after.getAsRange<DependencyAttr>()) {
      std::string channel = dependency.getChannelExpr()
                                ? print(fold(op, dependency.getChannelExpr()))
                                : std::to_string(dependency.getChannel());
      if (Attribute end = dependency.getChannelEnd()) {
        // Every channel of [channel, end).
        w.open("for (int64_t c_ = " + channel + "; c_ < " +
               print(fold(op, end)) + "; ++c_) {");
        w.call("ch.after", {"c_", print(fold(op, dependency.getIndex()))});
        w.close();
        continue;
      }
      w.call("ch.after", {channel, print(fold(op, dependency.getIndex()))});
    }
  std::vector<std::string> args;
  if (opcodeReceives(opcode))
    args.push_back(expr("from", 0));
  if (opcodeSends(opcode))
    args.push_back(expr("to", 0));
  if (opcodeReadsSrc(opcode)) {
    args.push_back(buffer("src"));
    args.push_back(expr("src_index", 0));
  }
  // recv_reduce_send stores nothing; the others that write name dst.
  if (opcodeWritesDst(opcode)) {
    args.push_back(buffer("dst"));
    args.push_back(expr("dst_index", 0));
  }
  args.push_back(expr("count", 1));
  // A reduce with fanin combines several source ranges in one pass.
  bool many = opcode == Opcode::Reduce && op->getAttr("fanin");
  if (many)
    args.push_back(expr("fanin", 1));
  args.push_back(expr("step", 0));
  const char *method = "send";
  switch (opcode) {
  case Opcode::Send:
    method = "send";
    break;
  case Opcode::Recv:
    method = "recv";
    break;
  case Opcode::Copy:
    method = "copy";
    break;
  case Opcode::Reduce:
    method = many ? "reduceMany" : "reduce";
    break;
  case Opcode::RecvReduceSend:
    method = "recvReduceSend";
    break;
  case Opcode::RecvCopySend:
    method = "recvCopySend";
    break;
  case Opcode::RecvReduceCopy:
    method = "recvReduceCopy";
    break;
  case Opcode::RecvReduceCopySend:
    method = "recvReduceCopySend";
    break;
  }
  w.call(std::string("ch.") + method, args);
}

/// `text` as `// ` comment lines of at most 80 columns (a longer word
/// gets a line of its own; '\x01' is a space that does not break).
std::string wrapComment(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  std::string out, current = "//";
  for (llvm::StringRef word : words) {
    if (current.size() > 2 && current.size() + 1 + word.size() > kLineWidth) {
      out += current + "\n";
      current = "//";
    }
    current += " " + word.str();
  }
  out += current + "\n";
  std::replace(out.begin(), out.end(), '\x01', ' ');
  return out;
}

/// Pads `text` to `width` columns.
std::string pad(const std::string &text, size_t width) {
  return text.size() >= width ? text
                              : text + std::string(width - text.size(), ' ');
}

} // namespace

bool isKernelPrefix(llvm::StringRef prefix) { return isIdentifier(prefix); }

LogicalResult emitCuda(llvm::ArrayRef<KernelInput> kernels,
                       const EmitOptions &options, std::string &output) {
  if (!isIdentifier(options.kernelPrefix)) {
    if (!kernels.empty())
      kernels.front().schedule->emitError()
          << "cannot generate CUDA: the kernel prefix '" << options.kernelPrefix
          << "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
    return failure();
  }
  std::vector<std::string> names;
  std::string bodies;
  for (const KernelInput &kernel : kernels) {
    ScheduleOp schedule = kernel.schedule;
    if (!schedule || !kernel.program || !kernel.expand) {
      if (schedule)
        schedule->emitError()
            << "cannot generate CUDA for schedule @" << schedule.getSymName()
            << ": it was not expanded";
      return failure();
    }
    const Program &program = *kernel.program;
    std::string name = kernelName(options.kernelPrefix, kernel.planIndex,
                                  program.algorithm, program.collective);
    names.push_back(name);
    KernelEmitter emitter(kernel, name);
    // The kernel's own header comment.
    std::string params;
    if (DictionaryAttr dict = schedule.getParamsAttr())
      for (NamedAttribute param : dict) {
        llvm::StringRef paramName = param.getName().getValue();
        std::string value;
        if (program.collective == Collective::SendRecv &&
            (paramName == "send_peer" || paramName == "recv_peer")) {
          value = "per rank";
        } else {
          int64_t v = cast<IntegerAttr>(param.getValue()).getInt();
          auto override = kernel.expand->params.find(paramName);
          if (override != kernel.expand->params.end())
            v = override->second;
          value = std::to_string(v);
        }
        // \x01: a space the comment is not broken at.
        params += (params.empty() ? "" : ", ") + paramName.str() + "\x01=\x01" +
                  value;
      }
    std::string about =
        llvm::formatv("Plan collective {0}: {1} at {2}, algorithm {3} "
                      "(schedule @{4}, {5}); n\x01=\x01{6}, k\x01=\x01{7}, "
                      "{8}",
                      kernel.planIndex, collectiveName(program.collective),
                      kernel.location, program.algorithm, schedule.getSymName(),
                      formatLocation(schedule.getLoc()), program.numRanks,
                      program.chunksPerPart, collrt::dataTypeName(kernel.dtype))
            .str();
    if (kernel.reduction)
      about += std::string(", ") + collrt::reduceOpName(*kernel.reduction);
    if (!params.empty())
      about += "; " + params;
    about += "; channels " + channelSummary(program) + ".";
    if (kernel.reduction == collrt::ReduceOp::Avg)
      about += " avg reduces as a sum; the executor divides the outputs by n "
               "after the kernel.";
    bodies += "\n" + wrapComment(about);
    if (failed(emitter.emit(bodies)))
      return failure();
  }

  // The header: a table of the kernels.
  std::vector<std::vector<std::string>> rows = {{"plan", "kernel", "collective",
                                                 "algorithm", "n", "k", "dtype",
                                                 "op", "channels"}};
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelInput &kernel = kernels[i];
    const Program &program = *kernel.program;
    rows.push_back(
        {std::to_string(kernel.planIndex), names[i],
         collectiveName(program.collective), program.algorithm,
         std::to_string(program.numRanks),
         std::to_string(program.chunksPerPart),
         collrt::dataTypeName(kernel.dtype),
         kernel.reduction ? collrt::reduceOpName(*kernel.reduction) : "-",
         channelSummary(program)});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());

  std::string out = wrapComment(
      "Generated by collc --emit=cuda" +
      (options.source.empty() ? std::string() : " from " + options.source) +
      ". Do not edit.");
  out += "//\n";
  out += wrapComment(
      "One kernel per collective of the plan that collc --emit=plan writes "
      "for the same program and options. Launch a kernel with one thread "
      "block per (rank, channel) of its collective and a "
      "collrt::dev::LaunchArgs; the chunk offsets come from the plan "
      "(runtime/include/collrt/device/Channel.h, docs/codegen.md).");
  out += "//\n";
  for (const auto &row : rows) {
    std::string text = "//";
    for (size_t c = 0; c < row.size(); ++c)
      text += "  " + (c + 1 == row.size() ? row[c] : pad(row[c], widths[c]));
    out += text + "\n";
  }
  out += "\n#include \"collrt/device/Channel.h\"\n";
  out += bodies;
  output = std::move(out);
  return success();
}

} // namespace cuda
} // namespace collc
