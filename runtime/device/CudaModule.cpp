//===- CudaModule.cpp - kernels loaded on a device ------------------------===//
#include "runtime/device/CudaExecutor.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace collrt {
namespace dev {

CudaModule::~CudaModule() {
  if (module_ && context_)
    driver_->cuCtxSetCurrent(context_);
  if (module_)
    driver_->cuModuleUnload(module_);
}

Status CudaModule::loadImage(const std::string &image, const std::string &name,
                             int device, std::unique_ptr<CudaModule> *out) {
  const CudaDriver *d = nullptr;
  cu::Context context = nullptr;
  if (Status s = loadCudaDriver(device, &d, &context); !s.ok())
    return s;
  std::unique_ptr<CudaModule> m(new CudaModule);
  m->driver_ = d;
  m->context_ = context;
  m->name_ = name;
  // PTX must be NUL-terminated; a copy with one more byte serves all.
  std::string data = image;
  data.push_back('\0');
  if (cu::Result r = d->cuModuleLoadData(&m->module_, data.data());
      r != cu::kSuccess)
    return d->fail(name + ": loading the module (built for another GPU "
                          "architecture, or not a fatbin/cubin/PTX?)",
                   "cuModuleLoadData", r, ErrorCode::InvalidArgument);
  *out = std::move(m);
  return Status::success();
}

Status CudaModule::loadFile(const std::string &path, int device,
                            std::unique_ptr<CudaModule> *out) {
  // Without a GPU that is the error, whatever the file.
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(device, &d); !s.ok())
    return s;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status(ErrorCode::SystemError,
                  path +
                      ": cannot open the kernel file: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return loadImage(bytes.str(), path, device, out);
}

Status CudaModule::function(const std::string &name,
                            cu::Function *function) const {
  if (cu::Result r =
          driver_->cuModuleGetFunction(function, module_, name.c_str());
      r != cu::kSuccess) {
    std::string known;
    for (const std::string &n : functionNames())
      known += (known.empty() ? "" : ", ") + n;
    return driver_->fail(name_ + ": no kernel '" + name + "'" +
                             (known.empty() ? "" : " (it has " + known + ")"),
                         "cuModuleGetFunction", r, ErrorCode::InvalidArgument);
  }
  return Status::success();
}

std::vector<std::string> CudaModule::functionNames(std::string *why) const {
  std::vector<std::string> names;
  std::string failure;
  unsigned count = 0;
  if (!driver_->cuModuleGetFunctionCount ||
      !driver_->cuModuleEnumerateFunctions || !driver_->cuFuncGetName) {
    failure = "the driver has no cuModuleEnumerateFunctions, CUDA < 12.4";
  } else if (cu::Result r = driver_->cuModuleGetFunctionCount(&count, module_);
             r != cu::kSuccess) {
    failure = driver_->error("cuModuleGetFunctionCount", r);
  } else {
    std::vector<cu::Function> functions(count);
    if (cu::Result r = driver_->cuModuleEnumerateFunctions(functions.data(),
                                                           count, module_);
        r != cu::kSuccess) {
      failure = driver_->error("cuModuleEnumerateFunctions", r);
    } else {
      for (cu::Function f : functions) {
        const char *name = nullptr;
        if (cu::Result r = driver_->cuFuncGetName(&name, f);
            r != cu::kSuccess || !name) {
          failure = driver_->error("cuFuncGetName", r);
          names.clear();
          break;
        }
        names.push_back(name);
      }
    }
  }
  if (why)
    *why = failure;
  std::sort(names.begin(), names.end());
  return names;
}

Status CudaModule::findPlanKernel(size_t index, const std::string &prefix,
                                  std::string *name) const {
  std::string start = prefix + "_k" + std::to_string(index) + "_";
  std::string why;
  std::vector<std::string> names = functionNames(&why), found;
  for (const std::string &n : names)
    if (n.compare(0, start.size(), start) == 0)
      found.push_back(n);
  if (found.size() == 1) {
    *name = found[0];
    return Status::success();
  }
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "" : ", ") + n;
  if (names.empty())
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": cannot list its kernels (" +
                      (why.empty() ? "it has none" : why) +
                      "); name the kernel of collective " +
                      std::to_string(index) + " (" + start + "...)");
  return Status(ErrorCode::InvalidArgument,
                name_ + ": " + std::to_string(found.size()) +
                    " kernels start with '" + start +
                    "' (want exactly one): " + known);
}

} // namespace dev
} // namespace collrt
