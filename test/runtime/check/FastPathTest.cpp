//===- FastPathTest.cpp - the typed block loops against the definition ----===//
//
// runtime/check computes its inputs, references and comparisons with typed
// loops over blocks of elements and integer conversions. SlowDefinition.h
// keeps the previous element-by-element code; these tests require both to
// give the same bits, values, counts and messages: the conversions on every
// pattern and rounding boundary, the inputs and the reductions on random
// ranges, and checkRank on random collectives, types, reductions and sizes
// with correct and broken results.
//
//===----------------------------------------------------------------------===//
#include "SlowDefinition.h"

#include "runtime/check/ElementCodec.h"
#include "runtime/check/InputHash.h"
#include "runtime/check/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace collrt;
using namespace collrt::check;
using collc::sched::Collective;
using collc::sched::Program;

namespace {

const Collective kCollectives[] = {
    Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
    Collective::AllToAll,  Collective::AllToAllV, Collective::Broadcast,
    Collective::Reduce,    Collective::Scatter,   Collective::Gather,
    Collective::SendRecv};

const DataType kSmallFloats[] = {DataType::F16, DataType::BF16,
                                 DataType::F8E4M3FN, DataType::F8E5M2};

uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

/// Equal doubles, bit for bit (NaNs: both NaN with the same sign).
::testing::AssertionResult sameDouble(double fast, double slow) {
  if (std::isnan(fast) && std::isnan(slow) &&
      std::signbit(fast) == std::signbit(slow))
    return ::testing::AssertionSuccess();
  if (bitsOf(fast) == bitsOf(slow))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "fast " << fast << " (0x" << std::hex << bitsOf(fast) << "), slow "
         << slow << " (0x" << bitsOf(slow) << ")";
}

uint64_t fastEncode(DataType type, double v) {
  uint64_t slot = 0;
  storeElement(type, &slot, 0, v);
  return slot;
}
uint64_t slowEncode(DataType type, double v) {
  uint64_t slot = 0;
  slow::storeElement(type, &slot, 0, v);
  return slot;
}

/// Every value the type holds, the midpoints between neighbours (ties),
/// their neighbouring doubles, and values around the range's ends.
std::vector<double> boundaryValues(DataType type) {
  int bits = int(8 * dataTypeSize(type));
  std::vector<double> values;
  for (uint64_t b = 0; b < (uint64_t(1) << bits); ++b) {
    uint64_t slot = b;
    double v = slow::loadElement(type, &slot, 0);
    if (std::isnan(v))
      continue;
    values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  size_t held = values.size();
  for (size_t i = 0; i + 1 < held; ++i) {
    if (std::isinf(values[i]) || std::isinf(values[i + 1]))
      continue;
    double mid = values[i] / 2 + values[i + 1] / 2;
    values.push_back(mid);
    values.push_back(std::nextafter(mid, -INFINITY));
    values.push_back(std::nextafter(mid, INFINITY));
  }
  for (size_t i = 0; i < held; ++i) {
    values.push_back(std::nextafter(values[i], -INFINITY));
    values.push_back(std::nextafter(values[i], INFINITY));
    values.push_back(values[i] * 1.5);
    values.push_back(values[i] * 0.75);
  }
  for (double v : std::initializer_list<double>{0.0,
                                                -0.0,
                                                INFINITY,
                                                -INFINITY,
                                                1e300,
                                                -1e300,
                                                1e-300,
                                                -1e-300,
                                                4.9e-324,
                                                -4.9e-324,
                                                2.2250738585072014e-308,
                                                65520.0,
                                                65519.99,
                                                61440.0,
                                                57344.0,
                                                448.0,
                                                464.0,
                                                480.0,
                                                3.4e38,
                                                3.3961776e38,
                                                3.3961775e38})
    values.push_back(v);
  return values;
}

/// Doubles of every magnitude: random bit patterns and log-uniform values.
std::vector<double> randomDoubles(std::mt19937_64 &rng, size_t count) {
  std::vector<double> values;
  std::uniform_real_distribution<double> exponent(-160, 140);
  for (size_t i = 0; i < count; ++i) {
    uint64_t b = rng();
    double v;
    std::memcpy(&v, &b, 8);
    values.push_back(v);
    double w =
        std::ldexp(1.0 + double(rng() >> 11) * 0x1p-53, int(exponent(rng)));
    values.push_back((rng() & 1) ? -w : w);
  }
  return values;
}

} // namespace

TEST(FastPath, EncodeMatchesTheDefinition) {
  std::mt19937_64 rng(1);
  for (DataType type : kSmallFloats) {
    std::vector<double> values = boundaryValues(type);
    for (double v : randomDoubles(rng, 20000))
      values.push_back(v);
    for (double v : values) {
      ASSERT_EQ(fastEncode(type, v), slowEncode(type, v))
          << dataTypeName(type) << " " << v << " (0x" << std::hex << bitsOf(v)
          << ")";
      ASSERT_TRUE(sameDouble(roundToType(type, v), slow::roundToType(type, v)))
          << dataTypeName(type) << " " << v;
    }
  }
  for (DataType type : {DataType::F32, DataType::F64})
    for (double v : randomDoubles(rng, 20000))
      ASSERT_EQ(fastEncode(type, v), slowEncode(type, v)) << v;
  for (DataType type : {DataType::I8, DataType::I32, DataType::I64})
    for (int64_t v = -130; v <= 130; ++v)
      ASSERT_EQ(fastEncode(type, double(v)), slowEncode(type, double(v)));
}

TEST(FastPath, DecodeAndUlpMatchTheDefinition) {
  std::mt19937_64 rng(2);
  for (int t = 0; t < kNumDataTypes; ++t) {
    DataType type = static_cast<DataType>(t);
    int bits = int(8 * dataTypeSize(type));
    std::vector<uint64_t> patterns;
    if (bits <= 16)
      for (uint64_t b = 0; b < (uint64_t(1) << bits); ++b)
        patterns.push_back(b);
    for (int i = 0; i < 50000; ++i)
      patterns.push_back(rng() &
                         (bits == 64 ? ~0ULL : (uint64_t(1) << bits) - 1));
    for (uint64_t b : patterns) {
      uint64_t slot = b;
      double fast = loadElement(type, &slot, 0),
             slowValue = slow::loadElement(type, &slot, 0);
      ASSERT_TRUE(sameDouble(fast, slowValue))
          << dataTypeName(type) << " 0x" << std::hex << b;
      ASSERT_EQ(isNaNBits(type, b), slow::isNaNBits(type, b));
      ASSERT_TRUE(sameDouble(ulpAt(type, fast), slow::ulpAt(type, fast)))
          << dataTypeName(type) << " " << fast;
    }
    for (double v : randomDoubles(rng, 20000))
      ASSERT_TRUE(sameDouble(ulpAt(type, v), slow::ulpAt(type, v)))
          << dataTypeName(type) << " " << v;
  }
}

namespace {

/// A program of `collective` on `n` ranks with k chunks per part, a root,
/// random all_to_all_v send counts (some zero) and a send/recv pattern.
Program makeProgram(std::mt19937_64 &rng, Collective collective, int32_t n) {
  Program p;
  p.collective = collective;
  p.numRanks = n;
  p.chunksPerPart = 1 + uint32_t(rng() % 3);
  p.root = int32_t(rng() % uint64_t(n));
  bool inputParts = collective == Collective::ReduceScatter ||
                    collective == Collective::AllToAll ||
                    collective == Collective::AllToAllV ||
                    collective == Collective::Scatter;
  bool outputParts = collective == Collective::AllGather ||
                     collective == Collective::AllToAll ||
                     collective == Collective::AllToAllV ||
                     collective == Collective::Gather;
  p.buffers.inputChunks = p.chunksPerPart * (inputParts ? uint32_t(n) : 1);
  p.buffers.outputChunks = p.chunksPerPart * (outputParts ? uint32_t(n) : 1);
  if (collective == Collective::AllToAllV)
    for (int32_t i = 0; i < n * n; ++i)
      p.sendCounts.push_back(rng() % 4 == 0 ? 0 : int64_t(rng() % 700));
  if (collective == Collective::SendRecv) {
    p.sendTo.assign(size_t(n), -1);
    // A shift by one; the last rank sends nothing half of the time.
    for (int32_t s = 0; s < n; ++s)
      p.sendTo[size_t(s)] = (s + 1) % n;
    if (rng() & 1)
      p.sendTo[size_t(n - 1)] = -1;
  }
  return p;
}

/// Random ranges: short ones, ones across block boundaries, far offsets.
void randomRange(std::mt19937_64 &rng, int64_t *begin, int64_t *count) {
  switch (rng() % 3) {
  case 0:
    *begin = int64_t(rng() % 50);
    *count = int64_t(rng() % 8);
    break;
  case 1:
    *begin = int64_t(rng() % 5000);
    *count = int64_t(rng() % 1500);
    break;
  default:
    *begin = int64_t(rng() >> 24); // up to 2^40
    *count = int64_t(rng() % 700);
    break;
  }
}

int32_t randomGroupSize(std::mt19937_64 &rng) {
  const int32_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 64};
  return sizes[rng() % (sizeof sizes / sizeof sizes[0])];
}

} // namespace

