//===- Bootstrap.h - who am I, and rendezvous with the others ---*- C++ -*-===//
//
// A rank learns its rank, the world size and its rank on the host from the
// environment its launcher set (torchrun, Open MPI's mpirun, Slurm, or
// COLLC_* variables), then meets the others over TCP at the master's address:
// rank 0 listens, every rank connects, and the bootstrap offers the small
// collective operations transports need to exchange connection details
// (all-gather of strings, barrier) plus failure detection of peers.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_BOOTSTRAP_H
#define COLLRT_BOOTSTRAP_H

#include "collrt/Status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collrt {

struct LaunchInfo {
  int32_t rank = -1;
  int32_t worldSize = 0;
  int32_t localRank = -1;
  /// Rendezvous: rank 0 listens on masterPort; all connect to masterAddr.
  std::string masterAddr;
  int32_t masterPort = 0;
  /// Which convention set the values: "torchrun", "mpirun", "slurm",
  /// "collc" (COLLC_RANK, ...), for messages.
  std::string launcher;
  /// The host name this rank reports (Bootstrap::hosts); "" = gethostname().
  /// Tests set it to make ranks of one machine look like several hosts.
  std::string hostName;
};

/// Reads an environment variable; nullptr when unset (getenv by default,
/// a map in tests).
using EnvLookup = std::function<const char *(const char *name)>;

/// Fills `info` from the environment. Precedence (documented in
/// docs/transports.md): COLLC_RANK/COLLC_WORLD_SIZE/COLLC_LOCAL_RANK, then
/// torchrun's RANK/WORLD_SIZE/LOCAL_RANK, then OMPI_COMM_WORLD_RANK/SIZE/
/// LOCAL_RANK, then SLURM_PROCID/NTASKS/LOCALID. The rendezvous address is
/// COLLC_MASTER_ADDR/PORT or MASTER_ADDR/MASTER_PORT; when none is set the
/// error says which variables to set (there is no hidden default). Partial
/// or inconsistent values (rank >= world size, a non-number) are
/// Bootstrap errors naming the variable.
Status detectLaunch(const EnvLookup &env, LaunchInfo *info);

class Bootstrap {
public:
  virtual ~Bootstrap() = default;
  virtual int32_t rank() const = 0;
  virtual int32_t worldSize() const = 0;
  virtual int32_t localRank() const = 0;
  /// The host name each rank reported, by rank (ranks with equal names
  /// share a host).
  virtual const std::vector<std::string> &hosts() const = 0;
  /// The local address this rank reached the master from.
  virtual const std::string &localAddress() const = 0;

  /// Every rank contributes `mine`; *all receives them by rank.
  virtual Status allGather(const std::string &mine,
                           std::vector<std::string> *all,
                           Deadline deadline) = 0;
  virtual Status barrier(Deadline deadline) = 0;
  /// Tells the others this rank is failing (they see PeerFailure naming it
  /// and `reason` on their next bootstrap call or checkPeers).
  virtual void announceFailure(const std::string &reason) = 0;
  /// PeerFailure when a peer announced a failure or its bootstrap
  /// connection dropped.
  virtual Status checkPeers() = 0;
};

/// Rendezvous over TCP at info.masterAddr:masterPort; fails at `deadline`
/// naming the ranks that never arrived.
Status createTcpBootstrap(const LaunchInfo &info, Deadline deadline,
                          std::unique_ptr<Bootstrap> *bootstrap);

} // namespace collrt

#endif
