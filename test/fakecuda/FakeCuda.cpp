//===- FakeCuda.cpp - a CUDA driver made of host threads, for tests -------===//
//
// libcuda.so.1 for machines without a GPU: the driver API entry points the
// CUDA executor uses (runtime/device/CudaDriver.h), implemented on host
// memory and host threads, so that the executor's host code (allocation,
// arenas, CUDA IPC between processes, peer access, streams, events, graph
// capture, the watchdog, avg's division) and collc-run's cuda paths run
// end to end in CI. Never installed, never found by default: a test puts
// its directory on LD_LIBRARY_PATH (test/lit.cfg.py's fake_cuda parameter,
// docs/gpu-runtime.md "Without a GPU").
//
// What it runs: a "module" is either a host shared object (ELF) that
// test/fakecuda/nvcc.in writes in place of a fatbin (the generated CUDA
// compiled against the host emulation of collrt/device/Channel.h, so each
// kernel is a function of LaunchArgs that runs one block), or libcollrt's
// own fatbin (magic 0xBA55ED50), whose collrt_divide_* kernels this file
// implements with the same DeviceArith.h. A launch runs every block on its
// own host thread (one thread per block: ChannelHost.h's default), all at
// once, as "every block resident" requires; a stream is a host thread that
// runs its operations in order; events record the host clock.
//
// What it checks, as the driver does: a current context for the calls that
// need one (CUDA_ERROR_INVALID_CONTEXT), device pointers within an
// allocation this process made or opened (CUDA_ERROR_INVALID_VALUE), host
// memory registered once (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED), IPC
// handles of the base of an allocation and of another process, peer access
// enabled once. It does not check which device's memory a kernel touches.
//
// Settings (environment): COLLC_FAKE_CUDA_DEVICES (default 1; 0: cuInit
// finds none), COLLC_FAKE_CUDA_SMS (default 132), COLLC_FAKE_CUDA_P2P
// (default 1; 0: no device can access another's memory),
// COLLC_FAKE_CUDA_MEMORY (bytes of memory per device, default 8 GiB),
// COLLC_FAKE_CUDA_DMA_BUF (default 1; 0: no device exports dma-bufs:
// CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0 and
// cuMemGetHandleForAddressRange returns CUDA_ERROR_NOT_SUPPORTED).
//
// dma-buf (GPUDirect RDMA): cuMemGetHandleForAddressRange gives, for a
// host-page-aligned range inside one device allocation of this process, a
// new descriptor of the allocation's memfd (its own file position)
// positioned at the range's start, which is where the range's bytes lie
// in the file: a consumer finds what a real dma-buf's offset X holds at
// file offset position + X. The CUDA executor exports whole allocations
// (position 0), so there the dma-buf offset is the file offset, as
// test/fakeibverbs's ibv_reg_dmabuf_mr checks it (and the emulator's
// SocketNet, runtime/net/Net.h's createSocketNet, with the position).
//
// Faults, for tests of the error paths: COLLC_FAKE_CUDA_FAIL=NAME[:N] makes
// the Nth call (default the first) of entry point NAME fail with
// CUDA_ERROR_UNKNOWN; COLLC_FAKE_CUDA_FAULT=N makes the Nth plan kernel to
// run (a graph's replays count) fault (its blocks do not run) and the
// context fail:
// every later call returns CUDA_ERROR_ILLEGAL_ADDRESS, as after a real
// fault. Both only in the process whose COLLC_RANK is
// COLLC_FAKE_CUDA_FAULT_RANK, where that is set. COLLC_FAKE_CUDA_TRACE=1
// names each entry point on stderr at its first call.
//
// Like the driver, cuMemFree first waits until every stream of the process
// has run all it holds (an implicit synchronization): freeing memory under
// a kernel that waits for a peer hangs here as it would on a GPU.
//
//===----------------------------------------------------------------------===//
#include "collrt/device/Channel.h"
#include "collrt/device/DeviceArith.h"
#include "runtime/device/CudaDriver.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Result = int;
using DevicePtr = unsigned long long;
using Clock = std::chrono::steady_clock;

namespace cu = collrt::dev::cu;

// The executor's names (CudaDriver.h) where it has them; the others are
// cuda.h's values of the errors this driver gives.
constexpr Result kSuccess = cu::kSuccess;
constexpr Result kInvalidValue = 1;
constexpr Result kOutOfMemory = 2;
constexpr Result kNotInitialized = 3;
constexpr Result kInvalidDevice = 101;
constexpr Result kInvalidImage = 200;
constexpr Result kInvalidContext = 201;
constexpr Result kPeerAccessUnsupported = 217;
constexpr Result kInvalidHandle = 400;
constexpr Result kNotFound = 500;
constexpr Result kNotReady = cu::kNotReady;
constexpr Result kPeerAccessAlreadyEnabled = cu::kPeerAccessAlreadyEnabled;
constexpr Result kHostMemoryAlreadyRegistered = 712;
constexpr Result kHostMemoryNotRegistered = 713;
constexpr Result kLaunchFailed = 719;
constexpr Result kIllegalAddress = 700;
constexpr Result kNotSupported = cu::kNotSupported;
constexpr Result kStreamCaptureUnsupported = 900;
constexpr Result kUnknown = 999;

