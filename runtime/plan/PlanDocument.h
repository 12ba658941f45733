//===- PlanDocument.h - the parsed plan, before validation ------*- C++ -*-===//
//
// Internal to CollRtPlan. The reader parses a plan in one pass: everything
// but the instruction streams becomes a small JSON tree, while each
// instruction is decoded as soon as it is parsed into a compact
// sched::Instruction (a 1024-rank plan has millions; a JSON tree of them
// would take gigabytes). The validator then checks the tree and the decoded
// streams against every rule of docs/plan-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_PLAN_PLANDOCUMENT_H
#define COLLRT_PLAN_PLANDOCUMENT_H

#include "collrt/Plan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace collrt {
namespace detail {

using Json = nlohmann::json;

/// A violated rule: where (a JSON path, "$.collectives[0].dtype") and what.
struct PlanError {
  std::string path;
  std::string rule;
};

/// One channel's instruction stream, decoded while parsing. Dependencies
/// are numbered within the channel (Instruction::depBegin indexes `deps`).
struct DecodedChannel {
  std::vector<collc::sched::Instruction> instructions;
  std::vector<collc::sched::Dependency> deps;
};

struct PlanDocument {
  /// The plan without its instruction streams: every decoded "instructions"
  /// array is replaced by a binary value whose subtype is its index in
  /// `channels` (JSON text cannot produce binary values, so a file cannot
  /// forge one).
  Json root;
  std::vector<DecodedChannel> channels;
  /// The first instruction that could not be decoded, reported after the
  /// format and version are known to be right.
  bool hasDeferredError = false;
  PlanError deferredError;
};

/// Parses `text`; on a JSON syntax error returns false and sets `error` to
/// "LINE:COLUMN: what" (1-based).
bool parsePlanDocument(const std::string &text, PlanDocument *document,
                       std::string *error);

/// Decodes one instruction, [opcode, step, send_peer, recv_peer, src, dst]
/// or [..., deps], appending its dependencies to `channel.deps`. Checks what
/// needs no context (types, the opcode, which fields the opcode uses);
/// throws PlanError with a path relative to the instruction ("" or "[4]").
void decodeInstruction(const Json &value, DecodedChannel &channel);

/// Checks every rule and fills `plan`, moving the decoded streams out of
/// `document`; throws PlanError.
void validatePlan(PlanDocument &document, Plan *plan);

/// A JSON value in a message: its type and a short excerpt.
std::string describe(const Json &value);

} // namespace detail
} // namespace collrt

#endif
