//===- Dot.cpp - a schedule's dependency graph in Graphviz DOT ------------===//
#include "compiler/Report/Dot.h"

#include "compiler/Summary/CollectiveSummary.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <tuple>

namespace collc {

using namespace sched;

static std::string quote(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

static std::string range(const ChunkRange &r) {
  const char *b = r.buffer == Buffer::Input    ? "in"
                  : r.buffer == Buffer::Output ? "out"
                                               : "scratch";
  if (r.count == 1)
    return llvm::formatv("{0}[{1}]", b, r.index);
  return llvm::formatv("{0}[{1}:{2}]", b, r.index, r.index + r.count);
}

static std::string nodeId(size_t graph, int rank, size_t channel,
                          size_t index) {
  return llvm::formatv("g{0}_r{1}c{2}i{3}", graph, rank, channel, index);
}

/// The label of an instruction: its index, opcode, peers, ranges, step.
static std::string label(const Instruction &in, size_t index) {
  std::string text = llvm::formatv("{0}: {1}", index, opcodeName(in.opcode));
  if (in.recvPeer >= 0)
    text += llvm::formatv(" from {0}", in.recvPeer);
  if (in.sendPeer >= 0)
    text += llvm::formatv(" to {0}", in.sendPeer);
  std::string ranges;
  if (opcodeReadsSrc(in.opcode))
    ranges += range(in.src);
  if (opcodeWritesDst(in.opcode))
    ranges += (ranges.empty() ? "" : " -> ") + range(in.dst);
  if (!ranges.empty())
    text += "\n" + ranges;
  text += llvm::formatv(" (step {0})", in.step);
  return text;
}

bool writeDot(const std::vector<DotGraph> &graphs, size_t limit,
              std::string &out, std::string &error) {
  size_t total = 0;
  for (const DotGraph &g : graphs)
    total += g.program->instructionCount();
  if (total > limit) {
    error = llvm::formatv(
        "--emit=dot: the schedule{0} {1} {2} instructions, more than the {3} "
        "a readable graph can show:",
        graphs.size() == 1 ? "" : "s", graphs.size() == 1 ? "has" : "have",
        total, limit);
    for (const DotGraph &g : graphs)
      error += llvm::formatv("\n  {0}: {1} instructions", g.title,
                             g.program->instructionCount());
    error += "\nuse a smaller group (--group gpu), --chunks 1, or "
             "--emit=sched for the schedule as text";
    return false;
  }
  // One digraph; with several schedules, a cluster for each.
  const bool single = graphs.size() == 1;
  std::string title = single
                          ? graphs.front().title
                          : llvm::formatv("{0} schedules", graphs.size()).str();
  out += "digraph " + quote(title) + " {\n";
  out += "  label=" +
         quote(title + "\nedges: black = program order, "
                       "blue dashed = cross-channel dependency, "
                       "red = message (send -> recv)") +
         ";\n  labelloc=t;\n  fontname=\"Helvetica\";\n  "
         "compound=true;\n  newrank=true;\n"
         "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
         "fontname=\"Helvetica\", fontsize=10];\n";
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const DotGraph &g = graphs[gi];
    const Program &p = *g.program;
    if (!single)
      out += llvm::formatv("  subgraph cluster_g{0} {{\n  label={1};\n  "
                           "style=bold;\n",
                           gi, quote(g.title));
    // Nodes, one cluster per rank and one per channel inside it.
    for (int r = 0; r < p.numRanks && r < static_cast<int>(p.ranks.size());
         ++r) {
      const RankProgram &rank = p.ranks[r];
      out += llvm::formatv("  subgraph cluster_g{0}_r{1} {{\n    label="
                           "\"rank {1}\";\n    style=filled;\n    "
                           "fillcolor=\"#f4f4f4\";\n",
                           gi, r);
      for (size_t c = 0; c < rank.channels.size(); ++c) {
        const ChannelProgram &channel = rank.channels[c];
        if (channel.instructions.empty())
          continue;
        out += llvm::formatv("    subgraph cluster_g{0}_r{1}c{2} {{\n      "
                             "label=\"channel {2}\";\n      style=dashed;\n",
                             gi, r, c);
        for (size_t i = 0; i < channel.instructions.size(); ++i) {
          const Instruction &in = channel.instructions[i];
          const char *fill =
              opcodeReceives(in.opcode)
                  ? (opcodeSends(in.opcode) ? "#fff2cc" : "#dae8fc")
              : opcodeSends(in.opcode) ? "#f8cecc"
                                       : "#e1f5e1";
          out += llvm::formatv("      {0} [label={1}, fillcolor=\"{2}\"];\n",
                               nodeId(gi, r, c, i), quote(label(in, i)), fill);
        }
        out += "    }\n";
      }
      out += "  }\n";
    }
    // Program order and cross-channel dependencies.
    for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r) {
      const RankProgram &rank = p.ranks[r];
      for (size_t c = 0; c < rank.channels.size(); ++c) {
        const auto &ins = rank.channels[c].instructions;
        for (size_t i = 0; i < ins.size(); ++i) {
          if (i > 0)
            out += llvm::formatv("  {0} -> {1};\n", nodeId(gi, r, c, i - 1),
                                 nodeId(gi, r, c, i));
          for (uint32_t d = 0; d < ins[i].depCount; ++d) {
            const Dependency &dep = rank.dependencies[ins[i].depBegin + d];
            out += llvm::formatv("  {0} -> {1} [style=dashed, color=blue];\n",
                                 nodeId(gi, r, dep.channel, dep.instruction),
                                 nodeId(gi, r, c, i));
          }
        }
      }
    }
    // Messages: the k-th send on (sender, receiver, channel) goes to the
    // k-th recv there.
    std::map<std::tuple<int, int, size_t>, std::vector<size_t>> sends, recvs;
    for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r)
      for (size_t c = 0; c < p.ranks[r].channels.size(); ++c) {
        const auto &ins = p.ranks[r].channels[c].instructions;
        for (size_t i = 0; i < ins.size(); ++i) {
          if (opcodeSends(ins[i].opcode) && ins[i].sendPeer >= 0)
            sends[{r, ins[i].sendPeer, c}].push_back(i);
          if (opcodeReceives(ins[i].opcode) && ins[i].recvPeer >= 0)
            recvs[{ins[i].recvPeer, r, c}].push_back(i);
        }
      }
    for (const auto &[key, list] : sends) {
      auto [from, to, c] = key;
      auto it = recvs.find(key);
      for (size_t k = 0; k < list.size(); ++k) {
        if (it == recvs.end() || k >= it->second.size())
          break;
        out += llvm::formatv("  {0} -> {1} [color=red];\n",
                             nodeId(gi, from, c, list[k]),
                             nodeId(gi, to, c, it->second[k]));
      }
    }
    if (!single)
      out += "  }\n";
  }
  out += "}\n";
  return true;
}

bool writeCheckedDot(const std::vector<CheckedCollective> &checked,
                     size_t limit, std::string &out, std::string &error) {
  std::vector<DotGraph> graphs;
  for (const CheckedCollective &c : checked) {
    if (!c.program)
      continue;
    const lowering::LoweredCollective &l = c.lowered;
    DotGraph graph;
    graph.title =
        llvm::formatv("{0} at {1}: {2}, n = {3}, k = {4}",
                      sched::collectiveName(l.collective),
                      formatLocation(l.op->getLoc()), l.algorithm->name,
                      l.layout.size, l.expand.chunksPerPart)
            .str();
    graph.program = &*c.program;
    graphs.push_back(graph);
  }
  return writeDot(graphs, limit, out, error);
}

} // namespace collc
