//===- EmulatorTest.cpp - hand-written kernels on the emulator ------------===//
//
// The kernels of Kernels.cpp run on N emulated ranks (a thread per block)
// for N in {2, 3, 4, 8}, every element type and reduction, both protocols
// (LL and simple), many tiles and one slot per connection; every output
// element is compared with the collective's definition (runtime/check) and,
// for random data, bit for bit with the CPU executor running the same
// schedule. Failures: a deadlocking kernel gives a timeout whose report
// names every block's wait, a kernel whose messages do not fit its
// instructions gives plan-mismatch, arguments are checked.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "Schedules.h"

#include "collrt/collrt.h"
#include "runtime/check/ElementCodec.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"
#include "runtime/net/Net.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

namespace collrt {
namespace testing {
namespace {

using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

const DataType kAllTypes[] = {
    DataType::F64,  DataType::F32,      DataType::F16,
    DataType::BF16, DataType::F8E4M3FN, DataType::F8E5M2,
    DataType::I64,  DataType::I32,      DataType::I8};
const ReduceOp kAllOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                            ReduceOp::Max, ReduceOp::Avg};

PlanCollective makeCollective(const Program &program, DataType type,
                              ReduceOp op, uint32_t slots = 8) {
  PlanCollective c;
  c.location = "test";
  c.dtype = type;
  c.reduction = op;
  c.connectionSlots = slots;
  c.program = program;
  c.groups.assign(1, {});
  for (int32_t r = 0; r < program.numRanks; ++r)
    c.groups[0].push_back(r);
  return c;
}

struct Buffers {
  std::vector<std::vector<uint64_t>> inputs, outputs; // 8-byte aligned
  std::vector<const void *> in() const {
    std::vector<const void *> p;
    for (const auto &b : inputs)
      p.push_back(b.data());
    return p;
  }
  std::vector<void *> out() {
    std::vector<void *> p;
    for (auto &b : outputs)
      p.push_back(b.data());
    return p;
  }
};

/// Inputs from TestData (or random bits), poisoned outputs.
Buffers makeBuffers(const PlanCollective &c, int64_t count,
                    const check::TestData *data, uint32_t seed = 0) {
  Buffers b;
  const Program &p = c.program;
  size_t e = dataTypeSize(c.dtype);
  std::mt19937_64 random(seed);
  for (int32_t r = 0; r < p.numRanks; ++r) {
    int64_t in = check::referenceInputElements(p, r, count);
    int64_t out = outputElements(c, r, count);
    b.inputs.emplace_back(size_t(in) * e / 8 + 1);
    b.outputs.emplace_back(size_t(out) * e / 8 + 1);
    if (data)
      data->fillInput(r, b.inputs.back().data(), in);
    else
      for (uint64_t &word : b.inputs.back())
        word = random();
    check::TestData::poison(c.dtype, b.outputs.back().data(), out);
  }
  return b;
}

/// Runs `kind` on the emulator with position-dependent inputs and checks
/// every rank against the reference; "" when all is right.
std::string runAndCheck(const Program &program, KernelKind kind, DataType type,
                        ReduceOp op, int64_t count,
                        const dev::DeviceOptions &options, uint32_t slots = 8,
                        bool perRank = false,
                        const std::vector<int32_t> &devices = {},
                        const std::vector<int32_t> &hosts = {}) {
  PlanCollective c = makeCollective(program, type, op, slots);
  check::TestData data(program, type, op, 0);
  Buffers b = makeBuffers(c, count, &data);
  Status s = !hosts.empty()
                 ? dev::emulateAcrossHosts(c, 0, kernel(kind, type, op), count,
                                           b.in(), b.out(), hosts, options)
             : !devices.empty()
                 ? dev::emulateOnDevices(c, 0, kernel(kind, type, op), count,
                                         b.in(), b.out(), devices, options)
             : perRank ? dev::emulatePerRank(c, 0, kernel(kind, type, op),
                                             count, b.in(), b.out(), options)
                       : dev::emulate(c, 0, kernel(kind, type, op), count,
                                      b.in(), b.out(), options);
  std::string devicesText;
  for (int32_t d : devices)
    devicesText += (devicesText.empty() ? "" : ",") + std::to_string(d);
  std::string hostsText;
  for (int32_t h : hosts)
    hostsText += (hostsText.empty() ? "" : ",") + std::to_string(h);
  std::string where = std::string(perRank ? "per-rank arenas " : "") +
                      (hosts.empty() ? "" : "hosts " + hostsText + " ") +
                      (devices.empty() ? "" : "devices " + devicesText + " ") +
                      dataTypeName(type) + " " + reduceOpName(op) +
                      " n=" + std::to_string(program.numRanks) +
                      " count=" + std::to_string(count) + ": ";
  if (!s.ok())
    return where + s.toString();
  for (int32_t r = 0; r < program.numRanks; ++r) {
    check::CheckResult result = check::checkRank(
        data, r, count, b.inputs[size_t(r)].data(),
        check::referenceInputElements(program, r, count),
        b.outputs[size_t(r)].data(), outputElements(c, r, count));
    if (result.wrong)
      return where + std::to_string(result.wrong) + " wrong elements, e.g. " +
             result.examples[0].describe();
  }
  return "";
}

dev::DeviceOptions options(size_t slotBytes, uint32_t llBytes,
                           bool align = false) {
  dev::DeviceOptions o;
  o.slotBytes = slotBytes;
  o.llBytes = llBytes;
  o.alignTiles = align;
  o.timeoutSeconds = 20;
  return o;
}

/// The ring all-reduce of n ranks (one ring, 2 chunks) with one slot per
/// connection of a few elements (many tiles and messages; fused
/// instructions stage; over a network every message waits for the previous
/// one to be consumed), for every type and op given, both protocols and 0,
/// 61 and 4099 elements; `perRank`, `devices`, `hosts` as runAndCheck's.
void ringOneSlotMatrix(int32_t n, std::initializer_list<DataType> types,
                       std::initializer_list<ReduceOp> ops, bool perRank,
                       const std::vector<int32_t> &devices = {},
                       const std::vector<int32_t> &hosts = {}) {
  for (DataType type : types)
    for (ReduceOp op : ops)
      for (uint32_t ll : {0u, 16384u})
        for (int64_t count : {int64_t(0), int64_t(61), int64_t(4099)}) {
          size_t slot = 24 + 8 + 5 * dataTypeSize(type);
          EXPECT_EQ(runAndCheck(ringAllReduce(n, 1, 2),
                                KernelKind::RingAllReduce, type, op, count,
                                options(slot, ll), /*slots=*/1, perRank,
                                devices, hosts),
                    "")
              << n << " ranks, " << dataTypeName(type) << ", "
              << reduceOpName(op) << ", llBytes " << ll << ", " << count
              << " elements";
        }
}

TEST(EmulatorTest, RingAllReduceEveryTypeAndOpBothProtocols) {
  for (int32_t n : {3, 8})
    for (DataType type : kAllTypes)
      for (ReduceOp op : kAllOps)
        for (uint32_t ll : {0u, 16384u}) {
          // Slots of a few elements: many tiles.
          size_t slot = 24 + 8 + 5 * dataTypeSize(type);
          EXPECT_EQ(runAndCheck(ringAllReduce(n, 1, 2),
                                KernelKind::RingAllReduce, type, op, 61,
                                options(slot, ll)),
                    "")
              << "llBytes " << ll;
        }
}

TEST(EmulatorTest, RingAllReduceSizesAndSlots) {
  for (int32_t n : {2, 3, 4, 8})
    for (int64_t count : {0, 1, 7, 1000, 4099})
      for (uint32_t ll : {0u, 16384u})
        for (bool align : {false, true}) {
          EXPECT_EQ(runAndCheck(ringAllReduce(n, 1, 2),
                                KernelKind::RingAllReduce, DataType::BF16,
                                ReduceOp::Sum, count,
                                options(1 << 12, ll, align)),
                    "");
          // One slot per connection: every fused instruction that finds
          // its next connection full stages its message.
          EXPECT_EQ(runAndCheck(ringAllReduce(n, 1, 2),
                                KernelKind::RingAllReduce, DataType::F32,
                                ReduceOp::Max, count, options(100, ll, align),
                                /*slots=*/1),
                    "");
        }
}

TEST(EmulatorTest, OtherSchedules) {
  struct Case {
    KernelKind kind;
    Program (*make)(int32_t);
  };
  const Case cases[] = {
      {KernelKind::DirectAllToAll,
       [](int32_t n) { return directAllToAll(n, 2); }},
      {KernelKind::ChainBroadcast,
       [](int32_t n) { return chainBroadcast(n, 3, 1); }},
      {KernelKind::ChainReduce, [](int32_t n) { return chainReduce(n, 2, 0); }},
      {KernelKind::StagedAllGather,
       [](int32_t n) { return stagedRingAllGather(n, 2); }},
      {KernelKind::DirectReduceScatter,
       [](int32_t n) { return directReduceScatter(n, 2); }},
  };
  for (const Case &c : cases)
    for (int32_t n : {2, 3, 4, 8})
      for (DataType type : {DataType::F32, DataType::F16, DataType::I8,
                            DataType::F8E4M3FN, DataType::F64})
        for (uint32_t ll : {0u, 16384u})
          for (int64_t count : {int64_t(5), int64_t(n) * 2 * 53 + 3}) {
            ReduceOp op = type == DataType::I8 ? ReduceOp::Min : ReduceOp::Sum;
            EXPECT_EQ(
                runAndCheck(c.make(n), c.kind, type, op, count,
                            options(24 + 16 + 3 * dataTypeSize(type) + 5, ll)),
                "")
                << "kernel " << int(c.kind) << " llBytes " << ll;
          }
}

TEST(EmulatorTest, BlocksOfSeveralThreads) {
  // A GPU block's threads share every instruction (strided packs and words,
  // barriers, one thread waiting and the others told by an OR-barrier):
  // the same with 3 and 4 host threads per block.
  struct Case {
    KernelKind kind;
    Program (*make)(int32_t);
  };
  const Case cases[] = {
      {KernelKind::RingAllReduce,
       [](int32_t n) { return ringAllReduce(n, 1, 2); }},
      {KernelKind::DirectAllToAll,
       [](int32_t n) { return directAllToAll(n, 2); }},
      {KernelKind::ChainReduce, [](int32_t n) { return chainReduce(n, 2, 0); }},
      {KernelKind::StagedAllGather,
       [](int32_t n) { return stagedRingAllGather(n, 2); }},
      {KernelKind::DirectReduceScatter,
       [](int32_t n) { return directReduceScatter(n, 2); }},
  };
  for (uint32_t threads : {3u, 4u})
    for (const Case &c : cases)
      for (int32_t n : {3, 4})
        for (DataType type : {DataType::BF16, DataType::F32, DataType::I8})
          for (uint32_t ll : {0u, 16384u})
            for (uint32_t slots : {1u, 8u}) {
              // One slot only for the ring: the staged all-gather's two
              // sends in a row deadlock on one slot on every executor.
              if (slots == 1 && c.kind != KernelKind::RingAllReduce)
                continue;
              dev::DeviceOptions o =
                  options(c.kind == KernelKind::RingAllReduce ? 200 : 1024, ll);
              o.emulatedThreads = threads;
              EXPECT_EQ(runAndCheck(c.make(n), c.kind, type, ReduceOp::Sum,
                                    int64_t(n) * 2 * 97 + 5, o, slots),
                        "")
                  << threads << " threads, kernel " << int(c.kind) << " ll "
                  << ll << " slots " << slots;
            }
}

TEST(EmulatorTest, AllToAllV) {
  std::vector<int64_t> counts = {0, 5, 17, 2, 9, 0, 4, 4, 1};
  Program p = directAllToAllV(3, 2, counts);
  for (uint32_t ll : {0u, 16384u})
    for (DataType type : {DataType::F32, DataType::I8})
      for (int32_t r = 0; r < 3; ++r)
        EXPECT_EQ(runAndCheck(p, KernelKind::DirectAllToAll, type,
                              ReduceOp::Sum, 0, options(64, ll)),
                  "");
}

/// Runs the CPU executor on in-process ranks.
Status runCpu(const PlanCollective &c, int64_t count, Buffers &b) {
  Plan plan;
  plan.worldSize = c.program.numRanks;
  plan.collectives.push_back(c);
  CommOptions o;
  o.timeoutSeconds = 20;
  o.slotBytes = 200;
  std::vector<std::unique_ptr<Communicator>> comms;
  if (Status s = Communicator::createInProcessGroup(plan.worldSize, o, &comms);
      !s.ok())
    return s;
  std::vector<Status> results(size_t(plan.worldSize));
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < plan.worldSize; ++r)
    threads.emplace_back([&, r] {
      results[size_t(r)] = comms[size_t(r)]->run(
          plan, 0, b.inputs[size_t(r)].data(), b.outputs[size_t(r)].data(),
          count, c.dtype, c.reduction);
    });
  for (std::thread &t : threads)
    t.join();
  for (const Status &s : results)
    if (!s.ok())
      return s;
  return Status::success();
}

TEST(EmulatorTest, BitExactWithTheCpuExecutorOnRandomBits) {
  struct Case {
    KernelKind kind;
    Program program;
  };
  const Case cases[] = {
      {KernelKind::RingAllReduce, ringAllReduce(4, 1, 2)},
      {KernelKind::ChainReduce, chainReduce(4, 2, 0)},
      {KernelKind::DirectReduceScatter, directReduceScatter(4, 2)},
  };
  for (const Case &k : cases)
    for (DataType type : kAllTypes)
      for (ReduceOp op : kAllOps)
        for (uint32_t ll : {0u, 16384u}) {
          PlanCollective c = makeCollective(k.program, type, op);
          const int64_t count = 203;
          Buffers device = makeBuffers(c, count, nullptr, 7);
          Buffers cpu = makeBuffers(c, count, nullptr, 7);
          ASSERT_TRUE(runCpu(c, count, cpu).ok());
          Status s = dev::emulate(c, 0, kernel(k.kind, type, op), count,
                                  device.in(), device.out(), options(200, ll));
          ASSERT_TRUE(s.ok()) << s.toString();
          for (int32_t r = 0; r < 4; ++r)
            for (int64_t i = 0; i < outputElements(c, r, count); ++i) {
              // Bit for bit; NaN payloads are free (DeviceArith.h).
              uint64_t got =
                  check::loadBits(type, device.outputs[size_t(r)].data(), i);
              uint64_t want =
                  check::loadBits(type, cpu.outputs[size_t(r)].data(), i);
              ASSERT_TRUE(got == want || (check::isNaNBits(type, got) &&
                                          check::isNaNBits(type, want)))
                  << dataTypeName(type) << " " << reduceOpName(op) << " kernel "
                  << int(k.kind) << " rank " << r << " output[" << i
                  << "] llBytes " << ll << ": " << got << " vs " << want;
            }
        }
}

TEST(EmulatorTest, InPlace) {
  Program p = ringAllReduce(4, 1, 2);
  PlanCollective c = makeCollective(p, DataType::I32, ReduceOp::Sum);
  const int64_t count = 99;
  check::TestData data(p, DataType::I32, ReduceOp::Sum, 0);
  std::vector<std::vector<int32_t>> buffers(4, std::vector<int32_t>(count));
  std::vector<const void *> in;
  std::vector<void *> out;
  for (int32_t r = 0; r < 4; ++r) {
    data.fillInput(r, buffers[size_t(r)].data(), count);
    in.push_back(buffers[size_t(r)].data());
    out.push_back(buffers[size_t(r)].data());
  }
  std::vector<std::vector<int32_t>> inputs = buffers;
  ASSERT_TRUE(dev::emulate(c, 0,
                           kernel(KernelKind::RingAllReduce, DataType::I32,
                                  ReduceOp::Sum),
                           count, in, out, options(64, 0))
                  .ok());
  for (int32_t r = 0; r < 4; ++r) {
    check::CheckResult result =
        check::checkRank(data, r, count, inputs[size_t(r)].data(), count,
                         buffers[size_t(r)].data(), count);
    EXPECT_EQ(result.wrong, 0) << result.examples[0].describe();
  }
}

TEST(EmulatorTest, DeadlockTimesOutWithAReportOfEveryBlock) {
  Program p = emptyProgram(Collective::AllReduce, 3, 1);
  for (int32_t r = 0; r < 3; ++r) {
    append(p, r, 0, recvFrom((r + 2) % 3, out(0), 0));
    append(p, r, 0, sendTo((r + 1) % 3, in(0), 1));
  }
  for (uint32_t ll : {0u, 16384u}) {
    PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum);
    Buffers b = makeBuffers(c, 10, nullptr);
    dev::DeviceOptions o = options(1 << 10, ll);
    o.timeoutSeconds = 0.3;
    o.emulatedThreads = ll ? 3 : 1; // LL: every thread polls its lines
    Status s = dev::emulate(
        c, 0, kernel(KernelKind::DeadlockRing, DataType::F32, ReduceOp::Sum),
        10, b.in(), b.out(), o);
    ASSERT_EQ(s.code(), ErrorCode::Timeout);
    EXPECT_THAT(s.message(),
                HasSubstr("did not finish within 0.3 s "
                          "(DeviceOptions::timeoutSeconds); the watchdog set "
                          "abortFlag"));
    EXPECT_THAT(s.message(),
                HasSubstr("rank 0 channel 0 tile 0 step 0 instruction 0 recv "
                          "output[0] from rank 2: waiting for rank 2 to send "
                          "(message 1 of 1 on this connection; 0 sent); gave "
                          "up when the launch was aborted"));
    EXPECT_THAT(s.message(), HasSubstr("rank 2 channel 0 tile 0 step 0 "
                                       "instruction 0 recv output[0] from "
                                       "rank 1: waiting"));
  }
}

