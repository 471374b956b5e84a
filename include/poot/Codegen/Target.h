//===- Target.h - What the one kernel generator asks of a target -*- C++ -*-===//
//
// Common code builds kernels in the gpu dialect and never asks which target
// it serves; everything that differs sits behind these hooks, one
// implementation per target directory (codegen/SPIRV, NVVM and ROCDL).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_TARGET_H
#define POOT_CODEGEN_TARGET_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace poot::codegen {

/// Contract of the common generator: a vector load or store (vector.load or
/// vector.store of N elements) is only issued at an address aligned to its
/// whole size, so a target may lower it as one wide access.
class TargetHooks {
public:
  virtual ~TargetHooks();
  /// "spirv", "nvvm", "rocdl".
  virtual llvm::StringRef name() const = 0;
  /// Memory space of the kernel's buffer arguments.
  virtual mlir::Attribute globalMemorySpace(mlir::MLIRContext *ctx) const = 0;
  /// A workgroup-memory buffer of `type`'s shape and element type, created
  /// in the kernel body at the builder's point.
  /// At least 16-byte aligned, `align` bytes where asked.
  virtual mlir::Value allocWorkgroup(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::gpu::GPUFuncOp fn,
                                     llvm::ArrayRef<int64_t> shape,
                                     mlir::Type elementType,
                                     int64_t align = 16) const = 0;
  /// The most workgroup memory a kernel may declare with allocWorkgroup
  /// (sized when the kernel is built). Past it a kernel takes its buffers
  /// from dynamicWorkgroup, whose size the launch gives (Launch::shared).
  virtual int64_t staticWorkgroupLimit() const { return INT64_MAX; }
  /// A buffer of `shape` and `elementType` at byte `offset` (a multiple of
  /// 1024) of the workgroup memory the launch sizes, which starts at a
  /// 1024-byte boundary. Only asked past staticWorkgroupLimit, on a target
  /// whose limit is finite.
  virtual mlir::Value dynamicWorkgroup(mlir::OpBuilder &b, mlir::Location loc,
                                       int64_t offset,
                                       llvm::ArrayRef<int64_t> shape,
                                       mlir::Type elementType) const;
  /// Marks a kernel with its workgroup size.
  virtual void setWorkgroupSize(mlir::gpu::GPUFuncOp fn,
                                int64_t lanes) const = 0;
  /// Asks the backend to fit `workgroups` workgroups of the kernel on one
  /// compute unit at once (on NVVM, a register budget per lane); nothing
  /// where a target has no such hint.
  virtual void setWorkgroupsPerUnit(mlir::gpu::GPUFuncOp fn,
                                    int64_t workgroups) const {}
  /// Whether buffers of `storage` can be loaded and stored: a float type,
  /// or an integer type (i1 tensors travel as i32 words).
  virtual bool canStore(mlir::Type storage) const = 0;
  /// The device feature that buffers of `storage` need where canStore
  /// refuses them, for the DtypeLowering diagnostic ("shaderInt64"); empty
  /// where there is none to name.
  virtual std::string storageFeature(mlir::Type storage) const;
  /// e^x and tanh(x) in f32: a math op by default; a target whose
  /// lowering would call a device library instead spells them out.
  virtual mlir::Value exp(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value x) const;
  virtual mlir::Value tanh(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x) const;
  /// 2^x in f32: e^(x ln 2) by default; a target with a native 2^x uses it.
  /// With `flushSubnormals`, a result below 2^-126 may be 0 (and a
  /// subnormal x reads as 0): the softmax weights of the tile schedule,
  /// where such a weight is under 2^-126 of the row's largest and changes
  /// no sum, take the cheaper instruction where a target has one.
  virtual mlir::Value exp2(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, bool flushSubnormals = false) const;
  /// The other f32 functions the primitive kernels need: a math op by
  /// default (see `exp`).
  enum class MathFn { Log, Sin, Cos, Sqrt, Rsqrt };
  virtual mlir::Value math(mlir::OpBuilder &b, mlir::Location loc, MathFn fn,
                           mlir::Value x) const;
  /// The most elements a kernel may index: index arithmetic is 32-bit on
  /// some targets, and a grid-stride loop must not wrap past the bound.
  virtual int64_t maxElements() const { return INT64_MAX / 2; }
  /// Prepares the module for the target (target environment attributes).
  virtual void prepareModule(mlir::ModuleOp module) const = 0;

