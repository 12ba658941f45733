//===- Reference.cpp - the expected result of a collective ----------------===//
#include "runtime/check/Reference.h"

#include "runtime/check/ElementCodec.h"
#include "runtime/check/TypedElement.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace collrt {
namespace check {

using collc::sched::Collective;
using collc::sched::Program;

namespace {

/// Elements of part `part` of an N-part buffer of `total` elements.
int64_t partElements(int64_t total, int32_t n, int32_t part) {
  return collc::sched::chunkElements(total, static_cast<uint32_t>(n),
                                     static_cast<uint32_t>(part));
}

/// Elements before part `part`.
int64_t partOffset(int64_t total, int32_t n, int32_t part) {
  int64_t offset = 0;
  for (int32_t p = 0; p < part; ++p)
    offset += partElements(total, n, p);
  return offset;
}

/// Entry (from, to) of `counts` (N x N, row-major by sender), or of the
/// program's own counts when `counts` is null; 0 when there are none.
int64_t sendCount(const Program &program, const int64_t *counts, int32_t from,
                  int32_t to) {
  size_t n = size_t(program.numRanks);
  size_t at = size_t(from) * n + size_t(to);
  if (counts)
    return at < n * n ? counts[at] : 0;
  return at < program.sendCounts.size() ? program.sendCounts[at] : 0;
}

bool isRoot(const Program &program, int32_t rank) {
  return rank == program.root;
}

std::string formatValue(DataType type, uint64_t bits) {
  char text[96];
  uint64_t slot = bits;
  double v = loadElement(type, &slot, 0);
  int hexDigits = static_cast<int>(2 * dataTypeSize(type));
  if (!isFloatingPoint(type)) {
    int64_t i = type == DataType::I64 ? static_cast<int64_t>(bits)
                                      : static_cast<int64_t>(v);
    std::snprintf(text, sizeof text, "%" PRId64, i);
  } else {
    std::snprintf(text, sizeof text, "%.9g (0x%0*" PRIx64 ")", v, hexDigits,
                  bits);
  }
  return text;
}

} // namespace

int64_t referenceInputElements(const Program &program, int32_t rank,
                               int64_t count, const int64_t *sendCounts) {
  if (program.collective != Collective::AllToAllV)
    return count;
  int64_t total = 0;
  for (int32_t to = 0; to < program.numRanks; ++to)
    total += sendCount(program, sendCounts, rank, to);
  return total;
}

int64_t referenceOutputElements(const Program &program, int32_t rank,
                                int64_t count, const int64_t *sendCounts) {
  int32_t n = program.numRanks;
  switch (program.collective) {
  case Collective::AllReduce:
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::SendRecv:
    return count;
  case Collective::AllGather:
  case Collective::Gather:
    return int64_t(n) * count;
  case Collective::ReduceScatter:
  case Collective::Scatter:
    return partElements(count, n, rank);
  case Collective::AllToAll:
    return int64_t(n) * partElements(count, n, rank);
  case Collective::AllToAllV: {
    int64_t total = 0;
    for (int32_t from = 0; from < n; ++from)
      total += sendCount(program, sendCounts, from, rank);
    return total;
  }
  }
  return 0;
}

std::vector<OutputSegment> outputSegments(const Program &program, int32_t rank,
                                          int64_t count,
                                          const int64_t *sendCounts) {
  int32_t n = program.numRanks;
  std::vector<OutputSegment> segments;
  auto add = [&](int64_t outputBegin, int64_t length, int32_t source,
                 int64_t inputBegin) {
    if (length > 0)
      segments.push_back({outputBegin, length, source, inputBegin});
  };
  switch (program.collective) {
  case Collective::AllReduce:
    add(0, count, -1, 0);
    break;
  case Collective::Reduce:
    if (isRoot(program, rank))
      add(0, count, -1, 0);
    break;
  case Collective::ReduceScatter:
    add(0, partElements(count, n, rank), -1, partOffset(count, n, rank));
    break;
  case Collective::AllGather:
    for (int32_t s = 0; s < n; ++s)
      add(int64_t(s) * count, count, s, 0);
    break;
  case Collective::Gather:
    if (isRoot(program, rank))
      for (int32_t s = 0; s < n; ++s)
        add(int64_t(s) * count, count, s, 0);
    break;
  case Collective::Broadcast:
    add(0, count, program.root, 0);
    break;
  case Collective::Scatter:
    add(0, partElements(count, n, rank), program.root,
        partOffset(count, n, rank));
    break;
  case Collective::AllToAll: {
    int64_t part = partElements(count, n, rank);
    for (int32_t s = 0; s < n; ++s)
      add(int64_t(s) * part, part, s, partOffset(count, n, rank));
    break;
  }
  case Collective::AllToAllV: {
    int64_t at = 0;
    for (int32_t s = 0; s < n; ++s) {
      int64_t inputBegin = 0;
      for (int32_t p = 0; p < rank; ++p)
        inputBegin += sendCount(program, sendCounts, s, p);
      int64_t length = sendCount(program, sendCounts, s, rank);
      add(at, length, s, inputBegin);
      at += length;
    }
    break;
  }
  case Collective::SendRecv:
    for (int32_t s = 0; s < n; ++s)
      if (program.sendTarget(s) == rank) {
        add(0, count, s, 0);
        break; // no rank receives from two
      }
    break;
  }
  return segments;
}

namespace {
/// Elements the block loops of the check handle at a time (their buffers
/// stay in the L1 cache).
constexpr int64_t kBlock = 512;

template <typename E>
void expectedReductionsAs(const TestData &data, int64_t begin, int64_t count,
                          double *out) {
  const int32_t n = data.groupSize();
  const ReduceOp op = data.op();
  double values[kBlock];
  for (int64_t done = 0; done < count; done += kBlock) {
    const int64_t b = std::min(kBlock, count - done);
    double *acc = out + done;
    data.fillValues(0, begin + done, b, acc);
    // The ranks in order, as a naive loop over ranks per element would.
    for (int32_t s = 1; s < n; ++s) {
      data.fillValues(s, begin + done, b, values);
      switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        for (int64_t i = 0; i < b; ++i)
          acc[i] += values[i];
        break;
      case ReduceOp::Prod:
        for (int64_t i = 0; i < b; ++i)
          acc[i] *= values[i];
        break;
      case ReduceOp::Min:
        for (int64_t i = 0; i < b; ++i)
          acc[i] = std::min(acc[i], values[i]);
        break;
      case ReduceOp::Max:
        for (int64_t i = 0; i < b; ++i)
          acc[i] = std::max(acc[i], values[i]);
        break;
      }
    }
    if (op == ReduceOp::Avg) {
      if (E::kFloat)
        for (int64_t i = 0; i < b; ++i)
          acc[i] /= n;
      else
        for (int64_t i = 0; i < b; ++i)
          acc[i] = static_cast<double>(static_cast<int64_t>(acc[i]) / n);
    }
    for (int64_t i = 0; i < b; ++i)
      acc[i] = E::decode(E::encode(acc[i])); // roundToType
  }
}
} // namespace

