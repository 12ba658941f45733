//===- ChannelRunner.cpp - one channel's instruction stream, tile by tile -===//
#include "runtime/exec/ChannelRunner.h"

#include "runtime/exec/Backoff.h"
#include "runtime/exec/ElementKernels.h"
#include "runtime/exec/Fibers.h"

#include <cstring>
#include <exception>

namespace collrt {
namespace exec {

using collc::sched::Buffer;
using collc::sched::ChunkRange;
using collc::sched::Instruction;
using collc::sched::Opcode;

//===----------------------------------------------------------------------===//
// RunState
//===----------------------------------------------------------------------===//

RunState::RunState(const PlanCollective &collective, const RunLayout &layout,
                   Transport &transport, Deadline deadline,
                   double timeoutSeconds)
    : collective(collective), program(collective.program), layout(layout),
      transport(transport), deadline(deadline), timeoutSeconds(timeoutSeconds) {
  size_t channels = program.ranks[size_t(layout.groupRank)].channels.size();
  size_t slices = size_t(program.buffers.scratchChunks) * layout.tiles;
  scratchSlices.reset(new std::atomic<int64_t>[slices]);
  for (size_t i = 0; i < slices; ++i)
    scratchSlices[i].store(-1, std::memory_order_relaxed);
  statuses.reset(new ChannelStatus[channels]);
  progress.reset(new std::atomic<uint64_t>[channels]);
  for (size_t c = 0; c < channels; ++c)
    progress[c].store(0, std::memory_order_relaxed);
}

static std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

void RunState::fail(const Status &status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_.load(std::memory_order_relaxed))
    return;
  std::string report = channelReport(layout, program, statuses.get());
  failure_ =
      Status(status.code(), status.message() + "\nwhat each channel of rank " +
                                std::to_string(layout.worldRank) +
                                " was doing:\n" + report);
  failed_.store(true, std::memory_order_release);
  // The peers' transports name this rank and this reason.
  transport.abort(std::string(errorCodeName(status.code())) + ": " +
                  firstLine(status.message()));
}

void RunState::timeout() {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
  fail(Status(ErrorCode::Timeout,
              "rank " + std::to_string(layout.worldRank) + ": " +
                  layout.collectiveName + " did not finish within " + seconds +
                  " s (CommOptions::timeoutSeconds); the watchdog stopped "
                  "it"));
}

Status RunState::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

//===----------------------------------------------------------------------===//
// ChannelRunner
//===----------------------------------------------------------------------===//

ChannelRunner::ChannelRunner(RunState &state, uint32_t channel,
                             std::vector<uint64_t> &staging)
    : state_(state), layout_(state.layout), channel_(channel),
      stream_(state.program.ranks[size_t(state.layout.groupRank)]
                  .channels[channel]
                  .instructions),
      status_(state.statuses[channel]), staging_(staging),
      sent_(size_t(state.program.numRanks), 0),
      received_(size_t(state.program.numRanks), 0) {}

void ChannelRunner::run() {
  Status status;
  try {
    status = runStream();
  } catch (const std::exception &e) {
    status = Status(ErrorCode::SystemError,
                    where(currentTile_, current_) + ": " + e.what());
  }
  if (status.ok()) {
    status_.setPhase(ChannelPhase::Finished);
    return;
  }
  // A channel that failed while waiting keeps saying what it waited for
  // (the report's line for it); one that failed while working says so.
  if (ChannelPhase(status_.phase.load(std::memory_order_relaxed)) ==
      ChannelPhase::Running)
    status_.setPhase(ChannelPhase::Failed);
  state_.fail(status);
}

std::string ChannelRunner::where(uint64_t tile, uint32_t index) const {
  return instructionContext(layout_, state_.program, channel_, tile, index);
}

/// Adds "where" to a failure that does not say it.
static Status inContext(const std::string &where, const Status &status) {
  return withContext(status, where);
}

Status ChannelRunner::runStream() {
  uint64_t length = stream_.size();
  for (uint64_t tile = 0; tile < layout_.tiles; ++tile) {
    for (uint32_t i = 0; i < length; ++i) {
      current_ = i;
      currentTile_ = tile;
      status_.startInstruction(tile, i);
      const Instruction &in = stream_[i];
      double began = 0;
      if (state_.trace) {
        began = now();
        waited_ = 0;
      }
      Status s = waitForDependencies(in, tile);
      if (s.ok())
        s = execute(in, tile);
      if (!s.ok())
        return inContext(where(tile, i), s);
      if (state_.trace) {
        TraceEvent e;
        e.rank = layout_.worldRank;
        e.channel = channel_;
        e.tile = tile;
        e.instruction = i;
        e.step = in.step;
        e.opcode = collc::sched::opcodeName(in.opcode);
        e.sendPeer = in.sendPeer;
        e.recvPeer = in.recvPeer;
        e.bytes = payloadBytes(in, tile);
        e.start = began;
        e.end = now();
        e.waited = waited_;
        (*state_.trace)[channel_].push_back(e);
      }
      state_.progress[channel_].store(tile * length + i + 1,
                                      std::memory_order_release);
    }
  }
  return Status::success();
}

Status ChannelRunner::idle(Backoff &backoff) {
  if (state_.failed())
    return Status(ErrorCode::TransportError,
                  "stopped because another channel failed");
  if (backoff.shouldCheck()) {
    if (state_.deadline.expired()) {
      state_.timeout();
      return Status(ErrorCode::Timeout, "the watchdog's deadline passed");
    }
    if (Status s = state_.transport.checkPeers(); !s.ok())
      return s;
  }
  // Channels sharing this thread as fibers run while this one waits.
  double before = state_.trace ? now() : 0;
  if (yieldFiber(/*progressed=*/backoff.fresh()))
    backoff.step();
  else
    backoff.pause();
  if (state_.trace)
    waited_ += now() - before;
  return Status::success();
}

double ChannelRunner::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       state_.start)
      .count();
}

