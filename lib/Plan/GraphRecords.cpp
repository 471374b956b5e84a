//===- GraphRecords.cpp - From a poot function to eqn records -------------===//
//
// Each poot op becomes an Eqn named by its mnemonic with its attributes as
// plain values; each function argument and result becomes a GraphInput or
// GraphOutput carrying its slot, declared range, state name and validation
// flag.
//
//===----------------------------------------------------------------------===//

#include "poot/Plan/GraphRecords.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace poot;

namespace {

llvm::Error errorAt(Location loc, const llvm::Twine &message) {
  std::string where;
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    where = llvm::formatv("{0}:{1}:{2}: ", fileLoc.getFilename().getValue(),
                          fileLoc.getLine(), fileLoc.getColumn())
                .str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where + message.str());
}

std::string locationString(Location loc) {
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return locationString(nameLoc.getChildLoc());
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                         fileLoc.getLine(), fileLoc.getColumn())
        .str();
  return "";
}

std::optional<rt::DType> toDType(Type type) {
  if (type.isF32())
    return rt::DType::F32;
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isF64())
    return rt::DType::F64;
  if (type.isSignlessInteger(1))
    return rt::DType::I1;
  if (type.isSignlessInteger(32))
    return rt::DType::I32;
  if (type.isSignlessInteger(64))
    return rt::DType::I64;
  return std::nullopt;
}

llvm::Expected<rt::TensorType> toTensorType(Type type, Location loc) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return errorAt(loc, llvm::formatv("expected a static tensor type, got {0}",
                                      type)
                            .str());
  auto dtype = toDType(tensor.getElementType());
  if (!dtype)
    return errorAt(loc, "unsupported element type");
  return rt::TensorType{*dtype, rt::Shape(tensor.getShape())};
}

llvm::Expected<rt::Tensor> toTensor(ElementsAttr attr, Location loc) {
  auto type = toTensorType(attr.getType(), loc);
  if (!type)
    return type.takeError();
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return errorAt(loc, "expected a dense constant");
  std::vector<double> values;
  values.reserve(dense.getNumElements());
  if (isa<FloatType>(dense.getElementType())) {
    for (const APFloat &v : dense.getValues<APFloat>())
      values.push_back(v.convertToDouble());
  } else if (dense.getElementType().isInteger(1)) {
    for (bool v : dense.getValues<bool>())
      values.push_back(v ? 1.0 : 0.0);
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(static_cast<double>(v.getSExtValue()));
  }
  return rt::Tensor(*type, std::move(values));
}

llvm::Expected<rt::Attr> toAttr(Attribute attr, Location loc) {
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    // Enum attributes (compare predicates) print as their keyword.
    if (auto pred = dyn_cast<ComparePredicateAttr>(attr))
      return rt::Attr::ofString(stringifyComparePredicate(pred.getValue()).str());
    return rt::Attr::ofInt(i.getValue().getSExtValue());
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return rt::Attr::ofFloat(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(attr))
    return rt::Attr::ofString(s.str());
  if (isa<UnitAttr>(attr))
    return rt::Attr::ofInt(1);
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr))
    return rt::Attr::ofInts(std::vector<int64_t>(ints.asArrayRef().begin(),
                                                 ints.asArrayRef().end()));
  if (auto ints = dyn_cast<DenseI32ArrayAttr>(attr))
    return rt::Attr::ofInts(std::vector<int64_t>(ints.asArrayRef().begin(),
                                                 ints.asArrayRef().end()));
  if (auto floats = dyn_cast<DenseF64ArrayAttr>(attr))
    return rt::Attr::ofFloats(std::vector<double>(
        floats.asArrayRef().begin(), floats.asArrayRef().end()));
  if (auto elements = dyn_cast<ElementsAttr>(attr)) {
    auto tensor = toTensor(elements, loc);
    if (!tensor)
      return tensor.takeError();
    return rt::Attr::ofTensor(std::move(*tensor));
  }
  return errorAt(loc, llvm::formatv("unsupported attribute {0}", attr).str());
}

} // namespace

