//===- IbvWrap.h - libibverbs, loaded at run time ---------------*- C++ -*-===//
//
// As NCCL's ibvwrap: the runtime never links libibverbs. loadIbverbs()
// dlopen()s it and dlsym()s every function IbvNet calls into a table, so a
// libcollrt built here starts on machines without an RDMA stack and says
// what is missing only when the ib transport is asked for. The data-path
// calls (ibv_post_send, ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq) are
// inline functions of <infiniband/verbs.h> that call the provider through
// the context, so they need no symbol.
//
// Built only where <infiniband/verbs.h> exists (COLLRT_HAVE_VERBS_H);
// elsewhere the ib transport reports that this build lacks it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_IBVWRAP_H
#define COLLRT_NET_IBVWRAP_H

#include "collrt/Status.h"

#include <memory>
#include <string>

#if COLLRT_HAVE_VERBS_H
#include <infiniband/verbs.h>
#endif

namespace collrt {
namespace net {

/// The library loadIbverbs opens by default (the runtime soname of
/// rdma-core's libibverbs, as NCCL opens it).
constexpr const char *kIbverbsLibrary = "libibverbs.so.1";

#if COLLRT_HAVE_VERBS_H

/// Every function IbvNet calls: (member, symbol). Members are not named
/// after the symbols because verbs.h defines some as macros.
#define COLLRT_IBV_REQUIRED(X)                                                 \
  X(getDeviceList, ibv_get_device_list)                                        \
  X(freeDeviceList, ibv_free_device_list)                                      \
  X(getDeviceName, ibv_get_device_name)                                        \
  X(openDevice, ibv_open_device)                                               \
  X(closeDevice, ibv_close_device)                                             \
  X(queryDevice, ibv_query_device)                                             \
  X(queryPortCompat, ibv_query_port)                                           \
  X(queryGid, ibv_query_gid)                                                   \
  X(allocPd, ibv_alloc_pd)                                                     \
  X(deallocPd, ibv_dealloc_pd)                                                 \
  X(regMr, ibv_reg_mr)                                                         \
  X(deregMr, ibv_dereg_mr)                                                     \
  X(createCompChannel, ibv_create_comp_channel)                                \
  X(destroyCompChannel, ibv_destroy_comp_channel)                              \
  X(createCq, ibv_create_cq)                                                   \
  X(destroyCq, ibv_destroy_cq)                                                 \
  X(getCqEvent, ibv_get_cq_event)                                              \
  X(ackCqEvents, ibv_ack_cq_events)                                            \
  X(createQp, ibv_create_qp)                                                   \
  X(modifyQp, ibv_modify_qp)                                                   \
  X(destroyQp, ibv_destroy_qp)                                                 \
  X(wcStatusStr, ibv_wc_status_str)

/// Functions used when present (older libraries lack them).
#define COLLRT_IBV_OPTIONAL(X) X(regDmabufMr, ibv_reg_dmabuf_mr)

struct IbvApi {
#define COLLRT_IBV_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
  COLLRT_IBV_REQUIRED(COLLRT_IBV_MEMBER)
  COLLRT_IBV_OPTIONAL(COLLRT_IBV_MEMBER)
#undef COLLRT_IBV_MEMBER
  /// The name it was opened by and the file dlopen found.
  std::string library;
  std::string path;

  /// ibv_query_port through the exported (compat) symbol: fills the fields
  /// every libibverbs version has, zeroes the rest.
  int queryPort(ibv_context *context, uint8_t port, ibv_port_attr *attr) const;
};

/// Opens `library` (a soname or a path) and resolves every required
/// function. Unsupported, naming the library and the missing piece and
/// suggesting the tcp transport, when it cannot be opened or lacks a
/// function. The library stays loaded for the life of the process.
Status loadIbverbs(const std::string &library,
                   std::shared_ptr<const IbvApi> *api);

#endif

/// The sentence every "no RDMA here" error ends with.
std::string ibTcpAlternative();

} // namespace net
} // namespace collrt

#endif
