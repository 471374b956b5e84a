//===- Passes.td - The kernel generator's pass -------------*- tablegen -*-===//
//
// poot-generate: the one kernel generator, over the targets' hooks.
// Declared by the codegen layer, above the planner whose schedules it reads.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_PASSES_TD
#define POOT_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def Generate : Pass<"poot-generate", "mlir::ModuleOp"> {
  let summary = "Generate gpu-dialect kernels for every op of the graph";
  let description = [{
    The one kernel generator (codegen/Common) builds each planned
    `poot.attention` into kernels of a `gpu.module` through the chosen
    target's hooks, and records the launches on the op as `poot.launches`
    (kernel symbol, grid, lanes, argument roles in order). Every other op
    but `poot.constant` (RoPE, the sparse ops, every primitive op left
    unfused) gets a simple kernel in the same module, its arguments bound
    by position (`in0`, ..., `out0`, ..., and `err`, an error word), so the
    whole graph runs on the device. A dtype the target cannot store fails
    with `DtypeLowering`.

    ```mlir
    %o = poot.attention ... {poot.schedule = {kind = "streaming", lanes = 16, ...}}
    // becomes
    // poot.launches lists, per launch: kernel = "attention_N_stream",
    // grid = array<i64: 8, 1>, lanes = 16, args = ["q", "k", "v", "out"]
    %o = poot.attention ... {poot.launches = ...}
    gpu.module @poot_kernels { gpu.func @attention_N_stream(...) kernel {...} }

    %s = poot.add %a, %b : ...
    // becomes, with poot.launches listing kernel = "add_0",
    // grid = array<i64: 1, 1>, lanes = 64, args = ["in0", "in1", "out0"]
    %s = poot.add %a, %b {poot.launches = ...} : ...
    gpu.module @poot_kernels { ... gpu.func @add_0(...) kernel {...} }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "",
           "Code generation target: spirv, nvvm, rocdl (default: the target "
           "of the device the module was planned for)">,
    Option<"chip", "chip", "std::string", "",
           "AMDGPU chip of the rocdl target: gfx90a, gfx942, gfx1100 "
           "(default: the planned device)">,
    Option<"int64", "int64", "bool", "true",
           "spirv: the device has 64-bit integers (Vulkan's shaderInt64), "
           "so i64 values are stored and computed as such; false refuses "
           "them with DtypeLowering (poot-plan has refused them already "
           "for a device whose facts lack shaderInt64)">,
  ];
  let dependentDialects = [
    "poot::PootDialect", "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::spirv::SPIRVDialect",
    "mlir::LLVM::LLVMDialect", "mlir::vector::VectorDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::NVVM::NVVMDialect"
  ];
}

#endif // POOT_CODEGEN_PASSES_TD
