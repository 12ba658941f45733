//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//
#include "runtime/device/CudaDriver.h"

#include <dlfcn.h>

namespace collrt {
namespace dev {

std::string CudaDriver::error(const char *call, cu::Result result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string s = std::string(call) + " failed: ";
  s += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

Status CudaDriver::fail(const std::string &what, const char *call,
                        cu::Result result, ErrorCode code) const {
  return Status(code, what + ": " + error(call, result));
}

namespace {

struct Loaded {
  CudaDriver driver;
  Status status;
  int devices = 0;
};

template <class F>
bool find(void *library, F *slot, const char *name,
          const char *fallback = nullptr) {
  void *symbol = dlsym(library, name);
  if (!symbol && fallback)
    symbol = dlsym(library, fallback);
  *slot = reinterpret_cast<F>(symbol);
  return symbol != nullptr;
}

Loaded load() {
  Loaded l;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    l.status = Status(ErrorCode::Unsupported,
                      std::string("no CUDA driver: dlopen(\"libcuda.so.1\") "
                                  "failed: ") +
                          (why ? why : "unknown reason"));
    return l;
  }
  CudaDriver &d = l.driver;
  std::string missing;
  auto need = [&](bool found, const char *name) {
    if (!found)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  need(find(library, &d.cuInit, "cuInit"), "cuInit");
  need(find(library, &d.cuDriverGetVersion, "cuDriverGetVersion"),
       "cuDriverGetVersion");
  need(find(library, &d.cuGetErrorName, "cuGetErrorName"), "cuGetErrorName");
  need(find(library, &d.cuGetErrorString, "cuGetErrorString"),
       "cuGetErrorString");
  need(find(library, &d.cuDeviceGetCount, "cuDeviceGetCount"),
       "cuDeviceGetCount");
  need(find(library, &d.cuDeviceGet, "cuDeviceGet"), "cuDeviceGet");
  need(find(library, &d.cuDeviceGetName, "cuDeviceGetName"), "cuDeviceGetName");
  need(find(library, &d.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
       "cuDeviceGetAttribute");
  need(find(library, &d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
       "cuDevicePrimaryCtxRetain");
  need(find(library, &d.cuCtxSetCurrent, "cuCtxSetCurrent"), "cuCtxSetCurrent");
  need(find(library, &d.cuModuleLoadData, "cuModuleLoadData"),
       "cuModuleLoadData");
  need(find(library, &d.cuModuleUnload, "cuModuleUnload"), "cuModuleUnload");
  need(find(library, &d.cuModuleGetFunction, "cuModuleGetFunction"),
       "cuModuleGetFunction");
  // Optional (CUDA 12.4+): finding a kernel by its prefix.
  find(library, &d.cuModuleGetFunctionCount, "cuModuleGetFunctionCount");
  find(library, &d.cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions");
  find(library, &d.cuFuncGetName, "cuFuncGetName");
  need(find(library, &d.cuFuncGetAttribute, "cuFuncGetAttribute"),
       "cuFuncGetAttribute");
  need(find(library, &d.cuOccupancyMaxActiveBlocksPerMultiprocessor,
            "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
       "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  need(find(library, &d.cuMemAlloc, "cuMemAlloc_v2"), "cuMemAlloc_v2");
  need(find(library, &d.cuMemFree, "cuMemFree_v2"), "cuMemFree_v2");
  need(find(library, &d.cuMemHostAlloc, "cuMemHostAlloc"), "cuMemHostAlloc");
  need(find(library, &d.cuMemFreeHost, "cuMemFreeHost"), "cuMemFreeHost");
  need(find(library, &d.cuMemHostRegister, "cuMemHostRegister_v2"),
       "cuMemHostRegister_v2");
  need(find(library, &d.cuMemHostUnregister, "cuMemHostUnregister"),
       "cuMemHostUnregister");
  find(library, &d.cuFlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites");
  find(library, &d.cuMemGetHandleForAddressRange,
       "cuMemGetHandleForAddressRange");
  need(find(library, &d.cuMemHostGetDevicePointer,
            "cuMemHostGetDevicePointer_v2"),
       "cuMemHostGetDevicePointer_v2");
  need(find(library, &d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");
  need(find(library, &d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"), "cuMemcpyDtoH_v2");
  need(find(library, &d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
       "cuMemcpyDtoDAsync_v2");
  need(find(library, &d.cuMemsetD8, "cuMemsetD8_v2"), "cuMemsetD8_v2");
  need(find(library, &d.cuLaunchKernel, "cuLaunchKernel"), "cuLaunchKernel");
  need(find(library, &d.cuStreamCreate, "cuStreamCreate"), "cuStreamCreate");
  need(find(library, &d.cuStreamDestroy, "cuStreamDestroy_v2"),
       "cuStreamDestroy_v2");
  need(find(library, &d.cuStreamSynchronize, "cuStreamSynchronize"),
       "cuStreamSynchronize");
  need(find(library, &d.cuEventCreate, "cuEventCreate"), "cuEventCreate");
  need(find(library, &d.cuEventDestroy, "cuEventDestroy_v2"),
       "cuEventDestroy_v2");
  need(find(library, &d.cuEventRecord, "cuEventRecord"), "cuEventRecord");
  need(find(library, &d.cuEventQuery, "cuEventQuery"), "cuEventQuery");
  need(find(library, &d.cuEventSynchronize, "cuEventSynchronize"),
       "cuEventSynchronize");
  need(find(library, &d.cuEventElapsedTime, "cuEventElapsedTime_v2",
            "cuEventElapsedTime"),
       "cuEventElapsedTime");
  need(find(library, &d.cuStreamBeginCapture, "cuStreamBeginCapture_v2"),
       "cuStreamBeginCapture_v2");
  need(find(library, &d.cuStreamEndCapture, "cuStreamEndCapture"),
       "cuStreamEndCapture");
  need(find(library, &d.cuGraphInstantiate, "cuGraphInstantiateWithFlags"),
       "cuGraphInstantiateWithFlags");
  need(find(library, &d.cuGraphLaunch, "cuGraphLaunch"), "cuGraphLaunch");
  need(find(library, &d.cuGraphExecDestroy, "cuGraphExecDestroy"),
       "cuGraphExecDestroy");
  need(find(library, &d.cuGraphDestroy, "cuGraphDestroy"), "cuGraphDestroy");
  need(find(library, &d.cuIpcGetMemHandle, "cuIpcGetMemHandle"),
       "cuIpcGetMemHandle");
  need(find(library, &d.cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2",
            "cuIpcOpenMemHandle"),
       "cuIpcOpenMemHandle_v2");
  need(find(library, &d.cuIpcCloseMemHandle, "cuIpcCloseMemHandle"),
       "cuIpcCloseMemHandle");
  need(find(library, &d.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer"),
       "cuDeviceCanAccessPeer");
  need(find(library, &d.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess"),
       "cuCtxEnablePeerAccess");
  if (!missing.empty()) {
    l.status = Status(ErrorCode::Unsupported,
                      "the CUDA driver (libcuda.so.1) lacks " + missing +
                          ": it is older than this runtime needs (CUDA 11.4 "
                          "or later)");
    return l;
  }
  if (cu::Result r = d.cuInit(0); r != cu::kSuccess) {
    l.status = Status(ErrorCode::Unsupported,
                      "no usable CUDA device: " + d.error("cuInit", r));
    return l;
  }
  if (cu::Result r = d.cuDeviceGetCount(&l.devices); r != cu::kSuccess) {
    l.status =
        Status(ErrorCode::Unsupported,
               "no usable CUDA device: " + d.error("cuDeviceGetCount", r));
    return l;
  }
  if (l.devices == 0)
    l.status = Status(ErrorCode::Unsupported,
                      "no CUDA device: cuDeviceGetCount returned 0");
  return l;
}

} // namespace

namespace {
const Loaded &loaded() {
  static Loaded l = load();
  return l;
}
} // namespace

Status cudaDeviceCount(int *count) {
  *count = 0;
  if (!loaded().status.ok())
    return loaded().status;
  *count = loaded().devices;
  return Status::success();
}

Status loadCudaDriver(int ordinal, const CudaDriver **driver,
                      cu::Context *context) {
  const Loaded &loaded = collrt::dev::loaded();
  if (!loaded.status.ok())
    return loaded.status;
  if (ordinal < 0 || ordinal >= loaded.devices)
    return Status(ErrorCode::InvalidArgument,
                  "CUDA device " + std::to_string(ordinal) +
                      " does not exist: this machine has " +
                      std::to_string(loaded.devices));
  const CudaDriver &d = loaded.driver;
  cu::Device device = 0;
  if (cu::Result r = d.cuDeviceGet(&device, ordinal); r != cu::kSuccess)
    return d.fail("CUDA device " + std::to_string(ordinal), "cuDeviceGet", r,
                  ErrorCode::Unsupported);
  cu::Context ctx = nullptr;
  if (cu::Result r = d.cuDevicePrimaryCtxRetain(&ctx, device);
      r != cu::kSuccess)
    return d.fail("CUDA device " + std::to_string(ordinal),
                  "cuDevicePrimaryCtxRetain", r, ErrorCode::Unsupported);
  if (cu::Result r = d.cuCtxSetCurrent(ctx); r != cu::kSuccess)
    return d.fail("CUDA device " + std::to_string(ordinal), "cuCtxSetCurrent",
                  r, ErrorCode::Unsupported);
  *driver = &d;
  if (context)
    *context = ctx;
  return Status::success();
}

Status enablePeerAccess(int ordinal, int peer, const std::string &what) {
  const CudaDriver *d = nullptr;
  cu::Context peerContext = nullptr, context = nullptr;
  if (Status s = loadCudaDriver(peer, &d, &peerContext); !s.ok())
    return s;
  if (Status s = loadCudaDriver(ordinal, &d, &context); !s.ok())
    return s;
  if (ordinal == peer)
    return Status::success();
  std::string devices = "CUDA device " + std::to_string(ordinal) +
                        " and CUDA device " + std::to_string(peer);
  cu::Device device = 0, other = 0;
  if (cu::Result r = d->cuDeviceGet(&device, ordinal); r != cu::kSuccess)
    return d->fail(what + ": " + devices, "cuDeviceGet", r);
  if (cu::Result r = d->cuDeviceGet(&other, peer); r != cu::kSuccess)
    return d->fail(what + ": " + devices, "cuDeviceGet", r);
  int can = 0;
  if (cu::Result r = d->cuDeviceCanAccessPeer(&can, device, other);
      r != cu::kSuccess)
    return d->fail(what + ": " + devices, "cuDeviceCanAccessPeer", r);
  if (!can)
    return Status(ErrorCode::Unsupported,
                  what + ": CUDA device " + std::to_string(ordinal) +
                      " cannot access the memory of CUDA device " +
                      std::to_string(peer) +
                      " (cuDeviceCanAccessPeer says no: no NVLink or PCIe "
                      "peer path between them); the ranks exchange messages "
                      "through each other's memory, so their connections "
                      "must go through host memory "
                      "(DeviceOptions::hostLinks, which runPlanOnDevices "
                      "chooses for such devices)");
  if (cu::Result r = d->cuCtxEnablePeerAccess(peerContext, 0);
      r != cu::kSuccess && r != cu::kPeerAccessAlreadyEnabled)
    return d->fail(what + ": enabling the access of CUDA device " +
                       std::to_string(ordinal) + " to CUDA device " +
                       std::to_string(peer) + "'s memory",
                   "cuCtxEnablePeerAccess", r, ErrorCode::Unsupported);
  return Status::success();
}

Status canAccessPeer(int ordinal, int peer, bool *can) {
  *can = false;
  const CudaDriver *d = nullptr;
  cu::Context context = nullptr;
  if (Status s = loadCudaDriver(ordinal, &d, &context); !s.ok())
    return s;
  if (Status s = loadCudaDriver(peer, &d, &context); !s.ok())
    return s;
  if (ordinal == peer) {
    *can = true;
    return Status::success();
  }
  std::string devices = "CUDA device " + std::to_string(ordinal) +
                        " and CUDA device " + std::to_string(peer);
  cu::Device device = 0, other = 0;
  if (cu::Result r = d->cuDeviceGet(&device, ordinal); r != cu::kSuccess)
    return d->fail(devices, "cuDeviceGet", r);
  if (cu::Result r = d->cuDeviceGet(&other, peer); r != cu::kSuccess)
    return d->fail(devices, "cuDeviceGet", r);
  int yes = 0;
  if (cu::Result r = d->cuDeviceCanAccessPeer(&yes, device, other);
      r != cu::kSuccess)
    return d->fail(devices, "cuDeviceCanAccessPeer", r);
  *can = yes != 0;
  return Status::success();
}

} // namespace dev
} // namespace collrt
