//===- EnvironmentCommunicator.cpp - a rank of a multi-process world ------===//
//
// createFromEnvironment: the launcher's environment (Bootstrap.h's
// detectLaunch), the TCP rendezvous, then the transport CommOptions names:
// shm, tcp, ib, or auto (shm when every rank reported the same host, tcp
// otherwise; never ib, which must be asked for).
//
//===----------------------------------------------------------------------===//
#include "runtime/exec/TransportCommunicator.h"

#include "collrt/Bootstrap.h"

#include <cstdlib>

namespace collrt {

/// "shm", "tcp" or "ib" for CommOptions::transport (after "auto" is
/// resolved); InvalidArgument naming the valid names for anything else.
/// "auto" never chooses ib: RDMA is used only when asked for.
static Status chooseTransport(const std::string &requested,
                              const Bootstrap *bootstrap, std::string *kind) {
  if (requested == "shm" || requested == "tcp" || requested == "ib") {
    *kind = requested;
    return Status::success();
  }
  if (requested != "auto")
    return Status(ErrorCode::InvalidArgument,
                  "CommOptions::transport = \"" + requested +
                      "\" is not a transport; the valid ones are \"auto\", "
                      "\"shm\", \"tcp\" and \"ib\"");
  if (!bootstrap)
    return Status::success();
  const std::vector<std::string> &hosts = bootstrap->hosts();
  bool oneHost = true;
  for (const std::string &host : hosts)
    oneHost = oneHost && host == hosts.front();
  *kind = oneHost ? "shm" : "tcp";
  return Status::success();
}

/// The ib options apply to the ib transport only: set with another one
/// they would be ignored, so they are refused.
static Status checkIbOptions(const CommOptions &options) {
  if (options.topologyRank < -1)
    return Status(
        ErrorCode::InvalidArgument,
        "CommOptions::topologyRank = " + std::to_string(options.topologyRank) +
            " must be a rank of the topology, or -1 for the world "
            "rank");
  if (options.topologyRank != -1 && options.topologyFile.empty())
    return Status(
        ErrorCode::InvalidArgument,
        "CommOptions::topologyRank = " + std::to_string(options.topologyRank) +
            " is a rank of CommOptions::topologyFile, which is not "
            "set");
  if (options.transport == "ib")
    return Status::success();
  const char *given = !options.ibDevice.empty()       ? "ibDevice"
                      : !options.topologyFile.empty() ? "topologyFile"
                      : options.topologyRank != -1    ? "topologyRank"
                                                      : nullptr;
  if (!given)
    return Status::success();
  return Status(ErrorCode::InvalidArgument,
                std::string("CommOptions::") + given +
                    " applies to the ib transport only, and "
                    "CommOptions::transport is \"" +
                    options.transport + "\"" +
                    (options.transport == "auto"
                         ? " (which never chooses ib): set transport = \"ib\""
                         : ""));
}

Status
Communicator::createFromEnvironment(const CommOptions &options,
                                    std::unique_ptr<Communicator> *comm) {
  comm->reset();
  if (Status s = exec::checkCommOptions(options); !s.ok())
    return s;
  std::string kind;
  // The name first: a typo is reported before any rendezvous.
  if (Status s = chooseTransport(options.transport, nullptr, &kind); !s.ok())
    return s;
  if (Status s = checkIbOptions(options); !s.ok())
    return s;

  LaunchInfo info;
  if (Status s = detectLaunch(
          [](const char *name) { return std::getenv(name); }, &info);
      !s.ok())
    return s;
  // Rendezvous and connection set-up share the watchdog's limit.
  Deadline deadline = Deadline::after(options.timeoutSeconds);
  std::unique_ptr<Bootstrap> bootstrap;
  if (Status s = createTcpBootstrap(info, deadline, &bootstrap); !s.ok())
    return s;
  if (Status s = chooseTransport(options.transport, bootstrap.get(), &kind);
      !s.ok())
    return s;

  std::unique_ptr<Transport> transport;
  Status s;
  if (kind == "shm") {
    s = createShmTransport(*bootstrap, &transport);
  } else if (kind == "tcp") {
    s = createTcpTransport(*bootstrap, options.interface, &transport);
  } else {
    IbTransportOptions ib;
    ib.device = options.ibDevice;
    ib.topologyFile = options.topologyFile;
    ib.topologyRank = options.topologyRank;
    ib.interface = options.interface;
    s = createIbTransport(*bootstrap, ib, &transport);
  }
  if (!s.ok()) {
    // The others are waiting in the same call: tell them why.
    bootstrap->announceFailure(s.message());
    return withContext(s, "rank " + std::to_string(info.rank) + ": the " +
                              kind + " transport" +
                              (options.transport == "auto"
                                   ? " (chosen by transport = \"auto\")"
                                   : ""));
  }
  *comm = std::make_unique<exec::TransportCommunicator>(
      std::move(bootstrap), nullptr, std::move(transport), options);
  return Status::success();
}

} // namespace collrt
