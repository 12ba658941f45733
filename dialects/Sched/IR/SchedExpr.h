//===- SchedExpr.h - expressions of sched schedules -------------*- C++ -*-===//
//
// Peers, chunk indices, counts, bounds and guards of a schedule are integers
// or affine expressions over the dims (r, loop variables outermost first)
// and symbols (n, k, parameters) in scope. This file reads and writes their
// text form ("(r + s) mod n", "2 * r + 1 < n, r >= 1") and finds the scope
// of an op.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_SCHED_IR_SCHEDEXPR_H
#define COLLC_DIALECTS_SCHED_IR_SCHEDEXPR_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace collc {
namespace sched {

/// The names an expression may use, by position: dims then symbols.
struct ExprScope {
  llvm::SmallVector<llvm::StringRef> dims;
  llvm::SmallVector<llvm::StringRef> symbols;
};

/// Where and why expression text is malformed.
struct ExprSyntaxError {
  size_t offset = 0; ///< byte offset in the text
  std::string message;
};

/// Parses an expression over `scope`'s names.
mlir::FailureOr<mlir::AffineExpr>
parseAffineExprText(mlir::MLIRContext *context, llvm::StringRef text,
                    const ExprScope &scope, ExprSyntaxError &error);

/// Parses an expression over `scope`'s names into an expression attribute
/// (see getExprAttr).
mlir::FailureOr<mlir::Attribute> parseExprText(mlir::MLIRContext *context,
                                               llvm::StringRef text,
                                               const ExprScope &scope,
                                               ExprSyntaxError &error);

/// Parses a comma-separated conjunction of comparisons (==, >=, <=, >, <)
/// into an integer set over `scope`.
mlir::FailureOr<mlir::IntegerSet> parseConditionText(mlir::MLIRContext *context,
                                                     llvm::StringRef text,
                                                     const ExprScope &scope,
                                                     ExprSyntaxError &error);

/// Writes `expr` with the scope's names (dims and symbols beyond the scope
/// print as d<i> and s<i>), parenthesized as the parser needs.
void printAffineExprText(llvm::raw_ostream &os, mlir::AffineExpr expr,
                         const ExprScope &scope);

/// Writes an integer set as comparisons, e.g. "n >= r + 2, r mod 2 == 0".
void printConditionText(llvm::raw_ostream &os, mlir::IntegerSet set,
                        const ExprScope &scope);

/// Writes an expression attribute as the custom syntax does: an integer or
/// a name bare, anything else as a quoted expression.
void printExprAttr(llvm::raw_ostream &os, mlir::Attribute expr,
                   const ExprScope &scope);

/// Whether MLIR's affine_map syntax can write `expr`: every product has a
/// constant or symbolic side and every divisor is constant or symbolic.
bool isAffineSyntaxExpressible(mlir::AffineExpr expr);

/// The attribute for an expression over `numDims` dims and `numSymbols`
/// symbols: an i64 IntegerAttr when constant, an AffineMapAttr when
/// affine_map syntax can write it, a #sched.map otherwise.
mlir::Attribute getExprAttr(mlir::AffineExpr expr, unsigned numDims,
                            unsigned numSymbols);

/// The attribute for a sched.if condition: an IntegerSetAttr, or a
/// #sched.set when affine_set syntax cannot write a constraint.
mlir::Attribute getConditionAttr(mlir::IntegerSet set);

/// The map of an AffineMapAttr or #sched.map; null for anything else.
mlir::AffineMap getExprMap(mlir::Attribute expr);

/// The affine expression of an expression attribute (an integer or a
/// one-result map); null for anything else.
mlir::AffineExpr getExprAffineExpr(mlir::Attribute expr,
                                   mlir::MLIRContext *context);

/// The set of an IntegerSetAttr or #sched.set; null for anything else.
mlir::IntegerSet getConditionSet(mlir::Attribute condition);

/// The scope of the expressions of `op`, which is inside a sched.schedule:
/// r, the variable of an enclosing channel range, the variables of the
/// sched.for ops and the names of the sched.let ops strictly enclosing `op`
/// (outermost first), and the schedule's symbols.
ExprScope getExprScope(mlir::Operation *op);

/// The number of variables bound by the sched.for ops, channel ranges
/// (`sched.channel c = 0 to UB`) and sched.let ops strictly enclosing `op`:
/// the dims of its scope after r.
unsigned getLoopDepth(mlir::Operation *op);

/// Whether `name` is a plain identifier: [A-Za-z_][A-Za-z0-9_]*.
bool isPlainIdentifier(llvm::StringRef name);

/// Whether `name` is taken by the language: r, n, k, mod, floordiv,
/// ceildiv.
bool isReservedName(llvm::StringRef name);

} // namespace sched
} // namespace collc

#endif
