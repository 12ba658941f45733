//===- SocketNet.cpp - the Net interface over TCP sockets -----------------===//
//
// One non-blocking TCP socket per connection. The receiving end announces
// each posted receive with a clear-to-send frame (tag, sequence number,
// capacity); the sending end keeps them per tag and answers one with a data
// frame (tag, the receive's sequence number, size, payload). So a message
// only travels once a buffer waits for it, as with RDMA writes (IbvNet),
// and the two Nets behave alike for the transport above them.
//
// Frames: a 32-byte big-endian header (type, tag, sequence, size) and, for
// hello and data, a payload. The connecting side opens with a hello: magic,
// the listener's nonce (from the handle) and the depth it asks for.
//
//===----------------------------------------------------------------------===//
#include "SocketInternal.h"
#include "Sysfs.h"
#include "runtime/net/NetHandle.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace collrt {
namespace net {

namespace {

using namespace sock;

/// Writes the hello, then becomes a send connection.
class SocketConnecting final : public NetConnecting {
public:
  SocketConnecting(Fd fd, std::string peer, std::string hello)
      : fd_(std::move(fd)), peer_(std::move(peer)), hello_(std::move(hello)) {}

  Status step(std::unique_ptr<NetSendComm> *comm) override {
    while (sent_ < hello_.size()) {
      ssize_t n = ::send(fd_.get(), hello_.data() + sent_,
                         hello_.size() - sent_, MSG_NOSIGNAL);
      if (n < 0) {
        if (transient(errno))
          return Status::success();
        return connectionError(peer_, errno);
      }
      sent_ += static_cast<size_t>(n);
    }
    *comm = makeSendComm(std::move(fd_), peer_);
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({fd_.get(), POLLOUT, 0});
    return false;
  }

private:
  Fd fd_;
  std::string peer_;
  std::string hello_;
  size_t sent_ = 0;
};

class SocketListenComm final : public NetListenComm {
public:
  SocketListenComm(Fd fd, std::string nonce)
      : fd_(std::move(fd)), nonce_(std::move(nonce)) {}

  Status accept(std::unique_ptr<NetRecvComm> *comm) override {
    comm->reset();
    for (;;) {
      Pending p;
      Endpoint from;
      if (Status s = acceptOne(fd_.get(), &p.fd, &from); !s.ok())
        return s;
      if (!p.fd.valid())
        break;
      p.from = from.toString();
      pending_.push_back(std::move(p));
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
      Pending &p = pending_[i];
      uint32_t depth = 0;
      bool drop = false;
      if (!readHello(p, &depth, &drop) && !drop)
        continue;
      if (!drop)
        *comm = makeRecvComm(std::move(p.fd), p.from, depth);
      // A stray connection (another run, a port scanner) is closed.
      pending_.erase(pending_.begin() + i);
      if (*comm)
        return Status::success();
      --i;
    }
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({fd_.get(), POLLIN, 0});
    for (Pending &p : pending_)
      fds->push_back({p.fd.get(), POLLIN, 0});
    return false;
  }

private:
  struct Pending {
    Fd fd;
    std::string from;
    std::string bytes;
  };

  /// True once the whole hello arrived and is valid; *drop for anything
  /// that cannot become one.
  bool readHello(Pending &p, uint32_t *depth, bool *drop) {
    for (;;) {
      size_t want = kHeaderBytes;
      Header h;
      if (p.bytes.size() >= kHeaderBytes) {
        if (!decode(p.bytes.data(), &h) || h.type != Frame::Hello ||
            h.size > kMaxHelloBytes) {
          *drop = true;
          return false;
        }
        want += h.size;
        if (p.bytes.size() == want) {
          std::string expected = std::string(kMagic) + " " + nonce_;
          if (p.bytes.substr(kHeaderBytes) != expected || h.seq < 1 ||
              h.seq > kMaxDepth) {
            *drop = true;
            return false;
          }
          *depth = static_cast<uint32_t>(h.seq);
          return true;
        }
      }
      char buf[kHeaderBytes + kMaxHelloBytes];
      ssize_t n = ::recv(p.fd.get(), buf, want - p.bytes.size(), 0);
      if (n == 0 || (n < 0 && !transient(errno))) {
        *drop = true;
        return false;
      }
      if (n < 0)
        return false;
      p.bytes.append(buf, static_cast<size_t>(n));
    }
  }

