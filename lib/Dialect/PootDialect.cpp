//===- PootDialect.cpp - Dialect registration and graph conventions -------===//
//
// Registers the poot dialect and verifies the graph conventions of DESIGN 4.1
// on function arguments and results: slots, declared ranges, state pairs,
// validation witnesses and binding names.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace poot;

#include "poot/Dialect/PootDialect.cpp.inc"

void PootDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "poot/Dialect/PootOps.cpp.inc"
      >();
}

bool poot::isKnownSlot(StringRef slot) {
  return llvm::StringSwitch<bool>(slot)
      .Cases("pos", "len", "slot_map", "write_map", true)
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
                "\"write_map\", got "
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
