//===- HostBuffers.cpp - memory the processes of a host map ---------------===//
#include "HostBuffers.h"

#include "collrt/collrt.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace collrt {
namespace transport {
namespace {

size_t pageBytes() {
  static const size_t page = [] {
    long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? size_t(p) : size_t(4096);
  }();
  return page;
}

struct Buffer {
  size_t bytes = 0;  ///< asked for
  size_t mapped = 0; ///< the mapping: bytes rounded up to pages, + a page
  uint64_t key = 0;
  int fd = -1;
  HostBufferTrailer *trailer = nullptr;
};

/// This process's live host buffers by start address.
struct Registry {
  std::shared_mutex mutex;
  std::map<uintptr_t, Buffer> buffers;
  std::atomic<size_t> count{0};
  uint32_t counter = 0;
};
Registry &registry() {
  static Registry *r = new Registry(); // never destroyed: used at exit
  return *r;
}

} // namespace

bool findHostBuffer(const void *data, size_t bytes, uint64_t *key,
                    uint64_t *offset) {
  Registry &r = registry();
  if (r.count.load(std::memory_order_acquire) == 0 || !data)
    return false;
  uintptr_t at = reinterpret_cast<uintptr_t>(data);
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  auto it = r.buffers.upper_bound(at);
  if (it == r.buffers.begin())
    return false;
  --it;
  const Buffer &b = it->second;
  if (at - it->first > b.bytes || bytes > b.bytes - (at - it->first))
    return false;
  *key = b.key;
  *offset = at - it->first;
  return true;
}

PeerHostBuffer::~PeerHostBuffer() {
  ::munmap(const_cast<char *>(base_), mapped_);
}

bool PeerHostBuffer::freed() const {
  const auto *trailer = reinterpret_cast<const HostBufferTrailer *>(
      base_ + (mapped_ - pageBytes()));
  return trailer->freed.load(std::memory_order_acquire) != 0;
}

Status mapPeerHostBuffer(int64_t pid, uint64_t key,
                         std::shared_ptr<const PeerHostBuffer> *out,
                         bool writable) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" +
                     std::to_string(hostBufferFd(key));
  auto fail = [&](const std::string &why) {
    return Status(ErrorCode::SystemError,
                  "mapping host buffer " + std::to_string(key & 0xffffffffu) +
                      " of pid " + std::to_string(pid) + " (" + path +
                      "): " + why);
  };
  int fd = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0)
    return fail(std::string("open: ") + std::strerror(errno) +
                (errno == EACCES || errno == EPERM
                     ? " (another user's process, or ptrace rules forbid "
                       "reading its descriptors)"
                     : ""));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(std::string("fstat: ") + std::strerror(err));
  }
  size_t mapped = size_t(st.st_size);
  if (mapped < pageBytes() || mapped % pageBytes() != 0) {
    ::close(fd);
    return fail("it is " + std::to_string(mapped) +
                " bytes long, not a host buffer's whole pages (was it freed "
                "while a message from it was in flight?)");
  }
  void *p = ::mmap(nullptr, mapped, PROT_READ | (writable ? PROT_WRITE : 0),
                   MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED)
    return fail(std::string("mmap: ") + std::strerror(err));
  const char *base = static_cast<const char *>(p);
  const auto *trailer = reinterpret_cast<const HostBufferTrailer *>(
      base + (mapped - pageBytes()));
  if (trailer->magic != kHostBufferMagic || trailer->key != key ||
      trailer->bytes > mapped - pageBytes()) {
    ::munmap(p, mapped);
    return fail("it is not the host buffer the message named (was it freed "
                "while a message from it was in flight?)");
  }
  *out = std::make_shared<const PeerHostBuffer>(base, mapped, trailer->bytes);
  return Status::success();
}

} // namespace transport

Status allocateHostBuffer(size_t bytes, void **out) {
  using namespace transport;
  if (!out)
    return Status(ErrorCode::InvalidArgument,
                  "allocateHostBuffer: no pointer to fill");
  *out = nullptr;
  if (bytes == 0)
    return Status(ErrorCode::InvalidArgument, "allocateHostBuffer of 0 bytes");
  size_t page = pageBytes();
  if (bytes > (SIZE_MAX >> 2))
    return Status(ErrorCode::InvalidArgument,
                  "allocateHostBuffer of " + std::to_string(bytes) +
                      " bytes: more than this process can map");
  size_t data = (bytes + page - 1) / page * page;
  size_t mapped = data + page;
  auto fail = [&](const char *call, int err) {
    return Status(ErrorCode::SystemError,
                  "allocateHostBuffer of " + std::to_string(bytes) +
                      " bytes: " + call + ": " + std::strerror(err));
  };
  int fd = ::memfd_create("collrt-host-buffer", MFD_CLOEXEC);
  if (fd < 0)
    return fail("memfd_create", errno);
  if (::ftruncate(fd, off_t(mapped)) != 0) {
    int err = errno;
    ::close(fd);
    return fail("ftruncate", err);
  }
  void *p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    ::close(fd);
    return fail("mmap", err);
  }
  Registry &r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (++r.counter == 0)
    ++r.counter;
  Buffer b;
  b.bytes = bytes;
  b.mapped = mapped;
  b.fd = fd;
  b.key = (uint64_t(uint32_t(fd)) << 32) | r.counter;
  b.trailer =
      reinterpret_cast<HostBufferTrailer *>(static_cast<char *>(p) + data);
  b.trailer->magic = kHostBufferMagic;
  b.trailer->key = b.key;
  b.trailer->bytes = bytes;
  b.trailer->freed.store(0, std::memory_order_release);
  r.buffers[reinterpret_cast<uintptr_t>(p)] = b;
  r.count.fetch_add(1, std::memory_order_release);
  *out = p;
  return Status::success();
}

Status freeHostBuffer(void *buffer) {
  using namespace transport;
  if (!buffer)
    return Status::success();
  Registry &r = registry();
  Buffer b;
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    auto it = r.buffers.find(reinterpret_cast<uintptr_t>(buffer));
    if (it == r.buffers.end())
      return Status(ErrorCode::InvalidArgument,
                    "freeHostBuffer of an address that allocateHostBuffer "
                    "did not return, or that was freed already");
    b = it->second;
    r.buffers.erase(it);
    r.count.fetch_sub(1, std::memory_order_release);
  }
  // Peers that mapped it see this and let their mappings go.
  b.trailer->freed.store(1, std::memory_order_release);
  ::munmap(buffer, b.mapped);
  ::close(b.fd);
  return Status::success();
}

} // namespace collrt
