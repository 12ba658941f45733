//===- collrt.h - libcollrt's public interface ------------------*- C++ -*-===//
//
// libcollrt runs the plans collc writes. A program creates a communicator
// per rank (ranks as threads of one process, or one process per rank under
// a launcher), loads a plan, and runs its collectives on its own buffers:
//
//   collrt::Plan plan;
//   if (auto s = collrt::loadPlanFile("allreduce.plan.json", &plan); !s.ok())
//     die(s.toString());
//   std::unique_ptr<collrt::Communicator> comm;
//   collrt::CommOptions options;          // transport, timeout
//   if (auto s = collrt::Communicator::createFromEnvironment(options, &comm);
//       !s.ok())
//     die(s.toString());
//   s = comm->run(plan, 0, send, recv, count, collrt::DataType::F32,
//                 collrt::ReduceOp::Sum);
//
// Every failure is a Status (Status.h) whose message names what went wrong
// where: the watchdog's report lists, per channel, the step, chunk and peer
// it was waiting for.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_COLLRT_H
#define COLLRT_COLLRT_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Types.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collrt {

struct CommOptions {
  /// "shm", "tcp", "ib", or "auto": shm when every rank is on one host, tcp
  /// otherwise (collc-run prints which; auto never picks ib, which must be
  /// asked for). Ignored for in-process groups.
  std::string transport = "auto";
  /// For tcp: the local address to listen on; for ib: where the connection
  /// set-up socket listens ("" = the address that reached the master).
  std::string interface;
  /// ib only (IbTransportOptions::device): the RDMA device ("mlx5_0") or
  /// device and port ("mlx5_0:1"); "" = chosen by the GPU-NIC affinity of
  /// `topologyFile` when given, else the local rank modulo the host's
  /// active ports. Set with another transport, it is an InvalidArgument.
  std::string ibDevice;
  /// ib only (IbTransportOptions::topologyFile): a topology JSON file
  /// (docs/topology.md) whose GPU-NIC affinity picks this rank's NIC; "" =
  /// none.
  std::string topologyFile;
  /// ib only, with `topologyFile` (IbTransportOptions::topologyRank): this
  /// rank's GPU in the topology; -1 = the world rank.
  int32_t topologyRank = -1;
  /// The watchdog: a collective (or the connection set-up) that does not
  /// finish within this many seconds fails with a report of what every
  /// channel waits for.
  double timeoutSeconds = 60;
  /// The largest message a connection slot holds; the executor cuts the
  /// schedule's chunks into tiles that fit (docs/runtime.md).
  size_t slotBytes = 1 << 20;
  /// Threads that run a rank's channels; a thread with several channels
  /// switches between them when one waits (docs/runtime.md, "Threads and
  /// fibers"). 0 = the cores this process may use divided by the ranks of
  /// the world on this host (the in-process group: all of them), at least
  /// 1; Communicator::channelThreads() says what it came to. A run never
  /// uses more threads than it has channels with instructions.
  int32_t channelThreads = 0;
  /// Record what every instruction of a run did and when (TraceEvent), for
  /// Communicator::lastTrace(). Off by default: recording costs two clock
  /// reads per instruction and tile.
  bool trace = false;
};

/// One instruction of one tile as a rank ran it (CommOptions::trace).
/// Times are seconds from the start of the run (Communicator::run).
struct TraceEvent {
  int32_t rank = 0; ///< world rank
  uint32_t channel = 0;
  uint64_t tile = 0;
  uint32_t instruction = 0; ///< index in the channel's stream
  int32_t step = 0;
  /// opcodeName(): "send", "recv", "copy", "reduce", "recv_reduce_send"...
  const char *opcode = "";
  int32_t sendPeer = -1, recvPeer = -1; ///< group ranks, -1 for none
  /// Payload of this tile: the elements of its chunks' slices x the element
  /// size.
  int64_t bytes = 0;
  double start = 0; ///< when the instruction began (its waits included)
  double end = 0;   ///< when it completed
  /// Of end - start, the time spent waiting: for the instructions it
  /// depends on, a message, a free slot.
  double waited = 0;
};

/// Elements of the output buffer of `collective` for `count` input elements
/// per rank on group rank `groupRank` (what recvbuf must hold). For an
/// all_to_all_v whose counts are given at run time, `sendCounts` is the
/// N x N matrix run() gets (0 without it).
int64_t outputElements(const PlanCollective &collective, int32_t groupRank,
                       int64_t count, const int64_t *sendCounts = nullptr);

