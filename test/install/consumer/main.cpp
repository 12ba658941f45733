//===- main.cpp - a program built against an installed libcollrt ---------===//
//
// Loads a plan (argv[1]), runs its first collective, an all_reduce (sum, f32),
// on as many ranks as threads as the plan's world has, and checks every
// output element against the sum of the inputs. Prints one line and exits 0
// when every element is right, 1 otherwise.
//
//===----------------------------------------------------------------------===//
#include "collrt/collrt.h"

#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: collrt-consumer PLAN.json\n");
    return 2;
  }
  collrt::Plan plan;
  if (collrt::Status s = collrt::loadPlanFile(argv[1], &plan); !s.ok()) {
    std::fprintf(stderr, "collrt-consumer: %s\n", s.toString().c_str());
    return 1;
  }
  const collrt::PlanCollective &collective = plan.collectives.at(0);
  int32_t world = plan.worldSize;
  int64_t count = collective.elementsPerRank;
  std::vector<std::unique_ptr<collrt::Communicator>> comms;
  if (collrt::Status s = collrt::Communicator::createInProcessGroup(
          world, collrt::CommOptions(), &comms);
      !s.ok()) {
    std::fprintf(stderr, "collrt-consumer: %s\n", s.toString().c_str());
    return 1;
  }
  std::vector<std::vector<float>> send(world), recv(world);
  std::vector<collrt::Status> status(world);
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < world; ++r) {
    send[r].resize(count);
    for (int64_t i = 0; i < count; ++i)
      send[r][i] = float(r + 1) * float(i % 17);
    recv[r].assign(collrt::outputElements(collective, r, count), -1.0f);
    threads.emplace_back([&, r] {
      status[r] = comms[r]->run(plan, 0, send[r].data(), recv[r].data(), count,
                                collrt::DataType::F32, collrt::ReduceOp::Sum);
    });
  }
  for (std::thread &t : threads)
    t.join();
  int64_t wrong = 0;
  for (int32_t r = 0; r < world; ++r) {
    if (!status[r].ok()) {
      std::fprintf(stderr, "collrt-consumer: rank %d: %s\n", r,
                   status[r].toString().c_str());
      return 1;
    }
    for (int64_t i = 0; i < count; ++i) {
      float expected = 0;
      for (int32_t s = 0; s < world; ++s)
        expected += float(s + 1) * float(i % 17);
      wrong += recv[r][i] != expected;
    }
  }
  std::printf("collrt-consumer: %s on %d ranks, %lld elements per rank: %lld "
              "wrong\n",
              collective.program.algorithm.c_str(), world,
              static_cast<long long>(count), static_cast<long long>(wrong));
  return wrong == 0 ? 0 : 1;
}
