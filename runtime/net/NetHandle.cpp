//===- NetHandle.cpp - how a net's peers find each other ------------------===//
#include "runtime/net/NetHandle.h"

#include <random>
#include <sstream>

namespace collrt {
namespace net {

Status listenForHandle(const std::string &host, const std::string &what, Fd *fd,
                       std::string *handle, std::string *nonce) {
  Endpoint at;
  if (Status s = resolve(host, 0, &at); !s.ok())
    return withContext(s, what);
  Endpoint bound;
  if (Status s = listenOn(at, fd, &bound); !s.ok())
    return Status(ErrorCode::TransportError, what + ": " + s.message());
  std::random_device random;
  std::ostringstream text;
  text << std::hex << random() << random() << random();
  *nonce = text.str();
  *handle = bound.host() + " " + std::to_string(bound.port()) + " " + *nonce;
  return Status::success();
}

Status connectToHandle(const std::string &handle, const std::string &what,
                       const std::string &netName, const std::string &listener,
                       Deadline deadline, Fd *fd, std::string *peer,
                       std::string *nonce) {
  std::istringstream in(handle);
  std::string host;
  int32_t port = -1;
  if (!(in >> host >> port >> *nonce))
    return Status(ErrorCode::InvalidArgument,
                  what + ": '" + handle + "' is not " + netName);
  Endpoint to;
  if (Status s = resolve(host, port, &to); !s.ok())
    return withContext(s, what);
  if (Status s =
          connectWithRetry(to, listener + " at " + to.toString(), deadline, fd);
      !s.ok())
    return withContext(s, what);
  *peer = to.toString();
  return Status::success();
}

} // namespace net
} // namespace collrt
