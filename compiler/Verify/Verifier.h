//===- Verifier.h - sched-verify: check an expanded schedule ----*- C++ -*-===//
//
// The schedule verifier: executes an expanded schedule (Program.h) on
// symbolic data and reports, in plain words, everything that would make it
// wrong on a real machine. Plain C++17, no MLIR: the sched-verify pass, the
// driver and the tests all call verifyProgram.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_VERIFIER_H
#define COLLC_COMPILER_VERIFY_VERIFIER_H

#include "common/Program/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {
namespace sched {

/// Facts about the machine the schedule will run on.
struct VerifyOptions {
  /// Sends a connection (sender, receiver, channel) holds before a further
  /// send blocks until the receiver drains one. Default 8: NCCL's
  /// NCCL_STEPS, the slots of a channel's FIFO between two peers. Must be at
  /// least 1.
  uint32_t connectionSlots = 8;
  /// Channels one rank may run at once. A channel is a thread block on the
  /// GPU, and all blocks of a rank must be resident together, or a block
  /// spinning on a recv can starve the block that would send. Default 32:
  /// the order of NCCL's MAXCHANNELS, the most channels (one block each) it
  /// runs for one collective.
  uint32_t maxChannelsPerRank = 32;
  /// Whether to look for races between the channels of a rank (see
  /// VerifyErrorKind::Race). When off, VerifyResult::raceCheckSkipped says
  /// so.
  bool checkRaces = true;
  /// The most channel streams the race check follows: those that share a
  /// chunk of their rank's buffers with another channel of the rank, one of
  /// the two writing it (no other stream can race). Each is a component of
  /// every vector clock, so the check costs this many words per message
  /// received and per `after` dependency; above it the check is skipped and
  /// VerifyResult::raceCheckSkipped says why. Default 2048: the 64 ranks of
  /// dgx8x8 with 30 channels that share chunks (hierarchical_direct, 1920
  /// streams) are checked, in about a second at 16 chunks; at 1024 ranks,
  /// two such channels per rank are already too many, so large schedules
  /// cost what they did without the check.
  uint32_t maxRaceStreams = 2048;
  /// Memory the race check's vector clocks may take (a clock is kept per
  /// stream and per message in flight). Past it the check stops part-way
  /// and VerifyResult::raceCheckSkipped says so; races reported until then
  /// stand. Default 256 MiB.
  uint64_t maxRaceClockBytes = uint64_t(256) << 20;
};

/// What kind of rule an error breaks.
enum class VerifyErrorKind {
  /// The program is not a valid program at all: a peer or chunk range out of
  /// range, opcode fields that do not fit the opcode, a dangling dependency,
  /// buffers whose chunk counts do not fit the collective. When any of these
  /// is found, nothing else is checked.
  Malformed,
  /// A send and the recv it is matched with (the k-th of each on a
  /// connection) disagree in size, or one of them has no partner. When any
  /// of these is found, the program is not executed.
  Mismatch,
  /// Execution gets stuck; the message prints the wait-for cycle.
  Deadlock,
  /// A reduce combines a value that was never written, or two different
  /// chunks (chunk 5 of some ranks with chunk 6 of others).
  InvalidReduce,
  /// A reduce counts the contribution of a rank twice.
  DoubleCount,
  /// After execution an output chunk does not hold what the collective
  /// requires (see the table above `struct Program`).
  Postcondition,
  /// A rank uses more channels than can run at once.
  CoResidency,
  /// Two channels of a rank access the same chunk of one of its buffers, at
  /// least one of them writing, and neither access happens before the
  /// other, so the result depends on timing. Happens-before is the
  /// transitive closure of program order within a channel, `after`
  /// dependencies (the depended-on instruction completes before the
  /// dependent starts) and messages (a send happens before the completion
  /// of the recv matched with it), also through other ranks: rank A's
  /// channel 0 sends to B, B forwards to A's channel 1, so channel 0's
  /// accesses before the send happen before channel 1's after the recv.
  /// A send reads its src when it is posted, a recv writes its dst when it
  /// completes, and the fused forms read src and write dst. Slots are no
  /// synchronization: a runtime may give a connection more.
  Race,
};

/// "malformed", "mismatch", "deadlock", ...: for prefixes and summaries.
const char *verifyErrorKindName(VerifyErrorKind kind);

/// One broken rule, in plain words. Messages name the rank, channel, step
/// and instruction (its index in the channel stream) where they apply, and
/// count sends and recvs of a connection from 1 ("its send #1" is the
/// first).
struct VerifyError {
  VerifyErrorKind kind;
  std::string message;
};

/// The outcome of verifyProgram.
struct VerifyResult {
  /// Whether the program passed every check.
  bool ok() const { return errors.empty(); }
  /// At most a few errors of each kind (see kMaxErrorsPerKind), in the order
  /// found; when more were found, one last error of that kind says how many
  /// were left out.
  std::vector<VerifyError> errors;
  /// Instructions in the program.
  uint64_t instructions = 0;
  /// Point-to-point transfers (matched send/recv pairs); 0 when matching was
  /// not reached.
  uint64_t transfers = 0;
  /// Why the race check did not run or did not finish, in words that
  /// follow "race check ": "disabled (VerifyOptions::checkRaces is false)",
  /// "skipped: 2048 channel streams on 1024 ranks share chunks ...",
  /// "stopped part-way: the vector clocks ... outgrew 256 MiB ...". Empty
  /// when it ran to the end, or when verification stopped before execution
  /// (the errors say why). A program that passes with a non-empty reason is
  /// proven correct except for races.
  std::string raceCheckSkipped;
  /// Channel streams the race check followed (see
  /// VerifyOptions::maxRaceStreams); 0 when no two channels of a rank share
  /// a chunk that one of them writes, which rules races out.
  uint32_t raceStreams = 0;
};

/// Errors of one kind reported before the rest are only counted.
constexpr size_t kMaxErrorsPerKind = 5;

/// Checks `program` in this order, stopping after the first stage that
/// fails (co-residency is reported whenever the program is well formed):
///
///  1. Well-formedness (Malformed).
///  2. Co-residency: non-empty channels per rank <= maxChannelsPerRank.
///  3. Matching: per connection, the k-th send and the k-th recv carry the
///     same number of chunks and, where both ranges lie in input or output
///     buffers, the same number of elements. Element counts follow the
///     collective's layout (Program.h) with a nominal part of
///     1009 * K + K / 2 elements, so that chunks of one part differ in size
///     (the first K / 2 chunks carry one element more), and for all_to_all_v
///     the sendCounts. Scratch chunks have no size of their own, so a range
///     in scratch is compared by chunk count only.
///  4. Execution with per-(rank, channel) program counters: an instruction
///     waits for its dependencies, a recv for its matched send to be posted,
///     a send while the connection already holds connectionSlots unreceived
///     sends (a fused recv..send needs both). Every chunk holds a symbolic
///     value, (origin input chunk, set of contributing ranks) or undefined;
///     sends snapshot values, reduces check that they combine defined
///     values of one origin chunk with disjoint rank sets (InvalidReduce,
///     DoubleCount). A stuck execution is a Deadlock with its cycle.
///     Races (when checkRaces): execution follows one interleaving, but
///     vector clocks over the streams that share chunks with another
///     channel of their rank, carried along program order, dependencies
///     and messages, tell whether two accesses are ordered in every
///     interleaving (matching is fixed, so happens-before is the same in
///     all). Each chunk remembers its last write and the reads since; an
///     access unordered with one of them (one writing) is a Race, reported
///     once per pair of instructions and run of chunks, with the `after`
///     that would order the two.
///  5. Postcondition on the output chunks (only the root's for reduce and
///     gather, only those of ranks that receive for send/recv, whose
///     permutation sendTo must be well formed in stage 1; all_to_all_v
///     chunks of zero elements are free).
///
/// Cost: linear in instructions plus buffer chunks (rank sets are interval
/// lists), so a 1024-rank ring all-reduce of 2M instructions takes seconds.
/// The race check adds a scan of the chunk ranges of ranks with two or more
/// channels and, when it runs, maxRaceStreams words per message and
/// dependency at most.
VerifyResult verifyProgram(const Program &program,
                           const VerifyOptions &options = VerifyOptions());

} // namespace sched
} // namespace collc

#endif
