//===- Iterations.cpp - one size's runs, on the CPU or a GPU --------------===//
#include "tools/collc-run/Iterations.h"

#include "collrt/collrt.h"

#include <algorithm>

namespace collcrun {

using collrt::Status;
namespace check = collrt::check;

namespace {

/// One rank's buffer as runIterations reads and writes it: the buffer
/// itself where the host can reach it, else host staging (whole 8-byte
/// words: TestData and checkRank move elements of up to 8 bytes).
class HostBuffer {
public:
  HostBuffer(void *view, int64_t elements, size_t elementSize) : view_(view) {
    if (!view_ && elements > 0)
      staging_.resize(size_t(elements) * elementSize / 8 + 1);
  }
  void *data() { return view_ ? view_ : staging_.data(); }
  bool staged() const { return view_ == nullptr; }

private:
  void *view_;
  std::vector<uint64_t> staging_;
};

/// Writes iteration `data`'s inputs and (with `poison`) poisoned outputs
/// into every rank of `target`.
Status writeInputs(RunTarget &target, const check::TestData &data,
                   size_t elementSize, bool poison) {
  for (int32_t r : target.ranks()) {
    if (int64_t in = target.inputElements(r)) {
      HostBuffer input(target.hostInput(r), in, elementSize);
      data.fillInput(r, input.data(), in);
      if (input.staged())
        COLLRT_RETURN_IF_ERROR(target.storeInput(r, input.data()));
    }
    if (int64_t out = target.outputElements(r); poison && out) {
      HostBuffer output(target.hostOutput(r), out, elementSize);
      check::TestData::poison(data.type(), output.data(), out);
      if (output.staged())
        COLLRT_RETURN_IF_ERROR(target.storeOutput(r, output.data()));
    }
  }
  return Status::success();
}

/// Compares every rank's buffers after run `iteration` with `data`'s
/// definition.
Status checkOutputs(RunTarget &target, const check::TestData &data,
                    const IterationOptions &options, size_t elementSize,
                    int iteration, IterationResult *result) {
  const collc::sched::Program &program = data.program();
  int64_t wrong = 0, checked = 0;
  std::vector<check::ElementError> examples;
  for (int32_t r : target.ranks()) {
    int64_t in = target.inputElements(r), out = target.outputElements(r);
    HostBuffer input(target.hostInput(r), in, elementSize),
        output(target.hostOutput(r), out, elementSize);
    if (in && input.staged())
      COLLRT_RETURN_IF_ERROR(target.loadInput(r, input.data()));
    if (out && output.staged())
      COLLRT_RETURN_IF_ERROR(target.loadOutput(r, output.data()));
    int64_t count =
        program.collective == collc::sched::Collective::AllToAllV
            ? check::referenceInputElements(program, r, 0, data.sendCounts())
            : options.count;
    check::CheckResult c =
        check::checkRank(data, r, count, input.data(), in, output.data(), out);
    wrong += c.wrong;
    checked += c.checked;
    for (check::ElementError &e : c.examples)
      if (examples.size() < 5)
        examples.push_back(std::move(e));
  }
  result->wrong += wrong;
  result->checked += checked;
  if (wrong && result->firstWrongIteration < 0) {
    result->firstWrongIteration = iteration;
    result->firstWrong = wrong;
    result->firstChecked = checked;
    result->firstExamples = std::move(examples);
  }
  return Status::success();
}

} // namespace

Status runIterations(RunTarget &target, const collc::sched::Program &program,
                     collrt::DataType type, collrt::ReduceOp op,
                     const IterationOptions &options, IterationResult *result) {
  *result = IterationResult();
  if (options.warmup < 0 || options.iterations < 0)
    return Status(collrt::ErrorCode::InvalidArgument,
                  "iterations and warmup must not be negative");
  const size_t elementSize = collrt::dataTypeSize(type);
  const int runs = options.warmup + options.iterations;
  auto failedAt = [&](int iteration, Status s) {
    result->failedIteration = iteration;
    return s;
  };

  if (!options.check) {
    check::TestData data(program, type, op, 0, options.sendCounts);
    COLLRT_RETURN_IF_ERROR(writeInputs(target, data, elementSize, false));
    for (int it = 0; it < options.warmup; ++it)
      if (Status s = target.launch(); !s.ok())
        return failedAt(it, s);
    if (options.warmup > 0)
      if (Status s = target.wait(); !s.ok())
        return failedAt(options.warmup - 1, s);
    if (options.iterations == 0)
      return Status::success();
    COLLRT_RETURN_IF_ERROR(target.startTimer());
    for (int it = options.warmup; it < runs; ++it)
      if (Status s = target.launch(); !s.ok())
        return failedAt(it, s);
    double seconds = 0;
    if (Status s = target.stopTimer(&seconds); !s.ok())
      return failedAt(runs - 1, s);
    result->seconds = seconds / options.iterations;
    return Status::success();
  }

  double total = 0;
  for (int it = 0; it < runs; ++it) {
    // The inputs of iteration `it`: what the check compares against.
    check::TestData data(program, type, op, uint64_t(it), options.sendCounts);
    COLLRT_RETURN_IF_ERROR(writeInputs(target, data, elementSize, true));
    const bool timed = it >= options.warmup;
    if (timed)
      COLLRT_RETURN_IF_ERROR(target.startTimer());
    if (Status s = target.launch(); !s.ok())
      return failedAt(it, s);
    double seconds = 0;
    if (Status s = timed ? target.stopTimer(&seconds) : target.wait(); !s.ok())
      return failedAt(it, s);
    total += seconds;
    COLLRT_RETURN_IF_ERROR(
        checkOutputs(target, data, options, elementSize, it, result));
  }
  if (options.iterations > 0)
    result->seconds = total / options.iterations;
  return Status::success();
}

} // namespace collcrun
