//===- NetTransport.h - the transport protocol over a Net -------*- C++ -*-===//
//
// Internal to CollRtTransport. The "tcp" and "ib" transports are this one
// protocol over two Nets (runtime/net/Net.h): SocketNet and IbvNet. So
// everything above the Net (slots, credits, control messages, the proxy
// thread, connect and reconnect, peer failure, abort) is tested over TCP
// and runs unchanged over RDMA.
//
// Per peer pair, one Net connection each way (this rank's send comm is the
// peer's receive comm). Messages of channel c travel with tag c; control
// messages (hello, credit, bye, abort) with kControlTag. Per connection
// (peer, channel), both ends hold `slots` buffers of slotBytes in memory
// registered with the Net: the sender's staging slots (trySend copies
// there) and the receiver's slots (irecv targets; tryRecv returns a pointer
// into them). The receiver posts one irecv per free slot; releaseRecv
// frees the slot, the proxy posts its irecv again and tells the sender
// with a credit (cumulative count). A sender may have at most `slots`
// messages not yet credited, exactly the model's bound, and each of its
// isends finds a posted receive.
//
// Threads: channel threads call trySend/tryRecv/releaseRecv, which touch
// only their connection's buffers and atomics; the proxy thread makes
// every Net call on installed connections; connect() makes the Net calls
// that set connections up while the proxy leaves them alone.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_NETTRANSPORT_H
#define COLLRT_TRANSPORT_NETTRANSPORT_H

