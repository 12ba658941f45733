//===- TypesTest.cpp - element type and reduction names -------------------===//
#include "collrt/Types.h"
#include "collrt/Status.h"

#include <gtest/gtest.h>

using namespace collrt;

TEST(Types, EveryDataTypeRoundTripsByName) {
  for (int i = 0; i < kNumDataTypes; ++i) {
    DataType type = static_cast<DataType>(i);
    DataType parsed;
    ASSERT_TRUE(parseDataType(dataTypeName(type), &parsed)) << i;
    EXPECT_EQ(parsed, type);
  }
  DataType parsed;
  EXPECT_FALSE(parseDataType("f128", &parsed));
  EXPECT_FALSE(parseDataType("", &parsed));
}

TEST(Types, SizesFollowTheDialect) {
  EXPECT_EQ(dataTypeSize(DataType::F64), 8u);
  EXPECT_EQ(dataTypeSize(DataType::BF16), 2u);
  EXPECT_EQ(dataTypeSize(DataType::F8E5M2), 1u);
  EXPECT_EQ(dataTypeSize(DataType::I32), 4u);
  EXPECT_TRUE(isFloatingPoint(DataType::F8E4M3FN));
  EXPECT_FALSE(isFloatingPoint(DataType::I8));
}

TEST(Types, EveryReduceOpRoundTripsByName) {
  for (int i = 0; i < kNumReduceOps; ++i) {
    ReduceOp op = static_cast<ReduceOp>(i);
    ReduceOp parsed;
    ASSERT_TRUE(parseReduceOp(reduceOpName(op), &parsed));
    EXPECT_EQ(parsed, op);
  }
  ReduceOp parsed;
  EXPECT_FALSE(parseReduceOp("xor", &parsed));
}

TEST(Status, CarriesCodeAndMessage) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  Status bad(ErrorCode::Timeout, "rank 1 channel 0 waits for rank 0");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.toString(), "timeout: rank 1 channel 0 waits for rank 0");
}
