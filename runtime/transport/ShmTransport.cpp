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
// Single copy (cross-memory attach). At creation the ranks probe whether
// each can read the others' memory with process_vm_readv (Open MPI's CMA
// path; every rank allows it with prctl(PR_SET_PTRACER_ANY)). A message
// sent with trySendParts(stable) whose parts after the header add up to at
// least the threshold (COLLC_SHM_SINGLE_COPY, 64 KiB by default) then puts
// only the header and the parts' addresses into the slot; the receiver
// copies the parts straight from the sender's memory (readRecv) and
// releases the slot, and the sender's flushSends waits for that release.
// Where the probe failed, describe() says with whom and why, and those
// messages go through the slots as before.
//
// Host buffers (HostBuffers.h). A part that lies in a buffer of
// collrt::allocateHostBuffer is named in the slot by the buffer's key and
// offset too; a receiver that can map the sender's host buffers (probed at
// creation like process_vm_readv) maps that buffer once, keeps the mapping,
// and copies the part with memcpy. Mappings of buffers their owner freed
// are dropped whenever a new one is made.
//
//===----------------------------------------------------------------------===//
#include "Agreement.h"
#include "HostBuffers.h"
#include "MemoryRegistry.h"
#include "SpecCheck.h"

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"
#include "collrt/collrt.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

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
  /// Set by an aborting sender before its buffers go back to its caller: a
  /// receiver that read parts in place checks it after reading.
  alignas(kLine) std::atomic<uint64_t> senderAborted;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory rings need lock-free 64-bit atomics");

size_t headerBytes() { return roundUp(sizeof(SegmentHeader), kLine); }

/// A slot's size word with this bit holds a message whose parts after the
/// first stayed in the sender's memory. The slot then holds: the inline
/// bytes' count, the count of parts in place, (address, bytes, host buffer
/// key or 0, offset in that buffer) of each, then the inline bytes.
constexpr uint64_t kInPlace = 1ull << 63;
constexpr size_t kRefBytes = 32;
size_t inPlaceSlotBytes(size_t parts, size_t inlineBytes) {
  return 16 + kRefBytes * parts + inlineBytes;
}
/// A part left in the sender's memory, as its slot names it.
struct PartRef {
  uint64_t address = 0, bytes = 0;
  uint64_t hostBuffer = 0, offset = 0; ///< HostBuffers.h; 0: not in one
};

/// COLLC_SHM_SINGLE_COPY: "off" (or 0) or the smallest payload moved by
/// single copy, in bytes with an optional K, M or G (powers of 1024).
constexpr size_t kDefaultSingleCopyBytes = 64 << 10;
/// For messages whose parts all lie in host buffers the receiver maps: a
/// memcpy, no system call (docs/transports.md, "Host buffers").
constexpr size_t kDefaultHostBufferCopyBytes = 4 << 10;
bool parseSingleCopy(const char *text, size_t *threshold, std::string *error) {
  std::string v = text ? text : "";
  if (v.empty()) {
    *threshold = kDefaultSingleCopyBytes;
    return true;
  }
  if (v == "off" || v == "0") {
    *threshold = 0;
    return true;
  }
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  unsigned long long unit = 1;
  std::string suffix = end ? end : "";
  if (suffix == "K" || suffix == "KiB")
    unit = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB")
    unit = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB")
    unit = 1ull << 30;
  else if (!suffix.empty())
    unit = 0;
  if (end == v.c_str() || errno || unit == 0 || n == 0 ||
      n > (1ull << 40) / unit) {
    *error = "COLLC_SHM_SINGLE_COPY='" + v +
             "' must be 'off' or a size in bytes (65536, 64K, 1M)";
    return false;
  }
  *threshold = size_t(n * unit);
  return true;
}