#include "MemoryRegistry.h"
#include "SlotRing.h"
#include "bootstrap/Socket.h"
#include "net/Net.h"

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace collrt {
namespace transport {

/// Tags above every channel number.
constexpr uint64_t kControlTag = uint64_t(1) << 32;
/// Control receives each connection keeps posted, and control sends in
/// flight.
constexpr uint32_t kControlSlots = 4;
/// The largest control message (an abort's reason is cut to fit).
constexpr size_t kControlBytes = 4096;

enum class ControlType : uint32_t {
  Hello = 1,
  Credit = 2,
  Bye = 3,
  Abort = 4,
};

/// A decoded control message.
struct ControlMessage {
  ControlType type = ControlType::Credit;
  /// Hello.
  int32_t rank = -1;
  uint32_t generation = 0;
  std::string runId;
  /// Credit: (channel, receives posted beyond the first `slots`).
  std::vector<std::pair<uint32_t, uint64_t>> credits;
  /// Abort.
  std::string reason;
};

/// Encodes `message` (credits: as many as fit; *encoded says how many) into
/// at most kControlBytes.
std::string encodeControl(const ControlMessage &message,
                          size_t *encodedCredits = nullptr);
bool decodeControl(const char *data, size_t bytes, ControlMessage *message);

/// Page-aligned anonymous memory (pages are committed when touched, or
/// when a Net pins them).
class MappedBuffer {
public:
  MappedBuffer() = default;
  ~MappedBuffer();
  MappedBuffer(MappedBuffer &&other) noexcept { *this = std::move(other); }
  MappedBuffer &operator=(MappedBuffer &&other) noexcept;
  Status allocate(size_t bytes, const std::string &what);
  char *data() const { return data_; }
  size_t bytes() const { return bytes_; }

private:
  char *data_ = nullptr;
  size_t bytes_ = 0;
};

/// The receiving end of (peer, channel).
struct NetRecvConnection {
  uint32_t channel = 0;
  uint32_t slots = 0;
  size_t slotBytes = 0;
  char *buffer = nullptr;
  /// Message sizes by slot (written by the proxy before `arrived`).
  std::vector<size_t> sizes;
  /// Messages in their slots (proxy) and released (receiver's thread).
  std::atomic<uint64_t> arrived{0};
  std::atomic<uint64_t> released{0};
  // Proxy only: the irecv of each slot, receives posted, last credit sent.
  std::vector<net::NetRequest *> requests;
  uint64_t posted = 0;
  uint64_t credited = 0;
};

/// The sending end of (peer, channel).
struct NetSendConnection {
  uint32_t channel = 0;
  uint32_t slots = 0;
  size_t slotBytes = 0;
  char *buffer = nullptr;
  std::vector<size_t> sizes;
  /// Sender's thread: messages posted; published for the proxy.
  uint64_t posted = 0;
  std::atomic<uint64_t> published{0};
  /// Proxy: messages the receiver has released.
  std::atomic<uint64_t> credits{0};
  // Proxy only: isends started, and those not yet complete.
  uint64_t issued = 0;
  std::deque<net::NetRequest *> inFlight;
};

/// A peer's two connections and their memory.
struct PeerLink {
  int32_t rank = -1;
  std::string address;
  // Declared so that they are destroyed in this order: connections, then
  // registrations, then memory.
  MappedBuffer sendBuffer, recvBuffer;
  std::unique_ptr<net::NetMemory> sendMemory, recvMemory;
  std::unique_ptr<net::NetSendComm> send;
  std::unique_ptr<net::NetRecvComm> recv;
  std::vector<NetSendConnection *> sends;
  std::vector<NetRecvConnection *> recvs;
  // Control messages: receives posted/completed, sends started/completed,
  // each in ring order over kControlSlots buffers.
  char *controlIn = nullptr;
  char *controlOut = nullptr;
  net::NetRequest *controlRecv[kControlSlots] = {};
  net::NetRequest *controlSend[kControlSlots] = {};
  uint64_t controlPosted = 0, controlArrived = 0;
  uint64_t controlIssued = 0, controlDone = 0;
  /// Bye received: its connections closing is not a failure.
  bool departed = false;
  /// Failed or departed: the proxy no longer drives it.
  bool closed = false;
  /// The send connection failed at `sendFailedAt`; the peer is declared
  /// failed unless a bye arrives on the receive connection soon after (a
  /// peer that leaves closes both).
  Status sendFailure;
  std::chrono::steady_clock::time_point sendFailedAt;
  bool byeSent = false;
};

class NetTransport final : public Transport {
public:
  /// `kind` is "tcp" or "ib"; `dev` the Net device to use; `description`
  /// what describe() reports.
  NetTransport(const char *kind, Bootstrap &bootstrap,
               std::unique_ptr<net::Net> net, int dev, std::string description);
  ~NetTransport() override;

  const char *name() const override { return kind_; }
  int32_t rank() const override { return bootstrap_.rank(); }
  int32_t worldSize() const override { return bootstrap_.worldSize(); }
  std::string describe() const override { return description_; }

  Status connect(const ConnectionSpec &spec, Deadline deadline) override;
  Status registerMemory(void *base, size_t bytes,
                        MemoryRegion *region) override;
  Status deregisterMemory(const MemoryRegion &region) override;
  Status trySend(const ConnectionKey &to, const void *data, size_t bytes,
                 bool *posted) override;
  Status tryRecv(const ConnectionKey &from, const void **data, size_t *bytes,
                 bool *ready) override;
  Status releaseRecv(const ConnectionKey &from) override;
  Status checkPeers() override;
  void abort(const std::string &reason) override;

  /// Listens and starts the proxy thread.
  Status start();

private:
  std::string here() const {
    return std::string(kind_) + " transport, rank " + std::to_string(rank());
  }
  Status abortedStatus() const;
  Status peerStatus(int32_t peer);
  Status unknown(const char *what, const ConnectionKey &key) const;
  Status checkLocal(const ConnectionSpec &spec) const;
  void wake();

  // connect() steps (NetTransport.cpp, NetConnect.cpp).
  Status drainCredits(Deadline deadline);
  Status openLinks(const ConnectionSpec &spec,
                   const std::vector<std::string> &handles, Deadline deadline,
                   std::map<int32_t, std::unique_ptr<PeerLink>> *links);
  Status installLinks(const ConnectionSpec &spec,
                      std::map<int32_t, std::unique_ptr<PeerLink>> &links);

  // The proxy (NetProxy.cpp); called with mutex_ held.
  void proxyLoop();
  bool service(PeerLink &link);
  bool serviceReceives(PeerLink &link);
  bool serviceSends(PeerLink &link);
  bool sendControl(PeerLink &link, const std::string &bytes);
  void handleControl(PeerLink &link, const ControlMessage &message);
  void recvFailed(PeerLink &link, const Status &s);
  void sendFailed(PeerLink &link, const Status &s);
  void peerFailed(PeerLink &link, const std::string &why);
  void leave(std::unique_lock<std::mutex> &lock, bool aborting);

  const char *kind_;
  Bootstrap &bootstrap_;
  std::unique_ptr<net::Net> net_;
  int dev_;
  std::string description_;
  std::unique_ptr<net::NetListenComm> listen_;
  std::string handle_;
  std::string nonce_;
  net::Fd wakeFd_;
  std::thread proxy_;
  std::atomic<bool> stop_{false};

  /// Guards what the proxy and connect() share.
  std::mutex mutex_;
  std::condition_variable changed_;
  /// The proxy drives links_ only while attached_.
  bool attached_ = false;
  std::map<int32_t, std::unique_ptr<PeerLink>> links_;
  /// Rank 0's nonce: hellos must carry it.
  std::string runId_;
  uint32_t generation_ = 0;
  std::vector<std::string> connectedSpecs_;

  /// Per peer: why it failed ("" = fine); read by any thread.
  std::mutex failureMutex_;
  std::vector<std::string> failures_;
  std::atomic<bool> anyFailure_{false};

  // The connected spec (replaced only by connect, while no channel thread
  // runs).
  ConnectionSpec spec_;
  std::map<ConnectionKey, std::unique_ptr<NetSendConnection>> sends_;
  std::map<ConnectionKey, std::unique_ptr<NetRecvConnection>> recvs_;
  /// Connections of this rank to itself: a ring each.
  std::map<uint32_t, std::unique_ptr<SlotRing>> selfRings_;

  std::atomic<bool> aborted_{false};
  mutable std::mutex abortMutex_;
  std::string abortReason_;
  MemoryRegistry memory_;
  std::mutex netMemoryMutex_;
  std::map<uint64_t, std::unique_ptr<net::NetMemory>> netMemory_;
};

} // namespace transport
} // namespace collrt

#endif
