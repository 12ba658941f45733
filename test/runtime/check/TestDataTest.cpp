//===- TestDataTest.cpp - position-dependent, exact test inputs -----------===//
#include "runtime/check/ElementCodec.h"
#include "runtime/check/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace collrt;
using namespace collrt::check;
using collc::sched::Collective;
using collc::sched::Program;

namespace {
Program program(Collective c, int32_t n) {
  Program p;
  p.collective = c;
  p.numRanks = n;
  p.chunksPerPart = 1;
  return p;
}
} // namespace

TEST(TestData, PositionDependentNeverPoison) {
  for (int t = 0; t < kNumDataTypes; ++t)
    for (int o = 0; o < kNumReduceOps; ++o)
      for (Collective c : {Collective::AllGather, Collective::AllReduce})
        for (int32_t n : {2, 8}) {
          DataType type = static_cast<DataType>(t);
          ReduceOp op = static_cast<ReduceOp>(o);
          Program p = program(c, n);
          TestData data(p, type, op, 0), next(p, type, op, 1);
          std::string what =
              std::string(dataTypeName(type)) + " " + reduceOpName(op) + " " +
              collc::sched::collectiveName(c) + " n=" + std::to_string(n);
          int64_t sameAsRank0 = 0, sameAsNext = 0;
          for (int32_t r = 0; r < n; ++r) {
            std::set<uint64_t> distinct;
            for (int64_t i = 0; i < 256; ++i) {
              uint64_t bits = data.bits(r, i);
              EXPECT_NE(bits, TestData::poisonBits(type)) << what;
              EXPECT_FALSE(isNaNBits(type, bits)) << what;
              distinct.insert(bits);
              if (r > 0 && bits == data.bits(0, i))
                ++sameAsRank0;
              if (bits == next.bits(r, i))
                ++sameAsNext;
            }
            // Never constant per rank.
            EXPECT_GE(distinct.size(), 2u) << what << " rank " << r;
          }
          // Ranks and iterations differ in most elements (prod has only
          // signs to vary, +-1: about half).
          int64_t total = 256 * int64_t(n);
          EXPECT_LT(sameAsRank0, 256 * (n - 1) * 3 / 4) << what;
          EXPECT_LT(sameAsNext, total * 3 / 4) << what;
        }
}

TEST(TestData, SumsStayExactInAnyOrder) {
  for (int t = 0; t < kNumDataTypes; ++t)
    for (int32_t n : {2, 3, 8, 64}) {
      DataType type = static_cast<DataType>(t);
      Program p = program(Collective::AllReduce, n);
      TestData data(p, type, ReduceOp::Sum, 5);
      double limit = exactIntegerLimit(type);
      for (int64_t i = 0; i < 200; ++i) {
        double absSum = 0;
        for (int32_t r = 0; r < n; ++r) {
          double v = data.value(r, i);
          EXPECT_EQ(v, std::floor(v));
          EXPECT_EQ(roundToType(type, v), v);
          absSum += std::fabs(v);
        }
        // Every partial sum is bounded by the sum of magnitudes.
        EXPECT_LE(absSum, limit) << dataTypeName(type) << " n=" << n;
      }
    }
}

TEST(TestData, ProductsStayExact) {
  for (int t = 0; t < kNumDataTypes; ++t)
    for (int32_t n : {2, 8, 64}) {
      DataType type = static_cast<DataType>(t);
      Program p = program(Collective::Reduce, n);
      TestData data(p, type, ReduceOp::Prod, 0);
      for (int64_t i = 0; i < 100; ++i) {
        double product = 1;
        for (int32_t r = 0; r < n; ++r)
          product *= data.value(r, i);
        EXPECT_EQ(roundToType(type, product), product);
        EXPECT_TRUE(std::fabs(product) == 2 || std::fabs(product) == 0.5)
            << product;
      }
    }
}

TEST(TestData, FillWritesTheValues) {
  Program p = program(Collective::AllReduce, 4);
  TestData data(p, DataType::F16, ReduceOp::Sum, 0);
  uint16_t buffer[10];
  data.fillInput(3, buffer, 10);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(loadElement(DataType::F16, buffer, i), data.value(3, i));
  TestData::poison(DataType::F16, buffer, 10);
  EXPECT_TRUE(std::isnan(loadElement(DataType::F16, buffer, 0)));
}