std::string formatSize(size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

/// Why process_vm_readv failed, for a person.
std::string explainReadError(int err) {
  std::string why = std::strerror(err);
  switch (err) {
  case EPERM:
    return why + " (this process may not read the other's memory: a "
                 "container's seccomp profile or the ptrace rules "
                 "(/proc/sys/kernel/yama/ptrace_scope, different users) "
                 "forbid it)";
  case ENOSYS:
    return why + " (the kernel or a seccomp profile offers no "
                 "process_vm_readv: CONFIG_CROSS_MEMORY_ATTACH)";
  case ESRCH:
    return why + " (no such process here: the ranks are in different PID "
                 "namespaces, e.g. containers)";
  default:
    return why;
  }
}
static_assert(sizeof(PartRef) == kRefBytes, "a slot's part reference");
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

  /// Sender side: the concatenation of `parts` (fits the slot), or, with
  /// `inPlace`, parts[0] and the others' references (`refs`, count - 1).
  bool tryPushParts(const MessagePart *parts, size_t count, bool inPlace,
                    const PartRef *refs) {
    uint64_t head = header_->head.load(std::memory_order_acquire);
    if (localTail_ - head >= header_->slots)
      return false;
    uint64_t idx = localTail_ % header_->slots;
    char *slot = data_ + idx * header_->stride;
    uint64_t size = 0;
    if (inPlace) {
      uint64_t words[2] = {parts[0].bytes, count - 1};
      std::memcpy(slot, words, sizeof words);
      for (size_t i = 1; i < count; ++i)
        std::memcpy(slot + 16 + kRefBytes * (i - 1), &refs[i - 1], kRefBytes);
      char *at = slot + 16 + kRefBytes * (count - 1);
      if (parts[0].bytes)
        std::memcpy(at, parts[0].data, parts[0].bytes);
      for (size_t i = 0; i < count; ++i)
        size += parts[i].bytes;
      size |= kInPlace;
    } else {
      for (size_t i = 0; i < count; ++i) {
        if (parts[i].bytes)
          std::memcpy(slot + size, parts[i].data, parts[i].bytes);
        size += parts[i].bytes;
      }
    }
    sizes_[idx] = size;
    ++localTail_;
    header_->tail.store(localTail_, std::memory_order_release);
    if (inPlace)
      inPlaceUntil_.store(localTail_, std::memory_order_release);
    return true;
  }
  /// Sender side: messages pushed up to the last one whose parts stayed in
  /// place (written by the connection's sending thread, read by
  /// flushSends), and how many the receiver freed.
  uint64_t inPlaceUntil() const {
    return inPlaceUntil_.load(std::memory_order_acquire);
  }
  uint64_t freed() const {
    return header_->head.load(std::memory_order_acquire);
  }
  void markSenderAborted() {
    header_->senderAborted.store(1, std::memory_order_seq_cst);
  }
  bool senderAborted() const {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return header_->senderAborted.load(std::memory_order_seq_cst) != 0;
  }

  // Receiver side.
  /// The oldest message: its slot and size word (kInPlace may be set).
  bool frontRaw(const char **slot, uint64_t *word) const {
    if (localHead_ == header_->tail.load(std::memory_order_acquire))
      return false;
    uint64_t idx = localHead_ % header_->slots;
    *slot = data_ + idx * header_->stride;
    *word = sizes_[idx];
    return true;
  }
  uint64_t head() const { return localHead_; }
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
  std::atomic<uint64_t> inPlaceUntil_{0};
};

class ShmTransport final : public Transport {
public:
  explicit ShmTransport(Bootstrap &bootstrap) : bootstrap_(bootstrap) {
    std::random_device random;
    nonce_ = std::to_string(::getpid()) + "-" + std::to_string(random()) +
             std::to_string(random());
  }

  const char *name() const override { return "shm"; }
  std::string describe() const override;
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
  Status trySendParts(const ConnectionKey &to, const MessagePart *parts,
                      size_t count, bool stable, bool *posted) override;
  Status flushSends(Deadline deadline) override;
  Status tryRecvPrefix(const ConnectionKey &from, const void **data,
                       size_t *inlineBytes, size_t *bytes,
                       bool *ready) override;
  Status readRecv(const ConnectionKey &from, size_t offset, void *dst,
                  size_t bytes) override;
  Status viewRecv(const ConnectionKey &from, size_t offset, size_t bytes,
                  const void **data) override;
  Status checkPeers() override;
  void abort(const std::string &reason) override;

  /// A sender that aborted while this rank read its message in the
  /// sender's memory: the bootstrap's failure (which names the cause, a
  /// rank that died) once it arrives, waiting for it at most
  /// kSenderFailureWaitSeconds, else a PeerFailure naming the sender.
  Status senderFailed(const ConnectionKey &from);
  static constexpr double kSenderFailureWaitSeconds = 2.0;

