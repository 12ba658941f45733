//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The few driver API entry points the CUDA executor uses, found with dlopen
// ("libcuda.so.1") and dlsym at run time, so that libcollrt builds without
// the CUDA toolkit and starts on machines without a driver (where every
// entry point of the executor returns Unsupported, naming what was
// missing). The types and constants are the driver ABI's (cuda.h);
// test/runtime/device/CudaDriverTest.cpp checks them against cuda.h where
// it is installed.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CUDADRIVER_H
#define COLLRT_DEVICE_CUDADRIVER_H

#include "collrt/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace collrt {
namespace dev {
namespace cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;

constexpr Result kSuccess = 0;
constexpr Result kNotReady = 600;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrCanMapHostMemory = 19;
constexpr int kAttrUnifiedAddressing = 41;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kFuncMaxThreadsPerBlock = 0;
constexpr int kFuncLocalSizeBytes = 3;
constexpr int kFuncNumRegs = 4;
constexpr unsigned kMemHostAllocPortable = 0x01;
constexpr unsigned kMemHostAllocDeviceMap = 0x02;
constexpr unsigned kMemHostRegisterPortable = 0x01;
constexpr unsigned kMemHostRegisterDeviceMap = 0x02;
constexpr int kFlushTargetCurrentCtx = 0;
constexpr int kFlushToOwner = 100;
/// GPUDirect RDMA through dma-buf: whether the device can export its
/// memory (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED), and
/// cuMemGetHandleForAddressRange's handle type for a dma-buf fd
/// (CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD).
constexpr int kAttrDmaBufSupported = 124;
constexpr int kMemRangeHandleTypeDmaBufFd = 1;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDefault = 0x0;
constexpr int kStreamCaptureModeRelaxed = 2;
/// CUipcMemHandle: 64 opaque bytes, passed by value.
struct IpcMemHandle {
  char reserved[64];
};
constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;
/// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: cuCtxEnablePeerAccess again.
constexpr Result kPeerAccessAlreadyEnabled = 704;
/// CUDA_ERROR_NOT_SUPPORTED (e.g. a dma-buf export the platform refuses).
constexpr Result kNotSupported = 801;

} // namespace cu

