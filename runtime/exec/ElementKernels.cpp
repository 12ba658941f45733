//===- ElementKernels.cpp - reductions and avg's division, per type -------===//
#include "runtime/exec/ElementKernels.h"

#include "runtime/exec/NarrowFloat.h"

#include <type_traits>

namespace collrt {
namespace exec {

namespace {

/// How an element type is stored and computed with: f64, f32 and the
/// integers compute in their own type, the narrow floats in f32.
template <class T> struct PlainElement {
  using Storage = T;
  using Compute = T;
  static Compute load(Storage v) { return v; }
  static Storage store(Compute v) { return v; }
};

template <class Format> struct NarrowElement {
  using Storage = typename Format::Storage;
  using Compute = float;
  static Compute load(Storage v) { return Format::decode(v); }
  static Storage store(Compute v) { return Format::encode(v); }
};

template <class T> T wrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return T(U(U(a) + U(b)));
  } else {
    return a + b;
  }
}

template <class T> T wrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // uint8_t operands promote to int; their product fits it.
    return T(U(U(a) * U(b)));
  } else {
    return a * b;
  }
}

/// NaN-propagating min and max (a NaN operand wins; a != a only for NaN).
template <class T> T minOf(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return b < a ? b : a;
  else
    return (a != a || a < b) ? a : b;
}
template <class T> T maxOf(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return b > a ? b : a;
  else
    return (a != a || a > b) ? a : b;
}

struct SumOp {
  template <class T> static T apply(T a, T b) { return wrappingAdd(a, b); }
};
struct ProdOp {
  template <class T> static T apply(T a, T b) { return wrappingMul(a, b); }
};
struct MinOp {
  template <class T> static T apply(T a, T b) { return minOf(a, b); }
};
struct MaxOp {
  template <class T> static T apply(T a, T b) { return maxOf(a, b); }
};

template <class Element, class Op>
void reduceLoop(void *dst, const void *a, const void *b, size_t n) {
  using S = typename Element::Storage;
  S *d = static_cast<S *>(dst);
  const S *x = static_cast<const S *>(a);
  const S *y = static_cast<const S *>(b);
  for (size_t i = 0; i < n; ++i)
    d[i] = Element::store(Op::apply(Element::load(x[i]), Element::load(y[i])));
}

template <class Element>
void reduceTyped(ReduceOp op, void *dst, const void *a, const void *b,
                 size_t n) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    return reduceLoop<Element, SumOp>(dst, a, b, n);
  case ReduceOp::Prod:
    return reduceLoop<Element, ProdOp>(dst, a, b, n);
  case ReduceOp::Min:
    return reduceLoop<Element, MinOp>(dst, a, b, n);
  case ReduceOp::Max:
    return reduceLoop<Element, MaxOp>(dst, a, b, n);
  }
}

template <class Element>
void divideTyped(void *data, size_t n, int64_t divisor) {
  using S = typename Element::Storage;
  using C = typename Element::Compute;
  S *d = static_cast<S *>(data);
  if constexpr (std::is_integral_v<C>) {
    // In int64_t: the divisor may not fit the element type (i8, 1024 ranks).
    for (size_t i = 0; i < n; ++i)
      d[i] = S(int64_t(d[i]) / divisor);
  } else {
    C by = C(divisor);
    for (size_t i = 0; i < n; ++i)
      d[i] = Element::store(Element::load(d[i]) / by);
  }
}

} // namespace

void reduceElements(DataType type, ReduceOp op, void *dst, const void *a,
                    const void *b, size_t n) {
  switch (type) {
  case DataType::F64:
    return reduceTyped<PlainElement<double>>(op, dst, a, b, n);
  case DataType::F32:
    return reduceTyped<PlainElement<float>>(op, dst, a, b, n);
  case DataType::F16:
    return reduceTyped<NarrowElement<F16Format>>(op, dst, a, b, n);
  case DataType::BF16:
    return reduceTyped<NarrowElement<BF16Format>>(op, dst, a, b, n);
  case DataType::F8E4M3FN:
    return reduceTyped<NarrowElement<F8E4M3FNFormat>>(op, dst, a, b, n);
  case DataType::F8E5M2:
    return reduceTyped<NarrowElement<F8E5M2Format>>(op, dst, a, b, n);
  case DataType::I64:
    return reduceTyped<PlainElement<int64_t>>(op, dst, a, b, n);
  case DataType::I32:
    return reduceTyped<PlainElement<int32_t>>(op, dst, a, b, n);
  case DataType::I8:
    return reduceTyped<PlainElement<int8_t>>(op, dst, a, b, n);
  }
}

void divideElements(DataType type, void *data, size_t n, int64_t divisor) {
  switch (type) {
  case DataType::F64:
    return divideTyped<PlainElement<double>>(data, n, divisor);
  case DataType::F32:
    return divideTyped<PlainElement<float>>(data, n, divisor);
  case DataType::F16:
    return divideTyped<NarrowElement<F16Format>>(data, n, divisor);
  case DataType::BF16:
    return divideTyped<NarrowElement<BF16Format>>(data, n, divisor);
  case DataType::F8E4M3FN:
    return divideTyped<NarrowElement<F8E4M3FNFormat>>(data, n, divisor);
  case DataType::F8E5M2:
    return divideTyped<NarrowElement<F8E5M2Format>>(data, n, divisor);
  case DataType::I64:
    return divideTyped<PlainElement<int64_t>>(data, n, divisor);
  case DataType::I32:
    return divideTyped<PlainElement<int32_t>>(data, n, divisor);
  case DataType::I8:
    return divideTyped<PlainElement<int8_t>>(data, n, divisor);
  }
}

} // namespace exec
} // namespace collrt