  /// Collective (createShmTransport): which peers can read this rank's
  /// memory and whose this rank can read.
  Status probeSingleCopy(Deadline deadline);

private:
  /// A received message as the slot holds it.
  struct Incoming {
    const char *inlineData = nullptr;
    size_t inlineBytes = 0;
    size_t bytes = 0;
    /// PartRefs of the parts left in the sender's memory.
    const char *refs = nullptr;
    size_t refCount = 0;
  };
  /// The receiving side of a connection: its ring, and the message fetched
  /// whole for tryRecv when its parts were left in place.
  struct Receiving {
    std::unique_ptr<Segment> segment;
    std::vector<char> fetched;
    uint64_t fetchedHead = UINT64_MAX;
    /// The host buffers viewRecv pointed into for the current message,
    /// held until it is released.
    std::vector<std::shared_ptr<const transport::PeerHostBuffer>> viewed;
  };
  bool front(Receiving &r, Incoming *m) const;
  /// Copies bytes [offset, offset + bytes) of the message's in-place part
  /// (offsets from the message's start) from the sender's memory.
  Status readInPlace(const ConnectionKey &from, const Incoming &m,
                     size_t offset, char *dst, size_t bytes);
  /// process_vm_readv of `bytes` at `remote` in rank from.peer's memory.
  Status readPeerMemory(const ConnectionKey &from, const void *remote,
                        char *dst, size_t bytes);
  /// This rank's mapping of host buffer `key` of rank from.peer, made on
  /// first use and kept (mapped_).
  Status peerHostBuffer(const ConnectionKey &from, uint64_t key,
                        std::shared_ptr<const transport::PeerHostBuffer> *out);
  Status findRecv(const char *what, const ConnectionKey &key, Receiving **r);
  /// The oldest message from `from` for a `call` (readRecv, viewRecv) of
  /// bytes [offset, offset + bytes) in it; outsideMessage when it has none.
  Status frontRange(const char *call, const ConnectionKey &from, size_t offset,
                    size_t bytes, Receiving **r, Incoming *m);
  /// Where bytes [skip, skip + bytes) of a part left in the sender's host
  /// buffer are in this rank's mapping of it (*buffer keeps it mapped).
  Status inHostBuffer(const ConnectionKey &from, const PartRef &ref,
                      size_t skip, size_t bytes,
                      std::shared_ptr<const transport::PeerHostBuffer> *buffer,
                      const char **at);

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
  /// Guards sends_ against connect() replacing it while abort() marks it.
  std::mutex sendsMutex_;
  std::map<ConnectionKey, std::unique_ptr<Segment>> sends_;
  std::map<ConnectionKey, Receiving> recvs_;
  /// Single copy: the smallest payload left in place (0: off), the
  /// setting as given, and per world rank its pid, whether this rank reads
  /// its memory, whether it reads this rank's, and why not.
  size_t singleCopyBytes_ = kDefaultSingleCopyBytes;
  /// The same for messages whose parts all lie in host buffers the peer
  /// maps: kDefaultHostBufferCopyBytes, or singleCopyBytes_ when
  /// COLLC_SHM_SINGLE_COPY is set.
  size_t hostBufferCopyBytes_ = kDefaultHostBufferCopyBytes;
  std::string singleCopySetting_;
  bool probed_ = false;
  uint64_t probeToken_ = 0;
  std::vector<int64_t> pids_;
  std::vector<bool> canRead_, readsMe_;
  std::vector<std::string> cannotRead_, cannotReadMe_;
  /// Host buffers: per world rank whether this rank maps its host buffers,
  /// whether it maps this rank's, and why not; the mappings made, by
  /// (world rank, key), used by every channel thread.
  std::vector<bool> canMap_, mapsMe_;
  std::vector<std::string> cannotMap_, cannotMapMe_;
  std::mutex mappedMutex_;
  std::map<std::pair<int32_t, uint64_t>,
           std::shared_ptr<const transport::PeerHostBuffer>>
      mapped_;
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
    if (entry.second.segment->unreleased() > 0)
      return Status(ErrorCode::InvalidArgument,
                    here() + ": connect while " +
                        std::to_string(entry.second.segment->unreleased()) +
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
    header->senderAborted.store(0, std::memory_order_relaxed);
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
  {
    std::lock_guard<std::mutex> lock(sendsMutex_);
    sends_.clear();
  }
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
  {
    std::lock_guard<std::mutex> lock(sendsMutex_);
    sends_ = std::move(opened);
    if (aborted_.load(std::memory_order_acquire))
      for (auto &entry : sends_)
        entry.second->markSenderAborted();
  }
  for (auto &entry : created)
    recvs_[entry.first].segment = std::move(entry.second);
  spec_ = spec;
  connectedSpecs_ = std::move(all);
  return Status::success();
}

Status ShmTransport::trySend(const ConnectionKey &to, const void *data,
                             size_t bytes, bool *posted) {
  MessagePart part{data, bytes};
  return trySendParts(to, &part, 1, false, posted);
}

Status ShmTransport::findRecv(const char *what, const ConnectionKey &key,
                              Receiving **r) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(key);
  if (it == recvs_.end())
    return unknown(what, key);
  *r = &it->second;
  return Status::success();
}

bool ShmTransport::front(Receiving &r, Incoming *m) const {
  const char *slot = nullptr;
  uint64_t word = 0;
  if (!r.segment->frontRaw(&slot, &word))
    return false;
  *m = Incoming();
  m->bytes = size_t(word & ~kInPlace);
  if (!(word & kInPlace)) {
    m->inlineData = slot;
    m->inlineBytes = m->bytes;
    return true;
  }
  uint64_t words[2];
  std::memcpy(words, slot, sizeof words);
  m->inlineBytes = size_t(words[0]);
  m->refCount = size_t(words[1]);
  m->refs = slot + 16;
  m->inlineData = slot + 16 + kRefBytes * m->refCount;
  return true;
}

