//===- NetConnect.cpp - opening and installing a spec's connections -------===//
//
// Every rank connects a send connection to each peer it talks to (either
// direction) and accepts the peer's; the first message on each is a hello
// (rank, connect generation, run id) that tells the acceptor whose it is.
// Then each connection gets its registered buffers and the receives of
// every slot are posted. All of it without blocking: a rank's connects and
// accepts advance together, so no pair waits on each other.
//
//===----------------------------------------------------------------------===//
#include "NetTransport.h"

#include "SpecCheck.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace collrt {
namespace transport {

namespace {

/// A hello on its way out, or one being received.
struct HelloBuffer {
  MappedBuffer buffer;
  std::unique_ptr<net::NetMemory> memory;
  net::NetRequest *request = nullptr;
};

Status makeHelloBuffer(net::Net &net, int dev, const std::string &what,
                       HelloBuffer *hello) {
  if (Status s = hello->buffer.allocate(kControlBytes, what); !s.ok())
    return s;
  return net.regMr(dev, hello->buffer.data(), kControlBytes,
                   net::NetMemoryKind::Host, &hello->memory);
}

struct Outgoing {
  int32_t peer = -1;
  std::unique_ptr<net::NetConnecting> connecting;
  std::unique_ptr<net::NetSendComm> comm;
  HelloBuffer hello;
  size_t helloBytes = 0;
  bool done = false;
};

struct Incoming {
  std::unique_ptr<net::NetRecvComm> comm;
  HelloBuffer hello;
};

} // namespace

Status NetTransport::openLinks(
    const ConnectionSpec &spec, const std::vector<std::string> &handles,
    Deadline deadline, std::map<int32_t, std::unique_ptr<PeerLink>> *links) {
  // Outstanding receives each connection needs: every slot of every
  // channel, and the control messages'.
  std::map<int32_t, uint64_t> sendDepth, recvDepth;
  for (const ConnectionKey &k : spec.sendTo)
    if (k.peer != rank())
      sendDepth[k.peer] += spec.slots;
  for (const ConnectionKey &k : spec.recvFrom)
    if (k.peer != rank())
      recvDepth[k.peer] += spec.slots;
  std::set<int32_t> peers;
  for (auto &e : sendDepth)
    peers.insert(e.first);
  for (auto &e : recvDepth)
    peers.insert(e.first);
  const net::NetDeviceInfo &device = net_->devices()[dev_];
  if (spec.slotBytes > device.maxMessageBytes)
    return Status(ErrorCode::InvalidArgument,
                  here() + ": slotBytes = " + std::to_string(spec.slotBytes) +
                      " exceeds the largest message of " + device.name + " (" +
                      std::to_string(device.maxMessageBytes) + " bytes)");
  for (int32_t p : peers) {
    for (auto *depth : {&sendDepth[p], &recvDepth[p]}) {
      *depth += kControlSlots;
      if (*depth > device.maxDepth)
        return Status(ErrorCode::InvalidArgument,
                      here() + ": the connections with rank " +
                          std::to_string(p) + " need " +
                          std::to_string(*depth) +
                          " outstanding receives (channels x slots + " +
                          std::to_string(kControlSlots) + " for control) but " +
                          device.name + " allows at most " +
                          std::to_string(device.maxDepth) +
                          "; use fewer channels or slots");
    }
  }

  std::string runId;
  uint32_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    runId = runId_;
    generation = generation_;
  }
  std::vector<Outgoing> outgoing;
  for (int32_t p : peers) {
    Outgoing out;
    out.peer = p;
    if (Status s =
            net_->connect(dev_, handles[p], static_cast<uint32_t>(sendDepth[p]),
                          deadline, &out.connecting);
        !s.ok())
      return withContext(s,
                         here() + ": connecting to rank " + std::to_string(p));
    outgoing.push_back(std::move(out));
    auto link = std::make_unique<PeerLink>();
    link->rank = p;
    (*links)[p] = std::move(link);
  }
  std::vector<Incoming> incoming;
  ControlMessage hello;
  hello.type = ControlType::Hello;
  hello.rank = rank();
  hello.generation = generation;
  hello.runId = runId;
  const std::string helloBytes = encodeControl(hello);

