//===- Socket.cpp - TCP helpers of the bootstrap and the tcp transport ----===//
#include "Socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace collrt {
namespace net {

Fd &Fd::operator=(Fd &&o) noexcept {
  if (this != &o)
    reset(o.release());
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
}

std::string Endpoint::host() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in &>(addr).sin_addr,
                buf, sizeof(buf));
  else if (addr.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6,
                &reinterpret_cast<const sockaddr_in6 &>(addr).sin6_addr, buf,
                sizeof(buf));
  return buf;
}

int32_t Endpoint::port() const {
  if (addr.ss_family == AF_INET)
    return ntohs(reinterpret_cast<const sockaddr_in &>(addr).sin_port);
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6 &>(addr).sin6_port);
  return 0;
}

std::string Endpoint::toString() const {
  if (addr.ss_family == AF_INET6)
    return "[" + host() + "]:" + std::to_string(port());
  return host() + ":" + std::to_string(port());
}

Status sysError(ErrorCode code, const std::string &what, int err) {
  return Status(code, what + ": " + std::strerror(err));
}

Status resolve(const std::string &host, int32_t port, Endpoint *endpoint) {
  if (port < 0 || port > 65535)
    return Status(ErrorCode::InvalidArgument, "port " + std::to_string(port) +
                                                  " of " + host +
                                                  " is outside 0..65535");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *result = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  if (rc != 0 || !result)
    return Status(ErrorCode::Bootstrap,
                  "cannot resolve host '" + host + "': " + ::gai_strerror(rc));
  // Prefer IPv4 when a name has both (the common case for cluster hosts).
  const addrinfo *pick = result;
  for (const addrinfo *a = result; a; a = a->ai_next)
    if (a->ai_family == AF_INET) {
      pick = a;
      break;
    }
  std::memcpy(&endpoint->addr, pick->ai_addr, pick->ai_addrlen);
  endpoint->len = pick->ai_addrlen;
  ::freeaddrinfo(result);
  return Status::success();
}

Endpoint anyAddress(const Endpoint &like, int32_t port) {
  Endpoint any;
  if (like.addr.ss_family == AF_INET6) {
    auto &a = reinterpret_cast<sockaddr_in6 &>(any.addr);
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(port);
    any.len = sizeof(sockaddr_in6);
  } else {
    auto &a = reinterpret_cast<sockaddr_in &>(any.addr);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(port);
    any.len = sizeof(sockaddr_in);
  }
  return any;
}

static Status configure(int fd, const std::string &what) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    return sysError(ErrorCode::SystemError, "fcntl(O_NONBLOCK) on " + what,
                    errno);
  if (::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
    return sysError(ErrorCode::SystemError, "fcntl(FD_CLOEXEC) on " + what,
                    errno);
  return Status::success();
}

