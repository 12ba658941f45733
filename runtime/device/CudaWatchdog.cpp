//===- CudaWatchdog.cpp - waiting for launches, reporting blocks ----------===//
#include "runtime/device/CudaExecutor.h"

#include "collrt/device/WaitState.h"
#include "runtime/device/WaitReport.h"

#include <chrono>
#include <thread>

namespace collrt {
namespace dev {

namespace {

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

} // namespace

Status CudaCollective::snapshot(LaunchSnapshot *s) const {
  const LaunchLayout &l = layout_;
  if (Status st = makeCurrent(); !st.ok())
    return st;
  std::vector<std::vector<uint64_t>> copies(size_t(l.nranks()));
  std::vector<const char *> controls(size_t(l.nranks()), nullptr);
  for (int32_t rank : l.launched()) {
    std::vector<uint64_t> &copy = copies[size_t(rank)];
    copy.resize(l.arena(rank).controlBytes / 8 + 1);
    if (cu::Result r = d_->cuMemcpyDtoH(copy.data(), arenas_[size_t(rank)],
                                        l.arena(rank).controlBytes);
        r != cu::kSuccess)
      return d_->fail(l.name() + ": reading the blocks' states back",
                      "cuMemcpyDtoH", r);
    controls[size_t(rank)] = reinterpret_cast<const char *>(copy.data());
  }
  std::vector<const char *> hosts(hostArenaHost_.begin(), hostArenaHost_.end());
  *s = readSnapshot(l, controls, hosts);
  uint64_t tiles = uint64_t(l.tiles());
  for (size_t i = 0; i < l.connections().size(); ++i) {
    uint64_t before =
        launchesDone_ * l.connections()[i].messagesPerTile * tiles;
    s->sentBefore[i] = before;
    s->receivedBefore[i] = before;
  }
  s->epochBefore = launchesDone_ * tiles;
  // The launches not known to be done: the blocks stopped in one of them.
  s->launchUnknown = launchesPending_ > 1;
  return Status::success();
}

Status CudaCollective::failWith(const Status &status, const LaunchSnapshot *s) {
  std::string message = status.message();
  if (s)
    message += "\nwhat each block was doing:\n" + blockReport(layout_, *s);
  failed_ = true;
  failure_ = Status(status.code(), message);
  return failure_;
}

Status CudaCollective::throttle(cu::Stream stream) {
  if (failed_)
    return failure_;
  uint64_t enqueued = launchesDone_ + launchesPending_;
  if (enqueued % kMarkEvery != 0)
    return Status::success();
  if (Status st = makeCurrent(); !st.ok())
    return failWith(st, nullptr);
  cu::Event event = nullptr;
  if (!spareMarks_.empty()) {
    event = spareMarks_.back();
    spareMarks_.pop_back();
  } else if (cu::Result r = d_->cuEventCreate(&event, cu::kEventDefault);
             r != cu::kSuccess) {
    return failWith(d_->fail(layout_.name(), "cuEventCreate", r), nullptr);
  }
  if (cu::Result r = d_->cuEventRecord(event, stream); r != cu::kSuccess) {
    spareMarks_.push_back(event);
    return failWith(d_->fail(layout_.name(), "cuEventRecord", r), nullptr);
  }
  marks_.push_back({event, enqueued});
  if (marks_.size() <= kMarksInFlight)
    return Status::success();
  Mark oldest = marks_.front();
  marks_.pop_front();
  Status s = waitFor(oldest.event);
  spareMarks_.push_back(oldest.event);
  if (!s.ok())
    return s;
  launchesPending_ -= oldest.launches - launchesDone_;
  launchesDone_ = oldest.launches;
  return Status::success();
}

Status CudaCollective::wait(cu::Stream stream) {
  if (failed_)
    return failure_;
  if (Status st = makeCurrent(); !st.ok())
    return failWith(st, nullptr);
  if (cu::Result r = d_->cuEventRecord(done_, stream); r != cu::kSuccess)
    return failWith(
        d_->fail(layout_.name() + " on " + launchName(), "cuEventRecord", r),
        nullptr);
  if (Status s = waitFor(done_); !s.ok())
    return s;
  launchesDone_ += launchesPending_;
  launchesPending_ = 0;
  for (const Mark &m : marks_) // all reached before done_
    spareMarks_.push_back(m.event);
  marks_.clear();
  return Status::success();
}

Status CudaCollective::waitFor(cu::Event event) {
  const LaunchLayout &l = layout_;
  std::string what =
      l.name() + " on " + launchName() + " (kernel '" + kernelName_ + "')";
  using Clock = std::chrono::steady_clock;
  Status peerFailure;
  Clock::time_point nextCheck = Clock::now();
  // checkPeers: only while the launch runs normally (not while waiting for
  // it to end after an abort).
  auto poll = [&](Clock::time_point until, bool *finished,
                  bool checkPeers = false) -> Status {
    *finished = false;
    for (;;) {
      if (checkPeers && proxy_ && peerFailure.ok() && proxy_->failed()) {
        peerFailure = proxy_->error(); // it raised abortFlag already
        // A connection that closed may be a peer that stopped because a
        // third rank failed: where the peer check knows of a failure, that
        // is the cause, named first.
        if (peerCheck_)
          if (Status cause = peerCheck_(); !cause.ok())
            peerFailure = Status(cause.code(), cause.message() +
                                                   "; the device proxy "
                                                   "saw: " +
                                                   peerFailure.message());
        return Status::success();
      }
      if (checkPeers && peerCheck_ && peerFailure.ok() &&
          Clock::now() >= nextCheck) {
        peerFailure = peerCheck_();
        nextCheck = Clock::now() + std::chrono::milliseconds(100);
        if (!peerFailure.ok())
          return Status::success(); // the caller aborts the launch
      }
      cu::Result r = d_->cuEventQuery(event);
      if (r == cu::kSuccess) {
        *finished = true;
        return Status::success();
      }
      if (r != cu::kNotReady)
        return d_->fail(what, "the launch", r);
      if (Clock::now() >= until)
        return Status::success();
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  };
  bool finished = false;
  auto deadline = Clock::now() +
                  std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(options_.timeoutSeconds));
  if (Status s = poll(deadline, &finished, true); !s.ok())
    return failWith(s, nullptr);
  if (!finished && !peerFailure.ok()) {
    // A peer process failed: its messages will never come.
    *abortHost_ = wait::HostAbort;
    if (Status s = poll(Clock::now() + std::chrono::seconds(10), &finished);
        !s.ok())
      return failWith(s, nullptr);
    if (!finished) {
      launchNeverEnded_ = true;
      return failWith(Status(ErrorCode::PeerFailure,
                             what + ": " + peerFailure.message() +
                                 "; the launch did not end 10 s after "
                                 "abortFlag was set: the GPU context is "
                                 "unusable"),
                      nullptr);
    }
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    return failWith(Status(ErrorCode::PeerFailure,
                           what + ": stopped because a peer failed (" +
                               peerFailure.message() + ")"),
                    &s);
  }
  if (!finished) {
    *abortHost_ = wait::HostAbort;
    if (Status s = poll(Clock::now() + std::chrono::seconds(10), &finished);
        !s.ok())
      return failWith(s, nullptr);
    if (!finished) {
      launchNeverEnded_ = true;
      return failWith(
          Status(ErrorCode::Timeout,
                 what + " did not finish within " +
                     seconds(options_.timeoutSeconds) +
                     " s and did not end 10 s after abortFlag was set: the "
                     "GPU context is unusable"),
          nullptr);
    }
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    if (Status error = blockError(l, s); !error.ok())
      return failWith(error, &s);
    return failWith(
        Status(ErrorCode::Timeout, what + " did not finish within " +
                                       seconds(options_.timeoutSeconds) +
                                       " s (timeoutSeconds); the watchdog set "
                                       "abortFlag"),
        &s);
  }
  if (*abortHost_ != wait::NoAbort) {
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    Status error = blockError(l, s);
    return failWith(error.ok() ? Status(ErrorCode::TransportError,
                                        what + ": a block raised abortFlag "
                                               "without recording why")
                               : error,
                    &s);
  }
  return Status::success();
}

Status CudaCollective::waitAndCheck(cu::Stream stream) {
  uint64_t before = launchesDone_, pending = launchesPending_;
  if (Status s = wait(stream); !s.ok())
    return s;
  LaunchSnapshot s;
  launchesDone_ = before;
  Status st = snapshot(&s);
  launchesDone_ = before + pending;
  if (!st.ok())
    return failWith(st, nullptr);
  // Counts over every launch since `before`.
  const LaunchLayout &l = layout_;
  for (size_t i = 0; i < l.connections().size(); ++i) {
    const LaunchLayout::Connection &c = l.connections()[i];
    uint64_t expected = pending * c.messagesPerTile * uint64_t(l.tiles());
    uint64_t sent = s.sent[i] - s.sentBefore[i];
    uint64_t received = s.received[i] - s.receivedBefore[i];
    if ((l.launches(c.from) && sent != expected) ||
        (l.launches(c.to) && received != expected))
      return failWith(
          Status(ErrorCode::PlanMismatch,
                 l.name() + ": on the connection from rank " +
                     std::to_string(c.from) + " to rank " +
                     std::to_string(c.to) + " channel " +
                     std::to_string(c.channel) + " the kernel sent " +
                     std::to_string(sent) + " and received " +
                     std::to_string(received) + " messages in " +
                     std::to_string(pending) + " launches; the program sends " +
                     std::to_string(expected) +
                     ": the kernel does not run the plan's schedule"),
          &s);
  }
  return Status::success();
}

} // namespace dev
} // namespace collrt