// The vectorized hashes (AVX-512 where this processor has it) against the
// scalar loop, on runs of every length modulo the vector width.
TEST(FastPath, VectorHashesMatchTheScalarOnes) {
  std::mt19937_64 rng(6);
  std::vector<uint64_t> fast(600), scalar(600);
  for (int trial = 0; trial < 2000; ++trial) {
    uint64_t key = rng();
    int64_t index = int64_t(rng() >> 20);
    int64_t count = int64_t(rng() % 600);
    hashElements(key, index, count, fast.data());
    hashElementsScalar(key, index, count, scalar.data());
    for (int64_t j = 0; j < count; ++j)
      ASSERT_EQ(fast[size_t(j)], scalar[size_t(j)]) << "count " << count;
    // And the definition, element by element.
    if (count > 0) {
      ASSERT_EQ(scalar[size_t(count - 1)],
                mix(mix(key + uint64_t(count - 1) * kIndexStep) +
                    uint64_t(index + count - 1)));
    }
  }
}

TEST(FastPath, InputsMatchTheDefinition) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 3000; ++trial) {
    Collective c = kCollectives[rng() % 10];
    DataType type = static_cast<DataType>(rng() % kNumDataTypes);
    ReduceOp op = static_cast<ReduceOp>(rng() % kNumReduceOps);
    int32_t n = randomGroupSize(rng);
    uint64_t iteration = rng() % 4 == 0 ? rng() : rng() % 30;
    Program p = makeProgram(rng, c, n);
    TestData fast(p, type, op, iteration);
    slow::SlowTestData reference(p, type, op, iteration);
    ASSERT_EQ(fast.domain(), reference.domain());
    int32_t rank = int32_t(rng() % uint64_t(n));
    int64_t begin = 0, count = 0;
    randomRange(rng, &begin, &count);
    std::string what =
        std::string(dataTypeName(type)) + " " + reduceOpName(op) + " " +
        collc::sched::collectiveName(c) + " n=" + std::to_string(n) + " rank " +
        std::to_string(rank) + " begin " + std::to_string(begin) + " count " +
        std::to_string(count);
    size_t size = dataTypeSize(type);
    std::vector<uint8_t> bits(size_t(count) * size + 1);
    std::vector<double> values(size_t(count) + 1);
    fast.fillBits(rank, begin, count, bits.data());
    fast.fillValues(rank, begin, count, values.data());
    for (int64_t i = 0; i < count; ++i) {
      uint64_t want = reference.bits(rank, begin + i);
      ASSERT_EQ(loadBits(type, bits.data(), i), want) << what << " i " << i;
      ASSERT_EQ(fast.bits(rank, begin + i), want) << what;
      ASSERT_TRUE(
          sameDouble(values[size_t(i)], reference.value(rank, begin + i)))
          << what << " i " << i;
      ASSERT_TRUE(sameDouble(fast.value(rank, begin + i),
                             reference.value(rank, begin + i)))
          << what;
    }
    if (begin == 0) {
      std::vector<uint8_t> a(size_t(count) * size + 1),
          b(size_t(count) * size + 1);
      fast.fillInput(rank, a.data(), count);
      reference.fillInput(rank, b.data(), count);
      ASSERT_EQ(a, b) << what;
    }
  }
}

