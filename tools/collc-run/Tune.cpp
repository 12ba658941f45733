//===- Tune.cpp - collc-run --tuning: measure candidate plans -------------===//
#include "tools/collc-run/Tune.h"

#include "runtime/bootstrap/TcpBootstrap.h"
#include "runtime/check/Reference.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/stat.h>
#include <unistd.h>

namespace collcrun {

using collc::sched::Collective;
using collrt::ErrorCode;
using collrt::Status;

namespace {

Status badPlan(const std::string &path, const std::string &rule) {
  return Status(ErrorCode::InvalidArgument, "--tuning: " + path + ": " + rule);
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

} // namespace

Status combineCandidatePlans(const Options &o, collrt::Plan *combined,
                             std::vector<uint64_t> *fingerprintsOut) {
  std::vector<std::string> paths{o.planPath};
  paths.insert(paths.end(), o.morePlans.begin(), o.morePlans.end());
  collrt::Plan out;
  std::vector<uint64_t> fingerprints;
  for (const std::string &path : paths) {
    collrt::Plan plan;
    Status s = collrt::loadPlanFile(path, &plan);
    if (!s.ok())
      return s;
    if (o.collective >= plan.collectives.size())
      return badPlan(path, "has " + std::to_string(plan.collectives.size()) +
                               " collective(s); --collective " +
                               std::to_string(o.collective) +
                               " is none of them");
    collrt::PlanCollective c = plan.collectives[o.collective];
    const collc::sched::Program &p = c.program;
    if (p.collective == Collective::AllToAllV)
      return badPlan(path, "its collective is an all_to_all_v, which is not "
                           "tuned: its time depends on its send counts");
    uint64_t fp = collc::sched::fingerprint(p);
    if (out.collectives.empty()) {
      out.version = plan.version;
      out.producer = plan.producer;
      out.topology = plan.topology;
      out.worldSize = plan.worldSize;
    } else {
      const collrt::PlanCollective &first = out.collectives.front();
      const collc::sched::Program &q = first.program;
      std::string differs;
      if (plan.worldSize != out.worldSize)
        differs = "its world has " + std::to_string(plan.worldSize) +
                  " ranks, " + paths.front() + "'s " +
                  std::to_string(out.worldSize);
      else if (p.collective != q.collective)
        differs = std::string("it runs ") +
                  collc::sched::collectiveName(p.collective) + ", " +
                  paths.front() + " " +
                  collc::sched::collectiveName(q.collective);
      else if (c.groups != first.groups)
        differs = "its groups differ from " + paths.front() + "'s";
      else if (c.dtype != first.dtype)
        differs = std::string("its element type is ") +
                  collrt::dataTypeName(c.dtype) + ", " + paths.front() + "'s " +
                  collrt::dataTypeName(first.dtype);
      else if (collrt::check::reduces(p.collective) &&
               c.reduction != first.reduction)
        differs = std::string("its reduction is ") +
                  collrt::reduceOpName(c.reduction) + ", " + paths.front() +
                  "'s " + collrt::reduceOpName(first.reduction);
      else if (p.root != q.root || p.peer != q.peer || p.sendTo != q.sendTo)
        differs =
            "its root or send/recv pairs differ from " + paths.front() + "'s";
      if (!differs.empty())
        return badPlan(path, "not a candidate for the same collective as " +
                                 paths.front() + ": " + differs);
      for (size_t i = 0; i < fingerprints.size(); ++i)
        if (fingerprints[i] == fp)
          return badPlan(path, "the same program as " + paths[i] + " (" +
                                   candidateLabel(out.collectives[i]) +
                                   "): a candidate is given twice");
      out.version = std::max(out.version, plan.version);
    }
    fingerprints.push_back(fp);
    out.collectives.push_back(std::move(c));
  }
  *combined = std::move(out);
  *fingerprintsOut = std::move(fingerprints);
  return Status::success();
}

Status loadTuningTarget(const std::string &path, collrt::TuningTable *table) {
  // The file is written (next to itself, then renamed) after everything
  // was measured: a directory it cannot be written to is said now, not
  // after the measurements.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty())
    dir = "/";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return Status(ErrorCode::SystemError,
                  "--tuning: cannot write the tuning file '" + path +
                      "': its directory '" + dir +
                      "': " + std::strerror(errno));
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    *table = collrt::TuningTable();
    return Status::success();
  }
  Status s = collrt::loadTuningFile(path, table);
  if (!s.ok())
    return Status(s.code(), "--tuning: " + s.message() +
                                " (collc-run adds to an existing tuning file; "
                                "mend it or name another)");
  return Status::success();
}

Status runOrTune(const RunSetup &setup, const TuneSetup *tune,
                 collrt::Communicator &comm, ReportExchange &exchange,
                 std::vector<collrt::TraceEvent> *trace) {
  if (!tune)
    return runRank(setup, comm, exchange, trace);
  const Options &o = *setup.options;
  std::vector<std::vector<double>> best;
  Status s = tuneRank(setup, o.tuneRounds, comm, exchange, &best);
  if (!s.ok() || comm.rank() != 0)
    return s;
  return saveTuning(setup, *tune, best, comm.transportName(), o.buffers);
}

Status saveTuning(const RunSetup &setup, const TuneSetup &tune,
                  const std::vector<std::vector<double>> &best,
                  const std::string &transport, const std::string &buffers) {
  const Options &o = *setup.options;
  collrt::TuningTable table = tune.table;
  const collrt::PlanCollective &first = setup.plan->collectives.front();
  std::string measured = utcNow(), host = collrt::bootstrap::localHostName();
  for (size_t z = 0; z < setup.sizes.size(); ++z) {
    collrt::TuningEntry entry;
    entry.collective = first.program.collective;
    entry.ranks = first.program.numRanks;
    entry.dtype = first.dtype;
    entry.reduction = first.reduction;
    entry.bytesPerRank = setup.sizes[z].bytesPerRank;
    entry.host = host;
    entry.transport = transport;
    entry.processes = tune.processes;
    entry.buffers = buffers;
    entry.measured = measured;
    entry.rounds = o.tuneRounds;
    entry.iters = o.iters;
    for (size_t c = 0; c < setup.plan->collectives.size(); ++c) {
      const collc::sched::Program &p = setup.plan->collectives[c].program;
      entry.candidates.push_back({p.algorithm, p.chunksPerPart,
                                  tune.fingerprints[c],
                                  std::max(best[z][c], 1e-12)});
    }
    std::stable_sort(
        entry.candidates.begin(), entry.candidates.end(),
        [](const collrt::TuningCandidate &a, const collrt::TuningCandidate &b) {
          return a.seconds < b.seconds;
        });
    collrt::addTuningEntry(table, std::move(entry));
  }
  Status s = collrt::saveTuningFile(o.tunePath, table);
  if (!s.ok())
    return withContext(s, "--tuning");
  std::printf("# tuning: %zu size(s) of %zu candidate(s) added to %s (%zu "
              "entries in all)\n",
              setup.sizes.size(), setup.plan->collectives.size(),
              o.tunePath.c_str(), table.entries.size());
  return Status::success();
}

} // namespace collcrun