  /// The subgroup matrix tile: D = A B + C for A 16x16, B 16x8 of
  /// `element` (f16 or bf16) and C, D 16x8 of f32, computed by the 32 lanes
  /// of a subgroup together, each holding a fixed part of every operand (the
  /// quad layout below). Whether the target has one for `element`; the
  /// planner only asks for it where DeviceFacts::matrixTile says so.
  virtual bool hasMatrixTile(mlir::Type element) const { return false; }
  /// One tile product. Lane l = 4 g + t (g in [0, 8), t in [0, 4)) holds
  ///   a: 4 words of two elements (the lower column in the low half):
  ///      A[g][2t, 2t+1], A[g+8][2t, 2t+1], A[g][2t+8, 2t+9],
  ///      A[g+8][2t+8, 2t+9];
  ///   b: 2 words: B[2t, 2t+1][g], B[2t+8, 2t+9][g] (the lower row low);
  ///   c and the result: 4 f32: C[g][2t], C[g][2t+1], C[g+8][2t],
  ///      C[g+8][2t+1].
  /// Words are i32. Every lane of the subgroup must take part.
  virtual llvm::SmallVector<mlir::Value, 4>
  matrixTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
             mlir::ValueRange a, mlir::ValueRange bWords,
             mlir::ValueRange c) const;

  /// Asynchronous copies from global into workgroup memory and the 8x8
  /// tile loads of the tile schedule (TileKernel.cpp). Whether the target
  /// has them; the planner only asks where DeviceFacts::asyncCopy says so.
  virtual bool hasAsyncCopy() const { return false; }
  /// Starts copying 16 bytes (`elements` of the memrefs' type) from
  /// src[srcIndices] to dst[dstIndices] (workgroup memory), both aligned to
  /// 16 bytes; returns the copy's token.
  virtual mlir::Value asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value dst, mlir::ValueRange dstIndices,
                                mlir::Value src, mlir::ValueRange srcIndices,
                                int64_t elements) const;
  /// Starts `rounds` copies of 16 bytes (`elements` of the memrefs' type),
  /// round r from src at `srcIndices` with index `srcDim` advanced by
  /// r * srcStep, to dst (workgroup memory, one dimension) at `dstIndex`
  /// + r * dstStep, the same alignment asked as of asyncCopy. A round with
  /// r * srcStep >= `limit` (an index) reads nothing and writes zeros. One
  /// address computation for all the rounds: what a target gains over
  /// `rounds` asyncCopy calls is the per-copy index arithmetic.
  virtual void asyncCopyRounds(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value dst, mlir::Value dstIndex,
                               int64_t dstStep, mlir::Value src,
                               mlir::ValueRange srcIndices, int64_t srcDim,
                               int64_t srcStep, int64_t rounds,
                               mlir::Value limit, int64_t elements) const;
  /// Closes the copies this thread started since the last group into a
  /// group (an empty one where it started none); returns its token.
  virtual mlir::Value asyncGroup(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::ValueRange copies) const;
  /// Waits until at most `pending` of this thread's groups are in flight.
  /// The copies of the others are then visible to this thread (a barrier
  /// makes them visible to the workgroup).
  virtual void asyncWait(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value group, int64_t pending) const;
  /// Four 8x8 tiles of 16-bit elements, row-major in workgroup memory,
  /// read transposed by the subgroup: lane l names the address of row l % 8
  /// of tile l / 8 (`indices` into `memref`, 16-byte aligned) and receives
  /// word i = (T_i[2 (l % 4)][l / 4], T_i[2 (l % 4) + 1][l / 4]) (the lower
  /// row low), i.e. tile i's B words of the matrix tile (Target.h's quad
  /// layout) when the tile holds 8 rows of B's k by 8 columns of its n.
  virtual llvm::SmallVector<mlir::Value, 4>
  loadTilesTransposed(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memref, mlir::ValueRange indices) const;

  /// The warpgroup tile: D = A B + D for A 64x16 of `element` (f16 or
  /// bf16) in registers, B 16xn in workgroup memory and D 64xn of f32,
  /// computed asynchronously by the 4 subgroups of a warpgroup (128 lanes,
  /// subgroup w holding rows 16 w .. 16 w + 15). Lane l = 4 g + t of
  /// subgroup w holds A's rows 16 w + g and + 8 as the matrix tile's `a`
  /// words do, and D's entries 4 j + i = D[16 w + g + 8 (i / 2)][8 j + 2 t +
  /// i % 2] (the matrix tile's c for each 8 columns j). B lies in
  /// workgroup memory in the 128-byte swizzled layout: 128-byte rows of 64
  /// elements, the rows being n (B's columns) where `transposeB` is false
  /// (k along the row) and k where it is true (n along the row); in each
  /// group of 8 rows (1024 bytes, from a 1024-byte boundary) the 16-byte
  /// chunk j of row r is stored at chunk j ^ r. Whether the target has it
  /// for `element`; the planner only asks for it where
  /// DeviceFacts::warpgroupTile says so.
  virtual bool hasWarpgroupTile(mlir::Type element) const { return false; }
  /// The words that describe B to warpgroupTile: B's first element at byte
  /// `offset` of `memref` (workgroup memory, 1024-byte aligned); the groups
  /// of 8 rows `strideBytes` apart; where the rows are k (`transposeB`),
  /// the 64-element blocks of n `leadingBytes` apart (unused otherwise).
  /// Multiples of 16. i64.
  virtual mlir::Value warpgroupOperand(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value memref, mlir::Value offset,
                                       int64_t leadingBytes,
                                       int64_t strideBytes) const;
  /// Issues one product (k = 16, n in 8-column steps up to 256): `a` as 4
  /// words, `bOperand` from warpgroupOperand, `d` the n / 2 accumulators of
  /// this lane; returns the new ones. They may be read only after
  /// warpgroupWait; registers written since the last warpgroupFence by
  /// other instructions must be fenced first.
  virtual llvm::SmallVector<mlir::Value>
  warpgroupTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                int64_t n, bool transposeB, mlir::ValueRange a,
                mlir::Value bOperand, mlir::ValueRange d) const;
  /// warpgroupTile with A in workgroup memory as well: `aOperand` describes
  /// 64 rows of A with k along the row in the 128-byte swizzled layout
  /// (warpgroupOperand; the layout B has where `transposeB` is false), so A
  /// takes no registers.
  virtual llvm::SmallVector<mlir::Value>
  warpgroupTileSharedA(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Type element, int64_t n, bool transposeB,
                       mlir::Value aOperand, mlir::Value bOperand,
                       mlir::ValueRange d) const;
  /// Orders this lane's earlier register writes before the next products.
  virtual void warpgroupFence(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Closes the products issued since the last call into a group, and waits
  /// until at most `pending` groups are in flight.
  virtual void warpgroupCommitAndWait(mlir::OpBuilder &b, mlir::Location loc,
                                      int64_t pending) const;
  /// Closes the products issued since the last call into a group, without
  /// waiting: they run on while the lanes go on.
  virtual void warpgroupCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Makes this thread's writes to workgroup memory (stores, completed
  /// asynchronous copies) visible to the warpgroup tile's reads of B,
  /// which go through another path; a barrier then extends it to the
  /// workgroup.
  virtual void warpgroupOperandFence(mlir::OpBuilder &b,
                                     mlir::Location loc) const;

  /// A device-scope acquire-release fence for the thread that runs it:
  /// its global-memory accesses before the fence are ordered before those
  /// after it for every workgroup of the launch. With an atomic counter,
  /// it lets one workgroup read what others of the same launch wrote.
  /// Whether the target has one; the planner only asks where
  /// DeviceFacts::deviceFence says so.
  virtual bool hasDeviceFence() const { return false; }
  virtual void deviceFence(mlir::OpBuilder &b, mlir::Location loc) const;
};