TEST(EmulatorTest, AKernelThatDoesNotFollowTheProgramIsNamed) {
  // Rank 0 sends twice to rank 1, which receives twice; the kernel receives
  // first on every rank: rank 0 receives from rank 1, which the program
  // never connects.
  Program p = emptyProgram(Collective::AllReduce, 2, 1);
  append(p, 0, 0, sendTo(1, in(0), 0));
  append(p, 0, 0, sendTo(1, in(0), 1));
  append(p, 1, 0, recvFrom(0, out(0), 0));
  append(p, 1, 0, recvFrom(0, out(0), 1));
  PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum, 1);
  Buffers b = makeBuffers(c, 4, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = 0.3;
  Status s = dev::emulate(
      c, 0, kernel(KernelKind::DeadlockRing, DataType::F32, ReduceOp::Sum), 4,
      b.in(), b.out(), o);
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(s.message(),
              HasSubstr("rank 0 channel 0 tile 0 step 0 instruction 0 send "
                        "input[0] to rank 1 (but the kernel runs recv with "
                        "rank 1 step 0 there: it does not follow the "
                        "program): it receives from rank 1 on a connection "
                        "the program does not have"));
}

TEST(EmulatorTest, MessagesThatDoNotFitTheirInstructionsFail) {
  Program p = directAllToAll(3, 2);
  for (uint32_t ll : {0u, 16384u}) {
    PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum);
    Buffers b = makeBuffers(c, 12, nullptr);
    Status s = dev::emulate(
        c, 0,
        kernel(KernelKind::WrongCountAllToAll, DataType::F32, ReduceOp::Sum),
        12, b.in(), b.out(), options(1 << 10, ll));
    ASSERT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
    EXPECT_THAT(s.message(),
                HasSubstr("the message carries 1 chunks, this instruction "
                          "receives a different number"));
    EXPECT_THAT(s.message(), HasSubstr("what each block was doing:"));
  }
}