TEST(FastPath, ReductionsMatchTheDefinition) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 1500; ++trial) {
    DataType type = static_cast<DataType>(rng() % kNumDataTypes);
    ReduceOp op = static_cast<ReduceOp>(rng() % kNumReduceOps);
    int32_t n = randomGroupSize(rng);
    Program p = makeProgram(rng, Collective::AllReduce, n);
    uint64_t iteration = rng() % 10;
    TestData fast(p, type, op, iteration);
    slow::SlowTestData reference(p, type, op, iteration);
    int64_t begin = 0, count = 0;
    randomRange(rng, &begin, &count);
    std::vector<double> want(size_t(count) + 1);
    expectedReductions(fast, begin, count, want.data());
    for (int64_t i = 0; i < count; ++i) {
      double slowValue = slow::expectedReduction(reference, begin + i);
      ASSERT_TRUE(sameDouble(want[size_t(i)], slowValue))
          << dataTypeName(type) << " " << reduceOpName(op) << " n=" << n
          << " index " << begin + i;
      ASSERT_TRUE(sameDouble(expectedReduction(fast, begin + i), slowValue));
    }
  }
}

namespace {

/// Rank `rank`'s buffers as a correct run leaves them, then broken at
/// random: elements overwritten with random bits, the poison, or a
/// neighbouring pattern (one unit in the last place for floats), inputs
/// modified, and now and then a buffer a few elements short or long.
struct RankBuffers {
  std::vector<uint8_t> input, output;
  int64_t inputElements = 0, outputElements = 0;
};

RankBuffers makeBuffers(std::mt19937_64 &rng, const TestData &data,
                        int32_t rank, int64_t count, bool breakIt) {
  const Program &p = data.program();
  DataType type = data.type();
  size_t size = dataTypeSize(type);
  RankBuffers b;
  b.inputElements = referenceInputElements(p, rank, count);
  b.outputElements = referenceOutputElements(p, rank, count);
  if (breakIt && rng() % 8 == 0)
    b.outputElements =
        std::max<int64_t>(0, b.outputElements + int64_t(rng() % 7) - 3);
  if (breakIt && rng() % 8 == 0)
    b.inputElements =
        std::max<int64_t>(0, b.inputElements + int64_t(rng() % 7) - 3);
  b.input.resize(size_t(b.inputElements) * size + 8);
  b.output.resize(size_t(b.outputElements) * size + 8);
  data.fillInput(
      rank, b.input.data(),
      std::min(b.inputElements, referenceInputElements(p, rank, count)));
  TestData::poison(type, b.output.data(), b.outputElements);
  for (const OutputSegment &s : outputSegments(p, rank, count))
    for (int64_t j = 0; j < s.length; ++j) {
      int64_t at = s.outputBegin + j;
      if (at >= b.outputElements)
        break;
      if (s.sourceRank >= 0)
        storeBits(type, b.output.data(), at,
                  data.bits(s.sourceRank, s.inputBegin + j));
      else
        storeElement(type, b.output.data(), at,
                     expectedReduction(data, s.inputBegin + j));
    }
  if (!breakIt)
    return b;
  uint64_t mask = size >= 8 ? ~0ULL : (uint64_t(1) << (8 * size)) - 1;
  int breaks = int(rng() % 6);
  for (int i = 0; i < breaks && b.outputElements > 0; ++i) {
    int64_t at = int64_t(rng() % uint64_t(b.outputElements));
    uint64_t old = loadBits(type, b.output.data(), at);
    switch (rng() % 4) {
    case 0:
      storeBits(type, b.output.data(), at, rng() & mask);
      break;
    case 1:
      storeBits(type, b.output.data(), at, TestData::poisonBits(type));
      break;
    default:
      storeBits(type, b.output.data(), at,
                (old + ((rng() & 1) ? 1 : mask)) & mask);
      break;
    }
  }
  if (b.inputElements > 0 && rng() % 4 == 0) {
    int64_t at = int64_t(rng() % uint64_t(b.inputElements));
    storeBits(type, b.input.data(), at, rng() & mask);
  }
  return b;
}

} // namespace

