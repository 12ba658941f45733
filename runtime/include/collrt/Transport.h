//===- Transport.h - how bytes move between ranks ---------------*- C++ -*-===//
//
// One interface for every way ranks talk: threads of one process
// (in-process), processes of one host (shared memory), hosts (TCP or
// ibverbs), and later CUDA P2P/IPC. Executors never know which one is
// underneath.
//
// The model is the schedule's (common/Program/Program.h): a
// connection (sender, receiver, channel) is a FIFO of messages holding at
// most `slots` messages that the receiver has not yet released; each message
// is at most `slotBytes` bytes. A send that finds every slot taken does not
// block: trySend says so and the caller retries (its watchdog decides how
// long). Messages arrive whole and in order.
//
// Transports that need one run a proxy thread that moves data and watches
// the peers; none calls back into the executor.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_H
#define COLLRT_TRANSPORT_H

#include "collrt/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collrt {

/// One end of a connection, seen from the local rank: the peer (a world
/// rank) and the channel.
struct ConnectionKey {
  int32_t peer = -1;
  uint32_t channel = 0;
  bool operator==(const ConnectionKey &o) const {
    return peer == o.peer && channel == o.channel;
  }
  bool operator<(const ConnectionKey &o) const {
    return peer != o.peer ? peer < o.peer : channel < o.channel;
  }
};

/// Every connection the local rank uses, in both directions.
struct ConnectionSpec {
  std::vector<ConnectionKey> sendTo;
  std::vector<ConnectionKey> recvFrom;
  /// Messages a connection holds before trySend reports it full (>= 1).
  uint32_t slots = 8;
  /// The largest message, in bytes (>= 1).
  size_t slotBytes = 1 << 20;
};

/// A piece of a message for trySendParts: `bytes` bytes at `data`, in this
/// process.
struct MessagePart {
  const void *data = nullptr;
  size_t bytes = 0;
};

/// Memory registered with a transport (for put/zero-copy paths; the CPU
/// transports only record it).
struct MemoryRegion {
  void *base = nullptr;
  size_t bytes = 0;
  uint64_t key = 0;
};

class Transport {
public:
  virtual ~Transport() = default;

  /// "in-process", "shm", "tcp", "ib".
  virtual const char *name() const = 0;
  /// What this rank's end uses, for a person: "tcp: rank 2 listens on
  /// 10.0.0.3 (eth0, ...)"; "ib: rank 3 uses mlx5_3 port 1 (NUMA 0, ...):
  /// <why that NIC>". The transport's name where there is nothing to add.
  virtual std::string describe() const { return name(); }
  virtual int32_t rank() const = 0;
  virtual int32_t worldSize() const = 0;

  /// Sets up the connections of `spec`. Collective: every rank of the world
  /// calls it (with its own spec; a rank with no connections passes an
  /// empty one), and it returns when both ends of every connection exist,
  /// or fails at `deadline` naming the peers that never connected. The
  /// specs must agree (A sends to B on channel c iff B receives from A on
  /// c, with equal slots and slotBytes); a mismatch fails every rank. A
  /// transport may be connected again with a new spec after the previous
  /// one's messages were all released.
  virtual Status connect(const ConnectionSpec &spec, Deadline deadline) = 0;

  virtual Status registerMemory(void *base, size_t bytes,
                                MemoryRegion *region) = 0;
  virtual Status deregisterMemory(const MemoryRegion &region) = 0;

  /// Copies `bytes` (<= slotBytes) from `data` into a free slot of the
  /// connection to `to`; the caller may reuse `data` on return. Sets
  /// *posted to false, copying nothing, when every slot is taken.
  virtual Status trySend(const ConnectionKey &to, const void *data,
                         size_t bytes, bool *posted) = 0;

  /// The oldest message from `from` that is not yet released: on arrival
  /// sets *ready, *data (valid until releaseRecv) and *bytes; otherwise
  /// *ready = false. Calling it again before releaseRecv returns the same
  /// message.
  virtual Status tryRecv(const ConnectionKey &from, const void **data,
                         size_t *bytes, bool *ready) = 0;

  /// Frees the slot of the message tryRecv returned last on `from`, which
  /// lets the sender reuse it.
  virtual Status releaseRecv(const ConnectionKey &from) = 0;

  // Single copy. A transport that can read the sender's memory (in-process,
  // whose ranks share it; shm with cross-memory attach or host buffers,
  // docs/transports.md) may move a large message once, from the sender's
  // buffers straight into the receiver's, instead of into a slot and out
  // of it. These calls have defaults that copy as
  // trySend and tryRecv do, so every transport implements them and a
  // caller need not know which one it has.

  /// trySend of the concatenation of `parts` (count >= 1, at most slotBytes
  /// in all). With `stable`, the caller promises that parts[1..count) stay
  /// unchanged until flushSends() returns: the transport may then leave
  /// them where they are for the receiver to copy (parts[0], a header, is
  /// always copied). Default: gathers the parts and calls trySend.
  virtual Status trySendParts(const ConnectionKey &to, const MessagePart *parts,
                              size_t count, bool stable, bool *posted);

