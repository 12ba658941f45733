//===- DeviceArithTest.cpp - the device arithmetic is the CPU executor's --===//
//
// collrt/device/DeviceArith.h is what the GPU and the emulator compute with;
// it must be bit-exact with runtime/exec's ElementKernels (whose narrow
// formats, NarrowFloat.h, are DeviceArith.h's own): every type x reduction
// and avg's division on random bits (a sum or product of two NaNs only has
// to be a NaN).
//
//===----------------------------------------------------------------------===//
#include "collrt/device/DeviceArith.h"

#include "runtime/check/ElementCodec.h"
#include "runtime/exec/ElementKernels.h"
#include "runtime/exec/NarrowFloat.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace collrt {
namespace testing {
namespace {

namespace arith = collrt::dev::arith;

// The narrow formats are one code (NarrowFloat.h names DeviceArith.h's);
// NarrowFloatTest checks them against the formats' definitions.
static_assert(std::is_same_v<arith::F16, exec::F16Format> &&
                  std::is_same_v<arith::BF16, exec::BF16Format> &&
                  std::is_same_v<arith::F8E4M3FN, exec::F8E4M3FNFormat> &&
                  std::is_same_v<arith::F8E5M2, exec::F8E5M2Format>,
              "the CPU executor's narrow formats are the device runtime's");

template <class Element>
void combineAll(arith::Op op, void *dst, const void *a, const void *b,
                size_t n) {
  using S = typename Element::Storage;
  S *d = static_cast<S *>(dst);
  const S *x = static_cast<const S *>(a), *y = static_cast<const S *>(b);
  for (size_t i = 0; i < n; ++i) {
    switch (op) {
    case arith::Op::Sum:
      d[i] = arith::combine<Element, arith::Op::Sum>(x[i], y[i]);
      break;
    case arith::Op::Prod:
      d[i] = arith::combine<Element, arith::Op::Prod>(x[i], y[i]);
      break;
    case arith::Op::Min:
      d[i] = arith::combine<Element, arith::Op::Min>(x[i], y[i]);
      break;
    case arith::Op::Max:
      d[i] = arith::combine<Element, arith::Op::Max>(x[i], y[i]);
      break;
    }
  }
}

template <class Element> void divideAll(void *data, size_t n, int64_t divisor) {
  using S = typename Element::Storage;
  S *d = static_cast<S *>(data);
  for (size_t i = 0; i < n; ++i)
    d[i] = arith::divide<Element>(d[i], divisor);
}

std::string hex(const uint8_t *bytes, size_t n) {
  std::string text = "0x";
  const char *digits = "0123456789abcdef";
  for (size_t i = n; i-- > 0;) {
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 15];
  }
  return text;
}

/// Whether both operands are NaN: which one's payload (and, once rounded
/// to a narrow type, sign) a sum or product keeps is the compiler's choice
/// (it may commute the operands) and a GPU's (canonical NaN), not a rule.
bool bothNaN(DataType type, const uint8_t *a, const uint8_t *b) {
  return check::isNaNBits(type, check::loadBits(type, a, 0)) &&
         check::isNaNBits(type, check::loadBits(type, b, 0));
}

struct Typed {
  DataType type;
  void (*combine)(arith::Op, void *, const void *, const void *, size_t);
  void (*divide)(void *, size_t, int64_t);
};

TEST(DeviceArithTest, ReductionsAndDivisionAreElementKernels) {
  const Typed types[] = {
      {DataType::F64, combineAll<arith::Plain<double>>,
       divideAll<arith::Plain<double>>},
      {DataType::F32, combineAll<arith::Plain<float>>,
       divideAll<arith::Plain<float>>},
      {DataType::F16, combineAll<arith::Narrow<arith::F16>>,
       divideAll<arith::Narrow<arith::F16>>},
      {DataType::BF16, combineAll<arith::Narrow<arith::BF16>>,
       divideAll<arith::Narrow<arith::BF16>>},
      {DataType::F8E4M3FN, combineAll<arith::Narrow<arith::F8E4M3FN>>,
       divideAll<arith::Narrow<arith::F8E4M3FN>>},
      {DataType::F8E5M2, combineAll<arith::Narrow<arith::F8E5M2>>,
       divideAll<arith::Narrow<arith::F8E5M2>>},
      {DataType::I64, combineAll<arith::Plain<int64_t>>,
       divideAll<arith::Plain<int64_t>>},
      {DataType::I32, combineAll<arith::Plain<int32_t>>,
       divideAll<arith::Plain<int32_t>>},
      {DataType::I8, combineAll<arith::Plain<int8_t>>,
       divideAll<arith::Plain<int8_t>>},
  };
  const std::pair<ReduceOp, arith::Op> ops[] = {
      {ReduceOp::Sum, arith::Op::Sum},
      {ReduceOp::Prod, arith::Op::Prod},
      {ReduceOp::Min, arith::Op::Min},
      {ReduceOp::Max, arith::Op::Max}};
  std::mt19937_64 random(3);
  const size_t n = 1 << 14;
  for (const Typed &t : types) {
    size_t bytes = n * dataTypeSize(t.type);
    std::vector<uint8_t> a(bytes), b(bytes), cpu(bytes), device(bytes);
    for (int round = 0; round < 4; ++round) {
      for (size_t i = 0; i < bytes; ++i) {
        a[i] = uint8_t(random());
        // Round 0 also combines equal values (ties of min/max, x - x).
        b[i] = round == 0 && i % 3 == 0 ? a[i] : uint8_t(random());
      }
      for (const auto &op : ops) {
        exec::reduceElements(t.type, op.first, cpu.data(), a.data(), b.data(),
                             n);
        t.combine(op.second, device.data(), a.data(), b.data(), n);
        size_t e = dataTypeSize(t.type);
        for (size_t i = 0; i < n; ++i)
          ASSERT_TRUE(std::memcmp(&cpu[i * e], &device[i * e], e) == 0 ||
                      bothNaN(t.type, &a[i * e], &b[i * e]))
              << dataTypeName(t.type) << " " << reduceOpName(op.first)
              << " element " << i << ": " << hex(&a[i * e], e) << " (op) "
              << hex(&b[i * e], e) << " = " << hex(&cpu[i * e], e)
              << " (CPU executor), " << hex(&device[i * e], e) << " (device)";
      }
      for (int64_t divisor : {1, 3, 8, 1000}) {
        cpu = a;
        device = a;
        exec::divideElements(t.type, cpu.data(), n, divisor);
        t.divide(device.data(), n, divisor);
        ASSERT_EQ(cpu, device) << dataTypeName(t.type) << " / " << divisor;
      }
    }
  }
}

} // namespace
} // namespace testing
} // namespace collrt
