//===- RunCompiled.cpp - collc --run on a compiled module -----------------===//
#include "compiler/Run/RunCompiled.h"

#include "dialects/Coll/IR/CollOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace collc {

std::vector<RunCounts>
runCountsOf(const std::vector<CheckedCollective> &checked) {
  std::vector<RunCounts> result;
  // The counts operand of each plan collective so far.
  std::vector<mlir::Value> operands;
  for (const CheckedCollective &c : checked) {
    if (c.lowered.withItsSend())
      continue;
    RunCounts how;
    mlir::Value counts;
    auto v = mlir::dyn_cast<coll::AllToAllVOp>(c.lowered.op);
    if (c.lowered.countsAtRunTime && v && v.getDynamicSendCounts()) {
      counts = v.getDynamicSendCounts();
      mlir::RankedTensorType input = v.getInput().getType();
      int64_t axis = int64_t(v.getSplitAxis());
      int64_t row = 1;
      for (int64_t d = 0; d < input.getRank(); ++d)
        if (d != axis && !input.isDynamicDim(d))
          row *= input.getDimSize(d);
      how.rowElements = row;
      if (auto transpose = counts.getDefiningOp<mlir::linalg::TransposeOp>();
          transpose &&
          transpose.getPermutation() == llvm::ArrayRef<int64_t>{1, 0})
        for (size_t j = 0; j < operands.size(); ++j)
          if (operands[j] && operands[j] == transpose.getInput())
            how.transposeOf = int64_t(j);
    }
    operands.push_back(counts);
    result.push_back(how);
  }
  return result;
}

bool runCompiledPlan(const collrt::Plan &plan,
                     const std::vector<CheckedCollective> &checked,
                     double timeoutSeconds, std::string &out) {
  RunPlanOptions runOptions;
  runOptions.timeoutSeconds = timeoutSeconds;
  runOptions.counts = runCountsOf(checked);
  return runPlanInProcess(plan, runOptions, out);
}

} // namespace collc
