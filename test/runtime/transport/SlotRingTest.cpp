//===- SlotRingTest.cpp - a connection's slots ----------------------------===//
//
// SlotRing (runtime/transport/SlotRing.h) holds a connection's messages in
// its slots in order; a slot's buffer grows to the largest message it held,
// and a free slot lends its buffer to the next message instead of a second
// buffer growing: a connection holds as many large buffers as it has large
// messages in flight, not one per slot.
//
//===----------------------------------------------------------------------===//
#include "transport/SlotRing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using collrt::transport::SlotRing;

std::string text(const void *data, size_t bytes) {
  return std::string(static_cast<const char *>(data), bytes);
}

TEST(SlotRingTest, MessagesComeOutInOrderUntilTheSlotsAreFull) {
  SlotRing ring(3);
  for (const char *m : {"a", "bb", "ccc"})
    EXPECT_TRUE(ring.tryPush(m, std::string(m).size()));
  EXPECT_FALSE(ring.tryPush("d", 1));
  for (const char *m : {"a", "bb", "ccc"}) {
    const void *data = nullptr;
    size_t bytes = 0;
    ASSERT_TRUE(ring.front(&data, &bytes));
    EXPECT_EQ(text(data, bytes), m);
    EXPECT_TRUE(ring.pop());
  }
  const void *data = nullptr;
  size_t bytes = 0;
  EXPECT_FALSE(ring.front(&data, &bytes));
  EXPECT_FALSE(ring.pop());
}

TEST(SlotRingTest, AFreeSlotLendsItsBufferToTheNextLargeMessage) {
  SlotRing ring(8);
  const size_t large = size_t(1) << 20;
  std::vector<char> payload(large, 'x');
  // One large message at a time: every one lands in the same buffer, which
  // moves from slot to slot.
  char *first = ring.reserve(large);
  std::copy(payload.begin(), payload.end(), first);
  ring.commit();
  for (int i = 0; i < 20; ++i) {
    const void *data = nullptr;
    size_t bytes = 0;
    ASSERT_TRUE(ring.front(&data, &bytes));
    ASSERT_EQ(bytes, large);
    EXPECT_EQ(static_cast<const char *>(data)[large - 1], 'x');
    ASSERT_TRUE(ring.pop());
    char *next = ring.reserve(large);
    EXPECT_EQ(next, first) << "message " << i + 1;
    next[large - 1] = 'x';
    ring.commit();
  }
  // Two in flight: the second needs a buffer of its own.
  char *second = ring.reserve(large);
  EXPECT_NE(second, first);
  ring.commit();
  // Small messages keep whatever buffer their slot has.
  const void *data = nullptr;
  size_t bytes = 0;
  ASSERT_TRUE(ring.front(&data, &bytes));
  ASSERT_TRUE(ring.pop());
  ASSERT_TRUE(ring.front(&data, &bytes));
  ASSERT_TRUE(ring.pop());
  EXPECT_TRUE(ring.tryPush("small", 5));
  ASSERT_TRUE(ring.front(&data, &bytes));
  EXPECT_EQ(text(data, bytes), "small");
}

} // namespace
