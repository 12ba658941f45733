//===- Stages.cpp - what collc says of each collective's lowering ---------===//
#include "compiler/Report/Stages.h"

#include "compiler/Volume/Volume.h"

namespace collc {

void printStages(const std::vector<CheckedCollective> &checked,
                 llvm::raw_ostream &os) {
  // A recv is lowered with its send, so it is not counted on its own.
  size_t lowered = 0, verified = 0, total = 0;
  for (const CheckedCollective &c : checked) {
    if (c.lowered.withItsSend())
      continue;
    ++total;
    lowered += c.lowered.algorithm != nullptr;
    verified += c.verified();
  }
  os << "stages:\n"
     << "  parse and verify (coll dialect)        done\n"
     << "  graph checks (coll-verify-graph)       done\n"
     << "  topology loaded and attached           done\n"
     << "  lowering to sched (algorithm library)  done for " << lowered
     << " of " << total << " collectives\n"
     << "  schedule verification (sched-verify)   done: " << verified << " of "
     << lowered << " schedules verified\n"
     << "  simulation, algorithm selection        done\n"
     << "  plan, CUDA emission                    --emit=plan, --emit=cuda, "
        "--emit=fatbin\n"
     << "  running on the CPU                     --run, or collc-run on the "
        "plan\n"
     << "  running on GPUs                        collc-run --backend cuda "
        "(built, tested on a fake driver; not yet run on a real GPU)\n";
}

void addLoweringToSummary(const std::vector<CheckedCollective> &checked,
                          ProgramSummary &summary) {
  for (CollectiveInfo &info : summary.collectives) {
    for (const CheckedCollective &c : checked) {
      if (c.lowered.op != info.operation)
        continue;
      if (!c.lowered.algorithm) {
        info.verified = "-";
        break;
      }
      info.algorithm = c.lowered.algorithm->name;
      info.chunks = c.lowered.expand.chunksPerPart;
      info.verified = c.verified() ? "yes" : "NO";
      if (c.program && c.lowered.elementsPerRank >= 0)
        info.sentPerRank = computeVolumes(*c.program, c.lowered.elementsPerRank,
                                          c.lowered.elementBytes)
                               .maxBytesSent();
      break;
    }
  }
}

void printNotLowered(const std::vector<CheckedCollective> &checked,
                     llvm::raw_ostream &os) {
  for (const CheckedCollective &c : checked) {
    if (c.lowered.algorithm || c.lowered.withItsSend())
      continue;
    std::string location = formatLocation(c.lowered.op->getLoc());
    os << "not lowered: " << c.lowered.op->getName().getStringRef() << " at "
       << location << ": " << c.lowered.whyNot << "\n";
  }
}

} // namespace collc