struct ErrorText {
  Result code;
  const char *name, *text;
};
const ErrorText kErrors[] = {
    {kSuccess, "CUDA_SUCCESS", "no error"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid (collc's fake CUDA driver runs the host "
     "shared objects its nvcc stand-in writes, and libcollrt's own fatbin)"},
    {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {kPeerAccessUnsupported, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kNotReady, "CUDA_ERROR_NOT_READY", "device not ready"},
    {kPeerAccessAlreadyEnabled, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {kHostMemoryAlreadyRegistered, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {kHostMemoryNotRegistered, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure (collc's fake CUDA driver could not start a "
     "block's host thread)"},
    {kNotSupported, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported (collc's fake CUDA driver does not model it)"},
    {kStreamCaptureUnsupported, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered (injected by "
     "COLLC_FAKE_CUDA_FAULT)"},
    {kUnknown, "CUDA_ERROR_UNKNOWN",
     "unknown error (injected by COLLC_FAKE_CUDA_FAIL)"},
};

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

constexpr int kMaxDevices = 64;

struct Context {
  int device = 0;
  std::set<int> peers; // devices whose memory this context may access
};

struct Driver {
  std::mutex mutex;
  bool initialized = false;
  int devices = 0;
  Context contexts[kMaxDevices];
  /// Device allocations of this process (memfd, so that other processes
  /// can map them through an IPC handle): base -> (bytes, fd).
  struct Allocation {
    size_t bytes;
    int fd;
    int device;
  };
  std::map<DevicePtr, Allocation> allocations;
  /// Other processes' allocations mapped here: base -> bytes.
  std::map<DevicePtr, size_t> opened;
  /// Host memory the device may address: base -> (bytes, allocated here).
  std::map<uintptr_t, std::pair<size_t, bool>> host;
  /// A block's thread could not start: every later synchronizing call
  /// fails, as after a real launch failure.
  std::atomic<Result> sticky{kSuccess};
  /// Bytes allocated on each device.
  size_t used[kMaxDevices] = {};
  /// Calls so far by entry point (faults), names traced.
  std::map<std::string, long> calls;
  /// Plan kernels run so far (graph replays too).
  long launches = 0;
};

Driver &driver() {
  static Driver *d = new Driver; // never destroyed: streams may outlive main
  return *d;
}

thread_local Context *currentContext = nullptr;

/// Whether faults apply to this process (COLLC_FAKE_CUDA_FAULT_RANK).
bool faultsHere() {
  const char *rank = std::getenv("COLLC_FAKE_CUDA_FAULT_RANK");
  if (!rank || !*rank)
    return true;
  const char *mine = std::getenv("COLLC_RANK");
  return mine && std::string(mine) == rank;
}

/// Each entry point's first step: the trace, a context failed by a fault,
/// an injected failure (COLLC_FAKE_CUDA_FAIL).
Result enter(const char *name) {
  Driver &d = driver();
  if (Result r = d.sticky; r == kIllegalAddress)
    return r;
  long call;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    call = ++d.calls[name];
  }
  if (call == 1 && envInt("COLLC_FAKE_CUDA_TRACE", 0))
    std::fprintf(stderr, "collc fake CUDA driver: %s\n", name);
  const char *fail = std::getenv("COLLC_FAKE_CUDA_FAIL");
  if (!fail || !*fail || !faultsHere())
    return kSuccess;
  std::string which = fail;
  long nth = 1;
  if (size_t colon = which.find(':'); colon != std::string::npos) {
    nth = std::atol(which.c_str() + colon + 1);
    which.resize(colon);
  }
  return which == name && call == nth ? kUnknown : kSuccess;
}

#define FAKE_ENTRY(name)                                                       \
  if (Result entered_ = enter(name); entered_ != kSuccess)                     \
  return entered_

/// Whether [p, p + bytes) lies in one region of `regions` (by base), whose
/// size `size` reads from a region's value.
template <class Map, class Size>
bool within(const Map &regions, uint64_t p, size_t bytes, Size size) {
  auto it = regions.upper_bound(p);
  if (it == regions.begin())
    return false;
  --it;
  return p >= it->first && p + bytes <= it->first + size(it->second);
}

/// Whether [p, p + bytes) is memory a kernel of this process may address:
/// a device allocation, an opened IPC mapping, or pinned host memory.
bool addressable(DevicePtr p, size_t bytes) {
  Driver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  return within(d.opened, p, bytes, [](size_t n) { return n; }) ||
         within(d.allocations, p, bytes,
                [](const Driver::Allocation &a) { return a.bytes; }) ||
         within(d.host, uintptr_t(p), bytes,
                [](const std::pair<size_t, bool> &h) { return h.first; });
}

Result needContext() {
  if (!driver().initialized)
    return kNotInitialized;
  return currentContext ? kSuccess : kInvalidContext;
}

//===----------------------------------------------------------------------===//
// Streams, events, graphs
//===----------------------------------------------------------------------===//

using Operation = std::function<void()>;

struct Graph {
  std::vector<Operation> operations;
};

struct Stream;
/// Every stream of the process (cuMemFree synchronizes them all).
std::mutex &streamsMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}
std::set<Stream *> &streams() {
  static std::set<Stream *> *s = new std::set<Stream *>;
  return *s;
}

/// Operations a stream holds before launching blocks (the driver's queue
/// is of this order).
constexpr size_t kQueueDepth = 1024;

struct Stream {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Operation> queue;
  bool busy = false, stopping = false;
  Graph *capture = nullptr;
  std::thread worker;

  Stream() {
    {
      std::lock_guard<std::mutex> lock(streamsMutex());
      streams().insert(this);
    }
    worker = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex);
      for (;;) {
        changed.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        Operation op = std::move(queue.front());
        queue.pop_front();
        busy = true;
        lock.unlock();
        op();
        lock.lock();
        busy = false;
        changed.notify_all();
      }
    });
  }
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(streamsMutex());
      streams().erase(this);
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    worker.join();
  }
  /// Enqueues op; blocks while kQueueDepth operations wait, as a GPU's
  /// full launch queue blocks the launching thread.
  void push(Operation op) {
    std::unique_lock<std::mutex> lock(mutex);
    if (capture) {
      capture->operations.push_back(std::move(op));
      return;
    }
    changed.wait(lock, [&] { return queue.size() < kQueueDepth; });
    queue.push_back(std::move(op));
    changed.notify_all();
  }
  void synchronize() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !busy; });
  }
};