llvm::Expected<rt::Graph> poot::toGraphRecords(func::FuncOp fn) {
  rt::Graph graph;
  graph.name = fn.getSymName().str();
  llvm::DenseMap<Value, int> ids;
  auto define = [&](Value value, Location loc) -> llvm::Expected<int> {
    auto type = toTensorType(value.getType(), loc);
    if (!type)
      return type.takeError();
    int id = static_cast<int>(graph.values.size());
    graph.values.push_back(*type);
    ids[value] = id;
    return id;
  };

  for (BlockArgument arg : fn.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto id = define(arg, fn.getLoc());
    if (!id)
      return id.takeError();
    rt::GraphInput input;
    input.value = *id;
    if (auto slot = fn.getArgAttrOfType<StringAttr>(i, attrs::kSlot))
      input.slot = slot.str();
    if (auto state = fn.getArgAttrOfType<StringAttr>(i, attrs::kState))
      input.state = state.str();
    if (auto range = fn.getArgAttrOfType<DenseI64ArrayAttr>(i, attrs::kRange))
      input.range = std::make_pair(range[0], range[1]);
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, attrs::kName))
      input.name = name.str();
    else if (!input.state.empty())
      input.name = input.state;
    else if (!input.slot.empty())
      input.name = input.slot;
    else
      input.name = "arg" + std::to_string(i);
    if (graph.findInput(input.name) >= 0)
      return errorAt(fn.getLoc(),
                     "two inputs are both called '" + input.name + "'");
    graph.inputs.push_back(std::move(input));
  }

  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
        rt::GraphOutput output;
        output.value = ids.lookup(value);
        if (auto state = fn.getResultAttrOfType<StringAttr>(i, attrs::kState))
          output.state = state.str();
        output.validation = fn.getResultAttr(i, attrs::kValidation) != nullptr;
        if (auto name = fn.getResultAttrOfType<StringAttr>(i, attrs::kName))
          output.name = name.str();
        else if (!output.state.empty())
          output.name = output.state;
        else
          output.name = (output.validation ? "valid" : "out") +
                        std::to_string(i);
        if (graph.findOutput(output.name) >= 0)
          return errorAt(ret.getLoc(),
                         "two outputs are both called '" + output.name + "'");
        graph.outputs.push_back(std::move(output));
      }
      continue;
    }
    if (!isa<PootDialect>(op.getDialect()))
      return errorAt(op.getLoc(), llvm::formatv("expected a poot op, got '{0}'",
                                                op.getName())
                                      .str());
    rt::Eqn eqn;
    eqn.op = op.getName().stripDialect().str();
    eqn.location = locationString(op.getLoc());
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        return errorAt(op.getLoc(), "operand defined outside the graph");
      eqn.operands.push_back(it->second);
    }
    for (Value result : op.getResults()) {
      auto id = define(result, op.getLoc());
      if (!id)
        return id.takeError();
      eqn.results.push_back(*id);
    }
    // Dictionaries (the planner's request, and its typed schedule spelled
    // out) flatten into
    // dotted names: poot.schedule.lanes.
    std::function<llvm::Error(StringRef, Attribute)> record =
        [&](StringRef name, Attribute value) -> llvm::Error {
      if (auto schedule = dyn_cast<AttentionScheduleAttr>(value))
        value = schedule.toDictionary();
      if (auto dict = dyn_cast<DictionaryAttr>(value)) {
        for (NamedAttribute entry : dict)
          if (llvm::Error err = record(
                  (name + "." + entry.getName().getValue()).str(),
                  entry.getValue()))
            return err;
        return llvm::Error::success();
      }
      // Arrays of dictionaries (the generator's launches) by index:
      // poot.launches.0.kernel. Arrays of strings join with commas.
      if (auto array = dyn_cast<ArrayAttr>(value)) {
        if (llvm::all_of(array, [](Attribute a) { return isa<StringAttr>(a); })) {
          std::string joined;
          for (auto [i, a] : llvm::enumerate(array))
            joined += (i ? "," : "") + cast<StringAttr>(a).str();
          eqn.attrs[name.str()] = rt::Attr::ofString(joined);
          return llvm::Error::success();
        }
        eqn.attrs[(name + ".count").str()] =
            rt::Attr::ofInt(static_cast<int64_t>(array.size()));
        for (auto [i, a] : llvm::enumerate(array))
          if (llvm::Error err = record((name + "." + Twine(i)).str(), a))
            return err;
        return llvm::Error::success();
      }
      if (auto b = dyn_cast<BoolAttr>(value)) {
        eqn.attrs[name.str()] = rt::Attr::ofInt(b.getValue() ? 1 : 0);
        return llvm::Error::success();
      }
      auto attr = toAttr(value, op.getLoc());
      if (!attr)
        return attr.takeError();
      eqn.attrs[name.str()] = std::move(*attr);
      return llvm::Error::success();
    };
    for (NamedAttribute named : op.getAttrs())
      if (llvm::Error err = record(named.getName().getValue(), named.getValue()))
        return std::move(err);
    // A unit attribute that is absent is a false flag.
    if (isa<ReduceSumOp, ReduceMaxOp, ReduceMinOp>(op) &&
        !eqn.attrs.count("keepdim"))
      eqn.attrs["keepdim"] = rt::Attr::ofInt(0);
    graph.eqns.push_back(std::move(eqn));
  }
  return graph;
}

llvm::Expected<func::FuncOp> poot::findGraph(ModuleOp module,
                                             llvm::StringRef name) {
  func::FuncOp found;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!name.empty()) {
      if (fn.getSymName() == name)
        return fn;
      continue;
    }
    if (fn.isPrivate() || fn.isDeclaration())
      continue;
    if (found)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the module holds several graphs (@%s, @%s): name one",
          found.getSymName().str().c_str(), fn.getSymName().str().c_str());
    found = fn;
  }
  if (!found)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name.empty() ? "the module holds no graph"
                                                : "no graph called @%s",
                                   name.str().c_str());
  return found;
}
