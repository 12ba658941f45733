//===- IbvNet.cpp - RDMA devices, memory registration, listen/connect -----===//
//
// createIbvNet: loads libibverbs (IbvWrap), opens every device, keeps each
// active port as a Net device with its properties (speed, link layer,
// NUMA node and PCI path from sysfs). The queue pairs and the
// communicators are in IbvComm.cpp.
//
//===----------------------------------------------------------------------===//
#include "IbvNet.h"
#include "IbvInternal.h"
#include "Sysfs.h"
#include "runtime/net/NetHandle.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>

namespace collrt {
namespace net {

#if COLLRT_HAVE_VERBS_H
namespace ibv {

Context::Context(std::shared_ptr<const IbvApi> api, ibv_context *context,
                 std::string name, const ibv_device_attr &attr)
    : api_(std::move(api)), context_(context), name_(std::move(name)),
      attr_(attr) {}

Context::~Context() {
  if (channel_)
    api_->destroyCompChannel(channel_);
  if (pd_)
    api_->deallocPd(pd_);
  api_->closeDevice(context_);
}

Status Context::protectionDomain(ibv_pd **pd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!pd_) {
    errno = 0;
    pd_ = api_->allocPd(context_);
    if (!pd_)
      return sysError(ErrorCode::TransportError, "ibv_alloc_pd on " + name_,
                      errno ? errno : ENOMEM);
  }
  *pd = pd_;
  return Status::success();
}

Status Context::completionChannel(ibv_comp_channel **channel) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!channel_) {
    errno = 0;
    channel_ = api_->createCompChannel(context_);
    if (!channel_)
      return sysError(ErrorCode::TransportError,
                      "ibv_create_comp_channel on " + name_,
                      errno ? errno : ENOMEM);
    int flags = ::fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || ::fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) != 0)
      return sysError(ErrorCode::SystemError,
                      "fcntl(O_NONBLOCK) on the completion channel of " + name_,
                      errno);
  }
  *channel = channel_;
  return Status::success();
}

void Context::drainEvents() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!channel_)
    return;
  for (;;) {
    ibv_cq *cq = nullptr;
    void *cqContext = nullptr;
    if (api_->getCqEvent(channel_, &cq, &cqContext) != 0)
      return; // EAGAIN: none left
    api_->ackCqEvents(cq, 1);
  }
}

int Memory::deregister() {
  if (!mr_)
    return 0;
  int rc = context_->api().deregMr(mr_);
  mr_ = nullptr;
  return rc;
}

Status registerMemory(const Port &port, void *data, size_t bytes,
                      NetMemoryKind kind, const std::string &what,
                      std::unique_ptr<Memory> *memory) {
  if (!data || bytes == 0)
    return Status(ErrorCode::InvalidArgument,
                  what + ": ibv_reg_mr needs a non-empty region (got " +
                      std::to_string(bytes) + " bytes)");
  ibv_pd *pd = nullptr;
  if (Status s = port.context->protectionDomain(&pd); !s.ok())
    return withContext(s, what);
  errno = 0;
  ibv_mr *mr = port.context->api().regMr(pd, data, bytes,
                                         IBV_ACCESS_LOCAL_WRITE |
                                             IBV_ACCESS_REMOTE_WRITE |
                                             IBV_ACCESS_REMOTE_READ);
  if (!mr) {
    int err = errno ? errno : ENOMEM;
    std::string hint =
        kind == NetMemoryKind::Device
            ? " (GPU memory needs GPUDirect RDMA: the nvidia-peermem kernel "
              "module loaded, or registration through a dma-buf)"
        : err == ENOMEM || err == EPERM
            ? " (pinned memory is limited by 'ulimit -l'; raise it, e.g. "
              "unlimited)"
            : "";
    return Status(
        ErrorCode::TransportError,
        what + ": ibv_reg_mr of " + std::to_string(bytes) + " bytes of " +
            (kind == NetMemoryKind::Device ? "GPU" : "host") + " memory on " +
            port.info.name + " failed: " + std::strerror(err) + hint);
  }
  *memory = std::make_unique<Memory>(port.context, mr, data, bytes, kind);
  return Status::success();
}

