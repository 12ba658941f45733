//===- TcpBootstrap.cpp - rendezvous and small collectives over TCP -------===//
//
// A star: rank 0 (the master) listens at masterAddr:masterPort, every other
// rank connects (retrying until the deadline) and says hello; rank 0 answers
// with every rank's host name once all arrived. Afterwards a proxy thread
// per rank reads its connections: gathered contributions go to an inbox,
// failure announcements and dropped connections become the rank's failure
// (rank 0 forwards both to the others), a goodbye marks a normal exit.
//
//===----------------------------------------------------------------------===//
#include "Frames.h"
#include "Socket.h"

#include "collrt/Bootstrap.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace collrt {

using bootstrap::decodeList;
using bootstrap::encodeFrame;
using bootstrap::encodeList;
using bootstrap::Frame;
using bootstrap::FrameReader;
using bootstrap::FrameType;
using net::Endpoint;
using net::Fd;

namespace {

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

struct Connection {
  Fd fd;
  std::mutex sendMutex;
  FrameReader reader;
  std::string peerAddress;
  /// Polled by the proxy (proxy thread only once it runs).
  bool polled = true;
};

/// Sends and receives of bootstrap frames that are not collectives (hello
/// replies, failures, goodbyes) give up after this long.
constexpr double kControlSendSeconds = 2;

class TcpBootstrap final : public Bootstrap {
public:
  explicit TcpBootstrap(const LaunchInfo &info)
      : info_(info), hosts_(info.worldSize), conns_(info.worldSize),
        departed_(info.worldSize, false) {
    rendezvousText_ = info.masterAddr + ":" + std::to_string(info.masterPort);
  }
  ~TcpBootstrap() override;

  Status rendezvous(Deadline deadline);

  int32_t rank() const override { return info_.rank; }
  int32_t worldSize() const override { return info_.worldSize; }
  int32_t localRank() const override { return info_.localRank; }
  const std::vector<std::string> &hosts() const override { return hosts_; }
  const std::string &localAddress() const override { return localAddress_; }

  Status allGather(const std::string &mine, std::vector<std::string> *all,
                   Deadline deadline) override;
  Status barrier(Deadline deadline) override {
    std::vector<std::string> ignored;
    return allGather("", &ignored, deadline);
  }
  void announceFailure(const std::string &reason) override;
  Status checkPeers() override;

private:
  std::string prefix() const {
    return "bootstrap, rank " + std::to_string(info_.rank);
  }
  Status rendezvousAsMaster(Deadline deadline);
  Status rendezvousAsRank(Deadline deadline);
  void failRendezvous(const std::string &message);
  Status sendTo(int32_t peer, const std::string &bytes, Deadline deadline);
  Status gatherAsMaster(uint32_t seq, const std::string &what,
                        Deadline deadline, std::vector<std::string> *items);
  void startProxy();
  void proxyLoop();
  void readable(int32_t from);
  void handleFrame(int32_t from, const Frame &frame);
  void connectionLost(int32_t from, const std::string &why);
  void recordFailure(int32_t failed, const std::string &reason);
  void forwardFailure(int32_t failed, const std::string &reason,
                      int32_t except);

  LaunchInfo info_;
  std::string rendezvousText_;
  std::vector<std::string> hosts_;
  std::string localAddress_;
  /// Master: one per other rank; others: [0] is the master.
  std::vector<std::unique_ptr<Connection>> conns_;

  Fd wakeRead_, wakeWrite_;
  std::thread proxy_;
  std::atomic<bool> stop_{false};

  std::mutex mutex_;
  std::condition_variable changed_;
  /// (from rank, sequence number) -> payload of a Gather frame.
  std::map<std::pair<int32_t, uint32_t>, std::string> inbox_;
  std::vector<bool> departed_;
  Status failure_;
  std::atomic<bool> failed_{false};
  std::atomic<bool> announced_{false};

