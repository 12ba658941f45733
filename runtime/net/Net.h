//===- Net.h - the network interface of tcp and ib --------------*- C++ -*-===//
//
// A point-to-point network in the shape of NCCL's net plugin API
// (ncclNet_v8): devices with their properties, listen/connect/accept giving
// one-way send and receive communicators, memory registration, and
// non-blocking tagged isend/irecv completed by test. The transport protocol
// (slots, credits, control messages, the proxy thread, peer failure;
// runtime/transport/NetTransport.h) is written once over this interface;
// SocketNet (TCP sockets) and IbvNet (ibverbs) implement it.
//
// Semantics every implementation keeps (and test/runtime/net checks):
// - Rendezvous: an isend is matched with a receive the peer posted. On one
//   connection, for each tag, the k-th isend that got a request matches the
//   k-th irecv of that tag. isend gives no request (*request = nullptr,
//   nothing sent, not an error) while the peer has no unmatched receive of
//   that tag: the caller tries again later. A receive therefore never has
//   to buffer a message nobody asked for.
// - irecv gives no request while `depth` receives of the connection are
//   outstanding (posted and not yet completed by test).
// - Data lies inside the registered memory passed with it and must stay
//   untouched until test says done (isend: the data left the buffer;
//   irecv: the message is in the buffer, *bytes says how long).
// - A message larger than the matched receive is an error of the sender.
// - A connection that fails (the peer hung up, a device error) makes every
//   later call on it fail with the reason; requests that completed before
//   still test as done.
// - One thread at a time per communicator; regMr may be called from any
//   thread. A Net outlives its communicators and registered memory.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_NET_H
#define COLLRT_NET_NET_H

#include "collrt/Status.h"

#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collrt {
namespace net {

/// What a device of a Net is (NCCL's ncclNetProperties).
struct NetDeviceInfo {
  /// "lo", "eth0" (sockets); "mlx5_0" (ibverbs).
  std::string name;
  /// ibverbs port number (1-based); 0 for sockets.
  int32_t port = 0;
  /// Sockets: the address listened on; ibverbs: link layer and address
  /// ("InfiniBand LID 12", "Ethernet (RoCE) GID index 3").
  std::string address;
  /// Link speed in Mbit/s; 0 = unknown.
  double speedMbps = 0;
  /// The device's PCI path in sysfs; "" = unknown (e.g. loopback).
  std::string pciPath;
  /// NUMA node of the device; -1 = unknown.
  int32_t numa = -1;
  /// Whether GPU memory can be registered (GPUDirect RDMA); true for
  /// ibverbs (it needs nvidia-peermem or dma-buf at run time), false for
  /// sockets.
  bool deviceMemory = false;
  /// The most outstanding receives a connection may be created with.
  uint32_t maxDepth = 0;
  /// The largest message, in bytes.
  size_t maxMessageBytes = 0;