/// The NULL stream: a stream like the others (the executor's own streams
/// are non-blocking, so it does not order them).
Stream *streamOf(void *s) {
  static Stream *null = new Stream; // never destroyed
  return s ? static_cast<Stream *>(s) : null;
}

/// Waits until every stream of the process ran all it holds (streams are
/// not destroyed while a call of the process still uses them).
void synchronizeAll() {
  std::vector<Stream *> all;
  {
    std::lock_guard<std::mutex> lock(streamsMutex());
    all.assign(streams().begin(), streams().end());
  }
  for (Stream *s : all)
    s->synchronize();
}

struct Event {
  std::mutex mutex;
  std::condition_variable done;
  uint64_t recorded = 0, reached = 0;
  Clock::time_point at;
};

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

using PlanKernel = void (*)(collrt::dev::LaunchArgs);
using DivideKernel = void (*)(void *, int64_t, int64_t);
/// A kernel of other arguments: the module's host stand-in for kernel N is
/// `collc_fake_cuda_launch_N`, called once per launch with cuLaunchKernel's
/// arguments, the grid and the block size (bench/gpu/Primitives.cu).
using RawKernel = void (*)(void **, unsigned, unsigned);
const char kRawPrefix[] = "collc_fake_cuda_launch_";

struct Module;
struct Function {
  Module *module = nullptr;
  std::string name;
  PlanKernel plan = nullptr;
  DivideKernel divide = nullptr;
  RawKernel raw = nullptr;
  int maxThreads = 512;
};

struct Module {
  void *library = nullptr;
  std::vector<std::unique_ptr<Function>> functions;
};

template <class E> void divideAll(void *data, int64_t n, int64_t divisor) {
  auto *p = static_cast<typename E::Storage *>(data);
  for (int64_t i = 0; i < n; ++i)
    p[i] = collrt::dev::arith::divide<E>(p[i], divisor);
}

/// libcollrt's runtime kernels (runtime/device/RuntimeKernels.cu).
std::vector<std::unique_ptr<Function>> runtimeKernels() {
  using namespace collrt::dev::arith;
  std::pair<const char *, DivideKernel> kernels[] = {
      {"collrt_divide_f64", &divideAll<Plain<double>>},
      {"collrt_divide_f32", &divideAll<Plain<float>>},
      {"collrt_divide_f16", &divideAll<Narrow<F16>>},
      {"collrt_divide_bf16", &divideAll<Narrow<BF16>>},
      {"collrt_divide_f8e4m3", &divideAll<Narrow<F8E4M3FN>>},
      {"collrt_divide_f8e5m2", &divideAll<Narrow<F8E5M2>>},
      {"collrt_divide_i64", &divideAll<Plain<int64_t>>},
      {"collrt_divide_i32", &divideAll<Plain<int32_t>>},
      {"collrt_divide_i8", &divideAll<Plain<int8_t>>},
  };
  std::vector<std::unique_ptr<Function>> out;
  for (const auto &[name, fn] : kernels) {
    out.emplace_back(new Function);
    out.back()->name = name;
    out.back()->divide = fn;
    out.back()->maxThreads = 1024;
  }
  return out;
}

/// The size of an ELF image from its headers (cuModuleLoadData gets no
/// size), or 0 where it is not a 64-bit shared object.
size_t elfSize(const unsigned char *image) {
  if (std::memcmp(image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64)
    return 0;
  Elf64_Ehdr h;
  std::memcpy(&h, image, sizeof h);
  if (h.e_type != ET_DYN)
    return 0;
  size_t size = h.e_shoff + size_t(h.e_shnum) * h.e_shentsize;
  for (unsigned i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr p;
    std::memcpy(&p, image + h.e_phoff + i * h.e_phentsize, sizeof p);
    size = std::max<size_t>(size, p.p_offset + p.p_filesz);
  }
  return size;
}

/// The exported C functions of a shared object (its kernels: C++ names
/// are mangled, and names starting with '_' are the toolchain's).
std::vector<std::string> exportedFunctions(const unsigned char *image) {
  std::vector<std::string> names;
  Elf64_Ehdr h;
  std::memcpy(&h, image, sizeof h);
  auto section = [&](unsigned i) {
    Elf64_Shdr s;
    std::memcpy(&s, image + h.e_shoff + i * h.e_shentsize, sizeof s);
    return s;
  };
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr s = section(i);
    if (s.sh_type != SHT_DYNSYM || !s.sh_entsize)
      continue;
    Elf64_Shdr strings = section(s.sh_link);
    for (size_t j = 0; j < s.sh_size / s.sh_entsize; ++j) {
      Elf64_Sym sym;
      std::memcpy(&sym, image + s.sh_offset + j * s.sh_entsize, sizeof sym);
      const char *name =
          reinterpret_cast<const char *>(image + strings.sh_offset) +
          sym.st_name;
      if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC &&
          ELF64_ST_BIND(sym.st_info) == STB_GLOBAL &&
          sym.st_shndx != SHN_UNDEF && name[0] && name[0] != '_')
        names.push_back(name);
    }
  }
  return names;
}

