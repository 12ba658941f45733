//===- ShmTransport.cpp - processes of one host, rings in /dev/shm --------===//
//
// Each connection is one POSIX shared-memory segment holding a ring of
// `slots` slots of slotBytes: the receiver creates it (its name is unique to
// the run: rank 0's pid, a random nonce, the connect generation and the
// connection), the sender maps it and unlinks the name, so that nothing is
// left in /dev/shm once both sides mapped it, even if they crash later. The
// sender publishes a slot by advancing `tail` (release); the receiver reads
// it after loading `tail` (acquire) and frees it by advancing `head`.
//
// A peer that dies is reported by the bootstrap (its connection to rank 0
// drops; rank 0 tells everyone), which tryRecv/trySend consult when they
// cannot progress and checkPeers always.
//
//===----------------------------------------------------------------------===//
#include "Agreement.h"
#include "MemoryRegistry.h"
#include "SpecCheck.h"

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

namespace collrt {

namespace {

constexpr uint64_t kSegmentMagic = 0x636f6c6c63726e67ull; // "collcrng"
constexpr size_t kLine = 64;

size_t roundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

/// The start of every segment; slot sizes and the slots follow.
struct SegmentHeader {
  uint64_t magic;
  uint64_t slots;
  uint64_t slotBytes;
  uint64_t stride;
  alignas(kLine) std::atomic<uint64_t> head; // advanced by the receiver
  alignas(kLine) std::atomic<uint64_t> tail; // advanced by the sender
};
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory rings need lock-free 64-bit atomics");

size_t headerBytes() { return roundUp(sizeof(SegmentHeader), kLine); }
size_t sizesBytes(uint64_t slots) { return roundUp(slots * 8, kLine); }

/// Bytes of a ring of `slots` x `slotBytes`; 0 when it overflows.
size_t segmentBytes(uint64_t slots, uint64_t slotBytes) {
  uint64_t stride = roundUp(slotBytes, kLine);
  if (stride < slotBytes || slots > (UINT64_MAX / 2) / stride)
    return 0;
  return headerBytes() + sizesBytes(slots) + slots * stride;
}

/// One mapped ring, seen from one side.
class Segment {
public:
  Segment(std::string name, void *base, size_t bytes)
      : name_(std::move(name)), base_(base), bytes_(bytes) {
    header_ = static_cast<SegmentHeader *>(base);
    sizes_ =
        reinterpret_cast<uint64_t *>(static_cast<char *>(base) + headerBytes());
    data_ =
        static_cast<char *>(base) + headerBytes() + sizesBytes(header_->slots);
    // The creator zeroed the counters; both sides start from them.
    localHead_ = header_->head.load(std::memory_order_acquire);
    localTail_ = header_->tail.load(std::memory_order_acquire);
  }
  ~Segment() { ::munmap(base_, bytes_); }
  Segment(const Segment &) = delete;
  Segment &operator=(const Segment &) = delete;

  const std::string &name() const { return name_; }
  uint64_t slotBytes() const { return header_->slotBytes; }

  // Sender side.
  bool tryPush(const void *data, size_t bytes) {
    uint64_t head = header_->head.load(std::memory_order_acquire);
    if (localTail_ - head >= header_->slots)
      return false;
    uint64_t idx = localTail_ % header_->slots;
    if (bytes)
      std::memcpy(data_ + idx * header_->stride, data, bytes);
    sizes_[idx] = bytes;
    ++localTail_;
    header_->tail.store(localTail_, std::memory_order_release);
    return true;
  }

  // Receiver side.
  bool front(const void **data, size_t *bytes) const {
    if (localHead_ == header_->tail.load(std::memory_order_acquire))
      return false;
    uint64_t idx = localHead_ % header_->slots;
    *data = data_ + idx * header_->stride;
    *bytes = sizes_[idx];
    return true;
  }
  bool pop() {
    if (localHead_ == header_->tail.load(std::memory_order_acquire))
      return false;
    ++localHead_;
    header_->head.store(localHead_, std::memory_order_release);
    return true;
  }
  uint64_t unreleased() const {
    return header_->tail.load(std::memory_order_acquire) - localHead_;
  }

private:
  std::string name_;
  void *base_;
  size_t bytes_;
  SegmentHeader *header_;
  uint64_t *sizes_;
  char *data_;
  /// The side's own counter (only its thread writes the shared one).
  uint64_t localHead_ = 0;
  uint64_t localTail_ = 0;
};

class ShmTransport final : public Transport {
public:
  explicit ShmTransport(Bootstrap &bootstrap) : bootstrap_(bootstrap) {
    std::random_device random;
    nonce_ = std::to_string(::getpid()) + "-" + std::to_string(random()) +
             std::to_string(random());
  }