/// The driver's entry points (null where the driver lacks one that is
/// optional: function enumeration, before CUDA 12.4; GPUDirect's flush,
/// before 11.3; dma-buf export, before 11.7).
struct CudaDriver {
  cu::Result (*cuInit)(unsigned) = nullptr;
  cu::Result (*cuDriverGetVersion)(int *) = nullptr;
  cu::Result (*cuGetErrorName)(cu::Result, const char **) = nullptr;
  cu::Result (*cuGetErrorString)(cu::Result, const char **) = nullptr;
  cu::Result (*cuDeviceGetCount)(int *) = nullptr;
  cu::Result (*cuDeviceGet)(cu::Device *, int) = nullptr;
  cu::Result (*cuDeviceGetName)(char *, int, cu::Device) = nullptr;
  cu::Result (*cuDeviceGetAttribute)(int *, int, cu::Device) = nullptr;
  cu::Result (*cuDevicePrimaryCtxRetain)(cu::Context *, cu::Device) = nullptr;
  cu::Result (*cuCtxSetCurrent)(cu::Context) = nullptr;
  cu::Result (*cuModuleLoadData)(cu::Module *, const void *) = nullptr;
  cu::Result (*cuModuleUnload)(cu::Module) = nullptr;
  cu::Result (*cuModuleGetFunction)(cu::Function *, cu::Module,
                                    const char *) = nullptr;
  cu::Result (*cuModuleGetFunctionCount)(unsigned *, cu::Module) = nullptr;
  cu::Result (*cuModuleEnumerateFunctions)(cu::Function *, unsigned,
                                           cu::Module) = nullptr;
  cu::Result (*cuFuncGetName)(const char **, cu::Function) = nullptr;
  cu::Result (*cuFuncGetAttribute)(int *, int, cu::Function) = nullptr;
  cu::Result (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, cu::Function,
                                                            int,
                                                            size_t) = nullptr;
  cu::Result (*cuMemAlloc)(cu::DevicePtr *, size_t) = nullptr;
  cu::Result (*cuMemFree)(cu::DevicePtr) = nullptr;
  cu::Result (*cuMemHostAlloc)(void **, size_t, unsigned) = nullptr;
  cu::Result (*cuMemFreeHost)(void *) = nullptr;
  /// Pins memory this process mapped (host-memory connections: the host
  /// arenas are memfd host buffers the processes of a host share).
  cu::Result (*cuMemHostRegister)(void *, size_t, unsigned) = nullptr;
  cu::Result (*cuMemHostUnregister)(void *) = nullptr;
  /// GPUDirect RDMA: makes the NIC's writes into this context's memory
  /// visible to it (CUDA 11.3+; null where the driver lacks it).
  cu::Result (*cuFlushGPUDirectRDMAWrites)(int, int) = nullptr;
  /// GPUDirect RDMA through dma-buf: exports a page-aligned range of
  /// device memory (handle: an int, the dma-buf fd; handle type, flags)
  /// (CUDA 11.7+, driver 515; null where the driver lacks it).
  cu::Result (*cuMemGetHandleForAddressRange)(void *, cu::DevicePtr, size_t,
                                              int,
                                              unsigned long long) = nullptr;
  cu::Result (*cuMemHostGetDevicePointer)(cu::DevicePtr *, void *,
                                          unsigned) = nullptr;
  cu::Result (*cuMemcpyHtoD)(cu::DevicePtr, const void *, size_t) = nullptr;
  cu::Result (*cuMemcpyDtoH)(void *, cu::DevicePtr, size_t) = nullptr;
  cu::Result (*cuMemcpyDtoDAsync)(cu::DevicePtr, cu::DevicePtr, size_t,
                                  cu::Stream) = nullptr;
  cu::Result (*cuMemsetD8)(cu::DevicePtr, unsigned char, size_t) = nullptr;
  cu::Result (*cuLaunchKernel)(cu::Function, unsigned, unsigned, unsigned,
                               unsigned, unsigned, unsigned, unsigned,
                               cu::Stream, void **, void **) = nullptr;
  cu::Result (*cuStreamCreate)(cu::Stream *, unsigned) = nullptr;
  cu::Result (*cuStreamDestroy)(cu::Stream) = nullptr;
  cu::Result (*cuStreamSynchronize)(cu::Stream) = nullptr;
  cu::Result (*cuEventCreate)(cu::Event *, unsigned) = nullptr;
  cu::Result (*cuEventDestroy)(cu::Event) = nullptr;
  cu::Result (*cuEventRecord)(cu::Event, cu::Stream) = nullptr;
  cu::Result (*cuEventQuery)(cu::Event) = nullptr;
  cu::Result (*cuEventSynchronize)(cu::Event) = nullptr;
  cu::Result (*cuEventElapsedTime)(float *, cu::Event, cu::Event) = nullptr;
  cu::Result (*cuStreamBeginCapture)(cu::Stream, int) = nullptr;
  cu::Result (*cuStreamEndCapture)(cu::Stream, cu::Graph *) = nullptr;
  cu::Result (*cuGraphInstantiate)(cu::GraphExec *, cu::Graph,
                                   unsigned long long) = nullptr;
  cu::Result (*cuGraphLaunch)(cu::GraphExec, cu::Stream) = nullptr;
  cu::Result (*cuGraphExecDestroy)(cu::GraphExec) = nullptr;
  cu::Result (*cuGraphDestroy)(cu::Graph) = nullptr;
  // CUDA IPC (one process per rank, docs/gpu-runtime.md).
  cu::Result (*cuIpcGetMemHandle)(cu::IpcMemHandle *, cu::DevicePtr) = nullptr;
  cu::Result (*cuIpcOpenMemHandle)(cu::DevicePtr *, cu::IpcMemHandle,
                                   unsigned) = nullptr;
  cu::Result (*cuIpcCloseMemHandle)(cu::DevicePtr) = nullptr;
  // Peer access (several GPUs in one process, docs/gpu-runtime.md).
  cu::Result (*cuDeviceCanAccessPeer)(int *, cu::Device, cu::Device) = nullptr;
  cu::Result (*cuCtxEnablePeerAccess)(cu::Context, unsigned) = nullptr;

  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string error(const char *call, cu::Result result) const;
  /// A Status for a failed call (TransportError unless `code` says else).
  Status fail(const std::string &what, const char *call, cu::Result result,
              ErrorCode code = ErrorCode::TransportError) const;
};

/// The driver, loaded and initialized once per process (cuInit(0)), and
/// device `ordinal`'s primary context made current on the calling thread.
/// Unsupported, with the reason, where libcuda.so.1 cannot be loaded, cuInit
/// fails (no device, no driver module) or no such device exists:
///   "unsupported: no CUDA device: cuDeviceGetCount returned 0"
Status loadCudaDriver(int ordinal, const CudaDriver **driver,
                      cu::Context *context = nullptr);

/// Lets kernels of device `ordinal`'s primary context read and write
/// memory of device `peer`'s (cuDeviceCanAccessPeer, then
/// cuCtxEnablePeerAccess with `ordinal`'s context current; access already
/// enabled is fine); `ordinal`'s context is current afterwards. The same
/// device: nothing to do. Unsupported, naming both devices and `what` (the
/// ranks that need it), where the devices cannot access each other.
Status enablePeerAccess(int ordinal, int peer, const std::string &what);

/// Whether device `ordinal`'s kernels can access device `peer`'s memory
/// (cuDeviceCanAccessPeer; true for the same device). Unsupported where
/// there is no driver or device.
Status canAccessPeer(int ordinal, int peer, bool *can);

/// The number of CUDA devices (loading the driver as above; Unsupported
/// with the reason where there is none).
Status cudaDeviceCount(int *count);

} // namespace dev
} // namespace collrt

#endif
