//===- CoResidency.cpp - can a rank's channels all run at once? -----------===//
//
// Channels of a rank wait on each other (through peers and dependencies),
// so they must all be resident at once; a rank with more channels than the
// GPU runs at once can hang although the schedule is deadlock-free.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Checks.h"

namespace collc {
namespace sched {

void checkCoResidency(const Program &program, const VerifyOptions &options,
                      ErrorSink &errors) {
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    // An empty channel stream launches nothing, so it does not count.
    uint32_t used = program.ranks[r].channelsInUse();
    if (used <= options.maxChannelsPerRank)
      continue;
    errors.report(VerifyErrorKind::CoResidency,
                  "rank " + std::to_string(r) + " uses " +
                      std::to_string(used) + " channels but at most " +
                      std::to_string(options.maxChannelsPerRank) +
                      " can run at once (a channel is a thread block, and a "
                      "rank's blocks must all be resident; sched-verify's "
                      "max-channels option sets the limit)");
  }
}

} // namespace sched
} // namespace collc
