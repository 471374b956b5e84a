//===- PootDialect.cpp - Dialect registration and graph conventions -------===//
//
// Registers the poot dialect and verifies the graph conventions (docs/architecture.md, "The IR")
// on function arguments and results: slots, declared ranges, state pairs,
// validation witnesses and binding names.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace poot;

#include "poot/Dialect/PootDialect.cpp.inc"

FailureOr<bool> poot::detail::parseFlag(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}

#define GET_ATTRDEF_CLASSES
#include "poot/Dialect/PootAttrs.cpp.inc"

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The invariants every kernel the generator builds relies on. The planner
/// only writes schedules that hold them; this catches hand-written and
/// damaged ones.
LogicalResult AttentionScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool split, bool grouped,
    int64_t group, int64_t lanes, int64_t subgroup, int64_t vector,
    int64_t keyLanes, int64_t unroll, bool matrix, bool pairFold,
    int64_t valueVector, int64_t splits, int64_t chunk, int64_t gridX,
    int64_t gridY, int64_t stateBytes, int64_t scratchBytes,
    bool fusedCombine, int64_t counterBytes, bool liveSplits,
    bool causalSkip, int64_t tileRows, int64_t tileKeys, int64_t tileStages,
    bool tileWarpgroup, bool tileSharedQuery, int64_t tileUnits,
    StringRef device) {
  auto positive = [&](int64_t v, const char *name) -> LogicalResult {
    if (v >= 1)
      return success();
    return emitError() << "expected " << name << " >= 1, got " << v;
  };
  if (failed(positive(group, "group")) || failed(positive(lanes, "lanes")) ||
      failed(positive(splits, "splits")) ||
      failed(positive(unroll, "unroll")) ||
      failed(positive(gridX, "grid_x")) || failed(positive(gridY, "grid_y")))
    return failure();
  if (group > 1 && !grouped)
    return emitError() << "expected grouped = true for a head group of "
                       << group;
  if (subgroup != 0 && !isPowerOfTwo(subgroup))
    return emitError() << "expected a subgroup of 0 or a power of two, got "
                       << subgroup;
  if (subgroup != 0 && lanes % subgroup)
    return emitError() << "expected lanes " << lanes
                       << " to be a multiple of the subgroup " << subgroup;
  if (!isPowerOfTwo(vector) || !isPowerOfTwo(valueVector))
    return emitError() << "expected power-of-two load widths, got vector "
                       << vector << " and value_vector " << valueVector;
  if (keyLanes < 0 || (keyLanes > 0 && (subgroup == 0 || subgroup % keyLanes)))
    return emitError() << "expected key_lanes to divide the subgroup "
                       << subgroup << ", got " << keyLanes;
  if (matrix && subgroup == 0)
    return emitError() << "expected a subgroup for the matrix-tile schedule";
  if (pairFold && !matrix)
    return emitError() << "expected a pairwise fold only on the matrix-tile "
                     "schedule";
  if (!split && splits != 1)
    return emitError() << "expected 1 split on a streaming schedule, got "
                       << splits;
  if (split && splits < 2)
    return emitError() << "expected at least 2 splits on a split schedule, "
                          "got "
                       << splits;
  if (chunk < 0 || stateBytes < 0 || scratchBytes < 0 || counterBytes < 0)
    return emitError() << "expected non-negative chunk and byte counts";
  if (split && scratchBytes == 0)
    return emitError() << "expected scratch_bytes for the split partials";
  if (!split && (scratchBytes != 0 || fusedCombine || liveSplits))
    return emitError() << "expected no scratch, fused combine or live splits on "
                     "a streaming schedule";
  if (fusedCombine != (counterBytes > 0))
    return emitError() << "expected counter_bytes exactly when the combine "
                          "is fused, got "
                       << counterBytes;
  if (tileRows < 0 || tileKeys < 0 || (tileRows > 0) != (tileKeys > 0))
    return emitError() << "expected tile_rows and tile_keys both set or both "
                          "0, got "
                       << tileRows << " and " << tileKeys;
  if (tileRows > 0) {
    // The tile schedule: 16 query rows a subgroup of 32 lanes, keys in
    // steps of 32 (the kernel's key order spans 32 keys).
    if (!matrix || subgroup != 32 || tileRows % 16 || tileKeys % 32 ||
        lanes != tileRows * 2)
      return emitError() << "expected a tile schedule on the matrix tile with "
                            "subgroups of 32, 16 rows a subgroup and keys in "
                            "steps of 32, got tile_rows "
                         << tileRows << ", tile_keys " << tileKeys
                         << ", lanes " << lanes;
    if (fusedCombine)
      return emitError() << "expected a combine kernel, not one fused into "
                            "the last workgroup, on a tile schedule";
    if (tileStages < 1 || tileStages > 2)
      return emitError() << "expected 1 or 2 tile stages, got " << tileStages;
    // The warpgroup form: one warpgroup of 64 rows, or two sharing each
    // tile (their q in workgroup memory), key tiles in 16-key products;
    // one key buffer or two (the pipelined form), one value buffer.
    if (tileWarpgroup && tileRows != 64 &&
        !(tileRows == 128 && tileSharedQuery))
      return emitError() << "expected a warpgroup tile schedule of 64 rows, "
                            "or 128 with q in workgroup memory, got "
                            "tile_rows "
                         << tileRows;
    // The query rows in workgroup memory are an operand of the warpgroup
    // tile only.
    if (tileSharedQuery && (!tileWarpgroup || tileStages != 1))
      return emitError() << "expected tile_shared_query only with "
                            "tile_warpgroup and one key buffer";
    if (tileUnits < 0)
      return emitError() << "expected tile_units >= 0, got " << tileUnits;
  } else if (tileStages != 0 || tileWarpgroup || tileSharedQuery ||
             tileUnits != 0) {
    return emitError()
           << "expected tile_stages, tile_warpgroup, tile_shared_query and "
              "tile_units only on a tile schedule";
  }
  return success();
}

