//===- ROCDLTarget.cpp - The ROCm (AMDGPU code object) target -------------===//
//
// Kernels keep their buffers in the global address space (addrspace 1, so
// the backend emits global loads rather than flat ones) and their running
// state in workgroup attributions (LDS). Lowering: SCF to CF, GPU to ROCDL
// with bare pointers for the static memrefs (one device pointer per kernel
// argument, as on CUDA), then each gpu.module's body is translated to LLVM
// IR for amdgcn-amd-amdhsa, optimised and compiled with LLVM's AMDGPU
// backend, and the object linked into a code object with ld.lld.
//
// No ROCm installation is needed. The ROCDL conversion turns math ops into
// calls to ROCm's device library (`__ocml_*`) and the grid size into a call
// of `__ockl_get_num_groups`; the hooks write exp and tanh through LLVM's
// exp intrinsic so the attention kernels call no `__ocml_*` at all, and
// whatever such calls remain are defined here, in the module, through
// intrinsics the backend lowers natively.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/ROCDL.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <cstdlib>

using namespace mlir;
using namespace poot::codegen;

namespace {

class ROCDLTarget : public LLVMTargetHooks {
public:
  explicit ROCDLTarget(StringRef chip) : chip(chip.str()) {}

  StringRef name() const override { return "rocdl"; }
  // e^x as LLVM's exp intrinsic on f32, which the AMDGPU backend expands
  // itself around v_exp_f32 (-inf -> +0, NaN -> NaN). math.exp and the
  // llvm.intr.exp op would become calls into ROCm's ocml library in the
  // ROCDL conversion; a generic intrinsic call passes through it untouched.
  Value exp(OpBuilder &b, Location loc, Value x) const override {
    return b
        .create<LLVM::CallIntrinsicOp>(loc, b.getF32Type(), "llvm.exp.f32",
                                       ValueRange{x})
        .getResult(0);
  }

  // A device-scope fence is LLVM's own `fence syncscope("agent")
  // acq_rel`, which the AMDGPU backend turns into the chip's cache
  // write-back and invalidate around a wait. The ROCm device facts do not
  // offer it (no AMD GPU has run it), so only the planner's request
  // (fused-combine) plans the fused combine here.
  bool hasDeviceFence() const override { return true; }
  void deviceFence(OpBuilder &b, Location loc) const override {
    b.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::acq_rel, "agent");
  }

private:
  /// The chip the kernels are for. Nothing above depends on it yet: the
  /// wavefront width the kernels assume comes with the schedule.
  std::string chip;
};

//===----------------------------------------------------------------------===//
// Device-library functions, defined in the module
//===----------------------------------------------------------------------===//

/// Defines `fn` (declared, i32 dim -> i64) as a read of the HSA dispatch
/// packet: workgroup_size_{x,y,z} are u16 at byte 4, grid_size_{x,y,z} u32
/// at byte 12. The grid is a whole number of workgroups on HIP.
void defineDispatchQuery(llvm::Function &fn, bool numGroups) {
  llvm::LLVMContext &ctx = fn.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", &fn));
  llvm::Value *dim = fn.getArg(0);
  llvm::Value *packet = b.CreateIntrinsic(
      llvm::Intrinsic::amdgcn_dispatch_ptr, {}, {});
  auto field = [&](unsigned base, unsigned width, llvm::Type *type) {
    llvm::Value *offset = b.CreateAdd(b.getInt32(base),
                                      b.CreateMul(dim, b.getInt32(width)));
    llvm::Value *ptr = b.CreateGEP(b.getInt8Ty(), packet, offset);
    llvm::LoadInst *load = b.CreateAlignedLoad(type, ptr, llvm::Align(width));
    load->setMetadata(llvm::LLVMContext::MD_invariant_load,
                      llvm::MDNode::get(ctx, {}));
    return b.CreateZExt(load, b.getInt32Ty());
  };
  llvm::Value *local = field(4, 2, b.getInt16Ty());
  llvm::Value *result = local;
  if (numGroups) {
    llvm::Value *grid = field(12, 4, b.getInt32Ty());
    result = b.CreateUDiv(b.CreateAdd(grid, b.CreateSub(local, b.getInt32(1))),
                          local);
  }
  b.CreateRet(b.CreateZExt(result, b.getInt64Ty()));
}

