//===- PlanWriter.cpp - the plan as JSON text -----------------------------===//
//
// Written by hand rather than through a JSON DOM: the layout is fixed (one
// instruction per line) so that plans diff well and stay compact, and a
// 1024-rank plan of millions of instructions never exists twice in memory.
//
//===----------------------------------------------------------------------===//
#include "collrt/Plan.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace collrt {

namespace sched = collc::sched;

namespace {

class PlanWriter {
public:
  std::string write(const Plan &plan) {
    out += "{\n";
    out += "  \"format\": \"collc-plan\",\n";
    out += "  \"version\": " + std::to_string(planVersionNeeded(plan)) + ",\n";
    out += "  \"producer\": " + quote(plan.producer) + ",\n";
    out += "  \"topology\": " + quote(plan.topology) + ",\n";
    out += "  \"world_size\": " + std::to_string(plan.worldSize) + ",\n";
    out += "  \"collectives\": [";
    for (size_t i = 0; i < plan.collectives.size(); ++i) {
      out += i ? ",\n" : "\n";
      writeCollective(plan.collectives[i]);
    }
    out += plan.collectives.empty() ? "]\n" : "\n  ]\n";
    out += "}\n";
    return std::move(out);
  }

private:
  static std::string quote(const std::string &text) {
    return nlohmann::json(text).dump();
  }

