//===- SchedExpr.cpp - the text form of sched expressions -----------------===//
#include "dialects/Sched/IR/SchedExpr.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace collc::sched;

namespace {

enum class TokenKind {
  Integer,
  Name,
  Plus,
  Minus,
  Star,
  LParen,
  RParen,
  Comma,
  Equal,        // ==
  GreaterEqual, // >=
  LessEqual,    // <=
  Greater,      // >
  Less,         // <
  NotEqual,     // !=
  End,
  Invalid,
};

struct Token {
  TokenKind kind = TokenKind::End;
  StringRef text;
  size_t offset = 0;
};

/// A recursive-descent parser over the expression text. Precedence follows
/// MLIR's affine maps: `*`, `mod`, `floordiv` and `ceildiv` bind tighter
/// than `+` and `-` and associate to the left; unary minus binds tightest.
class ExprParser {
public:
  ExprParser(MLIRContext *context, StringRef text, const ExprScope &scope,
             ExprSyntaxError &error)
      : context(context), text(text), scope(scope), error(error) {
    next();
  }

  AffineExpr parseExpr() {
    AffineExpr lhs = parseTerm();
    while (lhs) {
      if (token.kind == TokenKind::Plus) {
        next();
        AffineExpr rhs = parseTerm();
        lhs = rhs ? lhs + rhs : AffineExpr();
      } else if (token.kind == TokenKind::Minus) {
        next();
        AffineExpr rhs = parseTerm();
        lhs = rhs ? lhs - rhs : AffineExpr();
      } else {
        break;
      }
    }
    return lhs;
  }

  /// Parses `expr (== | >= | <= | > | <) expr` into `e == 0` or `e >= 0`.
  bool parseConstraint(AffineExpr &constraint, bool &isEquality) {
    AffineExpr lhs = parseExpr();
    if (!lhs)
      return false;
    Token op = token;
    if (op.kind == TokenKind::NotEqual)
      return fail(op.offset, "'!=' is not an affine constraint; use "
                             "sched.if with an else region");
    if (op.kind != TokenKind::Equal && op.kind != TokenKind::GreaterEqual &&
        op.kind != TokenKind::LessEqual && op.kind != TokenKind::Greater &&
        op.kind != TokenKind::Less)
      return fail(op.offset, "expected a comparison (==, >=, <=, >, <)");
    next();
    AffineExpr rhs = parseExpr();
    if (!rhs)
      return false;
    isEquality = op.kind == TokenKind::Equal;
    switch (op.kind) {
    case TokenKind::Equal:
    case TokenKind::GreaterEqual:
      constraint = lhs - rhs;
      break;
    case TokenKind::LessEqual:
      constraint = rhs - lhs;
      break;
    case TokenKind::Greater:
      constraint = lhs - rhs - 1;
      break;
    default:
      constraint = rhs - lhs - 1;
      break;
    }
    return true;
  }

  bool atEnd() const { return token.kind == TokenKind::End; }
  bool consumeComma() {
    if (token.kind != TokenKind::Comma)
      return false;
    next();
    return true;
  }
  bool expectEnd() {
    if (token.kind == TokenKind::End)
      return true;
    if (token.text == "/")
      return fail(token.offset,
                  "unexpected '/'; divide with floordiv or ceildiv");
    return fail(token.offset, "unexpected '" + token.text.str() + "'");
  }

private:
  AffineExpr parseTerm() {
    AffineExpr lhs = parseUnary();
    while (lhs) {
      Token op = token;
      bool isStar = op.kind == TokenKind::Star;
      bool isKeyword =
          op.kind == TokenKind::Name &&
          (op.text == "mod" || op.text == "floordiv" || op.text == "ceildiv");
      if (!isStar && !isKeyword)
        break;
      next();
      AffineExpr rhs = parseUnary();
      if (!rhs)
        return nullptr;
      if (isStar) {
        lhs = lhs * rhs;
        continue;
      }
      // MLIR folds constant divisions eagerly; a non-positive constant
      // divisor is an error here, a symbolic one at expansion.
      if (auto divisor = dyn_cast<AffineConstantExpr>(rhs)) {
        if (divisor.getValue() <= 0) {
          fail(op.offset, "'" + op.text.str() + "' by " +
                              std::to_string(divisor.getValue()) +
                              ": the divisor must be positive");
          return nullptr;
        }
      }
      if (op.text == "mod")
        lhs = lhs % rhs;
      else if (op.text == "floordiv")
        lhs = lhs.floorDiv(rhs);
      else
        lhs = lhs.ceilDiv(rhs);
    }
    return lhs;
  }

