//===- TransportTestUtil.h - worlds of transports for tests -----*- C++ -*-===//
//
// Builds a world of N transports of one kind whose ranks are threads of the
// test process (in-process; shm and tcp each with their own TCP bootstrap
// on 127.0.0.1), and polling helpers that give up at a deadline so that a
// failing test never hangs.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_TRANSPORTTESTUTIL_H
#define COLLRT_TEST_TRANSPORTTESTUTIL_H

#include "collrt/Bootstrap.h"
#include "collrt/Transport.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collrt {
namespace test {

struct World {
  /// Declared first so that they outlive the transports.
  std::vector<std::unique_ptr<Bootstrap>> bootstraps;
  std::vector<std::unique_ptr<Transport>> transports;
  Transport &operator[](int32_t rank) { return *transports[rank]; }
  int32_t size() const { return static_cast<int32_t>(transports.size()); }
};

/// A world of `n` transports of `kind` ("in-process", "shm", "tcp",
/// "ib"; an ib world needs an RDMA device, else Unsupported;
/// "ib_emulated": ib on the emulated libibverbs of test/fakeibverbs).
Status makeWorld(const std::string &kind, int32_t n, World *world);

/// The ib transport's options for `kind` ("ib": rdma-core's libibverbs;
/// "ib_emulated": test/fakeibverbs').
IbTransportOptions ibOptions(const std::string &kind);
/// Whether an ib `kind` has a usable device here: success, or Unsupported
/// saying why (the tests skip with it).
Status ibAvailable(const std::string &kind);

/// Runs fn(rank) on one thread per rank and joins them.
void runRanks(int32_t n, const std::function<void(int32_t)> &fn);

/// Connects every rank of `world` with its spec, concurrently; the first
/// failure (by rank) or success.
Status connectAll(World &world, const std::vector<ConnectionSpec> &specs,
                  double seconds);

/// Retries trySend until posted; Timeout at the deadline.
Status sendWait(Transport &t, const ConnectionKey &to, const void *data,
                size_t bytes, Deadline deadline);
/// Retries tryRecv until a message arrives, copies it into *out and
/// releases it; Timeout at the deadline.
Status recvWait(Transport &t, const ConnectionKey &from,
                std::vector<unsigned char> *out, Deadline deadline);

/// Position-dependent test bytes: differ by sender, receiver, channel,
/// message number and byte offset.
std::vector<unsigned char> pattern(int32_t from, int32_t to, uint32_t channel,
                                   int message, size_t bytes);

/// A free TCP port on 127.0.0.1 (bound and released; a race is possible
/// but unlikely, and the bootstrap's error would name the port).
int32_t freePort();

} // namespace test
} // namespace collrt

#endif