  std::mutex collectiveMutex_;
  uint32_t sequence_ = 0;
};

TcpBootstrap::~TcpBootstrap() {
  if (proxy_.joinable()) {
    std::string bye = encodeFrame(FrameType::Bye, info_.rank, "");
    Deadline deadline = Deadline::after(kControlSendSeconds);
    for (int32_t r = 0; r < info_.worldSize; ++r)
      if (conns_[r])
        (void)sendTo(r, bye, deadline);
    stop_.store(true);
    char byte = 1;
    (void)!::write(wakeWrite_.get(), &byte, 1);
    proxy_.join();
  }
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
          return Status(s.code(), prefix() + " (the master): " + s.message());
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
      return Status(s.code(), prefix() + ": " + s.message());
    localAddress_ = local.host();
  } else {
    localAddress_ = want.host();
  }
  std::string welcome = encodeFrame(FrameType::Welcome, 0, encodeList(hosts_));
  for (int32_t r = 1; r < n; ++r)
    if (Status s = sendTo(r, welcome, deadline); !s.ok())
      return Status(s.code(), prefix() + " (the master): rendezvous at " +
                                  rendezvousText_ +
                                  ": sending the host list to rank " +
                                  std::to_string(r) + ": " + s.message());
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
    return Status(s.code(), prefix() + ": " + s.message());
  localAddress_ = local.host();
  conns_[0] = std::move(conn);
  std::string hello = encodeFrame(FrameType::Hello, info_.rank,
                                  std::string(bootstrap::kHelloMagic) + "\n" +
                                      std::to_string(info_.worldSize) + "\n" +
                                      std::to_string(info_.localRank) + "\n" +
                                      hosts_[info_.rank]);
  if (Status s = sendTo(0, hello, deadline); !s.ok())
    return Status(s.code(), prefix() + ": rendezvous at " + rendezvousText_ +
                                ": " + s.message());
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

Status TcpBootstrap::sendTo(int32_t peer, const std::string &bytes,
                            Deadline deadline) {
  Connection &c = *conns_[peer];
  std::lock_guard<std::mutex> lock(c.sendMutex);
  return net::writeAll(c.fd.get(), bytes.data(), bytes.size(), deadline,
                       "rank " + std::to_string(peer) + " at " + c.peerAddress);
}

void TcpBootstrap::startProxy() {
  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    // Without a wake-up pipe the proxy still stops: it polls with a timeout.
    fds[0] = fds[1] = -1;
  }
  wakeRead_.reset(fds[0]);
  wakeWrite_.reset(fds[1]);
  proxy_ = std::thread([this] { proxyLoop(); });
}

void TcpBootstrap::proxyLoop() {
  // Frames that arrived with the rendezvous's last read.
  for (int32_t r = 0; r < info_.worldSize; ++r) {
    Frame frame;
    bool garbage = false;
    while (conns_[r] && conns_[r]->polled &&
           conns_[r]->reader.next(&frame, &garbage))
      handleFrame(r, frame);
  }
  std::vector<pollfd> fds;
  std::vector<int32_t> owners;
  while (!stop_.load()) {
    fds.clear();
    owners.clear();
    if (wakeRead_.valid()) {
      fds.push_back({wakeRead_.get(), POLLIN, 0});
      owners.push_back(-1);
    }
    for (int32_t r = 0; r < info_.worldSize; ++r)
      if (conns_[r] && conns_[r]->polled) {
        fds.push_back({conns_[r]->fd.get(), POLLIN, 0});
        owners.push_back(r);
      }
    int ready = ::poll(fds.data(), fds.size(), 200);
    if (ready <= 0)
      continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents)
        continue;
      if (owners[i] < 0) {
        char drain[64];
        while (::read(wakeRead_.get(), drain, sizeof(drain)) > 0) {
        }
        continue;
      }
      readable(owners[i]);
    }
  }
}