Status ShmTransport::readPeerMemory(const ConnectionKey &from,
                                    const void *remote, char *dst,
                                    size_t bytes) {
  pid_t pid = pid_t(pids_[size_t(from.peer)]);
  size_t done = 0;
  while (done < bytes) {
    iovec local{dst + done, bytes - done};
    iovec far{const_cast<char *>(static_cast<const char *>(remote)) + done,
              bytes - done};
    ssize_t got = ::process_vm_readv(pid, &local, 1, &far, 1, 0);
    if (got < 0) {
      int err = errno;
      if (err == EINTR)
        continue;
      if (Status s = bootstrap_.checkPeers(); !s.ok())
        return s;
      return Status(
          err == ESRCH ? ErrorCode::PeerFailure : ErrorCode::TransportError,
          here() + ": reading the message from rank " +
              std::to_string(from.peer) + " on channel " +
              std::to_string(from.channel) +
              " in its memory (single copy, pid " + std::to_string(pid) +
              ") failed: " + explainReadError(err));
    }
    if (got == 0)
      return Status(ErrorCode::TransportError,
                    here() + ": reading the message from rank " +
                        std::to_string(from.peer) +
                        " in its memory stopped short");
    done += size_t(got);
  }
  return Status::success();
}

Status ShmTransport::peerHostBuffer(
    const ConnectionKey &from, uint64_t key,
    std::shared_ptr<const transport::PeerHostBuffer> *out) {
  std::lock_guard<std::mutex> lock(mappedMutex_);
  auto found = mapped_.find({from.peer, key});
  if (found != mapped_.end() && !found->second->freed()) {
    *out = found->second;
    return Status::success();
  }
  // A new buffer (or a key reused after a free): drop the mappings of
  // buffers their owners freed, then map this one.
  for (auto it = mapped_.begin(); it != mapped_.end();)
    it = it->second->freed() ? mapped_.erase(it) : std::next(it);
  std::shared_ptr<const transport::PeerHostBuffer> buffer;
  if (Status s =
          transport::mapPeerHostBuffer(pids_[size_t(from.peer)], key, &buffer);
      !s.ok()) {
    if (Status peers = bootstrap_.checkPeers(); !peers.ok())
      return peers;
    return withContext(s, here() + ": reading the message from rank " +
                              std::to_string(from.peer) + " on channel " +
                              std::to_string(from.channel));
  }
  mapped_[{from.peer, key}] = buffer;
  *out = std::move(buffer);
  return Status::success();
}

Status ShmTransport::readInPlace(const ConnectionKey &from, const Incoming &m,
                                 size_t offset, char *dst, size_t bytes) {
  // The in-place parts cover [inlineBytes, m.bytes) of the message: each
  // piece of [offset, offset + bytes) is copied from this rank's mapping of
  // the sender's host buffer, else read with process_vm_readv.
  size_t at = m.inlineBytes, end = offset + bytes;
  for (size_t i = 0; i < m.refCount && at < end; ++i) {
    PartRef ref;
    std::memcpy(&ref, m.refs + kRefBytes * i, kRefBytes);
    size_t partBytes = size_t(ref.bytes);
    size_t lo = std::max(at, offset), hi = std::min(at + partBytes, end);
    at += partBytes;
    if (lo >= hi)
      continue;
    char *to = dst + (lo - offset);
    size_t skip = lo - (at - partBytes);
    if (ref.hostBuffer) {
      std::shared_ptr<const transport::PeerHostBuffer> buffer;
      const char *at = nullptr;
      if (Status s = inHostBuffer(from, ref, skip, hi - lo, &buffer, &at);
          !s.ok())
        return s;
      std::memcpy(to, at, hi - lo);
      continue;
    }
    if (Status s = readPeerMemory(
            from, reinterpret_cast<void *>(uintptr_t(ref.address) + skip), to,
            hi - lo);
        !s.ok())
      return s;
  }
  // The sender aborts before its buffers go back to its caller: if it did,
  // what was read may already have changed.
  auto it = recvs_.find(from);
  if (it != recvs_.end() && it->second.segment->senderAborted())
    return senderFailed(from);
  return Status::success();
}

Status ShmTransport::tryRecv(const ConnectionKey &from, const void **data,
                             size_t *bytes, bool *ready) {
  *ready = false;
  Receiving *r = nullptr;
  if (Status s = findRecv("tryRecv from", from, &r); !s.ok())
    return s;
  Incoming m;
  if (!front(*r, &m))
    return bootstrap_.checkPeers();
  if (m.inlineBytes < m.bytes) {
    // Parts left in the sender's memory: fetched whole, once per message.
    if (r->fetchedHead != r->segment->head()) {
      r->fetched.resize(m.bytes);
      if (m.inlineBytes)
        std::memcpy(r->fetched.data(), m.inlineData, m.inlineBytes);
      if (Status s = readInPlace(from, m, m.inlineBytes,
                                 r->fetched.data() + m.inlineBytes,
                                 m.bytes - m.inlineBytes);
          !s.ok())
        return s;
      r->fetchedHead = r->segment->head();
    }
    *data = r->fetched.data();
  } else {
    *data = m.inlineData;
  }
  *bytes = m.bytes;
  *ready = true;
  return Status::success();
}

