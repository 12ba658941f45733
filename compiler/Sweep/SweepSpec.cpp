//===- SweepSpec.cpp - one-op programs for sweeps -------------------------===//
#include "compiler/Sweep/SweepSpec.h"

#include "common/Topology/Topology.h"
#include "compiler/Summary/CollectiveSummary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace collc {
namespace sweep {

using sched::Collective;

std::optional<int64_t> parseByteSize(llvm::StringRef text, std::string &error) {
  llvm::StringRef original = text;
  text = text.trim();
  if (text.empty()) {
    error = "empty size";
    return std::nullopt;
  }
  size_t digits = 0;
  while (digits < text.size() && llvm::isDigit(text[digits]))
    ++digits;
  if (digits == 0) {
    error = "'" + original.str() +
            "' is not a size: expected a whole number of bytes with an "
            "optional unit (8, 64K, 1MiB, 8G)";
    return std::nullopt;
  }
  llvm::StringRef number = text.take_front(digits);
  llvm::StringRef unit = text.drop_front(digits).trim();
  if (unit.starts_with(".") || unit.starts_with(",")) {
    error = "'" + original.str() +
            "' is not a whole number of bytes (write 1536K, not 1.5M)";
    return std::nullopt;
  }
  int shift = 0;
  std::string lower = unit.lower();
  if (lower.empty() || lower == "b")
    shift = 0;
  else if (lower == "k" || lower == "kib")
    shift = 10;
  else if (lower == "m" || lower == "mib")
    shift = 20;
  else if (lower == "g" || lower == "gib")
    shift = 30;
  else {
    error = "'" + original.str() + "': unknown unit '" + unit.str() +
            "'; use B, K or KiB, M or MiB, G or GiB (powers of 1024)";
    return std::nullopt;
  }
  uint64_t value = 0;
  if (number.getAsInteger(10, value) || value > (uint64_t(1) << 62) ||
      (value << shift) >> shift != value ||
      (value << shift) > static_cast<uint64_t>(kMaxBytesPerRank)) {
    error = "'" + original.str() + "' is too large: at most " +
            formatBytes(kMaxBytesPerRank) + " per rank";
    return std::nullopt;
  }
  value <<= shift;
  if (value == 0) {
    error = "'" + original.str() + "': the size must be at least 1 byte";
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

std::vector<int64_t> ByteSizes::sizes() const {
  std::vector<int64_t> result;
  if (!range)
    return {min};
  for (int64_t s = min; s <= max; s *= factor) {
    result.push_back(s);
    if (s > max / factor)
      break;
  }
  return result;
}

std::optional<ByteSizes> parseByteSizes(llvm::StringRef text,
                                        std::string &error) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ':');
  if (parts.size() > 3) {
    error =
        "'" + text.str() + "' has too many ':'; write SIZE or MIN:MAX[:FACTOR]";
    return std::nullopt;
  }
  ByteSizes sizes;
  std::optional<int64_t> min = parseByteSize(parts[0], error);
  if (!min)
    return std::nullopt;
  sizes.min = sizes.max = *min;
  if (parts.size() == 1)
    return sizes;
  sizes.range = true;
  std::optional<int64_t> max = parseByteSize(parts[1], error);
  if (!max)
    return std::nullopt;
  sizes.max = *max;
  if (sizes.max < sizes.min) {
    error = "'" + text.str() + "': the range ends (" + formatBytes(sizes.max) +
            ") below where it starts (" + formatBytes(sizes.min) + ")";
    return std::nullopt;
  }
  if (parts.size() == 3) {
    int64_t factor = 0;
    if (parts[2].trim().getAsInteger(10, factor) || factor < 2 ||
        factor > 1024) {
      error = "'" + text.str() + "': the factor '" + parts[2].str() +
              "' must be a whole number from 2 to 1024";
      return std::nullopt;
    }
    sizes.factor = factor;
  }
  return sizes;
}

std::optional<ElementType> parseElementType(llvm::StringRef text,
                                            std::string &error) {
  struct Entry {
    const char *name, *alias, *mlir;
    unsigned bytes;
  };
  static const Entry table[] = {
      {"f32", "float", "f32", 4},
      {"bf16", "bfloat16", "bf16", 2},
      {"f16", "half", "f16", 2},
      {"f64", "double", "f64", 8},
      {"f8E4M3FN", "fp8_e4m3", "f8E4M3FN", 1},
      {"f8E5M2", "fp8_e5m2", "f8E5M2", 1},
      {"i64", "int64", "i64", 8},
      {"i32", "int32", "i32", 4},
      {"i8", "int8", "i8", 1},
  };
  for (const Entry &e : table)
    if (text == e.name || text == e.alias)
      return ElementType{e.mlir, e.bytes};
  error = "unknown --dtype '" + text.str() +
          "'; use f32 (default), bf16, f16, f64, f8E4M3FN, f8E5M2, i64, i32, "
          "i8 (or nccl-tests' float, bfloat16, half, double, fp8_e4m3, "
          "fp8_e5m2, int64, int32, int8)";
  return std::nullopt;
}

std::optional<GroupKind> parseGroup(llvm::StringRef text, std::string &error) {
  if (text == "all")
    return GroupKind::All;
  if (text == "node")
    return GroupKind::Node;
  if (text == "gpu")
    return GroupKind::Gpu;
  error = "unknown --group '" + text.str() +
          "'; use all (every rank, default), gpu (the GPUs of one node: the "
          "mesh's \"gpu\" axis) or node (one GPU per node: the \"node\" axis)";
  return std::nullopt;
}

const char *groupName(GroupKind kind) {
  switch (kind) {
  case GroupKind::All:
    return "all";
  case GroupKind::Node:
    return "node";
  case GroupKind::Gpu:
    return "gpu";
  }
  return "all";
}

int64_t ProgramSpec::groupSize() const {
  switch (group) {
  case GroupKind::All:
    return nodes * gpusPerNode;
  case GroupKind::Node:
    return nodes;
  case GroupKind::Gpu:
    return gpusPerNode;
  }
  return nodes * gpusPerNode;
}

static bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter ||
         c == Collective::Reduce;
}

