//===- CompiledPlanTest.cpp - plans written by collc, run -----------------===//
//
// The golden plans of test/runtime/Inputs/plans (collc --emit=plan output:
// ring all-reduce, direct all-to-all(v), binomial broadcast, hierarchical
// all-gather with cross-channel dependencies) read with loadPlanFile and
// run on in-process ranks for their own count, counts that do not divide
// into their chunks, and slots small enough to cut many tiles; the
// all-reduce also re-typed to every element type and reduction (the
// schedule does not depend on them).
//
//===----------------------------------------------------------------------===//
#include "Harness.h"

#include <gtest/gtest.h>

namespace collrt {
namespace {

using namespace testing;

CommOptions smallSlots() {
  CommOptions options;
  options.slotBytes = 256;
  return options;
}

TEST(CompiledPlanTest, EveryGoldenPlan) {
  for (const char *name :
       {"ring-all_reduce-3.plan.json", "direct-all_to_all-4.plan.json",
        "direct-all_to_all_v-4.plan.json", "binomial-broadcast-4.plan.json",
        "hierarchical-all_gather-2x2.plan.json"}) {
    Plan plan = loadTestPlan(name);
    ASSERT_EQ(plan.collectives.size(), 1u) << name;
    int64_t compiled = plan.collectives[0].elementsPerRank;
    for (int64_t count : {compiled, int64_t(1001), int64_t(1), int64_t(0)}) {
      if (count < 0)
        continue;
      EXPECT_EQ(runAndCheck(plan, count), "") << name << " count " << count;
      EXPECT_EQ(runAndCheck(plan, count, smallSlots()), "")
          << name << " count " << count << " slotBytes 256";
    }
  }
}

TEST(CompiledPlanTest, RingAllReduceRetyped) {
  Plan plan = loadTestPlan("ring-all_reduce-3.plan.json");
  for (DataType type : {DataType::F64, DataType::F32, DataType::F16,
                        DataType::BF16, DataType::F8E4M3FN, DataType::F8E5M2,
                        DataType::I64, DataType::I32, DataType::I8})
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                        ReduceOp::Max, ReduceOp::Avg}) {
      plan.collectives[0].dtype = type;
      plan.collectives[0].reduction = op;
      EXPECT_EQ(runAndCheck(plan, 777, smallSlots()), "")
          << dataTypeName(type) << " " << reduceOpName(op);
    }
}

} // namespace
} // namespace collrt