/// Host memory that the other processes of this host can map: `bytes`
/// (> 0) bytes, page-aligned, readable and writable like malloc's, backed
/// by a memfd (Linux). A message that the shm transport leaves in the
/// sender's memory (single copy) is read by its receiver with memcpy from
/// its own mapping of such a buffer, mapped once and kept, instead of with
/// process_vm_readv, which pins the sender's pages on every call
/// (docs/transports.md, "Host buffers"); other memory works as before.
/// Like NCCL's ncclMemAlloc or MPI_Win_allocate_shared: a program that
/// allocates its send buffers here lets its peers copy them at memcpy's
/// rate. SystemError when the system refuses (no memfd_create, no memory).
Status allocateHostBuffer(size_t bytes, void **buffer);
/// Frees a buffer of allocateHostBuffer (nullptr: nothing to do). Peers
/// that mapped it drop their mappings the next time they look one up.
/// InvalidArgument for any other address. Not while a collective that uses
/// it runs.
Status freeHostBuffer(void *buffer);

class Transport;

class Communicator {
public:
  virtual ~Communicator() = default;

  /// `worldSize` ranks as threads of this process: one communicator per
  /// rank, each to be used by one thread.
  static Status
  createInProcessGroup(int32_t worldSize, const CommOptions &options,
                       std::vector<std::unique_ptr<Communicator>> *comms);

  /// One rank of a multi-process world, from the launcher's environment
  /// (see Bootstrap.h: torchrun, mpirun, Slurm, COLLC_*).
  static Status createFromEnvironment(const CommOptions &options,
                                      std::unique_ptr<Communicator> *comm);

  virtual int32_t rank() const = 0;
  virtual int32_t worldSize() const = 0;
  /// "in-process", "shm", "tcp", "ib".
  virtual const char *transportName() const = 0;
  /// One line for a person saying what this rank's transport uses
  /// (Transport::describe(): tcp its interface and address, ib its RDMA
  /// device, port, NUMA node and why that NIC); the transport's name where
  /// it has nothing more to say.
  virtual std::string describeTransport() const { return transportName(); }
  /// The threads that run this rank's channels (CommOptions::channelThreads
  /// with 0 resolved).
  virtual int32_t channelThreads() const = 0;
  /// With CommOptions::trace: every instruction of this rank's last run
  /// (by channel, then in order); empty otherwise.
  virtual std::vector<TraceEvent> lastTrace() const = 0;

  /// Runs collective `index` of `plan` on this rank's buffers: `sendbuf`
  /// holds `count` elements (the input buffer; for all_to_all_v the send
  /// counts fix the sizes and `count` must be this rank's row sum),
  /// `recvbuf` outputElements(...) elements. `dtype` and `op` must be the
  /// plan's (PlanMismatch otherwise). Collective: every rank of the world
  /// calls it. A rank outside every group of the collective returns at
  /// once.
  ///
  /// `sendCounts`: for an all_to_all_v whose plan gives its counts at run
  /// time (sendCountsAtRunTime, `"send_counts": null`), the N x N element
  /// counts of this run, row-major by sender (entry s * N + r: group rank
  /// s to group rank r), the same on every rank of the world (a MoE layer
  /// all-gathers them first). Read during the run, never copied; they may
  /// change from run to run (the connections stay: they do not depend on
  /// the counts). nullptr for every other collective. InvalidArgument when
  /// missing or negative (naming the rank and the entry), PlanMismatch when
  /// given for a plan that fixes its counts or when `count` is not this
  /// rank's row sum.
  virtual Status run(const Plan &plan, size_t index, const void *sendbuf,
                     void *recvbuf, int64_t count, DataType dtype, ReduceOp op,
                     const int64_t *sendCounts = nullptr) = 0;

  /// Stops this rank: a run in progress on another thread fails soon after,
  /// and so do the peers' runs (they see a PeerFailure naming this rank and
  /// `reason`). Callable from any thread; the communicator cannot run again.
  /// A run that fails (timeout, peer failure, a message that does not fit
  /// the plan) aborts its communicator the same way.
  virtual void abort(const std::string &reason) = 0;

  /// Collective: returns when every rank of the world called finalize (or
  /// destroyed its communicator), so that the last collective's messages
  /// reached their receivers before any process exits (a tcp send is in
  /// flight until the transport's proxy thread wrote it). Fails with
  /// Timeout after CommOptions::timeoutSeconds, naming the ranks that never
  /// arrived. Returns at once for in-process groups and for a communicator
  /// that failed or was aborted. run() is refused afterwards. The
  /// destructor calls it when the program did not; call it explicitly
  /// before exit() (which skips destructors) and to see its Status.
  virtual Status finalize() = 0;
};

} // namespace collrt

#endif