  const char *name() const override { return "shm"; }
  int32_t rank() const override { return bootstrap_.rank(); }
  int32_t worldSize() const override { return bootstrap_.worldSize(); }

  Status connect(const ConnectionSpec &spec, Deadline deadline) override;
  Status registerMemory(void *base, size_t bytes,
                        MemoryRegion *region) override {
    if (Status s = abortedStatus(); !s.ok())
      return s;
    return memory_.add(name(), base, bytes, region);
  }
  Status deregisterMemory(const MemoryRegion &region) override {
    return memory_.remove(name(), region);
  }
  Status trySend(const ConnectionKey &to, const void *data, size_t bytes,
                 bool *posted) override;
  Status tryRecv(const ConnectionKey &from, const void **data, size_t *bytes,
                 bool *ready) override;
  Status releaseRecv(const ConnectionKey &from) override;
  Status checkPeers() override;
  void abort(const std::string &reason) override;

private:
  std::string here() const {
    return "shm transport, rank " + std::to_string(rank());
  }
  Status abortedStatus() const {
    if (!aborted_.load(std::memory_order_acquire))
      return Status::success();
    std::lock_guard<std::mutex> lock(abortMutex_);
    return Status(ErrorCode::TransportError,
                  here() + " was aborted: " + abortReason_);
  }
  Status unknown(const char *what, const ConnectionKey &key) const {
    return Status(ErrorCode::InvalidArgument,
                  here() + ": " + what + " peer " + std::to_string(key.peer) +
                      " on channel " + std::to_string(key.channel) +
                      ", which the connected spec does not contain");
  }
  std::string segmentName(int32_t sender, int32_t receiver,
                          uint32_t channel) const {
    return "/collc-" + runId_ + "-g" + std::to_string(generation_) + "-s" +
           std::to_string(sender) + "-r" + std::to_string(receiver) + "-c" +
           std::to_string(channel);
  }
  Status checkLocal(const ConnectionSpec &spec) const;
  Status createReceiveSegments(
      const ConnectionSpec &spec,
      std::map<ConnectionKey, std::unique_ptr<Segment>> *created);
  Status
  openSendSegments(const ConnectionSpec &spec,
                   std::map<ConnectionKey, std::unique_ptr<Segment>> *opened);

