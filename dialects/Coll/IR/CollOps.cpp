//===- CollOps.cpp - verifiers and custom syntax of the coll ops ----------===//
//
// The mesh, group and element-type rules every collective shares are checked
// by CollectiveOpInterface (CollInterfaces.cpp) before these verifiers run,
// so they may rely on a well-formed mesh and a group size in [1, 2^20].
//
//===----------------------------------------------------------------------===//
#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Coll/IR/ShapeRules.h"

#include "mlir/IR/OpImplementation.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace collc::coll;
using namespace collc::coll::rules;

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult ComputeOp::verify() {
  for (auto [name, value] : {std::make_pair("flops", getFlops()),
                             std::make_pair("bytes", getBytes())}) {
    double number = value.convertToDouble();
    if (!std::isfinite(number) || number < 0)
      return emitOpError() << name
                           << " must be finite and non-negative, but is "
                           << number;
  }
  if (std::optional<int64_t> axis = getChunkAxis()) {
    auto check = [&](Value value, StringRef kind,
                     unsigned index) -> LogicalResult {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || (*axis >= 0 && *axis < type.getRank()))
        return success();
      return emitOpError("chunk_axis ")
             << *axis << " is out of range for " << kind << " #" << index
             << " of type " << type;
    };
    for (auto [index, value] : llvm::enumerate(getInputs()))
      if (failed(check(value, "operand", index)))
        return failure();
    for (auto [index, value] : llvm::enumerate(getResults()))
      if (failed(check(value, "result", index)))
        return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  if (failed(verifySameType(*this, getInput(), getResult())))
    return failure();
  return verifyReduction(*this, getReduce(),
                         getInput().getType().getElementType());
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyAxis(*this, "gather_axis", getGatherAxis(),
                        getInput().getType())))
    return failure();
  return verifyGathered(*this, getInput(), getResult(), getGatherAxis(),
                        getGroupSize());
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyAxis(*this, "scatter_axis", getScatterAxis(),
                        getInput().getType())) ||
      failed(verifyScattered(*this, getInput(), getResult(), getScatterAxis(),
                             getGroupSize())))
    return failure();
  return verifyReduction(*this, getReduce(),
                         getInput().getType().getElementType());
}

LogicalResult AllToAllOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t split = getSplitAxis(), concat = getConcatAxis();
  int64_t groupSize = getGroupSize();
  if (failed(verifyAxis(*this, "split_axis", split, input)) ||
      failed(verifyAxis(*this, "concat_axis", concat, input)) ||
      failed(verifyDivisible(*this, input, split, groupSize)))
    return failure();
  SmallVector<int64_t> expected(input.getShape());
  if (split != concat) {
    FailureOr<int64_t> concatenated =
        multiplyDim(*this, input, concat, groupSize);
    if (failed(concatenated))
      return failure();
    expected[split] = divideDim(expected[split], groupSize);
    expected[concat] = *concatenated;
  }
  return verifyResultType(
      *this, input, getResult().getType(), expected,
      [&](int64_t d) -> std::string {
        std::string in = "input dim " + std::to_string(d) + " = " +
                         dimString(input.getDimSize(d)) + " ";
        std::string n = std::to_string(groupSize);
        if (d == split && d == concat)
          return in + "split and concatenated over the group of " + n;
        if (d == split)
          return in + "divided by the group size " + n;
        if (d == concat)
          return in + "times the group size " + n;
        return sameAsInput(d);
      });
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyRoot(*this, getRoot(), getGroupSize())))
    return failure();
  return verifySameType(*this, getInput(), getResult());
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyRoot(*this, getRoot(), getGroupSize())) ||
      failed(verifySameType(*this, getInput(), getResult())))
    return failure();
  return verifyReduction(*this, getReduce(),
                         getInput().getType().getElementType());
}

LogicalResult ScatterOp::verify() {
  if (failed(verifyRoot(*this, getRoot(), getGroupSize())) ||
      failed(verifyAxis(*this, "scatter_axis", getScatterAxis(),
                        getInput().getType())))
    return failure();
  return verifyScattered(*this, getInput(), getResult(), getScatterAxis(),
                         getGroupSize());
}

LogicalResult GatherOp::verify() {
  if (failed(verifyRoot(*this, getRoot(), getGroupSize())) ||
      failed(verifyAxis(*this, "gather_axis", getGatherAxis(),
                        getInput().getType())))
    return failure();
  return verifyGathered(*this, getInput(), getResult(), getGatherAxis(),
                        getGroupSize());
}