TEST(EmulatorTest, KernelOfAnotherElementTypeFails) {
  Program p = directAllToAll(2, 2);
  PlanCollective c = makeCollective(p, DataType::F64, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 8, nullptr);
  Status s = dev::emulate(
      c, 0, kernel(KernelKind::DirectAllToAll, DataType::F32, ReduceOp::Sum), 8,
      b.in(), b.out(), options(1 << 10, 0));
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(s.message(),
              HasSubstr("channel 0 tile 0 (before its first "
                        "instruction): the kernel was compiled for 4-byte "
                        "elements, the plan's f64 has 8"));
}

TEST(EmulatorTest, KernelThatSendsLessThanTheProgramFails) {
  // The chain reduce kernel on an all-to-all program: rank 1 sends rank 0
  // two messages, rank 0 never sends.
  Program p = directAllToAll(2, 2);
  PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 8, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = 0.5;
  Status s = dev::emulate(
      c, 0, kernel(KernelKind::ChainReduce, DataType::F32, ReduceOp::Sum), 8,
      b.in(), b.out(), o);
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(s.message(),
              HasSubstr("on the connection from rank 0 to rank 1 channel 0 "
                        "the kernel sent 0 and received 0 messages; the "
                        "program sends 1 (1 per tile x 1 tiles): the kernel "
                        "does not run the plan's schedule"));
}

TEST(EmulatorTest, ArgumentErrors) {
  Program p = ringAllReduce(2, 1, 1);
  PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 8, nullptr);
  dev::KernelFunction k =
      kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum);
  Status s = dev::emulate(c, 0, k, 8, {b.in()[0]}, b.out(), options(64, 0));
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("1 inputs and 2 outputs given for a "
                                     "program of 2 ranks"));
  std::vector<const void *> in = b.in();
  in[1] = nullptr;
  s = dev::emulate(c, 0, k, 8, in, b.out(), options(64, 0));
  EXPECT_THAT(s.toString(),
              HasSubstr("invalid-argument: collective 0 (all_reduce 'ring', "
                        "test) (emulated): rank 1's input is null but it "
                        "reads 8 elements"));
  dev::DeviceOptions o = options(64, 0);
  o.slots = 2;
  s = dev::emulate(c, 0, k, 8, b.in(), b.out(), o);
  EXPECT_THAT(s.toString(), HasSubstr("slots = 2 is fewer than the 8 the "
                                      "schedule was verified with"));
  s = dev::emulate(c, 0, k, 8, b.in(), b.out(), options(27, 0));
  EXPECT_THAT(s.toString(), HasSubstr("slotBytes = 27 is too small"));
  s = dev::emulate(c, 0, nullptr, 8, b.in(), b.out(), options(64, 0));
  EXPECT_THAT(s.toString(), HasSubstr("the kernel is null"));
  o = options(64, 0);
  o.timeoutSeconds = 0;
  s = dev::emulate(c, 0, k, 8, b.in(), b.out(), o);
  EXPECT_THAT(s.toString(), HasSubstr("timeoutSeconds = 0"));
  o = options(64, 0);
  o.emulatedThreads = 0;
  s = dev::emulate(c, 0, k, 8, b.in(), b.out(), o);
  EXPECT_THAT(s.toString(),
              HasSubstr("emulatedThreads = 0 must be in [1, 1024]"));
}

//===----------------------------------------------------------------------===//
// One process per rank, emulated: every rank in its own launch and host
// allocation, reaching its peers only through the table of arena entries
// (what the CUDA executor exchanges over the bootstrap with CUDA IPC).
//===----------------------------------------------------------------------===//

TEST(EmulatorPerRankTest, RingAllReduce) {
  for (int32_t n : {2, 3, 4})
    ringOneSlotMatrix(n, {DataType::F32, DataType::BF16, DataType::I32},
                      {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Avg},
                      /*perRank=*/true);
}

TEST(EmulatorPerRankTest, DirectAllToAllAndAllGather) {
  for (int32_t n : {2, 3, 4})
    for (DataType type : {DataType::F32, DataType::I8, DataType::F64})
      for (uint32_t ll : {0u, 16384u})
        for (int64_t count : {int64_t(5), int64_t(n) * 2 * 53 + 3}) {
          size_t slot = 24 + 16 + 3 * dataTypeSize(type) + 5;
          EXPECT_EQ(runAndCheck(directAllToAll(n, 2),
                                KernelKind::DirectAllToAll, type, ReduceOp::Sum,
                                count, options(slot, ll), 8, true),
                    "");
          // The all-gather staged in scratch, with `after` both ways.
          EXPECT_EQ(runAndCheck(
                        stagedRingAllGather(n, 2), KernelKind::StagedAllGather,
                        type, ReduceOp::Sum, count, options(slot, ll), 8, true),
                    "");
        }
}

