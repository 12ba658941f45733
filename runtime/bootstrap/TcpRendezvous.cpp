//===- TcpRendezvous.cpp - the TCP bootstrap's rendezvous -----------------===//
//
// Rank 0 listens at the master's port and waits for every rank's hello; the
// others connect (retrying until the deadline) and wait for the host list.
// Either side's failure is reported to the others with its reason.
//
//===----------------------------------------------------------------------===//
#include "TcpBootstrap.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace collrt {
namespace bootstrap {

using net::Endpoint;
using net::Fd;

/// "rank 3", "ranks 1, 4 and 5".
std::string rankList(const std::vector<int32_t> &ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0)
      out += i + 1 == ranks.size() ? " and " : ", ";
    out += std::to_string(ranks[i]);
  }
  return out;
}

std::string localHostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0)
    return "unknown-host";
  return buf;
}

Status TcpBootstrap::rendezvous(Deadline deadline) {
  hosts_[info_.rank] =
      info_.hostName.empty() ? localHostName() : info_.hostName;
  Status s = info_.rank == 0 ? rendezvousAsMaster(deadline)
                             : rendezvousAsRank(deadline);
  if (!s.ok())
    return s;
  startProxy();
  return Status::success();
}

void TcpBootstrap::failRendezvous(const std::string &message) {
  std::string frame = encodeFrame(FrameType::Failure, 0, message);
  Deadline deadline = Deadline::after(kControlSendSeconds);
  for (int32_t r = 1; r < info_.worldSize; ++r)
    if (conns_[r])
      (void)sendTo(r, frame, deadline);
}

