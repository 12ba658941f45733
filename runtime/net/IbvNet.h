//===- IbvNet.h - the Net interface over ibverbs ----------------*- C++ -*-===//
//
// Reliable-connected queue pairs, one per connection. A posted receive is
// announced to the sender by an RDMA write with immediate of a
// clear-to-send entry (address, rkey, capacity, tag) into a ring the sender
// registered (the immediate, the receive's sequence number, wakes the
// sender's completion queue); the sender answers the oldest entry of the
// message's tag with an RDMA write with immediate of the payload straight
// into the receive buffer (the immediate names the receive, the completion
// its size). Connection details (LID or GID, QP number, PSN, MTU, the
// clear-to-send ring's address and key) are exchanged over a TCP socket
// that stays open to notice a peer that dies. Memory is registered with
// ibv_reg_mr (host memory, or GPU memory through nvidia-peermem: GPUDirect
// RDMA) or ibv_reg_dmabuf_mr (GPU memory exported as a dma-buf).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_IBVNET_H
#define COLLRT_NET_IBVNET_H

#include "Net.h"

#include <memory>
#include <string>

namespace collrt {
namespace net {

struct IbvNetOptions {
  /// The library to dlopen ("libibverbs.so.1"; tests name others).
  std::string library;
  /// The local address the connection set-up listens on (a TCP address of
  /// this host).
  std::string oobHost;
  /// RoCE GID index; -1 = the first RoCE v2 GID holding an IPv4 address,
  /// else the first RoCE v2 GID, else 0 (InfiniBand ports use the LID).
  int32_t gidIndex = -1;
};

/// Loads libibverbs, lists the RDMA devices and their active ports (one
/// Net device per active port, by device name). Unsupported when the
/// library is missing, lists no device, or no port is active; the message
/// says which and names the tcp transport. `what` prefixes messages.
Status createIbvNet(const IbvNetOptions &options, const std::string &what,
                    std::unique_ptr<Net> *net);

} // namespace net
} // namespace collrt

#endif
