//===- PeerFunction.cpp - evaluating peer maps and tables -----------------===//
#include "dialects/Coll/IR/PeerFunction.h"

#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace collc::coll;

/// Evaluates `expr` with dimension 0 = `rank` and symbol 0 = `groupSize`;
/// std::nullopt on overflow or a division by a non-positive value (affine
/// mod, floordiv and ceildiv are only defined for positive divisors).
static std::optional<int64_t> evaluate(AffineExpr expr, int64_t rank,
                                       int64_t groupSize) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dim.getPosition() == 0 ? std::optional<int64_t>(rank) : std::nullopt;
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbol.getPosition() == 0 ? std::optional<int64_t>(groupSize)
                                     : std::nullopt;
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs = evaluate(binary.getLHS(), rank, groupSize);
  std::optional<int64_t> rhs = evaluate(binary.getRHS(), rank, groupSize);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t value;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(*lhs, *rhs, value))
      return std::nullopt;
    return value;
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(*lhs, *rhs, value))
      return std::nullopt;
    return value;
  case AffineExprKind::Mod:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::mod(*lhs, *rhs);
  case AffineExprKind::FloorDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::divideFloorSigned(*lhs, *rhs);
  case AffineExprKind::CeilDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::divideCeilSigned(*lhs, *rhs);
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> PeerFunction::peerOf(int64_t rank,
                                            int64_t groupSize) const {
  if (table) {
    if (rank < 0 || rank >= table.size())
      return std::nullopt;
    return table[rank];
  }
  AffineMap affineMap = map ? map.getValue() : AffineMap();
  if (!affineMap || affineMap.getNumDims() != 1 ||
      affineMap.getNumSymbols() > 1 || affineMap.getNumResults() != 1)
    return std::nullopt;
  return evaluate(affineMap.getResult(0), rank, groupSize);
}