  Fd fd_;
  std::string nonce_;
  std::vector<Pending> pending_;
};

/// The interface that holds `host`, if any.
std::string interfaceOf(const std::string &host) {
  ifaddrs *list = nullptr;
  if (::getifaddrs(&list) != 0)
    return "";
  std::string name;
  for (ifaddrs *a = list; a && name.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || !a->ifa_name)
      continue;
    Endpoint e;
    if (a->ifa_addr->sa_family == AF_INET)
      std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in));
    else if (a->ifa_addr->sa_family == AF_INET6)
      std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in6));
    else
      continue;
    if (e.host() == host)
      name = a->ifa_name;
  }
  ::freeifaddrs(list);
  return name;
}

/// Why the file `fd` (a stand-in for a dma-buf: the exported memory starts
/// at its file position) does not hold [data, data + bytes) of this
/// process at `offset` from that position; "" when it does. The mapping
/// of /proc/self/maps that holds `data` must map the file (its device and
/// inode) at the file offset position + offset, and hold all the bytes.
std::string dmaBufMismatch(int fd, const void *data, size_t bytes,
                           uint64_t offset) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return std::string("fstat: ") + std::strerror(errno);
  off_t position = ::lseek(fd, 0, SEEK_CUR);
  if (position < 0)
    return std::string("lseek: ") + std::strerror(errno);
  std::ifstream maps("/proc/self/maps");
  if (!maps)
    return "cannot read /proc/self/maps";
  uintptr_t at = uintptr_t(data);
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long start = 0, end = 0, fileOffset = 0, inode = 0;
    unsigned devMajor = 0, devMinor = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu", &start, &end,
                    perms, &fileOffset, &devMajor, &devMinor, &inode) != 7)
      continue;
    if (at < start || at >= end)
      continue;
    std::string path;
    if (size_t slash = line.find('/'); slash != std::string::npos)
      path = " (" + line.substr(slash) + ")";
    if (inode == 0 || devMajor != major(st.st_dev) ||
        devMinor != minor(st.st_dev) || inode != uint64_t(st.st_ino))
      return "the address is mapped from " +
             (inode == 0 ? std::string("no file") + path
                         : "device " + std::to_string(devMajor) + ":" +
                               std::to_string(devMinor) + " inode " +
                               std::to_string(inode) + path) +
             ", and the fd is device " + std::to_string(major(st.st_dev)) +
             ":" + std::to_string(minor(st.st_dev)) + " inode " +
             std::to_string(uint64_t(st.st_ino));
    uint64_t where = fileOffset + (at - start);
    if (where != uint64_t(position) + offset)
      return "the address is at offset " + std::to_string(where) +
             " of the file, and the dma-buf (which starts at the fd's "
             "position " +
             std::to_string(position) + ") puts it at " +
             std::to_string(uint64_t(position) + offset);
    if (bytes > end - at)
      return "its mapping ends " + std::to_string(end - at) +
             " bytes after the address";
    return "";
  }
  return "no mapping of this process holds the address";
}

class SocketNet final : public Net {
public:
  SocketNet(std::string host, std::string what, bool deviceIsHost)
      : host_(std::move(host)), what_(std::move(what)),
        deviceIsHost_(deviceIsHost) {
    NetDeviceInfo d;
    d.deviceMemory = deviceIsHost_;
    std::string ifname = interfaceOf(host_);
    d.name = ifname.empty() ? host_ : ifname;
    d.address = host_;
    if (!ifname.empty()) {
      std::string dir = "/sys/class/net/" + ifname;
      std::string speed = readSysfsLine(dir + "/speed");
      if (!speed.empty() && std::atof(speed.c_str()) > 0)
        d.speedMbps = std::atof(speed.c_str());
      d.pciPath = sysfsPciPath(dir);
      d.numa = sysfsNumaNode(dir);
    }
    d.maxDepth = kMaxDepth;
    d.maxMessageBytes = size_t(1) << 40;
    devices_.push_back(d);
  }

