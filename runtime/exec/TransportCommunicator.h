//===- TransportCommunicator.h - a Communicator on a Transport --*- C++ -*-===//
//
// The one implementation of collrt.h's Communicator: a rank's transport
// (in-process, shm, tcp or ib), the bootstrap it was set up with (multi-process
// worlds), and the executor's state kept between runs.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_TRANSPORTCOMMUNICATOR_H
#define COLLRT_EXEC_TRANSPORTCOMMUNICATOR_H

#include "collrt/Transport.h"
#include "collrt/collrt.h"
#include "runtime/exec/Executor.h"

#include <memory>
#include <mutex>

namespace collrt {
namespace exec {

/// InvalidArgument unless 0 < timeoutSeconds <= 1e9, slotBytes >= 1 and
/// 0 <= channelThreads <= 1024.
Status checkCommOptions(const CommOptions &options);

class TransportCommunicator final : public Communicator {
public:
  /// `bootstrap` (may be null) outlives `transport`; `fabric` (may be null)
  /// keeps an in-process world alive.
  TransportCommunicator(std::unique_ptr<Bootstrap> bootstrap,
                        std::shared_ptr<InProcessFabric> fabric,
                        std::unique_ptr<Transport> transport,
                        const CommOptions &options);
  ~TransportCommunicator() override;

  int32_t rank() const override;
  int32_t worldSize() const override;
  const char *transportName() const override;
  std::string describeTransport() const override;
  int32_t channelThreads() const override { return channelThreads_; }
  std::vector<TraceEvent> lastTrace() const override;
  Status run(const Plan &plan, size_t index, const void *sendbuf, void *recvbuf,
             int64_t count, DataType dtype, ReduceOp op,
             const int64_t *sendCounts = nullptr) override;
  void abort(const std::string &reason) override;
  Status finalize() override;

private:
  bool finalized_ = false;
  std::unique_ptr<Bootstrap> bootstrap_;
  std::shared_ptr<InProcessFabric> fabric_;
  std::unique_ptr<Transport> transport_;
  CommOptions options_;
  int32_t channelThreads_ = 1;
  /// Held by run() for its whole length: abort() joins the channel threads
  /// only when no run is using them (a run that the abort stops joins them
  /// itself, as every failed run does).
  std::mutex runMutex_;
  ExecutorState state_;
};

} // namespace exec
} // namespace collrt

#endif
