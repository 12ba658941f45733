#!/usr/bin/env python3
"""Prints the coll dialect reference as mlir-tblgen generates it from ODS.

Runs the same command as the coll-dialect-doc CMake target, with the MLIR
include directory found next to the mlir-tblgen on PATH.
"""
import os
import shutil
import subprocess
import sys


def main():
    source_root = sys.argv[1]
    tblgen = shutil.which("mlir-tblgen")
    if not tblgen:
        sys.exit("mlir-tblgen is not on PATH")
    include = os.path.join(os.path.dirname(os.path.realpath(tblgen)), "..", "include")
    result = subprocess.run(
        [tblgen, "-gen-dialect-doc", "-dialect=coll", "-I", include, "-I", source_root,
         os.path.join(source_root, "dialects/Coll/IR/CollOps.td")],
        check=True, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(result.stdout)


if __name__ == "__main__":
    main()