static void noDelay(int fd) {
  int one = 1;
  // Best effort: a socket without it is slower, not wrong.
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

Status listenOn(const Endpoint &at, Fd *fd, Endpoint *bound) {
  Fd s(::socket(at.addr.ss_family, SOCK_STREAM, 0));
  if (!s.valid())
    return sysError(ErrorCode::SystemError,
                    "socket() to listen on " + at.toString(), errno);
  int one = 1;
  if (::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
    return sysError(ErrorCode::SystemError,
                    "setsockopt(SO_REUSEADDR) on " + at.toString(), errno);
  if (::bind(s.get(), reinterpret_cast<const sockaddr *>(&at.addr), at.len) !=
      0)
    return sysError(ErrorCode::Bootstrap,
                    "cannot listen on " + at.toString() + " (bind)", errno);
  if (::listen(s.get(), 1024) != 0)
    return sysError(ErrorCode::Bootstrap,
                    "cannot listen on " + at.toString() + " (listen)", errno);
  if (Status st = configure(s.get(), at.toString()); !st.ok())
    return st;
  if (bound) {
    bound->len = sizeof(bound->addr);
    if (::getsockname(s.get(), reinterpret_cast<sockaddr *>(&bound->addr),
                      &bound->len) != 0)
      return sysError(ErrorCode::SystemError,
                      "getsockname of the socket listening on " + at.toString(),
                      errno);
  }
  *fd = std::move(s);
  return Status::success();
}

Status acceptOne(int listenFd, Fd *fd, Endpoint *peer) {
  Endpoint from;
  from.len = sizeof(from.addr);
  int c =
      ::accept(listenFd, reinterpret_cast<sockaddr *>(&from.addr), &from.len);
  if (c < 0) {
    fd->reset();
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
        errno == ECONNABORTED)
      return Status::success();
    return sysError(ErrorCode::SystemError, "accept()", errno);
  }
  fd->reset(c);
  if (Status s = configure(c, "an accepted connection"); !s.ok())
    return s;
  noDelay(c);
  if (peer)
    *peer = from;
  return Status::success();
}

Status connectWithRetry(const Endpoint &to, const std::string &what,
                        Deadline deadline, Fd *fd) {
  int lastErr = 0;
  int attempt = 0;
  while (true) {
    Fd s(::socket(to.addr.ss_family, SOCK_STREAM, 0));
    if (!s.valid())
      return sysError(ErrorCode::SystemError, "socket() to connect to " + what,
                      errno);
    if (Status st = configure(s.get(), what); !st.ok())
      return st;
    int rc = ::connect(s.get(), reinterpret_cast<const sockaddr *>(&to.addr),
                       to.len);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{s.get(), POLLOUT, 0};
      int ready = ::poll(&p, 1, pollTimeoutMs(deadline, 1 << 30));
      if (ready == 0) {
        lastErr = ETIMEDOUT;
      } else {
        int err = 0;
        socklen_t len = sizeof(err);
        ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      }
    }
    if (rc == 0) {
      noDelay(s.get());
      *fd = std::move(s);
      return Status::success();
    }
    if (errno != 0)
      lastErr = errno;
    // Refused or unreachable for now: the listener may still be starting.
    if (lastErr != ECONNREFUSED && lastErr != ETIMEDOUT &&
        lastErr != EHOSTUNREACH && lastErr != ENETUNREACH &&
        lastErr != ECONNRESET && lastErr != EAGAIN && lastErr != EINTR)
      return sysError(ErrorCode::Bootstrap,
                      "cannot connect to " + what + " at " + to.toString(),
                      lastErr);
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    "cannot connect to " + what + " at " + to.toString() +
                        " before the deadline (" + std::to_string(attempt + 1) +
                        " attempts, last: " + std::strerror(lastErr) + ")");
    ++attempt;
    // Back off 10 ms, 20 ms, ... up to 200 ms between attempts.
    int sleepMs = std::min(200, 10 * attempt);
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::min(sleepMs, std::max(1, pollTimeoutMs(deadline, sleepMs)))));
  }
}

Status localEndpoint(int fd, Endpoint *local) {
  local->len = sizeof(local->addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr *>(&local->addr),
                    &local->len) != 0)
    return sysError(ErrorCode::SystemError, "getsockname()", errno);
  return Status::success();
}

int pollTimeoutMs(Deadline deadline, int capMs) {
  double left = deadline.secondsLeft();
  if (left <= 0)
    return 0;
  double ms = left * 1000.0 + 1.0;
  return ms > capMs ? capMs : static_cast<int>(ms);
}

Status writeAll(int fd, const void *data, size_t bytes, Deadline deadline,
                const std::string &what) {
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      if (errno == EPIPE || errno == ECONNRESET)
        return sysError(ErrorCode::PeerFailure,
                        "connection to " + what + " closed while sending",
                        errno);
      return sysError(ErrorCode::TransportError, "sending to " + what, errno);
    }
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    "sending to " + what + " timed out with " +
                        std::to_string(bytes) + " bytes left");
    pollfd pfd{fd, POLLOUT, 0};
    ::poll(&pfd, 1, pollTimeoutMs(deadline, 1000));
  }
  return Status::success();
}

Status readAll(int fd, void *data, size_t bytes, Deadline deadline,
               const std::string &what) {
  char *p = static_cast<char *>(data);
  while (bytes > 0) {
    ssize_t n = ::recv(fd, p, bytes, 0);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0)
      return Status(ErrorCode::PeerFailure,
                    "connection to " + what + " closed by the peer");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      if (errno == ECONNRESET)
        return sysError(ErrorCode::PeerFailure,
                        "connection to " + what + " reset", errno);
      return sysError(ErrorCode::TransportError, "receiving from " + what,
                      errno);
    }
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    "receiving from " + what + " timed out with " +
                        std::to_string(bytes) + " bytes missing");
    pollfd pfd{fd, POLLIN, 0};
    ::poll(&pfd, 1, pollTimeoutMs(deadline, 1000));
  }
  return Status::success();
}

} // namespace net
} // namespace collrt