void TcpBootstrap::readable(int32_t from) {
  Connection &c = *conns_[from];
  char buf[16384];
  for (;;) {
    ssize_t got = ::recv(c.fd.get(), buf, sizeof(buf), 0);
    if (got > 0) {
      c.reader.feed(buf, got);
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (got < 0 && errno == EINTR)
      continue;
    // Frames that arrived before the end still count (a goodbye).
    Frame frame;
    bool garbage = false;
    while (c.reader.next(&frame, &garbage))
      handleFrame(from, frame);
    if (c.polled)
      connectionLost(from,
                     got == 0 ? std::string("closed")
                              : std::string("failed: ") + std::strerror(errno));
    return;
  }
  Frame frame;
  bool garbage = false;
  while (c.polled && c.reader.next(&frame, &garbage))
    handleFrame(from, frame);
  if (garbage && c.polled)
    connectionLost(from, "carried bytes that are not bootstrap frames");
}

void TcpBootstrap::handleFrame(int32_t from, const Frame &frame) {
  switch (frame.type) {
  case FrameType::Gather: {
    std::lock_guard<std::mutex> lock(mutex_);
    inbox_[{from, frame.aux}] = frame.payload;
    break;
  }
  case FrameType::Failure: {
    int32_t failed = static_cast<int32_t>(frame.aux);
    // Only the master relays other ranks' failures.
    if (failed < 0 || failed >= info_.worldSize ||
        (info_.rank != 0 && from != 0) || (info_.rank == 0 && failed != from))
      failed = from;
    recordFailure(failed, frame.payload);
    if (info_.rank == 0)
      forwardFailure(failed, frame.payload, from);
    return;
  }
  case FrameType::Bye: {
    conns_[from]->polled = false;
    std::lock_guard<std::mutex> lock(mutex_);
    departed_[from] = true;
    break;
  }
  case FrameType::Hello:
  case FrameType::Welcome:
    connectionLost(from, "sent an unexpected rendezvous frame");
    return;
  }
  changed_.notify_all();
}

void TcpBootstrap::connectionLost(int32_t from, const std::string &why) {
  conns_[from]->polled = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (departed_[from])
      return;
  }
  std::string reason = "its bootstrap connection to rank " +
                       std::to_string(info_.rank) + " " + why +
                       " without a goodbye (the process exited early, "
                       "crashed or was killed)";
  recordFailure(from, reason);
  if (info_.rank == 0)
    forwardFailure(from, reason, from);
}

void TcpBootstrap::recordFailure(int32_t failed, const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.ok())
      failure_ = Status(ErrorCode::PeerFailure, prefix() + ": rank " +
                                                    std::to_string(failed) +
                                                    " failed: " + reason);
    failed_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

void TcpBootstrap::forwardFailure(int32_t failed, const std::string &reason,
                                  int32_t except) {
  std::string frame = encodeFrame(FrameType::Failure, failed, reason);
  Deadline deadline = Deadline::after(kControlSendSeconds);
  for (int32_t r = 1; r < info_.worldSize; ++r) {
    if (r == except || r == failed || !conns_[r])
      continue;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (departed_[r])
        continue;
    }
    (void)sendTo(r, frame, deadline);
  }
}

void TcpBootstrap::announceFailure(const std::string &reason) {
  if (announced_.exchange(true) || !proxy_.joinable())
    return;
  std::string frame = encodeFrame(FrameType::Failure, info_.rank, reason);
  Deadline deadline = Deadline::after(kControlSendSeconds);
  for (int32_t r = 0; r < info_.worldSize; ++r) {
    if (!conns_[r])
      continue;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (departed_[r])
        continue;
    }
    (void)sendTo(r, frame, deadline);
  }
}

