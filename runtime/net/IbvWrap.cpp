//===- IbvWrap.cpp - libibverbs, loaded at run time -----------------------===//
#include "IbvWrap.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

namespace collrt {
namespace net {

std::string ibTcpAlternative() {
  return "run with --transport tcp (CommOptions::transport = \"tcp\") to use "
         "TCP sockets instead";
}

#if COLLRT_HAVE_VERBS_H

int IbvApi::queryPort(ibv_context *context, uint8_t port,
                      ibv_port_attr *attr) const {
  std::memset(attr, 0, sizeof(*attr));
  return queryPortCompat(context, port,
                         reinterpret_cast<_compat_ibv_port_attr *>(attr));
}

Status loadIbverbs(const std::string &library,
                   std::shared_ptr<const IbvApi> *api) {
  ::dlerror();
  void *handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return Status(ErrorCode::Unsupported,
                  "no RDMA support: cannot load " + library + " (" +
                      (why ? why : "dlopen failed") +
                      "); install rdma-core's libibverbs (Debian/Ubuntu: "
                      "libibverbs1 and the provider for the NIC, e.g. "
                      "ibverbs-providers), or " +
                      ibTcpAlternative());
  }
  auto table = std::make_shared<IbvApi>();
  table->library = library;
  link_map *map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    table->path = map->l_name;
  std::string where = library + (table->path.empty() || table->path == library
                                     ? std::string()
                                     : " (" + table->path + ")");
#define COLLRT_IBV_LOAD(member, symbol)                                        \
  table->member =                                                              \
      reinterpret_cast<decltype(table->member)>(::dlsym(handle, #symbol));     \
  if (!table->member)                                                          \
    return Status(ErrorCode::Unsupported,                                      \
                  "no RDMA support: " + where +                                \
                      " lacks " #symbol                                        \
                      " (it is too old or not libibverbs); " +                 \
                      ibTcpAlternative());
  COLLRT_IBV_REQUIRED(COLLRT_IBV_LOAD)
#undef COLLRT_IBV_LOAD
#define COLLRT_IBV_LOAD_OPTIONAL(member, symbol)                               \
  table->member =                                                              \
      reinterpret_cast<decltype(table->member)>(::dlsym(handle, #symbol));
  COLLRT_IBV_OPTIONAL(COLLRT_IBV_LOAD_OPTIONAL)
#undef COLLRT_IBV_LOAD_OPTIONAL
  // The handle is never closed: providers libibverbs loaded may still be
  // referenced (NCCL keeps it open too).
  *api = std::move(table);
  return Status::success();
}

#endif

} // namespace net
} // namespace collrt