DictionaryAttr AttentionScheduleAttr::toDictionary() const {
  Builder b(getContext());
  auto i = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  return b.getDictionaryAttr({
      b.getNamedAttr("kind", b.getStringAttr(getSplit() ? "split"
                                                          : "streaming")),
      b.getNamedAttr("grouped", b.getBoolAttr(getGrouped())),
      b.getNamedAttr("group", i(getGroup())),
      b.getNamedAttr("lanes", i(getLanes())),
      b.getNamedAttr("subgroup", i(getSubgroup())),
      b.getNamedAttr("vector", i(getVector())),
      b.getNamedAttr("key_lanes", i(getKeyLanes())),
      b.getNamedAttr("unroll", i(getUnroll())),
      b.getNamedAttr("matrix", b.getBoolAttr(getMatrix())),
      b.getNamedAttr("pair_fold", b.getBoolAttr(getPairFold())),
      b.getNamedAttr("value_vector", i(getValueVector())),
      b.getNamedAttr("splits", i(getSplits())),
      b.getNamedAttr("chunk", i(getChunk())),
      b.getNamedAttr("grid", b.getDenseI64ArrayAttr({getGridX(), getGridY()})),
      b.getNamedAttr("state_bytes", i(getStateBytes())),
      b.getNamedAttr("scratch_bytes", i(getScratchBytes())),
      b.getNamedAttr("fused_combine", b.getBoolAttr(getFusedCombine())),
      b.getNamedAttr("counter_bytes", i(getCounterBytes())),
      b.getNamedAttr("live_splits", b.getBoolAttr(getLiveSplits())),
      b.getNamedAttr("causal_skip", b.getBoolAttr(getCausalSkip())),
      b.getNamedAttr("tile_rows", i(getTileRows())),
      b.getNamedAttr("tile_keys", i(getTileKeys())),
      b.getNamedAttr("tile_stages", i(getTileStages())),
      b.getNamedAttr("tile_warpgroup", b.getBoolAttr(getTileWarpgroup())),
      b.getNamedAttr("tile_shared_query",
                     b.getBoolAttr(getTileSharedQuery())),
      b.getNamedAttr("tile_units", i(getTileUnits())),
      b.getNamedAttr("device", b.getStringAttr(getDevice())),
  });
}

void PootDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "poot/Dialect/PootOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "poot/Dialect/PootAttrs.cpp.inc"
      >();
}

bool poot::isKnownSlot(StringRef slot) {
  return llvm::StringSwitch<bool>(slot)
      .Cases("pos", "len", "slot_map", "write_map", "adapter", true)
      .Default(false);
}

static bool isIntegerTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isSignlessInteger() &&
         !tensor.getElementType().isInteger(1);
}

/// Returns the attribute `name` of argument or result `index` of `fn`.
static Attribute getFnAttr(FunctionOpInterface fn, bool isResult,
                           unsigned index, StringRef name) {
  return isResult ? fn.getResultAttr(index, name) : fn.getArgAttr(index, name);
}