void expectedReductions(const TestData &data, int64_t begin, int64_t count,
                        double *out) {
  typed::visitType(data.type(), [&](auto element) {
    expectedReductionsAs<decltype(element)>(data, begin, count, out);
  });
}

double expectedReduction(const TestData &data, int64_t index) {
  double v = 0;
  expectedReductions(data, index, 1, &v);
  return v;
}

std::string ElementError::describe() const {
  return "rank " + std::to_string(rank) + " " + buffer + "[" +
         std::to_string(index) + "]: expected " + expected + ", got " + got;
}

CheckResult checkRank(const TestData &data, int32_t rank, int64_t count,
                      const void *input, int64_t inputElements,
                      const void *output, int64_t outputElements,
                      size_t maxExamples) {
  CheckResult result;
  const DataType type = data.type();
  const Program &program = data.program();
  const uint64_t poison = TestData::poisonBits(type);
  auto wrong = [&](const char *buffer, int64_t index, std::string expected,
                   std::string got) {
    ++result.wrong;
    if (result.examples.size() < maxExamples)
      result.examples.push_back(
          {rank, buffer, index, std::move(expected), std::move(got)});
  };
  auto describeGot = [&](uint64_t bits, bool isOutput) {
    std::string text = formatValue(type, bits);
    if (isOutput && bits == poison)
      text +=
          ", the poison: never written, or copied from an unwritten element";
    return text;
  };

  // Buffers of the wrong size: every element one of them lacks is wrong.
  int64_t wantOutput =
      referenceOutputElements(program, rank, count, data.sendCounts());
  if (outputElements != wantOutput) {
    result.checked += std::abs(outputElements - wantOutput);
    for (int64_t i = std::min(outputElements, wantOutput);
         i < std::max(outputElements, wantOutput); ++i)
      wrong("output", i,
            "an output of " + std::to_string(wantOutput) + " elements",
            "a buffer of " + std::to_string(outputElements));
  }
  int64_t wantInput =
      referenceInputElements(program, rank, count, data.sendCounts());
  if (inputElements != wantInput) {
    result.checked += std::abs(inputElements - wantInput);
    for (int64_t i = std::min(inputElements, wantInput);
         i < std::max(inputElements, wantInput); ++i)
      wrong("input", i,
            "an input of " + std::to_string(wantInput) + " elements",
            "a buffer of " + std::to_string(inputElements));
  }

  typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    using S = typename E::Storage;
    const auto *out = static_cast<const unsigned char *>(output);
    const auto *in = static_cast<const unsigned char *>(input);
    auto load = [](const unsigned char *base, int64_t i) {
      S bits;
      std::memcpy(&bits, base + size_t(i) * sizeof(S), sizeof(S));
      return bits;
    };
    S wantBits[kBlock];
    // Elements [at, at + count) of `buffer` must hold input elements
    // [index, index + count) of `source` bit for bit: a block compare, then
    // element by element where a block differs.
    auto compareBits = [&](const unsigned char *buffer, bool isOutput,
                           int64_t at, int32_t source, int64_t index,
                           int64_t count) {
      for (int64_t done = 0; done < count; done += kBlock) {
        const int64_t b = std::min(kBlock, count - done);
        result.checked += b;
        data.fillBits(source, index + done, b, wantBits);
        const unsigned char *got = buffer + size_t(at + done) * sizeof(S);
        if (std::memcmp(got, wantBits, size_t(b) * sizeof(S)) == 0)
          continue;
        for (int64_t i = 0; i < b; ++i) {
          S bits = load(got, i);
          if (bits == wantBits[i])
            continue;
          if (isOutput)
            wrong("output", at + done + i,
                  formatValue(type, wantBits[i]) + " (input[" +
                      std::to_string(index + done + i) + "] of rank " +
                      std::to_string(source) + ")",
                  describeGot(bits, true));
          else
            wrong("input", at + done + i,
                  formatValue(type, wantBits[i]) + " (the run modified it)",
                  describeGot(bits, false));
        }
      }
    };

    const bool floatAverage = data.op() == ReduceOp::Avg && E::kFloat;
    double want[kBlock];
    for (const OutputSegment &segment :
         outputSegments(program, rank, count, data.sendCounts())) {
      // Elements past the end of a short output were counted above.
      const int64_t length = std::max<int64_t>(
          0, std::min(segment.length, outputElements - segment.outputBegin));
      if (segment.sourceRank >= 0) {
        compareBits(out, true, segment.outputBegin, segment.sourceRank,
                    segment.inputBegin, length);
        continue;
      }
      for (int64_t done = 0; done < length; done += kBlock) {
        const int64_t b = std::min(kBlock, length - done);
        result.checked += b;
        const int64_t index = segment.inputBegin + done;
        expectedReductions(data, index, b, want);
        for (int64_t i = 0; i < b; ++i) {
          const int64_t at = segment.outputBegin + done + i;
          S bits = load(out, at);
          double value = E::decode(bits);
          bool ok = floatAverage ? std::fabs(value - want[i]) <= E::ulp(want[i])
                                 : value == want[i];
          if (ok)
            continue;
          wrong("output", at,
                formatValue(type, uint64_t(E::encode(want[i]))) + " (" +
                    reduceOpName(data.op()) + " of input[" +
                    std::to_string(index + i) + "])",
                describeGot(bits, true));
        }
      }
    }

    compareBits(in, false, 0, rank, 0, std::min(inputElements, wantInput));
  });
  return result;
}

} // namespace check
} // namespace collrt
