//===- DetectLaunch.cpp - rank and rendezvous from the launcher's env -----===//
//
// Conventions, in order of precedence (the first whose rank or world-size
// variable is set wins; docs/transports.md):
//   collc     COLLC_RANK            COLLC_WORLD_SIZE  COLLC_LOCAL_RANK
//   torchrun  RANK                  WORLD_SIZE        LOCAL_RANK
//   mpirun    OMPI_COMM_WORLD_RANK  OMPI_COMM_WORLD_SIZE
//                                   OMPI_COMM_WORLD_LOCAL_RANK
//   slurm     SLURM_PROCID          SLURM_NTASKS      SLURM_LOCALID
// The rendezvous: COLLC_MASTER_ADDR (else MASTER_ADDR) and
// COLLC_MASTER_PORT (else MASTER_PORT). COLLC_HOST_NAME, when set, is the
// host name this rank reports instead of gethostname() (so that processes
// of one machine can be run as if on several hosts: tests, and the GPU
// backend's network connections on a machine with one GPU).
//
//===----------------------------------------------------------------------===//
#include "collrt/Bootstrap.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace collrt {

namespace {

struct Convention {
  const char *launcher;
  const char *rank;
  const char *size;
  const char *localRank;
};

const Convention kConventions[] = {
    {"collc", "COLLC_RANK", "COLLC_WORLD_SIZE", "COLLC_LOCAL_RANK"},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

Status envError(const std::string &message) {
  return Status(ErrorCode::Bootstrap, message);
}

/// Parses a whole decimal integer in [min, max]; errors name the variable.
Status parseInt(const EnvLookup &env, const char *name,
                const std::string &missing, int64_t min, int64_t max,
                int32_t *value) {
  const char *text = env(name);
  if (!text)
    return envError(std::string(name) + " is not set" + missing);
  std::string s(text);
  size_t start = s.find_first_not_of(" \t");
  size_t end = s.find_last_not_of(" \t");
  std::string trimmed =
      start == std::string::npos ? "" : s.substr(start, end - start + 1);
  char *stop = nullptr;
  errno = 0;
  long long v = trimmed.empty() ? 0 : std::strtoll(trimmed.c_str(), &stop, 10);
  if (trimmed.empty() || *stop != '\0' || errno == ERANGE)
    return envError(std::string(name) + "='" + s + "' is not an integer");
  if (v < min || v > max)
    return envError(std::string(name) + "=" + trimmed + " is outside " +
                    std::to_string(min) + ".." + std::to_string(max));
  *value = static_cast<int32_t>(v);
  return Status::success();
}

} // namespace

Status detectLaunch(const EnvLookup &env, LaunchInfo *info) {
  const Convention *found = nullptr;
  for (const Convention &c : kConventions)
    if (env(c.rank) || env(c.size)) {
      found = &c;
      break;
    }
  if (!found)
    return envError(
        "no launcher environment found: set COLLC_RANK, COLLC_WORLD_SIZE and "
        "COLLC_LOCAL_RANK, or start the ranks with torchrun (RANK, "
        "WORLD_SIZE, LOCAL_RANK), mpirun (OMPI_COMM_WORLD_RANK, ...) or srun "
        "(SLURM_PROCID, ...)");
  LaunchInfo result;
  result.launcher = found->launcher;
  const std::string missing =
      std::string(" (") + (env(found->rank) ? found->rank : found->size) +
      " is set, so the " + found->launcher + " convention is used; it needs " +
      found->rank + ", " + found->size + " and " + found->localRank + ")";
  const int64_t kMaxRanks = 1 << 24;
  if (Status s =
          parseInt(env, found->size, missing, 1, kMaxRanks, &result.worldSize);
      !s.ok())
    return s;
  if (Status s =
          parseInt(env, found->rank, missing, 0, kMaxRanks, &result.rank);
      !s.ok())
    return s;
  if (result.rank >= result.worldSize)
    return envError(std::string(found->rank) + "=" +
                    std::to_string(result.rank) + " is not below " +
                    found->size + "=" + std::to_string(result.worldSize));
  if (Status s = parseInt(env, found->localRank, missing, 0, kMaxRanks,
                          &result.localRank);
      !s.ok())
    return s;
  if (result.localRank >= result.worldSize)
    return envError(std::string(found->localRank) + "=" +
                    std::to_string(result.localRank) + " is not below " +
                    found->size + "=" + std::to_string(result.worldSize));

  const char *addrName = env("COLLC_MASTER_ADDR") ? "COLLC_MASTER_ADDR"
                         : env("MASTER_ADDR")     ? "MASTER_ADDR"
                                                  : nullptr;
  const char *portName = env("COLLC_MASTER_PORT") ? "COLLC_MASTER_PORT"
                         : env("MASTER_PORT")     ? "MASTER_PORT"
                                                  : nullptr;
  std::string hint = result.launcher == "mpirun"
                         ? " (Open MPI sets no rendezvous address: pass -x "
                           "MASTER_ADDR=<rank 0's host> -x MASTER_PORT=<port> "
                           "to mpirun)"
                         : "";
  if (!addrName)
    return envError("the rendezvous address is not set: set "
                    "COLLC_MASTER_ADDR or MASTER_ADDR to rank 0's host" +
                    hint);
  if (!portName)
    return envError("the rendezvous port is not set: set COLLC_MASTER_PORT or "
                    "MASTER_PORT to a free TCP port on rank 0's host" +
                    hint);
  result.masterAddr = env(addrName);
  if (result.masterAddr.empty())
    return envError(std::string(addrName) + " is empty");
  if (Status s = parseInt(env, portName, "", 1, 65535, &result.masterPort);
      !s.ok())
    return s;
  if (const char *host = env("COLLC_HOST_NAME")) {
    result.hostName = host;
    if (result.hostName.empty() ||
        result.hostName.find_first_of(" \t\n") != std::string::npos)
      return envError("COLLC_HOST_NAME='" + result.hostName +
                      "' must be a non-empty name without spaces");
  }
  *info = std::move(result);
  return Status::success();
}

} // namespace collrt
