//===- TcpTransport.h - processes anywhere, over TCP ------------*- C++ -*-===//
//
// Internal to CollRtTransport. One TCP connection per peer pair carries
// both directions and every channel; frames are a 24-byte header (type,
// channel, connect generation, size) and the payload. The lower rank
// connects to the higher rank's listener, whose address every rank
// announced through the bootstrap.
//
// Threads: the executor's channel threads call trySend/tryRecv/releaseRecv,
// which touch only single-producer single-consumer rings and atomics; the
// proxy thread does all socket I/O with poll(): it moves messages from the
// send rings to the sockets and from the sockets into the receive rings, and
// returns credits. A sender may have at most `slots` messages that the
// receiver has not released (the receiver's proxy sends a credit frame per
// batch of releases), so a receive ring never overflows and one channel
// cannot block the others sharing the socket. Should a ring be full anyway,
// the proxy stops reading that socket (TCP flow control does the rest).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_TCPTRANSPORT_H
#define COLLRT_TRANSPORT_TCPTRANSPORT_H

#include "MemoryRegistry.h"
#include "SlotRing.h"
#include "bootstrap/Socket.h"

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace collrt {
namespace tcp {

enum class FrameType : uint32_t {
  Hello = 1,
  Data = 2,
  Credit = 3,
  Bye = 4,
  /// The sender aborted; the payload is its reason.
  Abort = 5,
};
constexpr size_t kHeaderBytes = 24;

struct Header {
  FrameType type = FrameType::Data;
  uint32_t channel = 0;
  uint32_t generation = 0;
  /// Payload bytes (Data, Hello) or released messages (Credit).
  uint64_t size = 0;
};
void encodeHeader(const Header &header, char out[kHeaderBytes]);
/// False for an unknown frame type.
bool decodeHeader(const char in[kHeaderBytes], Header *header);

/// The receiving end of one connection.
struct RecvConnection {
  explicit RecvConnection(uint32_t slots) : ring(slots) {}
  transport::SlotRing ring;
  /// Messages the receiver released (its thread); the proxy turns them
  /// into credits.
  std::atomic<uint64_t> released{0};
  /// Proxy only.
  uint64_t credited = 0;
};

/// The sending end of one connection.
struct SendConnection {
  explicit SendConnection(uint32_t slots) : ring(slots) {}
  transport::SlotRing ring;
  /// Messages posted (sender's thread) and credits returned (proxy).
  uint64_t posted = 0;
  std::atomic<uint64_t> credits{0};
  /// Set for a connection to this rank itself: messages go straight to
  /// its receive ring.
  RecvConnection *self = nullptr;
};

/// A peer's socket and the proxy's progress on it (proxy only, except
/// where noted).
struct Peer {
  int32_t rank = -1;
  std::string address;
  net::Fd fd;
  /// Bye received: its end closing is not a failure.
  bool departed = false;
  /// The proxy stopped watching it (failed or departed).
  bool closed = false;

  // Output: control frames (credits) between data messages.
  std::string control;
  size_t controlSent = 0;
  SendConnection *current = nullptr;
  char currentHeader[kHeaderBytes];
  size_t currentBytes = 0;
  size_t currentSent = 0;
  size_t nextSend = 0;
  std::vector<std::pair<uint32_t, SendConnection *>> sends;
  std::map<uint32_t, RecvConnection *> recvs;

  // Input: the frame being read.
  char inHeader[kHeaderBytes];
  size_t inHeaderGot = 0;
  Header in;
  RecvConnection *inTarget = nullptr;
  /// The payload of an Abort frame.
  std::string inText;
  char *inPayload = nullptr;
  size_t inGot = 0;
  bool paused = false;
};

class TcpTransport final : public Transport {
public:
  TcpTransport(Bootstrap &bootstrap, net::Fd listener, std::string listenAt);
  ~TcpTransport() override;

  const char *name() const override { return "tcp"; }
  int32_t rank() const override { return bootstrap_.rank(); }
  int32_t worldSize() const override { return bootstrap_.worldSize(); }

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

  Status start();

private:
  std::string here() const {
    return "tcp transport, rank " + std::to_string(rank());
  }
  Status abortedStatus() const;
  Status peerStatus(int32_t peer);
  Status unknown(const char *what, const ConnectionKey &key) const;
  Status checkLocal(const ConnectionSpec &spec) const;
  Status openSockets(const ConnectionSpec &spec, Deadline deadline);
  void install(const ConnectionSpec &spec);
  void wake();

  // The proxy (TcpProxy.cpp); called with mutex_ held.
  void proxyLoop();
  bool pumpOut(Peer &peer);
  bool pumpIn(Peer &peer);
  void queueCredits(Peer &peer);
  void acceptPending();
  void readHellos();
  void peerFailed(Peer &peer, const std::string &why);
  void sendByes();
  void sendAborts();

  Bootstrap &bootstrap_;
  net::Fd listener_;
  std::string listenAt_;
  std::string nonce_;
  net::Fd wakeFd_;
  std::thread proxy_;
  std::atomic<bool> stop_{false};

  /// Guards everything the proxy and connect() share.
  std::mutex mutex_;
  std::condition_variable changed_;
  /// Rank 0's nonce: hellos must carry it. Empty until the first connect.
  std::string runId_;
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<Peer>> peers_;
  struct Pending {
    net::Fd fd;
    std::string from;
    std::string bytes;
  };
  std::vector<Pending> pending_;
  uint32_t generation_ = 0;
  std::vector<std::string> connectedSpecs_;

  /// Per peer: why it failed ("" = fine); read by any thread under
  /// failureMutex_.
  std::mutex failureMutex_;
  std::vector<std::string> failures_;
  std::atomic<bool> anyFailure_{false};

  // The connected spec (replaced only by connect, while no channel thread
  // runs).
  ConnectionSpec spec_;
  std::map<ConnectionKey, std::unique_ptr<SendConnection>> sends_;
  std::map<ConnectionKey, std::unique_ptr<RecvConnection>> recvs_;

  std::atomic<bool> aborted_{false};
  mutable std::mutex abortMutex_;
  std::string abortReason_;
  transport::MemoryRegistry memory_;
};

} // namespace tcp
} // namespace collrt

#endif
