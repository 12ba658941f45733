//===- Agreement.h - connect()'s collective steps ---------------*- C++ -*-===//
//
// The process transports (shm, tcp) connect in the same three steps: gather
// every rank's spec and check that they agree, set up the local side, then
// agree on the outcome, so that connect() succeeds everywhere or fails
// everywhere (naming the rank that failed) instead of leaving a rank waiting
// for messages from a peer that gave up.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_AGREEMENT_H
#define COLLRT_TRANSPORT_AGREEMENT_H

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"

#include <vector>

namespace collrt {
namespace transport {

/// Every rank's spec, by rank, checked with checkAllSpecsAgree. A rank
/// whose spec failed its local checks (`mineChecked`) still takes part, so
/// that every rank fails with its message instead of waiting.
/// `mineExtra` (one line) travels along: *extras receives every rank's.
Status gatherSpecs(Bootstrap &bootstrap, const char *transport,
                   const ConnectionSpec &mine, const Status &mineChecked,
                   const std::string &mineExtra, Deadline deadline,
                   std::vector<ConnectionSpec> *all,
                   std::vector<std::string> *extras);

/// Every rank contributes its local outcome; returns `mine` when it failed,
/// else the first other rank's failure (naming it), else success.
Status agreeOnOutcome(Bootstrap &bootstrap, const char *transport,
                      const Status &mine, Deadline deadline);

} // namespace transport
} // namespace collrt

#endif
