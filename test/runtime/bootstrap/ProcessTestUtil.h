//===- ProcessTestUtil.h - free ports, forked ranks for tests ---*- C++ -*-===//
//
// Ranks as fork()ed processes inside a GoogleTest binary: the child runs
// one function and _exit()s with its result, so it never returns into the
// test framework; every wait for a child is bounded and kills it at the
// deadline, so that a failing test never hangs.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_PROCESSTESTUTIL_H
#define COLLRT_TEST_PROCESSTESTUTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

namespace collrt {
namespace test {

/// A free TCP port on 127.0.0.1 (bound, then released: another process may
/// take it in between, which would make the test's bootstrap fail with an
/// error naming the port, not pass wrongly).
inline int freeTcpPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (fd >= 0 &&
      ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  if (fd >= 0)
    ::close(fd);
  return port;
}

/// Runs body() in a child process that exits with its result (0 = pass)
/// and never returns. -1 when fork fails.
inline pid_t forkChild(const std::function<int()> &body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 1;
    try {
      code = body();
    } catch (...) {
      code = 99;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  return pid;
}

/// Waits up to `seconds` for `pid`; on timeout kills it (SIGKILL) and
/// reaps it. Returns the exit code, 128 + signal when killed by one, or
/// -1 when it had to be killed at the deadline.
inline int waitChild(pid_t pid, double seconds) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(seconds));
  for (;;) {
    int status = 0;
    pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      if (WIFEXITED(status))
        return WEXITSTATUS(status);
      if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
      return -2;
    }
    if (got < 0)
      return -3;
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

} // namespace test
} // namespace collrt

#endif
