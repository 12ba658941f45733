//===- DeviceProxy.h - device connections across hosts ----------*- C++ -*-===//
//
// A generated kernel reaches a peer on its own host through memory (peer
// access, CUDA IPC: a store into the peer's slots). A peer on another host
// is reached through the network, and the kernel does not know it: a
// network connection (LaunchLayout, DeviceOptions::hosts) is two local
// connections, each in its own rank's HOST ARENA (pinned host memory the
// GPU maps), and this proxy thread moves the messages between them, as
// NCCL's net transport does with its proxy:
//
//   sender kernel --slots, sizes, head--> [sender's host arena]
//        proxy: isend(slot, sizes[slot] bytes, tag = channel) ... done: tail
//   receiver's proxy: irecv into a free slot (posted - tail < slots) ...
//        done: sizes[slot] = bytes, head = received  --> receiver kernel
//
// over a Net (runtime/net/Net.h: SocketNet here, IbvNet on RDMA machines),
// one Net connection per (rank, remote peer) and direction, whose first
// message is a hello naming both ranks and the layout key. The Net's
// rendezvous (an isend waits for a posted receive) is the flow control
// between hosts; the kernels' own head and tail bound the slots on each
// side. Network connections use the simple protocol only (no LL).
//
// One DeviceProxy per launch that has network connections. Everything it
// reads or writes of a connection is in the host arenas; counters never
// restart, so one proxy serves every launch of its layout.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_DEVICEPROXY_H
#define COLLRT_DEVICE_DEVICEPROXY_H

#include "collrt/Status.h"
#include "runtime/device/LaunchLayout.h"
#include "runtime/exec/Backoff.h"
#include "runtime/net/Net.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace collrt {
namespace dev {

/// Exports [data, data + bytes) of device memory as a dma-buf: *fd (the
/// caller owns it afterwards) and *offset, where `data` lies in the
/// dma-buf. Unsupported (with the reason) where the driver or the device
/// cannot; any other failure is an error. The memory exported may be
/// larger than asked (whole pages).
using DmaBufExporter =
    std::function<Status(void *data, size_t bytes, int *fd, uint64_t *offset)>;

/// GPUDirect RDMA (the layout's slotsOnDevice): where the slots are and how
/// the proxy registers and flushes them.
struct GpuDirectMemory {
  /// The device arenas by rank (the launched ranks with slots on the
  /// device need one).
  std::vector<char *> deviceArenas;
  /// Runs after every receive into device memory and before its head is
  /// published (the CUDA executor: cuFlushGPUDirectRDMAWrites, so that the
  /// kernel that sees head reads the NIC's data); none when empty.
  std::function<Status()> flush;
  /// How each device arena is registered with the Net:
  /// - DmaBuf: exportDmaBuf, then Net::regMrDmaBuf (the fd is closed
  ///   after the registration, which holds its own reference);
  /// - PeerMem: Net::regMr(NetMemoryKind::Device) (nvidia-peermem);
  /// - Auto: dma-buf; where the exporter or regMrDmaBuf says Unsupported
  ///   (or there is no exporter), nvidia-peermem. Where both fail the
  ///   error names both reasons.
  /// gpuMemoryRegistration() says which way each rank took.
  GpuMemoryRegistration registration = GpuMemoryRegistration::Auto;
  DmaBufExporter exportDmaBuf;
};

class DeviceProxy {
public:
  /// A proxy for the launched ranks of `layout` whose host arenas are at
  /// hostArenas[r] (host addresses, by rank; the ranks with network
  /// connections need one). It registers the arenas with `net` device
  /// `dev` and listens there; `what` starts its messages ("rank 3").
  /// With GPUDirect (the layout's slotsOnDevice) the slots are in the
  /// device arenas of `gpuDirect`, which the Net registers as GPU memory
  /// (GpuDirectMemory: through dma-buf or nvidia-peermem).
  static Status create(std::unique_ptr<net::Net> net, int dev,
                       const LaunchLayout &layout,
                       const std::vector<char *> &hostArenas,
                       const std::string &what,
                       std::unique_ptr<DeviceProxy> *proxy,
                       const GpuDirectMemory &gpuDirect = {});
  ~DeviceProxy();

  /// The Net listen handle peers connect to (ArenaEntry::netHandle).
  const std::string &handle() const { return handle_; }
  /// The Net device, for messages ("socket 127.0.0.1"), and with GPUDirect
  /// how the GPU memory was registered ("; GPU memory registered through
  /// dma-buf").
  std::string describe() const;

  /// How one rank's device arena was registered (GPUDirect).
  struct Registration {
    int32_t rank = -1;
    bool dmaBuf = false;
    /// nvidia-peermem: why not dma-buf (its failure's reason, or "not
    /// tried: peermem was asked for").
    std::string why;
  };
  const std::vector<Registration> &registrations() const {
    return registrations_;
  }
  /// "GPU memory registered through dma-buf", "GPU memory registered
  /// through nvidia-peermem (dma-buf: <why>)"; per rank ("rank 0: ...;
  /// rank 2: ...") where the ranks of this proxy differ; "" without
  /// GPUDirect.
  std::string gpuMemoryRegistration() const;

  /// Starts the thread: connects to the proxies of the remote peers
  /// (handles by rank; needed for every rank across hosts from a launched
  /// one) within connectSeconds, then moves messages until stop(). On a
  /// failure (a peer's connection closed, a malformed message, the
  /// connect deadline) it records the error and raises *abortFlag
  /// (wait::HostAbort) so that the launch's blocks give up.
  Status start(const std::vector<std::string> &handles, int32_t *abortFlag,
               double connectSeconds);
  /// The first failure, or success.
  Status error() const;
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  /// Waits (at most `seconds`) until every message the launched ranks
  /// posted has left, says goodbye, then ends the thread and closes the
  /// connections. Returns error() or a timeout naming what had not left.
  /// Call it once the kernels of every rank have ended (after a barrier of
  /// all processes): from then on a peer that hangs up loses nothing.
  Status stop(double seconds);
  /// The first half of stop(): tells the thread to leave once everything
  /// has left, without waiting (so that several proxies of one process
  /// stop together).
  void requestStop(double seconds);