TEST(EmulatorPerRankTest, SeveralThreadsPerBlock) {
  dev::DeviceOptions o = options(24 + 8 + 5 * 4, 16384);
  o.emulatedThreads = 3;
  EXPECT_EQ(runAndCheck(ringAllReduce(4, 1, 2), KernelKind::RingAllReduce,
                        DataType::F32, ReduceOp::Sum, 1001, o, 1, true),
            "");
}

/// Runs the ring all-reduce per rank with `edit` applied to the table.
Status runWithTable(int32_t n,
                    const std::function<void(std::vector<std::string> *)> &edit,
                    double timeout = 20) {
  PlanCollective c =
      makeCollective(ringAllReduce(n, 1, 1), DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 40, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = timeout;
  return dev::emulatePerRank(
      c, 0, kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum), 40,
      b.in(), b.out(), o, edit);
}

TEST(EmulatorPerRankTest, AMissingPeerEntryIsNamed) {
  Status s = runWithTable(3, [](std::vector<std::string> *t) { (*t)[1] = ""; });
  ASSERT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  // Rank 0 sends to rank 1 (the ring's next).
  EXPECT_THAT(s.message(),
              HasSubstr("rank 0's peer 1: no arena in the table (rank 0 "
                        "exchanges messages with it, so every process must "
                        "publish the arenas of its ranks before any launch)"));
}

TEST(EmulatorPerRankTest, AnEntryOfAnotherLayoutIsNamed) {
  Status s = runWithTable(3, [](std::vector<std::string> *t) {
    dev::ArenaEntry e;
    ASSERT_TRUE(dev::decodeArenaEntry((*t)[2], 2, &e).ok());
    e.layoutKey ^= 1; // a process that ran another count or slot size
    (*t)[2] = dev::encodeArenaEntry(e);
  });
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
  EXPECT_THAT(s.message(), HasSubstr("rank 0's peer 2: its arena was laid out "
                                     "differently"));
  EXPECT_THAT(s.message(),
              HasSubstr("every process must run the same plan, collective, "
                        "count, slot bytes, slots and LL threshold"));
  s = runWithTable(2, [](std::vector<std::string> *t) {
    dev::ArenaEntry e;
    ASSERT_TRUE(dev::decodeArenaEntry((*t)[1], 1, &e).ok());
    e.arenaBytes += 256;
    (*t)[1] = dev::encodeArenaEntry(e);
  });
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
}

TEST(EmulatorPerRankTest, EntriesOutOfPlaceOrForeignAreNamed) {
  Status s = runWithTable(
      3, [](std::vector<std::string> *t) { std::swap((*t)[1], (*t)[2]); });
  ASSERT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_THAT(s.message(), HasSubstr("rank 0's peer 1: the table's entry 1 is "
                                     "rank 2's arena (entries are by rank)"));
  s = runWithTable(2, [](std::vector<std::string> *t) { (*t)[0] = "hello"; });
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("the arena entry of rank 0 (5 bytes) is not one this "
                        "libcollrt writes"));
  s = runWithTable(2, [](std::vector<std::string> *t) { t->pop_back(); });
  EXPECT_THAT(s.message(),
              HasSubstr("the table of arenas has 1 entries for 2 ranks"));
}

/// One of the ways to run a collective as several launches (one per rank,
/// one per device), emulated.
using MultiLaunch =
    std::function<Status(const PlanCollective &, const dev::KernelFunction &,
                         int64_t, Buffers &, const dev::DeviceOptions &)>;

/// The program: rank 0 sends to rank 1 twice. The kernel receives first on
/// every rank: rank 0's block fails at once (a connection the program does
/// not have) and raises its own launch's abortFlag; rank 1's block waits
/// for rank 0's message in another launch, with a flag of its own, and is
/// stopped only by the (emulated) peer check, long before the watchdog's
/// 20 s.
void expectABlockErrorStopsTheOtherLaunches(const MultiLaunch &emulate) {
  Program p = emptyProgram(Collective::AllReduce, 2, 1);
  append(p, 0, 0, sendTo(1, in(0), 0));
  append(p, 0, 0, sendTo(1, in(0), 1));
  append(p, 1, 0, recvFrom(0, out(0), 0));
  append(p, 1, 0, recvFrom(0, out(0), 1));
  PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum, 1);
  Buffers b = makeBuffers(c, 4, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = 20;
  auto start = std::chrono::steady_clock::now();
  Status s =
      emulate(c, kernel(KernelKind::DeadlockRing, DataType::F32, ReduceOp::Sum),
              4, b, o);
  double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
  EXPECT_THAT(s.message(), HasSubstr("it receives from rank 1 on a connection "
                                     "the program does not have"));
  // Rank 1 was waiting when the abort came, or (its launch started after
  // rank 0's error, as may happen with a launch per rank) never began.
  EXPECT_THAT(
      s.message(),
      AnyOf(HasSubstr("rank 1 channel 0 tile 0 step 0 instruction 0 recv "
                      "output[0] from rank 0: waiting for rank 0 to send "
                      "(message 1 of 2 on this connection; 0 sent); gave "
                      "up when the launch was aborted"),
            ContainsRegex("rank 1 channel 0 \\(block [0-9]+\\): did nothing "
                          "\\(the launch was already aborted when it "
                          "started\\)")));
  EXPECT_LT(took, 10.0);
}

/// A ring whose every rank receives first: the watchdog's report names
/// every rank's block, the summary line says `launches`.
void expectDeadlockReportsEveryBlock(const MultiLaunch &emulate,
                                     const std::string &launches) {
  Program p = emptyProgram(Collective::AllReduce, 3, 1);
  for (int32_t r = 0; r < 3; ++r) {
    append(p, r, 0, recvFrom((r + 2) % 3, out(0), 0));
    append(p, r, 0, sendTo((r + 1) % 3, in(0), 1));
  }
  PlanCollective c = makeCollective(p, DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 10, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = 0.3;
  Status s =
      emulate(c, kernel(KernelKind::DeadlockRing, DataType::F32, ReduceOp::Sum),
              10, b, o);
  ASSERT_EQ(s.code(), ErrorCode::Timeout) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("(3 blocks in " + launches +
                        " with arenas of their own) did not finish within "
                        "0.3 s"));
  // The sender's count comes from head, in the receiver's own arena.
  for (const char *line :
       {"rank 0 channel 0 tile 0 step 0 instruction 0 recv output[0] from "
        "rank 2: waiting for rank 2 to send (message 1 of 1 on this "
        "connection; 0 sent); gave up when the launch was aborted",
        "rank 1 channel 0 tile 0 step 0 instruction 0 recv output[0] from "
        "rank 0: waiting",
        "rank 2 channel 0 tile 0 step 0 instruction 0 recv output[0] from "
        "rank 1: waiting"})
    EXPECT_THAT(s.message(), HasSubstr(line));
}

Status emulateEachRank(const PlanCollective &c, const dev::KernelFunction &k,
                       int64_t count, Buffers &b, const dev::DeviceOptions &o) {
  return dev::emulatePerRank(c, 0, k, count, b.in(), b.out(), o);
}

Status emulateTwoDevices(const PlanCollective &c, const dev::KernelFunction &k,
                         int64_t count, Buffers &b,
                         const dev::DeviceOptions &o) {
  return dev::emulateOnDevices(c, 0, k, count, b.in(), b.out(), {0, 1}, o);
}

TEST(EmulatorPerRankTest, ABlockErrorInOneLaunchStopsTheOthers) {
  expectABlockErrorStopsTheOtherLaunches(emulateEachRank);
}

TEST(EmulatorPerRankTest, DeadlockReportsEveryRanksBlocks) {
  expectDeadlockReportsEveryBlock(emulateEachRank, "3 launches");
}

//===----------------------------------------------------------------------===//
// Several devices in one process, emulated: launch g runs the ranks dealt
// to device g (rank r in launch r % G), each launch in its own host
// allocation, its arenas' addresses used directly by the others (what the
// CUDA executor's linkLaunches does with device pointers and peer access).
//===----------------------------------------------------------------------===//

