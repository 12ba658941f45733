# lit configuration for collc's tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "collc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.collc_obj_root, "test")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "unittests",
                   "CMakeLists.txt"]
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%collc_src", config.collc_src_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
tools = ["collc", "collc-opt", "collc-run"]
llvm_config.add_tool_substitutions(tools, [config.collc_tools_dir])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# --param fake_cuda=DIR (ctest's lit-fake-cuda): the GPU tests run against
# collc's fake CUDA driver (test/fakecuda: DIR/lib/libcuda.so.1, host
# threads for blocks) with its nvcc stand-in (DIR/bin/nvcc: the generated
# CUDA compiled for the host), so that collc-run's cuda paths run without a
# GPU. The tests' outputs go to test-fake-cuda/, apart from the plain run's.
_fake_cuda = lit_config.params.get("fake_cuda")
if _fake_cuda:
    _fake_cuda = os.path.abspath(_fake_cuda)
    config.test_exec_root = os.path.join(config.collc_obj_root, "test-fake-cuda")
    llvm_config.with_environment("PATH", os.path.join(_fake_cuda, "bin"), append_path=True)
    llvm_config.with_environment("LD_LIBRARY_PATH", os.path.join(_fake_cuda, "lib"),
                                 append_path=True)
    # Two devices (for the tests and for the checks below, in this process).
    config.environment["COLLC_FAKE_CUDA_DEVICES"] = "2"
    os.environ["COLLC_FAKE_CUDA_DEVICES"] = "2"
    config.available_features.add("fake-cuda")
_libcuda = os.path.join(_fake_cuda, "lib", "libcuda.so.1") if _fake_cuda else "libcuda.so.1"

# Open MPI's launcher, for collc-run's multi-process tests
# (test/tools/collc-run/mpirun.test).
if shutil.which("mpirun"):
    config.available_features.add("mpirun")

# The emulated libibverbs (test/fakeibverbs): the ib transport's tests put
# %fake_ibverbs first in LD_LIBRARY_PATH, so that collc-run's dlopen of
# libibverbs.so.1 finds it instead of rdma-core's.
_fake_ibverbs = os.path.join(config.collc_obj_root, "fake-ibverbs", "lib")
config.substitutions.append(("%fake_ibverbs", _fake_ibverbs))
if os.path.isfile(os.path.join(_fake_ibverbs, "libibverbs.so.1")):
    config.available_features.add("fake-ibverbs")

# An RDMA device on this host (test/tools/collc-run/ib.test expects none).
if os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband"):
    config.available_features.add("rdma")

# A usable CUDA GPU, asked of the driver itself (libcuda.so.1: cuInit, then
# cuDeviceGetCount), and nvcc for collc --emit=fatbin: collc-run --backend
# cuda's run on a GPU (test/tools/collc-run/cuda-gpu.test) requires both;
# cuda-no-gpu.test expects neither a driver nor a device. %cuda_arch is
# device 0's architecture (sm_90 where there is none).
def _cuda_gpu_arch():
    import ctypes
    try:
        cuda = ctypes.CDLL(_libcuda)
        count = ctypes.c_int(0)
        if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return None
        if count.value < 1:
            return None
        device, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        if (cuda.cuDeviceGet(ctypes.byref(device), 0) != 0 or
                cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device) != 0 or
                cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device) != 0):
            return "sm_90"
        return "sm_%d%d" % (major.value, minor.value)
    except (OSError, AttributeError):
        return None

_cuda_arch = _cuda_gpu_arch()
if _cuda_arch:
    config.available_features.add("cuda-gpu")
config.substitutions.append(("%cuda_arch", _cuda_arch or "sm_90"))

# Two CUDA devices of which device 0 can access device 1's memory and back
# (cuDeviceCanAccessPeer both ways): collc-run --devices 0,1
# (test/tools/collc-run/cuda-devices-peer.test) requires it.
def _cuda_peer_pair():
    import ctypes
    try:
        cuda = ctypes.CDLL(_libcuda)
        count = ctypes.c_int(0)
        if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return False
        if count.value < 2:
            return False
        d0, d1 = ctypes.c_int(0), ctypes.c_int(0)
        if cuda.cuDeviceGet(ctypes.byref(d0), 0) != 0 or cuda.cuDeviceGet(ctypes.byref(d1), 1) != 0:
            return False
        a, b = ctypes.c_int(0), ctypes.c_int(0)
        if (cuda.cuDeviceCanAccessPeer(ctypes.byref(a), d0, d1) != 0 or
                cuda.cuDeviceCanAccessPeer(ctypes.byref(b), d1, d0) != 0):
            return False
        return bool(a.value and b.value)
    except (OSError, AttributeError):
        return False

if _cuda_arch and _cuda_peer_pair():
    config.available_features.add("cuda-peer-gpus")
if _fake_cuda or shutil.which("nvcc") or os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
    config.available_features.add("nvcc")