  /// Returns when every receiver has read the parts this rank sent with
  /// `stable` (so that they may change again): a rank calls it before its
  /// buffers go back to its caller. PeerFailure, Timeout at `deadline`, or
  /// the abort's error. Default: at once.
  virtual Status flushSends(Deadline deadline);

  /// tryRecv that leaves in the sender's memory what is still there: on
  /// arrival *data holds the message's first *inlineBytes bytes (at least
  /// the sender's parts[0]) and *bytes is the whole message's size;
  /// readRecv copies any range of it. Default: tryRecv (*inlineBytes =
  /// *bytes). tryRecv itself always returns the whole message (fetching
  /// what the sender left in place).
  virtual Status tryRecvPrefix(const ConnectionKey &from, const void **data,
                               size_t *inlineBytes, size_t *bytes, bool *ready);

  /// Copies bytes [offset, offset + bytes) of the message tryRecv or
  /// tryRecvPrefix returned last on `from` (not yet released) to `dst`:
  /// the single copy when the sender left them in place. Default: memcpy
  /// from tryRecv's data.
  virtual Status readRecv(const ConnectionKey &from, size_t offset, void *dst,
                          size_t bytes);

  /// Points *data at bytes [offset, offset + bytes) of the message
  /// tryRecv or tryRecvPrefix returned last on `from` (not yet released),
  /// valid until releaseRecv, without copying them where the transport can:
  /// into its slot, or (shm) into this rank's mapping of the sender's host
  /// buffer (docs/transports.md, "Host buffers"). Where it cannot, the
  /// message is fetched whole, as tryRecv does. Default: into tryRecv's
  /// message.
  virtual Status viewRecv(const ConnectionKey &from, size_t offset,
                          size_t bytes, const void **data);

  /// PeerFailure naming the peer when a peer died or hung up; checked by
  /// waiting callers between polls.
  virtual Status checkPeers() = 0;

  /// Wakes and fails every later call (used when another rank or thread
  /// already failed); idempotent, callable from any thread. The peers
  /// learn it: their calls report PeerFailure naming this rank and
  /// `reason` (shm and tcp also announce it through the bootstrap).
  virtual void abort(const std::string &reason) = 0;
};

/// A shared fabric for ranks that are threads of one process: create one
/// for the world, then one transport per rank (each used by that rank's
/// threads).
class InProcessFabric;
std::shared_ptr<InProcessFabric> createInProcessFabric(int32_t worldSize);
std::unique_ptr<Transport>
createInProcessTransport(std::shared_ptr<InProcessFabric> fabric, int32_t rank);

class Bootstrap;

/// Processes of one host: connections are rings of slots in POSIX shared
/// memory, set up through `bootstrap` (which stays owned by the caller and
/// must outlive the transport). Collective over the world (every rank
/// creates its transport at the same time): the ranks probe whether they
/// can read each other's memory for single copy (COLLC_SHM_SINGLE_COPY,
/// docs/transports.md), which describe() then reports.
Status createShmTransport(Bootstrap &bootstrap,
                          std::unique_ptr<Transport> *transport);

/// Processes anywhere: the net transport protocol (runtime/net/Net.h's
/// interface, credits, a proxy thread doing all I/O) over TCP sockets, one
/// connection each way per peer pair carrying every channel; addresses are
/// exchanged through `bootstrap` at connect. `interface` picks the local
/// address to listen on: "" = the address the bootstrap reached the master
/// from, else a network interface's name ("eth0") or an address or host
/// name (docs/transports.md).
Status createTcpTransport(Bootstrap &bootstrap, const std::string &interface,
                          std::unique_ptr<Transport> *transport);

/// Options of the ib transport; every default is documented in
/// docs/transports.md and what was chosen is in describe().
struct IbTransportOptions {
  /// The RDMA device ("mlx5_0") or device and port ("mlx5_0:1"); "" =
  /// chosen by the topology's GPU-NIC affinity when `topologyFile` is
  /// given, else the local rank modulo the active ports.
  std::string device;
  /// A topology JSON file (docs/topology.md) whose NICs the choice follows;
  /// "" = none.
  std::string topologyFile;
  /// This rank's GPU in the topology; -1 = the world rank.
  int32_t topologyRank = -1;
  /// Where the connection set-up listens (as createTcpTransport's
  /// `interface`): "" = the address that reached the bootstrap's master.
  std::string interface;
  /// RoCE GID index; -1 = the first RoCE v2 GID with an IPv4 address.
  int32_t gidIndex = -1;
  /// The library dlopen()ed; "" = "libibverbs.so.1".
  std::string library;
};

/// Hosts with RDMA NICs: the tcp transport's protocol over ibverbs
/// (reliable-connected queue pairs, RDMA writes with immediate), connection
/// details exchanged through `bootstrap`. libibverbs is loaded at run time;
/// where it is missing or finds no device with an active port, this fails
/// with Unsupported saying so and naming the tcp transport (there is no
/// fallback).
Status createIbTransport(Bootstrap &bootstrap,
                         const IbTransportOptions &options,
                         std::unique_ptr<Transport> *transport);

} // namespace collrt

#endif