//===----------------------------------------------------------------------===//
// Send and receive
//===----------------------------------------------------------------------===//

/// Checks the peer function (one of `map` and `table`) and the tag of a
/// send or recv: the peer of every rank of the group is in the group (or,
/// for a table, -1).
static LogicalResult verifyPeers(Operation *op, AffineMapAttr map,
                                 DenseI64ArrayAttr table, int64_t tag,
                                 int64_t groupSize) {
  if ((map == nullptr) == (table == nullptr))
    return op->emitOpError("needs exactly one of a peer map and a peers table");
  if (tag < 0)
    return op->emitOpError("tag ") << tag << " is negative";
  if (map) {
    AffineMap affineMap = map.getValue();
    if (affineMap.getNumDims() != 1 || affineMap.getNumSymbols() > 1 ||
        affineMap.getNumResults() != 1)
      return op->emitOpError(
                 "peer map must have 1 dimension (the rank), at most 1 "
                 "symbol (the group size) and 1 result, but has ")
             << affineMap.getNumDims() << " dimensions, "
             << affineMap.getNumSymbols() << " symbols and "
             << affineMap.getNumResults() << " results";
  } else if (table.size() != groupSize) {
    return op->emitOpError("peers table has ")
           << table.size() << " entries but the group has " << groupSize
           << " ranks";
  }
  PeerFunction peers(map, table);
  for (int64_t rank = 0; rank < groupSize; ++rank) {
    std::optional<int64_t> peer = peers.peerOf(rank, groupSize);
    if (!peer)
      return op->emitOpError("peer map is undefined for rank ")
             << rank
             << " (a division by a non-positive value or a 64-bit overflow)";
    if (table && *peer == PeerFunction::kNoPeer)
      continue;
    if (*peer < 0 || *peer >= groupSize) {
      InFlightDiagnostic diag = op->emitOpError()
                                << (map ? "peer map" : "peers table")
                                << " gives " << *peer << " for rank " << rank
                                << ", outside the group of " << groupSize
                                << " ranks";
      if (table)
        diag << " (-1 means no peer)";
      return diag;
    }
  }
  return success();
}

LogicalResult SendOp::verify() {
  return verifyPeers(*this, getPeerAttr(), getPeersAttr(), getTag(),
                     getGroupSize());
}

LogicalResult RecvOp::verify() {
  return verifyPeers(*this, getPeerAttr(), getPeersAttr(), getTag(),
                     getGroupSize());
}

static ParseResult parsePeer(OpAsmParser &parser, AffineMapAttr &map,
                             DenseI64ArrayAttr &table) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  if ((map = dyn_cast<AffineMapAttr>(attr)))
    return success();
  if ((table = dyn_cast<DenseI64ArrayAttr>(attr)))
    return success();
  return parser.emitError(loc, "expected a peer map affine_map<(r)[n] -> "
                               "(...)> or a peers table array<i64: ...>");
}

static void printPeer(OpAsmPrinter &printer, Operation *, AffineMapAttr map,
                      DenseI64ArrayAttr table) {
  if (map)
    printer.printAttribute(map);
  else if (table)
    printer.printAttribute(table);
}

//===----------------------------------------------------------------------===//
// all_to_all_v's counts (its verifier is in AllToAllVOp.cpp)
//===----------------------------------------------------------------------===//

/// Parses `%counts : tensor<NxNxi64>` or `dense<...> : tensor<NxNxi64>`.
static ParseResult
parseSendCounts(OpAsmParser &parser,
                std::optional<OpAsmParser::UnresolvedOperand> &counts,
                Type &countsType, DenseIntElementsAttr &attr) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult parsedOperand = parser.parseOptionalOperand(operand);
  if (parsedOperand.has_value()) {
    if (failed(*parsedOperand))
      return failure();
    counts = operand;
    return parser.parseColonType(countsType);
  }
  SMLoc loc = parser.getCurrentLocation();
  Attribute parsed;
  if (parser.parseAttribute(parsed))
    return failure();
  if (!(attr = dyn_cast<DenseIntElementsAttr>(parsed)))
    return parser.emitError(loc, "expected send_counts to be an SSA value or "
                                 "a dense<...> : tensor<NxNxi64> attribute");
  return success();
}

static void printSendCounts(OpAsmPrinter &printer, Operation *, Value counts,
                            Type countsType, DenseIntElementsAttr attr) {
  if (counts)
    printer << counts << " : " << countsType;
  else if (attr)
    printer.printAttribute(attr);
}

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollOps.cpp.inc"
