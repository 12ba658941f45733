//===- Status.cpp ---------------------------------------------------------===//
#include "collrt/Status.h"

#include <cstdio>

namespace collrt {

std::string hexAddress(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(address));
  return text;
}

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "ok";
  case ErrorCode::InvalidArgument:
    return "invalid-argument";
  case ErrorCode::InvalidPlan:
    return "invalid-plan";
  case ErrorCode::PlanMismatch:
    return "plan-mismatch";
  case ErrorCode::Timeout:
    return "timeout";
  case ErrorCode::PeerFailure:
    return "peer-failure";
  case ErrorCode::TransportError:
    return "transport-error";
  case ErrorCode::Bootstrap:
    return "bootstrap";
  case ErrorCode::Unsupported:
    return "unsupported";
  case ErrorCode::SystemError:
    return "system-error";
  case ErrorCode::CheckFailed:
    return "check-failed";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (ok())
    return "ok";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

} // namespace collrt
