//===- ReferenceTest.cpp - collc-run --check's reference ------------------===//
//
// The reference works on parts of elements; these tests run the chunk-level
// postcondition table of sched::Program (with sched::ChunkLayout's chunk
// sizes) as a naive "collective" and require the reference to accept its
// result, then break the result in the ways a schedule can (a wrong
// element, an unwritten one, swapped parts, last iteration's data, a
// modified input) and require the reference to catch each.
//
//===----------------------------------------------------------------------===//
#include "runtime/check/Reference.h"
#include "runtime/check/ElementCodec.h"
#include "runtime/check/SendCounts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace collrt;
using namespace collrt::check;
using collc::sched::Buffer;
using collc::sched::ChunkLayout;
using collc::sched::Collective;
using collc::sched::Program;

namespace {

const Collective kCollectives[] = {
    Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
    Collective::AllToAll,  Collective::AllToAllV, Collective::Broadcast,
    Collective::Reduce,    Collective::Scatter,   Collective::Gather,
    Collective::SendRecv};

bool inputHasParts(Collective c) {
  return c == Collective::ReduceScatter || c == Collective::AllToAll ||
         c == Collective::AllToAllV || c == Collective::Scatter;
}
bool outputHasParts(Collective c) {
  return c == Collective::AllGather || c == Collective::AllToAll ||
         c == Collective::AllToAllV || c == Collective::Gather;
}

Program makeProgram(Collective collective, int32_t n, uint32_t k,
                    int32_t root = 0) {
  Program p;
  p.collective = collective;
  p.numRanks = n;
  p.chunksPerPart = k;
  p.root = root;
  p.buffers.inputChunks = inputHasParts(collective) ? n * k : k;
  p.buffers.outputChunks = outputHasParts(collective) ? n * k : k;
  if (collective == Collective::AllToAllV)
    for (int32_t s = 0; s < n; ++s)
      for (int32_t r = 0; r < n; ++r)
        p.sendCounts.push_back((s * 7 + r * 3) % 5); // some zero
  if (collective == Collective::SendRecv) {
    p.sendTo.assign(size_t(n), -1);
    for (int32_t s = 0; s + 1 < n; s += 2)
      p.sendTo[size_t(s)] = s + 1; // pairs; odd ranks receive
    if (n > 2)
      p.sendTo[size_t(n - 1)] = 0;
  }
  return p;
}

/// Every rank's buffers, laid out by ChunkLayout.
struct World {
  std::vector<std::vector<uint8_t>> inputs, outputs;
};

/// The chunk-level postcondition table, run naively.
World runNaive(const Program &p, const TestData &data, int64_t count) {
  ChunkLayout layout(p, count);
  DataType type = data.type();
  size_t size = dataTypeSize(type);
  int32_t n = p.numRanks;
  uint32_t k = p.chunksPerPart;
  auto chunkOffset = [&](int32_t rank, Buffer b, uint32_t index) {
    int64_t offset = 0;
    for (uint32_t i = 0; i < index; ++i)
      offset += layout.elements(rank, b, i);
    return offset;
  };
  World w;
  for (int32_t r = 0; r < n; ++r) {
    int64_t in = chunkOffset(r, Buffer::Input, p.buffers.inputChunks);
    int64_t out = chunkOffset(r, Buffer::Output, p.buffers.outputChunks);
    w.inputs.emplace_back(size_t(in) * size);
    w.outputs.emplace_back(size_t(out) * size);
    data.fillInput(r, w.inputs.back().data(), in);
    TestData::poison(type, w.outputs.back().data(), out);
  }
  // out[r][oc] = in[s][ic] or the reduction over s of in[s][ic].
  auto move = [&](int32_t r, uint32_t oc, int32_t s, uint32_t ic) {
    int64_t len = layout.elements(r, Buffer::Output, oc);
    ASSERT_EQ(len, layout.elements(s, Buffer::Input, ic));
    int64_t o = chunkOffset(r, Buffer::Output, oc);
    int64_t i = chunkOffset(s, Buffer::Input, ic);
    std::copy_n(w.inputs[size_t(s)].data() + i * size, len * size,
                w.outputs[size_t(r)].data() + o * size);
  };
  auto reduce = [&](int32_t r, uint32_t oc, uint32_t ic) {
    int64_t len = layout.elements(r, Buffer::Output, oc);
    int64_t o = chunkOffset(r, Buffer::Output, oc);
    int64_t i = chunkOffset(0, Buffer::Input, ic);
    for (int64_t e = 0; e < len; ++e) {
      double acc = loadElement(type, w.inputs[0].data(), i + e);
      for (int32_t s = 1; s < n; ++s) {
        double v = loadElement(type, w.inputs[size_t(s)].data(), i + e);
        switch (data.op()) {
        case ReduceOp::Sum:
        case ReduceOp::Avg:
          acc += v;
          break;
        case ReduceOp::Prod:
          acc *= v;
          break;
        case ReduceOp::Min:
          acc = std::min(acc, v);
          break;
        case ReduceOp::Max:
          acc = std::max(acc, v);
          break;
        }
      }
      if (data.op() == ReduceOp::Avg)
        acc = isFloatingPoint(type) ? acc / n : double(int64_t(acc) / n);
      storeElement(type, w.outputs[size_t(r)].data(), o + e, acc);
    }
  };
  for (int32_t r = 0; r < n; ++r)
    for (uint32_t c = 0; c < k; ++c) {
      switch (p.collective) {
      case Collective::AllReduce:
        reduce(r, c, c);
        break;
      case Collective::Reduce:
        if (r == p.root)
          reduce(r, c, c);
        break;
      case Collective::ReduceScatter:
        reduce(r, c, r * k + c);
        break;
      case Collective::AllGather:
        for (int32_t s = 0; s < n; ++s)
          move(r, s * k + c, s, c);
        break;
      case Collective::Gather:
        if (r == p.root)
          for (int32_t s = 0; s < n; ++s)
            move(r, s * k + c, s, c);
        break;
      case Collective::AllToAll:
      case Collective::AllToAllV:
        for (int32_t s = 0; s < n; ++s)
          move(r, s * k + c, s, r * k + c);
        break;
      case Collective::Broadcast:
        move(r, c, p.root, c);
        break;
      case Collective::Scatter:
        move(r, c, p.root, r * k + c);
        break;
      case Collective::SendRecv:
        for (int32_t s = 0; s < n; ++s)
          if (p.sendTarget(s) == r)
            move(r, c, s, c);
        break;
      }
    }
  return w;
}

CheckResult checkOne(const TestData &data, const World &w, int32_t r,
                     int64_t count) {
  size_t size = dataTypeSize(data.type());
  return checkRank(data, r, count, w.inputs[size_t(r)].data(),
                   int64_t(w.inputs[size_t(r)].size() / size),
                   w.outputs[size_t(r)].data(),
                   int64_t(w.outputs[size_t(r)].size() / size));
}

int64_t totalWrong(const TestData &data, const World &w, int64_t count) {
  int64_t wrong = 0;
  for (int32_t r = 0; r < data.groupSize(); ++r)
    wrong += checkOne(data, w, r, count).wrong;
  return wrong;
}

} // namespace