const uint32_t kFatbinMagic = 0xBA55ED50u;

/// An IPC handle: the exporting process and its allocation's memfd.
struct IpcHandle {
  char magic[8];
  int32_t process;
  int32_t fd;
  uint64_t bytes;
  char unused[40];
};
static_assert(sizeof(IpcHandle) == sizeof(cu::IpcMemHandle),
              "CUipcMemHandle is 64 bytes");
const char kIpcMagic[8] = {'c', 'o', 'l', 'l', 'c', 'I', 'P', 'C'};

} // namespace

//===----------------------------------------------------------------------===//
// The entry points (cuda.h's names and ABI, the subset CudaDriver.h loads)
//===----------------------------------------------------------------------===//

extern "C" {

Result cuInit(unsigned flags) {
  FAKE_ENTRY("cuInit");
  if (flags != 0)
    return kInvalidValue;
  Driver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.initialized = true;
  d.devices =
      std::min(std::max(envInt("COLLC_FAKE_CUDA_DEVICES", 1), 0), kMaxDevices);
  for (int i = 0; i < kMaxDevices; ++i)
    d.contexts[i].device = i;
  return kSuccess;
}

Result cuDriverGetVersion(int *version) {
  FAKE_ENTRY("cuDriverGetVersion");
  if (!version)
    return kInvalidValue;
  *version = 13000;
  return kSuccess;
}

Result cuGetErrorName(Result error, const char **name) {
  for (const ErrorText &e : kErrors)
    if (e.code == error) {
      *name = e.name;
      return kSuccess;
    }
  *name = nullptr;
  return kInvalidValue;
}

Result cuGetErrorString(Result error, const char **text) {
  for (const ErrorText &e : kErrors)
    if (e.code == error) {
      *text = e.text;
      return kSuccess;
    }
  *text = nullptr;
  return kInvalidValue;
}

Result cuDeviceGetCount(int *count) {
  FAKE_ENTRY("cuDeviceGetCount");
  if (!driver().initialized)
    return kNotInitialized;
  *count = driver().devices;
  return kSuccess;
}

Result cuDeviceGet(int *device, int ordinal) {
  FAKE_ENTRY("cuDeviceGet");
  if (!driver().initialized)
    return kNotInitialized;
  if (ordinal < 0 || ordinal >= driver().devices)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

Result cuDeviceGetName(char *name, int length, int device) {
  FAKE_ENTRY("cuDeviceGetName");
  if (device < 0 || device >= driver().devices)
    return kInvalidDevice;
  std::snprintf(name, size_t(length),
                "collc fake CUDA device %d (host threads)", device);
  return kSuccess;
}

Result cuDeviceGetAttribute(int *value, int attribute, int device) {
  FAKE_ENTRY("cuDeviceGetAttribute");
  if (device < 0 || device >= driver().devices)
    return kInvalidDevice;
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    *value = 1024;
    return kSuccess;
  case cu::kAttrMultiprocessorCount:
    *value = envInt("COLLC_FAKE_CUDA_SMS", 132);
    return kSuccess;
  case cu::kAttrCanMapHostMemory:
  case cu::kAttrUnifiedAddressing:
    *value = 1;
    return kSuccess;
  case cu::kAttrComputeCapabilityMajor:
    *value = 9;
    return kSuccess;
  case cu::kAttrComputeCapabilityMinor:
    *value = 0;
    return kSuccess;
  case cu::kAttrDmaBufSupported:
    *value = envInt("COLLC_FAKE_CUDA_DMA_BUF", 1) != 0;
    return kSuccess;
  default:
    return kNotSupported;
  }
}

Result cuDevicePrimaryCtxRetain(void **context, int device) {
  FAKE_ENTRY("cuDevicePrimaryCtxRetain");
  if (!driver().initialized)
    return kNotInitialized;
  if (device < 0 || device >= driver().devices)
    return kInvalidDevice;
  *context = &driver().contexts[device];
  return kSuccess;
}

Result cuCtxSetCurrent(void *context) {
  FAKE_ENTRY("cuCtxSetCurrent");
  currentContext = static_cast<Context *>(context);
  return kSuccess;
}

Result cuDeviceCanAccessPeer(int *can, int device, int peer) {
  FAKE_ENTRY("cuDeviceCanAccessPeer");
  int n = driver().devices;
  if (device < 0 || device >= n || peer < 0 || peer >= n)
    return kInvalidDevice;
  *can = device != peer && envInt("COLLC_FAKE_CUDA_P2P", 1) != 0;
  return kSuccess;
}

Result cuCtxEnablePeerAccess(void *peerContext, unsigned flags) {
  FAKE_ENTRY("cuCtxEnablePeerAccess");
  if (Result r = needContext(); r != kSuccess)
    return r;
  auto *peer = static_cast<Context *>(peerContext);
  if (!peer || flags != 0)
    return kInvalidValue;
  if (peer == currentContext)
    return kInvalidDevice;
  if (envInt("COLLC_FAKE_CUDA_P2P", 1) == 0)
    return kPeerAccessUnsupported;
  std::lock_guard<std::mutex> lock(driver().mutex);
  if (!currentContext->peers.insert(peer->device).second)
    return kPeerAccessAlreadyEnabled;
  return kSuccess;
}

//===--- Modules ----------------------------------------------------------===//

Result cuModuleLoadData(void **module, const void *image) {
  FAKE_ENTRY("cuModuleLoadData");
  if (Result r = needContext(); r != kSuccess)
    return r;
  const auto *bytes = static_cast<const unsigned char *>(image);
  std::unique_ptr<Module> m(new Module);
  uint32_t magic = 0;
  std::memcpy(&magic, bytes, sizeof magic);
  if (magic == kFatbinMagic) {
    m->functions = runtimeKernels();
  } else if (size_t size = elfSize(bytes)) {
    // A path of its own for every load: the dynamic loader takes a path it
    // has loaded before for that library, and a kernel object stays loaded
    // after dlclose (its inline thread_local makes it NODELETE).
    static std::atomic<long> loads{0};
    const char *tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") +
                       "/collc-fake-cuda-" + std::to_string(getpid()) + "-" +
                       std::to_string(++loads) + ".so";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool written = fd >= 0 && write(fd, bytes, size) == ssize_t(size);
    if (fd >= 0)
      close(fd);
    if (written)
      m->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char *why =
        written ? (m->library ? nullptr : dlerror()) : std::strerror(errno);
    unlink(path.c_str());
    if (!m->library) {
      std::fprintf(stderr,
                   "collc fake CUDA driver: loading a module (%s): %s\n",
                   path.c_str(), why ? why : "?");
      return written ? kInvalidImage : kOutOfMemory;
    }
    for (const std::string &name : exportedFunctions(bytes)) {
      void *symbol = dlsym(m->library, name.c_str());
      if (!symbol || name.rfind(kRawPrefix, 0) == 0)
        continue;
      m->functions.emplace_back(new Function);
      m->functions.back()->name = name;
      if (void *raw = dlsym(m->library, (kRawPrefix + name).c_str()))
        m->functions.back()->raw = reinterpret_cast<RawKernel>(raw);
      else
        m->functions.back()->plan = reinterpret_cast<PlanKernel>(symbol);
    }
  } else {
    return kInvalidImage;
  }
  for (auto &f : m->functions)
    f->module = m.get();
  *module = m.release();
  return kSuccess;
}

Result cuModuleUnload(void *module) {
  FAKE_ENTRY("cuModuleUnload");
  auto *m = static_cast<Module *>(module);
  if (!m)
    return kInvalidHandle;
  if (m->library)
    dlclose(m->library);
  delete m;
  return kSuccess;
}

Result cuModuleGetFunction(void **function, void *module, const char *name) {
  FAKE_ENTRY("cuModuleGetFunction");
  auto *m = static_cast<Module *>(module);
  if (!m || !name)
    return kInvalidValue;
  for (auto &f : m->functions)
    if (f->name == name) {
      *function = f.get();
      return kSuccess;
    }
  return kNotFound;
}

Result cuModuleGetFunctionCount(unsigned *count, void *module) {
  FAKE_ENTRY("cuModuleGetFunctionCount");
  auto *m = static_cast<Module *>(module);
  if (!m)
    return kInvalidValue;
  *count = unsigned(m->functions.size());
  return kSuccess;
}

Result cuModuleEnumerateFunctions(void **functions, unsigned count,
                                  void *module) {
  FAKE_ENTRY("cuModuleEnumerateFunctions");
  auto *m = static_cast<Module *>(module);
  if (!m || count != m->functions.size())
    return kInvalidValue;
  for (unsigned i = 0; i < count; ++i)
    functions[i] = m->functions[i].get();
  return kSuccess;
}

Result cuFuncGetName(const char **name, void *function) {
  FAKE_ENTRY("cuFuncGetName");
  auto *f = static_cast<Function *>(function);
  if (!f)
    return kInvalidValue;
  *name = f->name.c_str();
  return kSuccess;
}

Result cuFuncGetAttribute(int *value, int attribute, void *function) {
  FAKE_ENTRY("cuFuncGetAttribute");
  auto *f = static_cast<Function *>(function);
  if (!f)
    return kInvalidHandle;
  switch (attribute) {
  case cu::kFuncMaxThreadsPerBlock:
    *value = f->maxThreads;
    return kSuccess;
  case cu::kFuncLocalSizeBytes:
    *value = 0;
    return kSuccess;
  case cu::kFuncNumRegs:
    *value = 32;
    return kSuccess;
  default:
    return kNotSupported;
  }
}

Result cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *function,
                                                   int threads, size_t) {
  FAKE_ENTRY("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  auto *f = static_cast<Function *>(function);
  if (!f || threads <= 0 || threads > f->maxThreads)
    return kInvalidValue;
  *blocks = std::min(2048 / threads, 32);
  return kSuccess;
}

//===--- Memory -----------------------------------------------------------===//

Result cuMemAlloc_v2(DevicePtr *ptr, size_t bytes) {
  FAKE_ENTRY("cuMemAlloc_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes == 0)
    return kInvalidValue;
  {
    std::lock_guard<std::mutex> lock(driver().mutex);
    size_t &used = driver().used[currentContext->device];
    size_t capacity =
        size_t(std::strtoull(std::getenv("COLLC_FAKE_CUDA_MEMORY")
                                 ? std::getenv("COLLC_FAKE_CUDA_MEMORY")
                                 : "8589934592",
                             nullptr, 10));
    if (bytes > capacity || used > capacity - bytes)
      return kOutOfMemory;
    used += bytes;
  }
  int fd = memfd_create("collc-fake-cuda-memory", MFD_CLOEXEC);
  void *p = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, off_t(bytes)) == 0)
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  std::lock_guard<std::mutex> lock(driver().mutex);
  if (p == MAP_FAILED) {
    if (fd >= 0)
      close(fd);
    driver().used[currentContext->device] -= bytes;
    return kOutOfMemory;
  }
  driver().allocations[DevicePtr(uintptr_t(p))] = {bytes, fd,
                                                   currentContext->device};
  *ptr = DevicePtr(uintptr_t(p));
  return kSuccess;
}

