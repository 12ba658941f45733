//===- TestData.cpp - position-dependent inputs of collc-run --check ------===//
#include "runtime/check/TestData.h"

#include "runtime/check/ElementCodec.h"
#include "runtime/check/InputHash.h"
#include "runtime/check/TypedElement.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace collrt {
namespace check {

using collc::sched::Collective;

bool reduces(Collective collective) {
  return collective == Collective::AllReduce ||
         collective == Collective::ReduceScatter ||
         collective == Collective::Reduce;
}

namespace {
uint64_t typeMask(DataType type) {
  size_t size = dataTypeSize(type);
  return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

template <typename E>
inline void store(unsigned char *out, int64_t i, typename E::Storage bits) {
  std::memcpy(out + size_t(i) * sizeof bits, &bits, sizeof bits);
}

/// A Bits or Ordered element's candidate pattern from a hash: its low bits
/// (64-bit integers of Ordered: [-2^52, 2^52), exact in a double).
template <typename E>
inline typename E::Storage candidateOf(uint64_t h, bool ordered) {
  if (std::is_same<E, typed::Element<DataType::I64>>::value && ordered)
    return static_cast<typename E::Storage>(static_cast<int64_t>(h) >> 11);
  return static_cast<typename E::Storage>(h);
}

/// Whether a candidate may be an input: never the poison nor a NaN; for
/// Ordered, also finite, normal and not -0 (min(-0, +0) may be either).
template <typename E>
inline bool acceptable(typename E::Storage c, bool ordered,
                       typename E::Storage poison) {
  // Without early returns, so that the loop over a block vectorizes.
  bool ok = c != poison;
  if constexpr (E::kFloat) {
    ok &= !E::isNaN(c);
    if (ordered)
      ok &= !E::isInf(c) & (c != E::kSign) & !E::isSubnormal(c);
  }
  return ok;
}

/// The rare redraw of a rejected candidate: mix again until acceptable (a
/// few tries at most: NaNs are 1/128 of f16 patterns, subnormals 1/32; more
/// for f8).
template <typename E>
__attribute__((noinline)) typename E::Storage
drawAgain(uint64_t h, bool ordered, typename E::Storage poison) {
  for (;;) {
    h = mix(h + kIndexStep);
    typename E::Storage c = candidateOf<E>(h, ordered);
    if (acceptable<E>(c, ordered, poison))
      return c;
  }
}
} // namespace

TestData::TestData(const collc::sched::Program &program, DataType type,
                   ReduceOp op, uint64_t iteration)
    : TestData(program, type, op, iteration, nullptr) {}

TestData::TestData(const collc::sched::Program &program, DataType type,
                   ReduceOp op, uint64_t iteration, const int64_t *sendCounts)
    : program_(program),
      sendCounts_(sendCounts                   ? sendCounts
                  : program.sendCounts.empty() ? nullptr
                                               : program.sendCounts.data()),
      type_(type), op_(op), iteration_(iteration), domain_(Domain::Bits) {
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
    modulus_ = uint64_t(2 * range_ + 1);
    reciprocal_ = ~uint64_t(0) / modulus_;
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

int64_t TestData::sumValue(uint64_t h) const {
  // q <= h / m and h - q m < 3 m: at most two corrections.
  __extension__ using Wide = unsigned __int128;
  uint64_t q = static_cast<uint64_t>((Wide(h) * reciprocal_) >> 64);
  uint64_t r = h - q * modulus_;
  while (r >= modulus_)
    r -= modulus_;
  return static_cast<int64_t>(r) - range_;
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

namespace {
/// Hashes computed at a time (kept in the L1 cache).
constexpr int64_t kHashBlock = 512;
} // namespace

template <typename E>
void TestData::fillBitsAs(int32_t rank, int64_t begin, int64_t count,
                          unsigned char *out) const {
  using S = typename E::Storage;
  const int64_t n = std::max<int32_t>(program_.numRanks, 1);
  // Sum: rank `rank` is nonzero where (rank - index) mod n < A. Product:
  // rank index mod n holds the +-2 or +-0.5.
  int64_t offset = ((int64_t(rank) - begin) % n + n) % n;
  int64_t position = begin % n;
  // Product: [negative][+-1, +-2, +-0.5].
  const S patterns[2][3] = {
      {E::encode(1.0), E::encode(2.0), E::encode(0.5)},
      {E::encode(-1.0), E::encode(-2.0), E::encode(-0.5)}};
  const bool ordered = domain_ == Domain::Ordered;
  const S poison = static_cast<S>(poisonBits(type_));
  uint64_t h[kHashBlock];
  for (int64_t done = 0; done < count; done += kHashBlock) {
    const int64_t b = std::min(kHashBlock, count - done);
    const int64_t at = begin + done;
    hashElements(elementKey(rank, at, iteration_), at, b, h);
    unsigned char *dst = out + size_t(done) * sizeof(S);
    switch (domain_) {
    case Domain::Sum:
      for (int64_t i = 0; i < b; ++i) {
        int64_t v = offset < activeRanks_ ? sumValue(h[i]) : 0;
        store<E>(dst, i, E::encode(static_cast<double>(v)));
        offset = offset == 0 ? n - 1 : offset - 1;
      }
      break;
    case Domain::Product:
      for (int64_t i = 0; i < b; ++i) {
        int kind = position != rank ? 0 : (E::kFloat && (h[i] & 2)) ? 2 : 1;
        store<E>(dst, i, patterns[h[i] & 1][kind]);
        position = position + 1 == n ? 0 : position + 1;
      }
      break;
    case Domain::Bits:
    case Domain::Ordered: {
      // Every candidate first, in a loop that vectorizes (into a local
      // array: `dst` may alias anything), then the rare redraws.
      S candidates[kHashBlock];
      unsigned char rejected[kHashBlock];
      for (int64_t i = 0; i < b; ++i) {
        S c = candidateOf<E>(h[i], ordered);
        candidates[i] = c;
        rejected[i] = !acceptable<E>(c, ordered, poison);
      }
      // A few per block at most: found with memchr, which is vectorized.
      for (const void *at = std::memchr(rejected, 1, size_t(b)); at;
           at = std::memchr(static_cast<const unsigned char *>(at) + 1, 1,
                            size_t(rejected + b -
                                   static_cast<const unsigned char *>(at) -
                                   1))) {
        size_t i = size_t(static_cast<const unsigned char *>(at) - rejected);
        candidates[i] = drawAgain<E>(h[i], ordered, poison);
      }
      std::memcpy(dst, candidates, size_t(b) * sizeof(S));
      break;
    }
    }
  }
}

template <typename E>
void TestData::fillValuesAs(int32_t rank, int64_t begin, int64_t count,
                            double *out) const {
  if (domain_ == Domain::Bits || domain_ == Domain::Ordered) {
    using S = typename E::Storage;
    S bits[kHashBlock];
    for (int64_t done = 0; done < count; done += kHashBlock) {
      int64_t b = std::min(kHashBlock, count - done);
      fillBitsAs<E>(rank, begin + done, b,
                    reinterpret_cast<unsigned char *>(bits));
      for (int64_t i = 0; i < b; ++i)
        out[done + i] = E::decode(bits[i]);
    }
    return;
  }
  const int64_t n = std::max<int32_t>(program_.numRanks, 1);
  int64_t offset = ((int64_t(rank) - begin) % n + n) % n;
  int64_t position = begin % n;
  uint64_t h[kHashBlock];
  for (int64_t done = 0; done < count; done += kHashBlock) {
    const int64_t b = std::min(kHashBlock, count - done);
    const int64_t at = begin + done;
    hashElements(elementKey(rank, at, iteration_), at, b, h);
    double *dst = out + done;
    if (domain_ == Domain::Sum) {
      for (int64_t i = 0; i < b; ++i) {
        int64_t v = offset < activeRanks_ ? sumValue(h[i]) : 0;
        dst[i] = static_cast<double>(v);
        offset = offset == 0 ? n - 1 : offset - 1;
      }
    } else {
      for (int64_t i = 0; i < b; ++i) {
        double sign = (h[i] & 1) ? -1.0 : 1.0;
        dst[i] = position != rank            ? sign
                 : (E::kFloat && (h[i] & 2)) ? sign * 0.5
                                             : sign * 2.0;
        position = position + 1 == n ? 0 : position + 1;
      }
    }
  }
}

void TestData::fillBits(int32_t rank, int64_t begin, int64_t count,
                        void *out) const {
  typed::visitType(type_, [&](auto element) {
    fillBitsAs<decltype(element)>(rank, begin, count,
                                  static_cast<unsigned char *>(out));
  });
}

void TestData::fillValues(int32_t rank, int64_t begin, int64_t count,
                          double *out) const {
  typed::visitType(type_, [&](auto element) {
    fillValuesAs<decltype(element)>(rank, begin, count, out);
  });
}

double TestData::value(int32_t rank, int64_t index) const {
  double v = 0;
  fillValues(rank, index, 1, &v);
  return v;
}

uint64_t TestData::bits(int32_t rank, int64_t index) const {
  uint64_t slot = 0; // little-endian: the element is the low bytes
  fillBits(rank, index, 1, &slot);
  return slot;
}

void TestData::fillInput(int32_t rank, void *data, int64_t elements) const {
  fillBits(rank, 0, elements, data);
}

} // namespace check
} // namespace collrt
