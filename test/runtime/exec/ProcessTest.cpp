//===- ProcessTest.cpp - Communicator::createFromEnvironment, forked ranks ===//
//
// Each rank is a fork()ed child with COLLC_RANK, COLLC_WORLD_SIZE,
// COLLC_LOCAL_RANK and COLLC_MASTER_ADDR/PORT set, as a launcher would: it
// creates its communicator from the environment, runs collectives over shm
// or tcp, checks its own output against the reference and exits with 0 (or
// prints what went wrong and exits with 1). The child never returns into
// GoogleTest, and the parent kills any child still running at a deadline,
// so a failing test never hangs.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

namespace collrt {
namespace {

using namespace testing;

/// A TCP port that was free a moment ago (another process may take it
/// before the rendezvous; the rendezvous then fails naming it).
int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (fd >= 0 &&
      ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  if (fd >= 0)
    ::close(fd);
  return port;
}

/// Forks `n` ranks running `body(rank)` (0 = pass) and waits for them, at
/// most `seconds`; the exit codes (-1: killed at the deadline).
std::vector<int> runProcesses(int32_t n, double seconds,
                              const std::function<int(int32_t)> &body) {
  int port = freePort();
  std::vector<pid_t> children;
  for (int32_t r = 0; r < n; ++r) {
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("COLLC_RANK", std::to_string(r).c_str(), 1);
      ::setenv("COLLC_WORLD_SIZE", std::to_string(n).c_str(), 1);
      ::setenv("COLLC_LOCAL_RANK", std::to_string(r).c_str(), 1);
      ::setenv("COLLC_MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("COLLC_MASTER_PORT", std::to_string(port).c_str(), 1);
      int code = 1;
      try {
        code = body(r);
      } catch (...) {
        code = 99;
      }
      std::fflush(nullptr);
      ::_exit(code);
    }
    children.push_back(pid);
  }
  auto until = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(int64_t(seconds * 1000));
  std::vector<int> codes(children.size(), -1);
  for (size_t i = 0; i < children.size(); ++i) {
    for (;;) {
      int status = 0;
      if (children[i] > 0 &&
          ::waitpid(children[i], &status, WNOHANG) == children[i]) {
        codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        break;
      }
      if (children[i] <= 0 || std::chrono::steady_clock::now() > until) {
        if (children[i] > 0) {
          ::kill(children[i], SIGKILL);
          ::waitpid(children[i], &status, 0);
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  return codes;
}

/// A child's check: prints the failure to stderr and returns 1.
int fail(int32_t rank, const std::string &what) {
  std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
  return 1;
}

/// Runs `plan` on this process's rank and checks its output.
int runRank(Communicator &comm, const Plan &plan, int64_t count) {
  int32_t rank = comm.rank();
  WorldBuffers buffers = makeBuffers(plan, count);
  auto &in = buffers.inputs[size_t(rank)];
  auto &out = buffers.outputs[size_t(rank)];
  const PlanCollective &c = plan.collectives[0];
  int64_t myCount = c.program.collective == Collective::AllToAllV
                        ? int64_t(in.size() / dataTypeSize(c.dtype))
                        : count;
  Status s = comm.run(plan, 0, in.empty() ? nullptr : in.data(),
                      out.empty() ? nullptr : out.data(), myCount, c.dtype,
                      c.reduction);
  if (!s.ok())
    return fail(rank, s.toString());
  std::string wrong = checkWorld(plan, count, buffers, rank);
  return wrong.empty() ? 0 : fail(rank, wrong);
}

void runOverTransport(const std::string &transport, const char *expectedName) {
  const int32_t n = 3;
  Plan ring = makePlan(ringAllReduce(n, 2, 2), DataType::BF16, ReduceOp::Avg);
  Plan a2a = makePlan(directAllToAll(n, 2), DataType::F64, ReduceOp::Sum);
  Plan staged =
      makePlan(stagedRingAllGather(n, 3), DataType::I32, ReduceOp::Sum);
  std::vector<int> codes = runProcesses(n, 60, [&](int32_t) {
    CommOptions options;
    options.transport = transport;
    options.timeoutSeconds = 20;
    options.slotBytes = 4096; // several tiles per chunk
    std::unique_ptr<Communicator> comm;
    if (Status s = Communicator::createFromEnvironment(options, &comm); !s.ok())
      return fail(-1, s.toString());
    if (std::string(comm->transportName()) != expectedName)
      return fail(comm->rank(), std::string("transport ") +
                                    comm->transportName() + ", expected " +
                                    expectedName);
    // describe() starts with the transport's name ("tcp: rank 0 listens
    // on ...").
    if (comm->describeTransport().rfind(expectedName, 0) != 0)
      return fail(comm->rank(),
                  "describeTransport() is '" + comm->describeTransport() + "'");
    for (const Plan *plan : {&ring, &a2a, &ring, &staged})
      if (int code = runRank(*comm, *plan, 5000 + 7); code != 0)
        return code;
    if (Status s = comm->finalize(); !s.ok())
      return fail(comm->rank(), s.toString());
    Status after =
        comm->run(ring, 0, nullptr, nullptr, 0, DataType::BF16, ReduceOp::Avg);
    if (after.code() != ErrorCode::InvalidArgument)
      return fail(comm->rank(), "run() after finalize(): " + after.toString());
    return 0;
  });
  for (int32_t r = 0; r < n; ++r)
    EXPECT_EQ(codes[size_t(r)], 0) << transport << " rank " << r;
}

TEST(ProcessTest, RanksAsProcessesOverShm) { runOverTransport("shm", "shm"); }

TEST(ProcessTest, RanksAsProcessesOverTcp) { runOverTransport("tcp", "tcp"); }

TEST(ProcessTest, AutoChoosesShmOnOneHost) { runOverTransport("auto", "shm"); }

TEST(ProcessTest, ARankThatFinishesFirstDeliversItsLastMessages) {
  // The root of a chain broadcast is done once its last sends are posted;
  // over tcp they are still in flight. Its communicator's destructor
  // (finalize) waits for the others, so that exiting loses nothing.
  const int32_t n = 3;
  Plan broadcast =
      makePlan(chainBroadcast(n, 16, 0), DataType::I8, ReduceOp::Sum);
  for (int round = 0; round < 5; ++round) {
    std::vector<int> codes = runProcesses(n, 60, [&](int32_t rank) {
      CommOptions options;
      options.transport = "tcp";
      options.timeoutSeconds = 20;
      options.slotBytes = 64; // many small messages
      std::unique_ptr<Communicator> comm;
      if (Status s = Communicator::createFromEnvironment(options, &comm);
          !s.ok())
        return fail(rank, s.toString());
      return runRank(*comm, broadcast, 4000);
    });
    for (int32_t r = 0; r < n; ++r)
      EXPECT_EQ(codes[size_t(r)], 0) << "round " << round << " rank " << r;
  }
}

TEST(ProcessTest, AKilledRankIsAPeerFailure) {
  // Rank 2 dies (SIGKILL) instead of running a second time; the others'
  // runs fail with PeerFailure (exit code 3), well before their 20 s
  // watchdog. Rank 2 dies only once the others finished the first run (a
  // pipe: tcp sends are in flight until the proxy thread wrote them, and a
  // killed process loses them).
  const int32_t n = 3;
  Plan ring = makePlan(ringAllReduce(n, 1, 1), DataType::F32, ReduceOp::Sum);
  int done[2];
  ASSERT_EQ(::pipe(done), 0);
  std::vector<int> codes = runProcesses(n, 60, [&](int32_t rank) {
    CommOptions options;
    options.transport = "tcp";
    options.timeoutSeconds = 20;
    std::unique_ptr<Communicator> comm;
    if (Status s = Communicator::createFromEnvironment(options, &comm); !s.ok())
      return fail(rank, s.toString());
    if (int code = runRank(*comm, ring, 100); code != 0)
      return code;
    if (rank == 2) {
      char bytes[2];
      for (ssize_t got = 0; got < 2;) {
        ssize_t r = ::read(done[0], bytes + got, size_t(2 - got));
        if (r <= 0)
          return fail(rank, "the pipe closed");
        got += r;
      }
      ::raise(SIGKILL);
    }
    if (::write(done[1], "x", 1) != 1)
      return fail(rank, "could not write the pipe");
    WorldBuffers buffers = makeBuffers(ring, 100);
    Status s = comm->run(ring, 0, buffers.inputs[size_t(rank)].data(),
                         buffers.outputs[size_t(rank)].data(), 100,
                         DataType::F32, ReduceOp::Sum);
    if (s.code() != ErrorCode::PeerFailure)
      return fail(rank, "expected a peer failure, got " + s.toString());
    return 3;
  });
  ::close(done[0]);
  ::close(done[1]);
  EXPECT_EQ(codes[0], 3);
  EXPECT_EQ(codes[1], 3);
  EXPECT_EQ(codes[2], 128); // killed by its signal
}

bool hostHasRdmaDevice() {
  std::error_code ignored;
  return std::filesystem::is_directory("/sys/class/infiniband", ignored) &&
         !std::filesystem::is_empty("/sys/class/infiniband", ignored);
}

// transport = "ib" is never replaced by another transport: where the host
// has no RDMA device, every rank fails with Unsupported naming tcp; where
// it has one, the ranks run over it and describe the NIC.
TEST(ProcessTest, IbRunsOrSaysWhyNot) {
  const int32_t n = 2;
  Plan ring = makePlan(ringAllReduce(n, 2, 2), DataType::F32, ReduceOp::Sum);
  std::vector<int> codes = runProcesses(n, 60, [&](int32_t rank) {
    CommOptions options;
    options.transport = "ib";
    options.timeoutSeconds = 20;
    std::unique_ptr<Communicator> comm;
    Status s = Communicator::createFromEnvironment(options, &comm);
    if (!s.ok()) {
      if (s.code() == ErrorCode::Unsupported &&
          s.message().find("the ib transport: ib transport, rank " +
                           std::to_string(rank)) != std::string::npos &&
          s.message().find("run with --transport tcp") != std::string::npos)
        return 4;
      return fail(rank, s.toString());
    }
    if (std::string(comm->transportName()) != "ib" ||
        comm->describeTransport().rfind("ib: rank " + std::to_string(rank), 0))
      return fail(rank, "ib transport described as '" +
                            comm->describeTransport() + "'");
    if (int code = runRank(*comm, ring, 1000); code != 0)
      return code;
    Status closed = comm->finalize();
    return closed.ok() ? 0 : fail(rank, closed.toString());
  });
  int expected = hostHasRdmaDevice() ? 0 : 4;
  for (int32_t r = 0; r < n; ++r)
    EXPECT_EQ(codes[size_t(r)], expected) << "rank " << r;
}

TEST(ProcessTest, UnknownTransportName) {
  CommOptions options;
  options.transport = "infiniband";
  std::unique_ptr<Communicator> comm;
  Status s = Communicator::createFromEnvironment(options, &comm);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CommOptions::transport = \"infiniband\" is not a "
                         "transport; the valid ones are \"auto\", \"shm\", "
                         "\"tcp\" and \"ib\"");
  EXPECT_EQ(comm, nullptr);
}

// The ib options with another transport would be ignored: refused before
// any rendezvous (no launcher variables are needed to see it).
TEST(ProcessTest, IbOptionsNeedTheIbTransport) {
  std::unique_ptr<Communicator> comm;
  CommOptions device;
  device.ibDevice = "mlx5_0";
  Status s = Communicator::createFromEnvironment(device, &comm);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "CommOptions::ibDevice applies to the ib transport only, and "
            "CommOptions::transport is \"auto\" (which never chooses ib): "
            "set transport = \"ib\"");
  CommOptions topology;
  topology.transport = "tcp";
  topology.topologyFile = "dgx8x8.json";
  s = Communicator::createFromEnvironment(topology, &comm);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CommOptions::topologyFile applies to the ib "
                         "transport only, and CommOptions::transport is "
                         "\"tcp\"");
  CommOptions rank;
  rank.transport = "ib";
  rank.topologyRank = 3;
  s = Communicator::createFromEnvironment(rank, &comm);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CommOptions::topologyRank = 3 is a rank of "
                         "CommOptions::topologyFile, which is not set");
  rank.topologyFile = "dgx8x8.json";
  rank.topologyRank = -2;
  s = Communicator::createFromEnvironment(rank, &comm);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "CommOptions::topologyRank = -2 must be a rank of "
                         "the topology, or -1 for the world rank");
  EXPECT_EQ(comm, nullptr);
}

} // namespace
} // namespace collrt
