//===- TestData.cpp - position-dependent inputs of collc-run --check ------===//
#include "runtime/check/TestData.h"

#include "runtime/check/ElementCodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace collrt {
namespace check {

using collc::sched::Collective;

bool reduces(Collective collective) {
  return collective == Collective::AllReduce ||
         collective == Collective::ReduceScatter ||
         collective == Collective::Reduce;
}

namespace {
/// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

uint64_t typeMask(DataType type) {
  size_t size = dataTypeSize(type);
  return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}
} // namespace

TestData::TestData(const collc::sched::Program &program, DataType type,
                   ReduceOp op, uint64_t iteration)
    : program_(program), type_(type), op_(op), iteration_(iteration),
      domain_(Domain::Bits) {
  if (!reduces(program.collective))
    return;
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg: {
    domain_ = Domain::Sum;
    int64_t n = std::max<int32_t>(program.numRanks, 1);
    double limit = exactIntegerLimit(type);
    activeRanks_ = std::min<int64_t>(n, static_cast<int64_t>(limit));
    range_ = std::min<int64_t>(
        static_cast<int64_t>(std::floor(limit / double(activeRanks_))),
        int64_t(1) << 20);
    break;
  }
  case ReduceOp::Prod:
    domain_ = Domain::Product;
    break;
  case ReduceOp::Min:
  case ReduceOp::Max:
    domain_ = Domain::Ordered;
    break;
  }
}

uint64_t TestData::hash(int32_t rank, int64_t index) const {
  uint64_t key = static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL +
                 (static_cast<uint64_t>(rank) + 1) * 0xc2b2ae3d27d4eb4fULL +
                 (iteration_ + 1) * 0x165667b19e3779f9ULL;
  return mix(mix(key) + static_cast<uint64_t>(index));
}

uint64_t TestData::poisonBits(DataType type) {
  return (isFloatingPoint(type) ? 0xffffffffffffffffULL
                                : 0xa5a5a5a5a5a5a5a5ULL) &
         typeMask(type);
}

void TestData::poison(DataType type, void *data, int64_t elements) {
  std::memset(data, isFloatingPoint(type) ? 0xff : 0xa5,
              size_t(elements) * dataTypeSize(type));
}

double TestData::value(int32_t rank, int64_t index) const {
  uint64_t h = hash(rank, index);
  int64_t n = std::max<int32_t>(program_.numRanks, 1);
  switch (domain_) {
  case Domain::Sum: {
    int64_t offset = ((int64_t(rank) - index) % n + n) % n;
    if (offset >= activeRanks_)
      return 0;
    return static_cast<double>(
        static_cast<int64_t>(h % uint64_t(2 * range_ + 1)) - range_);
  }
  case Domain::Product: {
    double sign = (h & 1) ? -1.0 : 1.0;
    if (index % n != rank)
      return sign;
    if (isFloatingPoint(type_) && (h & 2))
      return sign * 0.5;
    return sign * 2.0;
  }
  case Domain::Ordered:
  case Domain::Bits: {
    uint64_t slot = bits(rank, index);
    return loadElement(type_, &slot, 0);
  }
  }
  return 0;
}

uint64_t TestData::bits(int32_t rank, int64_t index) const {
  if (domain_ == Domain::Sum || domain_ == Domain::Product) {
    uint64_t slot = 0;
    storeElement(type_, &slot, 0, value(rank, index));
    return slot;
  }
  uint64_t mask = typeMask(type_);
  uint64_t poisonPattern = poisonBits(type_);
  uint64_t h = hash(rank, index);
  // Draw until the pattern is acceptable: a few tries at most (NaNs are
  // 1/128 of f16 patterns, subnormals 1/32; more for f8).
  for (;; h = mix(h + 0x9e3779b97f4a7c15ULL)) {
    uint64_t candidate = h & mask;
    if (type_ == DataType::I64 && domain_ == Domain::Ordered)
      // Keep 64-bit integers exact in a double: [-2^52, 2^52).
      candidate = static_cast<uint64_t>(static_cast<int64_t>(h) >> 11);
    if (candidate == poisonPattern)
      continue;
    if (!isFloatingPoint(type_))
      return candidate;
    uint64_t slot = candidate;
    double v = loadElement(type_, &slot, 0);
    if (std::isnan(v))
      continue;
    if (domain_ == Domain::Ordered) {
      // Finite and normal, and no -0 (min(-0, +0) may be either).
      if (std::isinf(v) || (std::signbit(v) && v == 0))
        continue;
      if (v != 0 && std::fabs(v) < smallestNormal(type_))
        continue;
    }
    return candidate;
  }
}

void TestData::fillInput(int32_t rank, void *data, int64_t elements) const {
  for (int64_t i = 0; i < elements; ++i)
    storeBits(type_, data, i, bits(rank, i));
}

} // namespace check
} // namespace collrt
