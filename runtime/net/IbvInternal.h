//===- IbvInternal.h - IbvNet's devices, queue pairs and comms --*- C++ -*-===//
//
// Internal to CollRtNet; only built with <infiniband/verbs.h>.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_IBVINTERNAL_H
#define COLLRT_NET_IBVINTERNAL_H

#include "IbvWrap.h"
#include "Net.h"

#include "bootstrap/Socket.h"

#include <mutex>
#include <string>
#include <vector>

#if COLLRT_HAVE_VERBS_H

namespace collrt {
namespace net {
namespace ibv {

/// An opened RDMA device, shared by the Net devices of its ports and the
/// connections on them.
class Context {
public:
  Context(std::shared_ptr<const IbvApi> api, ibv_context *context,
          std::string name, const ibv_device_attr &attr);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  const IbvApi &api() const { return *api_; }
  ibv_context *get() const { return context_; }
  const std::string &name() const { return name_; }
  const ibv_device_attr &attr() const { return attr_; }

  /// The protection domain and the completion channel, made on first use.
  Status protectionDomain(ibv_pd **pd);
  Status completionChannel(ibv_comp_channel **channel);
  /// Reads and acknowledges every pending completion event (non-blocking),
  /// so that the channel's descriptor only wakes a poll() for new ones.
  void drainEvents();

private:
  std::shared_ptr<const IbvApi> api_;
  ibv_context *context_;
  std::string name_;
  ibv_device_attr attr_;
  std::mutex mutex_;
  ibv_pd *pd_ = nullptr;
  ibv_comp_channel *channel_ = nullptr;
};

/// One Net device: an active port of a device.
struct Port {
  std::shared_ptr<Context> context;
  uint8_t number = 1;
  ibv_port_attr attr{};
  int gidIndex = 0;
  ibv_gid gid{};
  NetDeviceInfo info;
};

/// One clear-to-send entry: where the receive of sequence number seq
/// waits. 64 bytes in host byte order (both ends must share it).
struct FifoEntry {
  uint64_t addr;
  uint64_t capacity;
  uint64_t tag;
  uint32_t rkey;
  uint32_t reserved;
  /// seq + 1, so that a zeroed entry is never valid.
  uint64_t seqPlusOne;
  uint64_t padding[3];
};
static_assert(sizeof(FifoEntry) == 64, "one cache line per entry");

/// What the two ends of a connection tell each other over the set-up
/// socket (big-endian on the wire).
struct QpInfo {
  uint32_t lid = 0;
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint32_t mtu = 0;
  uint32_t linkLayer = 0;
  /// Connector only: receives the receiving end may have outstanding, and
  /// its clear-to-send ring.
  uint32_t depth = 0;
  uint32_t fifoRkey = 0;
  uint64_t fifoAddr = 0;
  uint8_t gid[16] = {};
  std::string nonce;
};
constexpr size_t kQpInfoBytes = 96;
std::string encodeQpInfo(const QpInfo &info);
bool decodeQpInfo(const char *bytes, QpInfo *info);

/// Memory registered with ibv_reg_mr / ibv_reg_dmabuf_mr.
class Memory final : public NetMemory {
public:
  Memory(std::shared_ptr<Context> context, ibv_mr *mr, void *base, size_t bytes,
         NetMemoryKind kind)
      : NetMemory(base, bytes, kind), context_(std::move(context)), mr_(mr) {}
  ~Memory() override { (void)deregister(); }
  ibv_mr *mr() const { return mr_; }
  const Context &context() const { return *context_; }
  /// ibv_dereg_mr's error number, 0 on success.
  int deregister();

private:
  std::shared_ptr<Context> context_;
  ibv_mr *mr_;
};

/// Registers `bytes` at `data` on `port`'s protection domain.
Status registerMemory(const Port &port, void *data, size_t bytes,
                      NetMemoryKind kind, const std::string &what,
                      std::unique_ptr<Memory> *memory);

/// Starts a connection: the set-up socket is connected; creates the queue
/// pair and sends this end's details.
Status startConnect(const Port &port, Fd socket, std::string peer,
                    const std::string &nonce, uint32_t depth,
                    const std::string &what,
                    std::unique_ptr<NetConnecting> *connecting);

/// The accepting end of IbvNet::listen.
std::unique_ptr<NetListenComm> makeListenComm(const Port &port, Fd listener,
                                              std::string nonce,
                                              uint32_t maxDepth,
                                              std::string what);

} // namespace ibv
} // namespace net
} // namespace collrt

#endif

#endif