namespace {

/// Gbit/s per lane of ibv_port_attr::active_speed.
double laneGbps(uint8_t speed) {
  switch (speed) {
  case 1:
    return 2.5; // SDR
  case 2:
    return 5.0; // DDR
  case 4:
  case 8:
    return 10.0; // QDR, FDR10
  case 16:
    return 14.0; // FDR
  case 32:
    return 25.0; // EDR
  case 64:
    return 50.0; // HDR
  case 128:
    return 100.0; // NDR
  default:
    return 0;
  }
}

int lanes(uint8_t width) {
  switch (width) {
  case 1:
    return 1;
  case 2:
    return 4;
  case 4:
    return 8;
  case 8:
    return 12;
  case 16:
    return 2;
  default:
    return 0;
  }
}

const char *portState(int state) {
  switch (state) {
  case IBV_PORT_DOWN:
    return "DOWN";
  case IBV_PORT_INIT:
    return "INIT";
  case IBV_PORT_ARMED:
    return "ARMED";
  case IBV_PORT_ACTIVE:
    return "ACTIVE";
  case IBV_PORT_ACTIVE_DEFER:
    return "ACTIVE_DEFER";
  default:
    return "NOP";
  }
}

/// The RoCE GID to use: the first RoCE v2 GID that holds an IPv4 address,
/// else the first RoCE v2 GID, else index 0.
int pickGid(const IbvApi &api, ibv_context *context, const std::string &name,
            uint8_t port, int gidTableLength) {
  int firstV2 = -1;
  for (int i = 0; i < gidTableLength; ++i) {
    ibv_gid gid;
    if (api.queryGid(context, port, i, &gid) != 0)
      continue;
    bool zero = true;
    for (uint8_t b : gid.raw)
      zero = zero && b == 0;
    if (zero)
      continue;
    std::string type = readSysfsLine("/sys/class/infiniband/" + name +
                                     "/ports/" + std::to_string(port) +
                                     "/gid_attrs/types/" + std::to_string(i));
    if (type != "RoCE v2")
      continue;
    bool v4 = true;
    for (int b = 0; b < 10; ++b)
      v4 = v4 && gid.raw[b] == 0;
    v4 = v4 && gid.raw[10] == 0xff && gid.raw[11] == 0xff;
    if (v4)
      return i;
    if (firstV2 < 0)
      firstV2 = i;
  }
  return firstV2 >= 0 ? firstV2 : 0;
}

class IbvNet final : public Net {
public:
  IbvNet(std::vector<Port> ports, std::string oobHost, std::string what)
      : ports_(std::move(ports)), oobHost_(std::move(oobHost)),
        what_(std::move(what)) {
    for (const Port &p : ports_)
      devices_.push_back(p.info);
  }

  const char *name() const override { return "ib"; }
  const std::vector<NetDeviceInfo> &devices() const override {
    return devices_;
  }

  Status listen(int dev, std::string *handle,
                std::unique_ptr<NetListenComm> *listen) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    Fd fd;
    std::string nonce;
    if (Status s = listenForHandle(oobHost_, what_, &fd, handle, &nonce);
        !s.ok())
      return s;
    *listen = ibv::makeListenComm(ports_[dev], std::move(fd), nonce,
                                  devices_[dev].maxDepth, what_);
    return Status::success();
  }

