//===- CollectiveSummary.cpp - what a coll program communicates -----------===//
#include "compiler/Summary/CollectiveSummary.h"

#include "common/Topology/Topology.h"
#include "dialects/Coll/IR/CollOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

using namespace mlir;

namespace collc {

std::string formatLocation(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(fileLoc.getFilename()),
                         fileLoc.getLine(), fileLoc.getColumn())
        .str();
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return formatLocation(nameLoc.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  return "?";
}

/// The ranks of the group that holds rank 0: every combination of the group
/// axes' coordinates, the other axes at 0, numbered row-major over the mesh.
static std::vector<int64_t> groupOfRankZero(ArrayRef<int64_t> shape,
                                            ArrayRef<int64_t> groupAxes) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  std::vector<int64_t> ranks = {0};
  for (int64_t axis : groupAxes) {
    std::vector<int64_t> next;
    for (int64_t base : ranks)
      for (int64_t c = 0; c < shape[axis]; ++c)
        next.push_back(base + c * strides[axis]);
    ranks = std::move(next);
  }
  return ranks;
}

static std::string enclosingFunction(Operation *op) {
  if (auto func = op->getParentOfType<func::FuncOp>())
    return func.getSymName().str();
  return "";
}

ProgramSummary summarizeProgram(ModuleOp module,
                                const topo::Topology &topology) {
  ProgramSummary summary;
  module.walk([&](Operation *op) {
    if (auto coll = dyn_cast<coll::CollectiveOpInterface>(op)) {
      CollectiveInfo info;
      info.operation = op;
      info.function = enclosingFunction(op);
      info.location = formatLocation(op->getLoc());
      info.op = coll.getCollectiveName().str();
      info.mesh = coll.getMeshRef().getValue().str();
      info.groupSize = coll.getGroupSize();
      info.bytesPerRank = coll.getBytesPerRank();
      if (coll::MeshOp mesh = coll.getMeshOp()) {
        SmallVector<int64_t> axes = coll.getGroupAxisIndices();
        for (int64_t axis : axes)
          info.axes.push_back(cast<StringAttr>(mesh.getNames()[axis]).str());
        std::set<int64_t> nodes;
        for (int64_t rank : groupOfRankZero(mesh.getShape(), axes))
          nodes.insert(topology.nodeOf(rank));
        info.nodesSpanned = static_cast<int64_t>(nodes.size());
        info.ranksPerNode = info.groupSize / info.nodesSpanned;
      }
      summary.collectives.push_back(std::move(info));
      return;
    }
    if (auto compute = dyn_cast<coll::ComputeOp>(op)) {
      ComputeInfo info;
      info.function = enclosingFunction(op);
      info.location = formatLocation(op->getLoc());
      info.name = compute.getKernel().str();
      info.flops = compute.getFlops().convertToDouble();
      info.bytes = compute.getBytes().convertToDouble();
      summary.compute.push_back(std::move(info));
      return;
    }
    // Ops of other dialects that compute on tensors (linalg, arith) are
    // compute too; their cost is derived in a later stage.
    StringRef dialect =
        op->getDialect() ? op->getDialect()->getNamespace() : "";
    if ((dialect == "linalg" || dialect == "arith") && op->getNumResults() &&
        !op->hasTrait<OpTrait::ConstantLike>() &&
        !op->getParentOfType<coll::ComputeOp>() && op->getParentOp() &&
        isa<func::FuncOp>(op->getParentOp())) {
      ComputeInfo info;
      info.function = enclosingFunction(op);
      info.location = formatLocation(op->getLoc());
      info.name = op->getName().getStringRef().str();
      summary.compute.push_back(std::move(info));
    }
  });
  return summary;
}

std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<int64_t>(value)))
    return llvm::formatv("{0} {1}", static_cast<int64_t>(value), units[unit]);
  return llvm::formatv("{0:F2} {1}", value, units[unit]);
}

