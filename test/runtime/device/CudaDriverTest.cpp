//===- CudaDriverTest.cpp - the CUDA executor without a GPU ---------------===//
//
// The driver ABI the executor declares itself (CudaDriver.h) against cuda.h
// where the toolkit is installed; every entry point without a GPU returns
// Unsupported with the reason (skipped, saying so, where a GPU exists: the
// GPU runs are bench/gpu/run.sh's); the traffic model and the aligned tiles
// of the layout.
//
//===----------------------------------------------------------------------===//
#include "collrt/GpuCommunicator.h"
#include "runtime/device/CudaExecutor.h"

#include "Schedules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <type_traits>

#if defined(COLLRT_HAVE_CUDA_H)
#include <cuda.h>
#endif

namespace collrt {
namespace testing {
namespace {

using ::testing::HasSubstr;

#if defined(COLLRT_HAVE_CUDA_H)
TEST(CudaDriverTest, ConstantsAreCudaH) {
  static_assert(dev::cu::kSuccess == CUDA_SUCCESS);
  static_assert(dev::cu::kNotReady == CUDA_ERROR_NOT_READY);
  static_assert(dev::cu::kAttrMultiprocessorCount ==
                CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  static_assert(dev::cu::kAttrCanMapHostMemory ==
                CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  static_assert(dev::cu::kAttrUnifiedAddressing ==
                CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  static_assert(dev::cu::kAttrComputeCapabilityMajor ==
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  static_assert(dev::cu::kAttrComputeCapabilityMinor ==
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  static_assert(dev::cu::kFuncMaxThreadsPerBlock ==
                CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  static_assert(dev::cu::kFuncLocalSizeBytes ==
                CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  static_assert(dev::cu::kFuncNumRegs == CU_FUNC_ATTRIBUTE_NUM_REGS);
  static_assert(dev::cu::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
  static_assert(dev::cu::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
  static_assert(dev::cu::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
  static_assert(dev::cu::kEventDefault == CU_EVENT_DEFAULT);
  static_assert(dev::cu::kStreamCaptureModeRelaxed ==
                CU_STREAM_CAPTURE_MODE_RELAXED);
  static_assert(sizeof(dev::cu::DevicePtr) == sizeof(CUdeviceptr));
  static_assert(sizeof(dev::cu::Device) == sizeof(CUdevice));
  static_assert(sizeof(dev::cu::IpcMemHandle) == sizeof(CUipcMemHandle));
  static_assert(sizeof(dev::cu::IpcMemHandle) ==
                sizeof(dev::ArenaEntry::handle));
  static_assert(dev::cu::kIpcMemLazyEnablePeerAccess ==
                CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  // Peer access (several GPUs in one process).
  static_assert(dev::cu::kPeerAccessAlreadyEnabled ==
                CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  static_assert(sizeof(dev::cu::Context) == sizeof(CUcontext));
  // The entry points' parameters, as the driver table declares them.
  using CanAccessPeer = decltype(&::cuDeviceCanAccessPeer);
  using EnablePeerAccess = decltype(&::cuCtxEnablePeerAccess);
  static_assert(
      std::is_same_v<CanAccessPeer, CUresult (*)(int *, CUdevice, CUdevice)>);
  static_assert(
      std::is_same_v<EnablePeerAccess, CUresult (*)(CUcontext, unsigned)>);
  static_assert(std::is_same_v<decltype(dev::CudaDriver::cuDeviceCanAccessPeer),
                               dev::cu::Result (*)(int *, dev::cu::Device,
                                                   dev::cu::Device)>);
  static_assert(std::is_same_v<CUdevice, dev::cu::Device>);
  // Host-memory connections between processes: memfd pages pinned by each.
  static_assert(dev::cu::kMemHostRegisterPortable ==
                CU_MEMHOSTREGISTER_PORTABLE);
  static_assert(dev::cu::kMemHostRegisterDeviceMap ==
                CU_MEMHOSTREGISTER_DEVICEMAP);
  static_assert(std::is_same_v<decltype(&::cuMemHostRegister),
                               CUresult (*)(void *, size_t, unsigned int)>);
  static_assert(
      std::is_same_v<decltype(&::cuMemHostUnregister), CUresult (*)(void *)>);
  // GPUDirect RDMA's flush (its enums passed as ints).
  static_assert(dev::cu::kFlushTargetCurrentCtx ==
                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX);
  static_assert(dev::cu::kFlushToOwner ==
                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
  static_assert(sizeof(CUflushGPUDirectRDMAWritesTarget) == sizeof(int) &&
                sizeof(CUflushGPUDirectRDMAWritesScope) == sizeof(int));
  // GPUDirect RDMA through dma-buf (its enum passed as an int).
  static_assert(dev::cu::kAttrDmaBufSupported ==
                CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
  static_assert(dev::cu::kMemRangeHandleTypeDmaBufFd ==
                CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD);
  static_assert(dev::cu::kNotSupported == CUDA_ERROR_NOT_SUPPORTED);
  static_assert(sizeof(CUmemRangeHandleType) == sizeof(int));
  static_assert(
      std::is_same_v<decltype(&::cuMemGetHandleForAddressRange),
                     CUresult (*)(void *, CUdeviceptr, size_t,
                                  CUmemRangeHandleType, unsigned long long)>);
  static_assert(
      std::is_same_v<decltype(dev::CudaDriver::cuMemGetHandleForAddressRange),
                     dev::cu::Result (*)(void *, dev::cu::DevicePtr, size_t,
                                         int, unsigned long long)>);
  SUCCEED();
}
#endif

TEST(CudaDriverTest, WithoutAGpuEveryEntryPointIsUnsupported) {
  const dev::CudaDriver *driver = nullptr;
  Status s = dev::loadCudaDriver(0, &driver);
  if (s.ok())
    GTEST_SKIP() << "a CUDA device is present (the GPU runs are "
                    "bench/gpu/run.sh's)";
  ASSERT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_THAT(s.message(),
              ::testing::AnyOf(HasSubstr("no CUDA driver"),
                               HasSubstr("no CUDA device"),
                               HasSubstr("no usable CUDA device")));
  std::unique_ptr<dev::CudaModule> module;
  Status m = dev::CudaModule::loadImage("x", "test", 0, &module);
  EXPECT_EQ(m.code(), ErrorCode::Unsupported);
  EXPECT_EQ(m.message(), s.message());
  Plan plan;
  plan.worldSize = 2;
  PlanCollective c;
  c.program = ringAllReduce(2, 1, 1);
  c.groups = {{0, 1}};
  plan.collectives.push_back(c);
  GpuOptions options;
  options.kernelFile = "/nonexistent.fatbin";
  std::unique_ptr<GpuCommunicator> comm;
  ASSERT_TRUE(GpuCommunicator::createInProcess(plan, options, &comm).ok());
  Status r = comm->prepare(0, 1 << 20);
  EXPECT_EQ(r.code(), ErrorCode::Unsupported) << r.toString();
}

TEST(CudaDriverTest, WithoutAGpuSeveralDevicesAreUnsupported) {
  const dev::CudaDriver *driver = nullptr;
  Status s = dev::loadCudaDriver(0, &driver);
  if (s.ok())
    GTEST_SKIP() << "a CUDA device is present";
  Status p = dev::enablePeerAccess(0, 1, "test");
  EXPECT_EQ(p.code(), ErrorCode::Unsupported);
  EXPECT_EQ(p.message(), s.message());
  bool can = true;
  p = dev::canAccessPeer(0, 1, &can);
  EXPECT_EQ(p.code(), ErrorCode::Unsupported);
  EXPECT_EQ(p.message(), s.message());
  EXPECT_FALSE(can);
  Plan plan;
  plan.worldSize = 4;
  PlanCollective c;
  c.program = ringAllReduce(4, 1, 1);
  c.groups = {{0, 1, 2, 3}};
  plan.collectives.push_back(c);
  GpuOptions o;
  o.kernelFile = "/nonexistent.fatbin";
  o.devices = {0, 1};
  std::unique_ptr<GpuCommunicator> comm;
  ASSERT_TRUE(GpuCommunicator::createInProcess(plan, o, &comm).ok());
  Status r = comm->prepare(0, 1 << 20);
  EXPECT_EQ(r.code(), ErrorCode::Unsupported) << r.toString();
  EXPECT_EQ(r.message(), s.message());
  // More devices than ranks is refused before the driver is asked.
  o.devices = {0, 1, 2, 3, 4};
  ASSERT_TRUE(GpuCommunicator::createInProcess(plan, o, &comm).ok());
  r = comm->prepare(0, 1 << 20);
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument) << r.toString();
  EXPECT_THAT(r.message(), HasSubstr("runs on 4 ranks: 5 devices would leave "
                                     "some without a rank"));
  EXPECT_EQ(dev::linkLaunches({}).code(), ErrorCode::InvalidArgument);
}

/// A bootstrap of one process that records what it is told.
class RecordingBootstrap : public Bootstrap {
public:
  explicit RecordingBootstrap(int32_t rank) : rank_(rank) {}
  int32_t rank() const override { return rank_; }
  int32_t worldSize() const override { return 2; }
  int32_t localRank() const override { return rank_; }
  const std::vector<std::string> &hosts() const override { return hosts_; }
  const std::string &localAddress() const override { return address_; }
  Status allGather(const std::string &mine, std::vector<std::string> *all,
                   Deadline) override {
    ++calls;
    *all = {mine, mine};
    return Status::success();
  }
  Status barrier(Deadline) override {
    ++calls;
    return Status::success();
  }
  void announceFailure(const std::string &reason) override {
    announced = reason;
  }
  Status checkPeers() override { return Status::success(); }
  std::string announced;
  int calls = 0;

private:
  int32_t rank_;
  std::vector<std::string> hosts_{"a", "a"};
  std::string address_ = "127.0.0.1";
};

TEST(CudaDriverTest, WithoutAGpuARankProcessAnnouncesItsFailure) {
  const dev::CudaDriver *driver = nullptr;
  if (dev::loadCudaDriver(0, &driver).ok())
    GTEST_SKIP() << "a CUDA device is present";
  int devices = -1;
  EXPECT_EQ(dev::cudaDeviceCount(&devices).code(), ErrorCode::Unsupported);
  EXPECT_EQ(devices, 0);
  Plan plan;
  plan.worldSize = 2;
  PlanCollective c;
  c.program = ringAllReduce(2, 1, 1);
  c.groups = {{0, 1}};
  plan.collectives.push_back(c);
  RecordingBootstrap bootstrap(1);
  GpuOptions options;
  options.kernelFile = "/nonexistent.fatbin";
  std::unique_ptr<GpuCommunicator> comm;
  ASSERT_TRUE(
      GpuCommunicator::createForRank(plan, options, bootstrap, &comm).ok());
  Status r = comm->prepare(0, 1 << 20);
  EXPECT_EQ(r.code(), ErrorCode::Unsupported) << r.toString();
  EXPECT_THAT(r.message(), ::testing::StartsWith("rank 1: no "));
  // The peers learn it from the bootstrap instead of waiting for rank 1.
  EXPECT_EQ(bootstrap.announced, r.message());
  EXPECT_EQ(bootstrap.calls, 0);
}

PlanCollective collective(const Program &p, DataType type) {
  PlanCollective c;
  c.program = p;
  c.dtype = type;
  c.location = "test";
  c.groups.assign(1, {});
  for (int32_t r = 0; r < p.numRanks; ++r)
    c.groups[0].push_back(r);
  return c;
}

TEST(LaunchLayoutTest, TrafficOfARingAllReduce) {
  // Per rank: send (2), n - 2 recv_reduce_send (3), recv_reduce_copy_send
  // (4), n - 2 recv_copy_send (3), recv (2) on S / n elements each: over n
  // ranks S (6 n - 4) elements read or written.
  for (int32_t n : {2, 3, 8}) {
    const int64_t count = int64_t(n) * 1000;
    dev::LaunchLayout layout;
    ASSERT_TRUE(dev::LaunchLayout::create(
                    collective(ringAllReduce(n, 1, 1), DataType::BF16), 0,
                    count, dev::DeviceOptions(), &layout)
                    .ok());
    EXPECT_DOUBLE_EQ(dev::memoryTraffic(layout),
                     double(count) * 2 * (6 * n - 4));
  }
}

TEST(LaunchLayoutTest, AlignedTilesAreMultiplesOf16Bytes) {
  dev::DeviceOptions o;
  o.slotBytes = 1000;
  dev::LaunchLayout cpu, aligned;
  PlanCollective c = collective(ringAllReduce(4, 1, 1), DataType::BF16);
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 100000, o, &cpu).ok());
  o.alignTiles = true;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 100000, o, &aligned).ok());
  // The CPU executor's T = (1000 - 24) / 2 = 488; aligned: 488 - 488 % 8.
  EXPECT_EQ(cpu.tileElements(), 488);
  EXPECT_EQ(aligned.tileElements(), 488);
  o.slotBytes = 1010;
  ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 100000, o, &aligned).ok());
  EXPECT_EQ(aligned.tileElements(), 488); // 493 rounded down
  EXPECT_EQ(aligned.tiles(), (25000 + 487) / 488);
}

} // namespace
} // namespace testing
} // namespace collrt
