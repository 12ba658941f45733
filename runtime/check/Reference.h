//===- Reference.h - the expected result of a collective -------*- C++ -*-===//
//
// collc-run --check's reference: what every rank's output must hold after a
// collective, computed from the collective's definition (the postcondition
// table above sched::Program) and the inputs of TestData, never from the
// schedule that ran. Parts of an N-part buffer are cut as
// sched::chunkElements cuts them (sizes differ by at most one, the first
// parts carry the remainder), all_to_all_v's by its send counts.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_REFERENCE_H
#define COLLRT_CHECK_REFERENCE_H

#include "runtime/check/TestData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace check {

/// Elements of group rank `rank`'s input buffer for `count` input elements
/// per rank (all_to_all_v: the rank's row of send counts; `count` unused).
/// `sendCounts`: an all_to_all_v's N x N counts of this run (row-major by
/// sender) when they are given at run time; nullptr: program.sendCounts.
int64_t referenceInputElements(const collc::sched::Program &program,
                               int32_t rank, int64_t count,
                               const int64_t *sendCounts = nullptr);
/// Elements of its output buffer.
int64_t referenceOutputElements(const collc::sched::Program &program,
                                int32_t rank, int64_t count,
                                const int64_t *sendCounts = nullptr);

/// A run of output elements [outputBegin, outputBegin + length) that holds
/// input elements [inputBegin, ...) of `sourceRank`, or (sourceRank == -1)
/// the reduction over every rank of those input elements.
struct OutputSegment {
  int64_t outputBegin = 0;
  int64_t length = 0;
  int32_t sourceRank = -1;
  int64_t inputBegin = 0;
};

/// The segments of `rank`'s output the postcondition defines, in order.
/// Outputs it leaves free (reduce and gather off the root, send/recv ranks
/// that receive nothing) have none.
std::vector<OutputSegment> outputSegments(const collc::sched::Program &program,
                                          int32_t rank, int64_t count,
                                          const int64_t *sendCounts = nullptr);

/// One wrong element.
struct ElementError {
  int32_t rank = 0;
  /// "output" or "input" (an input the run modified).
  std::string buffer;
  int64_t index = 0;
  std::string expected;
  std::string got;
  /// "rank 2 output[17]: expected 5 (0x4500), got nan (0xffff: never
  /// written)".
  std::string describe() const;
};

struct CheckResult {
  /// Elements compared (outputs the postcondition defines, and inputs).
  int64_t checked = 0;
  int64_t wrong = 0;
  /// The first few wrong elements.
  std::vector<ElementError> examples;
};

/// Compares group rank `rank`'s buffers after a run of `data` with `count`
/// input elements per rank (an all_to_all_v's sizes from data.sendCounts()):
/// every output element the postcondition defines against the reference (bit
/// for bit for copies; exactly for sums, products, minima and maxima; for avg
/// of floating-point types within one unit in the last place of the correctly
/// rounded quotient, and truncated toward zero for integers), and every input
/// element against what TestData wrote (a run must not modify its input).
/// Buffers of the wrong size count every missing element as wrong. Keeps
/// `maxExamples` examples.
CheckResult checkRank(const TestData &data, int32_t rank, int64_t count,
                      const void *input, int64_t inputElements,
                      const void *output, int64_t outputElements,
                      size_t maxExamples = 5);

/// The expected value of a reduced element (a segment with sourceRank -1)
/// at input index `index`: the reduction of every rank's value, rounded to
/// the type (avg: the sum divided by the group size, rounded; integers
/// truncated toward zero).
double expectedReduction(const TestData &data, int64_t index);
/// expectedReduction of input indices [begin, begin + count), into `out`.
void expectedReductions(const TestData &data, int64_t begin, int64_t count,
                        double *out);

} // namespace check
} // namespace collrt

#endif