  Bootstrap &bootstrap_;
  /// This process's pid and a random number; rank 0's names the run.
  std::string nonce_;
  std::string runId_;
  uint64_t generation_ = 0;
  std::vector<ConnectionSpec> connectedSpecs_;
  ConnectionSpec spec_;
  std::map<ConnectionKey, std::unique_ptr<Segment>> sends_;
  std::map<ConnectionKey, std::unique_ptr<Segment>> recvs_;
  std::atomic<bool> aborted_{false};
  mutable std::mutex abortMutex_;
  std::string abortReason_;
  transport::MemoryRegistry memory_;
};

Status ShmTransport::checkLocal(const ConnectionSpec &spec) const {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (Status s = transport::checkSpec(name(), rank(), worldSize(), spec);
      !s.ok())
    return s;
  if (segmentBytes(spec.slots, spec.slotBytes) == 0)
    return Status(ErrorCode::InvalidArgument,
                  here() + ": " + std::to_string(spec.slots) + " slots of " +
                      std::to_string(spec.slotBytes) +
                      " bytes overflow a shared-memory segment");
  const auto &hosts = bootstrap_.hosts();
  for (int dir = 0; dir < 2; ++dir)
    for (const ConnectionKey &key : dir == 0 ? spec.sendTo : spec.recvFrom)
      if (hosts[key.peer] != hosts[rank()])
        return Status(ErrorCode::InvalidArgument,
                      here() + ": peer rank " + std::to_string(key.peer) +
                          " is on host '" + hosts[key.peer] +
                          "', not on this rank's host '" + hosts[rank()] +
                          "': shared memory connects ranks of one host (use "
                          "the tcp transport)");
  for (const auto &entry : recvs_)
    if (entry.second->unreleased() > 0)
      return Status(ErrorCode::InvalidArgument,
                    here() + ": connect while " +
                        std::to_string(entry.second->unreleased()) +
                        " message(s) from peer " +
                        std::to_string(entry.first.peer) + " on channel " +
                        std::to_string(entry.first.channel) +
                        " are not released");
  return Status::success();
}

Status ShmTransport::createReceiveSegments(
    const ConnectionSpec &spec,
    std::map<ConnectionKey, std::unique_ptr<Segment>> *created) {
  const size_t bytes = segmentBytes(spec.slots, spec.slotBytes);
  const size_t total = bytes * spec.recvFrom.size();
  struct statvfs fs{};
  if (!spec.recvFrom.empty() && ::statvfs("/dev/shm", &fs) == 0) {
    uint64_t avail = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (avail < total)
      return Status(ErrorCode::SystemError,
                    here() + ": the " + std::to_string(spec.recvFrom.size()) +
                        " connection(s) this rank receives on need " +
                        std::to_string(total) + " bytes of shared memory (" +
                        std::to_string(spec.slots) + " slots of " +
                        std::to_string(spec.slotBytes) +
                        " bytes each) but /dev/shm has only " +
                        std::to_string(avail) +
                        " bytes free (enlarge /dev/shm, e.g. docker run "
                        "--shm-size, or use fewer or smaller slots, or the "
                        "tcp transport)");
  }
  for (const ConnectionKey &key : spec.recvFrom) {
    std::string name = segmentName(key.peer, rank(), key.channel);
    int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
      return Status(ErrorCode::SystemError,
                    here() + ": shm_open(" + name + ") for the connection " +
                        "from rank " + std::to_string(key.peer) +
                        " on channel " + std::to_string(key.channel) + ": " +
                        std::strerror(errno));
    // Reserve the pages now: a tmpfs that runs out later would kill the
    // process with SIGBUS instead of returning an error.
    int err = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    void *base = MAP_FAILED;
    if (err == 0)
      base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    else
      errno = err;
    int mapErr = errno;
    ::close(fd);
    if (base == MAP_FAILED) {
      ::shm_unlink(name.c_str());
      std::string why = std::strerror(mapErr);
      if (mapErr == ENOSPC)
        why += " (/dev/shm is full: enlarge it, e.g. docker run --shm-size, "
               "or use fewer or smaller slots, or the tcp transport)";
      return Status(ErrorCode::SystemError,
                    here() + ": cannot reserve " + std::to_string(bytes) +
                        " bytes of shared memory (" + name +
                        ") for the connection from rank " +
                        std::to_string(key.peer) + " on channel " +
                        std::to_string(key.channel) + ": " + why);
    }
    auto *header = new (base) SegmentHeader();
    header->magic = kSegmentMagic;
    header->slots = spec.slots;
    header->slotBytes = spec.slotBytes;
    header->stride = roundUp(spec.slotBytes, kLine);
    header->head.store(0, std::memory_order_relaxed);
    header->tail.store(0, std::memory_order_release);
    (*created)[key] = std::make_unique<Segment>(name, base, bytes);
  }
  return Status::success();
}

Status ShmTransport::openSendSegments(
    const ConnectionSpec &spec,
    std::map<ConnectionKey, std::unique_ptr<Segment>> *opened) {
  const size_t bytes = segmentBytes(spec.slots, spec.slotBytes);
  for (const ConnectionKey &key : spec.sendTo) {
    std::string name = segmentName(rank(), key.peer, key.channel);
    int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0)
      return Status(ErrorCode::SystemError,
                    here() + ": shm_open(" + name + ") of rank " +
                        std::to_string(key.peer) + "'s ring for channel " +
                        std::to_string(key.channel) + ": " +
                        std::strerror(errno));
    struct stat st{};
    void *base = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == bytes)
      base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int mapErr = errno;
    ::close(fd);
    // Both sides have it mapped now: the name is no longer needed.
    ::shm_unlink(name.c_str());
    if (base == MAP_FAILED)
      return Status(ErrorCode::SystemError,
                    here() + ": cannot map " + name + " (" +
                        std::to_string(bytes) + " bytes expected, " +
                        std::to_string(st.st_size) +
                        " found): " + std::strerror(mapErr));
    if (static_cast<SegmentHeader *>(base)->magic != kSegmentMagic) {
      ::munmap(base, bytes);
      return Status(ErrorCode::TransportError,
                    here() + ": " + name + " is not a collc ring");
    }
    (*opened)[key] = std::make_unique<Segment>(name, base, bytes);
  }
  return Status::success();
}

