//===- SpecCheck.h - checks shared by every transport -----------*- C++ -*-===//
#ifndef COLLRT_TRANSPORT_SPECCHECK_H
#define COLLRT_TRANSPORT_SPECCHECK_H

#include "collrt/Transport.h"

#include <string>
#include <vector>

namespace collrt {
namespace transport {

/// InvalidArgument when `spec` names a peer outside the world, repeats a
/// connection, or has slots or slotBytes of 0; the message starts with
/// "<transport> transport, rank <rank>".
Status checkSpec(const char *transport, int32_t rank, int32_t worldSize,
                 const ConnectionSpec &spec);

/// A connection spec as one line of text (for exchange through a
/// bootstrap) and back.
std::string encodeSpec(const ConnectionSpec &spec);
bool decodeSpec(const std::string &text, ConnectionSpec *spec);

/// Checks that the specs of all ranks agree with rank `rank`'s: every
/// connection it sends on is received by the peer, every one it receives
/// on is sent by the peer, with equal slots and slotBytes. The message
/// names both ranks and the channel.
Status checkSpecsAgree(const char *transport, int32_t rank,
                       const std::vector<ConnectionSpec> &specs);

/// checkSpecsAgree for every rank: rank `rank`'s own mismatch, else the
/// first other rank's (so that every rank fails, not only the ones whose
/// connections are wrong).
Status checkAllSpecsAgree(const char *transport, int32_t rank,
                          const std::vector<ConnectionSpec> &specs);

/// "rank 3", "ranks 1, 4 and 5".
std::string rankList(const std::vector<int32_t> &ranks);

} // namespace transport
} // namespace collrt

#endif