int64_t ChannelRunner::payloadBytes(const Instruction &in,
                                    uint64_t tile) const {
  // The range the instruction fills, else the one it reads (a send, a
  // recv_reduce_send).
  const ChunkRange &range =
      in.dst.count && in.opcode != Opcode::Send ? in.dst : in.src;
  int64_t elements = 0;
  for (uint32_t j = 0; j < range.count; ++j)
    elements += std::max<int64_t>(
        0, sliceElements(range.buffer, range.index + j, tile));
  return elements * int64_t(layout_.elementSize);
}

Status ChannelRunner::waitForDependencies(const Instruction &in,
                                          uint64_t tile) {
  const auto &rank = state_.program.ranks[size_t(layout_.groupRank)];
  for (uint32_t d = 0; d < in.depCount; ++d) {
    const collc::sched::Dependency &dep =
        rank.dependencies[size_t(in.depBegin) + d];
    uint64_t otherLength = rank.channels[dep.channel].instructions.size();
    uint64_t target = tile * otherLength + dep.instruction + 1;
    std::atomic<uint64_t> &done = state_.progress[dep.channel];
    if (done.load(std::memory_order_acquire) >= target)
      continue;
    status_.setPhase(ChannelPhase::WaitingDependency, d);
    Backoff backoff;
    while (done.load(std::memory_order_acquire) < target)
      if (Status s = idle(backoff); !s.ok())
        return s;
    status_.setPhase(ChannelPhase::Running);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

Status ChannelRunner::post(const Instruction &in, const void *data,
                           size_t bytes) {
  parts_.assign(1, MessagePart{data, bytes});
  return postParts(in, /*stable=*/false);
}

Status ChannelRunner::postParts(const Instruction &in, bool stable) {
  int32_t peer = in.sendPeer;
  ConnectionKey key{layout_.worldRankOf(peer), channel_};
  Backoff backoff;
  bool waiting = false;
  for (;;) {
    bool posted = false;
    if (Status s = state_.transport.trySendParts(
            key, parts_.data(), parts_.size(), stable, &posted);
        !s.ok())
      return s;
    if (posted)
      break;
    if (!waiting) {
      status_.setPhase(ChannelPhase::WaitingSend, sent_[size_t(peer)]);
      waiting = true;
    }
    if (Status s = idle(backoff); !s.ok())
      return s;
  }
  ++sent_[size_t(peer)];
  if (waiting)
    status_.setPhase(ChannelPhase::Running);
  return Status::success();
}

static uint64_t readWord(const char *at) {
  uint64_t word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

Status ChannelRunner::receive(const Instruction &in, uint64_t tile,
                              Received *message, bool prefixOnly) {
  int32_t peer = in.recvPeer;
  ConnectionKey key{layout_.worldRankOf(peer), channel_};
  Backoff backoff;
  bool waiting = false;
  const void *data = nullptr;
  size_t bytes = 0;
  for (;;) {
    bool ready = false;
    size_t inlineBytes = 0;
    if (Status s = prefixOnly
                       ? state_.transport.tryRecvPrefix(
                             key, &data, &inlineBytes, &bytes, &ready)
                       : state_.transport.tryRecv(key, &data, &bytes, &ready);
        !s.ok())
      return s;
    if (ready)
      break;
    if (!waiting) {
      status_.setPhase(ChannelPhase::WaitingRecv, received_[size_t(peer)]);
      waiting = true;
    }
    if (Status s = idle(backoff); !s.ok())
      return s;
  }
  ++received_[size_t(peer)];
  if (waiting)
    status_.setPhase(ChannelPhase::Running);

  const char *at = static_cast<const char *>(data);
  if (!prefixOnly &&
      reinterpret_cast<uintptr_t>(at) % layout_.elementSize != 0) {
    aligned_.resize(bytes / 8 + 1);
    std::memcpy(aligned_.data(), at, bytes);
    at = reinterpret_cast<const char *>(aligned_.data());
  }
  uint64_t chunks = messageChunks(in).count;
  auto got = [&] {
    return "the message from rank " +
           std::to_string(layout_.worldRankOf(peer)) + " (number " +
           std::to_string(received_[size_t(peer)]) + " on this connection, " +
           std::to_string(bytes) + " bytes)";
  };
  if (bytes < messageHeaderBytes(0))
    return Status(ErrorCode::TransportError,
                  got() + " is shorter than a message header");
  uint64_t sentTile = readWord(at), sentChunks = readWord(at + 8);
  uint32_t sentAgreement = uint32_t(sentChunks >> 32);
  sentChunks &= 0xffffffffu;
  if (sentAgreement != layout_.agreement)
    return Status(
        ErrorCode::PlanMismatch,
        got() + " was sent by a run with other sizes than this rank's: " +
            (state_.program.collective == collc::sched::Collective::AllToAllV
                 ? std::string("every rank of an all_to_all_v must pass the "
                               "same N x N send counts")
                 : "every rank must pass the same count (this rank: " +
                       std::to_string(layout_.bufferElements(Buffer::Input)) +
                       " elements)") +
            " and slot size (this rank: " +
            std::to_string(layout_.spec.slotBytes) + " bytes) (size digests " +
            std::to_string(sentAgreement) + " and " +
            std::to_string(layout_.agreement) + ")");
  if (sentTile != tile)
    return Status(ErrorCode::PlanMismatch,
                  got() + " belongs to tile " + std::to_string(sentTile) +
                      ", this instruction runs tile " + std::to_string(tile) +
                      " (do all ranks pass the same count and slotBytes?)");
  if (sentChunks != chunks)
    return Status(ErrorCode::PlanMismatch,
                  got() + " carries " + std::to_string(sentChunks) +
                      " chunks, this instruction receives " +
                      std::to_string(chunks) + " (" +
                      describeRange(messageChunks(in)) +
                      "): the plan's send and recv do not match");
  if (bytes < messageHeaderBytes(chunks))
    return Status(ErrorCode::TransportError,
                  got() + " is shorter than its header of " +
                      std::to_string(messageHeaderBytes(chunks)) + " bytes");
  counts_.resize(chunks);
  for (uint64_t j = 0; j < chunks; ++j) {
    counts_[j] = int64_t(readWord(at + 16 + 8 * j));
    if (counts_[j] < 0 || counts_[j] > layout_.tileElements)
      return Status(ErrorCode::TransportError,
                    got() + " says its chunk " + std::to_string(j) + " has " +
                        std::to_string(counts_[j]) +
                        " elements in this tile, more than a tile's " +
                        std::to_string(layout_.tileElements) +
                        " (do all ranks use the same slotBytes?)");
  }
  size_t expected = messageBytes();
  if (bytes != expected)
    return Status(ErrorCode::TransportError,
                  got() + " should have " + std::to_string(expected) +
                      " bytes for its " + std::to_string(chunks) +
                      " chunks of tile " + std::to_string(tile));
  message->message = at;
  message->bytes = bytes;
  message->payload = at + messageHeaderBytes(chunks);
  return Status::success();
}

Status ChannelRunner::release(const Instruction &in) {
  ConnectionKey key{layout_.worldRankOf(in.recvPeer), channel_};
  return state_.transport.releaseRecv(key);
}

size_t ChannelRunner::messageBytes() const {
  size_t bytes = messageHeaderBytes(counts_.size());
  for (int64_t count : counts_)
    bytes += size_t(count) * layout_.elementSize;
  return bytes;
}

char *ChannelRunner::writeHeader(uint64_t tile, const ChunkRange &range) {
  char *at = reinterpret_cast<char *>(staging_.data());
  // The chunk-count word carries the run's size digest in its upper half.
  uint64_t words[2] = {tile, uint64_t(range.count) |
                                 (uint64_t(layout_.agreement) << 32)};
  std::memcpy(at, words, sizeof words);
  for (uint32_t j = 0; j < range.count; ++j) {
    uint64_t count = uint64_t(counts_[j]);
    std::memcpy(at + 16 + 8 * size_t(j), &count, sizeof count);
  }
  return at + messageHeaderBytes(range.count);
}

//===----------------------------------------------------------------------===//
// Chunks
//===----------------------------------------------------------------------===//

/// Elements of tile `tile` of a chunk of `length` elements.
static int64_t tileSlice(int64_t length, uint64_t tile, int64_t tileElements) {
  int64_t left = length - int64_t(tile) * tileElements;
  return left <= 0 ? 0 : (left < tileElements ? left : tileElements);
}

int64_t ChannelRunner::sliceElements(Buffer buffer, uint32_t index,
                                     uint64_t tile) const {
  if (buffer == Buffer::Scratch) {
    int64_t written =
        state_.scratchSlices[size_t(index) * layout_.tiles + tile].load(
            std::memory_order_relaxed);
    if (written >= 0)
      return written;
    return tileSlice(layout_.scratchCapacity, tile, layout_.tileElements);
  }
  return tileSlice(layout_.chunkElements(buffer, index), tile,
                   layout_.tileElements);
}

char *ChannelRunner::sliceData(Buffer buffer, uint32_t index,
                               uint64_t tile) const {
  char *base = state_.buffers[int(buffer)];
  if (!base) // a buffer of no elements (sendbuf or recvbuf may be null)
    return nullptr;
  bool scratch = buffer == Buffer::Scratch;
  int64_t start = scratch ? int64_t(index) * layout_.scratchCapacity
                          : layout_.offsets[int(buffer)][index];
  int64_t size =
      scratch ? layout_.scratchCapacity : layout_.chunkElements(buffer, index);
  // An empty slice past the chunk's end points at the end.
  int64_t first = int64_t(tile) * layout_.tileElements;
  return base +
         size_t(start + (first < size ? first : size)) * layout_.elementSize;
}

Status ChannelRunner::setSlice(const ChunkRange &dst, uint32_t j, uint64_t tile,
                               int64_t elements, const char *source) {
  ChunkRange chunk{dst.buffer, dst.index + j, 1};
  if (dst.buffer == Buffer::Scratch) {
    int64_t room =
        tileSlice(layout_.scratchCapacity, tile, layout_.tileElements);
    if (elements > room)
      return Status(ErrorCode::PlanMismatch,
                    std::string(source) + " has " + std::to_string(elements) +
                        " elements for " + describeRange(chunk) +
                        " in this tile, which holds " + std::to_string(room) +
                        " (scratch chunks hold the largest input chunk, " +
                        std::to_string(layout_.scratchCapacity) + " elements)");
    state_.scratchSlices[size_t(chunk.index) * layout_.tiles + tile].store(
        elements, std::memory_order_relaxed);
    return Status::success();
  }
  int64_t holds = sliceElements(dst.buffer, chunk.index, tile);
  if (elements != holds)
    return Status(
        ErrorCode::PlanMismatch,
        std::string(source) + " has " + std::to_string(elements) +
            " elements for " + describeRange(chunk) +
            " in this tile, which takes " + std::to_string(holds) +
            " (the chunk has " +
            std::to_string(layout_.chunkElements(dst.buffer, chunk.index)) +
            " elements; do all ranks pass the same count?)");
  return Status::success();
}

void ChannelRunner::loadCounts(const ChunkRange &range, uint64_t tile) {
  counts_.resize(range.count);
  for (uint32_t j = 0; j < range.count; ++j)
    counts_[j] = sliceElements(range.buffer, range.index + j, tile);
}

Status ChannelRunner::checkCounts(const Instruction &in,
                                  const ChunkRange &range,
                                  uint64_t tile) const {
  for (uint32_t j = 0; j < range.count; ++j) {
    int64_t holds = sliceElements(range.buffer, range.index + j, tile);
    if (counts_[j] != holds)
      return Status(ErrorCode::PlanMismatch,
                    "rank " + std::to_string(layout_.worldRankOf(in.recvPeer)) +
                        " sent " + std::to_string(counts_[j]) +
                        " elements for chunk " + std::to_string(j) +
                        " of the message, which this rank combines with the " +
                        std::to_string(holds) + " elements of " +
                        describeRange({range.buffer, range.index + j, 1}) +
                        " in this tile (do all ranks pass the same count?)");
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

Status ChannelRunner::execute(const Instruction &in, uint64_t tile) {
  switch (in.opcode) {
  case Opcode::Send:
    loadCounts(in.src, tile);
    return postSlices(in, tile, in.src);
  case Opcode::Recv:
    return recvStore(in, tile, /*forward=*/false);
  case Opcode::RecvCopySend:
    return recvStore(in, tile, /*forward=*/true);
  case Opcode::Copy:
    return copy(in, tile);
  case Opcode::Reduce:
    return reduce(in, tile);
  case Opcode::RecvReduceSend:
  case Opcode::RecvReduceCopy:
  case Opcode::RecvReduceCopySend:
    return recvReduce(in, tile);
  }
  return Status(ErrorCode::InvalidPlan, "unknown opcode");
}

Status ChannelRunner::postSlices(const Instruction &in, uint64_t tile,
                                 const ChunkRange &range) {
  size_t es = layout_.elementSize;
  char *payload = writeHeader(tile, range);
  parts_.clear();
  parts_.push_back({staging_.data(), size_t(payload - reinterpret_cast<char *>(
                                                          staging_.data()))});
  for (uint32_t j = 0; j < range.count; ++j) {
    size_t bytes = size_t(counts_[j]) * es;
    if (bytes)
      parts_.push_back({sliceData(range.buffer, range.index + j, tile), bytes});
  }
  return postParts(in, layout_.stableSource(range));
}

Status ChannelRunner::recvStore(const Instruction &in, uint64_t tile,
                                bool forward) {
  size_t es = layout_.elementSize;
  // A plain recv reads each slice straight into its place (one copy from
  // the sender's buffer where the transport left the message there). A
  // forwarding one does the same and sends the slices from their place
  // when nothing writes them again (stableSource: the next receiver may
  // then read them there); otherwise it takes the message whole, to send
  // it on.
  bool inPlace = forward && layout_.stableSource(in.dst);
  Received message;
  if (Status s = receive(in, tile, &message,
                         /*prefixOnly=*/!forward || inPlace);
      !s.ok())
    return s;
  ConnectionKey from{layout_.worldRankOf(in.recvPeer), channel_};
  size_t offset = size_t(message.payload - message.message);
  for (uint32_t j = 0; j < in.dst.count; ++j) {
    if (Status s = setSlice(in.dst, j, tile, counts_[j], "the message");
        !s.ok())
      return s;
    size_t bytes = size_t(counts_[j]) * es;
    char *to = sliceData(in.dst.buffer, in.dst.index + j, tile);
    if (bytes && forward && !inPlace)
      std::memcpy(to, message.message + offset, bytes);
    else if (bytes)
      if (Status s = state_.transport.readRecv(from, offset, to, bytes);
          !s.ok())
        return s;
    offset += bytes;
  }
  if (!forward)
    return release(in);
  if (inPlace) {
    if (Status s = release(in); !s.ok())
      return s;
    return postSlices(in, tile, in.dst);
  }
  // Forward the message as it came (same tile, chunks and slices): straight
  // from the transport's slot when the next connection has room, else
  // through the staging buffer so that the slot is freed while waiting.
  ConnectionKey key{layout_.worldRankOf(in.sendPeer), channel_};
  bool posted = false;
  if (Status s = state_.transport.trySend(key, message.message, message.bytes,
                                          &posted);
      !s.ok())
    return s;
  if (posted) {
    ++sent_[size_t(in.sendPeer)];
    return release(in);
  }
  size_t bytes = message.bytes;
  std::memcpy(staging_.data(), message.message, bytes);
  if (Status s = release(in); !s.ok())
    return s;
  return post(in, staging_.data(), bytes);
}

Status ChannelRunner::recvReduce(const Instruction &in, uint64_t tile) {
  size_t es = layout_.elementSize;
  DataType type = state_.collective.dtype;
  ReduceOp op = state_.collective.reduction;
  bool stores = in.opcode != Opcode::RecvReduceSend;
  bool sends = in.opcode != Opcode::RecvReduceCopy;
  // The header from the slot; each chunk's slice where the transport can
  // point at it without a copy (its slot, or its mapping of the sender's
  // host buffer), else from the message fetched whole.
  Received message;
  if (Status s = receive(in, tile, &message, /*prefixOnly=*/true); !s.ok())
    return s;
  if (Status s = checkCounts(in, in.src, tile); !s.ok())
    return s;
  ConnectionKey key{layout_.worldRankOf(in.recvPeer), channel_};
  size_t offset = size_t(message.payload - message.message);
  if (stores)
    for (uint32_t j = 0; j < in.dst.count; ++j)
      if (Status s = setSlice(in.dst, j, tile, counts_[j], "the reduction");
          !s.ok())
        return s;
  // A result that is stored and sent: reduced into its place, and sent
  // from there when nothing writes it again (stableSource), so that the
  // receiver may read it there; otherwise reduced into the staging buffer
  // behind the header, copied to its place and sent from the staging.
  bool fromDst = stores && sends && layout_.stableSource(in.dst);
  char *out = sends && !fromDst ? writeHeader(tile, in.src) : nullptr;
  for (uint32_t j = 0; j < in.src.count; ++j) {
    size_t n = size_t(counts_[j]);
    const void *view = nullptr;
    if (Status s = state_.transport.viewRecv(key, offset, n * es, &view);
        !s.ok())
      return s;
    offset += n * es;
    const char *from = static_cast<const char *>(view);
    if (reinterpret_cast<uintptr_t>(from) % es != 0) {
      aligned_.resize(n * es / 8 + 1);
      std::memcpy(aligned_.data(), from, n * es);
      from = reinterpret_cast<const char *>(aligned_.data());
    }
    const char *src = sliceData(in.src.buffer, in.src.index + j, tile);
    char *dst =
        stores ? sliceData(in.dst.buffer, in.dst.index + j, tile) : nullptr;
    if (sends && !fromDst) {
      reduceElements(type, op, out, from, src, n);
      if (stores && n)
        std::memcpy(dst, out, n * es);
      out += n * es;
    } else {
      reduceElements(type, op, dst, from, src, n);
    }
  }
  if (Status s = release(in); !s.ok())
    return s;
  if (!sends)
    return Status::success();
  if (fromDst)
    return postSlices(in, tile, in.dst);
  return post(in, staging_.data(), messageBytes());
}

Status ChannelRunner::copy(const Instruction &in, uint64_t tile) {
  size_t es = layout_.elementSize;
  loadCounts(in.src, tile);
  for (uint32_t j = 0; j < in.dst.count; ++j)
    if (Status s = setSlice(in.dst, j, tile, counts_[j], "the copy's source");
        !s.ok())
      return s;
  // Overlapping ranges of one buffer: copy chunks back to front when the
  // destination lies after the source, as memmove does with bytes.
  bool backwards =
      in.src.buffer == in.dst.buffer && in.dst.index > in.src.index;
  for (uint32_t k = 0; k < in.src.count; ++k) {
    uint32_t j = backwards ? in.src.count - 1 - k : k;
    if (counts_[j])
      std::memmove(sliceData(in.dst.buffer, in.dst.index + j, tile),
                   sliceData(in.src.buffer, in.src.index + j, tile),
                   size_t(counts_[j]) * es);
  }
  return Status::success();
}

Status ChannelRunner::reduce(const Instruction &in, uint64_t tile) {
  // With fanin w, src is w ranges of dst.count chunks: source chunk
  // i * dst.count + j is combined into destination chunk j, range by range.
  for (uint32_t i = 0; i < in.src.count; ++i) {
    uint32_t j = i % in.dst.count;
    int64_t n = sliceElements(in.src.buffer, in.src.index + i, tile);
    int64_t holds = sliceElements(in.dst.buffer, in.dst.index + j, tile);
    if (n != holds)
      return Status(ErrorCode::PlanMismatch,
                    "combines the " + std::to_string(n) + " elements of " +
                        describeRange({in.src.buffer, in.src.index + i, 1}) +
                        " in this tile into the " + std::to_string(holds) +
                        " of " +
                        describeRange({in.dst.buffer, in.dst.index + j, 1}));
    char *dst = sliceData(in.dst.buffer, in.dst.index + j, tile);
    reduceElements(state_.collective.dtype, state_.collective.reduction, dst,
                   dst, sliceData(in.src.buffer, in.src.index + i, tile),
                   size_t(n));
  }
  return Status::success();
}

} // namespace exec
} // namespace collrt
