//===- RequestTable.h - a communicator's requests in flight -----*- C++ -*-===//
//
// The bookkeeping every Net communicator (socket and ibverbs, send and
// receive) shares: the requests it handed out and not yet reported done,
// the ones that completed without a test yet (pollFds reports those as
// ready work), and Net's test() contract: progress, then report and forget
// a completed request; a request the communicator does not have is an
// error. Req has `bool done` and `size_t bytes`.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_REQUESTTABLE_H
#define COLLRT_NET_REQUESTTABLE_H

#include "runtime/net/Net.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace collrt {
namespace net {

template <typename Req> class RequestTable {
public:
  /// Keeps `req` until a test reports it done; the handle to give out.
  NetRequest *add(std::unique_ptr<Req> req) {
    NetRequest *handle = req.get();
    live_[handle] = std::move(req);
    return handle;
  }
  /// The request behind a handle, or null (not ours, or reported done).
  Req *find(NetRequest *handle) const {
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : it->second.get();
  }
  /// Requests handed out and not yet reported done.
  size_t size() const { return live_.size(); }
  /// Marks `req` done; a later test reports it.
  void complete(Req &req) {
    req.done = true;
    ++untested_;
  }
  /// Requests completed but not yet reported by test.
  size_t untested() const { return untested_; }

  /// Net's test(): runs `progress` (a Status()), then reports `handle`
  /// done with its bytes and forgets it; progress's failure otherwise.
  /// InvalidArgument for a handle the communicator does not have, `what`
  /// naming the net ("socket net") and `side` the connection's ("send",
  /// "receive").
  template <typename Progress>
  Status test(NetRequest *handle, bool *done, size_t *bytes,
              Progress &&progress, const std::string &what, const char *side) {
    *done = false;
    auto it = live_.find(handle);
    if (it == live_.end())
      return Status(ErrorCode::InvalidArgument,
                    what + ": test of a request this " + side +
                        " connection does not have (already completed?)");
    Status s = progress();
    if (it->second->done) {
      *done = true;
      *bytes = it->second->bytes;
      live_.erase(it);
      --untested_;
      return Status::success();
    }
    return s;
  }

private:
  std::unordered_map<NetRequest *, std::unique_ptr<Req>> live_;
  size_t untested_ = 0;
};

} // namespace net
} // namespace collrt

#endif
