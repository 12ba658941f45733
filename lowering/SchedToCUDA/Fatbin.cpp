//===- Fatbin.cpp - generated CUDA compiled by nvcc -----------------------===//
#include "lowering/SchedToCUDA/Fatbin.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace collc {
namespace cuda {

bool parseArchitectures(llvm::StringRef text, std::vector<std::string> &archs,
                        std::string &error) {
  archs.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    llvm::StringRef digits = part;
    digits.consume_front("sm_");
    // sm_NN with an optional letter suffix (sm_90a).
    llvm::StringRef number = digits.take_while(llvm::isDigit);
    llvm::StringRef suffix = digits.drop_front(number.size());
    if (number.size() < 2 ||
        !(suffix.empty() || (suffix.size() == 1 && llvm::isLower(suffix[0])))) {
      error = "--cuda-arch: '" + part.str() +
              "' is not a CUDA architecture; expected sm_NN (e.g. "
              "--cuda-arch=sm_80,sm_90)";
      return false;
    }
    std::string arch = "sm_" + digits.str();
    if (!llvm::is_contained(archs, arch))
      archs.push_back(arch);
  }
  if (archs.empty()) {
    error = "--cuda-arch: no architecture given";
    return false;
  }
  return true;
}

bool findNvcc(const FatbinOptions &options, std::string &path,
              std::string &error) {
  if (!options.nvcc.empty()) {
    if (llvm::sys::fs::can_execute(options.nvcc)) {
      path = options.nvcc;
      return true;
    }
    error = "--nvcc '" + options.nvcc + "' is not an executable file";
    return false;
  }
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("nvcc")) {
    path = *found;
    return true;
  }
  const char *standard = "/usr/local/cuda/bin/nvcc";
  if (llvm::sys::fs::can_execute(standard)) {
    path = standard;
    return true;
  }
  error = "--emit=fatbin needs nvcc, which is neither on PATH nor at " +
          std::string(standard) +
          " (install the CUDA toolkit, pass --nvcc PATH, or write the CUDA "
          "source with --emit=cuda and compile it where nvcc is)";
  return false;
}

namespace {

/// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

bool makeTemp(llvm::StringRef prefix, llvm::StringRef suffix, TempFile &file,
              std::string &error) {
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile(prefix, suffix, fd, file.path)) {
    error =
        "cannot create a temporary ." + suffix.str() + " file: " + ec.message();
    return false;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  return true;
}

} // namespace

bool compileFatbin(const std::string &source, const FatbinOptions &options,
                   std::string &fatbin, std::string &error) {
  std::string nvcc;
  if (!findNvcc(options, nvcc, error))
    return false;
  std::vector<std::string> archs = options.architectures;
  if (archs.empty())
    archs = {"sm_80", "sm_90"};
  if (options.includeDirs.empty()) {
    error = "no include directory for collrt/device/Channel.h was given";
    return false;
  }
  // The kernels include collrt/device/Channel.h, which includes the CUDA
  // implementation; say so plainly when it is not there rather than
  // letting nvcc fail on a missing include.
  for (const char *header :
       {"collrt/device/Channel.h", "collrt/device/ChannelCuda.cuh"}) {
    bool found = false;
    for (const std::string &dir : options.includeDirs) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, header);
      found |= llvm::sys::fs::exists(path);
    }
    if (!found) {
      error = std::string("the CUDA implementation of the device runtime "
                          "is missing: ") +
              header + " is not in " + llvm::join(options.includeDirs, ", ") +
              " (the kernels' contract, runtime/include/collrt/device/"
              "Channel.h, needs it to compile with nvcc); --emit=cuda still "
              "writes the source";
      return false;
    }
  }

  TempFile sourceFile, outputFile, logFile;
  if (!makeTemp("collc-kernels", "cu", sourceFile, error) ||
      !makeTemp("collc-kernels", "fatbin", outputFile, error) ||
      !makeTemp("collc-nvcc", "log", logFile, error))
    return false;
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(sourceFile.path, ec);
    if (ec) {
      error =
          "cannot write '" + sourceFile.path.str().str() + "': " + ec.message();
      return false;
    }
    out << source;
    out.close();
    if (out.has_error()) {
      error = "cannot write '" + sourceFile.path.str().str() + "'";
      return false;
    }
  }

  std::vector<std::string> args = {nvcc, "-fatbin", "-std=c++17", "-O3"};
  for (const std::string &dir : options.includeDirs)
    args.push_back("-I" + dir);
  for (const std::string &arch : archs) {
    std::string number = arch.substr(3);
    args.push_back("-gencode=arch=compute_" + number + ",code=" + arch);
  }
  args.push_back("-o");
  args.push_back(outputFile.path.str().str());
  args.push_back(sourceFile.path.str().str());
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(logFile.path),
                                                llvm::StringRef(logFile.path)};
  std::string executeError;
  int status = llvm::sys::ExecuteAndWait(nvcc, argRefs, std::nullopt, redirects,
                                         0, 0, &executeError);
  if (status != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logFile.path))
      log = (*buffer)->getBuffer().str();
    error = "nvcc failed (" +
            (status < 0 ? "could not run: " + executeError
                        : "exit status " + std::to_string(status)) +
            "): " + llvm::join(args, " ") + (log.empty() ? "" : "\n" + log);
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(outputFile.path, false, false);
  if (!buffer || (*buffer)->getBufferSize() == 0) {
    error =
        "nvcc reported success but wrote no fatbin: " + llvm::join(args, " ");
    return false;
  }
  fatbin = (*buffer)->getBuffer().str();
  return true;
}

} // namespace cuda
} // namespace collc
