//===- AllToAllVOp.cpp - the verifier of coll.all_to_all_v ----------------===//
//
// The split matrix rules: an NxN count matrix (N = group size) whose entry
// [r][j] is the rows rank r sends to rank j, so that row r sums to rank r's
// input rows and column j to rank j's result rows.
//
//===----------------------------------------------------------------------===//
#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Coll/IR/ShapeRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace collc::coll;
using namespace collc::coll::rules;

/// The tensor<NxNxi64> a count matrix of a group of N ranks has.
static std::string matrixTypeString(int64_t groupSize) {
  std::string n = std::to_string(groupSize);
  return "tensor<" + n + "x" + n + "xi64>";
}

/// Checks that the static matrix `name` is NxN.
static LogicalResult verifyMatrixShape(Operation *op, StringRef name,
                                       DenseIntElementsAttr counts,
                                       int64_t groupSize) {
  ShapedType type = counts.getType();
  if (type.getRank() != 2 || type.getDimSize(0) != groupSize ||
      type.getDimSize(1) != groupSize)
    return op->emitOpError()
           << name << " has type " << type << " but the group of " << groupSize
           << " ranks needs " << matrixTypeString(groupSize);
  return success();
}

namespace {
/// An NxN count matrix read without expanding a splat, so that a splat over
/// a large group costs O(N).
struct CountMatrix {
  DenseIntElementsAttr attr;
  int64_t n;
  SmallVector<int64_t> values; // Row-major; empty for a splat.

  CountMatrix(DenseIntElementsAttr attr, int64_t n) : attr(attr), n(n) {
    if (!attr.isSplat())
      values.assign(attr.getValues<int64_t>().begin(),
                    attr.getValues<int64_t>().end());
  }
  int64_t at(int64_t r, int64_t j) const {
    return attr.isSplat() ? attr.getSplatValue<int64_t>() : values[r * n + j];
  }
};
} // namespace

/// Checks that every count is non-negative and fills the row and column sums;
/// a located error when a count is negative or a sum overflows 64 bits.
static LogicalResult sumCounts(Operation *op, const CountMatrix &counts,
                               SmallVectorImpl<int64_t> &rowSums,
                               SmallVectorImpl<int64_t> &colSums) {
  int64_t n = counts.n;
  rowSums.assign(n, 0);
  colSums.assign(n, 0);
  auto overflow = [&]() {
    return op->emitOpError("send_counts sums overflow 64 bits");
  };
  if (counts.attr.isSplat()) {
    int64_t value = counts.at(0, 0), sum;
    if (value < 0)
      return op->emitOpError("send_counts[0][0] is ")
             << value << "; counts must be non-negative";
    if (llvm::MulOverflow(value, n, sum))
      return overflow();
    rowSums.assign(n, sum);
    colSums.assign(n, sum);
    return success();
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t value = counts.at(r, j);
      if (value < 0)
        return op->emitOpError("send_counts[")
               << r << "][" << j << "] is " << value
               << "; counts must be non-negative";
      if (llvm::AddOverflow(rowSums[r], value, rowSums[r]) ||
          llvm::AddOverflow(colSums[j], value, colSums[j]))
        return overflow();
    }
  }
  return success();
}

/// Checks that recv_counts is the transpose of send_counts.
static LogicalResult verifyTranspose(Operation *op, const CountMatrix &send,
                                     const CountMatrix &recv) {
  if (send.attr.isSplat() && recv.attr.isSplat()) {
    if (send.at(0, 0) == recv.at(0, 0))
      return success();
    return op->emitOpError("recv_counts[0][0] is ")
           << recv.at(0, 0) << " but send_counts[0][0] is " << send.at(0, 0)
           << "; recv_counts must be the transpose of send_counts";
  }
  for (int64_t r = 0; r < send.n; ++r)
    for (int64_t j = 0; j < send.n; ++j)
      if (recv.at(r, j) != send.at(j, r))
        return op->emitOpError("recv_counts[")
               << r << "][" << j << "] is " << recv.at(r, j)
               << " but send_counts[" << j << "][" << r << "] is "
               << send.at(j, r)
               << "; recv_counts must be the transpose of send_counts";
  return success();
}

LogicalResult AllToAllVOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  int64_t axis = getSplitAxis();
  int64_t groupSize = getGroupSize();
  if (failed(verifyAxis(*this, "split_axis", axis, input)))
    return failure();

  DenseIntElementsAttr sendAttr = getSendCountsAttr();
  Value sendOperand = getDynamicSendCounts();
  if ((sendAttr == nullptr) == (sendOperand == nullptr))
    return emitOpError("needs exactly one of a static send_counts attribute "
                       "and a send_counts operand");
  if (getRecvCountsAttr() && !sendAttr)
    return emitOpError("static recv_counts needs a static send_counts to be "
                       "checked against");

  // What the result's dimension along the axis may be: kDynamic alone, or
  // kDynamic and `uniformRows`.
  std::optional<int64_t> uniformRows;
  std::string dynamicReason;
  if (sendOperand) {
    auto type = cast<RankedTensorType>(sendOperand.getType());
    if (type.getRank() != 2 || type.getDimSize(0) != groupSize ||
        type.getDimSize(1) != groupSize)
      return emitOpError("send_counts operand has type ")
             << type << " but the group of " << groupSize << " ranks needs "
             << matrixTypeString(groupSize);
    dynamicReason = "send_counts is only known at run time";
  } else {
    if (failed(verifyMatrixShape(*this, "send_counts", sendAttr, groupSize)))
      return failure();
    CountMatrix send(sendAttr, groupSize);
    SmallVector<int64_t> rowSums, colSums;
    if (failed(sumCounts(*this, send, rowSums, colSums)))
      return failure();
    int64_t inputRows = input.getDimSize(axis);
    if (!ShapedType::isDynamic(inputRows)) {
      for (int64_t r = 0; r < groupSize; ++r)
        if (rowSums[r] != inputRows)
          return emitOpError("send_counts row ")
                 << r << " sums to " << rowSums[r] << " but the input has "
                 << inputRows << " rows along split_axis " << axis;
    }
    if (DenseIntElementsAttr recvAttr = getRecvCountsAttr()) {
      if (failed(
              verifyMatrixShape(*this, "recv_counts", recvAttr, groupSize)) ||
          failed(
              verifyTranspose(*this, send, CountMatrix(recvAttr, groupSize))))
        return failure();
    }
    auto different = llvm::find_if(
        colSums, [&](int64_t sum) { return sum != colSums.front(); });
    if (different == colSums.end())
      uniformRows = colSums.front();
    else
      dynamicReason = "ranks receive different row counts: column 0 of "
                      "send_counts sums to " +
                      std::to_string(colSums.front()) + ", column " +
                      std::to_string(different - colSums.begin()) + " to " +
                      std::to_string(*different);
  }

  SmallVector<int64_t> expected(input.getShape());
  expected[axis] = result.getRank() == input.getRank() ? result.getDimSize(axis)
                                                       : ShapedType::kDynamic;
  if (failed(verifyResultType(*this, input, result, expected, sameAsInput)))
    return failure();
  int64_t rows = result.getDimSize(axis);
  if (ShapedType::isDynamic(rows))
    return success();
  if (!uniformRows)
    return emitOpError("result dim ")
           << axis << " must be dynamic (?): " << dynamicReason;
  if (rows != *uniformRows)
    return emitOpError("result dim ")
           << axis << " is " << rows << " but every rank receives "
           << *uniformRows << " rows (the column sums of send_counts)";
  return success();
}