  template <typename T> void list(const std::vector<T> &values) {
    out += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i)
        out += ", ";
      out += std::to_string(values[i]);
    }
    out += ']';
  }

  void writeCollective(const PlanCollective &collective) {
    const sched::Program &program = collective.program;
    out += "    {\n";
    out += "      \"location\": " + quote(collective.location) + ",\n";
    out += "      \"dtype\": \"" + std::string(dataTypeName(collective.dtype)) +
           "\",\n";
    out += "      \"reduction\": \"" +
           std::string(reduceOpName(collective.reduction)) + "\",\n";
    out += "      \"elements_per_rank\": " +
           (collective.elementsPerRank < 0
                ? std::string("null")
                : std::to_string(collective.elementsPerRank)) +
           ",\n";
    out += "      \"connection_slots\": " +
           std::to_string(collective.connectionSlots) + ",\n";
    out += "      \"groups\": [";
    for (size_t g = 0; g < collective.groups.size(); ++g) {
      out += g ? ",\n        " : "\n        ";
      list(collective.groups[g]);
    }
    out += collective.groups.empty() ? "],\n" : "\n      ],\n";
    out += "      \"program\": {\n";
    out += "        \"collective\": \"" +
           std::string(sched::collectiveName(program.collective)) + "\",\n";
    out += "        \"algorithm\": " + quote(program.algorithm) + ",\n";
    out += "        \"num_ranks\": " + std::to_string(program.numRanks) + ",\n";
    out += "        \"root\": " + std::to_string(program.root) + ",\n";
    out += "        \"peer\": " + std::to_string(program.peer) + ",\n";
    if (program.collective == sched::Collective::SendRecv) {
      out += "        \"send_to\": ";
      list(program.sendTo);
      out += ",\n";
    }
    out += "        \"chunks_per_part\": " +
           std::to_string(program.chunksPerPart) + ",\n";
    out += "        \"buffers\": {\"input\": " +
           std::to_string(program.buffers.inputChunks) +
           ", \"output\": " + std::to_string(program.buffers.outputChunks) +
           ", \"scratch\": " + std::to_string(program.buffers.scratchChunks) +
           "},\n";
    if (program.collective == sched::Collective::AllToAllV) {
      // Empty: the counts are given at run time (version 2).
      out += "        \"send_counts\": ";
      if (program.sendCounts.empty())
        out += "null";
      else
        list(program.sendCounts);
      out += ",\n";
    }
    out += "        \"ranks\": [";
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      out += r ? ",\n" : "\n";
      writeRank(program, int32_t(r));
    }
    out += program.ranks.empty() ? "]\n" : "\n        ]\n";
    out += "      }\n";
    out += "    }";
  }

  void connectionList(const std::vector<PlanConnection> &connections) {
    out += '[';
    for (size_t i = 0; i < connections.size(); ++i) {
      if (i)
        out += ", ";
      const PlanConnection &c = connections[i];
      out += '[' + std::to_string(c.peer) + ", " + std::to_string(c.channel) +
             ", " + std::to_string(c.messages) + ']';
    }
    out += ']';
  }

  void writeRank(const sched::Program &program, int32_t rank) {
    const sched::RankProgram &rankProgram = program.ranks[size_t(rank)];
    RankConnections connections = rankConnections(program, rank);
    out += "          {\n";
    out += "            \"connections\": {\"send\": ";
    connectionList(connections.send);
    out += ", \"recv\": ";
    connectionList(connections.recv);
    out += "},\n";
    out += "            \"channels\": [";
    for (size_t c = 0; c < rankProgram.channels.size(); ++c) {
      out += c ? ",\n" : "\n";
      out += "              {\"instructions\": [";
      const auto &instructions = rankProgram.channels[c].instructions;
      for (size_t i = 0; i < instructions.size(); ++i) {
        out += i ? ",\n                " : "\n                ";
        writeInstruction(rankProgram, instructions[i]);
      }
      out += instructions.empty() ? "]}" : "\n              ]}";
    }
    out += rankProgram.channels.empty() ? "]\n" : "\n            ]\n";
    out += "          }";
  }

  void range(const sched::ChunkRange &r, bool used) {
    if (!used) {
      out += "null";
      return;
    }
    out += "[\"" + std::string(sched::bufferName(r.buffer)) + "\", " +
           std::to_string(r.index) + ", " + std::to_string(r.count) + ']';
  }

  /// [opcode, step, send_peer, recv_peer, src, dst(, deps)].
  void writeInstruction(const sched::RankProgram &rankProgram,
                        const sched::Instruction &instruction) {
    sched::Opcode op = instruction.opcode;
    out += "[\"" + std::string(sched::opcodeName(op)) + "\", " +
           std::to_string(instruction.step) + ", " +
           std::to_string(instruction.sendPeer) + ", " +
           std::to_string(instruction.recvPeer) + ", ";
    range(instruction.src, sched::opcodeReadsSrc(op));
    out += ", ";
    range(instruction.dst, sched::opcodeWritesDst(op));
    if (instruction.depCount) {
      out += ", [";
      for (uint32_t d = 0; d < instruction.depCount; ++d) {
        size_t at = size_t(instruction.depBegin) + d;
        const sched::Dependency dep = at < rankProgram.dependencies.size()
                                          ? rankProgram.dependencies[at]
                                          : sched::Dependency{};
        if (d)
          out += ", ";
        out += '[' + std::to_string(dep.channel) + ", " +
               std::to_string(dep.instruction) + ']';
      }
      out += ']';
    }
    out += ']';
  }

  std::string out;
};

Status systemError(const std::string &what, const std::string &path,
                   int error) {
  return Status(ErrorCode::SystemError,
                "cannot " + what + " '" + path + "': " + std::strerror(error));
}

} // namespace

std::string planToJson(const Plan &plan) { return PlanWriter().write(plan); }

Status savePlanFile(const std::string &path, const Plan &plan) {
  return writeFileAtomically(path, planToJson(plan));
}

Status writeFileAtomically(const std::string &path, const std::string &text) {
  // A fresh name next to the target (so that rename is atomic), created
  // with mode 0666 so that the umask applies as to any output file.
  static std::atomic<unsigned> counter{0};
  std::string temporary;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temporary = path + ".tmp." + std::to_string(::getpid()) + "." +
                std::to_string(counter++);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return systemError("create a temporary file next to", path, errno);
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return systemError("write", temporary, error);
    }
    written += size_t(n);
  }
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return systemError("write", temporary, error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return systemError("rename '" + temporary + "' to", path, error);
  }
  return Status::success();
}

} // namespace collrt
