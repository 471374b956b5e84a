//===- CAPICompile.cpp - poot_compile over the C++ compiler API -----------===//

#include "CAPIInternal.h"

#include "poot/Compiler.h"

extern "C" poot_status poot_compile(const char *text, size_t length,
                                    const char *target, unsigned flags,
                                    poot_plan **out) {
  poot::capi::clearError();
  if (!text || !out)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
  poot::CompileOptions options;
  options.target = target ? target : "cpu";
  options.fuse = (flags & POOT_COMPILE_NO_FUSION) == 0;
  if (!poot::deviceForTarget(options.target))
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            "unknown target '" + options.target + "'");
  if (flags & POOT_COMPILE_DEVICE_FROM_HOST) {
    // Checked here too, so a missing device reads as unsupported rather
    // than as a graph that did not compile.
    auto live = poot::hostDeviceFacts(options.target);
    if (!live)
      return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                              llvm::toString(live.takeError()));
    options.deviceFromHost = true;
  }
  auto plan = poot::compileGraph(llvm::StringRef(text, length), options);
  if (!plan)
    return poot::capi::fail(POOT_ERR_COMPILE, llvm::toString(plan.takeError()));
  *out = new poot_plan{
      std::make_shared<const poot::rt::Plan>(std::move(*plan))};
  return POOT_OK;
}