TEST(Reference, SizesAgreeWithChunkLayout) {
  for (Collective c : kCollectives)
    for (int32_t n : {1, 2, 3, 5, 8})
      for (uint32_t k : {1u, 2u, 3u})
        for (int64_t count : {0, 1, 5, 13, 64}) {
          Program p = makeProgram(c, n, k);
          ChunkLayout layout(p, count);
          for (int32_t r = 0; r < n; ++r) {
            int64_t in = 0, out = 0;
            for (uint32_t i = 0; i < p.buffers.inputChunks; ++i)
              in += layout.elements(r, Buffer::Input, i);
            for (uint32_t i = 0; i < p.buffers.outputChunks; ++i)
              out += layout.elements(r, Buffer::Output, i);
            EXPECT_EQ(referenceInputElements(p, r, count), in)
                << collc::sched::collectiveName(c) << " n=" << n << " k=" << k
                << " count=" << count << " rank " << r;
            EXPECT_EQ(referenceOutputElements(p, r, count), out)
                << collc::sched::collectiveName(c) << " n=" << n << " k=" << k
                << " count=" << count << " rank " << r;
          }
        }
}

TEST(Reference, AcceptsTheChunkLevelPostcondition) {
  for (Collective c : kCollectives)
    for (DataType type : {DataType::F32, DataType::BF16, DataType::F8E5M2,
                          DataType::I64, DataType::I8})
      for (int32_t n : {1, 2, 3, 5})
        for (uint32_t k : {1u, 3u})
          for (int64_t count : {0, 1, 7, 40}) {
            Program p = makeProgram(c, n, k, n - 1);
            TestData data(p, type, ReduceOp::Sum, 3);
            World w = runNaive(p, data, count);
            EXPECT_EQ(totalWrong(data, w, count), 0)
                << collc::sched::collectiveName(c) << " " << dataTypeName(type)
                << " n=" << n << " k=" << k << " count=" << count;
          }
}

