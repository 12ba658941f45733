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

#include "dialects/Sched/Program/Program.h"

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
///  5. Postcondition on the output chunks (only the root's for reduce and
///     gather, only those of ranks that receive for send/recv, whose
///     permutation sendTo must be well formed in stage 1; all_to_all_v
///     chunks of zero elements are free).
///
/// Cost: linear in instructions plus buffer chunks (rank sets are interval
/// lists), so a 1024-rank ring all-reduce of 2M instructions takes seconds.
VerifyResult verifyProgram(const Program &program,
                           const VerifyOptions &options = VerifyOptions());

} // namespace sched
} // namespace collc

#endif
