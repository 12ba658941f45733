//===- ExecutorTest.cpp - collectives run on in-process ranks -------------===//
//
// Hand-built schedules run by the CPU executor on ranks that are threads,
// for every element type and reduction where they apply, group sizes 2, 3,
// 4 and 8, counts that do not divide into the chunks, and slots so small
// that every chunk is cut into many tiles. Outputs are poisoned before each
// run and compared element by element with the collective's definition.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include <gtest/gtest.h>

#include <thread>

namespace collrt {
namespace {

using namespace testing;

constexpr DataType kAllTypes[] = {
    DataType::F64,  DataType::F32,      DataType::F16,
    DataType::BF16, DataType::F8E4M3FN, DataType::F8E5M2,
    DataType::I64,  DataType::I32,      DataType::I8};
constexpr ReduceOp kAllOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                                ReduceOp::Max, ReduceOp::Avg};
constexpr int32_t kSizes[] = {2, 3, 4, 8};

std::string label(int32_t n, DataType type, ReduceOp op, int64_t count) {
  return "n=" + std::to_string(n) + " " + dataTypeName(type) + " " +
         reduceOpName(op) + " count=" + std::to_string(count);
}

/// The bytes of the largest message header plus `elements` elements of
/// `type` for each of `chunks` chunks: slots that force tiles of
/// `elements` elements.
CommOptions tinySlots(size_t chunks, DataType type, size_t elements) {
  CommOptions options;
  options.slotBytes = 16 + 8 * chunks + chunks * elements * dataTypeSize(type);
  return options;
}

TEST(ExecutorTest, RingAllReduceEveryTypeAndOp) {
  for (int32_t n : kSizes) {
    // Two rings of two-chunk segments for odd and large groups.
    uint32_t channels = n == 3 || n == 8 ? 2 : 1;
    collc::sched::Program program = ringAllReduce(n, 2, channels);
    int64_t count = 1000 + 3 * n + 1; // not a multiple of the chunks
    for (DataType type : kAllTypes)
      for (ReduceOp op : kAllOps) {
        Plan plan = makePlan(program, type, op);
        EXPECT_EQ(runAndCheck(plan, count), "") << label(n, type, op, count);
      }
  }
}

TEST(ExecutorTest, RingAllReduceCountsSmallerThanTheChunks) {
  // 4 ranks x 2 chunks per segment x 2 channels = 16 chunks.
  collc::sched::Program program = ringAllReduce(4, 2, 2);
  for (int64_t count : {0, 1, 5, 15, 17})
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg}) {
      Plan plan = makePlan(program, DataType::I32, op);
      EXPECT_EQ(runAndCheck(plan, count), "")
          << label(4, DataType::I32, op, count);
    }
}

TEST(ExecutorTest, DirectAllToAllEveryType) {
  for (int32_t n : kSizes)
    for (uint32_t k : {1u, 3u})
      for (DataType type : kAllTypes)
        for (int64_t count : {int64_t(0), int64_t(n - 1), int64_t(1001)}) {
          Plan plan = makePlan(directAllToAll(n, k), type, ReduceOp::Sum);
          EXPECT_EQ(runAndCheck(plan, count), "")
              << label(n, type, ReduceOp::Sum, count) << " k=" << k;
        }
}

TEST(ExecutorTest, DirectAllToAllV) {
  // Row-major by sender, zeros included.
  std::vector<int64_t> counts3 = {5, 0, 7, 1, 2, 0, 0, 9, 4};
  Plan plan =
      makePlan(directAllToAllV(3, 2, counts3), DataType::F16, ReduceOp::Sum);
  EXPECT_EQ(runAndCheck(plan, 0), "");
  std::vector<int64_t> counts4;
  for (int64_t i = 0; i < 16; ++i)
    counts4.push_back((i * 37) % 23);
  for (DataType type : {DataType::F64, DataType::I8}) {
    Plan plan4 = makePlan(directAllToAllV(4, 3, counts4), type, ReduceOp::Sum);
    EXPECT_EQ(runAndCheck(plan4, 0, tinySlots(3, type, 2)), "")
        << dataTypeName(type);
  }
}