TEST(Reference, AcceptsEveryReductionOnEveryType) {
  for (int t = 0; t < kNumDataTypes; ++t)
    for (int o = 0; o < kNumReduceOps; ++o)
      for (Collective c : {Collective::AllReduce, Collective::ReduceScatter,
                           Collective::Reduce})
        for (int32_t n : {2, 3, 8}) {
          DataType type = static_cast<DataType>(t);
          ReduceOp op = static_cast<ReduceOp>(o);
          Program p = makeProgram(c, n, 2, 1);
          TestData data(p, type, op, 0);
          World w = runNaive(p, data, 50);
          EXPECT_EQ(totalWrong(data, w, 50), 0)
              << collc::sched::collectiveName(c) << " " << dataTypeName(type)
              << " " << reduceOpName(op) << " n=" << n;
        }
}

TEST(Reference, CatchesAWrongElement) {
  Program p = makeProgram(Collective::AllReduce, 4, 1);
  TestData data(p, DataType::F32, ReduceOp::Sum, 0);
  World w = runNaive(p, data, 10);
  double v = loadElement(DataType::F32, w.outputs[2].data(), 7);
  storeElement(DataType::F32, w.outputs[2].data(), 7, v + 1);
  CheckResult result = checkOne(data, w, 2, 10);
  EXPECT_EQ(result.wrong, 1);
  ASSERT_EQ(result.examples.size(), 1u);
  EXPECT_EQ(result.examples[0].rank, 2);
  EXPECT_EQ(result.examples[0].buffer, "output");
  EXPECT_EQ(result.examples[0].index, 7);
  EXPECT_NE(result.examples[0].describe().find("rank 2 output[7]: expected "),
            std::string::npos)
      << result.examples[0].describe();
  EXPECT_EQ(checkOne(data, w, 1, 10).wrong, 0);
}

TEST(Reference, CatchesUnwrittenElements) {
  for (DataType type : {DataType::F16, DataType::I32, DataType::I8}) {
    Program p = makeProgram(Collective::AllGather, 3, 2);
    TestData data(p, type, ReduceOp::Sum, 0);
    World w = runNaive(p, data, 9);
    TestData::poison(type, w.outputs[1].data() + 4 * dataTypeSize(type), 3);
    CheckResult result = checkOne(data, w, 1, 9);
    EXPECT_EQ(result.wrong, 3) << dataTypeName(type);
    ASSERT_FALSE(result.examples.empty());
    EXPECT_NE(result.examples[0].got.find("never written"), std::string::npos)
        << result.examples[0].describe();
  }
}

TEST(Reference, CatchesSwappedParts) {
  Program p = makeProgram(Collective::AllToAll, 4, 1);
  TestData data(p, DataType::BF16, ReduceOp::Sum, 0);
  World w = runNaive(p, data, 16);
  // Rank 3's output parts 0 and 1 (4 elements each) exchanged.
  auto &out = w.outputs[3];
  std::swap_ranges(out.begin(), out.begin() + 8, out.begin() + 8);
  EXPECT_GE(checkOne(data, w, 3, 16).wrong, 6); // a few may coincide
}