TEST(EmulatorOnDevicesTest, RanksAreDealtRoundRobin) {
  EXPECT_EQ(dev::dealRanks(5, 2),
            (std::vector<std::vector<int32_t>>{{0, 2, 4}, {1, 3}}));
  EXPECT_EQ(dev::dealRanks(3, 3),
            (std::vector<std::vector<int32_t>>{{0}, {1}, {2}}));
  EXPECT_EQ(dev::dealRanks(2, 1), (std::vector<std::vector<int32_t>>{{0, 1}}));
  EXPECT_TRUE(dev::dealRanks(4, 0).empty());
}

TEST(EmulatorOnDevicesTest, RingAllReduce) {
  const std::vector<int32_t> layouts[] = {{0, 1}, {0, 1, 2}, {0, 0}, {1, 0}};
  for (const std::vector<int32_t> &devices : layouts)
    for (int32_t n : {3, 4, 8})
      ringOneSlotMatrix(n, {DataType::F32, DataType::BF16},
                        {ReduceOp::Sum, ReduceOp::Avg}, /*perRank=*/false,
                        devices);
}

TEST(EmulatorOnDevicesTest, DirectAllToAllAndAllGatherSeveralThreads) {
  for (int32_t n : {2, 3, 5})
    for (uint32_t ll : {0u, 16384u}) {
      dev::DeviceOptions o = options(24 + 16 + 3 * 4 + 5, ll);
      o.emulatedThreads = n == 5 ? 3 : 1;
      int64_t count = int64_t(n) * 2 * 53 + 3;
      EXPECT_EQ(runAndCheck(directAllToAll(n, 2), KernelKind::DirectAllToAll,
                            DataType::F32, ReduceOp::Sum, count, o, 8, false,
                            {0, 1}),
                "");
      EXPECT_EQ(runAndCheck(stagedRingAllGather(n, 2),
                            KernelKind::StagedAllGather, DataType::F32,
                            ReduceOp::Sum, count, o, 8, false, {3, 1}),
                "");
    }
}

/// Every pair of ranks on different devices of `devices` (rank r on
/// devices[r % G]) linked through host memory.
std::vector<std::pair<int32_t, int32_t>>
crossDeviceLinks(int32_t n, const std::vector<int32_t> &devices) {
  std::vector<std::pair<int32_t, int32_t>> links;
  size_t g = devices.size();
  for (int32_t r = 0; r < n; ++r)
    for (int32_t p = r + 1; p < n; ++p)
      if (devices[size_t(r) % g] != devices[size_t(p) % g])
        links.emplace_back(r, p);
  return links;
}

TEST(EmulatorOnDevicesTest, HostMemoryLinks) {
  // Devices without a peer-to-peer path: the connections between them in
  // pinned host memory (both protocols: LL lines are stores there too).
  for (int32_t n : {3, 4})
    for (DataType type : {DataType::F32, DataType::BF16})
      for (uint32_t ll : {0u, 16384u})
        for (int64_t count : {int64_t(0), int64_t(61), int64_t(4099)}) {
          dev::DeviceOptions o = options(24 + 8 + 5 * dataTypeSize(type), ll);
          o.hostLinks = crossDeviceLinks(n, {0, 1});
          EXPECT_EQ(runAndCheck(ringAllReduce(n, 1, 2),
                                KernelKind::RingAllReduce, type, ReduceOp::Sum,
                                count, o, /*slots=*/1, false, {0, 1}),
                    "");
        }
  // One process per rank: each maps its peers' host arenas (memfd host
  // buffers) as another process would, at addresses of its own.
  for (uint32_t ll : {0u, 16384u}) {
    dev::DeviceOptions o = options(24 + 8 + 5 * 4, ll);
    o.hostLinks = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    EXPECT_EQ(runAndCheck(ringAllReduce(4, 1, 2), KernelKind::RingAllReduce,
                          DataType::F32, ReduceOp::Sum, 4099, o, 1,
                          /*perRank=*/true),
              "");
  }
  // Some pairs through host memory, the others direct; one launch too.
  dev::DeviceOptions o = options(24 + 16 + 3 * 4 + 5, 16384);
  o.hostLinks = {{0, 1}, {2, 4}, {3, 0}};
  o.emulatedThreads = 3;
  EXPECT_EQ(runAndCheck(directAllToAll(5, 2), KernelKind::DirectAllToAll,
                        DataType::F32, ReduceOp::Sum, 5 * 2 * 53 + 3, o, 8,
                        false, {0, 1, 2}),
            "");
  EXPECT_EQ(runAndCheck(stagedRingAllGather(5, 2), KernelKind::StagedAllGather,
                        DataType::I8, ReduceOp::Sum, 5 * 2 * 53 + 3, o, 8),
            "");
}

TEST(EmulatorOnDevicesTest, HostMemoryLinkErrors) {
  PlanCollective c =
      makeCollective(ringAllReduce(3, 1, 1), DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 12, nullptr);
  dev::KernelFunction k =
      kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.hostLinks = {{0, 3}};
  Status s = dev::emulateOnDevices(c, 0, k, 12, b.in(), b.out(), {0, 1}, o);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("DeviceOptions::hostLinks names ranks 0 and 3: a "
                        "pair of two different ranks of the program's 3 is "
                        "wanted"));
  o.hostLinks = {{1, 1}};
  s = dev::emulateOnDevices(c, 0, k, 12, b.in(), b.out(), {0, 1}, o);
  EXPECT_THAT(s.message(), HasSubstr("names ranks 1 and 1"));
  // A peer process's host arena that cannot be mapped (its key names
  // no host buffer of that process) is named.
  o.hostLinks = {{0, 1}};
  s = dev::emulatePerRank(
      c, 0, k, 12, b.in(), b.out(), o, [](std::vector<std::string> *t) {
        dev::ArenaEntry e;
        ASSERT_TRUE(dev::decodeArenaEntry((*t)[1], 1, &e).ok());
        e.hostKey += 1; // another counter, same fd
        (*t)[1] = dev::encodeArenaEntry(e);
      });
  EXPECT_EQ(s.code(), ErrorCode::SystemError) << s.toString();
  EXPECT_THAT(s.message(), HasSubstr("rank 0's peer 1's host arena: mapping "
                                     "host buffer"));
  // Ranks on two hosts talk over the network, not host memory.
  dev::LaunchLayout l;
  o.hosts = {0, 0, 1};
  o.hostLinks = {{1, 2}};
  s = dev::LaunchLayout::create(c, 0, 12, o, &l);
  EXPECT_THAT(s.message(),
              HasSubstr("names ranks 1 and 2, which are on different hosts"));
}

TEST(EmulatorOnDevicesTest, ABlockErrorOnOneDeviceStopsTheOthers) {
  expectABlockErrorStopsTheOtherLaunches(emulateTwoDevices);
}

TEST(EmulatorOnDevicesTest, DeadlockReportsEveryDevicesBlocks) {
  // Launch 0 runs ranks 0 and 2, launch 1 rank 1.
  expectDeadlockReportsEveryBlock(emulateTwoDevices, "2 launches");
}

TEST(EmulatorOnDevicesTest, ArgumentErrors) {
  PlanCollective c =
      makeCollective(ringAllReduce(3, 1, 1), DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 12, nullptr);
  dev::KernelFunction k =
      kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum);
  dev::DeviceOptions o = options(1 << 10, 0);
  Status s = dev::emulateOnDevices(c, 0, k, 12, b.in(), b.out(), {}, o);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("0 devices for 3 ranks (want 1 to N"));
  s = dev::emulateOnDevices(c, 0, k, 12, b.in(), b.out(), {0, 1, 2, 3}, o);
  EXPECT_THAT(s.message(), HasSubstr("4 devices for 3 ranks (want 1 to N: "
                                     "every device runs a rank)"));
  s = dev::emulateOnDevices(c, 0, k, 12, b.in(), b.out(), {0, -2}, o);
  EXPECT_THAT(s.message(), HasSubstr("device -2 is negative"));
}

//===----------------------------------------------------------------------===//
// Ranks on several hosts, emulated: one launch per rank, and the
// connections between ranks of different hosts are network connections
// moved by each launch's DeviceProxy over TCP on loopback (what the CUDA
// executor's processes on several hosts do over the tcp or ib Net).
//===----------------------------------------------------------------------===//