static bool splitsInput(Collective c) {
  return c == Collective::ReduceScatter || c == Collective::AllToAll ||
         c == Collective::AllToAllV || c == Collective::Scatter;
}

std::optional<ProgramSpec>
makeProgramSpec(llvm::StringRef collective, const ElementType &element,
                llvm::StringRef reduction, GroupKind group,
                const topo::Topology &topology, std::string &error) {
  static const char *known = "all_reduce, all_gather, reduce_scatter, "
                             "all_to_all, all_to_all_v, broadcast, reduce, "
                             "scatter, gather";
  ProgramSpec spec;
  bool found = false;
  for (int i = 0; i < static_cast<int>(Collective::SendRecv); ++i)
    if (collective == sched::collectiveName(static_cast<Collective>(i))) {
      spec.collective = static_cast<Collective>(i);
      found = true;
    }
  if (!found) {
    error =
        "unknown --collective '" + collective.str() + "'; use one of " + known;
    return std::nullopt;
  }
  static const char *kinds[] = {"sum", "prod", "min", "max", "avg"};
  if (!llvm::is_contained(kinds, reduction)) {
    error = "unknown --op '" + reduction.str() +
            "'; use sum (default), prod, min, max or avg";
    return std::nullopt;
  }
  spec.element = element;
  spec.reduction = reduction.str();
  spec.group = group;
  spec.nodes = topology.numNodes();
  spec.gpusPerNode = topology.gpusPerNode();
  if (group == GroupKind::Node && spec.nodes < 2) {
    error = "--group node: topology '" + topology.name() +
            "' has a single node, so a group of one GPU per node has one "
            "rank; use --group all or gpu";
    return std::nullopt;
  }
  if (spec.groupSize() < 2) {
    error = llvm::formatv("--group {0}: the group has {1} rank on topology "
                          "'{2}'; a collective needs at least 2",
                          groupName(group), spec.groupSize(), topology.name())
                .str();
    return std::nullopt;
  }
  return spec;
}

int64_t sizeGranule(const ProgramSpec &spec) {
  int64_t granule = spec.element.bytes;
  if (splitsInput(spec.collective))
    granule *= spec.groupSize();
  return granule;
}

bool checkExactSize(const ProgramSpec &spec, int64_t bytes,
                    std::string &error) {
  int64_t granule = sizeGranule(spec);
  if (bytes % granule == 0)
    return true;
  std::string what =
      splitsInput(spec.collective)
          ? llvm::formatv("{0} splits each rank's input into {1} equal parts "
                          "of whole {2} elements ({3} B each)",
                          sched::collectiveName(spec.collective),
                          spec.groupSize(), spec.element.mlirName,
                          spec.element.bytes)
                .str()
          : llvm::formatv("a {0} buffer holds whole {1}-byte elements",
                          spec.element.mlirName, spec.element.bytes)
                .str();
  int64_t below = bytes / granule * granule;
  int64_t above = below + granule;
  error = llvm::formatv("--bytes {0} B is not a multiple of {1} B: {2}; ",
                        bytes, granule, what)
              .str();
  if (below > 0) {
    // Rounded, two sizes less than 1% apart read alike ("16.00 MiB or
    // 16 MiB"): then in bytes.
    std::string low = formatBytes(below), high = formatBytes(above);
    if ((above - below) * 100 < below) {
      low = std::to_string(below) + " B";
      high = std::to_string(above) + " B";
    }
    error += "nearest: " + low + " or " + high;
  } else
    error += "the smallest size is " + formatBytes(granule);
  error += " (a MIN:MAX sweep rounds down instead, as nccl-tests does)";
  return false;
}

