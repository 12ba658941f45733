//===- PeerFunction.h - the peer of each rank for send and recv -*- C++ -*-===//
//
// coll.send and coll.recv name their peer as a function of the rank: an
// affine map (r)[n] -> (p) or a table with one entry per rank. This class
// evaluates either form, for the verifiers and for send/recv matching.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_COLL_IR_PEERFUNCTION_H
#define COLLC_DIALECTS_COLL_IR_PEERFUNCTION_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>

namespace collc::coll {

/// The peer of every rank of a group: an affine map of the rank in the
/// group (dimension 0) and the group size (symbol 0), or a table.
class PeerFunction {
public:
  /// A table entry that says the rank does not take part.
  static constexpr int64_t kNoPeer = -1;

  /// From the `peer` (map) or `peers` (table) attribute of a send or recv;
  /// at most one of them is non-null.
  PeerFunction(mlir::AffineMapAttr map, mlir::DenseI64ArrayAttr table)
      : map(map), table(table) {}

  /// Whether the function has one of its two forms.
  bool isValid() const { return (map != nullptr) != (table != nullptr); }

  /// The attribute the function comes from, for diagnostics.
  mlir::Attribute getAttr() const {
    return map ? mlir::Attribute(map) : mlir::Attribute(table);
  }

  /// The group index of the peer of the rank with group index `rank` in a
  /// group of `groupSize` ranks, kNoPeer for a table's -1, or std::nullopt
  /// where the function is undefined: a map dividing by a non-positive value
  /// or overflowing 64 bits, or a table without an entry for `rank`. The
  /// value is not checked against the group size.
  std::optional<int64_t> peerOf(int64_t rank, int64_t groupSize) const;

private:
  mlir::AffineMapAttr map;
  mlir::DenseI64ArrayAttr table;
};

} // namespace collc::coll

#endif