  /// "mlx5_0 port 1 (InfiniBand LID 12, 400000 Mbit/s, NUMA 0, PCI
  /// /sys/devices/...)"; unknown figures are left out.
  std::string describe() const;
};

enum class NetMemoryKind { Host, Device };

/// Memory registered with a Net device (NCCL's mhandle). Deregistered by
/// Net::deregMr or when destroyed.
class NetMemory {
public:
  virtual ~NetMemory() = default;
  void *base() const { return base_; }
  size_t bytes() const { return bytes_; }
  NetMemoryKind kind() const { return kind_; }
  /// Whether [data, data + bytes) lies inside this region.
  bool contains(const void *data, size_t bytes) const;

protected:
  NetMemory(void *base, size_t bytes, NetMemoryKind kind)
      : base_(base), bytes_(bytes), kind_(kind) {}

private:
  void *base_;
  size_t bytes_;
  NetMemoryKind kind_;
};

/// An operation in progress; owned by its communicator and invalid once
/// test reported it done.
struct NetRequest {
  virtual ~NetRequest() = default;
};

/// Both kinds of communicator.
class NetComm {
public:
  virtual ~NetComm() = default;
  /// Moves data without blocking; the connection's failure, if any.
  virtual Status progress() = 0;
  /// *done once `request` completed (and *bytes its size); the request is
  /// then released. Fails with the connection's error only for requests
  /// that had not completed when it failed.
  virtual Status test(NetRequest *request, bool *done, size_t *bytes) = 0;
  /// Appends the descriptors a progress thread should wait on before the
  /// next progress() call; returns true when progress is possible now (do
  /// not sleep): a request completed, or a clear-to-send arrived, during a
  /// call made for something else, which no descriptor will announce.
  virtual bool pollFds(std::vector<pollfd> *fds) = 0;
  /// The peer's address, for messages.
  virtual const std::string &peerAddress() const = 0;
};

class NetSendComm : public NetComm {
public:
  /// See the file comment: *request = nullptr while the peer has posted no
  /// unmatched receive for `tag`.
  virtual Status isend(const void *data, size_t bytes, uint64_t tag,
                       NetMemory &memory, NetRequest **request) = 0;
};

class NetRecvComm : public NetComm {
public:
  /// Posts a receive of at most `capacity` bytes into `data` (inside
  /// `memory`) for the next message with `tag`; *request = nullptr while
  /// `depth` receives are outstanding.
  virtual Status irecv(void *data, size_t capacity, uint64_t tag,
                       NetMemory &memory, NetRequest **request) = 0;
  /// Outstanding receives allowed (the `depth` the sender connected with).
  virtual uint32_t depth() const = 0;
};

/// The accepting end: accept() hands out the connections whose set-up
/// finished; a connection that is not from this Net (a port scanner,
/// another run) is dropped.
class NetListenComm {
public:
  virtual ~NetListenComm() = default;
  /// Moves pending set-ups on; *comm stays null when none finished.
  virtual Status accept(std::unique_ptr<NetRecvComm> *comm) = 0;
  virtual bool pollFds(std::vector<pollfd> *fds) = 0;
};

/// A connection being set up: step() until *comm is set.
class NetConnecting {
public:
  virtual ~NetConnecting() = default;
  virtual Status step(std::unique_ptr<NetSendComm> *comm) = 0;
  virtual bool pollFds(std::vector<pollfd> *fds) = 0;
};

class Net {
public:
  virtual ~Net() = default;
  /// "socket", "ib".
  virtual const char *name() const = 0;
  virtual const std::vector<NetDeviceInfo> &devices() const = 0;

  /// Listens on device `dev`; *handle (printable, one line) tells a peer's
  /// connect where.
  virtual Status listen(int dev, std::string *handle,
                        std::unique_ptr<NetListenComm> *listen) = 0;
  /// Starts a connection to the listener of `handle`. The receive end will
  /// allow `depth` outstanding receives (1..maxDepth). Reaching the peer
  /// may wait until `deadline`; the rest of the set-up is step()ped.
  virtual Status connect(int dev, const std::string &handle, uint32_t depth,
                         Deadline deadline,
                         std::unique_ptr<NetConnecting> *connecting) = 0;

  /// Registers [data, data + bytes) of host or GPU memory for isend/irecv
  /// on device `dev`.
  virtual Status regMr(int dev, void *data, size_t bytes, NetMemoryKind kind,
                       std::unique_ptr<NetMemory> *memory) = 0;
  /// Registers GPU memory exported as a dma-buf (`fd`, `offset`); `data` is
  /// its address in this process.
  virtual Status regMrDmaBuf(int dev, void *data, size_t bytes, int fd,
                             uint64_t offset,
                             std::unique_ptr<NetMemory> *memory) = 0;
  /// Deregisters (NCCL's deregMr); destroying the object does the same but
  /// cannot report a failure.
  virtual Status deregMr(std::unique_ptr<NetMemory> memory) = 0;
};

/// Creates a SocketNet whose one device is the local address `host`
/// (listened on by listen()); `what` prefixes its messages ("tcp
/// transport, rank 3").
/// `deviceIsHost`: "GPU memory" is host memory (the device emulator,
/// runtime/device/Emulator.h), so regMr takes NetMemoryKind::Device and
/// the device says deviceMemory; never on a GPU. regMrDmaBuf then takes a
/// stand-in for a dma-buf: a file (a memfd) whose pages are the memory,
/// the exported range starting at the fd's file position (lseek SEEK_CUR),
/// and checks that it backs the memory as a NIC would: the mapping of
/// `data` (/proc/self/maps) is of that file at position + offset, else
/// InvalidArgument "dma-buf fd N does not back address 0x...: why".
/// Without it, regMrDmaBuf is Unsupported.
Status createSocketNet(const std::string &host, const std::string &what,
                       std::unique_ptr<Net> *net, bool deviceIsHost = false);

} // namespace net
} // namespace collrt

#endif
