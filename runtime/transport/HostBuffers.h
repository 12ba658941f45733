//===- HostBuffers.h - memory the processes of a host map -------*- C++ -*-===//
//
// collrt::allocateHostBuffer (collrt.h) returns memory backed by a memfd:
// its pages are this process's, and another process of the host (same
// user) maps the same pages by opening /proc/<pid>/fd/<fd>. The shm
// transport's receivers do that once per buffer and then read a message
// that lies in such a buffer with memcpy from their own mapping, instead of
// process_vm_readv, which pins the sender's pages on every call
// (docs/transports.md, "Host buffers").
//
// A buffer's mapping ends with one page of its own (HostBufferTrailer):
// magic, the buffer's key, its size, and a word its owner sets when it
// frees the buffer. The key is the memfd's descriptor number (upper 32 bits)
// and a per-process counter (lower 32 bits), so that a receiver that opens
// /proc/<pid>/fd/<fd> can check it found the buffer the message named, and
// drop its mapping once the owner freed it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TRANSPORT_HOSTBUFFERS_H
#define COLLRT_TRANSPORT_HOSTBUFFERS_H

#include "collrt/Status.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace collrt {
namespace transport {

constexpr uint64_t kHostBufferMagic = 0x636f6c6c68627566ull; // "collhbuf"

struct HostBufferTrailer {
  uint64_t magic;
  uint64_t key;
  uint64_t bytes;
  std::atomic<uint64_t> freed;
};

/// The memfd descriptor number a key names.
inline int32_t hostBufferFd(uint64_t key) { return int32_t(key >> 32); }

/// Where [data, data + bytes) lies when it is inside one host buffer of
/// this process: the buffer's key and the offset from its start.
bool findHostBuffer(const void *data, size_t bytes, uint64_t *key,
                    uint64_t *offset);

/// A host buffer of another process, mapped read-only into this one;
/// unmapped when the last holder lets go.
class PeerHostBuffer {
public:
  PeerHostBuffer(const char *base, size_t mapped, uint64_t bytes)
      : base_(base), mapped_(mapped), bytes_(bytes) {}
  ~PeerHostBuffer();
  PeerHostBuffer(const PeerHostBuffer &) = delete;
  PeerHostBuffer &operator=(const PeerHostBuffer &) = delete;

  const char *data() const { return base_; }
  /// The bytes its owner asked for.
  uint64_t bytes() const { return bytes_; }
  /// Whether its owner freed it (its pages stay readable here until this
  /// mapping goes).
  bool freed() const;

private:
  const char *base_;
  size_t mapped_;
  uint64_t bytes_;
};

/// Maps host buffer `key` of process `pid` (/proc/<pid>/fd/<fd>) and checks
/// that it is the buffer `key` names. SystemError saying why otherwise.
/// Read-only unless `writable` (the GPU backend's host-memory connections,
/// whose words both sides write; data() may then be cast to writable).
Status mapPeerHostBuffer(int64_t pid, uint64_t key,
                         std::shared_ptr<const PeerHostBuffer> *out,
                         bool writable = false);

} // namespace transport
} // namespace collrt

#endif