  Status connect(int dev, const std::string &handle, uint32_t depth,
                 Deadline deadline,
                 std::unique_ptr<NetConnecting> *connecting) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (depth < 1 || depth > devices_[dev].maxDepth)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": a connection depth of " + std::to_string(depth) +
                        " is outside 1.." +
                        std::to_string(devices_[dev].maxDepth) + " (what " +
                        devices_[dev].name +
                        "'s queue pairs and completion queues allow)");
    Fd fd;
    std::string peer, nonce;
    if (Status s = connectToHandle(handle, what_, "an ib net handle",
                                   "the ib connection listener", deadline, &fd,
                                   &peer, &nonce);
        !s.ok())
      return s;
    return ibv::startConnect(ports_[dev], std::move(fd), peer, nonce, depth,
                             what_, connecting);
  }

  Status regMr(int dev, void *data, size_t bytes, NetMemoryKind kind,
               std::unique_ptr<NetMemory> *memory) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    std::unique_ptr<ibv::Memory> m;
    if (Status s =
            ibv::registerMemory(ports_[dev], data, bytes, kind, what_, &m);
        !s.ok())
      return s;
    *memory = std::move(m);
    return Status::success();
  }

  Status regMrDmaBuf(int dev, void *data, size_t bytes, int fd, uint64_t offset,
                     std::unique_ptr<NetMemory> *memory) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    const Port &port = ports_[dev];
    const IbvApi &api = port.context->api();
    if (!api.regDmabufMr)
      return Status(ErrorCode::Unsupported,
                    what_ + ": " + api.library +
                        " lacks ibv_reg_dmabuf_mr (rdma-core 34 or newer "
                        "has it); register GPU memory through nvidia-peermem "
                        "with regMr instead");
    ibv_pd *pd = nullptr;
    if (Status s = port.context->protectionDomain(&pd); !s.ok())
      return withContext(s, what_);
    errno = 0;
    ibv_mr *mr = api.regDmabufMr(
        pd, offset, bytes, reinterpret_cast<uintptr_t>(data), fd,
        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
            IBV_ACCESS_REMOTE_READ);
    if (!mr) {
      int err = errno ? errno : EINVAL;
      // The kernel's NIC driver cannot import dma-bufs (NCCL's test for
      // dma-buf support looks for these): a lack of support, which
      // GPUDirect's automatic choice answers with nvidia-peermem.
      bool unsupported =
          err == EOPNOTSUPP || err == EPROTONOSUPPORT || err == ENOSYS;
      return Status(
          unsupported ? ErrorCode::Unsupported : ErrorCode::TransportError,
          what_ + ": ibv_reg_dmabuf_mr of " + std::to_string(bytes) +
              " bytes (dma-buf fd " + std::to_string(fd) + ") on " +
              port.info.name + " failed: " + std::strerror(err) +
              (unsupported ? " (the kernel's driver of " + port.info.name +
                                 " does not import dma-bufs)"
                           : std::string()));
    }
    *memory = std::make_unique<ibv::Memory>(port.context, mr, data, bytes,
                                            NetMemoryKind::Device);
    return Status::success();
  }

  Status deregMr(std::unique_ptr<NetMemory> memory) override {
    auto *m = dynamic_cast<ibv::Memory *>(memory.get());
    if (!m)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": deregMr of memory the ib net did not register");
    if (int err = m->deregister())
      return Status(ErrorCode::TransportError,
                    what_ + ": ibv_dereg_mr failed: " + std::strerror(err));
    return Status::success();
  }

private:
  Status checkDevice(int dev) const {
    if (dev < 0 || dev >= static_cast<int>(devices_.size()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": ib net device " + std::to_string(dev) +
                        " does not exist (it has " +
                        std::to_string(devices_.size()) + ")");
    return Status::success();
  }

  std::vector<Port> ports_;
  std::string oobHost_;
  std::string what_;
  std::vector<NetDeviceInfo> devices_;
};

} // namespace
} // namespace ibv

