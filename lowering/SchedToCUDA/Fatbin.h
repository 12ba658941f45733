//===- Fatbin.h - generated CUDA compiled by nvcc ---------------*- C++ -*-===//
//
// `collc --emit=fatbin`: the CUDA C++ of emitCuda compiled by nvcc into one
// fatbin holding a cubin per architecture asked for, which the runtime loads
// with cuModuleLoadData (no compiler where it runs). There is no fallback:
// without nvcc, or without the CUDA implementation of the device contract
// (collrt/device/ChannelCuda.cuh), compilation fails and says why.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SCHEDTOCUDA_FATBIN_H
#define COLLC_LOWERING_SCHEDTOCUDA_FATBIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace collc {
namespace cuda {

struct FatbinOptions {
  /// nvcc to run; empty: `nvcc` on PATH, else /usr/local/cuda/bin/nvcc.
  std::string nvcc;
  /// Architectures, "sm_80", "sm_90", "sm_90a", ...; empty: sm_80, sm_90.
  std::vector<std::string> architectures;
  /// Include directories: the first must hold collrt/device/Channel.h and
  /// collrt/device/ChannelCuda.cuh (runtime/include).
  std::vector<std::string> includeDirs;
};

/// The architectures of a --cuda-arch value: comma-separated "sm_NN" (a
/// bare "NN" is read as sm_NN). False, with `error` set, on anything else
/// or an empty list.
bool parseArchitectures(llvm::StringRef text, std::vector<std::string> &archs,
                        std::string &error);

/// The nvcc that compileFatbin would run; false, with `error` saying where
/// it looked, when there is none.
bool findNvcc(const FatbinOptions &options, std::string &path,
              std::string &error);

/// Compiles `source` (emitCuda's output) with nvcc into `fatbin` (the
/// file's bytes). Temporary files are removed whatever happens. False,
/// with `error` set (nvcc's command line and output when it failed), on
/// any failure.
bool compileFatbin(const std::string &source, const FatbinOptions &options,
                   std::string &fatbin, std::string &error);

} // namespace cuda
} // namespace collc

#endif
