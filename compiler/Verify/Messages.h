//===- Messages.h - plain-words pieces of verifier messages -----*- C++ -*-===//
#ifndef COLLC_COMPILER_VERIFY_MESSAGES_H
#define COLLC_COMPILER_VERIFY_MESSAGES_H

#include "common/Program/Program.h"
#include "compiler/Verify/RankSet.h"

#include <string>

namespace collc {
namespace sched {

/// "1 chunk", "2 chunks".
std::string countOf(uint64_t n, const char *noun);

/// "send to rank 3", "recv from rank 1", "copy",
/// "recv_reduce_send from rank 1 to rank 3".
std::string describeInstruction(const Instruction &instruction);

/// "rank 2 channel 0 step 3".
std::string streamStep(uint32_t rank, uint32_t channel,
                       const Instruction &instruction);

/// "rank 2 channel 0 step 3 (instruction 5: send to rank 3)".
std::string instructionLocation(uint32_t rank, uint32_t channel, uint32_t index,
                                const Instruction &instruction);

/// "output chunk 5".
std::string describeChunk(Buffer buffer, uint64_t index);

/// "input chunk 3", "input chunks 3..5", "no input chunks".
std::string describeRange(const ChunkRange &range);

/// "0..7", "{0,1}", "{0..3,6}", "{5}"; long lists are cut short and end
/// with the number of ranks: "{0,2,4,...,1022 (512 ranks)}".
std::string formatRankSet(const RankSetPool &pool, RankSetPool::Handle set);

} // namespace sched
} // namespace collc

#endif