TEST(Reference, CatchesLastIterationsData) {
  Program p = makeProgram(Collective::ReduceScatter, 3, 1);
  TestData first(p, DataType::F8E4M3FN, ReduceOp::Sum, 0);
  TestData second(p, DataType::F8E4M3FN, ReduceOp::Sum, 1);
  World w = runNaive(p, first, 30);
  // Fresh inputs, stale outputs.
  for (int32_t r = 0; r < 3; ++r)
    second.fillInput(r, w.inputs[size_t(r)].data(), 30);
  EXPECT_GT(totalWrong(second, w, 30), 0);
}

TEST(Reference, CatchesAModifiedInput) {
  Program p = makeProgram(Collective::Broadcast, 3, 1, 1);
  TestData data(p, DataType::I64, ReduceOp::Sum, 0);
  World w = runNaive(p, data, 5);
  w.inputs[0][0] ^= 1;
  CheckResult result = checkOne(data, w, 0, 5);
  EXPECT_EQ(result.wrong, 1);
  ASSERT_EQ(result.examples.size(), 1u);
  EXPECT_EQ(result.examples[0].buffer, "input");
}

TEST(Reference, CatchesAWrongSizedBuffer) {
  Program p = makeProgram(Collective::Scatter, 3, 1);
  TestData data(p, DataType::F64, ReduceOp::Sum, 0);
  World w = runNaive(p, data, 10);
  // Rank 0's part is 4 elements; pretend the run was given 3.
  CheckResult result =
      checkRank(data, 0, 10, w.inputs[0].data(), 10, w.outputs[0].data(), 3);
  EXPECT_EQ(result.wrong, 1);
}

TEST(Reference, CatchesAnAverageOffByMoreThanAnUlp) {
  Program p = makeProgram(Collective::AllReduce, 3, 1);
  TestData data(p, DataType::F32, ReduceOp::Avg, 0);
  World w = runNaive(p, data, 20);
  EXPECT_EQ(checkOne(data, w, 0, 20).wrong, 0);
  for (int64_t i = 0; i < 20; ++i) {
    double v = loadElement(DataType::F32, w.outputs[0].data(), i);
    // Within one ulp passes; two ulps fail.
    double ulp = ulpAt(DataType::F32, v);
    storeElement(DataType::F32, w.outputs[0].data(), i,
                 i % 2 ? v + ulp : v + 4 * ulp);
  }
  EXPECT_EQ(checkOne(data, w, 0, 20).wrong, 10);
}

TEST(Reference, FreeOutputsAreNotChecked) {
  Program p = makeProgram(Collective::Gather, 3, 1, 2);
  TestData data(p, DataType::F32, ReduceOp::Sum, 0);
  World w = runNaive(p, data, 4);
  // Non-roots' outputs stay poisoned and are free.
  EXPECT_EQ(outputSegments(p, 0, 4).size(), 0u);
  EXPECT_EQ(checkOne(data, w, 0, 4).wrong, 0);
  EXPECT_EQ(checkOne(data, w, 2, 4).wrong, 0);
}