Status ShmTransport::tryRecvPrefix(const ConnectionKey &from, const void **data,
                                   size_t *inlineBytes, size_t *bytes,
                                   bool *ready) {
  *ready = false;
  Receiving *r = nullptr;
  if (Status s = findRecv("tryRecv from", from, &r); !s.ok())
    return s;
  Incoming m;
  if (!front(*r, &m))
    return bootstrap_.checkPeers();
  if (r->fetchedHead == r->segment->head()) {
    *data = r->fetched.data();
    *inlineBytes = m.bytes;
  } else {
    *data = m.inlineData;
    *inlineBytes = m.inlineBytes;
  }
  *bytes = m.bytes;
  *ready = true;
  return Status::success();
}

Status ShmTransport::frontRange(const char *call, const ConnectionKey &from,
                                size_t offset, size_t bytes, Receiving **r,
                                Incoming *m) {
  std::string what = std::string(call) + " from";
  if (Status s = findRecv(what.c_str(), from, r); !s.ok())
    return s;
  bool ready = front(**r, m);
  if (!ready || offset > m->bytes || bytes > m->bytes - offset)
    return transport::outsideMessage(here(), call, from, offset, bytes, ready,
                                     m->bytes);
  return Status::success();
}

Status ShmTransport::inHostBuffer(
    const ConnectionKey &from, const PartRef &ref, size_t skip, size_t bytes,
    std::shared_ptr<const transport::PeerHostBuffer> *buffer, const char **at) {
  if (Status s = peerHostBuffer(from, ref.hostBuffer, buffer); !s.ok())
    return s;
  if (ref.offset > (*buffer)->bytes() ||
      skip + bytes > (*buffer)->bytes() - ref.offset)
    return Status(ErrorCode::TransportError,
                  here() + ": the message from rank " +
                      std::to_string(from.peer) + " on channel " +
                      std::to_string(from.channel) +
                      " names bytes past the end of its host buffer");
  *at = (*buffer)->data() + ref.offset + skip;
  return Status::success();
}

Status ShmTransport::readRecv(const ConnectionKey &from, size_t offset,
                              void *dst, size_t bytes) {
  Receiving *r = nullptr;
  Incoming m;
  if (Status s = frontRange("readRecv", from, offset, bytes, &r, &m); !s.ok())
    return s;
  char *out = static_cast<char *>(dst);
  if (r->fetchedHead == r->segment->head()) {
    if (bytes)
      std::memcpy(out, r->fetched.data() + offset, bytes);
    return Status::success();
  }
  size_t inlinePart =
      offset < m.inlineBytes ? std::min(bytes, m.inlineBytes - offset) : 0;
  if (inlinePart)
    std::memcpy(out, m.inlineData + offset, inlinePart);
  if (inlinePart == bytes)
    return Status::success();
  return readInPlace(from, m, offset + inlinePart, out + inlinePart,
                     bytes - inlinePart);
}

Status ShmTransport::viewRecv(const ConnectionKey &from, size_t offset,
                              size_t bytes, const void **data) {
  Receiving *r = nullptr;
  Incoming m;
  if (Status s = frontRange("viewRecv", from, offset, bytes, &r, &m); !s.ok())
    return s;
  if (r->fetchedHead == r->segment->head()) {
    *data = r->fetched.data() + offset;
    return Status::success();
  }
  if (offset + bytes <= m.inlineBytes) {
    *data = m.inlineData + offset;
    return Status::success();
  }
  // Inside one part left in a host buffer of the sender: this rank's
  // mapping of it.
  size_t at = m.inlineBytes;
  for (size_t i = 0; i < m.refCount && offset >= m.inlineBytes; ++i) {
    PartRef ref;
    std::memcpy(&ref, m.refs + kRefBytes * i, kRefBytes);
    size_t partBytes = size_t(ref.bytes);
    if (offset >= at && offset + bytes <= at + partBytes && ref.hostBuffer) {
      std::shared_ptr<const transport::PeerHostBuffer> buffer;
      const char *view = nullptr;
      if (Status s =
              inHostBuffer(from, ref, offset - at, bytes, &buffer, &view);
          !s.ok())
        return s;
      *data = view;
      r->viewed.push_back(std::move(buffer));
      return Status::success();
    }
    at += partBytes;
  }
  // Elsewhere: the message fetched whole.
  const void *whole = nullptr;
  size_t size = 0;
  bool ready = false;
  if (Status s = tryRecv(from, &whole, &size, &ready); !s.ok())
    return s;
  *data = static_cast<const char *>(whole) + offset;
  return Status::success();
}

Status ShmTransport::releaseRecv(const ConnectionKey &from) {
  Receiving *r = nullptr;
  if (Status s = findRecv("releaseRecv from", from, &r); !s.ok())
    return s;
  // What viewRecv pointed at in the sender's memory was read by now: as
  // after readInPlace, a sender that aborted meanwhile may have changed it.
  bool viewed = !r->viewed.empty();
  r->viewed.clear();
  if (viewed && r->segment->senderAborted()) {
    (void)r->segment->pop();
    return senderFailed(from);
  }
  if (!r->segment->pop())
    return Status(ErrorCode::InvalidArgument,
                  here() + ": releaseRecv from peer " +
                      std::to_string(from.peer) + " on channel " +
                      std::to_string(from.channel) +
                      " with no message received");
  return Status::success();
}

