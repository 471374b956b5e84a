//===- Planner.cpp - Schedules for fused ops ------------------------------===//
//
// The streaming schedule runs one workgroup of `lanes` threads per (batch
// row, query head, query row); each lane keeps a running (max, denominator,
// accumulator) of dv + 2 floats in workgroup memory, so lanes is the widest
// power of two <= 64 whose state fits. Decode whose rows do not fill the
// compute units splits the keys (at most 16 splits, never under 128 keys a
// chunk) into partials and a combine, unless the partial state passes the
// single-buffer limit or the folded grid. With n_rep > 1 in decode one
// workgroup serves the whole head group, so K and V are read once.
//
//===----------------------------------------------------------------------===//

#include "poot/Plan/Planner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace poot;

char CapabilityError::ID = 0;

const char *poot::capabilityKindName(CapabilityKind kind) {
  switch (kind) {
  case CapabilityKind::AttentionLds:
    return "AttentionLds";
  case CapabilityKind::ScratchBytes:
    return "ScratchBytes";
  case CapabilityKind::DtypeLowering:
    return "DtypeLowering";
  case CapabilityKind::GridLimit:
    return "GridLimit";
  }
  return "Capability";
}

void CapabilityError::log(llvm::raw_ostream &os) const {
  os << capabilityKindName(kind) << ": " << message;
}

std::error_code CapabilityError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

static llvm::Error capability(CapabilityKind kind, std::string message) {
  return llvm::make_error<CapabilityError>(kind, std::move(message));
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Lays `workgroups` over X, folding into Y past the X limit; false when it
/// does not fit even folded.
static bool foldGrid(int64_t workgroups, const DeviceFacts &d, int64_t &x,
                     int64_t &y) {
  x = std::min(workgroups, d.maxGridX);
  y = ceilDiv(workgroups, x);
  return y <= d.maxGridY;
}

/// The widest power of two <= 64 (and <= the workgroup size) whose state of
/// `floatsPerLane` floats fits workgroup memory; 0 when not even one does.
static int64_t lanesFor(int64_t floatsPerLane, const DeviceFacts &d) {
  for (int64_t lanes = 64; lanes >= 1; lanes /= 2)
    if (lanes <= d.maxWorkgroupSize &&
        lanes * floatsPerLane * 4 <= d.workgroupMemoryBytes)
      return lanes;
  return 0;
}

llvm::Expected<AttentionSchedule>
poot::planAttention(const AttentionShape &s, const DeviceFacts &d) {
  if ((s.dtype == "f16" && !d.f16Storage) ||
      (s.dtype == "bf16" && !d.bf16Storage))
    return capability(CapabilityKind::DtypeLowering,
                      llvm::formatv("target {0} on device {1} cannot store "
                                    "{2} buffers",
                                    d.target, d.name, s.dtype));

  AttentionSchedule out;
  int64_t nRep = s.queryHeads / std::max<int64_t>(s.keyHeads, 1);
  int64_t floats = s.valueWidth + 2;
  // The grouped decode schedule holds the state of every head of the group.
  if (nRep > 1 && s.queryLen == 1) {
    int64_t lanes = lanesFor(floats * nRep, d);
    if (lanes >= std::min<int64_t>(8, d.maxWorkgroupSize)) {
      out.grouped = true;
      out.lanes = lanes;
    }
  }
  if (!out.grouped) {
    out.lanes = lanesFor(floats, d);
    if (out.lanes == 0)
      return capability(CapabilityKind::AttentionLds,
                        llvm::formatv("value width {0} needs {1} bytes of "
                                      "workgroup memory for one lane, device "
                                      "{2} has {3}",
                                      s.valueWidth, floats * 4, d.name,
                                      d.workgroupMemoryBytes));
  }
  // The channel schedule, where subgroups have a fixed width: registers
  // hold the accumulators (dk/S + dv/S per head of the group, at most 64),
  // workgroup memory only the warps' partials for the final fold.
  int64_t sg = d.subgroupSize;
  if (d.fixedSubgroup && sg > 1 && s.keyWidth % sg == 0 &&
      s.valueWidth % sg == 0) {
    int64_t perHead = s.keyWidth / sg + s.valueWidth / sg;
    bool group = nRep > 1 && s.queryLen == 1 && perHead * nRep <= 64;
    int64_t heads = group ? nRep : 1;
    // As many subgroups as fit (at most 16): each walks its own keys, so
    // more of them keep more loads in flight.
    int64_t warps = 16;
    while (warps > 1 && (warps * heads * floats * 4 > d.workgroupMemoryBytes ||
                         warps * sg > d.maxWorkgroupSize))
      warps /= 2;
    if (perHead * heads <= 64 &&
        warps * heads * floats * 4 <= d.workgroupMemoryBytes &&
        warps * sg <= d.maxWorkgroupSize) {
      out.subgroup = sg;
      out.grouped = group;
      out.lanes = warps * sg;
    }
  }
  int64_t group = out.grouped ? nRep : 1;
  out.stateBytes = out.subgroup ? (out.lanes / out.subgroup) * floats * group * 4
                                : out.lanes * floats * group * 4;
  out.rows = s.batch * (out.grouped ? s.keyHeads : s.queryHeads) * s.queryLen;
  out.chunk = s.keyLen;
  out.causalSkip = s.causal && s.queryLen > 1;
  if (!foldGrid(out.rows, d, out.gridX, out.gridY))
    return capability(CapabilityKind::GridLimit,
                      llvm::formatv("{0} workgroups do not fit device {1}'s "
                                    "grid of {2} x {3}",
                                    out.rows, d.name, d.maxGridX, d.maxGridY));
  out.why = "streaming";

  // Split-KV: decode only, when the rows leave compute units idle.
  if (s.queryLen != 1) {
    out.why = "streaming: prefill fills the device with query rows";
    return out;
  }
  if (out.rows >= d.computeUnits) {
    out.why = llvm::formatv("streaming: {0} rows fill {1} compute units",
                            out.rows, d.computeUnits);
    return out;
  }
  int64_t splits = std::min<int64_t>(
      {16, ceilDiv(d.computeUnits, out.rows), s.keyLen / 128});
  if (splits < 2) {
    out.why = llvm::formatv("streaming: {0} keys make no two chunks of 128",
                            s.keyLen);
    return out;
  }
  int64_t scratch = out.rows * splits * floats * group * 4;
  if (scratch > d.maxBufferBytes) {
    out.why = llvm::formatv("streaming: {0} bytes of partials pass the "
                            "single-buffer limit {1}",
                            scratch, d.maxBufferBytes);
    return out;
  }
  int64_t x, y;
  if (!foldGrid(out.rows * splits, d, x, y)) {
    out.why = "streaming: the split launch passes the grid";
    return out;
  }
  if (scratch > d.memoryBytes)
    return capability(CapabilityKind::ScratchBytes,
                      llvm::formatv("split-KV scratch of {0} bytes ({1} rows x "
                                    "{2} splits x {3} floats) exceeds the {4} "
                                    "bytes device {5} can allocate",
                                    scratch, out.rows, splits, floats * group,
                                    d.memoryBytes, d.name));
  out.split = true;
  out.splits = splits;
  out.chunk = ceilDiv(s.keyLen, splits);
  out.gridX = x;
  out.gridY = y;
  out.scratchBytes = scratch;
  out.liveSplits = s.live;
  out.why = llvm::formatv("split-KV: {0} rows on {1} compute units, {2} "
                          "splits of {3} keys",
                          out.rows, d.computeUnits, splits, out.chunk);
  return out;
}
