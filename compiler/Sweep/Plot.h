//===- Plot.h - busbw against size, as SVG ---------------------*- C++ -*-===//
//
// `collc --plot FILE.svg`: the busbw of collc's choice and of the baselines
// against the bytes per rank, on log axes, with the busbw the lower bound
// allows for reference. Plain SVG 1.1 written here, no dependencies.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SWEEP_PLOT_H
#define COLLC_COMPILER_SWEEP_PLOT_H

#include "compiler/Sweep/Sweep.h"

#include <string>

namespace collc {
namespace sweep {

/// The SVG document of a sweep (one or more sizes).
std::string sweepToSvg(const SweepResult &result);

/// A size as the plot's axis labels it: "8 B", "32 KiB", "1 GiB".
std::string axisBytes(double bytes);

} // namespace sweep
} // namespace collc

#endif