int64_t roundDownSize(const ProgramSpec &spec, int64_t bytes) {
  int64_t granule = sizeGranule(spec);
  return bytes / granule * granule;
}

std::string generateProgram(const ProgramSpec &spec, int64_t bytes) {
  const int64_t n = spec.groupSize();
  const int64_t elements = bytes / spec.element.bytes;
  const std::string &t = spec.element.mlirName;
  auto tensor = [&](int64_t count) {
    return llvm::formatv("tensor<{0}x{1}>", count, t).str();
  };
  int64_t outElements = elements;
  switch (spec.collective) {
  case Collective::AllGather:
  case Collective::Gather:
    outElements = elements * n;
    break;
  case Collective::ReduceScatter:
  case Collective::Scatter:
    outElements = elements / n;
    break;
  default:
    break;
  }
  std::string in = tensor(elements), out = tensor(outElements);
  std::string axes;
  if (spec.group == GroupKind::Node)
    axes = " axes = [\"node\"]";
  else if (spec.group == GroupKind::Gpu && spec.nodes > 1)
    axes = " axes = [\"gpu\"]";
  std::string attrs;
  const std::string reduce = " reduce = " + spec.reduction;
  switch (spec.collective) {
  case Collective::AllReduce:
    attrs = reduce;
    break;
  case Collective::AllGather:
    attrs = " gather_axis = 0";
    break;
  case Collective::ReduceScatter:
    attrs = " scatter_axis = 0" + reduce;
    break;
  case Collective::AllToAll:
    attrs = " split_axis = 0 concat_axis = 0";
    break;
  case Collective::AllToAllV:
    attrs = llvm::formatv(" split_axis = 0 send_counts = dense<{0}> : "
                          "tensor<{1}x{1}xi64>",
                          elements / n, n)
                .str();
    break;
  case Collective::Broadcast:
    attrs = " root = 0";
    break;
  case Collective::Reduce:
    attrs = " root = 0" + reduce;
    break;
  case Collective::Scatter:
    attrs = " root = 0 scatter_axis = 0";
    break;
  case Collective::Gather:
    attrs = " root = 0 gather_axis = 0";
    break;
  case Collective::SendRecv:
    break;
  }
  std::string mesh =
      spec.nodes > 1
          ? llvm::formatv("coll.mesh @world shape = [{0}, {1}] names = "
                          "[\"node\", \"gpu\"]",
                          spec.nodes, spec.gpusPerNode)
                .str()
          : llvm::formatv("coll.mesh @world shape = [{0}] names = [\"gpu\"]",
                          spec.gpusPerNode)
                .str();
  const char *name = sched::collectiveName(spec.collective);
  std::string text;
  text +=
      "// " + describeSpec(spec) + ", " + formatBytes(bytes) + " per rank\n";
  text += mesh + "\n";
  text += llvm::formatv("func.func @{0}(%x: {1}) -> {2} {{\n", name, in, out);
  text += llvm::formatv("  %y = coll.{0} %x on @world{1}{2} : {3} -> {4}\n",
                        name, axes, attrs, in, out);
  text += llvm::formatv("  return %y : {0}\n}\n", out);
  return text;
}

std::string describeSpec(const ProgramSpec &spec) {
  std::string what = sched::collectiveName(spec.collective);
  what += " (";
  if (reduces(spec.collective))
    what += spec.reduction + ", ";
  what += spec.element.mlirName;
  if (spec.collective == Collective::Broadcast ||
      spec.collective == Collective::Reduce ||
      spec.collective == Collective::Scatter ||
      spec.collective == Collective::Gather)
    what += ", root 0";
  what += ")";
  switch (spec.group) {
  case GroupKind::All:
    what += llvm::formatv(" over all {0} ranks", spec.groupSize()).str();
    break;
  case GroupKind::Gpu:
    what +=
        llvm::formatv(" over the {0} GPUs of a node", spec.groupSize()).str();
    break;
  case GroupKind::Node:
    what +=
        llvm::formatv(" over one GPU of each of {0} nodes", spec.groupSize())
            .str();
    break;
  }
  return what;
}

} // namespace sweep
} // namespace collc
