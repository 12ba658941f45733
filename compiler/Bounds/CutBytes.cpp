//===- CutBytes.cpp - bytes a collective must move across a cut -----------===//
//
// For a set holding k of the N group ranks: what must leave and enter it,
// whatever the schedule. Information crosses at least once per cut; partial
// results (sums) can be combined on either side first, so a reduction needs
// one vector per direction, not one per rank. See docs/bounds.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bounds/Bounds.h"

namespace collc::bounds {

using sched::Collective;

namespace {

std::string num(long long value) { return std::to_string(value); }

} // namespace

Crossing crossingBytes(const CollectiveSpec &spec,
                       const std::vector<bool> &inside) {
  long long n = (long long)spec.gpus.size(), k = 0;
  for (size_t r = 0; r < inside.size() && r < spec.gpus.size(); ++r)
    k += inside[r] ? 1 : 0;
  Crossing c;
  if (k == 0 || k == n)
    return c;
  double m = spec.bytes;
  bool rootIn = spec.root >= 0 && size_t(spec.root) < inside.size() &&
                inside[size_t(spec.root)];
  std::string rest = "(" + num(n) + "-" + num(k) + ")";
  switch (spec.collective) {
  case Collective::AllReduce:
    c = {m, m, "M", "M"};
    break;
  case Collective::AllGather:
    c = {double(k) * m, double(n - k) * m, num(k) + " * M", rest + " * M"};
    break;
  case Collective::ReduceScatter:
    c = {double(n - k) / double(n) * m, double(k) / double(n) * m,
         rest + "/" + num(n) + " * M", num(k) + "/" + num(n) + " * M"};
    break;
  case Collective::AllToAllV:
    if (!spec.sendBytes.empty()) {
      for (size_t s = 0; s < size_t(n); ++s)
        for (size_t r = 0; r < size_t(n); ++r)
          if (inside[s] != inside[r])
            (inside[s] ? c.out : c.in) += spec.sendBytes[s * size_t(n) + r];
      c.outFormula = "send bytes from the set's " + num(k) + " ranks out";
      c.inFormula = "send bytes to the set's " + num(k) + " ranks in";
      break;
    }
    [[fallthrough]];
  case Collective::AllToAll: {
    double bytes = double(k) * double(n - k) / double(n) * m;
    std::string formula = num(k) + "*" + rest + "/" + num(n) + " * M";
    c = {bytes, bytes, formula, formula};
    break;
  }
  case Collective::Broadcast:
    c = rootIn ? Crossing{m, 0, "M", ""} : Crossing{0, m, "", "M"};
    break;
  case Collective::Reduce:
    c = rootIn ? Crossing{0, m, "", "M"} : Crossing{m, 0, "M", ""};
    break;
  case Collective::Scatter:
    c = rootIn ? Crossing{double(n - k) / double(n) * m, 0,
                          rest + "/" + num(n) + " * M", ""}
               : Crossing{0, double(k) / double(n) * m, "",
                          num(k) + "/" + num(n) + " * M"};
    break;
  case Collective::Gather:
    c = rootIn ? Crossing{0, double(n - k) * m, "", rest + " * M"}
               : Crossing{double(k) * m, 0, num(k) + " * M", ""};
    break;
  case Collective::SendRecv: {
    bool peerIn = spec.peer >= 0 && size_t(spec.peer) < inside.size() &&
                  inside[size_t(spec.peer)];
    if (rootIn && !peerIn)
      c = {m, 0, "M", ""};
    else if (!rootIn && peerIn)
      c = {0, m, "", "M"};
    break;
  }
  }
  return c;
}

} // namespace collc::bounds
