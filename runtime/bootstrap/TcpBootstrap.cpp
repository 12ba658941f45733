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
    if (c.polled) {
      std::string detail = got == 0
                               ? std::string()
                               : " (" + std::string(std::strerror(errno)) + ")";
      connectionLost(from, "its bootstrap connection to rank " +
                               std::to_string(info_.rank) +
                               " closed without a goodbye" + detail +
                               ": the process exited early, crashed or was "
                               "killed");
    }
    return;
  }
  Frame frame;
  bool garbage = false;
  while (c.polled && c.reader.next(&frame, &garbage))
    handleFrame(from, frame);
  if (garbage && c.polled)
    connectionLost(from, "its bootstrap connection carried bytes that are not "
                         "bootstrap frames");
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
    connectionLost(from, "it sent an unexpected rendezvous frame");
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
  recordFailure(from, why);
  if (info_.rank == 0)
    forwardFailure(from, why, from);
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
      return withContext(s, what);
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
      gathered = withContext(s, what);
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

} // namespace bootstrap

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
  auto result = std::make_unique<bootstrap::TcpBootstrap>(info);
  if (Status s = result->rendezvous(deadline); !s.ok())
    return s;
  *bootstrap = std::move(result);
  return Status::success();
}

} // namespace collrt
