//===- TcpProxy.cpp - the tcp transport's socket thread -------------------===//
//
// One thread per transport does every socket call: it accepts the lower
// ranks' connections (checking their hello), writes queued messages and
// credits, reads frames into the receive rings, and turns a peer's hang-up
// into a PeerFailure naming it. It holds the transport's mutex except while
// it waits in poll().
//
//===----------------------------------------------------------------------===//
#include "TcpTransport.h"

#include "SpecCheck.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace collrt {
namespace tcp {

namespace {
/// A socket call that did not fail for good.
bool transient(int err) {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

std::string connectionFailed(int err) {
  if (err == ECONNRESET || err == EPIPE)
    return std::string("its connection was reset without a goodbye (") +
           std::strerror(err) +
           "): the process exited early, crashed or was killed";
  return std::string("its connection failed: ") + std::strerror(err);
}
} // namespace

void TcpTransport::peerFailed(Peer &peer, const std::string &why) {
  peer.closed = true;
  ::shutdown(peer.fd.get(), SHUT_RDWR);
  if (peer.departed)
    return;
  {
    std::lock_guard<std::mutex> lock(failureMutex_);
    if (failures_[peer.rank].empty())
      failures_[peer.rank] = here() + ": peer rank " +
                             std::to_string(peer.rank) + " (" + peer.address +
                             ") failed: " + why;
    anyFailure_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

void TcpTransport::queueCredits(Peer &peer) {
  for (auto &entry : peer.recvs) {
    RecvConnection &c = *entry.second;
    uint64_t released = c.released.load(std::memory_order_acquire);
    if (released == c.credited)
      continue;
    char header[kHeaderBytes];
    encodeHeader(
        {FrameType::Credit, entry.first, generation_, released - c.credited},
        header);
    peer.control.append(header, kHeaderBytes);
    c.credited = released;
  }
}

bool TcpTransport::pumpOut(Peer &peer) {
  bool progress = false;
  for (;;) {
    if (!peer.current && peer.controlSent < peer.control.size()) {
      ssize_t n = ::send(peer.fd.get(), peer.control.data() + peer.controlSent,
                         peer.control.size() - peer.controlSent, MSG_NOSIGNAL);
      if (n < 0) {
        if (!transient(errno))
          peerFailed(peer, connectionFailed(errno));
        return progress;
      }
      progress = true;
      peer.controlSent += static_cast<size_t>(n);
      if (peer.controlSent < peer.control.size())
        return progress;
      peer.control.clear();
      peer.controlSent = 0;
    }
    if (!peer.current) {
      // Round robin over the channels to this peer.
      for (size_t i = 0; i < peer.sends.size() && !peer.current; ++i) {
        auto &entry = peer.sends[(peer.nextSend + i) % peer.sends.size()];
        const void *data = nullptr;
        size_t bytes = 0;
        if (!entry.second->ring.front(&data, &bytes))
          continue;
        peer.current = entry.second;
        encodeHeader({FrameType::Data, entry.first, generation_, bytes},
                     peer.currentHeader);
        peer.currentBytes = bytes;
        peer.currentSent = 0;
        peer.nextSend = (peer.nextSend + i + 1) % peer.sends.size();
      }
      if (!peer.current)
        return progress;
    }
    const void *data = nullptr;
    size_t bytes = 0;
    peer.current->ring.front(&data, &bytes);
    iovec parts[2];
    int count = 0;
    size_t sent = peer.currentSent;
    if (sent < kHeaderBytes)
      parts[count++] = {peer.currentHeader + sent, kHeaderBytes - sent};
    size_t payloadSent = sent > kHeaderBytes ? sent - kHeaderBytes : 0;
    if (payloadSent < bytes)
      parts[count++] = {const_cast<char *>(static_cast<const char *>(data)) +
                            payloadSent,
                        bytes - payloadSent};
    msghdr msg{};
    msg.msg_iov = parts;
    msg.msg_iovlen = count;
    ssize_t n = ::sendmsg(peer.fd.get(), &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (!transient(errno))
        peerFailed(peer, connectionFailed(errno));
      return progress;
    }
    progress = true;
    peer.currentSent += static_cast<size_t>(n);
    if (peer.currentSent < kHeaderBytes + bytes)
      return progress;
    peer.current->ring.pop();
    peer.current = nullptr;
  }
}

bool TcpTransport::pumpIn(Peer &peer) {
  bool progress = false;
  for (;;) {
    if (peer.inHeaderGot < kHeaderBytes) {
      ssize_t n = ::recv(peer.fd.get(), peer.inHeader + peer.inHeaderGot,
                         kHeaderBytes - peer.inHeaderGot, 0);
      if (n == 0) {
        peerFailed(peer, "its connection closed without a goodbye (the "
                         "process exited early, crashed or was killed)");
        return progress;
      }
      if (n < 0) {
        if (!transient(errno))
          peerFailed(peer, connectionFailed(errno));
        return progress;
      }
      progress = true;
      peer.inHeaderGot += static_cast<size_t>(n);
      if (peer.inHeaderGot < kHeaderBytes)
        continue;
      if (!decodeHeader(peer.inHeader, &peer.in)) {
        peerFailed(peer, "it sent bytes that are not tcp transport frames");
        return progress;
      }
      if (peer.in.type == FrameType::Credit) {
        peer.inHeaderGot = 0;
        if (peer.in.generation != generation_)
          continue; // credits of a previous spec's connections
        for (auto &entry : peer.sends)
          if (entry.first == peer.in.channel)
            entry.second->credits.fetch_add(peer.in.size,
                                            std::memory_order_release);
        continue;
      }
      if (peer.in.type == FrameType::Bye) {
        peer.departed = true;
        peer.closed = true;
        peer.inHeaderGot = 0;
        changed_.notify_all();
        return true;
      }
      if (peer.in.type == FrameType::Abort) {
        if (peer.in.size > 65536) {
          peerFailed(peer, "it sent an oversized abort frame");
          return progress;
        }
        peer.inText.clear();
      } else if (peer.in.type != FrameType::Data) {
        peerFailed(peer, "it sent an unexpected hello");
        return progress;
      } else if (peer.in.generation != generation_) {
        peerFailed(peer, "it sent a message of connect generation " +
                             std::to_string(peer.in.generation) +
                             " while this rank is at " +
                             std::to_string(generation_) +
                             " (a message of an earlier collective that "
                             "no one received?)");
        return progress;
      }
    }
    if (peer.in.type == FrameType::Abort) {
      char buf[4096];
      size_t want = std::min(sizeof(buf), peer.in.size - peer.inText.size());
      ssize_t n = want ? ::recv(peer.fd.get(), buf, want, 0) : 0;
      if (n > 0) {
        peer.inText.append(buf, static_cast<size_t>(n));
        progress = true;
      }
      if (peer.inText.size() == peer.in.size || n == 0 ||
          (n < 0 && !transient(errno))) {
        peerFailed(peer, "it aborted: " + peer.inText);
        return true;
      }
      if (n < 0)
        return progress;
      continue;
    }
    if (!peer.inTarget) {
      auto it = peer.recvs.find(peer.in.channel);
      if (it == peer.recvs.end()) {
        peerFailed(peer, "it sent a message on channel " +
                             std::to_string(peer.in.channel) +
                             ", on which this rank does not receive from it");
        return progress;
      }
      if (peer.in.size > spec_.slotBytes) {
        peerFailed(
            peer,
            "it sent a message of " + std::to_string(peer.in.size) +
                " bytes, above slotBytes = " + std::to_string(spec_.slotBytes));
        return progress;
      }
      peer.inTarget = it->second;
      peer.inPayload = nullptr;
      peer.inGot = 0;
    }
    // A data frame: its payload goes straight into a receive slot.
    if (!peer.inPayload) {
      if (!peer.inTarget->ring.canPush()) {
        // Every slot is taken: stop reading this socket until one frees.
        peer.paused = true;
        return progress;
      }
      peer.paused = false;
      peer.inPayload = peer.inTarget->ring.reserve(peer.in.size);
    }
    if (peer.inGot < peer.in.size) {
      ssize_t n = ::recv(peer.fd.get(), peer.inPayload + peer.inGot,
                         peer.in.size - peer.inGot, 0);
      if (n == 0) {
        peerFailed(peer, "its connection closed in the middle of a message "
                         "(the process exited early, crashed or was killed)");
        return progress;
      }
      if (n < 0) {
        if (!transient(errno))
          peerFailed(peer, connectionFailed(errno));
        return progress;
      }
      progress = true;
      peer.inGot += static_cast<size_t>(n);
      if (peer.inGot < peer.in.size)
        continue;
    }
    peer.inTarget->ring.commit();
    peer.inTarget = nullptr;
    peer.inPayload = nullptr;
    peer.inHeaderGot = 0;
    progress = true;
  }
}

void TcpTransport::acceptPending() {
  for (;;) {
    Pending p;
    net::Endpoint from;
    if (Status s = net::acceptOne(listener_.get(), &p.fd, &from); !s.ok())
      return; // a transient accept failure; the connecting rank retries
    if (!p.fd.valid())
      return;
    p.from = from.toString();
    pending_.push_back(std::move(p));
  }
}

void TcpTransport::readHellos() {
  if (runId_.empty())
    return; // checked once the first connect named the run
  for (size_t i = pending_.size(); i-- > 0;) {
    Pending &p = pending_[i];
    // Read exactly the hello: what follows belongs to the peer's stream.
    bool drop = false, done = false;
    Header header;
    while (!drop && !done) {
      size_t want = kHeaderBytes;
      if (p.bytes.size() >= kHeaderBytes) {
        if (!decodeHeader(p.bytes.data(), &header) ||
            header.type != FrameType::Hello || header.size > 1024) {
          drop = true;
          break;
        }
        want += header.size;
      }
      if (p.bytes.size() >= kHeaderBytes && p.bytes.size() == want) {
        done = true;
        break;
      }
      char buf[1024 + kHeaderBytes];
      ssize_t n = ::recv(p.fd.get(), buf, want - p.bytes.size(), 0);
      if (n == 0 || (n < 0 && !transient(errno)))
        drop = true;
      else if (n < 0)
        break; // nothing more yet
      else
        p.bytes.append(buf, static_cast<size_t>(n));
    }
    if (!drop && !done)
      continue;
    int32_t from = static_cast<int32_t>(header.channel);
    // A stray connection (another run, a port scanner) is dropped.
    if (done && p.bytes.substr(kHeaderBytes) == runId_ && from >= 0 &&
        from < rank() && (!peers_[from] || peers_[from]->closed)) {
      auto peer = std::make_unique<Peer>();
      peer->rank = from;
      peer->address = p.from;
      peer->fd = std::move(p.fd);
      peers_[from] = std::move(peer);
      changed_.notify_all();
    }
    pending_.erase(pending_.begin() + i);
  }
}

void TcpTransport::sendByes() {
  char header[kHeaderBytes];
  encodeHeader({FrameType::Bye, 0, generation_, 0}, header);
  for (auto &peer : peers_) {
    if (!peer || peer->closed || peer->current)
      continue;
    // Best effort and non-blocking: the process is leaving.
    std::string bytes = peer->control.substr(peer->controlSent) +
                        std::string(header, kHeaderBytes);
    (void)::send(peer->fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
}

void TcpTransport::proxyLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  std::vector<pollfd> fds;
  std::vector<Peer *> owners;
  while (!stop_.load() && !aborted_.load()) {
    bool progress = true;
    for (int round = 0; progress && round < 64; ++round) {
      progress = false;
      for (auto &peer : peers_) {
        if (!peer || peer->closed)
          continue;
        queueCredits(*peer);
        progress |= pumpOut(*peer);
        if (!peer->closed)
          progress |= pumpIn(*peer);
      }
    }
    acceptPending();
    readHellos();

    fds.clear();
    owners.clear();
    fds.push_back({wakeFd_.get(), POLLIN, 0});
    owners.push_back(nullptr);
    fds.push_back({listener_.get(), POLLIN, 0});
    owners.push_back(nullptr);
    if (!runId_.empty())
      for (Pending &p : pending_) {
        fds.push_back({p.fd.get(), POLLIN, 0});
        owners.push_back(nullptr);
      }
    for (auto &peer : peers_) {
      if (!peer || peer->closed)
        continue;
      short events = peer->paused ? 0 : POLLIN;
      bool output = peer->current || peer->controlSent < peer->control.size();
      for (size_t i = 0; i < peer->sends.size() && !output; ++i)
        output = peer->sends[i].second->ring.occupied() > 0;
      if (output)
        events |= POLLOUT;
      fds.push_back({peer->fd.get(), events, 0});
      owners.push_back(peer.get());
    }
    lock.unlock();
    // Paused peers are polled for nothing: a release wakes us instead.
    ::poll(fds.data(), fds.size(), progress ? 0 : 100);
    uint64_t drained = 0;
    (void)!::read(wakeFd_.get(), &drained, sizeof(drained));
    lock.lock();
  }
  if (aborted_.load()) {
    sendAborts();
    return;
  }
  sendByes();
}

void TcpTransport::sendAborts() {
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(abortMutex_);
    reason = abortReason_.substr(0, 65536);
  }
  char header[kHeaderBytes];
  encodeHeader({FrameType::Abort, 0, generation_, reason.size()}, header);
  for (auto &peer : peers_) {
    if (!peer || peer->closed)
      continue;
    // Best effort: not inside a half-written message.
    if (!peer->current) {
      std::string bytes = peer->control.substr(peer->controlSent) +
                          std::string(header, kHeaderBytes) + reason;
      (void)::send(peer->fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    }
    // The peers see this rank hang up at once.
    ::shutdown(peer->fd.get(), SHUT_RDWR);
    peer->closed = true;
  }
  changed_.notify_all();
}

} // namespace tcp
} // namespace collrt