Status TcpBootstrap::checkPeers() {
  if (!failed_.load(std::memory_order_acquire))
    return Status::success();
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

Status TcpBootstrap::allGather(const std::string &mine,
                               std::vector<std::string> *all,
                               Deadline deadline) {
  std::lock_guard<std::mutex> collective(collectiveMutex_);
  const uint32_t seq = ++sequence_;
  const int32_t n = info_.worldSize;
  const std::string what = prefix() + ": allGather #" + std::to_string(seq);
  if (Status s = checkPeers(); !s.ok())
    return s;
  if (n == 1) {
    *all = {mine};
    return Status::success();
  }
  if (info_.rank != 0) {
    if (Status s =
            sendTo(0, encodeFrame(FrameType::Gather, seq, mine), deadline);
        !s.ok())
      return Status(s.code(), what + ": " + s.message());
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!failure_.ok())
        return failure_;
      auto it = inbox_.find({0, seq});
      if (it != inbox_.end()) {
        std::string payload = std::move(it->second);
        inbox_.erase(inbox_.begin(), std::next(it));
        if (!payload.empty() && payload[0] == 'E') {
          // "E<error code number>:<message>"
          size_t colon = payload.find(':');
          int code = std::atoi(payload.substr(1, colon - 1).c_str());
          return Status(static_cast<ErrorCode>(code),
                        what +
                            " failed at rank 0: " + payload.substr(colon + 1));
        }
        std::vector<std::string> items;
        bool ok = !payload.empty() && payload[0] == 'R' &&
                  decodeList(payload.substr(1), &items);
        if (!ok || items.size() != static_cast<size_t>(n))
          return Status(ErrorCode::Bootstrap,
                        what + ": the master sent a malformed result");
        *all = std::move(items);
        return Status::success();
      }
      if (departed_[0])
        return Status(ErrorCode::Bootstrap,
                      what + ": rank 0 (the master) closed its bootstrap "
                             "before answering");
      if (changed_.wait_until(lock, deadline.at()) == std::cv_status::timeout &&
          inbox_.find({0, seq}) == inbox_.end() && failure_.ok())
        return Status(ErrorCode::Timeout,
                      what + " timed out waiting for rank 0 (the master), "
                             "which answers once every rank contributed");
    }
  }
  std::vector<std::string> items(n);
  items[0] = mine;
  Status gathered = gatherAsMaster(seq, what, deadline, &items);
  // The others learn the result or the error (so that they do not wait for
  // their deadline).
  std::string result = encodeFrame(
      FrameType::Gather, seq,
      gathered.ok() ? "R" + encodeList(items)
                    : "E" + std::to_string(static_cast<int>(gathered.code())) +
                          ":" + gathered.message());
  for (int32_t r = 1; r < n; ++r) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (departed_[r])
        continue;
    }
    Status s =
        sendTo(r, result,
               gathered.ok() ? deadline : Deadline::after(kControlSendSeconds));
    if (!s.ok() && gathered.ok())
      gathered = Status(s.code(), what + ": " + s.message());
  }
  if (!gathered.ok())
    return gathered;
  *all = std::move(items);
  return Status::success();
}

Status TcpBootstrap::gatherAsMaster(uint32_t seq, const std::string &what,
                                    Deadline deadline,
                                    std::vector<std::string> *items) {
  const int32_t n = info_.worldSize;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!failure_.ok())
        return failure_;
      std::vector<int32_t> missing, left;
      for (int32_t r = 1; r < n; ++r)
        if (!inbox_.count({r, seq}))
          (departed_[r] ? left : missing).push_back(r);
      if (!left.empty())
        return Status(ErrorCode::Bootstrap,
                      what + ": " + rankList(left) +
                          " closed the bootstrap without contributing");
      if (missing.empty())
        break;
      if (changed_.wait_until(lock, deadline.at()) == std::cv_status::timeout &&
          failure_.ok()) {
        missing.clear();
        for (int32_t r = 1; r < n; ++r)
          if (!inbox_.count({r, seq}))
            missing.push_back(r);
        if (!missing.empty())
          return Status(ErrorCode::Timeout,
                        what + " timed out waiting for " + rankList(missing));
      }
    }
    for (auto it = inbox_.begin(); it != inbox_.end();) {
      if (it->first.second == seq)
        (*items)[it->first.first] = std::move(it->second);
      if (it->first.second <= seq)
        it = inbox_.erase(it);
      else
        ++it;
    }
  }
  return Status::success();
}

} // namespace

Status createTcpBootstrap(const LaunchInfo &info, Deadline deadline,
                          std::unique_ptr<Bootstrap> *bootstrap) {
  if (info.worldSize < 1 || info.rank < 0 || info.rank >= info.worldSize)
    return Status(ErrorCode::InvalidArgument,
                  "bootstrap: rank " + std::to_string(info.rank) +
                      " is outside a world of " +
                      std::to_string(info.worldSize) + " ranks");
  if (info.masterAddr.empty())
    return Status(ErrorCode::InvalidArgument,
                  "bootstrap, rank " + std::to_string(info.rank) +
                      ": no master address (COLLC_MASTER_ADDR or "
                      "MASTER_ADDR)");
  if (info.masterPort < 1 || info.masterPort > 65535)
    return Status(ErrorCode::InvalidArgument,
                  "bootstrap, rank " + std::to_string(info.rank) +
                      ": master port " + std::to_string(info.masterPort) +
                      " is outside 1..65535");
  auto result = std::make_unique<TcpBootstrap>(info);
  if (Status s = result->rendezvous(deadline); !s.ok())
    return s;
  *bootstrap = std::move(result);
  return Status::success();
}

} // namespace collrt
