//===- ErrorSink.h - collects verifier errors, a few a kind -----*- C++ -*-===//
//
// A broken schedule of a million instructions can break a rule a million
// times; the sink keeps the first few errors of each kind and counts the
// rest, so a report stays readable and cheap.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_ERRORSINK_H
#define COLLC_COMPILER_VERIFY_ERRORSINK_H

#include "compiler/Verify/Verifier.h"

#include <array>

namespace collc {
namespace sched {

class ErrorSink {
public:
  /// Whether an error of `kind` reported now would be kept; callers test it
  /// before formatting a message (it still has to be reported, to count).
  bool wants(VerifyErrorKind kind) const {
    return counts[index(kind)] < kMaxErrorsPerKind;
  }
  /// Records an error; keeps its message only while wants(kind).
  void report(VerifyErrorKind kind, std::string message);
  /// Counts an error without a message (valid only when !wants(kind)).
  void count(VerifyErrorKind kind) { ++counts[index(kind)]; }
  /// Errors of `kind` reported so far, kept or not.
  uint64_t reported(VerifyErrorKind kind) const { return counts[index(kind)]; }
  uint64_t total() const;

  /// Moves the kept errors into `result`, followed by one error per kind
  /// saying how many of that kind were left out.
  void finish(VerifyResult &result);

private:
  static constexpr size_t kKinds = size_t(VerifyErrorKind::Race) + 1;
  static size_t index(VerifyErrorKind kind) { return size_t(kind); }

  std::vector<VerifyError> kept;
  std::array<uint64_t, kKinds> counts{};
};

} // namespace sched
} // namespace collc

#endif
