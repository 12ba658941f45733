//===- Program.h - the expanded form of a schedule --------------*- C++ -*-===//
//
// A schedule expanded for one group size: every rank's channel streams as
// compact C++ structures. The sched dialect (rank-parametric or explicit)
// expands into this; verification, simulation and plan emission read it. It
// never holds MLIR objects, so a 1024-rank schedule with millions of
// instructions costs tens of bytes per instruction.
//
// Model (after MSCCL's): each rank has three buffers, input, output and
// scratch, each cut into chunks. Instructions move or combine whole ranges of
// chunks. A connection is (sender rank, receiver rank, channel): the k-th send
// a rank posts to a peer on channel c is received by the k-th recv that the
// peer posts from it on channel c. A connection holds a bounded number of
// in-flight sends (slots); a send blocks while they are full, a recv blocks
// until its send is posted.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_PROGRAM_PROGRAM_H
#define COLLC_COMMON_PROGRAM_PROGRAM_H

#include "collrt/Opcodes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {
namespace sched {

/// The collective a schedule implements (its postcondition).
enum class Collective : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  AllToAllV,
  Broadcast,
  Reduce,
  Scatter,
  Gather,
  SendRecv,
};

/// "all_reduce", "all_gather", ...: the coll dialect's op names.
const char *collectiveName(Collective collective);

enum class Buffer : uint8_t { Input, Output, Scratch };

/// "input", "output", "scratch".
const char *bufferName(Buffer buffer);

/// The instructions of a channel stream, their names ("send", "recv",
/// "copy", "reduce", "recv_reduce_send", ...: the sched dialect's and the
/// plan format's) and what each does (opcodeReceives, opcodeSends,
/// opcodeReduces, opcodeReadsSrc, opcodeWritesDst): the one table of
/// runtime/include/collrt/Opcodes.h, shared with the device runtime.
using Opcode = ::collrt::Opcode;
using ::collrt::opcodeName;
using ::collrt::opcodeReadsSrc;
using ::collrt::opcodeReceives;
using ::collrt::opcodeReduces;
using ::collrt::opcodeSends;
using ::collrt::opcodeWritesDst;

/// A range of chunks of one buffer of the executing rank.
struct ChunkRange {
  Buffer buffer = Buffer::Input;
  uint32_t index = 0; ///< first chunk
  uint32_t count = 0; ///< number of chunks
};

struct Instruction;

/// The number of source ranges a reduce combines into dst in one pass: its
/// src holds fanin consecutive ranges of dst.count chunks (1 for a plain
/// reduce and for every other opcode). 0 when src.count is not a positive
/// multiple of dst.count (a malformed reduce).
uint32_t reduceFanin(const Instruction &in);

/// The sched dialect's `count` operand of the instruction: the chunks of
/// each of its ranges (a reduce's src holds reduceFanin of them).
inline uint32_t chunkCount(const Instruction &in);

/// Whether the instruction's src and dst counts agree: equal for every
/// opcode that reads src and writes dst, except reduce, whose src may hold
/// several ranges of dst.count chunks (reduceFanin). Returns "" or the
/// rule broken.
std::string checkRangeCounts(const Instruction &in);

/// An instruction on another channel of the same rank that must complete
/// before this one starts.
struct Dependency {
  uint32_t channel = 0;
  uint32_t instruction = 0; ///< index in that channel's stream
};

struct Instruction {
  Opcode opcode = Opcode::Send;
  int32_t sendPeer = -1; ///< receiver of the send part, or -1
  int32_t recvPeer = -1; ///< sender of the recv part, or -1
  ChunkRange src;        ///< read by send, copy and the reducing forms
  ChunkRange dst;        ///< written by recv, copy and the storing forms
  int32_t step = 0;      ///< the algorithm's step, for messages and traces
  uint32_t depBegin = 0; ///< first of this instruction's dependencies in
                         ///< RankProgram::dependencies
  uint32_t depCount = 0;
};

inline uint32_t chunkCount(const Instruction &in) {
  return opcodeReadsSrc(in.opcode) && in.opcode != Opcode::Reduce
             ? in.src.count
             : in.dst.count;
}

struct ChannelProgram {
  std::vector<Instruction> instructions;
};

struct RankProgram {
  std::vector<ChannelProgram> channels;
  std::vector<Dependency> dependencies; ///< referenced by Instruction::dep*
  /// Channels with at least one instruction: the thread blocks the rank
  /// launches, which must all be resident at once (sched-verify's
  /// co-residency rule; selection's candidates).
  uint32_t channelsInUse() const {
    uint32_t used = 0;
    for (const ChannelProgram &channel : channels)
      used += !channel.instructions.empty();
    return used;
  }
};

/// The chunks of each buffer. Every rank has the same number of chunks per
/// buffer. Chunk sizes come from the message size (see chunkElements), except
/// for all_to_all_v, whose sizes follow the send-count matrix.
struct BufferShape {
  uint32_t inputChunks = 0;
  uint32_t outputChunks = 0;
  uint32_t scratchChunks = 0;
  uint32_t chunks(Buffer b) const {
    return b == Buffer::Input    ? inputChunks
           : b == Buffer::Output ? outputChunks
                                 : scratchChunks;
  }
};