/// Defines `fn`, an `__ocml_<op>_f32` of one float, through the intrinsic
/// `id`; rsqrt through sqrt.
void defineUnaryMath(llvm::Function &fn, llvm::Intrinsic::ID id,
                     bool reciprocal) {
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(fn.getContext(), "entry", &fn));
  llvm::Value *r = b.CreateUnaryIntrinsic(id, fn.getArg(0));
  if (reciprocal)
    r = b.CreateFDiv(llvm::ConstantFP::get(r->getType(), 1.0), r);
  b.CreateRet(r);
}

/// Gives every device-library function the module declares a body of its
/// own; fails naming the first one it cannot define.
LogicalResult defineDeviceLibraryCalls(llvm::Module &m, Operation *anchor) {
  struct Math {
    llvm::Intrinsic::ID id;
    bool reciprocal;
  };
  static const llvm::StringMap<Math> kMath = {
      {"exp", {llvm::Intrinsic::exp, false}},
      {"exp2", {llvm::Intrinsic::exp2, false}},
      {"log", {llvm::Intrinsic::log, false}},
      {"log2", {llvm::Intrinsic::log2, false}},
      {"sqrt", {llvm::Intrinsic::sqrt, false}},
      {"rsqrt", {llvm::Intrinsic::sqrt, true}},
      {"fabs", {llvm::Intrinsic::fabs, false}},
      {"floor", {llvm::Intrinsic::floor, false}},
      {"ceil", {llvm::Intrinsic::ceil, false}},
      {"sin", {llvm::Intrinsic::sin, false}},
      {"cos", {llvm::Intrinsic::cos, false}},
  };
  for (llvm::Function &fn : m) {
    if (!fn.isDeclaration() || fn.isIntrinsic())
      continue;
    StringRef name = fn.getName();
    if (name == "__ockl_get_num_groups" || name == "__ockl_get_local_size") {
      defineDispatchQuery(fn, name == "__ockl_get_num_groups");
    } else if (name.consume_front("__ocml_") && name.consume_back("_f32") &&
               kMath.count(name) && fn.arg_size() == 1 &&
               fn.getReturnType()->isFloatTy()) {
      const Math &math = kMath.find(name)->second;
      defineUnaryMath(fn, math.id, math.reciprocal);
    } else {
      return anchor->emitError()
             << "the AMDGPU kernels call '" << fn.getName()
             << "', a ROCm device-library function this compiler does not "
                "define (no ROCm device libraries are linked)";
    }
    fn.setLinkage(llvm::GlobalValue::InternalLinkage);
    fn.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

enum class Output { Assembly, Object };

/// Lowers the first gpu.module of `module` to AMDGPU assembly or an ELF
/// relocatable object for `chip`.
FailureOr<std::string> lowerToAMDGPU(ModuleOp module, StringRef chip,
                                     Output output) {
  static bool initialized = [] {
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    registerSCFToControlFlowPass();
    registerConvertGpuOpsToROCDLOpsPass();
    registerReconcileUnrealizedCastsPass();
    return true;
  }();
  (void)initialized;
  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadAllAvailableDialects();

  const char *triple = "amdgcn-amd-amdhsa";
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError() << "this LLVM has no AMDGPU target: " << error;
  std::string features = rocdlWavefrontSize(chip) == 32 ? "+wavefrontsize32"
                                                        : "+wavefrontsize64";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine || !machine->getMCSubtargetInfo()->isCPUStringValid(chip))
    return module.emitError() << "unknown AMDGPU chip '" << chip << "'";

  PassManager pm(ctx);
  std::string pipeline =
      ("gpu.module(convert-scf-to-cf, convert-gpu-to-rocdl{chipset=" + chip +
       " use-bare-ptr-memref-call-conv=true runtime=HIP}, "
       "reconcile-unrealized-casts)")
          .str();
  if (failed(parsePassPipeline(pipeline, pm)))
    return module.emitError("cannot build the ROCDL pipeline");
  if (failed(pm.run(module)))
    return failure();

  auto gpuModules = module.getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return module.emitError("no gpu.module to lower");
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getName());
  if (!llvmModule)
    return gpuModule.emitError("cannot translate the kernels to LLVM IR");
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (failed(defineDeviceLibraryCalls(*llvmModule, gpuModule)))
    return failure();
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return gpuModule.emitError("the kernels' LLVM IR does not verify");
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return gpuModule.emitError()
           << "LLVM optimisation failed: " << llvm::toString(std::move(err));

  std::string text;
  {
    llvm::raw_string_ostream os(text);
    llvm::buffer_ostream bos(os);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, bos, nullptr,
                                     output == Output::Object
                                         ? llvm::CodeGenFileType::ObjectFile
                                         : llvm::CodeGenFileType::AssemblyFile))
      return gpuModule.emitError("the AMDGPU backend cannot emit this file type");
    codegen.run(*llvmModule);
  }
  return text;
}

} // namespace

