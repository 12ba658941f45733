//===- Agreement.cpp - collective steps of connect() over a bootstrap -----===//
#include "Agreement.h"

#include "SpecCheck.h"

#include <cstdlib>

namespace collrt {
namespace transport {

static std::string where(const char *transport, int32_t rank) {
  return std::string(transport) + " transport, rank " + std::to_string(rank);
}

/// "<error code number>:<message>".
static std::string encodeError(const Status &s) {
  return std::to_string(static_cast<int>(s.code())) + ":" + s.message();
}
static Status decodeError(const std::string &text, const std::string &prefix) {
  size_t colon = text.find(':');
  int code = std::atoi(text.substr(0, colon).c_str());
  return Status(
      static_cast<ErrorCode>(code),
      prefix + (colon == std::string::npos ? text : text.substr(colon + 1)));
}

Status gatherSpecs(Bootstrap &bootstrap, const char *transport,
                   const ConnectionSpec &mine, const Status &mineChecked,
                   const std::string &mineExtra, Deadline deadline,
                   std::vector<ConnectionSpec> *all,
                   std::vector<std::string> *extras) {
  const std::string here = where(transport, bootstrap.rank());
  // "<extra>\n<spec>", or "!" and the local error.
  std::string text = mineChecked.ok() ? mineExtra + "\n" + encodeSpec(mine)
                                      : "!" + encodeError(mineChecked);
  std::vector<std::string> texts;
  if (Status s = bootstrap.allGather(text, &texts, deadline); !s.ok())
    return mineChecked.ok()
               ? withContext(s, here + ": connect: exchanging connection specs")
               : mineChecked;
  if (!mineChecked.ok())
    return mineChecked;
  std::vector<ConnectionSpec> specs(texts.size());
  std::vector<std::string> extra(texts.size());
  for (size_t r = 0; r < texts.size(); ++r) {
    if (!texts[r].empty() && texts[r][0] == '!')
      return decodeError(texts[r].substr(1),
                         here + ": connect failed because rank " +
                             std::to_string(r) + " failed: ");
    size_t newline = texts[r].find('\n');
    if (newline == std::string::npos ||
        !decodeSpec(texts[r].substr(newline + 1), &specs[r]))
      return Status(ErrorCode::TransportError,
                    here + ": connect: rank " + std::to_string(r) +
                        " sent a malformed connection spec");
    extra[r] = texts[r].substr(0, newline);
  }
  if (Status s = checkAllSpecsAgree(transport, bootstrap.rank(), specs);
      !s.ok())
    return s;
  *all = std::move(specs);
  *extras = std::move(extra);
  return Status::success();
}

Status agreeOnOutcome(Bootstrap &bootstrap, const char *transport,
                      const Status &mine, Deadline deadline) {
  std::string text = mine.ok() ? std::string() : encodeError(mine);
  std::vector<std::string> all;
  if (Status s = bootstrap.allGather(text, &all, deadline); !s.ok())
    return mine.ok() ? withContext(s, where(transport, bootstrap.rank()) +
                                          ": connect")
                     : mine;
  if (!mine.ok())
    return mine;
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      return decodeError(all[r], where(transport, bootstrap.rank()) +
                                     ": connect failed because rank " +
                                     std::to_string(r) + " failed: ");
  return Status::success();
}

} // namespace transport
} // namespace collrt