  AffineExpr parseUnary() {
    if (token.kind == TokenKind::Minus) {
      next();
      AffineExpr operand = parseUnary();
      return operand ? -operand : AffineExpr();
    }
    return parsePrimary();
  }

  AffineExpr parsePrimary() {
    Token t = token;
    switch (t.kind) {
    case TokenKind::Integer: {
      int64_t value;
      if (t.text.getAsInteger(10, value)) {
        fail(t.offset, "integer " + t.text.str() + " is too large");
        return nullptr;
      }
      next();
      return getAffineConstantExpr(value, context);
    }
    case TokenKind::Name: {
      next();
      for (auto [i, name] : llvm::enumerate(scope.dims))
        if (name == t.text)
          return getAffineDimExpr(i, context);
      for (auto [i, name] : llvm::enumerate(scope.symbols))
        if (name == t.text)
          return getAffineSymbolExpr(i, context);
      std::string known;
      for (StringRef name : scope.dims)
        known += (known.empty() ? "" : ", ") + name.str();
      for (StringRef name : scope.symbols)
        known += (known.empty() ? "" : ", ") + name.str();
      fail(t.offset, "unknown name '" + t.text.str() + "'" +
                         (known.empty() ? " (no names are in scope here)"
                                        : "; in scope: " + known));
      return nullptr;
    }
    case TokenKind::LParen: {
      next();
      AffineExpr inner = parseExpr();
      if (!inner)
        return nullptr;
      if (token.kind != TokenKind::RParen) {
        fail(token.offset, "expected ')'");
        return nullptr;
      }
      next();
      return inner;
    }
    case TokenKind::End:
      fail(t.offset, "expected an expression");
      return nullptr;
    default:
      fail(t.offset,
           "expected an integer, a name or '(', got '" + t.text.str() + "'");
      return nullptr;
    }
  }

  bool fail(size_t offset, const Twine &message) {
    if (error.message.empty()) {
      error.offset = offset;
      error.message = message.str();
    }
    return false;
  }

