//===- Verifier.cpp - sched-verify: the stages in order -------------------===//
#include "compiler/Verify/Verifier.h"

#include "compiler/Verify/Checks.h"
#include "compiler/Verify/RaceCheck.h"
#include "compiler/Verify/SymbolicState.h"

namespace collc {
namespace sched {

VerifyResult verifyProgram(const Program &program,
                           const VerifyOptions &options) {
  VerifyResult result;
  result.instructions = program.instructionCount();
  ErrorSink errors;
  auto finish = [&] {
    errors.finish(result);
    return result;
  };

  if (!checkWellFormed(program, options, errors))
    return finish();
  checkCoResidency(program, options, errors);

  StreamIndex streams(program);
  CollectiveLayout layout(program);
  ConnectionTable table = buildConnections(streams);
  result.transfers = table.transfers();
  // A send without its recv would surface again as a deadlock, and sizes
  // that disagree make the symbolic values meaningless: stop here.
  if (!checkMatching(streams, table, layout, errors))
    return finish();

  RaceCheck races(program, options, streams, table);
  SymbolicState state(program);
  bool ran = executeProgram(program, options, streams, table, state,
                            races.active() ? &races : nullptr, errors);
  result.raceCheckSkipped = races.skipReason();
  result.raceStreams = races.followedStreams();
  if (ran)
    checkPostcondition(program, layout, state, errors);
  return finish();
}

} // namespace sched
} // namespace collc
