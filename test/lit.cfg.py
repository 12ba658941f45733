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

# Open MPI's launcher, for collc-run's multi-process tests
# (test/tools/collc-run/mpirun.test).
if shutil.which("mpirun"):
    config.available_features.add("mpirun")

# An RDMA device on this host (test/tools/collc-run/ib.test expects none).
if os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband"):
    config.available_features.add("rdma")
