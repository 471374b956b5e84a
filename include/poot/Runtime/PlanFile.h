//===- PlanFile.h - The compiled plan, on disk ------------------*- C++ -*-===//
//
// What the compiler hands the runtime: the eqn records of the fused graph
// (with each fused op's schedule among its attributes), the slot bindings
// with their ranges, state pairs and validation outputs, and the buffer plan.
// A plan file is text: a magic line with the format version, an FNV-1a
// checksum of the body, then one record per line. The runtime refuses a file
// of another version or whose checksum does not match.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_PLANFILE_H
#define POOT_RUNTIME_PLANFILE_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <string>
#include <vector>

namespace poot::rt {

/// Version 2 added the `hsaco` record; version 1 plans (which cannot hold
/// one) are still read.
inline constexpr int kPlanVersion = 2;
inline constexpr int kOldestPlanVersion = 1;

/// One arena slot: a graph value (or, with value -1, the scratch of eqn
/// `eqn`) at `offset`.
struct ArenaSlot {
  int value = -1;
  int eqn = -1;
  int64_t offset = 0;
  int64_t bytes = 0;
};

struct Plan {
  std::string device; ///< the device preset it was planned for
  std::string target; ///< the code generator target ("cpu")
  Graph graph;
  int64_t arenaBytes = 0;
  std::vector<ArenaSlot> arena;
  /// The generated kernels for SPIR-V targets: one module holding every
  /// kernel the eqns' `poot.launches.*` attributes name.
  std::vector<uint32_t> spirv;
  /// The generated kernels for CUDA targets: PTX text holding every kernel
  /// the eqns' `poot.launches.*` attributes name, byte for byte as the
  /// compiler produced it (a trailing NUL included). Stored as one record,
  /// `ptx <bytes> <hex of the bytes>`.
  std::string ptx;
  /// The generated kernels for ROCm targets: one AMDGPU code object (an ELF
  /// shared object) holding every kernel the launches name, for the chip
  /// `hsacoChip` ("gfx942"). Stored as one record,
  /// `hsaco <chip> <bytes> <hex of the bytes>`.
  std::string hsaco;
  std::string hsacoChip;
};

std::string serializePlan(const Plan &plan);
/// Parses a plan file's text into `out` (untouched on failure). Every number
/// is a whole token inside its type, values are numbered in order, input
/// and output names are unique, ranges non-empty, and output and state
/// names plain file names (isPlainFileName): Malformed otherwise, naming the
/// line. A type the runtime cannot hold is refused here (checkTensorType:
/// Malformed for a negative dim or an overflowing count, Unsupported past
/// the size limit).
Status parsePlan(const std::string &text, Plan &out);
Status writePlanFile(const std::string &path, const Plan &plan);
Status readPlanFile(const std::string &path, Plan &out);

/// Whether `text` starts like a plan file.
bool looksLikePlan(const std::string &text);

} // namespace poot::rt

#endif // POOT_RUNTIME_PLANFILE_H