Status createIbvNet(const IbvNetOptions &options, const std::string &what,
                    std::unique_ptr<Net> *net) {
  std::shared_ptr<const IbvApi> api;
  if (Status s = loadIbverbs(
          options.library.empty() ? kIbverbsLibrary : options.library, &api);
      !s.ok())
    return withContext(s, what);
  int count = 0;
  errno = 0;
  ibv_device **list = api->getDeviceList(&count);
  if (!list) {
    int err = errno ? errno : ENODEV;
    return Status(ErrorCode::Unsupported,
                  what + ": no RDMA device: ibv_get_device_list failed (" +
                      std::strerror(err) +
                      (err == ENOSYS ? ": this kernel offers no RDMA devices, "
                                       "/sys/class/infiniband_verbs is missing"
                                     : ": is the RDMA kernel stack loaded?") +
                      "); " + ibTcpAlternative());
  }
  if (count == 0) {
    api->freeDeviceList(list);
    return Status(ErrorCode::Unsupported,
                  what + ": no RDMA device: " + api->library +
                      " found no devices (ibv_get_device_list returned 0); " +
                      ibTcpAlternative());
  }
  std::vector<ibv::Port> ports;
  std::vector<std::string> unusable;
  for (int i = 0; i < count; ++i) {
    std::string name = api->getDeviceName(list[i]);
    ibv_context *context = api->openDevice(list[i]);
    if (!context) {
      unusable.push_back(name + ": ibv_open_device failed (" +
                         std::strerror(errno ? errno : ENODEV) + ")");
      continue;
    }
    ibv_device_attr attr{};
    if (int rc = api->queryDevice(context, &attr)) {
      unusable.push_back(name + ": ibv_query_device failed (" +
                         std::strerror(rc) + ")");
      api->closeDevice(context);
      continue;
    }
    auto shared = std::make_shared<ibv::Context>(api, context, name, attr);
    std::string dir = "/sys/class/infiniband/" + name;
    for (int p = 1; p <= attr.phys_port_cnt; ++p) {
      ibv::Port port;
      port.context = shared;
      port.number = static_cast<uint8_t>(p);
      if (int rc = api->queryPort(context, port.number, &port.attr)) {
        unusable.push_back(name + " port " + std::to_string(p) +
                           ": ibv_query_port failed (" + std::strerror(rc) +
                           ")");
        continue;
      }
      if (port.attr.state != IBV_PORT_ACTIVE) {
        unusable.push_back(name + " port " + std::to_string(p) + " is " +
                           ibv::portState(port.attr.state));
        continue;
      }
      bool ethernet = port.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
      port.gidIndex =
          options.gidIndex >= 0
              ? options.gidIndex
              : (ethernet ? ibv::pickGid(*api, context, name, port.number,
                                         port.attr.gid_tbl_len)
                          : 0);
      if (ethernet &&
          api->queryGid(context, port.number, port.gidIndex, &port.gid) != 0) {
        unusable.push_back(name + " port " + std::to_string(p) +
                           ": cannot read GID index " +
                           std::to_string(port.gidIndex));
        continue;
      }
      NetDeviceInfo &info = port.info;
      info.name = name;
      info.port = p;
      info.address =
          ethernet
              ? "Ethernet (RoCE), GID index " + std::to_string(port.gidIndex)
              : "InfiniBand, LID " + std::to_string(port.attr.lid);
      info.speedMbps = ibv::laneGbps(port.attr.active_speed) *
                       ibv::lanes(port.attr.active_width) * 1000.0;
      info.pciPath = sysfsPciPath(dir);
      info.numa = sysfsNumaNode(dir);
      info.deviceMemory = true;
      // A connection of depth d needs 2d send work requests and 3d + 2
      // completion queue entries (IbvComm.cpp).
      info.maxDepth = static_cast<uint32_t>(
          std::max(1, std::min(attr.max_qp_wr / 2, (attr.max_cqe - 2) / 3)));
      info.maxMessageBytes = port.attr.max_msg_sz;
      ports.push_back(std::move(port));
    }
  }
  api->freeDeviceList(list);
  if (ports.empty()) {
    std::string why;
    for (const std::string &u : unusable)
      why += (why.empty() ? "" : "; ") + u;
    return Status(ErrorCode::Unsupported,
                  what + ": no usable RDMA device: " + api->library +
                      " found " + std::to_string(count) +
                      " device(s) but no active port (" + why + "); " +
                      ibTcpAlternative());
  }
  std::sort(ports.begin(), ports.end(),
            [](const ibv::Port &a, const ibv::Port &b) {
              return a.info.name != b.info.name ? a.info.name < b.info.name
                                                : a.number < b.number;
            });
  *net = std::make_unique<ibv::IbvNet>(std::move(ports), options.oobHost, what);
  return Status::success();
}

#else

Status createIbvNet(const IbvNetOptions &, const std::string &what,
                    std::unique_ptr<Net> *) {
  return Status(ErrorCode::Unsupported,
                what +
                    ": this libcollrt was built without "
                    "<infiniband/verbs.h> (install libibverbs-dev or "
                    "rdma-core-devel and rebuild for RDMA); " +
                    ibTcpAlternative());
}

#endif

} // namespace net
} // namespace collrt