Result cuMemFree_v2(DevicePtr ptr) {
  FAKE_ENTRY("cuMemFree_v2");
  synchronizeAll(); // the driver's implicit synchronization
  std::lock_guard<std::mutex> lock(driver().mutex);
  auto it = driver().allocations.find(ptr);
  if (it == driver().allocations.end())
    return kInvalidValue;
  munmap(reinterpret_cast<void *>(uintptr_t(ptr)), it->second.bytes);
  close(it->second.fd);
  driver().used[it->second.device] -= it->second.bytes;
  driver().allocations.erase(it);
  return kSuccess;
}

Result cuMemHostAlloc(void **ptr, size_t bytes, unsigned) {
  FAKE_ENTRY("cuMemHostAlloc");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes == 0)
    return kInvalidValue;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return kOutOfMemory;
  std::lock_guard<std::mutex> lock(driver().mutex);
  driver().host[uintptr_t(p)] = {bytes, true};
  *ptr = p;
  return kSuccess;
}

Result cuMemFreeHost(void *ptr) {
  FAKE_ENTRY("cuMemFreeHost");
  std::lock_guard<std::mutex> lock(driver().mutex);
  auto it = driver().host.find(uintptr_t(ptr));
  if (it == driver().host.end() || !it->second.second)
    return kInvalidValue;
  munmap(ptr, it->second.first);
  driver().host.erase(it);
  return kSuccess;
}