  std::vector<pollfd> fds;
  for (;;) {
    bool ready = false;
    fds.clear();
    // Ours: connect, send the hello, wait for it to leave.
    for (Outgoing &out : outgoing) {
      if (out.done)
        continue;
      const std::string to =
          here() + ": connecting to rank " + std::to_string(out.peer) + ": ";
      if (!out.comm) {
        if (Status s = out.connecting->step(&out.comm); !s.ok())
          return Status(s.code(), to + s.message());
        if (!out.comm) {
          ready |= out.connecting->pollFds(&fds);
          continue;
        }
        if (Status s = makeHelloBuffer(*net_, dev_, here(), &out.hello);
            !s.ok())
          return Status(s.code(), to + s.message());
        std::memcpy(out.hello.buffer.data(), helloBytes.data(),
                    helloBytes.size());
        out.helloBytes = helloBytes.size();
      }
      if (!out.hello.request) {
        if (Status s = out.comm->isend(out.hello.buffer.data(), out.helloBytes,
                                       kControlTag, *out.hello.memory,
                                       &out.hello.request);
            !s.ok())
          return Status(s.code(), to + s.message());
      }
      if (out.hello.request) {
        bool done = false;
        size_t bytes = 0;
        if (Status s = out.comm->test(out.hello.request, &done, &bytes);
            !s.ok())
          return Status(s.code(), to + s.message());
        if (done) {
          PeerLink &link = *(*links)[out.peer];
          link.address = out.comm->peerAddress();
          link.send = std::move(out.comm);
          out.done = true;
          continue;
        }
      }
      ready |= out.comm->pollFds(&fds);
    }
    // Theirs: accept, receive the hello, keep those of this run.
    for (;;) {
      std::unique_ptr<net::NetRecvComm> comm;
      if (Status s = listen_->accept(&comm); !s.ok())
        return withContext(s, here() + ": accepting connections");
      if (!comm)
        break;
      Incoming in;
      in.comm = std::move(comm);
      if (Status s = makeHelloBuffer(*net_, dev_, here(), &in.hello); !s.ok())
        return s;
      if (Status s =
              in.comm->irecv(in.hello.buffer.data(), kControlBytes, kControlTag,
                             *in.hello.memory, &in.hello.request);
          !s.ok() || !in.hello.request)
        continue; // it failed at once: not one of ours
      incoming.push_back(std::move(in));
    }
    for (size_t i = 0; i < incoming.size();) {
      Incoming &in = incoming[i];
      bool done = false;
      size_t bytes = 0;
      Status s = in.comm->test(in.hello.request, &done, &bytes);
      ControlMessage m;
      bool keep = s.ok() && !done;
      if (s.ok() && done && decodeControl(in.hello.buffer.data(), bytes, &m) &&
          m.type == ControlType::Hello && m.runId == runId &&
          m.generation == generation && links->count(m.rank) &&
          !(*links)[m.rank]->recv) {
        if (in.comm->depth() < recvDepth[m.rank])
          return Status(ErrorCode::InvalidArgument,
                        here() + ": rank " + std::to_string(m.rank) +
                            " connected with room for " +
                            std::to_string(in.comm->depth()) +
                            " receives where its spec needs " +
                            std::to_string(recvDepth[m.rank]));
        (*links)[m.rank]->recv = std::move(in.comm);
      }
      if (keep) {
        ready |= in.comm->pollFds(&fds);
        ++i;
      } else {
        // Ours now, or a stray (another run, an earlier generation, a
        // connection that failed): dropped.
        incoming.erase(incoming.begin() + static_cast<long>(i));
      }
    }
    std::vector<int32_t> unsent, unheard;
    for (const Outgoing &out : outgoing)
      if (!out.done)
        unsent.push_back(out.peer);
    for (const auto &entry : *links)
      if (!entry.second->recv)
        unheard.push_back(entry.first);
    if (unsent.empty() && unheard.empty())
      return Status::success();
    if (Status s = abortedStatus(); !s.ok())
      return s;
    for (int32_t p : peers)
      if (Status s = peerStatus(p); !s.ok())
        return s;
    if (deadline.expired()) {
      std::string what;
      if (!unsent.empty())
        what = "its connections to " + rankList(unsent) + " did not open";
      if (!unheard.empty())
        what += std::string(what.empty() ? "" : ", and ") + rankList(unheard) +
                " did not connect to it (handle " + handle_ + ")";
      return Status(ErrorCode::Timeout,
                    here() + ": connect timed out: " + what);
    }
    ready |= listen_->pollFds(&fds);
    ::poll(fds.data(), fds.size(),
           ready ? 0 : net::pollTimeoutMs(deadline, 10));
  }
}

