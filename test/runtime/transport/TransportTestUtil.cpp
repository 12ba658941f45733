//===- TransportTestUtil.cpp - worlds of transports for tests -------------===//
#include "TransportTestUtil.h"

#include "net/IbvNet.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <thread>

namespace collrt {
namespace test {

void runRanks(int32_t n, const std::function<void(int32_t)> &fn) {
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < n; ++r)
    threads.emplace_back(fn, r);
  for (std::thread &t : threads)
    t.join();
}

int32_t freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    if (fd >= 0)
      ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

IbTransportOptions ibOptions(const std::string &kind) {
  IbTransportOptions o;
#ifdef FAKE_IBVERBS_EMULATED
  if (kind == "ib_emulated")
    o.library = FAKE_IBVERBS_EMULATED;
#endif
  return o;
}

Status ibAvailable(const std::string &kind) {
#ifndef FAKE_IBVERBS_EMULATED
  if (kind == "ib_emulated")
    return Status(ErrorCode::Unsupported,
                  "this build has no emulated libibverbs (no "
                  "<infiniband/verbs.h>)");
#endif
  IbTransportOptions o = ibOptions(kind);
  net::IbvNetOptions options;
  options.oobHost = "127.0.0.1";
  options.library = o.library;
  std::unique_ptr<net::Net> probe;
  return net::createIbvNet(options, "the ib transport's tests", &probe);
}

Status makeWorld(const std::string &kind, int32_t n, World *world) {
  world->transports.clear();
  world->bootstraps.clear();
  if (kind == "in-process") {
    auto fabric = createInProcessFabric(n);
    for (int32_t r = 0; r < n; ++r)
      world->transports.push_back(createInProcessTransport(fabric, r));
    return Status::success();
  }
  int32_t port = freePort();
  world->bootstraps.resize(n);
  world->transports.resize(n);
  std::vector<Status> results(n);
  runRanks(n, [&](int32_t r) {
    LaunchInfo info;
    info.rank = r;
    info.worldSize = n;
    info.localRank = r;
    info.masterAddr = "127.0.0.1";
    info.masterPort = port;
    info.launcher = "test";
    results[r] =
        createTcpBootstrap(info, Deadline::after(20), &world->bootstraps[r]);
    if (!results[r].ok())
      return;
    if (kind == "shm")
      results[r] =
          createShmTransport(*world->bootstraps[r], &world->transports[r]);
    else if (kind == "tcp")
      results[r] =
          createTcpTransport(*world->bootstraps[r], "", &world->transports[r]);
    else if (kind == "ib" || kind == "ib_emulated")
      results[r] = createIbTransport(*world->bootstraps[r], ibOptions(kind),
                                     &world->transports[r]);
    else
      results[r] =
          Status(ErrorCode::InvalidArgument, "unknown transport " + kind);
  });
  for (const Status &s : results)
    if (!s.ok())
      return s;
  return Status::success();
}

Status connectAll(World &world, const std::vector<ConnectionSpec> &specs,
                  double seconds) {
  std::vector<Status> results(world.size());
  Deadline deadline = Deadline::after(seconds);
  runRanks(world.size(), [&](int32_t r) {
    results[r] = world[r].connect(specs[r], deadline);
  });
  for (const Status &s : results)
    if (!s.ok())
      return s;
  return Status::success();
}

Status sendWait(Transport &t, const ConnectionKey &to, const void *data,
                size_t bytes, Deadline deadline) {
  for (;;) {
    bool posted = false;
    if (Status s = t.trySend(to, data, bytes, &posted); !s.ok())
      return s;
    if (posted)
      return Status::success();
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    "test: rank " + std::to_string(t.rank()) +
                        " timed out sending to " + std::to_string(to.peer) +
                        " on channel " + std::to_string(to.channel));
    std::this_thread::yield();
  }
}

Status recvWait(Transport &t, const ConnectionKey &from,
                std::vector<unsigned char> *out, Deadline deadline) {
  for (;;) {
    const void *data = nullptr;
    size_t bytes = 0;
    bool ready = false;
    if (Status s = t.tryRecv(from, &data, &bytes, &ready); !s.ok())
      return s;
    if (ready) {
      const auto *p = static_cast<const unsigned char *>(data);
      out->assign(p, p + bytes);
      return t.releaseRecv(from);
    }
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    "test: rank " + std::to_string(t.rank()) +
                        " timed out receiving from " +
                        std::to_string(from.peer) + " on channel " +
                        std::to_string(from.channel));
    std::this_thread::yield();
  }
}

std::vector<unsigned char> pattern(int32_t from, int32_t to, uint32_t channel,
                                   int message, size_t bytes) {
  std::vector<unsigned char> out(bytes);
  uint32_t seed = uint32_t(from) * 7919u + uint32_t(to) * 104729u +
                  channel * 1299709u + uint32_t(message) * 15485863u;
  for (size_t i = 0; i < bytes; ++i)
    out[i] = static_cast<unsigned char>((seed + i * 2654435761u) >> 13);
  return out;
}

} // namespace test
} // namespace collrt