  const char *name() const override { return "socket"; }
  const std::vector<NetDeviceInfo> &devices() const override {
    return devices_;
  }

  Status listen(int dev, std::string *handle,
                std::unique_ptr<NetListenComm> *listen) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    Fd fd;
    std::string nonce;
    if (Status s = listenForHandle(host_, what_, &fd, handle, &nonce); !s.ok())
      return s;
    *listen = std::make_unique<SocketListenComm>(std::move(fd), nonce);
    return Status::success();
  }

  Status connect(int dev, const std::string &handle, uint32_t depth,
                 Deadline deadline,
                 std::unique_ptr<NetConnecting> *connecting) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (depth < 1 || depth > kMaxDepth)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": a connection depth of " + std::to_string(depth) +
                        " is outside 1.." + std::to_string(kMaxDepth));
    Fd fd;
    std::string peer, nonce;
    if (Status s =
            connectToHandle(handle, what_, "a socket net handle",
                            "the listener", deadline, &fd, &peer, &nonce);
        !s.ok())
      return s;
    std::string payload = std::string(kMagic) + " " + nonce;
    char header[kHeaderBytes];
    encode({Frame::Hello, 0, depth, payload.size()}, header);
    *connecting = std::make_unique<SocketConnecting>(
        std::move(fd), peer, std::string(header, kHeaderBytes) + payload);
    return Status::success();
  }

  Status regMr(int dev, void *data, size_t bytes, NetMemoryKind kind,
               std::unique_ptr<NetMemory> *memory) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (kind == NetMemoryKind::Device && !deviceIsHost_)
      return Status(ErrorCode::Unsupported,
                    what_ + ": the socket net cannot send from or receive "
                            "into GPU memory");
    if (!data && bytes > 0)
      return Status(ErrorCode::InvalidArgument, what_ + ": regMr of " +
                                                    std::to_string(bytes) +
                                                    " bytes at a null address");
    *memory = std::make_unique<SocketMemory>(data, bytes, kind);
    return Status::success();
  }

  Status regMrDmaBuf(int dev, void *data, size_t bytes, int fd, uint64_t offset,
                     std::unique_ptr<NetMemory> *memory) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (!deviceIsHost_)
      return Status(ErrorCode::Unsupported,
                    what_ + ": the socket net cannot register dma-buf (GPU) "
                            "memory");
    // The emulator's "GPU memory" is host memory and its dma-buf a file
    // that maps it: check that the file backs the memory where the offset
    // says, as a NIC would find it.
    if (!data || bytes == 0)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": regMrDmaBuf of " + std::to_string(bytes) +
                        " bytes at address " + hexAddress(data));
    if (std::string why = dmaBufMismatch(fd, data, bytes, offset); !why.empty())
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": dma-buf fd " + std::to_string(fd) +
                        " does not back address " + hexAddress(data) +
                        " (offset " + std::to_string(offset) + ", " +
                        std::to_string(bytes) + " bytes): " + why);
    *memory =
        std::make_unique<SocketMemory>(data, bytes, NetMemoryKind::Device);
    return Status::success();
  }

  Status deregMr(std::unique_ptr<NetMemory> memory) override {
    if (!memory || !dynamic_cast<SocketMemory *>(memory.get()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": deregMr of memory the socket net did not "
                            "register");
    return Status::success();
  }

private:
  Status checkDevice(int dev) const {
    if (dev < 0 || dev >= static_cast<int>(devices_.size()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": socket net device " + std::to_string(dev) +
                        " does not exist (it has " +
                        std::to_string(devices_.size()) + ")");
    return Status::success();
  }

  std::string host_;
  std::string what_;
  bool deviceIsHost_ = false;
  std::vector<NetDeviceInfo> devices_;
};

} // namespace

Status createSocketNet(const std::string &host, const std::string &what,
                       std::unique_ptr<Net> *net, bool deviceIsHost) {
  Endpoint e;
  if (Status s = resolve(host, 0, &e); !s.ok())
    return withContext(s, what);
  *net = std::make_unique<SocketNet>(e.host(), what, deviceIsHost);
  return Status::success();
}

} // namespace net
} // namespace collrt
