//===- CudaEmitter.h - sched schedules to CUDA C++ --------------*- C++ -*-===//
//
// `collc --emit=cuda`: one kernel per schedule, generated from the
// schedule's parametric sched IR (not from its expansion). Each thread block
// of a launch runs one channel of one rank through collrt::dev::Channel<T,
// Op> (runtime/include/collrt/device/Channel.h): n, k and the parameters
// are folded to constants, the rank r is ch.rank() at run time, so one
// kernel serves every rank, and sched.for loops stay loops. docs/codegen.md
// shows a generated file and explains every construct.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SCHEDTOCUDA_CUDAEMITTER_H
#define COLLC_LOWERING_SCHEDTOCUDA_CUDAEMITTER_H

#include "collrt/Types.h"
#include "common/Program/Program.h"
#include "dialects/Sched/IR/SchedOps.h"
#include "dialects/Sched/Transforms/Expand.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace collc {
namespace cuda {

/// One schedule to generate a kernel for: the schedule as chosen and the
/// values it was expanded and verified with.
struct KernelInput {
  /// The schedule's IR (parametric or explicit), as the lowering linked it.
  sched::ScheduleOp schedule;
  /// What it was expanded with (its parameter overrides) ...
  const sched::ExpandOptions *expand = nullptr;
  /// ... and the expansion itself (n, k, send_recv's permutation, the
  /// channels of each rank); it must have passed sched-verify.
  const sched::Program *program = nullptr;
  collrt::DataType dtype = collrt::DataType::F32;
  /// The reduction of a reducing collective; none for the others.
  std::optional<collrt::ReduceOp> reduction;
  /// The collective's index in the plan of the same program
  /// (collc --emit=plan); part of the kernel's name.
  int planIndex = 0;
  /// Where the collective is, for comments ("prog.mlir:4:8").
  std::string location;
};

struct EmitOptions {
  /// Kernel names start with this (a C identifier).
  std::string kernelPrefix = "collc";
  /// What the file was generated from, for its first line
  /// ("prog.mlir on topology 1x4").
  std::string source;
};

/// The kernel of plan collective `planIndex`:
/// `<prefix>_k<planIndex>_<algorithm>_<collective>`, e.g.
/// collc_k0_ring_all_reduce; characters of the algorithm's name outside
/// [A-Za-z0-9_] become '_'.
std::string kernelName(llvm::StringRef prefix, int planIndex,
                       llvm::StringRef algorithm, sched::Collective collective);

/// Whether `prefix` can start kernel names: a C identifier.
bool isKernelPrefix(llvm::StringRef prefix);

/// The element type of generated kernels for `type` as the kernel writes it
/// inside `using namespace collrt::dev` ("float", "bf16", "int8_t", ...).
const char *deviceElementType(collrt::DataType type);
/// The reduction functor, likewise ("SumOp", ...); avg reduces as a sum
/// (the executor divides afterwards), and collectives that do not reduce
/// get SumOp, which they never apply.
const char *deviceReduceOp(std::optional<collrt::ReduceOp> op);

/// Writes the CUDA C++ of every kernel of `kernels`, in order, with a
/// header listing them, into `output`. Fails, with an error at the
/// schedule, when a kernel cannot be generated (a prefix that is not an
/// identifier, a schedule whose expressions do not fit their scope);
/// `output` is untouched then.
mlir::LogicalResult emitCuda(llvm::ArrayRef<KernelInput> kernels,
                             const EmitOptions &options, std::string &output);

} // namespace cuda
} // namespace collc

#endif
