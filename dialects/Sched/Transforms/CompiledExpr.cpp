//===- CompiledExpr.cpp - sched expressions compiled for evaluation -------===//
#include "dialects/Sched/Transforms/CompiledExpr.h"
#include "dialects/Sched/IR/SchedExpr.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace collc::sched;

const char *collc::sched::evalErrorMessage(EvalError error) {
  switch (error) {
  case EvalError::None:
    return "evaluates";
  case EvalError::DivideByZero:
    return "divides by zero";
  case EvalError::NegativeDivisor:
    return "divides by a negative value";
  case EvalError::Overflow:
    return "overflows 64-bit integers";
  }
  return "fails";
}

CompiledExpr CompiledExpr::constant(int64_t value) {
  CompiledExpr result;
  result.kind = Kind::Constant;
  result.value = value;
  return result;
}

CompiledExpr CompiledExpr::compile(Attribute expr, unsigned numSymbols) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(expr))
    return constant(integer.getInt());
  return compile(getExprMap(expr).getResult(0), numSymbols);
}

CompiledExpr CompiledExpr::compile(AffineExpr expr, unsigned numSymbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return constant(c.getValue());
  CompiledExpr result;
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    result.kind = Kind::Load;
    result.value = numSymbols + dim.getPosition();
    return result;
  }
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    result.kind = Kind::Load;
    result.value = symbol.getPosition();
    return result;
  }
  result.kind = Kind::Code;
  result.emit(expr, numSymbols, 1);
  return result;
}

void CompiledExpr::emit(AffineExpr expr, unsigned numSymbols, unsigned depth) {
  maxStack = std::max(maxStack, depth);
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    code.push_back({Op::Constant, cast<AffineConstantExpr>(expr).getValue()});
    return;
  case AffineExprKind::DimId:
    code.push_back(
        {Op::Load, numSymbols + cast<AffineDimExpr>(expr).getPosition()});
    return;
  case AffineExprKind::SymbolId:
    code.push_back({Op::Load, cast<AffineSymbolExpr>(expr).getPosition()});
    return;
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  emit(binary.getLHS(), numSymbols, depth);
  emit(binary.getRHS(), numSymbols, depth + 1);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    code.push_back({Op::Add, 0});
    break;
  case AffineExprKind::Mul:
    code.push_back({Op::Mul, 0});
    break;
  case AffineExprKind::Mod:
    code.push_back({Op::Mod, 0});
    break;
  case AffineExprKind::FloorDiv:
    code.push_back({Op::FloorDiv, 0});
    break;
  default:
    code.push_back({Op::CeilDiv, 0});
    break;
  }
}

EvalError CompiledExpr::evaluateCode(const int64_t *env,
                                     int64_t &result) const {
  // Expressions are shallow; deeper ones take the heap.
  int64_t inlineStack[16];
  std::vector<int64_t> heapStack;
  if (maxStack > 16)
    heapStack.resize(maxStack);
  int64_t *top = maxStack > 16 ? heapStack.data() : inlineStack;
  for (const Step &step : code) {
    switch (step.op) {
    case Op::Constant:
      *top++ = step.operand;
      continue;
    case Op::Load:
      *top++ = env[step.operand];
      continue;
    default:
      break;
    }
    int64_t rhs = *--top;
    int64_t &lhs = top[-1];
    switch (step.op) {
    case Op::Add:
      if (__builtin_add_overflow(lhs, rhs, &lhs))
        return EvalError::Overflow;
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(lhs, rhs, &lhs))
        return EvalError::Overflow;
      break;
    default: {
      if (rhs == 0)
        return EvalError::DivideByZero;
      if (rhs < 0)
        return EvalError::NegativeDivisor;
      int64_t quotient = lhs / rhs, remainder = lhs % rhs;
      if (step.op == Op::Mod)
        lhs = remainder < 0 ? remainder + rhs : remainder;
      else if (step.op == Op::FloorDiv)
        lhs = quotient - (remainder < 0 ? 1 : 0);
      else
        lhs = quotient + (remainder > 0 ? 1 : 0);
      break;
    }
    }
  }
  result = top[-1];
  return EvalError::None;
}
