// Runs collective 0 of a plan, an all_reduce of f32 sums, on ranks that are
// threads of this process: rank r contributes r + 1 everywhere, so every
// output element must be 1 + 2 + ... + n.
//
//   collc --collective all_reduce --bytes 1KiB --topo 1x3.json
//         --emit=plan -o all_reduce.plan.json   (one line)
//   threads_all_reduce all_reduce.plan.json
#include "collrt/collrt.h"

#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLAN.json\n", argv[0]);
    return 2;
  }
  collrt::Plan plan;
  if (collrt::Status s = collrt::loadPlanFile(argv[1], &plan); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.toString().c_str());
    return 1;
  }
  collrt::CommOptions options;
  options.timeoutSeconds = 10; // the watchdog
  std::vector<std::unique_ptr<collrt::Communicator>> comms;
  if (collrt::Status s = collrt::Communicator::createInProcessGroup(
          plan.worldSize, options, &comms);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.toString().c_str());
    return 1;
  }

  const int n = plan.worldSize;
  const int64_t count = 1000; // any count: chunks are cut at run time
  std::vector<std::vector<float>> send(n), recv(n);
  std::vector<collrt::Status> results(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    send[r].assign(count, float(r + 1));
    // One group of every rank: the group rank is the world rank.
    recv[r].resize(collrt::outputElements(plan.collectives[0], r, count));
    threads.emplace_back([&, r] {
      results[r] = comms[r]->run(plan, 0, send[r].data(), recv[r].data(), count,
                                 collrt::DataType::F32, collrt::ReduceOp::Sum);
    });
  }
  for (std::thread &t : threads)
    t.join();

  int wrong = 0;
  for (int r = 0; r < n; ++r) {
    if (!results[r].ok()) {
      std::fprintf(stderr, "%s\n", results[r].toString().c_str());
      return 1;
    }
    for (float v : recv[r])
      wrong += v != float(n * (n + 1) / 2);
  }
  std::printf("%d ranks, %lld elements each: %s (rank 0 holds %g)\n", n,
              (long long)count, wrong ? "WRONG" : "ok", recv[0][0]);
  return wrong ? 1 : 0;
}