Status emulateThreeHosts(const PlanCollective &c, const dev::KernelFunction &k,
                         int64_t count, Buffers &b,
                         const dev::DeviceOptions &o) {
  std::vector<int32_t> hosts;
  for (int32_t r = 0; r < c.program.numRanks; ++r)
    hosts.push_back(r % 3);
  return dev::emulateAcrossHosts(c, 0, k, count, b.in(), b.out(), hosts, o);
}

TEST(EmulatorAcrossHostsTest, RingAllReduce) {
  // Two hosts of two ranks (two of the ring's four connections cross), every
  // rank on a host of its own alternating (all cross), three hosts.
  const std::vector<int32_t> layouts[] = {
      {0, 0, 1, 1}, {0, 1, 0, 1}, {0, 1, 2}, {5, 5}};
  for (const std::vector<int32_t> &hosts : layouts)
    ringOneSlotMatrix(int32_t(hosts.size()), {DataType::F32, DataType::BF16},
                      {ReduceOp::Sum, ReduceOp::Avg}, /*perRank=*/true, {},
                      hosts);
}

TEST(EmulatorAcrossHostsTest, DirectAllToAllAndAllGatherSeveralThreads) {
  for (int32_t n : {2, 3, 5})
    for (uint32_t ll : {0u, 16384u}) {
      dev::DeviceOptions o = options(24 + 16 + 3 * 4 + 5, ll);
      o.emulatedThreads = n == 5 ? 3 : 1;
      std::vector<int32_t> hosts;
      for (int32_t r = 0; r < n; ++r)
        hosts.push_back(r / 2);
      int64_t count = int64_t(n) * 2 * 53 + 3;
      EXPECT_EQ(runAndCheck(directAllToAll(n, 2), KernelKind::DirectAllToAll,
                            DataType::F32, ReduceOp::Sum, count, o, 8, true, {},
                            hosts),
                "");
      EXPECT_EQ(runAndCheck(stagedRingAllGather(n, 2),
                            KernelKind::StagedAllGather, DataType::I8,
                            ReduceOp::Sum, count, o, 8, true, {}, hosts),
                "");
    }
}

TEST(EmulatorAcrossHostsTest, OneLaunchPerHostAndHostMemoryLinks) {
  // Each host one process with all of its ranks (its proxy serves them
  // all); and per-rank processes whose pairs within a host go through
  // host memory while those across hosts go over the network.
  for (uint32_t ll : {0u, 16384u})
    for (bool perHost : {true, false}) {
      PlanCollective c = makeCollective(ringAllReduce(6, 1, 2), DataType::F32,
                                        ReduceOp::Sum, 1);
      check::TestData data(c.program, DataType::F32, ReduceOp::Sum, 0);
      Buffers b = makeBuffers(c, 4099, &data);
      dev::DeviceOptions o = options(24 + 8 + 5 * 4, ll);
      std::vector<int32_t> hosts = {0, 0, 0, 1, 1, 1};
      if (!perHost)
        o.hostLinks = {{0, 1}, {1, 2}, {3, 4}, {4, 5}};
      Status s = dev::emulateAcrossHosts(
          c, 0, kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum),
          4099, b.in(), b.out(), hosts, o, {}, perHost);
      ASSERT_TRUE(s.ok()) << s.toString();
      for (int32_t r = 0; r < 6; ++r) {
        check::CheckResult result = check::checkRank(
            data, r, 4099, b.inputs[size_t(r)].data(),
            check::referenceInputElements(c.program, r, 4099),
            b.outputs[size_t(r)].data(), outputElements(c, r, 4099));
        EXPECT_EQ(result.wrong, 0) << "rank " << r << " perHost " << perHost;
        EXPECT_GT(result.checked, 0);
      }
    }
}

TEST(EmulatorAcrossHostsTest, GpuDirectSlotsInDeviceMemory) {
  // The network slots in the device arenas (registered as GPU memory: the
  // emulator's socket net takes it, its device memory being host memory).
  for (uint32_t ll : {0u, 16384u})
    for (int64_t count : {int64_t(61), int64_t(4099)}) {
      dev::DeviceOptions o = options(24 + 8 + 5 * 4, ll);
      o.gpuDirect = true;
      EXPECT_EQ(runAndCheck(ringAllReduce(4, 1, 2), KernelKind::RingAllReduce,
                            DataType::F32, ReduceOp::Sum, count, o, 1, true, {},
                            {0, 1, 0, 1}),
                "");
      EXPECT_EQ(runAndCheck(directAllToAll(3, 2), KernelKind::DirectAllToAll,
                            DataType::BF16, ReduceOp::Sum, 3 * 2 * 53 + 3, o, 8,
                            true, {}, {0, 1, 1}),
                "");
    }
  // The layout: the network slots in the device arena's data, the words
  // in the host arena.
  PlanCollective c =
      makeCollective(ringAllReduce(2, 1, 1), DataType::F32, ReduceOp::Sum);
  dev::DeviceOptions o = options(1 << 12, 0);
  o.hosts = {0, 1};
  o.gpuDirect = true;
  dev::LaunchLayout l;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 100, o, &l).ok());
  for (const auto &conn : l.connections()) {
    ASSERT_TRUE(conn.net && conn.slotsOnDevice);
    EXPECT_GE(conn.buffers, l.arena(conn.to).controlBytes);
    EXPECT_LE(conn.buffers + uint64_t(l.slots()) * l.slotCapacity(),
              l.arena(conn.to).bytes);
    EXPECT_GE(conn.sendBuffers, l.arena(conn.from).controlBytes);
    EXPECT_LT(conn.head, l.arena(conn.to).hostBytes);
  }
}

/// The ring all-reduce of 4 ranks on hosts {0, 1, 0, 1} with GPUDirect
/// and `registration` (`network`'s exporter, when given; one launch per
/// rank, or per host), every element checked: "" when all is right, and
/// *registrations each launch's proxy's account of its registration.
std::string runGpuDirect(dev::GpuMemoryRegistration registration,
                         bool launchPerHost, uint32_t ll, int64_t count,
                         dev::EmulatedNetwork network,
                         std::vector<std::string> *registrations) {
  PlanCollective c =
      makeCollective(ringAllReduce(4, 1, 2), DataType::F32, ReduceOp::Sum);
  check::TestData data(c.program, DataType::F32, ReduceOp::Sum, 0);
  Buffers b = makeBuffers(c, count, &data);
  dev::DeviceOptions o = options(24 + 8 + 5 * 4, ll);
  o.gpuDirect = true;
  o.gpuMemoryRegistration = registration;
  registrations->clear();
  network.registrations = registrations;
  Status s = dev::emulateAcrossHosts(
      c, 0, kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum),
      count, b.in(), b.out(), {0, 1, 0, 1}, o, {}, launchPerHost, network);
  if (!s.ok())
    return s.toString();
  for (int32_t r = 0; r < 4; ++r) {
    check::CheckResult result = check::checkRank(
        data, r, count, b.inputs[size_t(r)].data(),
        check::referenceInputElements(c.program, r, count),
        b.outputs[size_t(r)].data(), outputElements(c, r, count));
    if (result.wrong || result.checked == 0)
      return "rank " + std::to_string(r) + ": " + std::to_string(result.wrong) +
             " of " + std::to_string(result.checked) + " elements wrong";
  }
  return "";
}

TEST(EmulatorAcrossHostsTest, GpuDirectRegistersThroughDmaBufOrPeermem) {
  // Each policy moves every message through device memory its way, and
  // every launch's proxy says which way it took.
  struct Case {
    dev::GpuMemoryRegistration registration;
    const char *says;
  };
  const Case cases[] = {
      {dev::GpuMemoryRegistration::DmaBuf,
       "GPU memory registered through dma-buf"},
      {dev::GpuMemoryRegistration::PeerMem,
       "GPU memory registered through nvidia-peermem (dma-buf: not tried: "
       "peermem was asked for)"},
      {dev::GpuMemoryRegistration::Auto,
       "GPU memory registered through dma-buf"},
  };
  for (const Case &c : cases)
    for (bool perHost : {false, true})
      for (uint32_t ll : {0u, 16384u}) {
        std::vector<std::string> registrations;
        std::string where =
            std::string(dev::gpuMemoryRegistrationName(c.registration)) +
            (perHost ? ", a launch per host" : ", a launch per rank") +
            ", llBytes " + std::to_string(ll);
        EXPECT_EQ(
            runGpuDirect(c.registration, perHost, ll, 4099, {}, &registrations),
            "")
            << where;
        ASSERT_EQ(registrations.size(), perHost ? 2u : 4u) << where;
        for (const std::string &said : registrations)
          EXPECT_EQ(said, c.says) << where;
      }
}