Status ShmTransport::trySendParts(const ConnectionKey &to,
                                  const MessagePart *parts, size_t count,
                                  bool stable, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = sends_.find(to);
  if (it == sends_.end())
    return unknown("trySend to", to);
  size_t total = 0;
  if (Status s = transport::checkParts(here(), to, parts, count,
                                       spec_.slotBytes, &total);
      !s.ok())
    return s;
  // Parts that all lie in host buffers the peer maps go in place from
  // hostBufferCopyBytes_ up (a memcpy, no system call), others from
  // singleCopyBytes_ up, and only where the peer can read this process.
  size_t payload = total - parts[0].bytes;
  bool inPlace = stable && singleCopyBytes_ > 0 && count > 1 &&
                 (readsMe_[size_t(to.peer)] || mapsMe_[size_t(to.peer)]) &&
                 payload >= std::min(singleCopyBytes_, hostBufferCopyBytes_) &&
                 inPlaceSlotBytes(count - 1, parts[0].bytes) <=
                     roundUp(spec_.slotBytes, kLine);
  // Channels of several threads send at once: each its own references.
  thread_local std::vector<PartRef> refs;
  if (inPlace) {
    refs.assign(count - 1, PartRef());
    bool allHost = true;
    for (size_t i = 1; i < count; ++i) {
      PartRef &ref = refs[i - 1];
      ref.address = uint64_t(reinterpret_cast<uintptr_t>(parts[i].data));
      ref.bytes = parts[i].bytes;
      allHost = mapsMe_[size_t(to.peer)] &&
                transport::findHostBuffer(parts[i].data, parts[i].bytes,
                                          &ref.hostBuffer, &ref.offset) &&
                allHost;
    }
    inPlace = allHost
                  ? payload >= hostBufferCopyBytes_
                  : readsMe_[size_t(to.peer)] && payload >= singleCopyBytes_;
  }
  *posted = it->second->tryPushParts(parts, count, inPlace, refs.data());
  if (!*posted)
    return bootstrap_.checkPeers();
  return Status::success();
}

Status ShmTransport::flushSends(Deadline deadline) {
  // sends_ changes only at connect (on this thread): reading it here races
  // with nothing; each connection's counters are its own.
  return transport::waitForReaders(
      here(), sends_,
      [](const Segment &segment) {
        return transport::LeftInPlace{segment.freed(), segment.inPlaceUntil()};
      },
      [&](const ConnectionKey &) { return checkPeers(); }, deadline);
}

