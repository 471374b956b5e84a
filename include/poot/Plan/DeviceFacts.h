//===- DeviceFacts.h - What the planner knows about a device ----*- C++ -*-===//
//
// Plain facts about a device, as a table of named presets and as the same
// struct filled from a live device by the runtime (Vulkan limits, CUDA
// attributes). Plain C++17: the runtime uses it without LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PLAN_DEVICEFACTS_H
#define POOT_PLAN_DEVICEFACTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace poot {

struct DeviceFacts {
  std::string name;   ///< "sm_90", "gfx942", "vulkan", "cpu"
  std::string target; ///< code generator target: "nvvm", "rocdl", "spirv", "cpu"
  int64_t computeUnits = 1;          ///< SMs / CUs / cores
  int64_t workgroupMemoryBytes = 0;  ///< shared memory / LDS one workgroup may use
  int64_t maxWorkgroupSize = 1;      ///< threads per workgroup
  int64_t subgroupSize = 1;          ///< warp / wavefront width
  int64_t maxGridX = 1;              ///< workgroups along X
  int64_t maxGridY = 1;              ///< workgroups along Y
  int64_t maxBufferBytes = 0;        ///< largest single buffer
  int64_t memoryBytes = 0;           ///< device memory a plan may allocate
  bool f16Storage = true;            ///< can load/store f16 buffers
  bool bf16Storage = true;           ///< can load/store bf16 buffers
  /// Whether kernels can load, store and compute 64-bit integers (i64
  /// values of the graph). Vulkan makes it an optional feature
  /// (shaderInt64); every other target has them.
  bool int64 = true;
  /// Whether every device of the target runs subgroups of exactly
  /// `subgroupSize` lanes (CUDA warps; AMD wavefronts, whose width the
  /// code object is compiled for), so a kernel may be built around it.
  /// Vulkan devices differ (8 on lavapipe, 32, 64), so not there.
  bool fixedSubgroup = false;
  /// Widest load the generated kernels may issue as one vector, in bytes
  /// (0: scalar loads only).
  int64_t vectorLoadBytes = 0;
  /// Whether a subgroup of 32 lanes can multiply 16x16 by 16x8 tiles of
  /// f16 or bf16 into f32 in one step (CUDA's mma.sync on sm_80 and later),
  /// as the code generator's matrix tile (codegen/Target.h) describes.
  bool matrixTile = false;
  /// Whether a workgroup can copy global memory into workgroup memory
  /// asynchronously and read 8x8 tiles of it transposed (CUDA's cp.async
  /// and ldmatrix, sm_80 and later), as the tile schedule stages its keys.
  bool asyncCopy = false;
  /// Whether a warpgroup (4 subgroups) can multiply a 64x16 tile of f16 or
  /// bf16 in registers by a 16xn tile in workgroup memory asynchronously
  /// (wgmma on sm_90, the architecture-specific sm_90a target), as the tile
  /// schedule's warpgroup form uses.
  bool warpgroupTile = false;
  /// Whether workgroups of one launch can hand results to each other
  /// through global memory: a device-scope fence and i32 atomics (CUDA's
  /// fence.acq_rel.gpu, sm_70 and later), so the split-KV combine can run
  /// in the last workgroup of a row instead of a launch of its own.
  bool deviceFence = false;
  /// Workgroup memory a kernel may take when it is given its buffers at the
  /// launch rather than declaring them (CUDA's opt-in dynamic shared
  /// memory: 227 KiB a block on sm_90, against 48 KiB declared); 0 where
  /// the generator has no such form for the device.
  int64_t dynamicWorkgroupMemoryBytes = 0;
};

/// The named presets: sm_80, sm_89, sm_90, gfx90a, gfx942, gfx1100, vulkan
/// (a generic Vulkan 1.2 device at the spec's minimum limits), cpu.
const std::vector<DeviceFacts> &devicePresets();

/// The preset called `name`, or null.
const DeviceFacts *findDevicePreset(const std::string &name);

} // namespace poot

#endif // POOT_PLAN_DEVICEFACTS_H
