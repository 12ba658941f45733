//===- NetProxy.cpp - the net transports' proxy thread --------------------===//
//
// One thread per transport makes every Net call on installed connections:
// it completes receives (publishing them to tryRecv), posts the receive of
// each released slot again and sends the credit, starts the isend of each
// posted message, handles control messages, and turns a connection's
// failure into a PeerFailure naming the peer. It holds the transport's
// mutex except while it waits in poll() on the descriptors the Net names
// (sockets, a completion channel) and the eventfd that trySend and
// releaseRecv write.
//
//===----------------------------------------------------------------------===//
#include "NetTransport.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace collrt {
namespace transport {

namespace {
/// How long a peer whose send connection failed may take to show, on its
/// receive connection, that it left normally.
constexpr double kGoodbyeGraceSeconds = 1.0;
/// How long a leaving transport tries to deliver its posted messages and
/// say goodbye, and an aborting one to send its reason.
constexpr double kByeSeconds = 2.0;
constexpr double kAbortSeconds = 0.2;
} // namespace

void NetTransport::peerFailed(PeerLink &link, const std::string &why) {
  link.closed = true;
  if (link.departed)
    return;
  {
    std::lock_guard<std::mutex> lock(failureMutex_);
    if (failures_[link.rank].empty())
      failures_[link.rank] =
          here() + ": peer rank " + std::to_string(link.rank) +
          (link.address.empty() ? "" : " (" + link.address + ")") +
          " failed: " + why;
    anyFailure_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

static std::string failureText(const Status &s) {
  if (s.code() == ErrorCode::PeerFailure)
    return "its connection closed without a goodbye (the process exited "
           "early, crashed or was killed): " +
           s.message();
  return "its connection failed: " + s.message();
}

void NetTransport::recvFailed(PeerLink &link, const Status &s) {
  if (link.departed) {
    link.closed = true;
    return;
  }
  peerFailed(link, failureText(s));
}

void NetTransport::sendFailed(PeerLink &link, const Status &s) {
  if (link.departed || !link.sendFailure.ok())
    return;
  link.sendFailure = s;
  link.sendFailedAt = std::chrono::steady_clock::now();
}

void NetTransport::handleControl(PeerLink &link, const ControlMessage &m) {
  switch (m.type) {
  case ControlType::Credit:
    for (const auto &credit : m.credits) {
      NetSendConnection *target = nullptr;
      for (NetSendConnection *c : link.sends)
        if (c->channel == credit.first)
          target = c;
      if (!target) {
        peerFailed(link, "it sent a credit for channel " +
                             std::to_string(credit.first) +
                             ", on which this rank does not send to it");
        return;
      }
      if (credit.second > target->credits.load(std::memory_order_relaxed))
        target->credits.store(credit.second, std::memory_order_release);
    }
    return;
  case ControlType::Bye:
    link.departed = true;
    changed_.notify_all();
    return;
  case ControlType::Abort:
    peerFailed(link, "it aborted: " + m.reason);
    return;
  case ControlType::Hello:
    peerFailed(link, "it sent a second hello");
    return;
  }
}

bool NetTransport::serviceReceives(PeerLink &link) {
  bool progress = false;
  Status failure;
  for (NetRecvConnection *c : link.recvs) {
    uint64_t arrived = c->arrived.load(std::memory_order_relaxed);
    while (failure.ok() && arrived < c->posted) {
      size_t slot = arrived % c->slots;
      bool done = false;
      size_t bytes = 0;
      failure = link.recv->test(c->requests[slot], &done, &bytes);
      if (!failure.ok() || !done)
        break;
      c->requests[slot] = nullptr;
      c->sizes[slot] = bytes;
      c->arrived.store(++arrived, std::memory_order_release);
      progress = true;
    }
    // Each released slot's receive is posted again.
    uint64_t released = c->released.load(std::memory_order_acquire);
    while (failure.ok() && c->posted < released + c->slots) {
      size_t slot = c->posted % c->slots;
      net::NetRequest *request = nullptr;
      failure = link.recv->irecv(c->buffer + slot * c->slotBytes, c->slotBytes,
                                 c->channel, *link.recvMemory, &request);
      if (!failure.ok() || !request)
        break;
      c->requests[slot] = request;
      ++c->posted;
      progress = true;
    }
  }
  // Control messages that arrived are read even when the connection failed
  // meanwhile: a bye or an abort is followed by the hang-up, and must be
  // seen before it.
  Status control;
  while (link.controlArrived < link.controlPosted) {
    size_t k = link.controlArrived % kControlSlots;
    bool done = false;
    size_t bytes = 0;
    control = link.recv->test(link.controlRecv[k], &done, &bytes);
    if (!control.ok() || !done)
      break;
    link.controlRecv[k] = nullptr;
    ++link.controlArrived;
    progress = true;
    ControlMessage m;
    if (!decodeControl(link.controlIn + k * kControlBytes, bytes, &m)) {
      peerFailed(link, "it sent a control message this rank cannot read");
      return progress;
    }
    handleControl(link, m);
    if (link.closed)
      return progress;
  }
  if (failure.ok())
    failure = control;
  while (failure.ok() &&
         link.controlPosted < link.controlArrived + kControlSlots) {
    size_t k = link.controlPosted % kControlSlots;
    net::NetRequest *request = nullptr;
    failure =
        link.recv->irecv(link.controlIn + k * kControlBytes, kControlBytes,
                         kControlTag, *link.recvMemory, &request);
    if (!failure.ok() || !request)
      break;
    link.controlRecv[k] = request;
    ++link.controlPosted;
  }
  if (!failure.ok())
    recvFailed(link, failure);
  return progress;
}

bool NetTransport::sendControl(PeerLink &link, const std::string &bytes) {
  if (link.controlIssued - link.controlDone >= kControlSlots ||
      !link.sendFailure.ok())
    return false;
  size_t k = link.controlIssued % kControlSlots;
  char *buffer = link.controlOut + k * kControlBytes;
  std::memcpy(buffer, bytes.data(), bytes.size());
  net::NetRequest *request = nullptr;
  Status s = link.send->isend(buffer, bytes.size(), kControlTag,
                              *link.sendMemory, &request);
  if (!s.ok()) {
    sendFailed(link, s);
    return false;
  }
  if (!request)
    return false;
  link.controlSend[k] = request;
  ++link.controlIssued;
  return true;
}

bool NetTransport::serviceSends(PeerLink &link) {
  bool progress = false;
  Status failure;
  for (NetSendConnection *c : link.sends) {
    uint64_t published = c->published.load(std::memory_order_acquire);
    while (failure.ok() && c->issued < published) {
      size_t slot = c->issued % c->slots;
      net::NetRequest *request = nullptr;
      failure =
          link.send->isend(c->buffer + slot * c->slotBytes, c->sizes[slot],
                           c->channel, *link.sendMemory, &request);
      if (!failure.ok() || !request)
        break;
      c->inFlight.push_back(request);
      ++c->issued;
      progress = true;
    }
    while (failure.ok() && !c->inFlight.empty()) {
      bool done = false;
      size_t bytes = 0;
      failure = link.send->test(c->inFlight.front(), &done, &bytes);
      if (!failure.ok() || !done)
        break;
      c->inFlight.pop_front();
      progress = true;
    }
  }
  if (!failure.ok()) {
    sendFailed(link, failure);
    return progress;
  }
  // Credits for the receives posted again since the last ones.
  ControlMessage credit;
  credit.type = ControlType::Credit;
  std::vector<NetRecvConnection *> credited;
  for (NetRecvConnection *c : link.recvs)
    if (c->posted - c->slots > c->credited) {
      credit.credits.push_back({c->channel, c->posted - c->slots});
      credited.push_back(c);
    }
  if (!credit.credits.empty()) {
    size_t encoded = 0;
    std::string bytes = encodeControl(credit, &encoded);
    if (sendControl(link, bytes)) {
      for (size_t i = 0; i < encoded; ++i)
        credited[i]->credited = credit.credits[i].second;
      progress = true;
    }
  }
  while (link.sendFailure.ok() && link.controlDone < link.controlIssued) {
    size_t k = link.controlDone % kControlSlots;
    bool done = false;
    size_t bytes = 0;
    Status s = link.send->test(link.controlSend[k], &done, &bytes);
    if (!s.ok()) {
      sendFailed(link, s);
      break;
    }
    if (!done)
      break;
    link.controlSend[k] = nullptr;
    ++link.controlDone;
    progress = true;
  }
  return progress;
}

bool NetTransport::service(PeerLink &link) {
  // Move both connections first, whether or not this rank has something
  // to send: clear-to-sends and completions are read (so the descriptors
  // stop saying "ready"), failures noticed. The receive side's failure
  // surfaces through its requests below, after what completed before it.
  if (link.sendFailure.ok())
    if (Status s = link.send->progress(); !s.ok())
      sendFailed(link, s);
  (void)link.recv->progress();
  bool progress = serviceReceives(link);
  if (!link.closed && link.sendFailure.ok())
    progress |= serviceSends(link);
  if (!link.closed && !link.sendFailure.ok() && !link.departed &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    link.sendFailedAt)
              .count() > kGoodbyeGraceSeconds)
    peerFailed(link, failureText(link.sendFailure));
  return progress;
}

void NetTransport::proxyLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  std::vector<pollfd> fds;
  while (!stop_.load() && !aborted_.load()) {
    bool progress = false, ready = false, grace = false;
    fds.clear();
    fds.push_back({wakeFd_.get(), POLLIN, 0});
    if (attached_) {
      for (auto &entry : links_) {
        PeerLink &link = *entry.second;
        if (link.closed)
          continue;
        progress |= service(link);
        if (link.closed)
          continue;
        ready |= link.recv->pollFds(&fds);
        if (link.sendFailure.ok())
          ready |= link.send->pollFds(&fds);
      }
      // Waiting for a goodbye after a send failure: look again soon.
      for (auto &entry : links_)
        grace |= !entry.second->closed && !entry.second->sendFailure.ok();
    }
    if (progress)
      changed_.notify_all();
    lock.unlock();
    ::poll(fds.data(), fds.size(), progress || ready ? 0 : grace ? 1 : 100);
    uint64_t drained = 0;
    (void)!::read(wakeFd_.get(), &drained, sizeof(drained));
    lock.lock();
  }
  leave(lock, aborted_.load());
}

void NetTransport::leave(std::unique_lock<std::mutex> &lock, bool aborting) {
  if (!attached_)
    return;
  ControlMessage m;
  m.type = aborting ? ControlType::Abort : ControlType::Bye;
  if (aborting) {
    std::lock_guard<std::mutex> abortLock(abortMutex_);
    m.reason = abortReason_;
  }
  const std::string bytes = encodeControl(m);
  Deadline until = Deadline::after(aborting ? kAbortSeconds : kByeSeconds);
  std::vector<pollfd> fds;
  for (;;) {
    bool pending = false, ready = false;
    fds.clear();
    for (auto &entry : links_) {
      PeerLink &link = *entry.second;
      if (link.closed || !link.sendFailure.ok())
        continue;
      // Keep the connections moving: posted messages leave (each has a
      // receive waiting: its credit said so), control slots free up.
      service(link);
      if (link.closed || !link.sendFailure.ok())
        continue;
      // A bye goes last, after every posted message; an abort at once.
      bool flushed = true;
      for (const NetSendConnection *c : link.sends)
        flushed =
            flushed && c->issued == c->published.load() && c->inFlight.empty();
      if (!link.byeSent && (aborting || flushed))
        link.byeSent = sendControl(link, bytes);
      pending =
          pending || !link.byeSent || link.controlDone < link.controlIssued;
      ready |= link.recv->pollFds(&fds);
      ready |= link.send->pollFds(&fds);
    }
    if (!pending || until.expired())
      break;
    lock.unlock();
    ::poll(fds.data(), fds.size(), ready ? 0 : net::pollTimeoutMs(until, 1));
    lock.lock();
  }
  if (aborting) {
    // Close the connections now (the memory stays until destruction, as
    // a channel thread may still hold a message): peers see the hang-up.
    for (auto &entry : links_) {
      PeerLink &link = *entry.second;
      link.send.reset();
      link.recv.reset();
      link.closed = true;
    }
    changed_.notify_all();
  }
}

} // namespace transport
} // namespace collrt