Status ShmTransport::senderFailed(const ConnectionKey &from) {
  // The sender marks its segments before it announces its failure over the
  // bootstrap, and it may have failed because of another rank (a dead
  // peer): its announcement names that cause, so wait for it a little
  // (bounded) rather than blame the sender alone.
  const Deadline deadline = Deadline::after(kSenderFailureWaitSeconds);
  for (;;) {
    if (Status s = bootstrap_.checkPeers(); !s.ok())
      return s;
    if (deadline.expired())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status(ErrorCode::PeerFailure,
                here() + ": peer rank " + std::to_string(from.peer) +
                    " failed while this rank read its message (single "
                    "copy) on channel " +
                    std::to_string(from.channel));
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
  // Before this rank's buffers go back to its caller (who may change
  // them), receivers still reading messages left in them are told.
  {
    std::lock_guard<std::mutex> lock(sendsMutex_);
    for (auto &entry : sends_)
      entry.second->markSenderAborted();
  }
  bootstrap_.announceFailure(reason.empty() ? "aborted" : reason);
}

Status ShmTransport::probeSingleCopy(Deadline deadline) {
  const size_t n = size_t(worldSize());
  const char *setting = std::getenv("COLLC_SHM_SINGLE_COPY");
  singleCopySetting_ = setting ? setting : "";
  std::string error;
  // A malformed setting fails this rank before any exchange (its launcher's
  // announcement, or the peers' deadline, stops the others).
  if (!parseSingleCopy(setting, &singleCopyBytes_, &error))
    return Status(ErrorCode::InvalidArgument, here() + ": " + error);
  hostBufferCopyBytes_ = singleCopySetting_.empty()
                             ? kDefaultHostBufferCopyBytes
                             : singleCopyBytes_;
  const bool on = singleCopyBytes_ > 0;
  // Let the other ranks read this process (Yama's ptrace_scope 1 allows
  // only ancestors otherwise; EINVAL where Yama is absent: nothing to do).
  if (on)
    (void)::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  std::random_device random;
  probeToken_ = (uint64_t(random()) << 32) ^ random() ^ 0x5eedc011ull;
  // A host buffer holding the token, for the peers to map (0: none, and
  // why).
  void *probeBuffer = nullptr;
  uint64_t probeKey = 0, probeOffset = 0;
  std::string noHostBuffer;
  if (on) {
    if (Status s = allocateHostBuffer(sizeof probeToken_, &probeBuffer);
        !s.ok())
      noHostBuffer = s.message();
    else {
      std::memcpy(probeBuffer, &probeToken_, sizeof probeToken_);
      transport::findHostBuffer(probeBuffer, sizeof probeToken_, &probeKey,
                                &probeOffset);
    }
  }
  struct FreeProbe {
    void *buffer;
    ~FreeProbe() { (void)freeHostBuffer(buffer); }
  } freeProbe{probeBuffer};
  // Round 1: every rank's pid, the address of its token, the token,
  // whether it uses single copy, and its probe host buffer's key.
  std::ostringstream mine;
  mine << ::getpid() << ' '
       << uint64_t(reinterpret_cast<uintptr_t>(&probeToken_)) << ' '
       << probeToken_ << ' ' << (on ? 1 : 0) << ' ' << probeKey;
  std::vector<std::string> all;
  if (Status s = bootstrap_.allGather(mine.str(), &all, deadline); !s.ok())
    return withContext(s, here() + ": probing single copy");
  pids_.assign(n, 0);
  std::vector<uint64_t> addresses(n), tokens(n), keys(n);
  std::vector<bool> peerOn(n);
  for (size_t r = 0; r < n; ++r) {
    std::istringstream in(all[r]);
    int flag = 0;
    in >> pids_[r] >> addresses[r] >> tokens[r] >> flag >> keys[r];
    peerOn[r] = flag == 1;
  }
  // Reading each peer's token tells whether this rank can read its memory.
  const auto &hosts = bootstrap_.hosts();
  canRead_.assign(n, false);
  cannotRead_.assign(n, "");
  canMap_.assign(n, false);
  cannotMap_.assign(n, "");
  std::string results;
  for (size_t r = 0; r < n; ++r) {
    if (int32_t(r) == rank())
      continue;
    std::string why;
    if (!on)
      why = "single copy is off on this rank";
    else if (!peerOn[r])
      why = "single copy is off on rank " + std::to_string(r);
    else if (hosts[r] != hosts[size_t(rank())])
      why = "rank " + std::to_string(r) + " is on another host";
    else {
      uint64_t value = 0;
      iovec localIov{&value, sizeof value};
      iovec remoteIov{reinterpret_cast<void *>(uintptr_t(addresses[r])),
                      sizeof value};
      ssize_t got =
          ::process_vm_readv(pid_t(pids_[r]), &localIov, 1, &remoteIov, 1, 0);
      if (got != ssize_t(sizeof value))
        why = "process_vm_readv of rank " + std::to_string(r) + " (pid " +
              std::to_string(pids_[r]) +
              ") failed: " + explainReadError(got < 0 ? errno : EIO);
      else if (value != tokens[r])
        why = "process_vm_readv of pid " + std::to_string(pids_[r]) +
              " read another process's memory, not rank " + std::to_string(r) +
              "'s (the ranks are in different PID namespaces, e.g. "
              "containers)";
    }
    canRead_[r] = why.empty();
    cannotRead_[r] = why;
    results += std::to_string(r) + " " + (why.empty() ? "ok" : why) + "\n";
    // Mapping the peer's probe host buffer tells whether this rank can map
    // its host buffers.
    std::string mapWhy;
    if (!on || !peerOn[r] || hosts[r] != hosts[size_t(rank())])
      mapWhy = why;
    else if (!noHostBuffer.empty())
      mapWhy = "this rank has no host buffers: " + noHostBuffer;
    else if (keys[r] == 0)
      mapWhy = "rank " + std::to_string(r) + " has no host buffers";
    else {
      std::shared_ptr<const transport::PeerHostBuffer> probe;
      uint64_t value = 0;
      if (Status s = transport::mapPeerHostBuffer(pids_[r], keys[r], &probe);
          !s.ok())
        mapWhy = s.message();
      else if (std::memcpy(&value, probe->data(), sizeof value),
               value != tokens[r])
        mapWhy = "the host buffer of pid " + std::to_string(pids_[r]) +
                 " holds another process's token, not rank " +
                 std::to_string(r) +
                 "'s (the ranks are in different PID namespaces, e.g. "
                 "containers)";
    }
    canMap_[r] = mapWhy.empty();
    cannotMap_[r] = mapWhy;
    results += "map " + std::to_string(r) + " " +
               (mapWhy.empty() ? "ok" : mapWhy) + "\n";
  }
  // Round 2: what each rank found, so that senders know who reads them.
  if (Status s = bootstrap_.allGather(results, &all, deadline); !s.ok())
    return withContext(s, here() + ": probing single copy");
  readsMe_.assign(n, false);
  cannotReadMe_.assign(n, "");
  mapsMe_.assign(n, false);
  cannotMapMe_.assign(n, "");
  const std::string me = std::to_string(rank()) + " ", mapMe = "map " + me;
  for (size_t r = 0; r < n; ++r) {
    std::istringstream in(all[r]);
    std::string line;
    while (std::getline(in, line))
      if (line.compare(0, me.size(), me) == 0) {
        std::string verdict = line.substr(me.size());
        readsMe_[r] = verdict == "ok";
        cannotReadMe_[r] = readsMe_[r] ? "" : verdict;
      } else if (line.compare(0, mapMe.size(), mapMe) == 0) {
        std::string verdict = line.substr(mapMe.size());
        mapsMe_[r] = verdict == "ok";
        cannotMapMe_[r] = mapsMe_[r] ? "" : verdict;
      }
  }
  probed_ = true;
  return Status::success();
}

/// Peers (all but `self`) grouped by what a probe found: those where both
/// directions hold (*both), the others by why not (*problems): `mine[r]`
/// whether this rank can do it with rank r (else `whyMine[r]`, after
/// `thisCannot`), `theirs[r]` whether r can with this rank (else
/// `whyTheirs[r]`, after `itCannot`).
static void groupPeers(int32_t self, const std::vector<bool> &mine,
                       const std::vector<std::string> &whyMine,
                       const std::vector<bool> &theirs,
                       const std::vector<std::string> &whyTheirs,
                       const char *thisCannot, const char *itCannot,
                       std::vector<int32_t> *both,
                       std::map<std::string, std::vector<int32_t>> *problems) {
  for (size_t r = 0; r < mine.size(); ++r) {
    if (int32_t(r) == self)
      continue;
    if (mine[r] && theirs[r]) {
      both->push_back(int32_t(r));
      continue;
    }
    std::string why;
    if (!mine[r])
      why = thisCannot + whyMine[r];
    if (!theirs[r])
      why += std::string(why.empty() ? "" : "; ") + itCannot + whyTheirs[r];
    (*problems)[why].push_back(int32_t(r));
  }
}

/// "3", "1, 4 and 5".
static std::string listRanks(const std::vector<int32_t> &ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i)
    out += (i ? (i + 1 == ranks.size() ? " and " : ", ") : "") +
           std::to_string(ranks[i]);
  return out;
}