TEST(EmulatorAcrossHostsTest, GpuDirectAutoTakesPeermemWhereDmaBufCannot) {
  // The exporter says Unsupported (a driver without
  // cuMemGetHandleForAddressRange): auto registers through peermem, says
  // why, and the collective is right; dma-buf asked for is an error.
  dev::EmulatedNetwork network;
  network.exportDmaBuf = [](const dev::DmaBufExporter &, void *, size_t, int *,
                            uint64_t *) {
    return Status(ErrorCode::Unsupported,
                  "the CUDA driver lacks cuMemGetHandleForAddressRange");
  };
  std::vector<std::string> registrations;
  EXPECT_EQ(runGpuDirect(dev::GpuMemoryRegistration::Auto, false, 0, 4099,
                         network, &registrations),
            "");
  ASSERT_EQ(registrations.size(), 4u);
  for (const std::string &said : registrations)
    EXPECT_EQ(said, "GPU memory registered through nvidia-peermem (dma-buf: "
                    "exporting it: the CUDA driver lacks "
                    "cuMemGetHandleForAddressRange)");
  std::string error = runGpuDirect(dev::GpuMemoryRegistration::DmaBuf, false, 0,
                                   4099, network, &registrations);
  EXPECT_THAT(error, HasSubstr("unsupported: "));
  EXPECT_THAT(error, HasSubstr(": device proxy: registering rank 0's device "
                               "arena (GPUDirect RDMA, "));
  EXPECT_THAT(error, HasSubstr(" bytes) through dma-buf: exporting it: the "
                               "CUDA driver lacks "
                               "cuMemGetHandleForAddressRange"));
}

TEST(EmulatorAcrossHostsTest, GpuDirectDmaBufThatDoesNotBackTheArenaFails) {
  // An exporter whose offset is a page off: the socket net finds that the
  // dma-buf does not hold the arena there, and the run stops with it
  // (auto does not fall back: this is a fault, not a lack of support).
  dev::EmulatedNetwork network;
  network.exportDmaBuf = [](const dev::DmaBufExporter &real, void *data,
                            size_t bytes, int *fd, uint64_t *offset) {
    Status s = real(data, bytes, fd, offset);
    *offset += 4096;
    return s;
  };
  for (dev::GpuMemoryRegistration policy :
       {dev::GpuMemoryRegistration::DmaBuf, dev::GpuMemoryRegistration::Auto}) {
    std::vector<std::string> registrations;
    std::string error =
        runGpuDirect(policy, false, 0, 61, network, &registrations);
    EXPECT_THAT(error, HasSubstr("invalid-argument: "));
    EXPECT_THAT(error, HasSubstr(": device proxy: registering rank 0's device "
                                 "arena (GPUDirect RDMA, "));
    EXPECT_THAT(error, ::testing::ContainsRegex(
                           "through dma-buf: registering dma-buf fd [0-9]+ "
                           "at offset [0-9]+: tcp: dma-buf fd [0-9]+ does not "
                           "back address 0x[0-9a-f]+ "));
    EXPECT_THAT(error, ::testing::ContainsRegex(
                           "the address is at offset [0-9]+ of the file, and "
                           "the dma-buf \\(which starts at the fd's position "
                           "[0-9]+\\) puts it at [0-9]+"));
  }
  // The real exporter's offsets are right (the check can pass): see
  // GpuDirectRegistersThroughDmaBufOrPeermem.
}

TEST(EmulatorAcrossHostsTest, LargeMessages) {
  // 1 MiB slots (the default), 4 slots: messages of up to 1 MiB on the wire.
  dev::DeviceOptions o = options(1 << 20, 16384);
  EXPECT_EQ(runAndCheck(ringAllReduce(4, 1, 2), KernelKind::RingAllReduce,
                        DataType::F32, ReduceOp::Sum, 3 << 20, o, 4, true, {},
                        {0, 1, 1, 0}),
            "");
}

TEST(EmulatorAcrossHostsTest, ABlockErrorOnOneHostStopsTheOthers) {
  expectABlockErrorStopsTheOtherLaunches(emulateThreeHosts);
}

TEST(EmulatorAcrossHostsTest, DeadlockReportsEveryHostsBlocks) {
  expectDeadlockReportsEveryBlock(emulateThreeHosts, "3 launches");
}

TEST(EmulatorAcrossHostsTest, AnUnreachableProxyIsNamed) {
  PlanCollective c =
      makeCollective(ringAllReduce(2, 1, 1), DataType::F32, ReduceOp::Sum);
  Buffers b = makeBuffers(c, 40, nullptr);
  dev::DeviceOptions o = options(1 << 10, 0);
  o.timeoutSeconds = 20;
  o.connectSeconds = 1;
  dev::KernelFunction k =
      kernel(KernelKind::RingAllReduce, DataType::F32, ReduceOp::Sum);
  auto start = std::chrono::steady_clock::now();
  // Rank 1's proxy handle replaced by that of a listener that is gone.
  std::string gone;
  {
    std::unique_ptr<net::Net> socketNet;
    ASSERT_TRUE(net::createSocketNet("127.0.0.1", "test", &socketNet).ok());
    std::unique_ptr<net::NetListenComm> listen;
    ASSERT_TRUE(socketNet->listen(0, &gone, &listen).ok());
  }
  Status s = dev::emulateAcrossHosts(
      c, 0, k, 40, b.in(), b.out(), {0, 1}, o,
      [&](std::vector<std::string> *t) {
        dev::ArenaEntry e;
        ASSERT_TRUE(dev::decodeArenaEntry((*t)[1], 1, &e).ok());
        EXPECT_EQ(e.host, "emulated host 1");
        EXPECT_FALSE(e.netHandle.empty());
        e.netHandle = gone;
        (*t)[1] = dev::encodeArenaEntry(e);
      });
  double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(s.ok());
  // Rank 0's proxy cannot connect, and rank 1's waits for it in vain: both
  // fail at the connect deadline, and either may be the one reported.
  EXPECT_TRUE(s.message().find("device proxy: rank 0's connection to rank "
                               "1: tcp: cannot connect to the listener at "
                               "127.0.0.1:") != std::string::npos ||
              s.message().find("device proxy: the network connections were "
                               "not all up within the connect deadline: "
                               "rank 1's connection from rank 0") !=
                  std::string::npos)
      << s.toString();
  // The blocks were stopped, not left to the watchdog.
  EXPECT_THAT(s.message(), HasSubstr("gave up when the launch was aborted"));
  EXPECT_LT(took, 10.0);

  // Rank 1's handle replaced by rank 0's: rank 0's proxy reaches itself,
  // and its hello names a connection it does not have.
  s = dev::emulateAcrossHosts(
      c, 0, k, 40, b.in(), b.out(), {0, 1}, o,
      [&](std::vector<std::string> *t) {
        dev::ArenaEntry e0, e1;
        ASSERT_TRUE(dev::decodeArenaEntry((*t)[0], 0, &e0).ok());
        ASSERT_TRUE(dev::decodeArenaEntry((*t)[1], 1, &e1).ok());
        e1.netHandle = e0.netHandle;
        (*t)[1] = dev::encodeArenaEntry(e1);
      });
  ASSERT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("launch 0: device proxy: rank 0's proxy connected "
                        "here for rank 1, but this proxy has no network "
                        "connection from rank 0 to rank 1"));

  // A peer on another host without a proxy handle at all.
  s = dev::emulateAcrossHosts(c, 0, k, 40, b.in(), b.out(), {0, 1}, o,
                              [&](std::vector<std::string> *t) {
                                dev::ArenaEntry e;
                                ASSERT_TRUE(
                                    dev::decodeArenaEntry((*t)[1], 1, &e).ok());
                                e.netHandle.clear();
                                (*t)[1] = dev::encodeArenaEntry(e);
                              });
  ASSERT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("rank 0's peer 1: it is on another host but its entry "
                        "names no proxy to connect to (netHandle)"));
}

