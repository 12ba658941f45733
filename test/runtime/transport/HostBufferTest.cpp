//===- HostBufferTest.cpp - collrt::allocateHostBuffer --------------------===//
//
// The allocator's contract (page-aligned, writable, found by address, freed
// once), and mapPeerHostBuffer on this process's own buffers: a mapping
// sees the owner's writes and its free, and a key that names another buffer
// (or no descriptor) is refused with the reason. Across processes:
// SingleCopyTest.cpp (HostBuffersAreMappedWithoutProcessVmReadv).
//
//===----------------------------------------------------------------------===//
#include "transport/HostBuffers.h"

#include "collrt/collrt.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>

namespace collrt {
namespace test {
namespace {

using transport::findHostBuffer;
using transport::mapPeerHostBuffer;
using transport::PeerHostBuffer;

TEST(HostBuffer, AllocateFindFree) {
  void *p = nullptr;
  Status s = allocateHostBuffer(10000, &p);
  ASSERT_TRUE(s.ok()) << s.toString();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % size_t(::sysconf(_SC_PAGESIZE)),
            0u);
  std::memset(p, 0x5a, 10000);
  char *c = static_cast<char *>(p);
  uint64_t key = 0, offset = 0;
  ASSERT_TRUE(findHostBuffer(c + 100, 200, &key, &offset));
  EXPECT_EQ(offset, 100u);
  EXPECT_NE(key, 0u);
  EXPECT_TRUE(findHostBuffer(c, 10000, &key, &offset));
  EXPECT_TRUE(findHostBuffer(c + 9999, 1, &key, &offset));
  // Past the bytes asked for, though inside the mapping's last page.
  EXPECT_FALSE(findHostBuffer(c + 9999, 2, &key, &offset));
  int local = 0;
  EXPECT_FALSE(findHostBuffer(&local, sizeof local, &key, &offset));

  // Two buffers: each found as itself, with its own key.
  void *q = nullptr;
  ASSERT_TRUE(allocateHostBuffer(1, &q).ok());
  uint64_t keyQ = 0;
  ASSERT_TRUE(findHostBuffer(q, 1, &keyQ, &offset));
  EXPECT_NE(keyQ, key);
  EXPECT_EQ(offset, 0u);

  EXPECT_TRUE(freeHostBuffer(p).ok());
  EXPECT_FALSE(findHostBuffer(c + 100, 200, &key, &offset));
  s = freeHostBuffer(p);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("freeHostBuffer of an address that "
                             "allocateHostBuffer did not return, or that was "
                             "freed already"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(freeHostBuffer(&local).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(freeHostBuffer(nullptr).ok());
  EXPECT_TRUE(freeHostBuffer(q).ok());
}

TEST(HostBuffer, BadRequestsAreRefused) {
  void *p = reinterpret_cast<void *>(1);
  Status s = allocateHostBuffer(0, &p);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "allocateHostBuffer of 0 bytes");
  EXPECT_EQ(p, nullptr);
  s = allocateHostBuffer(16, nullptr);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  s = allocateHostBuffer(SIZE_MAX / 2, &p);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("more than this process can map"),
            std::string::npos)
      << s.message();
}

TEST(HostBuffer, AMappingSeesWritesAndTheFree) {
  void *p = nullptr;
  ASSERT_TRUE(allocateHostBuffer(3 * 4096 + 5, &p).ok());
  char *c = static_cast<char *>(p);
  for (size_t i = 0; i < 3 * 4096 + 5; ++i)
    c[i] = char(i * 7);
  uint64_t key = 0, offset = 0;
  ASSERT_TRUE(findHostBuffer(p, 1, &key, &offset));
  std::shared_ptr<const PeerHostBuffer> mapped;
  Status s = mapPeerHostBuffer(::getpid(), key, &mapped);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_NE(mapped->data(), c);
  EXPECT_EQ(mapped->bytes(), 3u * 4096 + 5);
  EXPECT_EQ(std::memcmp(mapped->data(), c, 3 * 4096 + 5), 0);
  c[4097] = 42;
  EXPECT_EQ(mapped->data()[4097], 42);
  EXPECT_FALSE(mapped->freed());
  ASSERT_TRUE(freeHostBuffer(p).ok());
  // The pages stay readable through the mapping, which says they are freed.
  EXPECT_TRUE(mapped->freed());
  EXPECT_EQ(mapped->data()[4097], 42);
}

TEST(HostBuffer, AKeyThatNamesAnotherBufferIsRefused) {
  void *p = nullptr;
  ASSERT_TRUE(allocateHostBuffer(64, &p).ok());
  uint64_t key = 0, offset = 0;
  ASSERT_TRUE(findHostBuffer(p, 64, &key, &offset));
  std::shared_ptr<const PeerHostBuffer> mapped;
  // The same descriptor, another buffer's counter.
  Status s = mapPeerHostBuffer(::getpid(), key ^ 0x80000000u, &mapped);
  EXPECT_EQ(s.code(), ErrorCode::SystemError);
  EXPECT_NE(s.message().find("it is not the host buffer the message named"),
            std::string::npos)
      << s.message();
  // A descriptor that is not a host buffer's: stdin, or none at all.
  s = mapPeerHostBuffer(::getpid(), (uint64_t(0) << 32) | 1, &mapped);
  EXPECT_EQ(s.code(), ErrorCode::SystemError);
  s = mapPeerHostBuffer(::getpid(), (uint64_t(1000000) << 32) | 1, &mapped);
  EXPECT_EQ(s.code(), ErrorCode::SystemError);
  EXPECT_NE(s.message().find("/proc/" + std::to_string(::getpid()) +
                             "/fd/1000000): open: No such file or directory"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(freeHostBuffer(p).ok());
}

} // namespace
} // namespace test
} // namespace collrt
