//===- TestData.h - position-dependent inputs of --check --------*- C++ -*-===//
//
// The input element i of group rank s in iteration t of a checked run holds
// value(s, i), a hash of (s, i, t): never constant per rank, never the same
// in two iterations, so a misplaced chunk, a chunk from the wrong rank and a
// stale result from the previous iteration all show. The values are drawn
// from a domain chosen per collective, reduction and type so that the
// expected output is exact wherever the type allows it
// (docs/collc-run.md, "What --check compares"):
//
//   copies (all_gather, all_to_all(_v), broadcast, scatter, gather,
//   send/recv): any bit pattern of the type but NaN (and the poison);
//   compared bit for bit.
//
//   sum and avg: integers in [-R, R] with at most A ranks nonzero per
//   element, A = min(N, E) and R = min(E / A, 2^20), E the type's exact
//   integer limit (16 for f8E4M3FN, 8 for f8E5M2, 256 for bf16, 2048 for
//   f16): every partial sum in any order is exact.
//
//   prod: +-1 everywhere except one rank per element (rank i mod N) that
//   contributes +-2 (or +-0.5 for floats): every partial product is exact.
//
//   min and max: any finite, normal (or +0) value of the type.
//
// Outputs are poisoned before each run (all bytes 0xFF, a NaN in every
// floating-point type; 0xA5 for integers, which no domain produces), so an
// element the run never writes is wrong.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_TESTDATA_H
#define COLLRT_CHECK_TESTDATA_H

#include "collrt/Types.h"
#include "common/Program/Program.h"

#include <cstdint>

namespace collrt {
namespace check {

/// How values are drawn and compared.
enum class Domain {
  Bits,    ///< copied, compared bit for bit
  Sum,     ///< small integers, summed (or averaged) exactly
  Product, ///< +-1 and one +-2 or +-0.5 per element, multiplied exactly
  Ordered, ///< finite values, min or max
};

/// Whether `collective` combines inputs with its reduction.
bool reduces(collc::sched::Collective collective);

class TestData {
public:
  /// Data for a run of `program` (its collective, group size, root,
  /// send counts) on `type` with `op` (unused when the collective does not
  /// reduce), iteration `iteration`.
  TestData(const collc::sched::Program &program, DataType type, ReduceOp op,
           uint64_t iteration);
  /// The same for an all_to_all_v whose counts are given at run time:
  /// `sendCounts` holds the run's N x N counts (row-major by sender; not
  /// copied, it must outlive the data), nullptr for program.sendCounts.
  TestData(const collc::sched::Program &program, DataType type, ReduceOp op,
           uint64_t iteration, const int64_t *sendCounts);

  const collc::sched::Program &program() const { return program_; }
  DataType type() const { return type_; }
  ReduceOp op() const { return op_; }
  Domain domain() const { return domain_; }
  int32_t groupSize() const { return program_.numRanks; }
  /// The all_to_all_v send counts the run uses (N x N, row-major by
  /// sender): the ones given, else program.sendCounts; nullptr when there
  /// are none.
  const int64_t *sendCounts() const { return sendCounts_; }

  /// The value of input element `index` of group rank `rank` as a double
  /// (exact for every domain but Bits of 64-bit types).
  double value(int32_t rank, int64_t index) const;
  /// Its bit pattern in the type.
  uint64_t bits(int32_t rank, int64_t index) const;

  /// Writes elements [0, elements) of rank `rank`'s input.
  void fillInput(int32_t rank, void *data, int64_t elements) const;

  /// The bit patterns of input elements [begin, begin + count) of rank
  /// `rank`, packed in the type (bits() of each), into `out`.
  void fillBits(int32_t rank, int64_t begin, int64_t count, void *out) const;
  /// Their values (value() of each).
  void fillValues(int32_t rank, int64_t begin, int64_t count,
                  double *out) const;

  /// The poison pattern of one element of `type`.
  static uint64_t poisonBits(DataType type);
  static void poison(DataType type, void *data, int64_t elements);

private:
  /// The typed loops (TestData.cpp); `E` is a typed::Element.
  template <typename E>
  void fillBitsAs(int32_t rank, int64_t begin, int64_t count,
                  unsigned char *out) const;
  template <typename E>
  void fillValuesAs(int32_t rank, int64_t begin, int64_t count,
                    double *out) const;
  /// A Sum element's value from its hash: h mod (2R + 1), minus R, with a
  /// multiplication instead of a division.
  int64_t sumValue(uint64_t h) const;

  const collc::sched::Program &program_;
  const int64_t *sendCounts_ = nullptr;
  DataType type_;
  ReduceOp op_;
  uint64_t iteration_;
  Domain domain_;
  /// Sum: ranks nonzero per element (A) and the magnitude bound (R).
  int64_t activeRanks_ = 0;
  int64_t range_ = 0;
  /// Sum: 2R + 1 and floor((2^64 - 1) / (2R + 1)).
  uint64_t modulus_ = 1;
  uint64_t reciprocal_ = 0;
};

} // namespace check
} // namespace collrt

#endif