std::string ShmTransport::describe() const {
  std::string text = "shm: rank " + std::to_string(rank()) + " (pid " +
                     std::to_string(::getpid()) + "), ";
  std::string variable =
      "COLLC_SHM_SINGLE_COPY" + (singleCopySetting_.empty()
                                     ? std::string(" unset")
                                     : "=" + singleCopySetting_);
  if (!probed_)
    return text + "single copy not probed";
  if (singleCopyBytes_ == 0)
    return text + "single copy off (" + variable +
           "): every message is copied into a slot and out of it";
  auto ranks = [](const std::vector<int32_t> &r) {
    return "rank" + std::string(r.size() > 1 ? "s " : " ") + listRanks(r);
  };
  std::vector<int32_t> both;
  std::map<std::string, std::vector<int32_t>> problems;
  groupPeers(rank(), canRead_, cannotRead_, readsMe_, cannotReadMe_,
             "this rank cannot read its memory: ",
             "it cannot read this rank's: ", &both, &problems);
  text += "single copy (cross-memory attach: the receiver copies a message "
          "from the sender's memory with process_vm_readv) for payloads of "
          "at least " +
          formatSize(singleCopyBytes_) + " (" + variable + ")";
  if (problems.empty())
    text += both.empty() ? " (no peers)" : " with every peer";
  else if (!both.empty())
    text += " with " + ranks(both);
  for (const auto &entry : problems)
    text += "; single copy unavailable with " + ranks(entry.second) + " (" +
            entry.first +
            "): their messages are copied into a slot and out of it";
  // Host buffers, grouped the same way.
  std::vector<int32_t> mapping;
  std::map<std::string, std::vector<int32_t>> notMapping;
  groupPeers(rank(), canMap_, cannotMap_, mapsMe_, cannotMapMe_,
             "this rank cannot map them: ", "it cannot map this rank's: ",
             &mapping, &notMapping);
  if (mapping.empty() && notMapping.empty())
    return text;
  text += "; host buffers (collrt::allocateHostBuffer) mapped by the "
          "receiver and copied with memcpy";
  std::string from =
      ", for payloads of at least " + formatSize(hostBufferCopyBytes_);
  if (notMapping.empty())
    return text + " with every peer" + from;
  if (!mapping.empty())
    text += " with " + ranks(mapping) + from;
  for (const auto &entry : notMapping)
    text += "; not with " + ranks(entry.second) + " (" + entry.first + ")";
  return text;
}

} // namespace

Status createShmTransport(Bootstrap &bootstrap,
                          std::unique_ptr<Transport> *transport) {
  if (!transport)
    return Status(ErrorCode::InvalidArgument,
                  "createShmTransport: no transport pointer to fill");
  auto shm = std::make_unique<ShmTransport>(bootstrap);
  // Collective, like the creation of every rank's transport: bounded as a
  // connect would be by default.
  if (Status s = shm->probeSingleCopy(Deadline::after(60)); !s.ok())
    return s;
  *transport = std::move(shm);
  return Status::success();
}

} // namespace collrt