static std::string formatFlops(double flops) {
  static const char *units[] = {"", "K", "M", "G", "T", "P"};
  int unit = 0;
  while (flops >= 1000.0 && unit < 5) {
    flops /= 1000.0;
    ++unit;
  }
  return llvm::formatv("{0:F2} {1}FLOP", flops, units[unit]);
}

static std::string describeSpan(const CollectiveInfo &info) {
  if (info.nodesSpanned == 0)
    return "?";
  if (info.nodesSpanned == 1)
    return "1 node (intra-node)";
  if (info.ranksPerNode == 1)
    return llvm::formatv("{0} nodes x 1 GPU (one rail)", info.nodesSpanned);
  return llvm::formatv("{0} nodes x {1} GPUs", info.nodesSpanned,
                       info.ranksPerNode);
}

void printProgramSummary(const ProgramSummary &summary, raw_ostream &os) {
  // Functions in order of first appearance.
  std::vector<std::string> functions;
  auto note = [&](const std::string &f) {
    if (std::find(functions.begin(), functions.end(), f) == functions.end())
      functions.push_back(f);
  };
  for (const CollectiveInfo &c : summary.collectives)
    note(c.function);
  for (const ComputeInfo &c : summary.compute)
    note(c.function);
  bool lowered = false;
  for (const CollectiveInfo &c : summary.collectives)
    lowered |= !c.verified.empty();

  // The location column is 22 wide, wider for a longer location, so that
  // the other columns stay aligned.
  size_t width = 22;
  for (const CollectiveInfo &c : summary.collectives)
    width = std::max(width, c.location.size());
  for (const ComputeInfo &c : summary.compute)
    width = std::max(width, c.location.size());
  auto pad = [&](std::string text) {
    if (text.size() < width)
      text.resize(width, ' ');
    return text;
  };

  for (const std::string &function : functions) {
    os << "func @" << function << "\n";
    os << llvm::formatv("  {0,-3} {1} {2,-15} {3,5}  {4,-9} {5,12}  {6}", "#",
                        pad("location"), "collective", "group", "axes",
                        "bytes/rank", lowered ? "algorithm" : "spans");
    if (lowered)
      os << llvm::formatv("{0,-16}{1,5}  {2,-9}{3,11}  {4}", "", "k",
                          "verified", "sent/rank", "spans");
    os << "\n";
    int index = 1;
    for (const CollectiveInfo &c : summary.collectives) {
      if (c.function != function)
        continue;
      std::string axes = llvm::join(c.axes, ",");
      std::string bytes = c.bytesPerRank < 0 ? std::string("at run time")
                                             : formatBytes(c.bytesPerRank);
      os << llvm::formatv("  {0,-3} {1} {2,-15} {3,5}  {4,-9} {5,12}  ",
                          index++, pad(c.location), c.op, c.groupSize,
                          axes.empty() ? "-" : axes, bytes);
      if (lowered)
        os << llvm::formatv(
            "{0,-25}{1,5}  {2,-9}{3,11}  ",
            c.algorithm.empty() ? "-" : c.algorithm,
            c.chunks ? std::to_string(c.chunks) : std::string("-"),
            c.verified.empty() ? "-" : c.verified,
            c.sentPerRank < 0 ? std::string("-") : formatBytes(c.sentPerRank));
      os << describeSpan(c) << "\n";
    }
    if (index == 1)
      os << "      (no collectives)\n";
    bool header = false;
    for (const ComputeInfo &c : summary.compute) {
      if (c.function != function)
        continue;
      if (!header)
        os << llvm::formatv("  {0,-3} {1} {2,-17} {3}\n", "", pad("location"),
                            "compute", "cost");
      header = true;
      std::string cost = c.flops < 0
                             ? std::string("derived in a later stage")
                             : formatFlops(c.flops) + ", " +
                                   formatBytes(static_cast<int64_t>(c.bytes)) +
                                   " moved";
      os << llvm::formatv("  {0,-3} {1} {2,-17} {3}\n", "", pad(c.location),
                          c.name, cost);
    }
  }
}

} // namespace collc