/// A schedule for one group size. With N = numRanks and K = chunksPerPart,
/// the buffers and the postcondition of each collective are (in[s][i] is
/// chunk i of rank s's input, Σ a reduction over all ranks):
///
///   all_reduce      in K,   out K    out[r][c]     = Σ_s in[s][c]
///   all_gather      in K,   out N*K  out[r][s*K+c] = in[s][c]
///   reduce_scatter  in N*K, out K    out[r][c]     = Σ_s in[s][r*K+c]
///   all_to_all(_v)  in N*K, out N*K  out[r][s*K+c] = in[s][r*K+c]
///   broadcast       in K,   out K    out[r][c]     = in[root][c]
///   reduce          in K,   out K    out[root][c]  = Σ_s in[s][c]
///   scatter         in N*K, out K    out[r][c]     = in[root][r*K+c]
///   gather          in K,   out N*K  out[root][s*K+c] = in[s][c]
///   send/recv       in K,   out K    out[sendTo[s]][c] = in[s][c]
///
/// A buffer of N*K chunks is N parts of K chunks. The elements of a part (or
/// of a whole K-chunk buffer) are cut into its K chunks by chunkElements; for
/// all_to_all_v, part r of rank s's input and part s of rank r's output hold
/// sendCounts[s * N + r] elements. Scratch chunks have the size of the
/// largest input chunk.
///
/// send/recv is a partial permutation: every rank s with sendTo[s] >= 0 sends
/// its input to rank sendTo[s] (a ring shift, a pipeline hand-off), no rank
/// receives from two, and the outputs of ranks that receive nothing are
/// free. An empty sendTo is the single pair `root` -> `peer`.
struct Program {
  std::string algorithm; ///< e.g. "ring", or the file of a hand-written one
  Collective collective = Collective::AllReduce;
  int32_t numRanks = 0;
  /// Rooted collectives: the root. send/recv: the sender of a single pair
  /// (with an empty sendTo), or of the only pair of sendTo (else -1).
  int32_t root = -1;
  /// send/recv: the receiver of the single pair (see root).
  int32_t peer = -1;
  /// send/recv only: N entries, the rank each rank sends its input to, or -1
  /// for a rank that sends nothing; empty: only root sends, to peer.
  std::vector<int32_t> sendTo;
  uint32_t chunksPerPart = 1;
  BufferShape buffers;
  std::vector<RankProgram> ranks;
  /// all_to_all_v only: N*N counts, row-major by sender.
  std::vector<int64_t> sendCounts;

  size_t instructionCount() const;

  /// send/recv: the rank `rank` sends its input to, sendTo[rank] or, with an
  /// empty sendTo, peer for the root; -1 when it sends nothing (or `rank` is
  /// out of range).
  int32_t sendTarget(int32_t rank) const;
};

/// A 64-bit digest of everything a program does: collective, ranks, root,
/// peer, sendTo, chunks per part, buffer shapes, send counts and every
/// instruction (opcode, peers, ranges, step, dependencies) of every channel,
/// but not the algorithm's name. Two programs with the same fingerprint run
/// the same instructions (up to a collision of FNV-1a). Measurements of a
/// plan (collc-run --tune) carry it, so that collc applies them only to the
/// very schedule that was measured.
uint64_t fingerprint(const Program &program);

/// The number of elements in chunk `index` of a buffer of `totalElements`
/// elements cut into `chunks` chunks: sizes differ by at most one and the
/// first (totalElements % chunks) chunks carry the remainder, so nothing is
/// dropped.
int64_t chunkElements(int64_t totalElements, uint32_t chunks, uint32_t index);

/// The element counts of every chunk of a program's buffers for a message of
/// `inputElements` elements per rank (the size of each rank's input buffer),
/// following the layout described above `struct Program`. Parts of an N-part
/// buffer are cut like chunks (sizes differ by at most one), so a message
/// that does not divide evenly keeps its remainder.
class ChunkLayout {
public:
  ChunkLayout(const Program &program, int64_t inputElements);
  /// For an all_to_all_v whose counts are given at run time: `sendCounts`
  /// holds its N x N counts (row-major by sender) in place of
  /// program.sendCounts (nullptr: program.sendCounts). Not copied: it must
  /// outlive the layout.
  ChunkLayout(const Program &program, int64_t inputElements,
              const int64_t *sendCounts);

  /// Elements in chunk `index` of `buffer` on `rank`.
  int64_t elements(int32_t rank, Buffer buffer, uint32_t index) const;
  /// Elements in a range of chunks of one buffer of `rank`.
  int64_t elements(int32_t rank, const ChunkRange &range) const;
  int64_t inputElements() const { return inputElements_; }

private:
  /// Elements of part `part` of an N-part input of `rank`.
  int64_t inputPartElements(int32_t rank, uint32_t part) const;

  const Program &program_;
  /// all_to_all_v's N*N counts (program_.sendCounts or the caller's), or
  /// nullptr when there are none.
  const int64_t *sendCounts_;
  int64_t inputElements_;
  int64_t scratchChunkElements_;
};

} // namespace sched
} // namespace collc

#endif