TEST(LaunchLayoutTest, NetworkConnectionsAreHalvesInTheHostArenas) {
  PlanCollective c =
      makeCollective(ringAllReduce(4, 1, 1), DataType::F32, ReduceOp::Sum);
  dev::DeviceOptions o = options(1 << 12, 16384);
  dev::LaunchLayout one, two;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 1000, o, &one).ok());
  o.hosts = {7, 7, 7, 7}; // one host: the same layout
  dev::LaunchLayout same;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 1000, o, &same).ok());
  EXPECT_EQ(same.key(), one.key());
  EXPECT_FALSE(same.usesNet());
  o.hosts = {0, 0, 1, 1};
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 1000, o, &two).ok());
  EXPECT_NE(two.key(), one.key());
  EXPECT_TRUE(two.usesNet());
  EXPECT_TRUE(two.acrossHosts(1, 2));
  EXPECT_FALSE(two.acrossHosts(2, 3));
  int crossing = 0;
  for (const auto &conn : two.connections()) {
    EXPECT_EQ(conn.net, (conn.from < 2) != (conn.to < 2));
    if (!conn.net) {
      EXPECT_NE(conn.llBuffers, 0u);
      continue;
    }
    ++crossing;
    EXPECT_EQ(conn.llBuffers, 0u); // simple protocol only
    // Each side's half fits its host arena.
    EXPECT_LE(conn.sendBuffers + uint64_t(two.slots()) * two.slotCapacity(),
              two.arena(conn.from).hostBytes);
    EXPECT_LE(conn.buffers + uint64_t(two.slots()) * two.slotCapacity(),
              two.arena(conn.to).hostBytes);
  }
  EXPECT_EQ(crossing, 2); // 1 -> 2 and 3 -> 0
  // Host-memory links: one connection in the host arenas, LL kept.
  {
    dev::DeviceOptions h = options(1 << 12, 16384);
    h.hostLinks = {{0, 1}};
    dev::LaunchLayout viaHost;
    ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 1000, h, &viaHost).ok());
    EXPECT_TRUE(viaHost.viaHost(1, 0));
    EXPECT_FALSE(viaHost.usesNet());
    EXPECT_TRUE(viaHost.usesHostArenas());
    for (const auto &conn : viaHost.connections()) {
      EXPECT_EQ(conn.viaHost, conn.from == 0 && conn.to == 1);
      if (!conn.viaHost)
        continue;
      EXPECT_NE(conn.llBuffers, 0u);
      EXPECT_LE(conn.llBuffers +
                    uint64_t(viaHost.slots()) * viaHost.llSlotBytes(),
                viaHost.arena(1).hostBytes);
      EXPECT_LT(conn.tail, viaHost.arena(0).hostBytes);
    }
    EXPECT_EQ(viaHost.arena(2).hostBytes, 0u);
  }
  // The control image points each side at its own host arena.
  std::vector<uint64_t> arenas = two.localArenas(1 << 20);
  std::vector<uint8_t> image;
  Status s = two.rankControlImage(1, arenas, &image);
  ASSERT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rank 1 has no host arena for its "
                                     "network connection to rank 2"));
  ASSERT_TRUE(
      two.rankControlImage(1, arenas, &image, {0, uint64_t(1) << 30, 0, 0})
          .ok());
  dev::DeviceConnection d;
  size_t m = size_t(two.maxChannels());
  std::memcpy(&d,
              image.data() + two.arena(1).sendTo +
                  (2 * m + 0) * sizeof(dev::DeviceConnection),
              sizeof d);
  for (const auto &conn : two.connections())
    if (conn.from == 1 && conn.to == 2) {
      EXPECT_EQ(uint64_t(uintptr_t(d.buffers)), (1u << 30) + conn.sendBuffers);
      EXPECT_EQ(uint64_t(uintptr_t(d.head)), (1u << 30) + conn.sendHead);
      EXPECT_EQ(uint64_t(uintptr_t(d.tail)), (1u << 30) + conn.tail);
      EXPECT_EQ(d.llBuffers, nullptr);
    }
  o.hosts = {0, 1};
  s = dev::LaunchLayout::create(c, 0, 1000, o, &two);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("DeviceOptions::hosts names the hosts of 2 ranks for "
                        "a program of 4 ranks"));
}

TEST(LaunchLayoutTest, ADevicesLaunchIsThoseRanksOfTheWholeLayout) {
  // Launch 0 of 2 devices on 5 ranks runs ranks 0, 2 and 4: their arenas,
  // offsets in the launch aside, are the whole layout's.
  PlanCollective c =
      makeCollective(ringAllReduce(5, 1, 2), DataType::F32, ReduceOp::Sum);
  dev::DeviceOptions o = options(1000, 16384);
  dev::LaunchLayout all;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 777, o, &all).ok());
  std::vector<std::vector<int32_t>> dealt = dev::dealRanks(5, 2);
  for (const std::vector<int32_t> &ranks : dealt) {
    o.ranks = ranks;
    dev::LaunchLayout part;
    ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 777, o, &part).ok());
    EXPECT_EQ(part.key(), all.key());
    EXPECT_EQ(part.launched(), ranks);
    EXPECT_EQ(part.blockRank().size(), ranks.size() * 2);
    std::vector<uint64_t> arenas = all.localArenas(1 << 20);
    for (int32_t r = 0; r < 5; ++r) {
      bool mine = std::find(ranks.begin(), ranks.end(), r) != ranks.end();
      EXPECT_EQ(part.launches(r), mine) << r;
      if (!mine)
        continue;
      std::vector<uint8_t> a, b;
      ASSERT_TRUE(all.rankControlImage(r, arenas, &a).ok());
      ASSERT_TRUE(part.rankControlImage(r, arenas, &b).ok());
      EXPECT_EQ(a, b) << r;
    }
  }
}

TEST(LaunchLayoutTest, OneRanksLaunchIsThatRankOfTheWholeLayout) {
  // One layout code path: the launch of rank r alone lays out rank r's
  // arena exactly as the launch of every rank does.
  PlanCollective c =
      makeCollective(ringAllReduce(4, 1, 2), DataType::BF16, ReduceOp::Sum);
  dev::DeviceOptions o = options(1000, 16384);
  dev::LaunchLayout all;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 9999, o, &all).ok());
  EXPECT_TRUE(all.launchesEveryRank());
  for (int32_t r = 0; r < 4; ++r) {
    o.ranks = {r};
    dev::LaunchLayout one;
    ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 9999, o, &one).ok());
    EXPECT_EQ(one.key(), all.key());
    EXPECT_EQ(one.launched(), std::vector<int32_t>{r});
    // The ring's previous and next rank, in order.
    int32_t prev = (r + 3) % 4, next = (r + 1) % 4;
    EXPECT_EQ(one.peersOf(r), (std::vector<int32_t>{std::min(prev, next),
                                                    std::max(prev, next)}));
    EXPECT_EQ(one.arena(r).bytes, all.arena(r).bytes);
    EXPECT_EQ(one.blockRank(), std::vector<int32_t>(2, r));
    EXPECT_LT(one.launchBytes(), all.launchBytes());
    // Its control image with every arena known is all's for that rank.
    std::vector<uint64_t> arenas = all.localArenas(1 << 20);
    std::vector<uint8_t> a, b;
    ASSERT_TRUE(all.rankControlImage(r, arenas, &a).ok());
    ASSERT_TRUE(one.rankControlImage(r, arenas, &b).ok());
    EXPECT_EQ(a, b);
    // Without the peers' addresses: an error naming both ranks.
    std::vector<uint64_t> mine = one.localArenas(1 << 20);
    Status s = one.rankControlImage(r, mine, &b);
    EXPECT_THAT(s.message(), HasSubstr("rank " + std::to_string(r) +
                                       " has no address for rank "));
  }
  o.ranks = {1, 1};
  dev::LaunchLayout bad;
  EXPECT_THAT(dev::LaunchLayout::create(c, 0, 9999, o, &bad).message(),
              HasSubstr("DeviceOptions::ranks names rank 1 twice"));
  o.ranks = {4};
  EXPECT_THAT(dev::LaunchLayout::create(c, 0, 9999, o, &bad).message(),
              HasSubstr("names rank 4, outside the program's 4 ranks"));
}

} // namespace
} // namespace testing
} // namespace collrt