/// What the targets that lower through LLVM (NVVM, ROCDL) share: buffers in
/// the global address space, workgroup memory as gpu.func workgroup
/// attributions, the workgroup size as the known block size, every float
/// and integer storage type the kernels use, tanh built
/// from the target's exp (so no device library is called), and a
/// gpu.container_module.
class LLVMTargetHooks : public TargetHooks {
public:
  mlir::Attribute globalMemorySpace(mlir::MLIRContext *ctx) const override;
  mlir::Value allocWorkgroup(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::gpu::GPUFuncOp fn,
                             llvm::ArrayRef<int64_t> shape,
                             mlir::Type elementType,
                             int64_t align = 16) const override;
  /// gpu.dynamic_shared_memory viewed at the offset.
  mlir::Value dynamicWorkgroup(mlir::OpBuilder &b, mlir::Location loc,
                               int64_t offset, llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType) const override;
  void setWorkgroupSize(mlir::gpu::GPUFuncOp fn,
                        int64_t lanes) const override;
  /// f32, f16, bf16, i32 and i64 buffers.
  bool canStore(mlir::Type storage) const override;
  /// tanh(x) = 1 - 2 / (e^(2x) + 1): +-1 at the extremes, no overflow NaN.
  mlir::Value tanh(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value x) const override;
  void prepareModule(mlir::ModuleOp module) const override;
};

} // namespace poot::codegen

#endif // POOT_CODEGEN_TARGET_H