  /// Messages moved so far (sent, received), for tests.
  uint64_t messagesSent() const { return sent_.load(); }
  uint64_t messagesReceived() const { return received_.load(); }

  /// How the thread waits (ProxyPolling, LaunchLayout.h); Sleep unless
  /// set, before start().
  void setPolling(ProxyPolling polling) { polling_ = polling; }
  ProxyPolling polling() const { return polling_; }
  /// The executor has enqueued a launch of the layout: its messages
  /// (messagesPerLaunch(): what this proxy's halves send and receive in one
  /// launch) are due (messagesDue()). With ProxyPolling::Launch a thread
  /// asleep because it had nothing to do wakes at once, and until every
  /// message of the launches so far has moved it polls every 10 us instead
  /// of backing off to 100 us sleeps; messages due that do not move within
  /// 1 s (an aborted launch, or one queued behind long work) let it sleep
  /// again. Call it from any thread, once per launch that runs (not for
  /// one captured into a graph: the graph's launches call it).
  void launched();
  uint64_t messagesPerLaunch() const { return perLaunch_; }
  /// Messages of the launches so far that have not moved yet.
  uint64_t messagesDue() const;
  /// How often launched() woke the thread from an idle sleep (tests).
  uint64_t wakeups() const { return wakeups_.load(); }
  /// Whether the thread, with nothing to do, has backed off to its idle
  /// sleeps (from the first one until it next moves a message or sees a
  /// launch): a launch from now on counts as a wake-up (tests).
  bool idleAsleep() const { return idleAsleep_.load(); }

  struct Half;
  struct Link;
  struct Incoming {
    std::unique_ptr<net::NetRecvComm> comm;
    char hello[32] = {}; // kHelloBytes
    std::unique_ptr<net::NetMemory> memory;
    net::NetRequest *request = nullptr;
  };

private:
  DeviceProxy() = default;
  /// Registers one rank's device arena as gpuDirect.registration says and
  /// records how (registrations_).
  Status registerDeviceArena(int32_t rank, char *data, uint64_t bytes,
                             const GpuDirectMemory &gpuDirect,
                             std::unique_ptr<net::NetMemory> *memory);
  void run(std::vector<std::string> handles, double connectSeconds);
  Status connectAll(const std::vector<std::string> &handles, Deadline deadline);
  Status moveMessages(bool *progressed);
  Status linkProgress(Link &link, bool *progressed);
  /// The oldest request of `h` completed (`bytes`): publish it (tail, or
  /// the flush, sizes and head) and count it.
  Status completeFront(Half &h, size_t bytes);
  Status sayGoodbye();
  Status checkGoodbye(Link &link, const Status &failure, bool *progressed);
  bool drained() const;
  bool stopExpired() const;
  /// Nothing moved this round: poll again at once while messages are due
  /// (messagesDue()), else pause as `backoff` says, sleeping on wake_ so
  /// that launched() or a stop cuts the sleep short.
  void idle(exec::Backoff &backoff);
  /// Ends an idle sleep (launched(), a stop).
  void wakeUp();
  void fail(const Status &status);

  std::unique_ptr<net::Net> net_;
  std::function<Status()> flush_;
  int dev_ = 0;
  std::string what_, handle_;
  uint64_t layoutKey_ = 0;
  std::unique_ptr<net::NetListenComm> listen_;
  std::vector<std::unique_ptr<net::NetMemory>> memory_;
  std::vector<Registration> registrations_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<Half>> halves_;
  std::vector<std::unique_ptr<Incoming>> incoming_;
  std::atomic<int32_t *> abortFlag_{nullptr};
  std::thread thread_;
  std::atomic<bool> stopping_{false}, failed_{false};
  /// Set by the destructor: leave at once, without goodbyes.
  std::atomic<bool> abandon_{false};
  /// When stop() gives up waiting for messages to leave (steady clock
  /// ticks).
  std::atomic<int64_t> stopAt_{0};
  std::atomic<uint64_t> sent_{0}, received_{0};
  /// Messages of one launch (sent and received by the halves), and of
  /// every launch so far (launched()).
  uint64_t perLaunch_ = 0;
  ProxyPolling polling_ = ProxyPolling::Sleep;
  std::atomic<uint64_t> expected_{0}, wakeups_{0};
  std::atomic<bool> idleAsleep_{false};
  /// The thread's: expected_ when it last looked, and when it last moved a
  /// message or saw a launch. Messages due keep it polling for
  /// kAttentive after that; then (a launch that was aborted, or one
  /// queued behind long work) it sleeps as when idle, still woken by the
  /// next launch.
  uint64_t seenExpected_ = 0;
  bool stopNoticed_ = false;
  std::chrono::steady_clock::time_point lastActive_{};
  static constexpr std::chrono::seconds kAttentive{1};
  /// Its sleep between polls while messages are due: short next to the
  /// 100 us of an idle proxy, long enough that the thread takes little of
  /// a core that a host thread (or an emulated kernel) may be spinning on.
  /// Not yet tuned on a GPU host.
  static constexpr int kAttentiveSleepUs = 10;
  /// The thread's idle sleep waits on wake_ (launched(), a stop).
  std::mutex wakeMutex_;
  std::condition_variable wake_;
  mutable std::mutex mutex_;
  Status error_;
};

} // namespace dev
} // namespace collrt

#endif