std::unique_ptr<TargetHooks> poot::codegen::createROCDLTarget(StringRef chip) {
  return std::make_unique<ROCDLTarget>(chip);
}

int64_t poot::codegen::rocdlWavefrontSize(StringRef chip) {
  return chip.starts_with("gfx1") ? 32 : 64;
}

std::string poot::codegen::findLLDLinker() {
  // POOT_LLD names the linker explicitly (and, naming nothing executable,
  // makes it missing).
  if (const char *given = std::getenv("POOT_LLD"); given && *given)
    return llvm::sys::fs::can_execute(given) ? given : "";
  for (const char *name : {"ld.lld-19", "ld.lld"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  const char *debian = "/usr/lib/llvm-19/bin/ld.lld";
  return llvm::sys::fs::can_execute(debian) ? debian : "";
}

FailureOr<std::string> poot::codegen::lowerToAMDGPUAssembly(ModuleOp module,
                                                            StringRef chip) {
  return lowerToAMDGPU(module, chip, Output::Assembly);
}

FailureOr<std::string> poot::codegen::lowerToHSACO(ModuleOp module,
                                                   StringRef chip) {
  std::string lld = findLLDLinker();
  if (lld.empty())
    return module.emitError(
        "cannot link the AMDGPU code object: ld.lld is not installed (Debian "
        "package lld-19) or POOT_LLD names no executable; --emit=amdgcn shows "
        "the kernels without linking");
  FailureOr<std::string> object = lowerToAMDGPU(module, chip, Output::Object);
  if (failed(object))
    return failure();

  // ld.lld reads and writes files: the object goes to a temporary file, the
  // code object comes back from another.
  llvm::SmallString<128> objectPath, codePath;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("poot-kernels", "o", fd, objectPath))
    return module.emitError("cannot create a temporary file for the object");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *object;
  }
  if (llvm::sys::fs::createTemporaryFile("poot-kernels", "hsaco", codePath)) {
    llvm::sys::fs::remove(objectPath);
    return module.emitError("cannot create a temporary file for the code object");
  }
  std::string message;
  llvm::SmallVector<StringRef> args = {lld, "-shared", objectPath, "-o",
                                        codePath};
  int rc = llvm::sys::ExecuteAndWait(lld, args, std::nullopt, {}, 0, 0,
                                     &message);
  auto code = llvm::MemoryBuffer::getFile(codePath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(objectPath);
  llvm::sys::fs::remove(codePath);
  if (rc != 0)
    return module.emitError() << "ld.lld (" << lld << ") failed to link the "
                              << "AMDGPU code object"
                              << (message.empty() ? "" : ": ") << message;
  if (!code)
    return module.emitError("ld.lld wrote no code object");
  return (*code)->getBuffer().str();
}