TEST(FastPath, CheckRankMatchesTheDefinition) {
  std::mt19937_64 rng(5);
  int64_t wrongSeen = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    Collective c = kCollectives[rng() % 10];
    DataType type = static_cast<DataType>(rng() % kNumDataTypes);
    ReduceOp op = static_cast<ReduceOp>(rng() % kNumReduceOps);
    int32_t n = randomGroupSize(rng);
    if (n > 16 && trial % 4)
      n = 4; // keep most trials small
    Program p = makeProgram(rng, c, n);
    uint64_t iteration = rng() % 10;
    int64_t count =
        int64_t(rng() % 3) == 0 ? int64_t(rng() % 40) : int64_t(rng() % 2500);
    TestData fast(p, type, op, iteration);
    slow::SlowTestData reference(p, type, op, iteration);
    int32_t rank = int32_t(rng() % uint64_t(n));
    RankBuffers b = makeBuffers(rng, fast, rank, count, trial % 3 != 0);
    size_t maxExamples = std::vector<size_t>{0, 1, 5, 100000}[rng() % 4];
    CheckResult got =
        checkRank(fast, rank, count, b.input.data(), b.inputElements,
                  b.output.data(), b.outputElements, maxExamples);
    CheckResult want =
        slow::checkRank(reference, rank, count, b.input.data(), b.inputElements,
                        b.output.data(), b.outputElements, maxExamples);
    std::string what =
        std::string(dataTypeName(type)) + " " + reduceOpName(op) + " " +
        collc::sched::collectiveName(c) + " n=" + std::to_string(n) + " rank " +
        std::to_string(rank) + " count " + std::to_string(count) + " trial " +
        std::to_string(trial);
    ASSERT_EQ(got.checked, want.checked) << what;
    ASSERT_EQ(got.wrong, want.wrong) << what;
    ASSERT_EQ(got.examples.size(), want.examples.size()) << what;
    for (size_t i = 0; i < got.examples.size(); ++i)
      ASSERT_EQ(got.examples[i].describe(), want.examples[i].describe())
          << what;
    wrongSeen += got.wrong;
  }
  // The broken results were caught (the test exercises the error paths).
  EXPECT_GT(wrongSeen, 1000);
}
