//===- CompiledExpr.h - sched expressions compiled to evaluate --*- C++ -*-===//
//
// Expansion evaluates a schedule's expressions millions of times (a
// 1024-rank all_to_all has two million instructions), so each AffineExpr is
// compiled once into postfix code over int64 slots and evaluated with plain
// integers, never through MLIR attributes.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_SCHED_TRANSFORMS_COMPILEDEXPR_H
#define COLLC_DIALECTS_SCHED_TRANSFORMS_COMPILEDEXPR_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Attributes.h"

#include <cstdint>
#include <vector>

namespace collc {
namespace sched {

/// Why an evaluation failed.
enum class EvalError : uint8_t {
  None,
  DivideByZero,    ///< mod, floordiv or ceildiv by 0
  NegativeDivisor, ///< mod, floordiv or ceildiv by a negative value
  Overflow,        ///< a sum or product left int64
};

/// "divides by zero", ...: completes "the <what> expression ...".
const char *evalErrorMessage(EvalError error);

/// An expression over an environment of int64 slots: the symbols (n, k,
/// parameters) in slots [0, numSymbols), then the dims (r, loop variables)
/// from slot numSymbols on.
class CompiledExpr {
public:
  CompiledExpr() = default;
  static CompiledExpr constant(int64_t value);
  /// Compiles an integer or one-result affine map attribute.
  static CompiledExpr compile(mlir::Attribute expr, unsigned numSymbols);
  static CompiledExpr compile(mlir::AffineExpr expr, unsigned numSymbols);

  bool isConstant() const { return kind == Kind::Constant; }
  int64_t constantValue() const { return value; }

  /// Evaluates over `env`; on failure `result` is unspecified.
  EvalError evaluate(const int64_t *env, int64_t &result) const {
    if (kind == Kind::Constant) {
      result = value;
      return EvalError::None;
    }
    if (kind == Kind::Load) {
      result = env[value];
      return EvalError::None;
    }
    return evaluateCode(env, result);
  }

private:
  enum class Kind : uint8_t { Constant, Load, Code };
  enum class Op : uint8_t { Constant, Load, Add, Mul, Mod, FloorDiv, CeilDiv };
  struct Step {
    Op op;
    int64_t operand; ///< the constant or the slot
  };

  void emit(mlir::AffineExpr expr, unsigned numSymbols, unsigned depth);
  EvalError evaluateCode(const int64_t *env, int64_t &result) const;

  Kind kind = Kind::Constant;
  int64_t value = 0; ///< the constant, or the slot of a Load
  unsigned maxStack = 0;
  std::vector<Step> code;
};

} // namespace sched
} // namespace collc

#endif
