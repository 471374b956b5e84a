//===- DeviceFacts.cpp - The named device presets -------------------------===//
//
// Numbers from the vendors' published limits. Workgroup memory is what a
// generated kernel may declare: on CUDA the 48 KiB of static shared memory,
// the LDS size on AMD; the generic Vulkan device sits at the Vulkan 1.2
// minimums so a plan for it runs on any conformant driver. CUDA's larger
// carve-out is dynamic shared memory, which the tile schedule's kernels
// take where their buffers pass 48 KiB.
//
//===----------------------------------------------------------------------===//

#include "poot/Plan/DeviceFacts.h"

using namespace poot;

static constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

const std::vector<DeviceFacts> &poot::devicePresets() {
  static const std::vector<DeviceFacts> presets = [] {
    std::vector<DeviceFacts> table = {
      // name, target, CUs, wg mem, wg size, subgroup, gridX, gridY,
      // max buffer, memory, f16, bf16
      {"sm_80", "nvvm", 108, 48 * kKiB, 1024, 32, (1ll << 31) - 1, 65535,
       40 * kGiB, 40 * kGiB, true, true},
      {"sm_89", "nvvm", 128, 48 * kKiB, 1024, 32, (1ll << 31) - 1, 65535,
       24 * kGiB, 24 * kGiB, true, true},
      {"sm_90", "nvvm", 132, 48 * kKiB, 1024, 32, (1ll << 31) - 1, 65535,
       80 * kGiB, 80 * kGiB, true, true},
      {"gfx90a", "rocdl", 110, 64 * kKiB, 1024, 64, (1ll << 31) - 1, 65535,
       64 * kGiB, 64 * kGiB, true, true},
      {"gfx942", "rocdl", 304, 64 * kKiB, 1024, 64, (1ll << 31) - 1, 65535,
       192 * kGiB, 192 * kGiB, true, true},
      {"gfx1100", "rocdl", 96, 64 * kKiB, 1024, 32, (1ll << 31) - 1, 65535,
       24 * kGiB, 24 * kGiB, true, true},
      // bf16 as 16-bit words converted in the kernel: 16-bit storage, as
      // f16 needs.
      {"vulkan", "spirv", 16, 16 * kKiB, 128, 32, 65535, 65535, 128 * kMiB,
       2 * kGiB, true, true},
      {"cpu", "cpu", 8, 1 * kMiB, 64, 1, (1ll << 31) - 1, (1ll << 31) - 1,
       16 * kGiB, 16 * kGiB, true, true},
    };
    // CUDA warps are 32 lanes on every device; an AMD code object is
    // compiled for one wavefront width (64 on gfx9, 32 on gfx11 as the
    // ROCDL target builds it), so the kernels may rely on it there too.
    for (DeviceFacts &d : table) {
      d.fixedSubgroup = d.target == "nvvm" || d.target == "rocdl";
      // 16-byte global loads (ld.global.v4 / global_load_dwordx4). On
      // SPIR-V, whose logical addressing loads a buffer an element at a
      // time, the buffers a kernel only reads are retyped to groups of 16
      // bytes (codegen/SPIRV/WordLoads.h), so a vector of 16 bytes is one
      // load there too.
      d.vectorLoadBytes = 16;
      // Every CUDA preset is sm_80 or later: mma.sync m16n8k16 for f16 and
      // bf16. (AMD's MFMA/WMMA tiles have other layouts; not used yet.)
      d.matrixTile = d.target == "nvvm";
      d.asyncCopy = d.target == "nvvm";
      d.warpgroupTile = d.name == "sm_90";
      // fence.acq_rel.gpu and atom.global (sm_70 and later). The AMD and
      // SPIR-V targets have both too, but no hook for them is checked on
      // hardware yet.
      d.deviceFence = d.target == "nvvm";
      // cudaDevAttrMaxSharedMemoryPerBlockOptin: 163, 99 and 227 KiB.
      if (d.name == "sm_80")
        d.dynamicWorkgroupMemoryBytes = 163 * kKiB;
      else if (d.name == "sm_89")
        d.dynamicWorkgroupMemoryBytes = 99 * kKiB;
      else if (d.name == "sm_90")
        d.dynamicWorkgroupMemoryBytes = 227 * kKiB;
      // shaderInt64 is optional in every Vulkan version, and the generic
      // device promises only what every conformant driver has; a live
      // device says whether it has it.
      d.int64 = d.target != "spirv";
    }
    return table;
  }();
  return presets;
}

const DeviceFacts *poot::findDevicePreset(const std::string &name) {
  for (const DeviceFacts &d : devicePresets())
    if (d.name == name)
      return &d;
  return nullptr;
}