Status ShmTransport::connect(const ConnectionSpec &spec, Deadline deadline) {
  std::vector<ConnectionSpec> all;
  std::vector<std::string> nonces;
  if (Status s =
          transport::gatherSpecs(bootstrap_, name(), spec, checkLocal(spec),
                                 nonce_, deadline, &all, &nonces);
      !s.ok())
    return s;
  // Segment names are unique to the run: rank 0's pid and nonce.
  runId_ = nonces[0];
  // The same specs as last time (every rank sees the same list, so every
  // rank decides alike): keep the rings.
  if (!connectedSpecs_.empty() &&
      transport::encodeSpec(all[rank()]) ==
          transport::encodeSpec(connectedSpecs_[rank()])) {
    bool same = true;
    for (size_t r = 0; r < all.size(); ++r)
      same = same && transport::encodeSpec(all[r]) ==
                         transport::encodeSpec(connectedSpecs_[r]);
    if (same)
      return Status::success();
  }
  ++generation_;
  connectedSpecs_.clear();
  sends_.clear();
  recvs_.clear();
  std::map<ConnectionKey, std::unique_ptr<Segment>> created, opened;
  Status local = createReceiveSegments(spec, &created);
  // Every receiver created its rings before any sender opens one.
  Status outcome =
      transport::agreeOnOutcome(bootstrap_, name(), local, deadline);
  if (outcome.ok()) {
    local = openSendSegments(spec, &opened);
    outcome = transport::agreeOnOutcome(bootstrap_, name(), local, deadline);
  }
  if (!outcome.ok()) {
    // Senders unlink what they mapped; names no sender reached are ours.
    for (const auto &entry : created)
      ::shm_unlink(entry.second->name().c_str());
    return outcome;
  }
  sends_ = std::move(opened);
  recvs_ = std::move(created);
  spec_ = spec;
  connectedSpecs_ = std::move(all);
  return Status::success();
}

Status ShmTransport::trySend(const ConnectionKey &to, const void *data,
                             size_t bytes, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = sends_.find(to);
  if (it == sends_.end())
    return unknown("trySend to", to);
  if (bytes > spec_.slotBytes)
    return Status(
        ErrorCode::InvalidArgument,
        here() + ": trySend of " + std::to_string(bytes) + " bytes to peer " +
            std::to_string(to.peer) + " on channel " +
            std::to_string(to.channel) +
            " exceeds slotBytes = " + std::to_string(spec_.slotBytes));
  if (bytes > 0 && !data)
    return Status(ErrorCode::InvalidArgument, here() + ": trySend of " +
                                                  std::to_string(bytes) +
                                                  " bytes from a null pointer");
  *posted = it->second->tryPush(data, bytes);
  if (!*posted)
    return bootstrap_.checkPeers();
  return Status::success();
}

Status ShmTransport::tryRecv(const ConnectionKey &from, const void **data,
                             size_t *bytes, bool *ready) {
  *ready = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("tryRecv from", from);
  if (it->second->front(data, bytes)) {
    *ready = true;
    return Status::success();
  }
  return bootstrap_.checkPeers();
}

Status ShmTransport::releaseRecv(const ConnectionKey &from) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("releaseRecv from", from);
  if (!it->second->pop())
    return Status(ErrorCode::InvalidArgument,
                  here() + ": releaseRecv from peer " +
                      std::to_string(from.peer) + " on channel " +
                      std::to_string(from.channel) +
                      " with no message received");
  return Status::success();
}

Status ShmTransport::checkPeers() {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  return bootstrap_.checkPeers();
}

void ShmTransport::abort(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(abortMutex_);
    if (aborted_.load())
      return;
    abortReason_ = reason.empty() ? "aborted" : reason;
    aborted_.store(true, std::memory_order_release);
  }
  bootstrap_.announceFailure(reason.empty() ? "aborted" : reason);
}

} // namespace

Status createShmTransport(Bootstrap &bootstrap,
                          std::unique_ptr<Transport> *transport) {
  if (!transport)
    return Status(ErrorCode::InvalidArgument,
                  "createShmTransport: no transport pointer to fill");
  *transport = std::make_unique<ShmTransport>(bootstrap);
  return Status::success();
}

} // namespace collrt