/// A state name must appear once among the arguments and once among the
/// results, with one type: the pair is one donated buffer.
static LogicalResult verifyStatePair(FunctionOpInterface fn, bool isResult,
                                     unsigned index, StringAttr state) {
  if (state.getValue().empty())
    return fn.emitOpError("expected a non-empty poot.state name");
  ArrayRef<Type> mine = isResult ? fn.getResultTypes() : fn.getArgumentTypes();
  ArrayRef<Type> other = isResult ? fn.getArgumentTypes() : fn.getResultTypes();
  const char *mineKind = isResult ? "result" : "argument";
  const char *otherKind = isResult ? "argument" : "result";
  for (unsigned i = 0, e = mine.size(); i < e; ++i) {
    if (i == index)
      continue;
    if (getFnAttr(fn, isResult, i, attrs::kState) == state)
      return fn.emitOpError() << "expected one " << mineKind
                              << " with poot.state = " << state << ", got "
                              << mineKind << "s #" << index << " and #" << i;
  }
  for (unsigned i = 0, e = other.size(); i < e; ++i) {
    if (getFnAttr(fn, !isResult, i, attrs::kState) != state)
      continue;
    if (other[i] != mine[index])
      return fn.emitOpError()
             << "expected state " << state << " to keep its type "
             << mine[index] << ", got " << other[i] << " on the " << otherKind;
    return success();
  }
  return fn.emitOpError() << "expected " << (isResult ? "an " : "a ")
                          << otherKind
                          << " with poot.state = " << state << ", got none";
}

static LogicalResult verifyUniqueName(FunctionOpInterface fn, bool isResult,
                                      unsigned index, StringAttr name) {
  if (name.getValue().empty())
    return fn.emitOpError("expected a non-empty poot.name");
  unsigned count = isResult ? fn.getNumResults() : fn.getNumArguments();
  for (unsigned i = 0; i < count; ++i)
    if (i != index && getFnAttr(fn, isResult, i, attrs::kName) == name)
      return fn.emitOpError()
             << "expected unique poot.name " << name << ", got it on "
             << (isResult ? "results" : "arguments") << " #" << index
             << " and #" << i;
  return success();
}

LogicalResult PootDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || regionIndex != 0)
    return op->emitError() << "expected " << attr.getName()
                           << " on a function argument";
  Type type = fn.getArgumentTypes()[argIndex];
  StringRef name = attr.getName().getValue();
  if (name == attrs::kSlot) {
    auto slot = dyn_cast<StringAttr>(attr.getValue());
    if (!slot || !isKnownSlot(slot.getValue()))
      return fn.emitOpError()
             << "expected poot.slot one of \"pos\", \"len\", \"slot_map\", "
                "\"write_map\", \"adapter\", got "
             << attr.getValue();
    if (!isIntegerTensor(type))
      return fn.emitOpError() << "expected an integer tensor for slot "
                              << slot << ", got " << type;
    return success();
  }
  if (name == attrs::kRange) {
    auto range = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!range || range.size() != 2)
      return fn.emitOpError()
             << "expected poot.range = array<i64: lo, hi>, got "
             << attr.getValue();
    if (range[0] >= range[1])
      return fn.emitOpError() << "expected poot.range lo < hi, got ["
                              << range[0] << ", " << range[1] << ")";
    if (!isIntegerTensor(type))
      return fn.emitOpError()
             << "expected an integer tensor for poot.range, got " << type;
    return success();
  }
  if (name == attrs::kState) {
    auto state = dyn_cast<StringAttr>(attr.getValue());
    if (!state)
      return fn.emitOpError() << "expected a string poot.state, got "
                              << attr.getValue();
    return verifyStatePair(fn, /*isResult=*/false, argIndex, state);
  }
  if (name == attrs::kName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    if (!str)
      return fn.emitOpError() << "expected a string poot.name, got "
                              << attr.getValue();
    return verifyUniqueName(fn, /*isResult=*/false, argIndex, str);
  }
  return fn.emitOpError() << "expected a poot argument attribute (poot.slot, "
                             "poot.range, poot.state, poot.name), got "
                          << attr.getName();
}

LogicalResult PootDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || regionIndex != 0)
    return op->emitError() << "expected " << attr.getName()
                           << " on a function result";
  Type type = fn.getResultTypes()[resultIndex];
  StringRef name = attr.getName().getValue();
  if (name == attrs::kValidation) {
    if (!isa<UnitAttr>(attr.getValue()))
      return fn.emitOpError() << "expected poot.validation to be a unit "
                                 "attribute, got "
                              << attr.getValue();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getElementType().isInteger(1))
      return fn.emitOpError()
             << "expected an i1 tensor for a poot.validation result, got "
             << type;
    if (fn.getResultAttr(resultIndex, attrs::kState))
      return fn.emitOpError("expected a validation result not to be state");
    return success();
  }
  if (name == attrs::kState) {
    auto state = dyn_cast<StringAttr>(attr.getValue());
    if (!state)
      return fn.emitOpError() << "expected a string poot.state, got "
                              << attr.getValue();
    return verifyStatePair(fn, /*isResult=*/true, resultIndex, state);
  }
  if (name == attrs::kName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    if (!str)
      return fn.emitOpError() << "expected a string poot.name, got "
                              << attr.getValue();
    return verifyUniqueName(fn, /*isResult=*/true, resultIndex, str);
  }
  return fn.emitOpError() << "expected a poot result attribute "
                             "(poot.validation, poot.state, poot.name), got "
                          << attr.getName();
}

Operation *PootDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