// Counts given at run time (a plan with "send_counts": null): the sizes,
// the segments and the check follow the counts given exactly as they follow
// a program that holds the same counts, and ChunkLayout agrees.
TEST(Reference, CountsGivenAtRunTimeAreThePrograms) {
  for (int32_t n : {1, 3, 4, 8})
    for (uint32_t k : {1u, 2u}) {
      Program fixed = makeProgram(Collective::AllToAllV, n, k);
      Program runtime = fixed;
      runtime.sendCounts.clear();
      const int64_t *counts = fixed.sendCounts.data();
      ChunkLayout a(fixed, 0), b(runtime, 0, counts);
      TestData withCounts(runtime, DataType::F32, ReduceOp::Sum, 3, counts);
      EXPECT_EQ(withCounts.sendCounts(), counts);
      for (int32_t r = 0; r < n; ++r) {
        EXPECT_EQ(referenceInputElements(runtime, r, 0, counts),
                  referenceInputElements(fixed, r, 0));
        EXPECT_EQ(referenceOutputElements(runtime, r, 0, counts),
                  referenceOutputElements(fixed, r, 0));
        std::vector<OutputSegment> x = outputSegments(fixed, r, 0),
                                   y = outputSegments(runtime, r, 0, counts);
        ASSERT_EQ(x.size(), y.size());
        for (size_t i = 0; i < x.size(); ++i) {
          EXPECT_EQ(x[i].outputBegin, y[i].outputBegin);
          EXPECT_EQ(x[i].length, y[i].length);
          EXPECT_EQ(x[i].sourceRank, y[i].sourceRank);
          EXPECT_EQ(x[i].inputBegin, y[i].inputBegin);
        }
        for (uint32_t i = 0; i < fixed.buffers.outputChunks; ++i) {
          EXPECT_EQ(a.elements(r, Buffer::Input, i),
                    b.elements(r, Buffer::Input, i));
          EXPECT_EQ(a.elements(r, Buffer::Output, i),
                    b.elements(r, Buffer::Output, i));
        }
      }
      EXPECT_EQ(a.elements(0, Buffer::Scratch, 0),
                b.elements(0, Buffer::Scratch, 0));
      // Without counts, a run-time program has no sizes.
      EXPECT_EQ(referenceOutputElements(runtime, 0, 0), 0);
    }
  // The check uses the counts given: a run computed with them passes, and
  // the same buffers checked against other counts do not.
  Program fixed = makeProgram(Collective::AllToAllV, 4, 1);
  Program runtime = fixed;
  runtime.sendCounts.clear();
  TestData data(runtime, DataType::F32, ReduceOp::Sum, 0,
                fixed.sendCounts.data());
  World w = runNaive(fixed, data, 0);
  for (int32_t r = 0; r < 4; ++r)
    EXPECT_EQ(checkOne(data, w, r, 0).wrong, 0) << "rank " << r;
  std::vector<int64_t> other = fixed.sendCounts;
  std::swap(other[1], other[2]);
  TestData otherData(runtime, DataType::F32, ReduceOp::Sum, 0, other.data());
  int64_t wrong = 0;
  for (int32_t r = 0; r < 4; ++r)
    wrong += checkOne(otherData, w, r, 0).wrong;
  EXPECT_GT(wrong, 0);
}

TEST(SendCounts, RandomRowsSumToTheRankAndTheSeedDecides) {
  for (int32_t n : {1, 2, 5, 64})
    for (int64_t rows : {0, 1, 7, 2048}) {
      std::vector<int64_t> m = randomSendCounts(n, rows, 3, 9);
      ASSERT_EQ(m.size(), size_t(n) * size_t(n));
      for (int32_t s = 0; s < n; ++s) {
        int64_t sum = 0;
        for (int32_t r = 0; r < n; ++r) {
          int64_t c = m[size_t(s) * size_t(n) + size_t(r)];
          EXPECT_GE(c, 0);
          EXPECT_EQ(c % 3, 0);
          sum += c;
        }
        EXPECT_EQ(sum, rows * 3);
      }
      EXPECT_EQ(m, randomSendCounts(n, rows, 3, 9));
      std::vector<int64_t> t = transposeCounts(m, n);
      for (int32_t s = 0; s < n; ++s)
        for (int32_t r = 0; r < n; ++r)
          EXPECT_EQ(t[size_t(r) * size_t(n) + size_t(s)],
                    m[size_t(s) * size_t(n) + size_t(r)]);
    }
  EXPECT_NE(randomSendCounts(8, 100, 1, 1), randomSendCounts(8, 100, 1, 2));
  int64_t least = 0, most = 0;
  countRange({6, 0, 30, 9}, 3, &least, &most);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(most, 10);
}
