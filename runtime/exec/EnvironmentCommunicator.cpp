//===- EnvironmentCommunicator.cpp - a rank of a multi-process world ------===//
#include "runtime/exec/TransportCommunicator.h"

namespace collrt {

Status
Communicator::createFromEnvironment(const CommOptions &options,
                                    std::unique_ptr<Communicator> *comm) {
  comm->reset();
  if (Status s = exec::checkCommOptions(options); !s.ok())
    return s;
  return Status(ErrorCode::Unsupported,
                "Communicator::createFromEnvironment: the shm and tcp "
                "transports for multi-process worlds are not built yet; use "
                "createInProcessGroup (ranks as threads)");
}

} // namespace collrt
