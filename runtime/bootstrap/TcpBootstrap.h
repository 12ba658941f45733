//===- TcpBootstrap.h - the TCP bootstrap's class ---------------*- C++ -*-===//
//
// Internal to CollRtBootstrap: the rendezvous is in TcpRendezvous.cpp, the
// collectives, the proxy thread and failure handling in TcpBootstrap.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_BOOTSTRAP_TCPBOOTSTRAP_H
#define COLLRT_BOOTSTRAP_TCPBOOTSTRAP_H

#include "Frames.h"
#include "Socket.h"

#include "collrt/Bootstrap.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace collrt {
namespace bootstrap {

/// "rank 3", "ranks 1, 4 and 5".
std::string rankList(const std::vector<int32_t> &ranks);
std::string localHostName();

struct Connection {
  net::Fd fd;
  std::mutex sendMutex;
  FrameReader reader;
  std::string peerAddress;
  /// Polled by the proxy (proxy thread only once it runs).
  bool polled = true;
};

/// Sends and receives of bootstrap frames that are not collectives (hello
/// replies, failures, goodbyes) give up after this long.
inline constexpr double kControlSendSeconds = 2;

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

  net::Fd wakeRead_, wakeWrite_;
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

} // namespace bootstrap
} // namespace collrt

#endif
