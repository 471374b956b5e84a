//===- KernelBuilder.h - Shared scaffolding of the simple kernels -*- C++ -*-===//
//
// The kernels of RoPE, the sparse ops and every primitive op are built the
// same way: one gpu.func over flat buffers (one per operand and result, in
// operand then result order), one thread per output element in a
// grid-stride loop, index arithmetic from the static shapes, math in f32.
// This header holds what they share; it is private to codegen/Common.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_COMMON_KERNELBUILDER_H
#define POOT_CODEGEN_COMMON_KERNELBUILDER_H

#include "poot/Codegen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace poot::codegen {

/// Threads per workgroup of the simple kernels.
constexpr int64_t kSimpleLanes = 64;
/// The most workgroups a simple kernel asks for along x; past that each
/// thread strides over several elements.
constexpr int64_t kSimpleMaxGroups = 4096;

/// Codes a kernel writes into its `err` word; the runner turns them into
/// typed errors after the launch.
enum KernelError : int32_t {
  kErrNone = 0,
  kErrIndexOutOfRange = 1, ///< a gather/scatter index outside its axis
  kErrInvalid = 2,         ///< integer division by zero, a slot written twice
};

/// The element type a tensor element travels as on the device: itself,
/// except i1, which travels as an i32 word (0 or 1).
mlir::Type deviceStorage(mlir::Type element);

/// Fails with a DtypeLowering diagnostic on `op` when the target cannot
/// store one of its operand or result element types, and with a diagnostic
/// when a tensor has more elements than the target's indices reach.
mlir::LogicalResult checkStorage(mlir::Operation *op,
                                 const TargetHooks &target);

/// Row-major strides of a static shape, in elements.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// One simple kernel under construction.
class KernelBuilder {
public:
  /// A kernel `name` whose arguments are flat buffers of `tensors`' types
  /// (in order) plus, with `errWord`, a one-word i32 error buffer last.
  KernelBuilder(mlir::gpu::GPUModuleOp module, mlir::Location loc,
                const TargetHooks &target, llvm::StringRef name,
                mlir::TypeRange tensors, bool errWord = false);

  mlir::Value arg(unsigned i) { return fn.getArgument(i); }
  mlir::Value errArg() { return fn.getArguments().back(); }

  // Index arithmetic.
  mlir::Value idx(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  /// Unsigned division and remainder of non-negative indices.
  mlir::Value div(mlir::Value x, int64_t y);
  mlir::Value rem(mlir::Value x, int64_t y);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  mlir::Value f32(double v);
  mlir::Value i1(bool v);
  /// A constant of an integer or float compute type.
  mlir::Value constant(mlir::Type type, double v);

  /// The coordinates of a flat row-major index into `shape`.
  llvm::SmallVector<mlir::Value> unravel(mlir::Value flat,
                                         llvm::ArrayRef<int64_t> shape);
  /// The flat offset into a tensor of `shape` broadcast (numpy,
  /// right-aligned) to the coordinates `coords` of a larger shape.
  mlir::Value broadcastOffset(llvm::ArrayRef<mlir::Value> coords,
                              llvm::ArrayRef<int64_t> shape);

  /// Loads element `flat` of a buffer holding tensor elements of type
  /// `element`, as its compute type: f32 for floats, i1 for bools, the
  /// integer type itself for integers.
  mlir::Value load(mlir::Value buffer, mlir::Value flat, mlir::Type element);
  /// Loads an integer element as a signed index.
  mlir::Value loadIndex(mlir::Value buffer, mlir::Value flat);
  /// Stores a compute value as a tensor element of type `element`.
  void store(mlir::Value value, mlir::Value buffer, mlir::Value flat,
             mlir::Type element);
  /// Writes `code` into the error word when `cond` holds.
  void flag(mlir::Value cond, KernelError code);

  /// The compute type of a tensor element type (see load).
  mlir::Type computeType(mlir::Type element);

  /// for (i = lb; i < ub; i += step) body(i)
  void loop(mlir::Value lb, mlir::Value ub, mlir::Value step,
            llvm::function_ref<void(mlir::Value)> body);
  /// The same with carried values.
  llvm::SmallVector<mlir::Value>
  loopCarry(mlir::Value lb, mlir::Value ub, mlir::Value step,
            mlir::ValueRange init,
            llvm::function_ref<llvm::SmallVector<mlir::Value>(
                mlir::Value, mlir::ValueRange)>
                body);
  void when(mlir::Value cond, llvm::function_ref<void()> body);
  /// cond ? then() : otherwise(), each yielding one value of `type`.
  mlir::Value ifElse(mlir::Value cond, mlir::Type type,
                     llvm::function_ref<mlir::Value()> then,
                     llvm::function_ref<mlir::Value()> otherwise);

  /// One thread per element of [0, total), in a grid-stride loop.
  void forEach(int64_t total, llvm::function_ref<void(mlir::Value)> body);
  /// Closes the kernel and returns its launch over `total` elements.
  Launch finish(int64_t total, std::vector<std::string> roles);

  mlir::gpu::GPUFuncOp fn;
  mlir::OpBuilder b;
  mlir::Location loc;
  const TargetHooks &target;
};

/// Whether the generator builds kernels for `op` (every poot op but
/// attention, which has its own schedules, and constant, whose payload the
/// runtime uploads).
bool hasSimpleKernels(mlir::Operation *op);

/// Builds the kernels of one primitive op, poot.rope, poot.block_topk or
/// poot.selected_attention into `module` and returns its launches. The
/// kernel arguments bind by role: `in<i>` is operand i, `out<i>` result i,
/// `err` the error word. `name` is the base of the kernel symbols.
mlir::FailureOr<std::vector<Launch>>
buildSimpleKernels(mlir::Operation *op, mlir::gpu::GPUModuleOp module,
                   const TargetHooks &target, llvm::StringRef name);

// Per family (PrimitiveKernels.cpp, RopeKernel.cpp, SparseKernels.cpp).
mlir::FailureOr<std::vector<Launch>>
buildRopeKernel(mlir::Operation *op, mlir::gpu::GPUModuleOp module,
                const TargetHooks &target, llvm::StringRef name);
mlir::FailureOr<std::vector<Launch>>
buildBlockTopKKernel(mlir::Operation *op, mlir::gpu::GPUModuleOp module,
                     const TargetHooks &target, llvm::StringRef name);
mlir::FailureOr<std::vector<Launch>>
buildSelectedAttentionKernel(mlir::Operation *op, mlir::gpu::GPUModuleOp module,
                             const TargetHooks &target, llvm::StringRef name);

/// The roles of an op's operands and results in order: in0.., out0..
std::vector<std::string> operandRoles(mlir::Operation *op);

} // namespace poot::codegen

#endif // POOT_CODEGEN_COMMON_KERNELBUILDER_H