  void next() {
    while (pos < text.size() && isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
    token.offset = pos;
    if (pos == text.size()) {
      token.kind = TokenKind::End;
      token.text = "end of expression";
      return;
    }
    char c = text[pos];
    size_t begin = pos;
    auto single = [&](TokenKind kind) {
      token.kind = kind;
      token.text = text.substr(begin, 1);
      ++pos;
    };
    auto twoOrOne = [&](char second, TokenKind two, TokenKind one) {
      if (pos + 1 < text.size() && text[pos + 1] == second) {
        token.kind = two;
        token.text = text.substr(begin, 2);
        pos += 2;
      } else {
        single(one);
      }
    };
    if (isdigit(static_cast<unsigned char>(c))) {
      while (pos < text.size() &&
             isdigit(static_cast<unsigned char>(text[pos])))
        ++pos;
      token.kind = TokenKind::Integer;
      token.text = text.slice(begin, pos);
      return;
    }
    if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (
          pos < text.size() &&
          (isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
        ++pos;
      token.kind = TokenKind::Name;
      token.text = text.slice(begin, pos);
      return;
    }
    switch (c) {
    case '+':
      return single(TokenKind::Plus);
    case '-':
      return single(TokenKind::Minus);
    case '*':
      return single(TokenKind::Star);
    case '(':
      return single(TokenKind::LParen);
    case ')':
      return single(TokenKind::RParen);
    case ',':
      return single(TokenKind::Comma);
    case '>':
      return twoOrOne('=', TokenKind::GreaterEqual, TokenKind::Greater);
    case '<':
      return twoOrOne('=', TokenKind::LessEqual, TokenKind::Less);
    case '=':
      return twoOrOne('=', TokenKind::Equal, TokenKind::Invalid);
    case '!':
      return twoOrOne('=', TokenKind::NotEqual, TokenKind::Invalid);
    default:
      return single(TokenKind::Invalid);
    }
  }

  MLIRContext *context;
  StringRef text;
  const ExprScope &scope;
  ExprSyntaxError &error;
  size_t pos = 0;
  Token token;
};

enum class Binding { Weak, Strong };

/// Prints like MLIR's AffineExpr printer, with names: binary operators
/// other than `+` print their operands strong (parenthesized when they are
/// binary), so that the text re-parses into the same tree.
void printExpr(raw_ostream &os, AffineExpr expr, const ExprScope &scope,
               Binding binding) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    os << cast<AffineConstantExpr>(expr).getValue();
    return;
  case AffineExprKind::DimId: {
    unsigned position = cast<AffineDimExpr>(expr).getPosition();
    if (position < scope.dims.size())
      os << scope.dims[position];
    else
      os << 'd' << position;
    return;
  }
  case AffineExprKind::SymbolId: {
    unsigned position = cast<AffineSymbolExpr>(expr).getPosition();
    if (position < scope.symbols.size())
      os << scope.symbols[position];
    else
      os << 's' << position;
    return;
  }
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  AffineExpr lhs = binary.getLHS(), rhs = binary.getRHS();
  bool parens = binding == Binding::Strong;
  if (parens)
    os << '(';
  if (expr.getKind() != AffineExprKind::Add) {
    auto rhsConstant = dyn_cast<AffineConstantExpr>(rhs);
    if (expr.getKind() == AffineExprKind::Mul && rhsConstant &&
        rhsConstant.getValue() == -1) {
      os << '-';
      printExpr(os, lhs, scope, Binding::Strong);
    } else {
      printExpr(os, lhs, scope, Binding::Strong);
      switch (expr.getKind()) {
      case AffineExprKind::Mul:
        os << " * ";
        break;
      case AffineExprKind::Mod:
        os << " mod ";
        break;
      case AffineExprKind::FloorDiv:
        os << " floordiv ";
        break;
      default:
        os << " ceildiv ";
        break;
      }
      printExpr(os, rhs, scope, Binding::Strong);
    }
  } else if (auto product = dyn_cast<AffineBinaryOpExpr>(rhs);
             product && product.getKind() == AffineExprKind::Mul &&
             isa<AffineConstantExpr>(product.getRHS()) &&
             cast<AffineConstantExpr>(product.getRHS()).getValue() < 0) {
    // a + b * -c prints as a - b * c.
    int64_t factor = -cast<AffineConstantExpr>(product.getRHS()).getValue();
    printExpr(os, lhs, scope, Binding::Weak);
    os << " - ";
    printExpr(os, product.getLHS(), scope,
              factor == 1 && product.getLHS().getKind() != AffineExprKind::Add
                  ? Binding::Weak
                  : Binding::Strong);
    if (factor != 1)
      os << " * " << factor;
  } else if (auto constant = dyn_cast<AffineConstantExpr>(rhs);
             constant && constant.getValue() < 0) {
    printExpr(os, lhs, scope, Binding::Weak);
    os << " - " << -constant.getValue();
  } else {
    printExpr(os, lhs, scope, Binding::Weak);
    os << " + ";
    printExpr(os, rhs, scope, Binding::Weak);
  }
  if (parens)
    os << ')';
}

/// Adds `coefficient * expr` to a linear combination of terms.
void collectTerms(AffineExpr expr, int64_t coefficient,
                  SmallVectorImpl<std::pair<AffineExpr, int64_t>> &terms,
                  int64_t &constant) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    constant += coefficient * c.getValue();
    return;
  }
  if (auto binary = dyn_cast<AffineBinaryOpExpr>(expr)) {
    if (binary.getKind() == AffineExprKind::Add) {
      collectTerms(binary.getLHS(), coefficient, terms, constant);
      collectTerms(binary.getRHS(), coefficient, terms, constant);
      return;
    }
    if (auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS());
        factor && binary.getKind() == AffineExprKind::Mul) {
      collectTerms(binary.getLHS(), coefficient * factor.getValue(), terms,
                   constant);
      return;
    }
  }
  for (auto &term : terms) {
    if (term.first == expr) {
      term.second += coefficient;
      return;
    }
  }
  terms.emplace_back(expr, coefficient);
}

/// Writes `c1 * t1 + c2 * t2 + constant` with positive coefficients.
void printSum(raw_ostream &os, ArrayRef<std::pair<AffineExpr, int64_t>> terms,
              int64_t constant, const ExprScope &scope) {
  bool first = true;
  for (auto [term, coefficient] : terms) {
    if (!first)
      os << " + ";
    printExpr(os, term, scope,
              coefficient == 1 ? Binding::Weak : Binding::Strong);
    if (coefficient != 1)
      os << " * " << coefficient;
    first = false;
  }
  if (constant != 0 || first) {
    if (!first)
      os << " + ";
    os << constant;
  }
}