TEST(ExecutorTest, ChainBroadcastEveryType) {
  for (int32_t n : kSizes)
    for (int32_t root : {0, n - 1})
      for (DataType type : kAllTypes) {
        Plan plan = makePlan(chainBroadcast(n, 4, root), type, ReduceOp::Sum);
        int64_t count = 4 * 250 + 3;
        EXPECT_EQ(runAndCheck(plan, count), "")
            << label(n, type, ReduceOp::Sum, count) << " root=" << root;
      }
}

TEST(ExecutorTest, ChainReduceEveryTypeAndOp) {
  // Avg divides only the root's output (the others' are free).
  for (int32_t n : kSizes)
    for (DataType type : kAllTypes)
      for (ReduceOp op : kAllOps) {
        Plan plan = makePlan(chainReduce(n, 3, 1 % n), type, op);
        int64_t count = 301;
        EXPECT_EQ(runAndCheck(plan, count), "") << label(n, type, op, count);
      }
}

TEST(ExecutorTest, DirectReduceScatterThroughScratch) {
  for (int32_t n : kSizes)
    for (DataType type : kAllTypes)
      for (ReduceOp op : kAllOps) {
        Plan plan = makePlan(directReduceScatter(n, 2), type, op);
        int64_t count = 100 * n + n / 2 + 3;
        EXPECT_EQ(runAndCheck(plan, count), "") << label(n, type, op, count);
      }
}

TEST(ExecutorTest, StagedAllGatherAcrossChannels) {
  // Scratch chunk 0 holds chunks of different sizes in turn; channel 1
  // copies out what channel 0 receives.
  for (int32_t n : kSizes)
    for (uint32_t k : {1u, 3u})
      for (DataType type : {DataType::F32, DataType::BF16, DataType::I8}) {
        Plan plan = makePlan(stagedRingAllGather(n, k), type, ReduceOp::Sum);
        int64_t count = 3 * 41 + 2;
        EXPECT_EQ(runAndCheck(plan, count), "")
            << label(n, type, ReduceOp::Sum, count) << " k=" << k;
        // Tiles of 3 elements: channel 0 runs ahead into later tiles while
        // channel 1 still copies earlier ones.
        EXPECT_EQ(runAndCheck(plan, count, tinySlots(1, type, 3)), "")
            << label(n, type, ReduceOp::Sum, count) << " k=" << k
            << " tiny slots";
      }
}

TEST(ExecutorTest, TinySlotsCutEveryChunkIntoManyTiles) {
  // Messages of 2 chunks of 1..3 elements: hundreds of tiles.
  for (size_t elements : {1, 3}) {
    for (DataType type : {DataType::F64, DataType::F16, DataType::F8E4M3FN})
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Avg}) {
        Plan plan = makePlan(ringAllReduce(4, 2, 2), type, op);
        int64_t count = 999;
        EXPECT_EQ(runAndCheck(plan, count, tinySlots(2, type, elements)), "")
            << label(4, type, op, count) << " tile " << elements;
        // One slot per connection: every send waits for the previous one.
        Plan oneSlot = makePlan(ringAllReduce(3, 2, 1), type, op, 1);
        EXPECT_EQ(runAndCheck(oneSlot, count, tinySlots(2, type, elements)), "")
            << label(3, type, op, count) << " one slot, tile " << elements;
      }
    Plan broadcast =
        makePlan(chainBroadcast(8, 4, 3), DataType::I32, ReduceOp::Sum, 2);
    EXPECT_EQ(
        runAndCheck(broadcast, 777, tinySlots(1, DataType::I32, elements)), "");
  }
}

TEST(ExecutorTest, SlotsTooSmallForOneElementPerChunk) {
  Plan plan = makePlan(ringAllReduce(2, 2, 1), DataType::F64, ReduceOp::Sum);
  CommOptions options;
  options.slotBytes = 16 + 8 * 2 + 2 * 8 - 1;
  std::vector<std::unique_ptr<Communicator>> comms;
  ASSERT_TRUE(Communicator::createInProcessGroup(2, options, &comms).ok());
  std::vector<double> in(10, 1), out(10);
  Status s = comms[0]->run(plan, 0, in.data(), out.data(), 10, DataType::F64,
                           ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("slotBytes = 47 is too small: its largest "
                             "message carries 2 chunks and needs at least 48 "
                             "bytes"),
            std::string::npos)
      << s.message();
}

