//===- ChannelRunner.h - a channel's instructions, tile by tile -*- C++ -*-===//
//
// Each channel of a rank (on its own thread or as a fiber, Fibers.h) runs
// its instruction stream once per tile
// (docs/runtime.md): tile t of every chunk is its elements [t T, (t + 1) T),
// and an instruction's message in tile t is a header (tile, chunk count,
// the elements of every chunk's slice) followed by those slices.
// Waiting (for a message, a free slot, another channel's instruction) polls
// with a backoff and checks, between polls, whether another channel failed,
// the watchdog's deadline and the transport's peers. RunState is what the
// channels of one run share.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_CHANNELRUNNER_H
#define COLLRT_EXEC_CHANNELRUNNER_H

#include "collrt/collrt.h"
#include "runtime/exec/RunLayout.h"
#include "runtime/exec/Watchdog.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace collrt {
namespace exec {

class RunState {
public:
  RunState(const PlanCollective &collective, const RunLayout &layout,
           Transport &transport, Deadline deadline, double timeoutSeconds);

  const PlanCollective &collective;
  const collc::sched::Program &program;
  const RunLayout &layout;
  Transport &transport;
  const Deadline deadline;
  const double timeoutSeconds;

  /// The input (sendbuf or a private copy), output and scratch buffers.
  char *buffers[3] = {nullptr, nullptr, nullptr};
  /// Elements of each scratch chunk in each tile (chunk * tiles + tile), -1
  /// until written: data of any chunk may be staged in scratch, and chunks
  /// of one buffer differ by one element when the count does not divide
  /// evenly, so a scratch chunk's slices follow its writes. Per tile, so
  /// that a channel a tile ahead never changes what another channel reads
  /// (tiles only synchronize within a tile).
  std::unique_ptr<std::atomic<int64_t>[]> scratchSlices;
  /// Per channel: what it does (for the watchdog) and how many instructions
  /// it completed over all tiles (for dependencies, released on completion).
  std::unique_ptr<ChannelStatus[]> statuses;
  std::unique_ptr<std::atomic<uint64_t>[]> progress;
  /// With RunRequest::trace: where each channel records its TraceEvents
  /// (one vector per channel, written only by that channel), and the
  /// run's start, their time 0.
  std::vector<std::vector<TraceEvent>> *trace = nullptr;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  /// Records the first failure, with the report of every channel appended,
  /// and aborts the transport so that the other channels and ranks stop.
  /// Later failures (consequences of the abort) are dropped.
  void fail(const Status &status);
  /// The deadline passed: fails with Timeout and the report.
  void timeout();
  /// The recorded failure (ok when none).
  Status failure() const;

private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;
  Status failure_;
};

class ChannelRunner {
public:
  /// `staging` is the channel's message buffer (at least slotBytes).
  ChannelRunner(RunState &state, uint32_t channel,
                std::vector<uint64_t> &staging);

  /// Runs the stream for every tile; failures go to RunState::fail.
  void run();

private:
  struct Received {
    const char *message = nullptr; ///< header included
    size_t bytes = 0;
    const char *payload = nullptr; ///< after the header
  };

  Status runStream();
  Status waitForDependencies(const collc::sched::Instruction &in,
                             uint64_t tile);
  Status execute(const collc::sched::Instruction &in, uint64_t tile);

  /// Between two polls: another channel's failure, the deadline, the
  /// peers; then a pause.
  Status idle(class Backoff &backoff);
  /// Posts `bytes` at `data` to the instruction's send peer, waiting for a
  /// free slot (postParts of one part that may change after the call).
  Status post(const collc::sched::Instruction &in, const void *data,
              size_t bytes);
  /// post() of the concatenation of parts_ (the header in the staging
  /// buffer, then the slices where they are); `stable`: the slices do not
  /// change before the run ends (Transport::trySendParts).
  Status postParts(const collc::sched::Instruction &in, bool stable);
  /// Sends the slices of `range` in tile `tile` (counts_ holds their
  /// elements) behind a header: postParts, stable when
  /// RunLayout::stableSource says the slices stay as they are.
  Status postSlices(const collc::sched::Instruction &in, uint64_t tile,
                    const collc::sched::ChunkRange &range);
  /// Waits for the next message from the instruction's recv peer and checks
  /// its header against the tile and the chunks the instruction receives;
  /// fills counts_ with the elements of each chunk's slice.
  Status receive(const collc::sched::Instruction &in, uint64_t tile,
                 Received *message, bool prefixOnly = false);
  Status release(const collc::sched::Instruction &in);

  /// Writes a header for `range` (slices of counts_) into the staging
  /// buffer; returns the payload's start.
  char *writeHeader(uint64_t tile, const collc::sched::ChunkRange &range);
  /// Bytes of a message whose chunks' slices have counts_.
  size_t messageBytes() const;

  /// Elements of chunk `index`'s slice in `tile`: its elements [tile T,
  /// (tile + 1) T) for input and output chunks, what the last write of that
  /// tile left for scratch chunks.
  int64_t sliceElements(collc::sched::Buffer buffer, uint32_t index,
                        uint64_t tile) const;
  /// Where chunk `index`'s slice of `tile` starts.
  char *sliceData(collc::sched::Buffer buffer, uint32_t index,
                  uint64_t tile) const;
  /// Writing `elements` into chunk `j` of `dst` in `tile`: a scratch chunk
  /// takes them, an input or output chunk's slice must have that size.
  /// `source` says where they come from, for the error.
  Status setSlice(const collc::sched::ChunkRange &dst, uint32_t j,
                  uint64_t tile, int64_t elements, const char *source);
  /// counts_ = the slices of `range`'s chunks in `tile`.
  void loadCounts(const collc::sched::ChunkRange &range, uint64_t tile);
  /// Whether counts_ (a message's) equal the slices of `range` in `tile`.
  Status checkCounts(const collc::sched::Instruction &in,
                     const collc::sched::ChunkRange &range,
                     uint64_t tile) const;

  Status copy(const collc::sched::Instruction &in, uint64_t tile);
  Status reduce(const collc::sched::Instruction &in, uint64_t tile);
  Status recvStore(const collc::sched::Instruction &in, uint64_t tile,
                   bool forward);
  Status recvReduce(const collc::sched::Instruction &in, uint64_t tile);

  std::string where(uint64_t tile, uint32_t index) const;

  RunState &state_;
  const RunLayout &layout_;
  const uint32_t channel_;
  const std::vector<collc::sched::Instruction> &stream_;
  ChannelStatus &status_;
  std::vector<uint64_t> &staging_;
  /// A received message re-aligned when the transport's copy is not
  /// aligned to the element size.
  std::vector<uint64_t> aligned_;
  /// Elements of each chunk's slice in the message being built or read.
  std::vector<int64_t> counts_;
  /// The parts of a message being sent (postParts).
  std::vector<MessagePart> parts_;
  /// Messages sent to / received from each group rank on this channel.
  std::vector<uint64_t> sent_, received_;
  /// The instruction being executed (for error messages).
  uint32_t current_ = 0;
  /// With a trace: seconds the current instruction spent waiting so far.
  double waited_ = 0;
  /// Seconds since the run's start.
  double now() const;
  /// The payload of `in` in `tile` (its chunks' slices), after it ran.
  int64_t payloadBytes(const collc::sched::Instruction &in,
                       uint64_t tile) const;
  uint64_t currentTile_ = 0;
};

} // namespace exec
} // namespace collrt

#endif
