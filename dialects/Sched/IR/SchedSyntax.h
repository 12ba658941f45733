//===- SchedSyntax.h - custom directives of the sched ops -------*- C++ -*-===//
//
// The parsers and printers named by custom<...> in SchedOps.td. Internal to
// the dialect: SchedOps.cpp includes this before the generated op code.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_SCHED_IR_SCHEDSYNTAX_H
#define COLLC_DIALECTS_SCHED_IR_SCHEDSYNTAX_H

#include "mlir/IR/OpImplementation.h"

namespace collc {
namespace sched {

class BufferKindAttr;
class CollectiveKindAttr;

mlir::ParseResult parseCollective(mlir::OpAsmParser &parser,
                                  CollectiveKindAttr &collective);
void printCollective(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                     CollectiveKindAttr collective);

mlir::ParseResult parseExpr(mlir::OpAsmParser &parser, mlir::Attribute &expr);
void printExpr(mlir::OpAsmPrinter &printer, mlir::Operation *op,
               mlir::Attribute expr);

mlir::ParseResult parseChunk(mlir::OpAsmParser &parser, BufferKindAttr &buffer,
                             mlir::Attribute &index);
void printChunk(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                BufferKindAttr buffer, mlir::Attribute index);

mlir::ParseResult parseDependencies(mlir::OpAsmParser &parser,
                                    mlir::ArrayAttr &dependencies);
void printDependencies(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                       mlir::ArrayAttr dependencies);

/// The rest of a schedule: `params = {...}`, `root = EXPR`, `peer = EXPR`,
/// `scratch = EXPR`, `send_counts = array<i64: ...>`, `send_to = array<i64:
/// ...>`, `description = "..."`, each optional, in this order, then the
/// body. The header expressions see n, k and the parameters, `peer` also r;
/// the body sees r.
mlir::ParseResult
parseScheduleBody(mlir::OpAsmParser &parser, mlir::DictionaryAttr &params,
                  mlir::Attribute &root, mlir::Attribute &peer,
                  mlir::Attribute &scratch, mlir::DenseI64ArrayAttr &sendCounts,
                  mlir::DenseI64ArrayAttr &sendTo,
                  mlir::StringAttr &description, mlir::Region &body);
void printScheduleBody(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                       mlir::DictionaryAttr params, mlir::Attribute root,
                       mlir::Attribute peer, mlir::Attribute scratch,
                       mlir::DenseI64ArrayAttr sendCounts,
                       mlir::DenseI64ArrayAttr sendTo,
                       mlir::StringAttr description, mlir::Region &body);

/// A channel's header: `ID` or a range `VAR = ID to UPPER`, where UPPER is
/// an expression of the symbols only.
mlir::ParseResult parseChannelRange(mlir::OpAsmParser &parser,
                                    mlir::IntegerAttr &id,
                                    mlir::StringAttr &var,
                                    mlir::Attribute &upper);
void printChannelRange(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                       mlir::IntegerAttr id, mlir::StringAttr var,
                       mlir::Attribute upper);

/// A channel's body; a channel range's variable is in scope there.
mlir::ParseResult parseChannelBody(mlir::OpAsmParser &parser,
                                   mlir::StringAttr var, mlir::Region &body);
void printChannelBody(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                      mlir::StringAttr var, mlir::Region &body);

mlir::ParseResult parseBody(mlir::OpAsmParser &parser, mlir::Region &body);
void printBody(mlir::OpAsmPrinter &printer, mlir::Operation *op,
               mlir::Region &body);

mlir::ParseResult parseLoopVar(mlir::OpAsmParser &parser,
                               mlir::StringAttr &var);
void printLoopVar(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                  mlir::StringAttr var);

mlir::ParseResult parseStep(mlir::OpAsmParser &parser, mlir::Attribute &step,
                            mlir::UnitAttr &geometric);
void printStep(mlir::OpAsmPrinter &printer, mlir::Operation *op,
               mlir::Attribute step, mlir::UnitAttr geometric);

mlir::ParseResult parseLoopBody(mlir::OpAsmParser &parser, mlir::StringAttr var,
                                mlir::Region &body);
void printLoopBody(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                   mlir::StringAttr var, mlir::Region &body);

/// A let's bindings: `NAME = EXPR, NAME = EXPR, ...`; each expression sees
/// the names bound before it.
mlir::ParseResult parseLetBindings(mlir::OpAsmParser &parser,
                                   mlir::ArrayAttr &names,
                                   mlir::ArrayAttr &values);
void printLetBindings(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                      mlir::ArrayAttr names, mlir::ArrayAttr values);

/// A let's body; its names are in scope there.
mlir::ParseResult parseLetBody(mlir::OpAsmParser &parser, mlir::ArrayAttr names,
                               mlir::Region &body);
void printLetBody(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                  mlir::ArrayAttr names, mlir::Region &body);

mlir::ParseResult parseCondition(mlir::OpAsmParser &parser,
                                 mlir::Attribute &condition);
void printCondition(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                    mlir::Attribute condition);

} // namespace sched
} // namespace collc

#endif