TEST(ExecutorTest, GroupsOfASubAxisAndRanksOutsideEveryGroup) {
  // Two groups of 4 in a world of 8 (e.g. one mesh axis).
  Plan twoGroups = makePlan(ringAllReduce(4, 1, 1), DataType::F32,
                            ReduceOp::Sum, 8, {{0, 2, 4, 6}, {1, 3, 5, 7}});
  EXPECT_EQ(runAndCheck(twoGroups, 123), "");
  // World rank 4 takes no part: it returns at once, even with no buffers.
  Plan outside = makePlan(ringAllReduce(4, 1, 1), DataType::F32, ReduceOp::Sum,
                          8, {{3, 1, 0, 2}}, 5);
  EXPECT_EQ(runAndCheck(outside, 77), "");
}

TEST(ExecutorTest, InPlaceAllReduce) {
  Plan plan = makePlan(ringAllReduce(3, 1, 1), DataType::I64, ReduceOp::Sum);
  std::vector<std::unique_ptr<Communicator>> comms;
  ASSERT_TRUE(
      Communicator::createInProcessGroup(3, CommOptions(), &comms).ok());
  WorldBuffers buffers = makeBuffers(plan, 50);
  WorldBuffers inPlace = buffers;
  for (size_t r = 0; r < 3; ++r)
    inPlace.outputs[r] = inPlace.inputs[r];
  std::vector<std::thread> threads;
  std::vector<Status> statuses(3);
  for (size_t r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      statuses[r] = comms[r]->run(plan, 0, inPlace.outputs[r].data(),
                                  inPlace.outputs[r].data(), 50, DataType::I64,
                                  ReduceOp::Sum);
    });
  for (auto &t : threads)
    t.join();
  for (const Status &s : statuses)
    ASSERT_TRUE(s.ok()) << s.toString();
  buffers.outputs = inPlace.outputs;
  EXPECT_EQ(checkWorld(plan, 50, buffers), "");
}

TEST(ExecutorTest, OverlappingCopiesWithinScratch) {
  // One rank moves its chunks (4, 3 and 3 elements) up and down scratch
  // with copies whose ranges overlap, then to its output.
  collc::sched::Program p =
      emptyProgram(collc::sched::Collective::AllReduce, 1, 3, 4);
  append(p, 0, 0, copyTo(in(0, 3), tmp(0, 3)));
  append(p, 0, 0, copyTo(tmp(0, 3), tmp(1, 3))); // dst after src
  append(p, 0, 0, copyTo(tmp(1, 3), tmp(0, 3))); // dst before src
  append(p, 0, 0, copyTo(tmp(0, 3), tmp(1, 3)));
  append(p, 0, 0, copyTo(tmp(1, 3), out(0, 3)));
  for (DataType type : {DataType::F64, DataType::I8})
    EXPECT_EQ(runAndCheck(makePlan(p, type, ReduceOp::Sum), 10), "")
        << dataTypeName(type);
}

TEST(ExecutorTest, RepeatedRunsKeepOrRenewTheConnections) {
  std::vector<std::unique_ptr<Communicator>> comms;
  ASSERT_TRUE(
      Communicator::createInProcessGroup(4, CommOptions(), &comms).ok());
  Plan ring = makePlan(ringAllReduce(4, 1, 2), DataType::F32, ReduceOp::Max);
  Plan a2a = makePlan(directAllToAll(4, 2), DataType::I8, ReduceOp::Sum);
  for (const Plan *plan : {&ring, &ring, &a2a, &ring, &a2a, &a2a}) {
    WorldBuffers buffers = makeBuffers(*plan, 333);
    for (const Status &s : runWorld(comms, *plan, 333, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(checkWorld(*plan, 333, buffers), "");
  }
}

} // namespace
} // namespace collrt
