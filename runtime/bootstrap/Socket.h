//===- Socket.h - TCP helpers of bootstrap and tcp transport ----*- C++ -*-===//
//
// Non-blocking sockets with deadlines: every wait is a poll() bounded by a
// Deadline, every failing system call becomes a Status naming the address,
// port and call. IPv4 and IPv6.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_BOOTSTRAP_SOCKET_H
#define COLLRT_BOOTSTRAP_SOCKET_H

#include "collrt/Status.h"

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace collrt {
namespace net {

/// Owns a file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept;
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

/// A socket address with its printable form.
struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  /// "10.0.0.1:29500", "[fe80::1]:29500".
  std::string toString() const;
  /// The numeric host ("10.0.0.1", "fe80::1").
  std::string host() const;
  int32_t port() const;
};

/// "<what>: <strerror(err)>" as a Status of `code`.
Status sysError(ErrorCode code, const std::string &what, int err);

/// Resolves `host` (a name or numeric address) and `port`; the first
/// address of the result.
Status resolve(const std::string &host, int32_t port, Endpoint *endpoint);

/// The wildcard address of the family of `like`, on `port`.
Endpoint anyAddress(const Endpoint &like, int32_t port);

/// A non-blocking listening socket bound to `at` (SO_REUSEADDR; port 0
/// picks a free port), and the address it got.
Status listenOn(const Endpoint &at, Fd *fd, Endpoint *bound);

/// Accepts one connection (non-blocking) when poll says one is waiting;
/// *fd invalid when none. The new socket is non-blocking, TCP_NODELAY.
Status acceptOne(int listenFd, Fd *fd, Endpoint *peer);

/// Connects to `to`, retrying refused connections until `deadline`
/// (the listener may not be up yet). `what` names the target in errors
/// ("the master (rank 0)"). The socket is non-blocking, TCP_NODELAY.
Status connectWithRetry(const Endpoint &to, const std::string &what,
                        Deadline deadline, Fd *fd);

/// The local address of a connected socket.
Status localEndpoint(int fd, Endpoint *local);

/// Writes all of `data` (polling for POLLOUT); Timeout at `deadline`,
/// PeerFailure when the peer hung up. `what` names the peer in errors.
Status writeAll(int fd, const void *data, size_t bytes, Deadline deadline,
                const std::string &what);
/// Reads exactly `bytes`; PeerFailure on EOF, Timeout at `deadline`.
Status readAll(int fd, void *data, size_t bytes, Deadline deadline,
               const std::string &what);

/// Milliseconds to `deadline` for poll(), clamped to [0, cap].
int pollTimeoutMs(Deadline deadline, int capMs);

} // namespace net
} // namespace collrt

#endif
