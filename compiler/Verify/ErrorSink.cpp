//===- ErrorSink.cpp - collects verifier errors, a few of each kind -------===//
#include "compiler/Verify/ErrorSink.h"

#include "compiler/Verify/Messages.h"

namespace collc {
namespace sched {

void ErrorSink::report(VerifyErrorKind kind, std::string message) {
  if (wants(kind))
    kept.push_back({kind, std::move(message)});
  ++counts[index(kind)];
}

uint64_t ErrorSink::total() const {
  uint64_t sum = 0;
  for (uint64_t n : counts)
    sum += n;
  return sum;
}

void ErrorSink::finish(VerifyResult &result) {
  for (VerifyError &error : kept)
    result.errors.push_back(std::move(error));
  kept.clear();
  for (size_t k = 0; k < kKinds; ++k) {
    if (counts[k] <= kMaxErrorsPerKind)
      continue;
    VerifyErrorKind kind = static_cast<VerifyErrorKind>(k);
    std::string noun =
        std::string("more ") + verifyErrorKindName(kind) + " error";
    result.errors.push_back(
        {kind,
         countOf(counts[k] - kMaxErrorsPerKind, noun.c_str()) + " not shown"});
  }
}

} // namespace sched
} // namespace collc