Status TcpBootstrap::rendezvousAsMaster(Deadline deadline) {
  const int32_t n = info_.worldSize;
  Endpoint want;
  if (Status s = net::resolve(info_.masterAddr, info_.masterPort, &want);
      !s.ok())
    return Status(ErrorCode::Bootstrap,
                  prefix() + ": cannot use the master address '" +
                      info_.masterAddr + "': " + s.message());
  Endpoint at = net::anyAddress(want, info_.masterPort);
  Fd listener;
  if (Status s = net::listenOn(at, &listener, nullptr); !s.ok())
    return Status(ErrorCode::Bootstrap,
                  prefix() + " (the master): " + s.message() +
                      " (is another job using port " +
                      std::to_string(info_.masterPort) +
                      "? pick another COLLC_MASTER_PORT or MASTER_PORT)");

  struct Pending {
    Fd fd;
    FrameReader reader;
    Endpoint from;
  };
  std::vector<Pending> pending;
  std::vector<std::string> rejected;
  int32_t arrived = 1;
  while (arrived < n) {
    if (deadline.expired()) {
      std::vector<int32_t> missing;
      for (int32_t r = 1; r < n; ++r)
        if (!conns_[r])
          missing.push_back(r);
      std::string message =
          prefix() + " (the master): rendezvous at " + rendezvousText_ +
          " (listening on " + at.toString() +
          ") timed out: " + rankList(missing) + " never arrived (" +
          std::to_string(arrived) + " of " + std::to_string(n) + " ranks did)";
      for (const std::string &r : rejected)
        message += "; rejected " + r;
      failRendezvous(message);
      return Status(ErrorCode::Timeout, message);
    }
    std::vector<pollfd> fds{{listener.get(), POLLIN, 0}};
    for (Pending &p : pending)
      fds.push_back({p.fd.get(), POLLIN, 0});
    int ready =
        ::poll(fds.data(), fds.size(), net::pollTimeoutMs(deadline, 200));
    if (ready < 0 && errno != EINTR)
      return net::sysError(ErrorCode::SystemError, prefix() + ": poll()",
                           errno);
    if (ready <= 0)
      continue;
    if (fds[0].revents & POLLIN) {
      for (;;) {
        Pending p;
        if (Status s = net::acceptOne(listener.get(), &p.fd, &p.from); !s.ok())
          return withContext(s, prefix() + " (the master)");
        if (!p.fd.valid())
          break;
        pending.push_back(std::move(p));
      }
    }
    for (size_t i = pending.size(); i-- > 0;) {
      if (i + 1 >= fds.size() ||
          !(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      Pending &p = pending[i];
      char buf[4096];
      ssize_t got = ::recv(p.fd.get(), buf, sizeof(buf), 0);
      if (got < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (got <= 0) {
        rejected.push_back("a connection from " + p.from.toString() +
                           " that closed before saying hello");
        pending.erase(pending.begin() + i);
        continue;
      }
      p.reader.feed(buf, got);
      Frame hello;
      bool garbage = false;
      if (!p.reader.next(&hello, &garbage)) {
        if (garbage) {
          rejected.push_back("a connection from " + p.from.toString() +
                             " that is not a collc bootstrap");
          pending.erase(pending.begin() + i);
        }
        continue;
      }
      std::istringstream lines(hello.payload);
      std::string magic, host;
      int64_t theirSize = -1, theirLocal = -1;
      lines >> magic >> theirSize >> theirLocal;
      std::getline(lines >> std::ws, host);
      if (hello.type != FrameType::Hello || magic != bootstrap::kHelloMagic) {
        rejected.push_back("a connection from " + p.from.toString() +
                           " that is not a collc bootstrap");
        pending.erase(pending.begin() + i);
        continue;
      }
      int64_t theirRank = hello.aux;
      std::string fatal;
      if (theirSize != n)
        fatal = "rank " + std::to_string(theirRank) + " (from " +
                p.from.toString() + ") says the world has " +
                std::to_string(theirSize) + " ranks, rank 0 says " +
                std::to_string(n);
      else if (theirRank < 1 || theirRank >= n)
        fatal = "a process at " + p.from.toString() + " says it is rank " +
                std::to_string(theirRank) + ", outside 1.." +
                std::to_string(n - 1);
      else if (conns_[theirRank])
        fatal = "two processes say they are rank " + std::to_string(theirRank) +
                " (from " + conns_[theirRank]->peerAddress + " and " +
                p.from.toString() + ")";
      if (!fatal.empty()) {
        std::string message = prefix() + " (the master): rendezvous at " +
                              rendezvousText_ + " failed: " + fatal;
        // Tell the offender too.
        std::string frame = encodeFrame(FrameType::Failure, 0, message);
        (void)net::writeAll(p.fd.get(), frame.data(), frame.size(),
                            Deadline::after(kControlSendSeconds), "rank");
        failRendezvous(message);
        return Status(ErrorCode::Bootstrap, message);
      }
      auto conn = std::make_unique<Connection>();
      conn->fd = std::move(p.fd);
      conn->reader = std::move(p.reader);
      conn->peerAddress = p.from.toString();
      conns_[theirRank] = std::move(conn);
      hosts_[theirRank] = host;
      ++arrived;
      pending.erase(pending.begin() + i);
    }
  }
  if (n > 1) {
    Endpoint local;
    if (Status s = net::localEndpoint(conns_[1]->fd.get(), &local); !s.ok())
      return withContext(s, prefix());
    localAddress_ = local.host();
  } else {
    localAddress_ = want.host();
  }
  std::string welcome = encodeFrame(FrameType::Welcome, 0, encodeList(hosts_));
  for (int32_t r = 1; r < n; ++r)
    if (Status s = sendTo(r, welcome, deadline); !s.ok())
      return withContext(
          s, prefix() + " (the master): rendezvous at " + rendezvousText_ +
                 ": sending the host list to rank " + std::to_string(r));
  return Status::success();
}

Status TcpBootstrap::rendezvousAsRank(Deadline deadline) {
  Endpoint master;
  if (Status s = net::resolve(info_.masterAddr, info_.masterPort, &master);
      !s.ok())
    return Status(ErrorCode::Bootstrap,
                  prefix() + ": cannot use the master address '" +
                      info_.masterAddr + "': " + s.message());
  auto conn = std::make_unique<Connection>();
  conn->peerAddress = master.toString();
  if (Status s = net::connectWithRetry(master, "the master (rank 0)", deadline,
                                       &conn->fd);
      !s.ok())
    return Status(s.code(), prefix() + ": rendezvous at " + rendezvousText_ +
                                ": " + s.message() +
                                " (is rank 0 running, and is the master "
                                "address and port the same for every rank?)");
  Endpoint local;
  if (Status s = net::localEndpoint(conn->fd.get(), &local); !s.ok())
    return withContext(s, prefix());
  localAddress_ = local.host();
  conns_[0] = std::move(conn);
  std::string hello = encodeFrame(FrameType::Hello, info_.rank,
                                  std::string(bootstrap::kHelloMagic) + "\n" +
                                      std::to_string(info_.worldSize) + "\n" +
                                      std::to_string(info_.localRank) + "\n" +
                                      hosts_[info_.rank]);
  if (Status s = sendTo(0, hello, deadline); !s.ok())
    return withContext(s, prefix() + ": rendezvous at " + rendezvousText_);
  Connection &c = *conns_[0];
  for (;;) {
    Frame frame;
    bool garbage = false;
    if (c.reader.next(&frame, &garbage)) {
      if (frame.type == FrameType::Failure)
        return Status(ErrorCode::Bootstrap,
                      prefix() + ": rendezvous at " + rendezvousText_ +
                          " failed at rank 0: " + frame.payload);
      std::vector<std::string> hosts;
      if (frame.type != FrameType::Welcome ||
          !decodeList(frame.payload, &hosts) ||
          hosts.size() != static_cast<size_t>(info_.worldSize))
        return Status(ErrorCode::Bootstrap,
                      prefix() + ": rendezvous at " + rendezvousText_ +
                          ": the master sent an unexpected answer (is " +
                          rendezvousText_ +
                          " a collc bootstrap of a world of " +
                          std::to_string(info_.worldSize) + " ranks?)");
      std::string mine = hosts_[info_.rank];
      hosts_ = std::move(hosts);
      hosts_[info_.rank] = mine;
      return Status::success();
    }
    if (garbage)
      return Status(ErrorCode::Bootstrap,
                    prefix() + ": rendezvous at " + rendezvousText_ +
                        ": the master sent bytes that are not bootstrap "
                        "frames");
    char buf[4096];
    ssize_t got = ::recv(c.fd.get(), buf, sizeof(buf), 0);
    if (got > 0) {
      c.reader.feed(buf, got);
      continue;
    }
    if (got == 0 || (errno != EAGAIN && errno != EINTR))
      return Status(ErrorCode::Bootstrap,
                    prefix() + ": rendezvous at " + rendezvousText_ +
                        ": the master (rank 0) closed the connection before "
                        "every rank arrived (rank 0 failed; its error says "
                        "why)");
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    prefix() + ": rendezvous at " + rendezvousText_ +
                        ": connected to the master, but not every rank "
                        "arrived before the deadline (rank 0's error names "
                        "the ranks that never arrived)");
    pollfd p{c.fd.get(), POLLIN, 0};
    ::poll(&p, 1, net::pollTimeoutMs(deadline, 200));
  }
}

} // namespace bootstrap
} // namespace collrt