Result cuMemHostRegister_v2(void *ptr, size_t bytes, unsigned) {
  FAKE_ENTRY("cuMemHostRegister_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (!ptr || bytes == 0)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(driver().mutex);
  uintptr_t start = uintptr_t(ptr);
  for (const auto &[base, h] : driver().host)
    if (start < base + h.first && base < start + bytes)
      return kHostMemoryAlreadyRegistered;
  driver().host[start] = {bytes, false};
  return kSuccess;
}

Result cuMemHostUnregister(void *ptr) {
  FAKE_ENTRY("cuMemHostUnregister");
  std::lock_guard<std::mutex> lock(driver().mutex);
  auto it = driver().host.find(uintptr_t(ptr));
  if (it == driver().host.end() || it->second.second)
    return kHostMemoryNotRegistered;
  driver().host.erase(it);
  return kSuccess;
}

Result cuMemHostGetDevicePointer_v2(DevicePtr *device, void *ptr,
                                    unsigned flags) {
  FAKE_ENTRY("cuMemHostGetDevicePointer_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (flags != 0 || !addressable(DevicePtr(uintptr_t(ptr)), 1))
    return kInvalidValue;
  *device = DevicePtr(uintptr_t(ptr));
  return kSuccess;
}

Result cuFlushGPUDirectRDMAWrites(int, int) {
  FAKE_ENTRY("cuFlushGPUDirectRDMAWrites");
  return needContext();
}

Result cuMemcpyHtoD_v2(DevicePtr dst, const void *src, size_t bytes) {
  FAKE_ENTRY("cuMemcpyHtoD_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes && !addressable(dst, bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
  return kSuccess;
}

Result cuMemcpyDtoH_v2(void *dst, DevicePtr src, size_t bytes) {
  FAKE_ENTRY("cuMemcpyDtoH_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes && !addressable(src, bytes))
    return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<const void *>(uintptr_t(src)), bytes);
  return kSuccess;
}

Result cuMemsetD8_v2(DevicePtr dst, unsigned char value, size_t bytes) {
  FAKE_ENTRY("cuMemsetD8_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes && !addressable(dst, bytes))
    return kInvalidValue;
  char *begin = reinterpret_cast<char *>(uintptr_t(dst));
  // Zeros over whole pages of an allocation of this process: punch them
  // out of its memfd (they read as zeros, in every mapping) instead of
  // writing every page; a GPU's memset of a big slot arena is quick, and
  // writing gigabytes page by page made run.sh's rehearsal crawl.
  if (value == 0) {
    int fd = -1;
    uintptr_t base = 0;
    {
      std::lock_guard<std::mutex> lock(driver().mutex);
      auto it = driver().allocations.upper_bound(dst);
      if (it != driver().allocations.begin()) {
        --it;
        if (uintptr_t(dst) + bytes <= uintptr_t(it->first) + it->second.bytes) {
          fd = it->second.fd;
          base = uintptr_t(it->first);
        }
      }
    }
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    uintptr_t first = (uintptr_t(begin) + page - 1) / page * page,
              last = (uintptr_t(begin) + bytes) / page * page;
    if (fd >= 0 && last > first &&
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  off_t(first - base), off_t(last - first)) == 0) {
      std::memset(begin, 0, first - uintptr_t(begin));
      std::memset(reinterpret_cast<char *>(last), 0,
                  uintptr_t(begin) + bytes - last);
      return kSuccess;
    }
  }
  std::memset(begin, value, bytes);
  return kSuccess;
}

Result cuMemcpyDtoDAsync_v2(DevicePtr dst, DevicePtr src, size_t bytes,
                            void *stream) {
  FAKE_ENTRY("cuMemcpyDtoDAsync_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (bytes && (!addressable(dst, bytes) || !addressable(src, bytes)))
    return kInvalidValue;
  streamOf(stream)->push([dst, src, bytes] {
    std::memmove(reinterpret_cast<void *>(uintptr_t(dst)),
                 reinterpret_cast<const void *>(uintptr_t(src)), bytes);
  });
  return kSuccess;
}

Result cuMemGetHandleForAddressRange(void *handle, DevicePtr ptr, size_t size,
                                     int type, unsigned long long flags) {
  FAKE_ENTRY("cuMemGetHandleForAddressRange");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (!handle || type != cu::kMemRangeHandleTypeDmaBufFd || flags != 0)
    return kInvalidValue;
  if (envInt("COLLC_FAKE_CUDA_DMA_BUF", 1) == 0)
    return kNotSupported;
  // As the driver: host-page-aligned, inside one allocation of this
  // process.
  uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  if (size == 0 || ptr % page != 0 || size % page != 0)
    return kInvalidValue;
  int memfd = -1;
  uint64_t at = 0;
  {
    std::lock_guard<std::mutex> lock(driver().mutex);
    auto &allocations = driver().allocations;
    auto it = allocations.upper_bound(ptr);
    if (it == allocations.begin())
      return kInvalidValue;
    --it;
    if (ptr < it->first || ptr + size > it->first + it->second.bytes)
      return kInvalidValue;
    memfd = it->second.fd;
    at = ptr - it->first;
  }
  std::string path = "/proc/self/fd/" + std::to_string(memfd);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return kOutOfMemory;
  if (lseek(fd, off_t(at), SEEK_SET) < 0) {
    close(fd);
    return kOutOfMemory;
  }
  *static_cast<int *>(handle) = fd;
  return kSuccess;
}

//===--- IPC --------------------------------------------------------------===//

Result cuIpcGetMemHandle(IpcHandle *handle, DevicePtr ptr) {
  FAKE_ENTRY("cuIpcGetMemHandle");
  if (Result r = needContext(); r != kSuccess)
    return r;
  std::lock_guard<std::mutex> lock(driver().mutex);
  auto it = driver().allocations.find(ptr);
  if (it == driver().allocations.end())
    return kInvalidValue;
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle->magic, kIpcMagic, sizeof kIpcMagic);
  handle->process = int32_t(getpid());
  handle->fd = it->second.fd;
  handle->bytes = it->second.bytes;
  return kSuccess;
}

Result cuIpcOpenMemHandle_v2(DevicePtr *ptr, IpcHandle handle, unsigned) {
  FAKE_ENTRY("cuIpcOpenMemHandle_v2");
  if (Result r = needContext(); r != kSuccess)
    return r;
  if (std::memcmp(handle.magic, kIpcMagic, sizeof kIpcMagic) != 0)
    return kInvalidValue;
  if (handle.process == int32_t(getpid()))
    return kInvalidContext; // the driver refuses a process's own handle
  std::string path = "/proc/" + std::to_string(handle.process) + "/fd/" +
                     std::to_string(handle.fd);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return kInvalidValue;
  void *p = mmap(nullptr, size_t(handle.bytes), PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return kOutOfMemory;
  std::lock_guard<std::mutex> lock(driver().mutex);
  driver().opened[DevicePtr(uintptr_t(p))] = size_t(handle.bytes);
  *ptr = DevicePtr(uintptr_t(p));
  return kSuccess;
}

Result cuIpcCloseMemHandle(DevicePtr ptr) {
  FAKE_ENTRY("cuIpcCloseMemHandle");
  std::lock_guard<std::mutex> lock(driver().mutex);
  auto it = driver().opened.find(ptr);
  if (it == driver().opened.end())
    return kInvalidValue;
  munmap(reinterpret_cast<void *>(uintptr_t(ptr)), it->second);
  driver().opened.erase(it);
  return kSuccess;
}

//===--- Launches, streams, events, graphs --------------------------------===//

Result cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned shared,
                      void *stream, void **params, void **extra) {
  FAKE_ENTRY("cuLaunchKernel");
  if (Result r = needContext(); r != kSuccess)
    return r;
  auto *f = static_cast<Function *>(function);
  if (!f || !params || extra || shared != 0 || gx == 0 || gy != 1 || gz != 1 ||
      bx == 0 || by != 1 || bz != 1 || bx > unsigned(f->maxThreads))
    return kInvalidValue;
  if (f->divide) {
    DevicePtr data;
    int64_t n, divisor;
    std::memcpy(&data, params[0], sizeof data);
    std::memcpy(&n, params[1], sizeof n);
    std::memcpy(&divisor, params[2], sizeof divisor);
    DivideKernel divide = f->divide;
    streamOf(stream)->push([divide, data, n, divisor] {
      divide(reinterpret_cast<void *>(uintptr_t(data)), n, divisor);
    });
    return kSuccess;
  }
  if (f->raw) {
    // Its arguments are read when it is enqueued: pointers and sizes, 8
    // bytes each (bench_copy_kernel's three).
    std::vector<uint64_t> values(3);
    for (size_t i = 0; i < values.size(); ++i)
      std::memcpy(&values[i], params[i], sizeof values[i]);
    RawKernel raw = f->raw;
    streamOf(stream)->push([raw, values, gx, bx]() mutable {
      void *pointers[3] = {&values[0], &values[1], &values[2]};
      raw(pointers, gx, bx);
    });
    return kSuccess;
  }
  collrt::dev::LaunchArgs args;
  std::memcpy(&args, params[0], sizeof args);
  PlanKernel kernel = f->plan;
  streamOf(stream)->push([kernel, args, gx] {
    Driver &d = driver();
    long run;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      run = ++d.launches;
    }
    bool fault = faultsHere() && envInt("COLLC_FAKE_CUDA_FAULT", 0) == run;
    if (fault || d.sticky == kIllegalAddress) {
      d.sticky = kIllegalAddress; // the context fails; no block runs
      return;
    }
    std::vector<std::thread> blocks;
    for (unsigned b = 0; b < gx; ++b) {
      try {
        blocks.emplace_back([kernel, args, b] {
          collrt::dev::LaunchArgs mine = args;
          mine.emulatedBlock = int32_t(b);
          kernel(mine);
        });
      } catch (const std::system_error &) {
        // The context fails (cuEventQuery says so); the blocks that started
        // wait for this one until the executor's watchdog raises abortFlag.
        driver().sticky = kLaunchFailed;
        std::fprintf(stderr,
                     "collc fake CUDA driver: could not start the thread of "
                     "block %u of %u\n",
                     b, gx);
        break;
      }
    }
    for (std::thread &t : blocks)
      t.join();
  });
  return kSuccess;
}

Result cuStreamCreate(void **stream, unsigned) {
  FAKE_ENTRY("cuStreamCreate");
  if (Result r = needContext(); r != kSuccess)
    return r;
  *stream = new Stream;
  return kSuccess;
}

Result cuStreamDestroy_v2(void *stream) {
  FAKE_ENTRY("cuStreamDestroy_v2");
  if (!stream)
    return kInvalidHandle;
  delete static_cast<Stream *>(stream);
  return kSuccess;
}

Result cuStreamSynchronize(void *stream) {
  FAKE_ENTRY("cuStreamSynchronize");
  streamOf(stream)->synchronize();
  return driver().sticky;
}

Result cuEventCreate(void **event, unsigned) {
  FAKE_ENTRY("cuEventCreate");
  if (Result r = needContext(); r != kSuccess)
    return r;
  *event = new Event;
  return kSuccess;
}

Result cuEventDestroy_v2(void *event) {
  FAKE_ENTRY("cuEventDestroy_v2");
  if (!event)
    return kInvalidHandle;
  delete static_cast<Event *>(event);
  return kSuccess;
}

Result cuEventRecord(void *event, void *stream) {
  FAKE_ENTRY("cuEventRecord");
  auto *e = static_cast<Event *>(event);
  if (!e)
    return kInvalidHandle;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    generation = ++e->recorded;
  }
  streamOf(stream)->push([e, generation] {
    std::lock_guard<std::mutex> lock(e->mutex);
    e->at = Clock::now();
    e->reached = generation;
    e->done.notify_all();
  });
  return kSuccess;
}

Result cuEventQuery(void *event) {
  FAKE_ENTRY("cuEventQuery");
  auto *e = static_cast<Event *>(event);
  if (!e)
    return kInvalidHandle;
  if (Result r = driver().sticky; r != kSuccess)
    return r;
  std::lock_guard<std::mutex> lock(e->mutex);
  return e->reached == e->recorded ? kSuccess : kNotReady;
}

Result cuEventSynchronize(void *event) {
  FAKE_ENTRY("cuEventSynchronize");
  auto *e = static_cast<Event *>(event);
  if (!e)
    return kInvalidHandle;
  std::unique_lock<std::mutex> lock(e->mutex);
  e->done.wait(lock, [&] { return e->reached == e->recorded; });
  return driver().sticky;
}

Result cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  FAKE_ENTRY("cuEventElapsedTime_v2");
  auto *a = static_cast<Event *>(start), *b = static_cast<Event *>(end);
  if (!a || !b)
    return kInvalidHandle;
  std::lock_guard<std::mutex> la(a->mutex);
  std::lock_guard<std::mutex> lb(b->mutex);
  if (!a->recorded || !b->recorded)
    return kInvalidHandle;
  if (a->reached != a->recorded || b->reached != b->recorded)
    return kNotReady;
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return kSuccess;
}

