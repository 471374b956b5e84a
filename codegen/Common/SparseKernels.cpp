//===- SparseKernels.cpp - poot.block_topk and poot.selected_attention ----===//

#include "KernelBuilder.h"
#include "poot/Dialect/PootDialect.h"

using namespace mlir;
using namespace poot;
using namespace poot::codegen;

FailureOr<std::vector<Launch>>
poot::codegen::buildBlockTopKKernel(Operation *op, gpu::GPUModuleOp,
                                    const TargetHooks &, StringRef) {
  return op->emitError("no kernel for poot.block_topk yet");
}

FailureOr<std::vector<Launch>>
poot::codegen::buildSelectedAttentionKernel(Operation *op, gpu::GPUModuleOp,
                                            const TargetHooks &, StringRef) {
  return op->emitError("no kernel for poot.selected_attention yet");
}
