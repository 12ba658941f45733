//===- VerifyGraph.cpp - coll-verify-graph: send/recv matching ------------===//
//
// Pairs every coll.send with a coll.recv of the same mesh, group axes and tag
// (the i-th send of a key with the i-th recv of it, in program order) and
// checks that the two agree rank by rank: same tensor type, inverse peers.
//
//===----------------------------------------------------------------------===//
#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Coll/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <string>

namespace collc::coll {
#define GEN_PASS_DEF_COLLVERIFYGRAPH
#include "dialects/Coll/Transforms/Passes.h.inc"
} // namespace collc::coll

using namespace mlir;
using namespace collc::coll;

namespace {

/// The sends and recvs of one function that share a mesh, group and tag.
struct Channel {
  SmallVector<SendOp> sends;
  SmallVector<RecvOp> recvs;
};

/// The peer of `rank`, with kNoPeer for a rank that does not take part
/// (verified functions are defined everywhere).
int64_t peerOrNone(const PeerFunction &peers, int64_t rank, int64_t groupSize) {
  return peers.peerOf(rank, groupSize).value_or(PeerFunction::kNoPeer);
}

/// The first rank that takes part in a send or recv, or std::nullopt.
std::optional<int64_t> firstParticipant(const PeerFunction &peers,
                                        int64_t groupSize) {
  for (int64_t rank = 0; rank < groupSize; ++rank)
    if (peerOrNone(peers, rank, groupSize) != PeerFunction::kNoPeer)
      return rank;
  return std::nullopt;
}

/// A description of a send's or recv's group for diagnostics:
/// `on @world axes ["gpu"] with tag 0`.
std::string describeGroup(CollectiveOpInterface op, int64_t tag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "on " << op.getMeshRef();
  if (ArrayAttr axes = op.getAxesAttr())
    os << " axes " << axes;
  os << " with tag " << tag;
  return text;
}

/// Checks one matched pair rank by rank; emits on the first broken rule.
LogicalResult verifyPair(SendOp send, RecvOp recv) {
  if (send.getInput().getType() != recv.getResult().getType()) {
    InFlightDiagnostic diag = send.emitError("coll.send of ")
                              << send.getInput().getType()
                              << " is matched by a coll.recv of "
                              << recv.getResult().getType();
    diag.attachNote(recv.getLoc()) << "the matching coll.recv";
    return diag;
  }
  int64_t n = send.getGroupSize();
  PeerFunction sendPeers = send.getPeerFunction();
  PeerFunction recvPeers = recv.getPeerFunction();
  for (int64_t rank = 0; rank < n; ++rank) {
    int64_t to = peerOrNone(sendPeers, rank, n);
    if (to == PeerFunction::kNoPeer)
      continue;
    int64_t from = peerOrNone(recvPeers, to, n);
    if (from == rank)
      continue;
    InFlightDiagnostic diag = send.emitError("in the group, rank ")
                              << rank << " sends to rank " << to
                              << ", but rank " << to;
    if (from == PeerFunction::kNoPeer)
      diag << " does not receive (its peers entry is -1)";
    else
      diag << " receives from rank " << from;
    diag.attachNote(recv.getLoc()) << "the matching coll.recv";
    return diag;
  }
  for (int64_t rank = 0; rank < n; ++rank) {
    int64_t from = peerOrNone(recvPeers, rank, n);
    if (from == PeerFunction::kNoPeer)
      continue;
    int64_t to = peerOrNone(sendPeers, from, n);
    if (to == rank)
      continue;
    InFlightDiagnostic diag = recv.emitError("in the group, rank ")
                              << rank << " receives from rank " << from
                              << ", but rank " << from;
    if (to == PeerFunction::kNoPeer)
      diag << " does not send (its peers entry is -1)";
    else
      diag << " sends to rank " << to;
    diag.attachNote(send.getLoc()) << "the matching coll.send";
    return diag;
  }
  return success();
}

/// Checks the sends and recvs of one function.
LogicalResult verifyFunction(FunctionOpInterface function) {
  // Keyed by mesh, group axis indices and tag; in first-seen order so that
  // diagnostics come in program order.
  llvm::MapVector<std::string, Channel, std::map<std::string, unsigned>>
      channels;
  auto keyOf = [](CollectiveOpInterface op, int64_t tag) {
    std::string key = op.getMeshRef().getValue().str();
    for (int64_t axis : op.getGroupAxisIndices())
      key += "," + std::to_string(axis);
    return key + "#" + std::to_string(tag);
  };
  function.walk([&](Operation *op) {
    if (auto send = dyn_cast<SendOp>(op))
      channels[keyOf(send, send.getTag())].sends.push_back(send);
    else if (auto recv = dyn_cast<RecvOp>(op))
      channels[keyOf(recv, recv.getTag())].recvs.push_back(recv);
  });

  bool ok = true;
  for (auto &[key, channel] : channels) {
    size_t pairs = std::min(channel.sends.size(), channel.recvs.size());
    for (size_t i = 0; i < pairs; ++i)
      ok &= succeeded(verifyPair(channel.sends[i], channel.recvs[i]));
    for (SendOp send : ArrayRef(channel.sends).drop_front(pairs)) {
      int64_t n = send.getGroupSize();
      std::optional<int64_t> rank = firstParticipant(send.getPeerFunction(), n);
      if (!rank)
        continue; // Sends nothing, so needs no receiver.
      send.emitError("coll.send ")
          << describeGroup(send, send.getTag())
          << " has no matching coll.recv in this function: rank " << *rank
          << " of the group sends to rank "
          << peerOrNone(send.getPeerFunction(), *rank, n)
          << " and nothing receives it";
      ok = false;
    }
    for (RecvOp recv : ArrayRef(channel.recvs).drop_front(pairs)) {
      int64_t n = recv.getGroupSize();
      std::optional<int64_t> rank = firstParticipant(recv.getPeerFunction(), n);
      if (!rank)
        continue;
      recv.emitError("coll.recv ")
          << describeGroup(recv, recv.getTag())
          << " has no matching coll.send in this function: rank " << *rank
          << " of the group receives from rank "
          << peerOrNone(recv.getPeerFunction(), *rank, n)
          << " and nothing sends it";
      ok = false;
    }
  }
  return success(ok);
}

struct CollVerifyGraphPass
    : public collc::coll::impl::CollVerifyGraphBase<CollVerifyGraphPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](FunctionOpInterface function) {
      ok &= succeeded(verifyFunction(function));
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace

std::unique_ptr<Pass> collc::coll::createCollVerifyGraphPass() {
  return std::make_unique<CollVerifyGraphPass>();
}

void collc::coll::registerCollPasses() {
  registerPass([] { return createCollVerifyGraphPass(); });
}
