//===- Checks.h - the stages of verifyProgram -------------------*- C++ -*-===//
//
// Internal: one function per stage, each in its own file, called in order
// by verifyProgram (Verifier.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_CHECKS_H
#define COLLC_COMPILER_VERIFY_CHECKS_H

#include "compiler/Verify/Connections.h"
#include "compiler/Verify/ErrorSink.h"
#include "compiler/Verify/Layout.h"

namespace collc {
namespace sched {

class SymbolicState;
class RaceCheck;

/// Ranks and channels per rank the verifier supports (connection ids pack
/// both into 21 bits).
constexpr uint32_t kMaxVerifiedRanks = 1u << 20;
constexpr uint32_t kMaxVerifiedChannels = 1u << 20;

/// Reports Malformed errors; returns whether the program is well formed,
/// i.e. whether the later stages may rely on peers, ranges and
/// dependencies being in range (WellFormed.cpp).
bool checkWellFormed(const Program &program, const VerifyOptions &options,
                     ErrorSink &errors);

/// Reports ranks with more channels than can run at once (CoResidency.cpp).
void checkCoResidency(const Program &program, const VerifyOptions &options,
                      ErrorSink &errors);

/// Reports Mismatch errors; returns whether every send has a recv of the
/// same size and vice versa (Matching.cpp).
bool checkMatching(const StreamIndex &streams, const ConnectionTable &table,
                   const CollectiveLayout &layout, ErrorSink &errors);

/// Runs the program on `state`; reports InvalidReduce, DoubleCount and
/// Deadlock errors, and Race errors when `races` is given (active);
/// returns whether every stream ran to its end (Execution.cpp,
/// DeadlockCheck.cpp, RaceCheck.cpp).
bool executeProgram(const Program &program, const VerifyOptions &options,
                    const StreamIndex &streams, const ConnectionTable &table,
                    SymbolicState &state, RaceCheck *races, ErrorSink &errors);

/// Compares the output buffers after execution with the collective's
/// table (Postcondition.cpp).
void checkPostcondition(const Program &program, const CollectiveLayout &layout,
                        const SymbolicState &state, ErrorSink &errors);

} // namespace sched
} // namespace collc

#endif
