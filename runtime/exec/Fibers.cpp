//===- Fibers.cpp - several channels on one thread ------------------------===//
#include "runtime/exec/Fibers.h"

#include "runtime/exec/Backoff.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

namespace collrt {
namespace exec {

namespace {

//===----------------------------------------------------------------------===//
// Switching stacks
//===----------------------------------------------------------------------===//
//
// On x86-64 a switch saves the callee-saved registers and the floating-point
// control words on the current stack and moves to the other stack: no
// system call (ucontext's swapcontext also saves the signal mask, two system
// calls per switch, which cost more than the polls between switches).
// Elsewhere ucontext does it.

#if defined(__x86_64__)

extern "C" void collrtFiberSwitch(void **saveStack, void *toStack);
asm(R"(
  .text
  .p2align 4
  .globl collrtFiberSwitch
  .hidden collrtFiberSwitch
  .type collrtFiberSwitch, @function
collrtFiberSwitch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size collrtFiberSwitch, .-collrtFiberSwitch
)");

struct Context {
  void *stack = nullptr; ///< the saved stack pointer while switched out
};

/// A context that starts `entry` (which never returns) on [base, base +
/// bytes): the frame collrtFiberSwitch pops, with `entry` as the return
/// address and this thread's control words.
void makeContext(Context &c, char *base, size_t bytes, void (*entry)()) {
  uintptr_t top = (uintptr_t(base) + bytes) & ~uintptr_t(15);
  // `entry` starts as if called: its return address slot 16-byte aligned.
  uint64_t *frame = reinterpret_cast<uint64_t *>(top - 16);
  frame[0] = uint64_t(uintptr_t(entry));
  for (int i = 1; i <= 6; ++i) // rbp, rbx, r12 ... r15
    frame[-i] = 0;
  uint32_t controls[2];
  asm volatile("stmxcsr %0" : "=m"(controls[0]));
  asm volatile("fnstcw %0" : "=m"(controls[1]));
  std::memcpy(&frame[-7], controls, sizeof controls);
  c.stack = &frame[-7];
}

inline void switchContext(Context &from, Context &to) {
  collrtFiberSwitch(&from.stack, to.stack);
}

#else

struct Context {
  ucontext_t context;
};

void makeContext(Context &c, char *base, size_t bytes, void (*entry)()) {
  ::getcontext(&c.context);
  c.context.uc_stack.ss_sp = base;
  c.context.uc_stack.ss_size = bytes;
  c.context.uc_link = nullptr; // entry never returns
  ::makecontext(&c.context, entry, 0);
}

inline void switchContext(Context &from, Context &to) {
  ::swapcontext(&from.context, &to.context);
}

#endif

//===----------------------------------------------------------------------===//
// The scheduler
//===----------------------------------------------------------------------===//

struct Fiber {
  Context context;
  const std::function<void()> *task = nullptr;
  bool done = false;
};

/// The calling thread's runFibers, while it runs.
struct Scheduler {
  Context main;
  std::vector<Fiber> fibers;
  size_t current = 0;
  size_t unfinished = 0;
  /// Whether any fiber got further in the current round.
  bool progressed = false;
};

thread_local Scheduler *activeScheduler = nullptr;

[[noreturn]] void fiberEntry() {
  Scheduler &s = *activeScheduler;
  Fiber &f = s.fibers[s.current];
  (*f.task)();
  f.done = true;
  --s.unfinished;
  s.progressed = true;
  switchContext(f.context, s.main);
  __builtin_unreachable(); // a finished fiber is never resumed
}

} // namespace

FiberStacks::~FiberStacks() {
  for (const Stack &stack : stacks_)
    ::munmap(stack.mapping, stack.bytes);
}

FiberStacks::FiberStacks(FiberStacks &&other) noexcept
    : stacks_(std::move(other.stacks_)) {
  other.stacks_.clear();
}

Status FiberStacks::reserve(size_t count) {
  size_t page = size_t(::sysconf(_SC_PAGESIZE));
  while (stacks_.size() < count) {
    size_t bytes = kFiberStackBytes + page;
    void *m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) {
      int error = errno;
      return Status(ErrorCode::SystemError,
                    "could not map the stack of channel fiber " +
                        std::to_string(stacks_.size() + 1) + " (" +
                        std::to_string(kFiberStackBytes) +
                        " bytes): " + std::strerror(error));
    }
    // The lowest page guards against an overflow (stacks grow down).
    if (::mprotect(m, page, PROT_NONE) != 0) {
      int error = errno;
      ::munmap(m, bytes);
      return Status(ErrorCode::SystemError,
                    "could not protect the guard page of channel fiber " +
                        std::to_string(stacks_.size() + 1) +
                        "'s stack: " + std::strerror(error));
    }
    stacks_.push_back(Stack{m, bytes, static_cast<char *>(m) + page});
  }
  return Status::success();
}

Status runFibers(const std::vector<std::function<void()>> &tasks,
                 FiberStacks &stacks) {
  if (tasks.empty())
    return Status::success();
  if (tasks.size() == 1) {
    tasks[0]();
    return Status::success();
  }
  if (Status st = stacks.reserve(tasks.size()); !st.ok())
    return st;
  Scheduler s;
  s.fibers.resize(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    Fiber &f = s.fibers[i];
    f.task = &tasks[i];
    makeContext(f.context, stacks.base(i), kFiberStackBytes, fiberEntry);
  }
  s.unfinished = tasks.size();
  Scheduler *outer = activeScheduler;
  activeScheduler = &s;
  Backoff backoff;
  while (s.unfinished > 0) {
    s.progressed = false;
    for (size_t i = 0; i < s.fibers.size(); ++i) {
      if (s.fibers[i].done)
        continue;
      s.current = i;
      switchContext(s.main, s.fibers[i].context);
    }
    // A round in which every fiber only waited: let the cores go.
    if (s.unfinished > 0 && !s.progressed)
      backoff.pause();
    else
      backoff = Backoff();
  }
  activeScheduler = outer;
  return Status::success();
}

bool yieldFiber(bool progressed) {
  Scheduler *s = activeScheduler;
  if (!s || s->unfinished < 2)
    return false;
  if (progressed)
    s->progressed = true;
  switchContext(s->fibers[s->current].context, s->main);
  return true;
}

} // namespace exec
} // namespace collrt
