//===- Harness.cpp - run a plan on in-process ranks and check it ----------===//
#include "Harness.h"

#include "ReferenceFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

namespace collrt {
namespace testing {

using collc::sched::Collective;
using collc::sched::Program;

Plan makePlan(const Program &program, DataType dtype, ReduceOp op,
              uint32_t slots, std::vector<std::vector<int32_t>> groups,
              int32_t worldSize) {
  if (groups.empty()) {
    groups.emplace_back();
    for (int32_t r = 0; r < program.numRanks; ++r)
      groups.back().push_back(r);
  }
  if (worldSize == 0)
    for (const auto &group : groups)
      worldSize += int32_t(group.size());
  Plan plan;
  plan.producer = "exec tests";
  plan.worldSize = worldSize;
  PlanCollective collective;
  collective.location = "test";
  collective.dtype = dtype;
  collective.reduction = op;
  collective.groups = groups;
  collective.connectionSlots = slots;
  collective.program = program;
  plan.collectives.push_back(collective);
  return plan;
}

namespace {

const ReferenceFormat *narrow(DataType type) {
  switch (type) {
  case DataType::F16:
    return &kF16Ref;
  case DataType::BF16:
    return &kBF16Ref;
  case DataType::F8E4M3FN:
    return &kF8E4M3FNRef;
  case DataType::F8E5M2:
    return &kF8E5M2Ref;
  default:
    return nullptr;
  }
}

uint64_t mask(DataType type) {
  size_t bytes = dataTypeSize(type);
  return bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

/// The bits of value `v` in `type` (exact values; integers wrap).
uint64_t encode(DataType type, double v) {
  if (const ReferenceFormat *f = narrow(type))
    return f->encode(v);
  if (type == DataType::F32) {
    float x = float(v);
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  }
  if (type == DataType::F64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  return uint64_t(int64_t(v)) & mask(type);
}

double decode(DataType type, uint64_t bits) {
  if (const ReferenceFormat *f = narrow(type))
    return f->decode(uint32_t(bits));
  if (type == DataType::F32) {
    float x;
    uint32_t b = uint32_t(bits);
    std::memcpy(&x, &b, 4);
    return x;
  }
  if (type == DataType::F64) {
    double x;
    std::memcpy(&x, &bits, 8);
    return x;
  }
  int shift = int(64 - 8 * dataTypeSize(type));
  return double(int64_t(bits << shift) >> shift);
}

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t poisonWord(DataType type) {
  uint64_t word;
  std::memset(&word, kPoison, sizeof word);
  return word & mask(type);
}

bool isReducing(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter ||
         c == Collective::Reduce;
}

uint64_t inputBits(DataType type, ReduceOp op, bool reducing, int32_t rank,
                   int64_t index) {
  if (reducing)
    return encode(type, inputValue(type, op, true, rank, index));
  // Data that is only moved: any bit pattern but the poison's.
  for (uint64_t salt = 0;; ++salt) {
    uint64_t bits =
        mix((uint64_t(rank) << 40) ^ uint64_t(index) ^ (salt << 60)) &
        mask(type);
    if (bits != poisonWord(type))
      return bits;
  }
}

uint64_t load(DataType type, const std::vector<uint8_t> &buffer,
              int64_t index) {
  uint64_t bits = 0;
  std::memcpy(&bits, buffer.data() + size_t(index) * dataTypeSize(type),
              dataTypeSize(type));
  return bits;
}

int64_t partSize(const Program &p, int64_t count, int32_t sender,
                 int32_t part) {
  if (p.collective == Collective::AllToAllV)
    return p.sendCounts[size_t(sender) * size_t(p.numRanks) + size_t(part)];
  return collc::sched::chunkElements(count, uint32_t(p.numRanks),
                                     uint32_t(part));
}
int64_t partOffset(const Program &p, int64_t count, int32_t sender,
                   int32_t part) {
  int64_t offset = 0;
  for (int32_t q = 0; q < part; ++q)
    offset += partSize(p, count, sender, q);
  return offset;
}

int64_t inputSize(const Program &p, int64_t count, int32_t rank) {
  return p.collective == Collective::AllToAllV
             ? partOffset(p, count, rank, p.numRanks)
             : count;
}

/// Expected output of group rank `r`: bits per element, or nothing for
/// elements the postcondition leaves free (an empty `defined`).
struct Expected {
  std::vector<uint64_t> bits;
  std::vector<bool> defined;
};

} // namespace

double inputValue(DataType type, ReduceOp op, bool reducing, int32_t rank,
                  int64_t index) {
  uint64_t h = mix((uint64_t(rank) << 32) ^ uint64_t(index));
  bool f8 = type == DataType::F8E4M3FN || type == DataType::F8E5M2;
  bool small =
      type == DataType::F16 || type == DataType::BF16 || type == DataType::I8;
  if (!reducing)
    return decode(type, inputBits(type, op, false, rank, index));
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    // Every partial sum of up to 8 ranks stays exact.
    if (f8)
      return double(int64_t(h % 3) - 1);
    if (small)
      return double(int64_t(h % 11) - 5);
    return double(int64_t(h % 2001) - 1000);
  case ReduceOp::Prod: {
    // Products are powers of two (integers: wrap, which is exact too).
    static const double floats[] = {1, -1, 2, 0.5};
    static const double ints[] = {1, -1, 2};
    return isFloatingPoint(type) ? floats[h % 4] : ints[h % 3];
  }
  case ReduceOp::Min:
  case ReduceOp::Max:
    if (f8)
      return double(int64_t(h % 11) - 5);
    if (small)
      return double(int64_t(h % 201) - 100);
    return double(int64_t(h % 2001) - 1000);
  }
  return 0;
}

WorldBuffers makeBuffers(const Plan &plan, int64_t count) {
  const PlanCollective &c = plan.collectives[0];
  const Program &p = c.program;
  size_t es = dataTypeSize(c.dtype);
  bool reducing = isReducing(p.collective);
  WorldBuffers buffers;
  buffers.inputs.resize(size_t(plan.worldSize));
  buffers.outputs.resize(size_t(plan.worldSize));
  for (const auto &group : c.groups)
    for (int32_t r = 0; r < int32_t(group.size()); ++r) {
      int32_t world = group[size_t(r)];
      int64_t n = inputSize(p, count, r);
      auto &input = buffers.inputs[size_t(world)];
      input.resize(size_t(n) * es);
      for (int64_t i = 0; i < n; ++i) {
        uint64_t bits = inputBits(c.dtype, c.reduction, reducing, world, i);
        std::memcpy(input.data() + size_t(i) * es, &bits, es);
      }
      buffers.outputs[size_t(world)].assign(
          size_t(outputElements(c, r, count)) * es, kPoison);
    }
  return buffers;
}

std::vector<Status> runWorld(std::vector<std::unique_ptr<Communicator>> &comms,
                             const Plan &plan, int64_t count,
                             WorldBuffers &buffers,
                             const std::vector<int64_t> &counts) {
  const PlanCollective &c = plan.collectives[0];
  std::vector<Status> statuses(comms.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < comms.size(); ++r)
    threads.emplace_back([&, r] {
      auto &in = buffers.inputs[r];
      auto &out = buffers.outputs[r];
      statuses[r] = comms[r]->run(plan, 0, in.empty() ? nullptr : in.data(),
                                  out.empty() ? nullptr : out.data(),
                                  counts.empty() ? count : counts[r], c.dtype,
                                  c.reduction);
    });
  for (std::thread &t : threads)
    t.join();
  return statuses;
}

static Expected expectedOutput(const Plan &plan, int64_t count,
                               const std::vector<int32_t> &group, int32_t r,
                               std::string *error) {
  const PlanCollective &c = plan.collectives[0];
  const Program &p = c.program;
  DataType type = c.dtype;
  int32_t n = p.numRanks;
  bool reducing = isReducing(p.collective);
  Expected e;
  auto input = [&](int32_t s, int64_t i) {
    return inputBits(type, c.reduction, reducing, group[size_t(s)], i);
  };
  // The reduction over the group of input element i (at offset `at` of each
  // rank's input).
  auto reduced = [&](int64_t i) -> uint64_t {
    double acc = 0;
    for (int32_t s = 0; s < n; ++s) {
      double v = decode(type, input(s, i));
      if (s == 0) {
        acc = v;
        continue;
      }
      switch (c.reduction) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        acc += v;
        break;
      case ReduceOp::Prod:
        acc *= v;
        break;
      case ReduceOp::Min:
        acc = std::min(acc, v);
        break;
      case ReduceOp::Max:
        acc = std::max(acc, v);
        break;
      }
    }
    if (c.reduction != ReduceOp::Avg)
      return encode(type, acc);
    if (!isFloatingPoint(type)) {
      // The sum wraps in the type, then divides truncating toward zero.
      double wrapped = decode(type, encode(type, acc));
      return encode(type, std::trunc(wrapped / n));
    }
    if (type == DataType::F64)
      return encode(type, acc / n);
    return encode(type, double(float(acc) / float(n)));
  };
  auto push = [&](uint64_t bits, bool defined) {
    e.bits.push_back(bits);
    e.defined.push_back(defined);
  };
  switch (p.collective) {
  case Collective::AllReduce:
    for (int64_t i = 0; i < count; ++i)
      push(reduced(i), true);
    break;
  case Collective::Reduce:
    for (int64_t i = 0; i < count; ++i)
      push(r == p.root ? reduced(i) : 0, r == p.root);
    break;
  case Collective::ReduceScatter: {
    int64_t at = partOffset(p, count, 0, r);
    for (int64_t i = 0; i < partSize(p, count, 0, r); ++i)
      push(reduced(at + i), true);
    break;
  }
  case Collective::Broadcast:
    for (int64_t i = 0; i < count; ++i)
      push(input(p.root, i), true);
    break;
  case Collective::AllGather:
    for (int32_t s = 0; s < n; ++s)
      for (int64_t i = 0; i < count; ++i)
        push(input(s, i), true);
    break;
  case Collective::AllToAll:
  case Collective::AllToAllV:
    for (int32_t s = 0; s < n; ++s) {
      int64_t at = partOffset(p, count, s, r);
      for (int64_t i = 0; i < partSize(p, count, s, r); ++i)
        push(input(s, at + i), true);
    }
    break;
  default:
    *error = std::string("no reference for ") +
             collc::sched::collectiveName(p.collective);
  }
  return e;
}

std::string checkWorld(const Plan &plan, int64_t count,
                       const WorldBuffers &buffers, int32_t onlyRank) {
  const PlanCollective &c = plan.collectives[0];
  const Program &p = c.program;
  DataType type = c.dtype;
  bool reducing = isReducing(p.collective);
  std::ostringstream errors;
  int reported = 0;
  for (const auto &group : c.groups)
    for (int32_t r = 0; r < int32_t(group.size()); ++r) {
      int32_t world = group[size_t(r)];
      if (onlyRank >= 0 && world != onlyRank)
        continue;
      std::string error;
      Expected e = expectedOutput(plan, count, group, r, &error);
      if (!error.empty())
        return error;
      const auto &out = buffers.outputs[size_t(world)];
      int64_t got = int64_t(out.size() / dataTypeSize(type));
      if (got != int64_t(e.bits.size()))
        return "rank " + std::to_string(world) + ": outputElements gave " +
               std::to_string(got) + " elements, the collective defines " +
               std::to_string(e.bits.size());
      for (int64_t i = 0; i < got; ++i) {
        uint64_t bits = load(type, out, i);
        if (!e.defined[size_t(i)] || bits == e.bits[size_t(i)])
          continue;
        if (reported++ < 8)
          errors << "rank " << world << " output[" << i << "]: expected "
                 << decode(type, e.bits[size_t(i)]) << " (0x" << std::hex
                 << e.bits[size_t(i)] << "), got " << decode(type, bits)
                 << " (0x" << bits << std::dec << ")"
                 << (bits == poisonWord(type) ? ": never written" : "") << "\n";
      }
      const auto &in = buffers.inputs[size_t(world)];
      for (int64_t i = 0; i < int64_t(in.size() / dataTypeSize(type)); ++i)
        if (load(type, in, i) !=
                inputBits(type, c.reduction, reducing, world, i) &&
            reported++ < 8)
          errors << "rank " << world << " input[" << i << "] was modified\n";
    }
  if (reported > 8)
    errors << "... " << reported << " wrong elements in all\n";
  return errors.str();
}

std::string runAndCheck(const Plan &plan, int64_t count,
                        const CommOptions &options) {
  std::vector<std::unique_ptr<Communicator>> comms;
  if (Status s =
          Communicator::createInProcessGroup(plan.worldSize, options, &comms);
      !s.ok())
    return s.toString();
  WorldBuffers buffers = makeBuffers(plan, count);
  // all_to_all_v: each rank's count is its row of send counts.
  std::vector<int64_t> counts;
  const PlanCollective &c = plan.collectives[0];
  if (c.program.collective == Collective::AllToAllV)
    for (const auto &input : buffers.inputs)
      counts.push_back(int64_t(input.size() / dataTypeSize(c.dtype)));
  std::vector<Status> statuses = runWorld(comms, plan, count, buffers, counts);
  std::string failures;
  for (const Status &s : statuses)
    if (!s.ok())
      failures += s.toString() + "\n";
  if (!failures.empty())
    return failures;
  return checkWorld(plan, count, buffers);
}

Plan loadTestPlan(const std::string &name) {
  Plan plan;
  Status s =
      loadPlanFile(std::string(COLLRT_TEST_INPUTS) + "/plans/" + name, &plan);
  EXPECT_TRUE(s.ok()) << s.toString();
  return plan;
}

ExecutorWorld::ExecutorWorld(int32_t n, int32_t channelThreads)
    : fabric(createInProcessFabric(n)), states(size_t(n)),
      channelThreads(channelThreads) {
  for (int32_t r = 0; r < n; ++r)
    transports.push_back(createInProcessTransport(fabric, r));
}

std::vector<Status> ExecutorWorld::run(const Plan &plan, int64_t count,
                                       WorldBuffers &buffers, double timeout) {
  std::vector<Status> statuses(transports.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < transports.size(); ++r)
    threads.emplace_back([&, r] {
      exec::RunRequest request;
      request.collective = &plan.collectives[0];
      request.sendbuf = buffers.inputs[r].data();
      request.recvbuf = buffers.outputs[r].data();
      request.count = count;
      request.deadline = Deadline::after(timeout);
      request.timeoutSeconds = timeout;
      request.channelThreads = channelThreads;
      statuses[r] = exec::runCollective(*transports[r], states[r], request);
    });
  for (auto &t : threads)
    t.join();
  return statuses;
}

} // namespace testing
} // namespace collrt
