//===- PlanTestUtil.h - helpers of the plan tests ---------------*- C++ -*-===//
#ifndef COLLRT_TEST_PLAN_PLANTESTUTIL_H
#define COLLRT_TEST_PLAN_PLANTESTUTIL_H

#include "collrt/Plan.h"

#include <string>
#include <vector>

namespace collrt {
namespace test {

/// The text of a file under test/runtime/Inputs.
std::string readInput(const std::string &relativePath);

/// Every golden plan under test/runtime/Inputs/plans, sorted.
std::vector<std::string> goldenPlans();

/// Checks (with gtest assertions) that two programs are equal field by
/// field; dependencies are compared as each instruction's list.
void expectProgramsEqual(const collc::sched::Program &a,
                         const collc::sched::Program &b);
void expectPlansEqual(const Plan &a, const Plan &b);

} // namespace test
} // namespace collrt

#endif
