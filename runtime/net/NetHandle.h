//===- NetHandle.h - how a net's peers find each other ----------*- C++ -*-===//
//
// Both nets (socket and ibverbs) set a connection up over a TCP socket: the
// receiving side listens and hands out "HOST PORT NONCE" (Net::listen's
// handle), the sending side parses it and connects, and the nonce makes a
// stray connection to the port recognizable. One implementation for both.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_NETHANDLE_H
#define COLLRT_NET_NETHANDLE_H

#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "runtime/bootstrap/Socket.h"

#include <string>

namespace collrt {
namespace net {

/// Listens on `host` (any free port): the socket, and the handle "HOST
/// PORT NONCE" with a fresh random nonce. Errors start with `what` (the
/// net, e.g. "socket net").
Status listenForHandle(const std::string &host, const std::string &what, Fd *fd,
                       std::string *handle, std::string *nonce);

/// Parses a handle of listenForHandle and connects to its listener,
/// retrying until `deadline`: the socket, the listener's address (for
/// messages) and the nonce. `netName` names the handle's kind in the
/// error for one that does not parse ("a socket net handle"); `listener`
/// what is connected to, in connection errors.
Status connectToHandle(const std::string &handle, const std::string &what,
                       const std::string &netName, const std::string &listener,
                       Deadline deadline, Fd *fd, std::string *peer,
                       std::string *nonce);

} // namespace net
} // namespace collrt

#endif