Status NetTransport::installLinks(
    const ConnectionSpec &spec,
    std::map<int32_t, std::unique_ptr<PeerLink>> &links) {
  std::map<ConnectionKey, std::unique_ptr<NetSendConnection>> sends;
  std::map<ConnectionKey, std::unique_ptr<NetRecvConnection>> recvs;
  std::map<uint32_t, std::unique_ptr<SlotRing>> selfRings;
  for (const ConnectionKey &key : spec.sendTo)
    if (key.peer == rank())
      selfRings[key.channel] = std::make_unique<SlotRing>(spec.slots);
  const size_t slotBytes = spec.slotBytes;
  const size_t perConnection = spec.slots * slotBytes;
  if (perConnection / spec.slots != slotBytes)
    return Status(ErrorCode::InvalidArgument,
                  here() + ": slots x slotBytes overflows");
  for (auto &entry : links) {
    PeerLink &link = *entry.second;
    const int32_t p = link.rank;
    std::vector<uint32_t> sendChannels, recvChannels;
    for (const ConnectionKey &k : spec.sendTo)
      if (k.peer == p)
        sendChannels.push_back(k.channel);
    for (const ConnectionKey &k : spec.recvFrom)
      if (k.peer == p)
        recvChannels.push_back(k.channel);
    auto regionBytes = [&](size_t channels) -> size_t {
      size_t data = channels * perConnection;
      if (channels && data / channels != perConnection)
        return 0;
      return data + kControlSlots * kControlBytes;
    };
    size_t sendBytes = regionBytes(sendChannels.size());
    size_t recvBytes = regionBytes(recvChannels.size());
    if (sendBytes == 0 || recvBytes == 0)
      return Status(ErrorCode::InvalidArgument,
                    here() + ": the buffers of the connections with rank " +
                        std::to_string(p) + " overflow");
    const std::string with =
        here() + ": the connections with rank " + std::to_string(p) + ": ";
    if (Status s = link.sendBuffer.allocate(sendBytes, here()); !s.ok())
      return s;
    if (Status s = link.recvBuffer.allocate(recvBytes, here()); !s.ok())
      return s;
    if (Status s = net_->regMr(dev_, link.sendBuffer.data(), sendBytes,
                               net::NetMemoryKind::Host, &link.sendMemory);
        !s.ok())
      return Status(s.code(), with + s.message());
    if (Status s = net_->regMr(dev_, link.recvBuffer.data(), recvBytes,
                               net::NetMemoryKind::Host, &link.recvMemory);
        !s.ok())
      return Status(s.code(), with + s.message());
    for (size_t i = 0; i < sendChannels.size(); ++i) {
      auto c = std::make_unique<NetSendConnection>();
      c->channel = sendChannels[i];
      c->slots = spec.slots;
      c->slotBytes = slotBytes;
      c->buffer = link.sendBuffer.data() + i * perConnection;
      c->sizes.assign(spec.slots, 0);
      link.sends.push_back(c.get());
      sends[{p, sendChannels[i]}] = std::move(c);
    }
    link.controlOut =
        link.sendBuffer.data() + sendChannels.size() * perConnection;
    for (size_t i = 0; i < recvChannels.size(); ++i) {
      auto c = std::make_unique<NetRecvConnection>();
      c->channel = recvChannels[i];
      c->slots = spec.slots;
      c->slotBytes = slotBytes;
      c->buffer = link.recvBuffer.data() + i * perConnection;
      c->sizes.assign(spec.slots, 0);
      c->requests.assign(spec.slots, nullptr);
      for (uint32_t s = 0; s < spec.slots; ++s) {
        if (Status st =
                link.recv->irecv(c->buffer + s * slotBytes, slotBytes,
                                 c->channel, *link.recvMemory, &c->requests[s]);
            !st.ok() || !c->requests[s])
          return Status(st.ok() ? ErrorCode::TransportError : st.code(),
                        with + "posting the receives of channel " +
                            std::to_string(c->channel) + ": " +
                            (st.ok() ? "the connection has no room for them"
                                     : st.message()));
      }
      c->posted = spec.slots;
      link.recvs.push_back(c.get());
      recvs[{p, recvChannels[i]}] = std::move(c);
    }
    link.controlIn =
        link.recvBuffer.data() + recvChannels.size() * perConnection;
    for (uint32_t k = 0; k < kControlSlots; ++k) {
      if (Status st = link.recv->irecv(link.controlIn + k * kControlBytes,
                                       kControlBytes, kControlTag,
                                       *link.recvMemory, &link.controlRecv[k]);
          !st.ok() || !link.controlRecv[k])
        return Status(st.ok() ? ErrorCode::TransportError : st.code(),
                      with + "posting the control receives: " +
                          (st.ok() ? "the connection has no room for them"
                                   : st.message()));
    }
    link.controlPosted = kControlSlots;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  sends_ = std::move(sends);
  recvs_ = std::move(recvs);
  selfRings_ = std::move(selfRings);
  spec_ = spec;
  return Status::success();
}

} // namespace transport
} // namespace collrt
