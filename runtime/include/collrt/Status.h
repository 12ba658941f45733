//===- Status.h - typed errors and deadlines of libcollrt -------*- C++ -*-===//
//
// Every libcollrt call that can fail returns a Status: a code a program can
// branch on and a message a person can act on (it names the file, JSON path,
// rank, channel, peer or step concerned). Blocking calls take a Deadline so
// that nothing in the runtime waits forever.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_STATUS_H
#define COLLRT_STATUS_H

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace collrt {

enum class ErrorCode {
  Ok = 0,
  /// A caller's argument is wrong (null buffer, negative count, ...).
  InvalidArgument,
  /// A plan file is malformed or breaks a rule of docs/plan-format.md.
  InvalidPlan,
  /// A plan does not fit the call or the world (rank count, element type,
  /// reduction, collective).
  PlanMismatch,
  /// The watchdog fired: something waited past its deadline.
  Timeout,
  /// A peer process died or closed its connections.
  PeerFailure,
  /// A transport operation failed (socket, shared memory, device).
  TransportError,
  /// Rendezvous failed or the launcher's environment is incomplete.
  Bootstrap,
  /// Asked for something this build or machine does not provide.
  Unsupported,
  /// An operating-system call failed (file, memory).
  SystemError,
  /// collc-run --check found wrong elements.
  CheckFailed,
};

/// "ok", "invalid-argument", "invalid-plan", ...
const char *errorCodeName(ErrorCode code);

/// "0x7f3a12c00000": an address in a message.
std::string hexAddress(uint64_t address);
inline std::string hexAddress(const void *address) {
  return hexAddress(uint64_t(uintptr_t(address)));
}

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status success() { return Status(); }

  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "timeout: rank 2 channel 0 waits for ..." (code name, then message).
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// `status` with `what` in front of its message, the code kept: "what:
/// message". The one way a caller says where a failure it passes on
/// happened (an ok status stays ok, with the same empty message).
inline Status withContext(const Status &status, std::string_view what) {
  if (status.ok())
    return status;
  std::string message(what);
  message += ": ";
  message += status.message();
  return Status(status.code(), std::move(message));
}

/// Evaluates `expr` (a Status) once and returns it from the enclosing
/// function when it failed:
///   COLLRT_RETURN_IF_ERROR(module.function(name, &kernel));
#define COLLRT_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    if (::collrt::Status collrt_status_ = (expr); !collrt_status_.ok())        \
      return collrt_status_;                                                   \
  } while (false)

/// The same with `what` in front of the message (withContext).
#define COLLRT_RETURN_IF_ERROR_WITH(expr, what)                                \
  do {                                                                         \
    if (::collrt::Status collrt_status_ = (expr); !collrt_status_.ok())        \
      return ::collrt::withContext(collrt_status_, (what));                    \
  } while (false)

/// A point in time after which a blocking call gives up with a Timeout.
class Deadline {
public:
  using Clock = std::chrono::steady_clock;
  explicit Deadline(Clock::time_point at) : at_(at) {}
  static Deadline after(double seconds) {
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds)));
  }
  bool expired() const { return Clock::now() >= at_; }
  Clock::time_point at() const { return at_; }
  double secondsLeft() const {
    return std::chrono::duration<double>(at_ - Clock::now()).count();
  }

private:
  Clock::time_point at_;
};

} // namespace collrt

#endif