/// An order of terms that does not depend on how the sum was built: dims,
/// then symbols, by position, then compound terms by their text.
bool termBefore(const std::pair<AffineExpr, int64_t> &a,
                const std::pair<AffineExpr, int64_t> &b,
                const ExprScope &scope) {
  auto rank = [](AffineExpr e) {
    return isa<AffineDimExpr>(e) ? 0 : isa<AffineSymbolExpr>(e) ? 1 : 2;
  };
  auto position = [](AffineExpr e) -> unsigned {
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      return dim.getPosition();
    if (auto symbol = dyn_cast<AffineSymbolExpr>(e))
      return symbol.getPosition();
    return 0;
  };
  if (rank(a.first) != rank(b.first))
    return rank(a.first) < rank(b.first);
  if (rank(a.first) < 2)
    return position(a.first) < position(b.first);
  std::string textA, textB;
  llvm::raw_string_ostream osA(textA), osB(textB);
  printExpr(osA, a.first, scope, Binding::Weak);
  printExpr(osB, b.first, scope, Binding::Weak);
  return textA < textB;
}

} // namespace

namespace collc {
namespace sched {

FailureOr<AffineExpr> parseAffineExprText(MLIRContext *context, StringRef text,
                                          const ExprScope &scope,
                                          ExprSyntaxError &error) {
  ExprParser parser(context, text, scope, error);
  AffineExpr expr = parser.parseExpr();
  if (!expr || !parser.expectEnd())
    return failure();
  return expr;
}

FailureOr<Attribute> parseExprText(MLIRContext *context, StringRef text,
                                   const ExprScope &scope,
                                   ExprSyntaxError &error) {
  FailureOr<AffineExpr> expr = parseAffineExprText(context, text, scope, error);
  if (failed(expr))
    return failure();
  return getExprAttr(*expr, scope.dims.size(), scope.symbols.size());
}

FailureOr<IntegerSet> parseConditionText(MLIRContext *context, StringRef text,
                                         const ExprScope &scope,
                                         ExprSyntaxError &error) {
  ExprParser parser(context, text, scope, error);
  SmallVector<AffineExpr> constraints;
  SmallVector<bool> equalities;
  do {
    AffineExpr constraint;
    bool isEquality = false;
    if (!parser.parseConstraint(constraint, isEquality))
      return failure();
    constraints.push_back(constraint);
    equalities.push_back(isEquality);
  } while (parser.consumeComma());
  if (!parser.expectEnd())
    return failure();
  return IntegerSet::get(scope.dims.size(), scope.symbols.size(), constraints,
                         equalities);
}

void printAffineExprText(raw_ostream &os, AffineExpr expr,
                         const ExprScope &scope) {
  printExpr(os, expr, scope, Binding::Weak);
}

void printConditionText(raw_ostream &os, IntegerSet set,
                        const ExprScope &scope) {
  for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i) {
    if (i)
      os << ", ";
    // Print `e >= 0` as `positive terms >= negated negative terms`, from a
    // flattened, merged and sorted linear combination, so that printing the
    // re-parsed text gives the same text.
    SmallVector<std::pair<AffineExpr, int64_t>> terms, lhs, rhs;
    int64_t constant = 0;
    collectTerms(set.getConstraint(i), 1, terms, constant);
    llvm::sort(terms, [&](const auto &a, const auto &b) {
      return termBefore(a, b, scope);
    });
    for (auto [term, coefficient] : terms) {
      if (coefficient > 0)
        lhs.emplace_back(term, coefficient);
      else if (coefficient < 0)
        rhs.emplace_back(term, -coefficient);
    }
    const char *relation = set.isEq(i) ? " == " : " >= ";
    if (lhs.empty() && constant <= 0 && !rhs.empty()) {
      // -x - c >= 0 reads better as x + c <= 0.
      printSum(os, rhs, -constant, scope);
      os << (set.isEq(i) ? " == " : " <= ") << 0;
      continue;
    }
    printSum(os, lhs, constant > 0 ? constant : 0, scope);
    os << relation;
    printSum(os, rhs, constant < 0 ? -constant : 0, scope);
  }
}

} // namespace sched
} // namespace collc
