//===- Candidates.cpp - the candidate schedules of a collective -----------===//
#include "compiler/Select/Candidates.h"

#include "compiler/Select/Select.h"
#include "lowering/CollToSched/LowerCollectives.h"

namespace collc {

std::vector<std::pair<int64_t, unsigned>>
candidateGrid(const lowering::Algorithm &algorithm, llvm::StringRef params,
              unsigned chunks, const std::vector<int64_t> &channelCounts,
              const std::vector<unsigned> &counts, bool capped) {
  // A malformed --algo-param fails every candidate's compile, with its
  // reason; here it only means the channel count is not known to be set.
  std::string malformed;
  std::optional<llvm::StringMap<int64_t>> userParams =
      lowering::parseAlgoParams(params, malformed);
  bool userSetsChannels =
      userParams && userParams->count(algorithm.channelParam);
  std::vector<int64_t> tried = {0};
  if (capped && !algorithm.channelParam.empty() && !userSetsChannels)
    tried = channelCounts;
  std::vector<std::pair<int64_t, unsigned>> grid;
  for (int64_t channels : tried) {
    std::vector<unsigned> chunkCounts =
        chunks ? counts : chunkCountsWithChannels(counts, channels);
    for (unsigned k : chunkCounts)
      grid.emplace_back(channels, k);
  }
  return grid;
}

std::vector<CandidateSchedule>
candidateSchedules(const lowering::AlgorithmLibrary &library,
                   sched::Collective collective, llvm::StringRef params,
                   unsigned chunks, const std::vector<int64_t> &channelCounts,
                   bool capped) {
  const std::string name = sched::collectiveName(collective);
  std::vector<unsigned> counts =
      chunks ? std::vector<unsigned>{chunks} : std::vector<unsigned>{1, 2, 4};
  std::vector<CandidateSchedule> result;
  for (const lowering::Algorithm *algorithm :
       library.forCollective(collective)) {
    for (auto [channels, k] : candidateGrid(*algorithm, params, chunks,
                                            channelCounts, counts, capped)) {
      CandidateSchedule c;
      c.algorithm = algorithm;
      c.channels = channels;
      c.chunks = k;
      c.label = algorithm->name + " x" + std::to_string(k);
      c.algo = name + "=" + algorithm->name;
      c.params = params.str();
      if (channels > 0) {
        std::string param =
            algorithm->channelParam + "=" + std::to_string(channels);
        c.label += " " + param;
        c.params += (c.params.empty() ? "" : ",") + param;
      }
      c.fileStem = algorithm->name;
      for (char &ch : c.fileStem)
        if (ch == '/' || ch == ' ')
          ch = '_';
      c.fileStem += "-x" + std::to_string(k) +
                    (channels > 0 ? "-" + algorithm->channelParam +
                                        std::to_string(channels)
                                  : std::string());
      result.push_back(std::move(c));
    }
  }
  return result;
}

} // namespace collc