Result cuStreamBeginCapture_v2(void *stream, int) {
  FAKE_ENTRY("cuStreamBeginCapture_v2");
  if (!stream)
    return kStreamCaptureUnsupported;
  auto *s = static_cast<Stream *>(stream);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->capture)
    return kStreamCaptureUnsupported;
  s->capture = new Graph;
  return kSuccess;
}

Result cuStreamEndCapture(void *stream, Graph **graph) {
  FAKE_ENTRY("cuStreamEndCapture");
  if (!stream)
    return kInvalidValue;
  auto *s = static_cast<Stream *>(stream);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (!s->capture)
    return kInvalidValue;
  *graph = s->capture;
  s->capture = nullptr;
  return kSuccess;
}

Result cuGraphInstantiateWithFlags(Graph **exec, Graph *graph,
                                   unsigned long long) {
  FAKE_ENTRY("cuGraphInstantiateWithFlags");
  if (!graph)
    return kInvalidValue;
  *exec = new Graph(*graph);
  return kSuccess;
}

Result cuGraphLaunch(Graph *exec, void *stream) {
  FAKE_ENTRY("cuGraphLaunch");
  if (!exec)
    return kInvalidValue;
  for (const Operation &op : exec->operations)
    streamOf(stream)->push(op);
  return kSuccess;
}

Result cuGraphExecDestroy(Graph *exec) {
  FAKE_ENTRY("cuGraphExecDestroy");
  delete exec;
  return kSuccess;
}

Result cuGraphDestroy(Graph *graph) {
  FAKE_ENTRY("cuGraphDestroy");
  delete graph;
  return kSuccess;
}

} // extern "C"
