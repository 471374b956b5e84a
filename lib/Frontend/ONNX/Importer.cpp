//===- Importer.cpp - ONNX models to poot graphs --------------------------===//
//
// Walks an ONNX graph in its (topological) node order and builds one poot
// function with the tracer. Every ONNX value is either known at import time
// (a HostTensor: constants, small initializers, and everything the shape
// subgraphs compute from them and the bound dimensions) or a value of the
// graph; an op whose inputs are all known is folded (ShapeFold.cpp), any
// other is emitted as the primitive ops the tracer writes, so the fusion
// passes raise what they would raise in a traced graph: softmax as
// max/sub/exp/sum/div over its axis, the attention ops of both domains as
// the tracer's attention chain, masks as compare/select.
//
// This file holds the setup, the values, the dispatch and the plain ops;
// the attention, rotary, normalisation and scatter/gather ops are in files
// of their own (Importer.h lists them).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"
#include "poot/Trace/Tracer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

using namespace mlir;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using poot::trace::Tracer;

namespace poot::onnx {

std::string detail::shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

namespace {

using detail::shapeStr;
using detail::TensorInfo;

/// The opsets of the default domain this importer reads.
constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 24;

/// Tensors with at most this many elements are kept as constants whatever
/// their type (scalars such as eps or sqrt(d)).
constexpr int64_t kSmallConstant = 16;

rt::DType rtType(ElemKind kind) {
  switch (kind) {
  case ElemKind::F32:
    return rt::DType::F32;
  case ElemKind::F16:
    return rt::DType::F16;
  case ElemKind::BF16:
    return rt::DType::BF16;
  case ElemKind::F64:
    return rt::DType::F64;
  case ElemKind::I32:
    return rt::DType::I32;
  case ElemKind::I64:
    return rt::DType::I64;
  case ElemKind::Bool:
    return rt::DType::I1;
  }
  return rt::DType::F32;
}

int64_t kindBytes(ElemKind kind) {
  switch (kind) {
  case ElemKind::F16:
  case ElemKind::BF16:
    return 2;
  case ElemKind::F32:
  case ElemKind::I32:
    return 4;
  case ElemKind::F64:
  case ElemKind::I64:
    return 8;
  case ElemKind::Bool:
    return 1;
  }
  return 1;
}

//===----------------------------------------------------------------------===//
// Tensor data
//===----------------------------------------------------------------------===//

/// Reads the type and shape of `tp`.
bool tensorInfo(const ::onnx::TensorProto &tp, TensorInfo &info,
                std::string &err) {
  auto kind = kindFromOnnx(tp.data_type());
  if (!kind) {
    err = "expected an element type of FLOAT, FLOAT16, BFLOAT16, DOUBLE, "
          "INT32, INT64 or BOOL, got " +
          onnxTypeName(tp.data_type());
    return false;
  }
  info.kind = *kind;
  info.numel = 1;
  for (int64_t d : tp.dims()) {
    if (d < 0) {
      err = "expected non-negative dims, got " + std::to_string(d);
      return false;
    }
    info.shape.push_back(d);
    // Checked, and bounded so that the byte count (8 bytes at most an
    // element) is representable too.
    if (llvm::MulOverflow(info.numel, d, info.numel) ||
        info.numel > std::numeric_limits<int64_t>::max() / 8) {
      err = "expected a tensor of fewer than 2^60 elements, got dims " +
            shapeStr(info.shape) + "...";
      return false;
    }
  }
  if (tp.has_segment()) {
    err = "segmented tensors are not supported";
    return false;
  }
  return true;
}

/// Reads the raw little-endian bytes of `tp` (raw_data or its external
/// file) into `bytes`, or the typed fields when there are none
/// (`typed` = true, `bytes` left empty). Checks every size.
bool tensorBytes(const ::onnx::TensorProto &tp, const TensorInfo &info,
                 const std::string &dataDir, bool read, std::string &bytes,
                 bool &typed, std::string &err) {
  int64_t want = info.numel * kindBytes(info.kind);
  typed = false;
  if (tp.data_location() == ::onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &entry : tp.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        char *end = nullptr;
        long long v = std::strtoll(entry.value().c_str(), &end, 10);
        if (entry.value().empty() || *end != '\0' || v < 0) {
          err = "expected a non-negative external data " + entry.key() +
                ", got '" + entry.value() + "'";
          return false;
        }
        (entry.key() == "offset" ? offset : length) = v;
      }
    }
    if (location.empty()) {
      err = "external data without a location";
      return false;
    }
    bool escapes = llvm::sys::path::is_absolute(location);
    for (auto it = llvm::sys::path::begin(location),
              end = llvm::sys::path::end(location);
         it != end; ++it)
      escapes |= *it == "..";
    if (escapes) {
      err = "expected an external data location inside the model's "
            "directory, got '" + location + "'";
      return false;
    }
    SmallVector<char, 256> path(dataDir.begin(), dataDir.end());
    llvm::sys::path::append(path, location);
    std::string file(path.begin(), path.end());
    uint64_t size = 0;
    if (llvm::sys::fs::file_size(file, size)) {
      err = "missing external data file '" + file + "'";
      return false;
    }
    if (length < 0)
      length = static_cast<int64_t>(size) - offset;
    if (length != want) {
      err = "expected " + std::to_string(want) +
            " bytes of external data, got " + std::to_string(length);
      return false;
    }
    if (static_cast<uint64_t>(offset + length) > size) {
      err = "external data file '" + file + "' has " + std::to_string(size) +
            " bytes, expected at least " + std::to_string(offset + length);
      return false;
    }
    if (!read)
      return true;
    auto buffer = llvm::MemoryBuffer::getFileSlice(file, length, offset,
                                                   /*IsVolatile=*/false);
    if (!buffer) {
      err = "cannot read external data file '" + file +
            "': " + buffer.getError().message();
      return false;
    }
    bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
    return true;
  }
  if (tp.has_raw_data()) {
    if (static_cast<int64_t>(tp.raw_data().size()) != want) {
      err = "expected " + std::to_string(want) + " bytes of raw data, got " +
            std::to_string(tp.raw_data().size());
      return false;
    }
    if (read)
      bytes = tp.raw_data();
    return true;
  }
  typed = true;
  int64_t have = 0;
  switch (tp.data_type()) {
  case ::onnx::TensorProto::FLOAT:
    have = tp.float_data_size();
    break;
  case ::onnx::TensorProto::DOUBLE:
    have = tp.double_data_size();
    break;
  case ::onnx::TensorProto::INT64:
    have = tp.int64_data_size();
    break;
  default:
    have = tp.int32_data_size();
    break;
  }
  if (have != info.numel) {
    err = "expected " + std::to_string(info.numel) + " elements, got " +
          std::to_string(have);
    return false;
  }
  return true;
}

/// Decodes element k of raw little-endian storage.
double rawFloat(ElemKind kind, const char *p, int64_t k) {
  switch (kind) {
  case ElemKind::F32: {
    float v;
    std::memcpy(&v, p + 4 * k, 4);
    return v;
  }
  case ElemKind::F64: {
    double v;
    std::memcpy(&v, p + 8 * k, 8);
    return v;
  }
  case ElemKind::F16:
  case ElemKind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p + 2 * k, 2);
    return kind == ElemKind::F16 ? rt::halfBitsToFloat(bits)
                                 : rt::bf16BitsToFloat(bits);
  }
  default:
    return 0.0;
  }
}

int64_t rawInt(ElemKind kind, const char *p, int64_t k) {
  switch (kind) {
  case ElemKind::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * k, 4);
    return v;
  }
  case ElemKind::I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * k, 8);
    return v;
  }
  case ElemKind::Bool:
    return p[k] != 0 ? 1 : 0;
  default:
    return 0;
  }
}

/// Decodes `tp` into a HostTensor.
bool decodeTensor(const ::onnx::TensorProto &tp, const std::string &dataDir,
                  HostTensor &out, std::string &err) {
  TensorInfo info;
  if (!tensorInfo(tp, info, err))
    return false;
  std::string bytes;
  bool typed = false;
  if (!tensorBytes(tp, info, dataDir, /*read=*/true, bytes, typed, err))
    return false;
  out = HostTensor::zeros(info.kind, info.shape);
  for (int64_t k = 0; k < info.numel; ++k) {
    if (!typed) {
      if (out.isFloat())
        out.f[k] = rawFloat(info.kind, bytes.data(), k);
      else
        out.i[k] = rawInt(info.kind, bytes.data(), k);
      continue;
    }
    switch (info.kind) {
    case ElemKind::F32:
      out.f[k] = tp.float_data(k);
      break;
    case ElemKind::F64:
      out.f[k] = tp.double_data(k);
      break;
    case ElemKind::F16:
      out.f[k] = rt::halfBitsToFloat(static_cast<uint16_t>(tp.int32_data(k)));
      break;
    case ElemKind::BF16:
      out.f[k] = rt::bf16BitsToFloat(static_cast<uint16_t>(tp.int32_data(k)));
      break;
    case ElemKind::I64:
      out.i[k] = tp.int64_data(k);
      break;
    case ElemKind::Bool:
      out.i[k] = tp.int32_data(k) != 0;
      break;
    default:
      out.i[k] = tp.int32_data(k);
      break;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

/// The attributes each supported op may carry; any other is refused.
const llvm::StringMap<std::vector<StringRef>> &knownAttributes() {
  static const llvm::StringMap<std::vector<StringRef>> table = {
      {"Add", {}}, {"Sub", {}}, {"Mul", {}}, {"Div", {}}, {"Pow", {}},
      {"Max", {}}, {"Min", {}}, {"Sum", {}}, {"Equal", {}}, {"Less", {}},
      {"LessOrEqual", {}}, {"Greater", {}}, {"GreaterOrEqual", {}},
      {"And", {}}, {"Or", {}}, {"Not", {}}, {"IsNaN", {}},
      {"Neg", {}}, {"Abs", {}}, {"Sqrt", {}}, {"Reciprocal", {}},
      {"Exp", {}}, {"Log", {}}, {"Tanh", {}}, {"Sin", {}}, {"Cos", {}},
      {"Sigmoid", {}}, {"Relu", {}}, {"Sign", {}}, {"Floor", {}},
      {"Ceil", {}}, {"Erf", {}}, {"Clip", {"min", "max"}},
      {"Identity", {}},
      {"Dropout", {"seed"}},
      {"Cast", {"to", "saturate", "round_mode"}}, {"CastLike", {"saturate", "round_mode"}},
      {"Where", {}}, {"MatMul", {}},
      {"Gemm", {"alpha", "beta", "transA", "transB"}},
      {"Softmax", {"axis"}},
      {"ReduceMax", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMin", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceSum", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMean", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceProd", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"Reshape", {"allowzero"}}, {"Flatten", {"axis"}},
      {"Transpose", {"perm"}}, {"Expand", {}}, {"Tile", {}},
      {"Unsqueeze", {"axes"}}, {"Squeeze", {"axes"}},
      {"Concat", {"axis"}}, {"Slice", {}},
      {"Split", {"axis", "split", "num_outputs"}},
      {"Gather", {"axis"}}, {"GatherElements", {"axis"}}, {"Range", {}}, {"Trilu", {"upper"}},
      {"Shape", {"start", "end"}}, {"Size", {}},
      {"ConstantOfShape", {"value"}},
      {"Constant", {"value", "value_float", "value_floats", "value_int",
                    "value_ints"}},
      {"LayerNormalization", {"axis", "epsilon", "stash_type"}},
      {"RMSNormalization", {"axis", "epsilon", "stash_type"}},
      {"SimplifiedLayerNormalization", {"axis", "epsilon", "stash_type"}},
      {"Attention", {"is_causal", "kv_num_heads", "q_num_heads",
                     "qk_matmul_output_mode", "scale", "softcap",
                     "softmax_precision"}},
      {"RotaryEmbedding", {"interleaved", "num_heads",
                           "rotary_embedding_dim"}},
      {"Gelu", {"approximate"}},
      {"CumSum", {"exclusive", "reverse"}},
      {"GatherND", {"batch_dims"}},
      {"ScatterND", {"reduction"}},
      // ONNX Runtime's contrib ops, keyed by domain: the same names in the
      // default domain are other ops with other inputs.
      {"com.microsoft::SimplifiedLayerNormalization",
       {"axis", "epsilon", "stash_type"}},
      {"com.microsoft::SkipSimplifiedLayerNormalization", {"epsilon"}},
      {"com.microsoft::SkipLayerNormalization", {"epsilon"}},
      {"com.microsoft::Gelu", {}},
      {"com.microsoft::FastGelu", {}},
      {"com.microsoft::BiasGelu", {}},
      {"com.microsoft::QuickGelu", {"alpha"}},
      {"com.microsoft::BiasAdd", {}},
      {"com.microsoft::RotaryEmbedding",
       {"interleaved", "is_packed_batching", "num_heads",
        "rotary_embedding_dim", "scale"}},
      {"com.microsoft::MultiHeadAttention",
       {"mask_filter_value", "num_heads", "scale", "unidirectional"}},
      {"com.microsoft::GroupQueryAttention",
       {"causal", "do_rotary", "k_quant_type", "kv_cache_bit_width",
        "kv_num_heads", "local_window_size", "num_heads", "qk_norm_epsilon",
        "qk_output", "rotary_interleaved", "scale", "sliding_window_cache",
        "smooth_softmax", "softcap", "v_quant_type"}},
      {"com.microsoft::Attention",
       {"do_rotary", "mask_filter_value", "num_heads",
        "past_present_share_buffer", "qkv_hidden_sizes",
        "rotary_embedding_dim", "scale", "unidirectional"}},
  };
  return table;
}

/// The inputs every op needs (optional ones are checked where read); ops
/// not listed need one, the binary ops two.
int minInputs(const std::string &key) {
  static const std::map<std::string, int> table = {
      {"Where", 3}, {"MatMul", 2}, {"Gemm", 2}, {"Reshape", 2},
      {"Expand", 2}, {"Tile", 2}, {"Slice", 3}, {"Gather", 2}, {"GatherElements", 2}, {"Range", 3},
      {"Attention", 3}, {"LayerNormalization", 2}, {"CastLike", 2},
      {"Constant", 0}, {"Max", 1}, {"Min", 1}, {"Sum", 1}, {"Concat", 1},
      {"RotaryEmbedding", 3}, {"GatherND", 2}, {"ScatterND", 3},
      {"CumSum", 2},
      {"com.microsoft::SkipSimplifiedLayerNormalization", 3},
      {"com.microsoft::SkipLayerNormalization", 3},
      {"com.microsoft::BiasGelu", 2},
      {"com.microsoft::BiasAdd", 3},
      {"com.microsoft::RotaryEmbedding", 4},
      {"com.microsoft::GroupQueryAttention", 1},
      {"com.microsoft::Attention", 2},
  };
  auto it = table.find(key);
  return it != table.end() ? it->second : 1;
}

} // namespace

namespace detail {

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

bool Importer::readOpset() {
  for (const auto &entry : model.opset_import()) {
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      opset = entry.version();
  }
  if (opset == 0)
    return fail("expected an opset import of the default domain, got none");
  if (opset < kMinOpset || opset > kMaxOpset)
    return fail("unsupported opset " + std::to_string(opset) +
                " of the default domain, expected " +
                std::to_string(kMinOpset) + " to " +
                std::to_string(kMaxOpset));
  return true;
}

bool Importer::declareInputs() {
  for (const auto &init : graph.initializer())
    initializers[init.name()] = &init;
  if (graph.sparse_initializer_size() != 0)
    return fail("sparse initializers are not supported");
  if (options.kvCapacity && !kvSetup())
    return false;
  for (const auto &input : graph.input()) {
    // Older exports also list initializers as inputs: those are weights.
    if (initializers.count(input.name()))
      continue;
    const auto &type = input.type();
    if (!type.has_tensor_type())
      return fail("input '" + input.name() + "': expected a tensor, got " +
                  "another kind of value");
    const auto &tt = type.tensor_type();
    auto kind = kindFromOnnx(tt.elem_type());
    if (!kind)
      return fail("input '" + input.name() +
                  "': expected an element type of FLOAT, FLOAT16, BFLOAT16, "
                  "DOUBLE, INT32, INT64 or BOOL, got " +
                  onnxTypeName(tt.elem_type()));
    if (!tt.has_shape())
      return fail("input '" + input.name() + "': expected a shape, got none");
    if (options.kvCapacity) {
      bool handled = false;
      if (!kvInput(input, *kind, handled))
        return false;
      if (handled) {
        modelInputs.insert(input.name());
    inputNames.insert(input.name());
        continue;
      }
    }
    SmallVector<int64_t, 4> shape;
    for (auto [d, dim] : llvm::enumerate(tt.shape().dim())) {
      int64_t size = -1;
      if (dim.has_dim_value()) {
        size = dim.dim_value();
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        auto it = options.dims.find(dim.dim_param());
        if (it == options.dims.end())
          return fail("input '" + input.name() + "' dim " +
                      std::to_string(d) + ": unbound symbolic dimension '" +
                      dim.dim_param() + "'");
        size = it->second;
      } else {
        return fail("input '" + input.name() + "' dim " + std::to_string(d) +
                    ": expected a size or a symbolic name, got neither");
      }
      if (size < 1)
        return fail("input '" + input.name() + "' dim " + std::to_string(d) +
                    ": expected a size >= 1, got " + std::to_string(size));
      shape.push_back(size);
    }
    Val v;
    v.kind = *kind;
    v.shape = shape;
    v.value = t.input(input.name(), shape, mlirType(*kind));
    values[input.name()] = std::move(v);
    modelInputs.insert(input.name());
  }
  return true;
}

bool Importer::markShapeOperands() {
  // Operands the importer must know at import time: shapes, axes, starts,
  // indices, counts.
  static const std::map<std::string, std::vector<int>> positions = {
      {"Reshape", {1}}, {"Expand", {1}}, {"Tile", {1}}, {"Unsqueeze", {1}},
      {"Squeeze", {1}}, {"Slice", {1, 2, 3, 4}}, {"Split", {1}},
      {"Gather", {1}}, {"GatherElements", {1}}, {"Range", {0, 1, 2}}, {"Trilu", {1}},
      {"ConstantOfShape", {0}}, {"ReduceSum", {1}}, {"ReduceMax", {1}},
      {"ReduceMin", {1}}, {"ReduceMean", {1}}, {"ReduceProd", {1}},
      {"CumSum", {1}},
  };
  for (const auto &n : graph.node()) {
    auto it = positions.find(n.op_type());
    if (it == positions.end())
      continue;
    for (int k : it->second)
      if (k < n.input_size() && !n.input(k).empty())
        shapeOperands.insert(n.input(k));
  }
  return true;
}

bool Importer::keepAsConstant(const TensorInfo &info,
                              bool neededConstant) const {
  if (neededConstant || info.numel <= kSmallConstant)
    return true;
  return !isFloatKind(info.kind) && info.numel <= kFoldLimit;
}

bool Importer::addWeight(const std::string &name,
                         const ::onnx::TensorProto &tp,
                         const TensorInfo &info) {
  if (info.numel == 0)
    return fail("initializer '" + name + "': empty tensors are not "
                "supported");
  std::string bytes, err;
  bool typed = false;
  if (!tensorBytes(tp, info, options.externalDataDir, /*read=*/false, bytes,
                   typed, err))
    return fail("initializer '" + name + "': " + err);
  Weight w;
  if (options.loadWeights) {
    HostTensor h;
    if (!decodeTensor(tp, options.externalDataDir, h, err))
      return fail("initializer '" + name + "': " + err);
    rt::TensorType type{rtType(info.kind),
                        rt::Shape(info.shape.begin(), info.shape.end())};
    std::vector<double> data(h.numel());
    for (int64_t k = 0; k < h.numel(); ++k)
      data[k] = h.getF(k);
    w.value = rt::Tensor(type, std::move(data));
  }
  // The input is named as its weight file is (fileSafeName), so a
  // weights directory binds by file name even where the exporter's name
  // holds '/' (TensorFlow scopes, a Constant node's output); a name taken
  // already (another weight's, a model input's) gets a numbered suffix.
  std::string safe = fileSafeName(name);
  std::string inputName = safe;
  auto taken = [&] {
    return inputNames.count(inputName) ||
           (inputName != name && fileSafeNames.count(inputName));
  };
  for (int k = 2; taken(); ++k)
    inputName = safe + "_" + std::to_string(k);
  inputNames.insert(inputName);
  w.name = inputName;
  Val v;
  v.kind = info.kind;
  v.shape = info.shape;
  v.value = t.input(inputName, info.shape, mlirType(info.kind));
  values[name] = std::move(v);
  weights.push_back(std::move(w));
  return true;
}

bool Importer::declareInitializers() {
  // Only initializers something reads become inputs.
  std::set<std::string> used;
  for (const auto &n : graph.node())
    for (const auto &name : n.input())
      used.insert(name);
  for (const auto &out : graph.output())
    used.insert(out.name());
  // An initializer whose name is a file name already keeps it; the others
  // are renamed around those (addWeight).
  for (const auto &init : graph.initializer())
    if (fileSafeName(init.name()) == init.name())
      fileSafeNames.insert(init.name());
  for (const auto &init : graph.initializer()) {
    if (!used.count(init.name()) || values.count(init.name()))
      continue;
    TensorInfo info;
    std::string err;
    if (!tensorInfo(init, info, err))
      return fail("initializer '" + init.name() + "': " + err);
    if (keepAsConstant(info, shapeOperands.count(init.name()) != 0)) {
      Val v;
      v.kind = info.kind;
      v.shape = info.shape;
      HostTensor h;
      if (!decodeTensor(init, options.externalDataDir, h, err))
        return fail("initializer '" + init.name() + "': " + err);
      v.host = std::move(h);
      values[init.name()] = std::move(v);
      continue;
    }
    if (!addWeight(init.name(), init, info))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Type Importer::mlirType(ElemKind kind) {
  Builder b(&ctx);
  switch (kind) {
  case ElemKind::F32:
    return b.getF32Type();
  case ElemKind::F16:
    return b.getF16Type();
  case ElemKind::BF16:
    return b.getBF16Type();
  case ElemKind::F64:
    return b.getF64Type();
  case ElemKind::I32:
    return b.getI32Type();
  case ElemKind::I64:
    return b.getI64Type();
  case ElemKind::Bool:
    return b.getI1Type();
  }
  return b.getF32Type();
}

Value Importer::materialize(const HostTensor &h) {
  Type et = mlirType(h.kind);
  auto elementAttr = [&](int64_t k) -> Attribute {
    if (h.isFloat())
      return FloatAttr::get(et, h.f[k]);
    if (h.kind == ElemKind::Bool)
      return IntegerAttr::get(et, APInt(1, h.i[k] != 0 ? 1 : 0));
    return IntegerAttr::get(et, h.i[k]);
  };
  // A splat is one scalar broadcast, so a [L, L] fill costs one element.
  if (h.numel() > 1 && h.isSplat()) {
    Value c = t.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, et), ArrayRef<Attribute>{elementAttr(0)}));
    return t.broadcast(c, h.shape);
  }
  SmallVector<Attribute> elements;
  for (int64_t k = 0; k < h.numel(); ++k)
    elements.push_back(elementAttr(k));
  return t.constant(
      DenseElementsAttr::get(RankedTensorType::get(h.shape, et), elements));
}

Value Importer::valueOf(Val &v) {
  if (v.twin)
    return v.twin;
  if (!v.value && v.host)
    v.value = materialize(*v.host);
  return v.value;
}

bool Importer::constInput(int k, StringRef what, const HostTensor *&out) {
  if (!has(k))
    return fail("expected " + what + " (input " + std::to_string(k) +
                "), got none");
  out = host(k);
  if (out)
    return true;
  return fail("expected " + what + " (input " + std::to_string(k) +
              ") known at import time, got a value computed by the graph");
}

bool Importer::constInts(int k, StringRef what, std::vector<int64_t> &out) {
  const HostTensor *h;
  if (!constInput(k, what, h))
    return false;
  if (h->isFloat() || h->kind == ElemKind::Bool)
    return fail("expected integer " + what + ", got " + kindName(h->kind));
  out.assign(h->i.begin(), h->i.end());
  return true;
}

void Importer::setOut(int k, Value value) {
  if (!outputUsed(k))
    return;
  Val v;
  auto type = cast<RankedTensorType>(value.getType());
  v.shape.assign(type.getShape().begin(), type.getShape().end());
  Type et = type.getElementType();
  v.kind = et.isF32()    ? ElemKind::F32
           : et.isF16()  ? ElemKind::F16
           : et.isBF16() ? ElemKind::BF16
           : et.isF64()  ? ElemKind::F64
           : et.isInteger(1)  ? ElemKind::Bool
           : et.isInteger(32) ? ElemKind::I32
                              : ElemKind::I64;
  v.value = value;
  values[node->output(k)] = std::move(v);
}

void Importer::setOut(int k, HostTensor h) {
  if (!outputUsed(k))
    return;
  Val v;
  v.kind = h.kind;
  v.shape = h.shape;
  v.host = std::move(h);
  values[node->output(k)] = std::move(v);
}

bool Importer::allHost(int count) {
  for (int k = 0; k < count; ++k)
    if (has(k) && !host(k))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const ::onnx::AttributeProto *Importer::attr(StringRef name) const {
  for (const auto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Importer::attrInt(StringRef name, int64_t dflt) const {
  const auto *a = attr(name);
  return a ? a->i() : dflt;
}

double Importer::attrFloat(StringRef name, double dflt) const {
  const auto *a = attr(name);
  return a ? a->f() : dflt;
}

bool Importer::attrInts(StringRef name, std::vector<int64_t> &out) const {
  const auto *a = attr(name);
  if (!a)
    return false;
  out.assign(a->ints().begin(), a->ints().end());
  return true;
}

std::string Importer::attrString(StringRef name, StringRef dflt) const {
  const auto *a = attr(name);
  return a ? a->s() : dflt.str();
}

bool Importer::requireAttr(StringRef name, int64_t dflt, int64_t want) {
  int64_t v = attrInt(name, dflt);
  if (v == want)
    return true;
  return fail("unsupported attribute value " + name + "=" +
              std::to_string(v) + ", expected " + std::to_string(want));
}

bool Importer::checkAttributes(const std::string &key) {
  const auto &table = knownAttributes();
  auto it = table.find(key);
  for (const auto &a : node->attribute()) {
    if (!a.ref_attr_name().empty())
      return fail("attribute '" + a.name() +
                  "' refers to a function attribute; functions are not "
                  "supported");
    if (it == table.end() || !llvm::is_contained(it->second, a.name()))
      return fail("unsupported attribute '" + a.name() + "'");
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool Importer::normAxis(int64_t axis, int64_t rank, int64_t &out,
                        StringRef what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return fail("expected " + what + " in [" + std::to_string(-rank) + ", " +
                std::to_string(rank) + "), got " + std::to_string(axis));
  out = a;
  return true;
}

bool Importer::requireFloat(const Val &v, StringRef what) {
  if (isFloatKind(v.kind))
    return true;
  return fail("expected a float " + what + ", got " + kindName(v.kind));
}

bool Importer::requireRank(const Val &v, size_t rank, StringRef what) {
  if (v.shape.size() == rank)
    return true;
  return fail("expected " + what + " of rank " + std::to_string(rank) +
              ", got " + shapeStr(v.shape));
}

bool Importer::broadcastable(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (broadcastShapes(a, b))
    return true;
  return fail("expected broadcastable shapes, got " + shapeStr(a) + " and " +
              shapeStr(b));
}

Value Importer::scalarLike(double value, Value like) {
  return t.scalar(value, Tracer::elementTypeOf(like));
}

Value Importer::emitBinary(StringRef op, Value a, Value b) {
  if (op == "Add")
    return t.add(a, b);
  if (op == "Sub")
    return t.sub(a, b);
  if (op == "Mul")
    return t.mul(a, b);
  if (op == "Div")
    return t.div(a, b);
  if (op == "Pow")
    return t.pow(a, b);
  if (op == "Max")
    return t.max(a, b);
  if (op == "Min")
    return t.min(a, b);
  if (op == "And")
    return t.logicalAnd(a, b);
  if (op == "Or")
    return t.logicalOr(a, b);
  ComparePredicate pred = op == "Equal"         ? ComparePredicate::eq
                          : op == "Less"        ? ComparePredicate::lt
                          : op == "LessOrEqual" ? ComparePredicate::le
                          : op == "Greater"     ? ComparePredicate::gt
                                                : ComparePredicate::ge;
  return t.compare(pred, a, b);
}

Value Importer::reduceAxes(StringRef op, Value x, ArrayRef<int64_t> axes,
                           bool keepdim) {
  // Reduce with keepdim so the axes keep their numbers, then drop them.
  for (int64_t a : axes) {
    if (op == "Max")
      x = t.reduceMax(x, a, /*keepdim=*/true);
    else if (op == "Min")
      x = t.reduceMin(x, a, /*keepdim=*/true);
    else
      x = t.reduceSum(x, a, /*keepdim=*/true);
  }
  if (!keepdim) {
    SmallVector<int64_t> shape;
    for (auto [d, size] : llvm::enumerate(Tracer::shapeOf(x)))
      if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
        shape.push_back(size);
    x = t.reshape(x, shape);
  }
  return x;
}

Value Importer::softmax(Value x, int64_t axis) {
  // The tracer's spelling over `axis`: max, sub, exp, sum, div.
  Value m = t.reduceMax(x, axis, /*keepdim=*/true);
  Value e = t.exp(t.sub(x, m));
  Value z = t.reduceSum(e, axis, /*keepdim=*/true);
  return t.div(e, z);
}

Value Importer::causalMask(int64_t queryLen, int64_t keyLen, int64_t offset,
                           Type elementType, std::optional<int64_t> window) {
  // Query row i sits at offset + i and sees keys t <= offset + i (and, with
  // a window, t > offset + i - window).
  Value qpos = t.iota({1, 1, queryLen, 1}, /*dim=*/2, t.i32Type());
  if (offset != 0)
    qpos = t.add(qpos, t.scalar(static_cast<double>(offset), t.i32Type()));
  Value hidden = trace::ops::hiddenKeys(t, qpos, keyLen, window);
  return trace::ops::additiveMask(t, hidden, elementType);
}

Value Importer::wrapIndices(Value idx, int64_t dim) {
  Value zero = scalarLike(0.0, idx);
  Value wrapped = t.add(idx, scalarLike(static_cast<double>(dim), idx));
  return t.select(t.compare(ComparePredicate::lt, idx, zero), wrapped, idx);
}

/// c[0] + y * (c[1] + y * (...)): Horner's scheme with scalar coefficients.
static Value horner(Tracer &t, Value y, ArrayRef<double> c) {
  Value acc = t.splatLike(c.back(), y);
  for (double coefficient : llvm::reverse(c.drop_back()))
    acc = t.addScalar(t.mul(acc, y), coefficient);
  return acc;
}

Value Importer::erf(Value x) {
  // The dialect has no erf, so it is spelled in f32 from exp and
  // polynomials: below |x| = 0.5 the Maclaurin series to x^11 (truncation
  // under 2e-8), where the other form would lose its relative accuracy;
  // above it Abramowitz and Stegun 7.1.26, 1 - p(s) exp(-x^2) with
  // s = 1 / (1 + 0.3275911 |x|) (absolute error under 1.5e-7).
  Type storage = Tracer::elementTypeOf(x);
  Value xf = t.convertIfNeeded(x, t.f32Type());
  Value ax = t.abs(xf);
  Value sq = t.mul(xf, xf);
  Value series = horner(t, sq, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42,
                                1.0 / 216, -1.0 / 1320});
  Value near = t.mulScalar(t.mul(series, xf), 2.0 / std::sqrt(M_PI));
  Value den = t.addScalar(t.mulScalar(ax, 0.3275911), 1.0);
  Value s = t.div(t.splatLike(1.0, ax), den);
  Value p = t.mul(horner(t, s, {0.254829592, -0.284496736, 1.421413741,
                                -1.453152027, 1.061405429}),
                  s);
  Value decay = t.mul(p, t.exp(t.neg(sq)));
  Value tail = t.sub(t.splatLike(1.0, ax), decay);
  Value negative = t.compare(ComparePredicate::lt, xf, t.splatLike(0.0, xf));
  Value far = t.select(negative, t.neg(tail), tail);
  Value small = t.compare(ComparePredicate::lt, ax, t.splatLike(0.5, ax));
  return t.convertIfNeeded(t.select(small, near, far), storage);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

bool Importer::importElementwise(StringRef op) {
  bool variadic = op == "Max" || op == "Min" || op == "Sum";
  if (node->input_size() < 2 && !variadic)
    return fail("expected 2 inputs, got " +
                std::to_string(node->input_size()));
  // Max, Min and Sum are variadic: fold left (Sum as Add).
  if (op == "Sum")
    op = "Add";
  int count = node->input_size();
  bool fold = allHost(count);
  if (fold) {
    HostTensor acc = *host(0);
    for (int k = 1; k < count; ++k) {
      auto shape = broadcastShapes(acc.shape, host(k)->shape);
      if (!shape)
        return broadcastable(acc.shape, host(k)->shape);
      int64_t n = 1;
      for (int64_t d : *shape)
        n *= d;
      if (n > kFoldLimit) {
        fold = false;
        break;
      }
      auto r = foldBinary(op, acc, *host(k));
      if (!r) {
        fold = false;
        break;
      }
      acc = std::move(*r);
    }
    if (fold) {
      setOut(0, std::move(acc));
      return true;
    }
  }
  Val *first = &in(0);
  bool logical = op == "And" || op == "Or";
  bool compare = op == "Equal" || op == "Less" || op == "LessOrEqual" ||
                 op == "Greater" || op == "GreaterOrEqual";
  if (logical && first->kind != ElemKind::Bool)
    return fail("expected bool operands, got " +
                std::string(kindName(first->kind)));
  Value acc = valueOf(*first);
  for (int k = 1; k < count; ++k) {
    Val &rhs = in(k);
    if (!broadcastable(Tracer::shapeOf(acc), rhs.shape))
      return false;
    Value b = valueOf(rhs);
    Type at = Tracer::elementTypeOf(acc), bt = Tracer::elementTypeOf(b);
    if (op == "Pow" && at != bt) {
      // ONNX lets the exponent have its own type.
      if (!isa<FloatType>(at))
        return fail("expected a float base, got " + std::string(
                                                         kindName(first->kind)));
      b = t.convert(b, at);
      bt = at;
    }
    if (at != bt)
      return fail("expected operands of one element type, got " +
                  std::string(kindName(first->kind)) + " and " +
                  kindName(rhs.kind));
    if (compare && at.isInteger(1)) {
      acc = t.convert(acc, t.i32Type());
      b = t.convert(b, t.i32Type());
    }
    if (!logical && !compare && at.isInteger(1))
      return fail("expected numeric operands, got bool");
    acc = emitBinary(op, acc, b);
  }
  setOut(0, acc);
  return true;
}

bool Importer::importUnary(StringRef op) {
  if (!has(0))
    return fail("expected 1 input, got none");
  Val &x = in(0);
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && outputUsed(1))
      return fail("the mask output of Dropout is not supported");
    if (op == "Dropout" && has(2)) {
      const HostTensor *mode;
      if (!constInput(2, "training_mode", mode))
        return false;
      if (mode->getI(0) != 0)
        return fail("expected training_mode false, got true");
    }
    values[node->output(0)] = x;
    return true;
  }
  if (x.host && x.host->numel() <= kFoldLimit) {
    if (auto r = foldUnary(op, *x.host)) {
      setOut(0, std::move(*r));
      return true;
    }
  }
  // The dialect has no rounding to integers: Floor and Ceil of values known
  // at import (DeBERTa's log-bucketed relative positions) fold above.
  if (op == "Floor" || op == "Ceil")
    return fail(op.str() + " of a value computed by the graph is not "
                           "supported (only of values known at import time)");
  Value v = valueOf(x);
  if (op == "Not") {
    if (x.kind != ElemKind::Bool)
      return fail("expected a bool operand, got " +
                  std::string(kindName(x.kind)));
    setOut(0, t.logicalNot(v));
    return true;
  }
  if (op == "IsNaN") {
    if (!requireFloat(x, "operand"))
      return false;
    setOut(0, t.compare(ComparePredicate::ne, v, v));
    return true;
  }
  if (x.kind == ElemKind::Bool)
    return fail("expected a numeric operand, got bool");
  if (op == "Neg") {
    setOut(0, t.neg(v));
    return true;
  }
  if (op == "Abs") {
    setOut(0, t.abs(v));
    return true;
  }
  if (op == "Relu") {
    setOut(0, t.max(v, scalarLike(0.0, v)));
    return true;
  }
  if (op == "Sign") {
    // 1 above zero, -1 below, and x itself otherwise: a float's zeros keep
    // their sign and NaN stays NaN, as ONNX's Sign gives them.
    Value zero = scalarLike(0.0, v);
    Value rest = isFloatKind(x.kind) ? v : zero;
    Value below = t.select(t.compare(ComparePredicate::lt, v, zero),
                           scalarLike(-1.0, v), rest);
    setOut(0, t.select(t.compare(ComparePredicate::gt, v, zero),
                       scalarLike(1.0, v), below));
    return true;
  }
  if (!requireFloat(x, "operand"))
    return false;
  Value r;
  if (op == "Sqrt")
    r = t.sqrt(v);
  else if (op == "Exp")
    r = t.exp(v);
  else if (op == "Log")
    r = t.log(v);
  else if (op == "Tanh")
    r = t.tanh(v);
  else if (op == "Sin")
    r = t.sin(v);
  else if (op == "Cos")
    r = t.cos(v);
  else if (op == "Reciprocal")
    r = t.div(scalarLike(1.0, v), v);
  else if (op == "Sigmoid")
    r = t.div(scalarLike(1.0, v), t.add(scalarLike(1.0, v), t.exp(t.neg(v))));
  else if (op == "Erf")
    r = erf(v);
  else
    return fail("unsupported op " + op.str());
  setOut(0, r);
  return true;
}

bool Importer::importGelu() {
  if (opset < 20)
    return fail("expected opset >= 20 for Gelu, got " + std::to_string(opset));
  Val &x = in(0);
  if (!requireFloat(x, "input"))
    return false;
  std::string mode = attrString("approximate", "none");
  if (mode != "none" && mode != "tanh")
    return fail("unsupported attribute value approximate='" + mode +
                "', expected 'none' or 'tanh'");
  setOut(0, gelu(valueOf(x), /*tanhForm=*/mode == "tanh"));
  return true;
}

Value Importer::gelu(Value v, bool tanhForm) {
  Value inner;
  if (tanhForm) {
    // x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    Value cube = t.mul(t.mul(v, v), v);
    Value arg = t.add(v, t.mulScalar(cube, 0.044715));
    inner = t.tanh(t.mulScalar(arg, std::sqrt(2.0 / M_PI)));
  } else {
    // x/2 * (1 + erf(x / sqrt(2)))
    inner = erf(t.mulScalar(v, 1.0 / std::sqrt(2.0)));
  }
  return t.mul(t.mulScalar(v, 0.5), t.addScalar(inner, 1.0));
}

bool Importer::importContribActivation(StringRef op) {
  // ONNX Runtime's fused activations (com.microsoft): Gelu (erf), FastGelu
  // (the tanh form, after an optional bias), BiasGelu (erf, after a bias),
  // QuickGelu (x * sigmoid(alpha x)), BiasAdd (input + bias + skip).
  Val &x = in(0);
  if (!requireFloat(x, "input"))
    return false;
  Value v = valueOf(x);
  // Inputs k >= 1 are added to the input: each of its type, broadcast to
  // its shape (a bias [C], a skip of the input's shape).
  auto addInput = [&](int k) {
    if (!has(k))
      return true;
    Val &p = in(k);
    if (p.kind != x.kind)
      return fail("expected input " + std::to_string(k) + " of type " +
                  kindName(x.kind) + ", got " + kindName(p.kind));
    auto shape = broadcastShapes(x.shape, p.shape);
    if (!shape || ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(x.shape))
      return fail("expected input " + std::to_string(k) +
                  " to broadcast to the input " + shapeStr(x.shape) +
                  ", got " + shapeStr(p.shape));
    v = t.add(v, valueOf(p));
    return true;
  };
  if (op == "Gelu") {
    setOut(0, gelu(v, /*tanhForm=*/false));
    return true;
  }
  if (op == "FastGelu" || op == "BiasGelu") {
    if (!addInput(1))
      return false;
    setOut(0, gelu(v, /*tanhForm=*/op == "FastGelu"));
    return true;
  }
  if (op == "QuickGelu") {
    double alpha = attrFloat("alpha", 1.702);
    Value ax = t.mulScalar(v, alpha);
    Value sig = t.div(scalarLike(1.0, v),
                      t.add(scalarLike(1.0, v), t.exp(t.neg(ax))));
    setOut(0, t.mul(v, sig));
    return true;
  }
  // BiasAdd: input [B, S, C], bias [C], skip [B, S, C].
  if (!requireRank(x, 3, "input") || !addInput(1) || !addInput(2))
    return false;
  setOut(0, v);
  return true;
}

bool Importer::importCast() {
  Val &x = in(0);
  std::optional<ElemKind> to;
  if (node->op_type() == "CastLike") {
    to = in(1).kind;
  } else {
    const auto *a = attr("to");
    if (!a)
      return fail("expected attribute 'to', got none");
    to = kindFromOnnx(static_cast<int32_t>(a->i()));
    if (!to)
      return fail("unsupported attribute value to=" +
                  onnxTypeName(static_cast<int32_t>(a->i())));
  }
  if (x.host) {
    setOut(0, foldCast(*x.host, *to));
    return true;
  }
  setOut(0, t.convertIfNeeded(valueOf(x), mlirType(*to)));
  return true;
}

bool Importer::importWhere() {
  if (node->input_size() != 3)
    return fail("expected 3 inputs, got " +
                std::to_string(node->input_size()));
  Val &c = in(0), &a = in(1), &b = in(2);
  if (c.kind != ElemKind::Bool)
    return fail("expected a bool condition, got " +
                std::string(kindName(c.kind)));
  if (a.kind != b.kind)
    return fail("expected branches of one element type, got " +
                std::string(kindName(a.kind)) + " and " + kindName(b.kind));
  auto ab = broadcastShapes(a.shape, b.shape);
  if (!ab)
    return broadcastable(a.shape, b.shape);
  auto all = broadcastShapes(c.shape, *ab);
  if (!all)
    return broadcastable(c.shape, *ab);
  if (allHost(3)) {
    int64_t n = 1;
    for (int64_t d : *all)
      n *= d;
    if (n <= kFoldLimit) {
      if (auto r = foldWhere(*c.host, *a.host, *b.host)) {
        setOut(0, std::move(*r));
        return true;
      }
    }
  }
  setOut(0, t.select(valueOf(c), valueOf(a), valueOf(b)));
  return true;
}

//===----------------------------------------------------------------------===//
// Contractions and normalisations
//===----------------------------------------------------------------------===//

bool Importer::importMatMul() {
  Val &a = in(0), &b = in(1);
  if (a.kind != b.kind)
    return fail("expected operands of one element type, got " +
                std::string(kindName(a.kind)) + " and " + kindName(b.kind));
  if (a.kind == ElemKind::Bool)
    return fail("expected numeric operands, got bool");
  if (a.shape.empty() || b.shape.empty())
    return fail("expected operands of rank >= 1, got " +
                std::to_string(a.shape.size()) + " and " +
                std::to_string(b.shape.size()));
  Value lhs = valueOf(a), rhs = valueOf(b);
  // numpy: a vector operand gains a unit dim that the result drops.
  bool vecA = a.shape.size() == 1, vecB = b.shape.size() == 1;
  if (vecA)
    lhs = t.reshape(lhs, {1, a.shape[0]});
  if (vecB)
    rhs = t.reshape(rhs, {b.shape[0], 1});
  ArrayRef<int64_t> ls = Tracer::shapeOf(lhs), rs = Tracer::shapeOf(rhs);
  if (ls.back() != rs[rs.size() - 2])
    return fail("expected contracting dims to match, got " + shapeStr(ls) +
                " and " + shapeStr(rs));
  if (!broadcastShapes(ls.drop_back(2), rs.drop_back(2)))
    return fail("expected broadcastable batch dims, got " + shapeStr(ls) +
                " and " + shapeStr(rs));
  Value r = t.matmul(lhs, rhs);
  if (vecA || vecB) {
    SmallVector<int64_t> shape(Tracer::shapeOf(r));
    if (vecB)
      shape.pop_back();
    if (vecA)
      shape.erase(shape.end() - 1 - (vecB ? 0 : 1));
    r = t.reshape(r, shape);
  }
  setOut(0, r);
  return true;
}

bool Importer::importGemm() {
  Val &a = in(0), &b = in(1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    return fail("expected rank-2 A and B, got " + shapeStr(a.shape) +
                " and " + shapeStr(b.shape));
  if (a.kind != b.kind || !isFloatKind(a.kind))
    return fail("expected float A and B of one type, got " +
                std::string(kindName(a.kind)) + " and " + kindName(b.kind));
  Value lhs = valueOf(a), rhs = valueOf(b);
  if (attrInt("transA", 0))
    lhs = t.transpose(lhs, {1, 0});
  if (attrInt("transB", 0))
    rhs = t.transpose(rhs, {1, 0});
  if (Tracer::shapeOf(lhs)[1] != Tracer::shapeOf(rhs)[0])
    return fail("expected contracting dims to match, got " +
                shapeStr(Tracer::shapeOf(lhs)) + " and " +
                shapeStr(Tracer::shapeOf(rhs)));
  Value y = t.matmul(lhs, rhs);
  double alpha = attrFloat("alpha", 1.0), beta = attrFloat("beta", 1.0);
  if (alpha != 1.0)
    y = t.mul(y, scalarLike(alpha, y));
  if (has(2)) {
    Val &c = in(2);
    if (c.kind != a.kind)
      return fail("expected C of type " + std::string(kindName(a.kind)) +
                  ", got " + kindName(c.kind));
    auto shape = broadcastShapes(Tracer::shapeOf(y), c.shape);
    if (!shape || ArrayRef<int64_t>(*shape) != Tracer::shapeOf(y))
      return fail("expected C to broadcast to " +
                  shapeStr(Tracer::shapeOf(y)) + ", got " +
                  shapeStr(c.shape));
    Value cv = valueOf(c);
    if (beta != 1.0)
      cv = t.mul(cv, scalarLike(beta, cv));
    y = t.add(y, cv);
  }
  setOut(0, y);
  return true;
}

bool Importer::importSoftmax() {
  Val &x = in(0);
  if (!requireFloat(x, "input"))
    return false;
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0)
    return fail("expected an input of rank >= 1, got a scalar");
  int64_t axis;
  if (!normAxis(attrInt("axis", opset >= 13 ? -1 : 1), rank, axis, "axis"))
    return false;
  Value v = valueOf(x);
  if (opset >= 13 || axis == rank - 1) {
    setOut(0, softmax(v, axis));
    return true;
  }
  // Before opset 13 the input is flattened to 2-D at `axis`.
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? rows : cols) *= x.shape[d];
  Value flat = t.reshape(v, {rows, cols});
  setOut(0, t.reshape(softmax(flat, 1), x.shape));
  return true;
}

bool Importer::importReduce(StringRef op) {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  bool keepdim = attrInt("keepdims", 1) != 0;
  bool noop = attrInt("noop_with_empty_axes", 0) != 0;
  // Axes are an input from opset 13 (ReduceSum) or 18 (the others).
  bool axesInput = op == "Sum" ? opset >= 13 : opset >= 18;
  std::vector<int64_t> axes;
  if (axesInput) {
    if (attr("axes"))
      return fail("unsupported attribute 'axes' at opset " +
                  std::to_string(opset) + ", expected the axes input");
    if (has(1) && !constInts(1, "axes", axes))
      return false;
  } else {
    if (has(1))
      return fail("expected the axes attribute at opset " +
                  std::to_string(opset) + ", got an axes input");
    attrInts("axes", axes);
  }
  if (axes.empty()) {
    if (noop) {
      values[node->output(0)] = x;
      return true;
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &a : axes)
    if (!normAxis(a, rank, a, "axes"))
      return false;
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return fail("expected distinct axes, got a repeated one");
  if (x.host) {
    HostTensor h = *x.host;
    for (int64_t a : axes)
      h = foldReduce(op, h, a, /*keepdim=*/true);
    if (!keepdim) {
      SmallVector<int64_t, 4> shape;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(axes, d))
          shape.push_back(h.shape[d]);
      h.shape = shape;
    }
    setOut(0, std::move(h));
    return true;
  }
  if (x.kind == ElemKind::Bool)
    return fail("expected a numeric input, got bool");
  if (op == "Prod")
    return fail("unsupported op ReduceProd on a value computed by the graph");
  if (op == "Mean" && !isFloatKind(x.kind))
    return fail("expected a float input, got " + std::string(kindName(x.kind)));
  Value v = valueOf(x);
  Value r = reduceAxes(op == "Mean" ? "Sum" : op, v, axes, /*keepdim=*/true);
  if (op == "Mean") {
    int64_t count = 1;
    for (int64_t a : axes)
      count *= x.shape[a];
    r = t.div(r, scalarLike(static_cast<double>(count), r));
  }
  if (!keepdim) {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(axes, d))
        shape.push_back(x.shape[d]);
    r = t.reshape(r, shape);
  }
  setOut(0, r);
  return true;
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

bool Importer::importReshape() {
  Val &x = in(0);
  std::vector<int64_t> spec;
  if (!constInts(1, "shape", spec))
    return false;
  bool allowZero = attrInt("allowzero", 0) != 0;
  SmallVector<int64_t, 4> shape;
  int64_t known = 1, inferAt = -1;
  for (auto [d, s] : llvm::enumerate(spec)) {
    int64_t size = s;
    if (s == 0 && !allowZero) {
      if (d >= x.shape.size())
        return fail("shape entry " + std::to_string(d) +
                    " is 0 (copy) past the input's rank " +
                    std::to_string(x.shape.size()));
      size = x.shape[d];
    } else if (s == -1) {
      if (inferAt >= 0)
        return fail("expected at most one -1 in the shape, got two");
      inferAt = static_cast<int64_t>(d);
      size = 1;
    } else if (s < 0) {
      return fail("expected shape entries >= -1, got " + std::to_string(s));
    }
    shape.push_back(size);
    if (static_cast<int64_t>(d) != inferAt &&
        llvm::MulOverflow(known, size, known))
      return fail("expected a shape of fewer than 2^63 elements, got " +
                  shapeStr(spec));
  }
  int64_t total = 1;
  for (int64_t d : x.shape)
    if (llvm::MulOverflow(total, d, total))
      return fail("expected an input of fewer than 2^63 elements, got " +
                  shapeStr(x.shape));
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      return fail("cannot infer the -1 of shape " + shapeStr(spec) +
                  " from " + std::to_string(total) + " elements");
    shape[inferAt] = total / known;
  } else if (known != total) {
    return fail("expected a shape of " + std::to_string(total) +
                " elements, got " + shapeStr(shape));
  }
  if (x.host) {
    setOut(0, foldReshape(*x.host, shape));
    return true;
  }
  setOut(0, t.reshape(valueOf(x), shape));
  return true;
}

bool Importer::importFlatten() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return fail("expected axis in [" + std::to_string(-rank) + ", " +
                std::to_string(rank) + "], got " +
                std::to_string(attrInt("axis", 1)));
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? rows : cols) *= x.shape[d];
  if (x.host) {
    setOut(0, foldReshape(*x.host, {rows, cols}));
    return true;
  }
  setOut(0, t.reshape(valueOf(x), {rows, cols}));
  return true;
}

bool Importer::importTranspose() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> perm;
  if (!attrInts("perm", perm))
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  std::vector<int64_t> sorted(perm);
  std::sort(sorted.begin(), sorted.end());
  for (int64_t d = 0; d < rank; ++d)
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[d] != d)
      return fail("expected perm to be a permutation of 0.." +
                  std::to_string(rank - 1) + ", got " + shapeStr(perm));
  if (x.host) {
    setOut(0, foldTranspose(*x.host, perm));
    return true;
  }
  setOut(0, t.transpose(valueOf(x), perm));
  return true;
}

bool Importer::importExpand() {
  Val &x = in(0);
  std::vector<int64_t> spec;
  if (!constInts(1, "shape", spec))
    return false;
  auto shape = broadcastShapes(x.shape, spec);
  if (!shape)
    return broadcastable(x.shape, spec);
  int64_t n = 1;
  for (int64_t d : *shape)
    if (llvm::MulOverflow(n, d, n))
      return fail("expected a shape of fewer than 2^63 elements, got " +
                  shapeStr(*shape));
  if (x.host && n <= kFoldLimit) {
    setOut(0, foldBroadcast(*x.host, *shape));
    return true;
  }
  // poot.broadcast takes positive dims only; its builder would abort.
  if (llvm::any_of(*shape, [](int64_t d) { return d < 1; }))
    return fail("expected an expanded shape of positive dims, got " +
                shapeStr(*shape));
  setOut(0, t.broadcastTo(valueOf(x), *shape));
  return true;
}

bool Importer::importTile() {
  Val &x = in(0);
  std::vector<int64_t> repeats;
  if (!constInts(1, "repeats", repeats))
    return false;
  if (repeats.size() != x.shape.size())
    return fail("expected " + std::to_string(x.shape.size()) +
                " repeats (one per dim of the input), got " +
                std::to_string(repeats.size()));
  SmallVector<int64_t, 4> shape;
  int64_t n = 1;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 1)
      return fail("expected repeats >= 1, got " + std::to_string(repeats[d]) +
                  " for dim " + std::to_string(d));
    int64_t size = 0;
    if (llvm::MulOverflow(x.shape[d], repeats[d], size) ||
        llvm::MulOverflow(n, size, n))
      return fail("expected a tiled shape of fewer than 2^63 elements");
    shape.push_back(size);
  }
  if (x.host && n <= kFoldLimit) {
    std::vector<std::vector<int64_t>> positions(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      for (int64_t j = 0; j < shape[d]; ++j)
        positions[d].push_back(j % x.shape[d]);
    setOut(0, foldTake(*x.host, positions));
    return true;
  }
  // out[.., j, ..] = x[.., j % d, ..]: each tiled dim d as (repeats, d),
  // the copies outermost, broadcast and merged back.
  SmallVector<int64_t, 8> split, wide;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] != 1) {
      split.push_back(1);
      wide.push_back(repeats[d]);
    }
    split.push_back(x.shape[d]);
    wide.push_back(x.shape[d]);
  }
  Value v = valueOf(x);
  if (split.size() != shape.size()) {
    v = t.reshape(v, split);
    v = t.broadcastTo(v, wide);
    v = t.reshape(v, shape);
  }
  setOut(0, v);
  return true;
}

bool Importer::importUnsqueeze() {
  Val &x = in(0);
  std::vector<int64_t> axes;
  if (opset >= 13) {
    if (!constInts(1, "axes", axes))
      return false;
  } else if (!attrInts("axes", axes)) {
    return fail("expected attribute 'axes', got none");
  }
  int64_t rank = static_cast<int64_t>(x.shape.size() + axes.size());
  for (int64_t &a : axes)
    if (!normAxis(a, rank, a, "axes"))
      return false;
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return fail("expected distinct axes, got a repeated one");
  SmallVector<int64_t, 4> shape;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(llvm::is_contained(axes, d) ? 1 : x.shape[next++]);
  if (x.host) {
    setOut(0, foldReshape(*x.host, shape));
    return true;
  }
  setOut(0, t.reshape(valueOf(x), shape));
  return true;
}

bool Importer::importSqueeze() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  if (opset >= 13) {
    if (has(1) && !constInts(1, "axes", axes))
      return false;
  } else {
    attrInts("axes", axes);
  }
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d)
      if (x.shape[d] == 1)
        axes.push_back(d);
  }
  for (int64_t &a : axes) {
    if (!normAxis(a, rank, a, "axes"))
      return false;
    if (x.shape[a] != 1)
      return fail("expected dim " + std::to_string(a) +
                  " of size 1 to squeeze, got " + std::to_string(x.shape[a]));
  }
  SmallVector<int64_t, 4> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(x.shape[d]);
  if (x.host) {
    setOut(0, foldReshape(*x.host, shape));
    return true;
  }
  setOut(0, t.reshape(valueOf(x), shape));
  return true;
}

bool Importer::importConcat() {
  const auto *a = attr("axis");
  if (!a)
    return fail("expected attribute 'axis', got none");
  // Empty inputs (shape lists of length 0, empty slices) add nothing.
  std::vector<Val *> inputs;
  for (int k = 0; k < node->input_size(); ++k) {
    if (!has(k))
      continue;
    Val &v = in(k);
    int64_t n = 1;
    for (int64_t d : v.shape)
      n *= d;
    if (n == 0 && v.host)
      continue;
    inputs.push_back(&v);
  }
  if (inputs.empty()) {
    setOut(0, HostTensor::zeros(in(0).kind, {0}));
    return true;
  }
  int64_t rank = static_cast<int64_t>(inputs.front()->shape.size());
  int64_t axis;
  if (!normAxis(a->i(), rank, axis, "axis"))
    return false;
  for (Val *v : inputs) {
    if (v->kind != inputs.front()->kind)
      return fail("expected inputs of one element type, got " +
                  std::string(kindName(inputs.front()->kind)) + " and " +
                  kindName(v->kind));
    if (static_cast<int64_t>(v->shape.size()) != rank)
      return fail("expected inputs of rank " + std::to_string(rank) +
                  ", got " + shapeStr(v->shape));
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && v->shape[d] != inputs.front()->shape[d])
        return fail("expected inputs that match off the axis, got " +
                    shapeStr(inputs.front()->shape) + " and " +
                    shapeStr(v->shape));
  }
  bool fold = llvm::all_of(inputs, [](Val *v) { return v->host.has_value(); });
  if (fold) {
    SmallVector<const HostTensor *> hosts;
    for (Val *v : inputs)
      hosts.push_back(&*v->host);
    setOut(0, foldConcat(hosts, axis));
    return true;
  }
  SmallVector<Value> vals;
  for (Val *v : inputs)
    vals.push_back(valueOf(*v));
  setOut(0, vals.size() == 1 ? vals.front() : t.concat(vals, axis));
  return true;
}

bool Importer::importTwinSlice() {
  // The starts follow the cache's run-time length (the --kv-capacity
  // rewrite's second pass): each start is read from the graph value, taken
  // as ONNX does (a negative one counts from the back), and the sizes are
  // the first pass's, which followed the cache's capacity. The ends are
  // not read: along a sliced axis they stand as far from the start at run
  // time as they did at the capacity (rows [length - seq, length) of a
  // table), and dynamic_slice clamps each start into [0, dim - size].
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes, steps;
  if (has(3) && !constInts(3, "axes", axes))
    return false;
  if (has(4) && !constInts(4, "steps", steps))
    return false;
  Val &startsVal = in(1);
  if (startsVal.shape.size() != 1)
    return fail("expected starts of rank 1");
  int64_t n = startsVal.shape[0];
  if (axes.empty())
    for (int64_t k = 0; k < n; ++k)
      axes.push_back(k);
  if (static_cast<int64_t>(axes.size()) != n ||
      llvm::any_of(steps, [](int64_t st) { return st != 1; }) ||
      static_cast<int64_t>(twinSliceShape->size()) != rank)
    return fail("expected unit steps and one axis per start");
  Type i64 = mlirType(ElemKind::I64);
  Value zero = t.scalar(0.0, i64);
  SmallVector<Value> starts(rank, zero);
  Value all = t.convertIfNeeded(valueOf(startsVal), i64);
  for (int64_t k = 0; k < n; ++k) {
    int64_t axis;
    if (!normAxis(axes[k], rank, axis, "axes"))
      return false;
    Value sk = t.reshape(t.slice(all, {k}, {k + 1}), {});
    Value dim = t.scalar(static_cast<double>(x.shape[axis]), i64);
    starts[axis] = t.select(t.compare(ComparePredicate::lt, sk, zero),
                            t.add(sk, dim), sk);
  }
  setOut(0, t.dynamicSlice(valueOf(x), starts, *twinSliceShape));
  return true;
}

bool Importer::importSlice() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (twinSliceShape && has(1) && has(2) && (!in(1).host || !in(2).host))
    return importTwinSlice();
  if (opset >= 10) {
    if (!constInts(1, "starts", starts) || !constInts(2, "ends", ends))
      return false;
    if (has(3) && !constInts(3, "axes", axes))
      return false;
    if (has(4) && !constInts(4, "steps", steps))
      return false;
  }
  if (starts.size() != ends.size())
    return fail("expected starts and ends of one length, got " +
                std::to_string(starts.size()) + " and " +
                std::to_string(ends.size()));
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(static_cast<int64_t>(k));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return fail("expected axes and steps as long as starts");
  // The positions taken on every axis.
  std::vector<std::vector<int64_t>> positions(rank);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t k = 0; k < x.shape[d]; ++k)
      positions[d].push_back(k);
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t axis;
    if (!normAxis(axes[k], rank, axis, "axes"))
      return false;
    if (seen[axis])
      return fail("expected distinct axes, got " + std::to_string(axis) +
                  " twice");
    seen[axis] = true;
    int64_t dim = x.shape[axis], step = steps[k];
    if (step == 0)
      return fail("expected nonzero steps, got 0");
    auto clamp = [](int64_t v, int64_t lo, int64_t hi) {
      return std::max(lo, std::min(v, hi));
    };
    int64_t start = starts[k], end = ends[k];
    // Sizes such as INT64_MAX mean "to the end"; keep the sums in range.
    start = clamp(start, -dim - 1, dim + 1);
    end = clamp(end, -dim - 1, dim + 1);
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = clamp(start, 0, dim);
      end = clamp(end, 0, dim);
    } else {
      start = clamp(start, 0, dim - 1);
      end = clamp(end, -1, dim - 1);
    }
    positions[axis].clear();
    for (int64_t p = start; step > 0 ? p < end : p > end; p += step)
      positions[axis].push_back(p);
  }
  bool empty = llvm::any_of(positions, [](const auto &p) { return p.empty(); });
  if (x.host) {
    setOut(0, foldTake(*x.host, positions));
    return true;
  }
  if (empty) {
    // An empty slice (the pass-through part of a rotary that covers every
    // channel) is known at import time: it has no elements. Concat drops
    // it; any other use is refused where the empty value is read.
    SmallVector<int64_t, 4> shape;
    for (const auto &p : positions)
      shape.push_back(static_cast<int64_t>(p.size()));
    setOut(0, HostTensor::zeros(x.kind, shape));
    return true;
  }
  // Positive steps: one static slice. A negative step is a gather of the
  // positions along its axis.
  Value v = valueOf(x);
  SmallVector<int64_t> start(rank), limit(rank), step(rank);
  SmallVector<int64_t> reversed;
  for (int64_t d = 0; d < rank; ++d) {
    const auto &p = positions[d];
    bool backwards = p.size() > 1 && p[1] < p[0];
    if (backwards) {
      reversed.push_back(d);
      start[d] = 0;
      limit[d] = x.shape[d];
      step[d] = 1;
      continue;
    }
    start[d] = p.front();
    step[d] = p.size() > 1 ? p[1] - p[0] : 1;
    limit[d] = p.back() + 1;
  }
  if (start != SmallVector<int64_t>(rank, 0) ||
      limit != SmallVector<int64_t>(x.shape.begin(), x.shape.end()) ||
      step != SmallVector<int64_t>(rank, 1))
    v = t.slice(v, start, limit, step);
  for (int64_t d : reversed) {
    const auto &p = positions[d];
    HostTensor idx = HostTensor::fromInts(
        {static_cast<int64_t>(p.size())}, p, ElemKind::I64);
    v = t.gather(v, materialize(idx), d);
  }
  setOut(0, v);
  return true;
}

bool Importer::importCumSum() {
  // y[..., i, ...] = sum over j <= i (j < i exclusive; j >= i, j > i
  // reversed) of x[..., j, ...]: x broadcast along a new axis i in front of
  // its own, the other positions selected to zero, summed over j.
  Val &x = in(0);
  std::vector<int64_t> axisValue;
  if (!constInts(1, "axis", axisValue))
    return false;
  if (axisValue.size() != 1)
    return fail("expected one axis, got " + std::to_string(axisValue.size()));
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0)
    return fail("expected an input of rank >= 1, got a scalar");
  int64_t axis;
  if (!normAxis(axisValue[0], rank, axis, "axis"))
    return false;
  bool exclusive = attrInt("exclusive", 0) != 0;
  bool reverse = attrInt("reverse", 0) != 0;
  if (x.kind == ElemKind::Bool)
    return fail("expected a numeric input, got bool");
  Value v = valueOf(x);
  int64_t n = x.shape[axis];
  SmallVector<int64_t, 5> inserted(x.shape.begin(), x.shape.end());
  inserted.insert(inserted.begin() + axis, 1);
  SmallVector<int64_t, 5> full(inserted);
  full[axis] = n;
  Value wide = t.broadcast(t.reshape(v, inserted), full);
  Type i32 = t.i32Type();
  Value row = t.iota(full, axis, i32), col = t.iota(full, axis + 1, i32);
  ComparePredicate pred = reverse ? (exclusive ? ComparePredicate::gt
                                               : ComparePredicate::ge)
                                  : (exclusive ? ComparePredicate::lt
                                               : ComparePredicate::le);
  Value keep = t.compare(pred, col, row);
  Value summed = t.reduceSum(t.select(keep, wide, t.splatLike(0.0, wide)),
                             axis + 1, /*keepdim=*/false);
  setOut(0, summed);
  return true;
}

bool Importer::importSplit() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis;
  if (!normAxis(attrInt("axis", 0), rank, axis, "axis"))
    return false;
  std::vector<int64_t> sizes;
  int outputs = node->output_size();
  if (has(1)) {
    if (!constInts(1, "split", sizes))
      return false;
  } else if (attrInts("split", sizes)) {
  } else {
    int64_t parts = attrInt("num_outputs", outputs);
    if (parts < 1)
      return fail("expected num_outputs >= 1, got " + std::to_string(parts));
    if (parts != outputs) // before any size is made from it
      return fail("expected " + std::to_string(outputs) +
                  " split sizes, got " + std::to_string(parts));
    int64_t each = (x.shape[axis] + parts - 1) / parts;
    for (int64_t k = 0, left = x.shape[axis]; k < parts; ++k) {
      sizes.push_back(std::min(each, left));
      left -= sizes.back();
    }
  }
  if (static_cast<int>(sizes.size()) != outputs)
    return fail("expected " + std::to_string(outputs) + " split sizes, got " +
                std::to_string(sizes.size()));
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 1)
      return fail("expected split sizes >= 1, got " + std::to_string(s));
    if (llvm::AddOverflow(total, s, total))
      return fail("expected split sizes summing to " +
                  std::to_string(x.shape[axis]) + ", got a sum past 2^63");
  }
  if (total != x.shape[axis])
    return fail("expected split sizes summing to " +
                std::to_string(x.shape[axis]) + ", got " +
                std::to_string(total));
  int64_t offset = 0;
  for (int k = 0; k < outputs; ++k) {
    SmallVector<int64_t> start(rank, 0), limit(x.shape.begin(), x.shape.end());
    start[axis] = offset;
    limit[axis] = offset + sizes[k];
    offset += sizes[k];
    if (x.host) {
      std::vector<std::vector<int64_t>> positions(rank);
      for (int64_t d = 0; d < rank; ++d)
        for (int64_t p = start[d]; p < limit[d]; ++p)
          positions[d].push_back(p);
      setOut(k, foldTake(*x.host, positions));
      continue;
    }
    if (outputUsed(k))
      setOut(k, t.slice(valueOf(x), start, limit));
  }
  return true;
}

std::string Importer::validationLabel() const {
  // A run names a failed validation output and writes outputs as files,
  // so the label is the node's name as a file name (fileSafeName).
  std::string label = node->name().empty() ? node->output(0) : node->name();
  return fileSafeName(label);
}

bool Importer::importClip() {
  // max(x, lo) then min(., hi), each bound optional: inputs from opset 11,
  // attributes before. Known operands fold.
  Val &x = in(0);
  if (x.kind == ElemKind::Bool)
    return fail("expected a numeric operand, got bool");
  auto bound = [&](int k, StringRef attrName,
                   std::optional<Val> &out) -> bool {
    if (opset >= 11) {
      if (has(k))
        out = in(k);
      return true;
    }
    if (!attr(attrName))
      return true;
    HostTensor h = HostTensor::zeros(x.kind, {});
    h.setF(0, attrFloat(attrName, 0.0));
    Val v;
    v.kind = x.kind;
    v.host = std::move(h);
    out = std::move(v);
    return true;
  };
  std::optional<Val> lo, hi;
  if (!bound(1, "min", lo) || !bound(2, "max", hi))
    return false;
  for (const std::optional<Val> *b : {&lo, &hi})
    if (*b && (!(*b)->shape.empty() || (*b)->kind != x.kind))
      return fail("expected scalar bounds of the operand's type");
  Val acc = x;
  for (auto [b, op] : {std::pair{&lo, "Max"}, std::pair{&hi, "Min"}}) {
    if (!*b)
      continue;
    Val &bv = **b;
    if (acc.host && bv.host && acc.host->numel() <= kFoldLimit) {
      if (auto r = foldBinary(op, *acc.host, *bv.host)) {
        Val v;
        v.kind = acc.kind;
        v.shape = acc.shape;
        v.host = std::move(*r);
        acc = std::move(v);
        continue;
      }
    }
    Value r = emitBinary(op, valueOf(acc), valueOf(bv));
    Val v;
    v.kind = acc.kind;
    v.shape = acc.shape;
    v.value = r;
    acc = std::move(v);
  }
  values[node->output(0)] = std::move(acc);
  return true;
}

bool Importer::gatherAxis(int64_t rank, const Val &idx, int64_t &axis) {
  if (!normAxis(attrInt("axis", 0), rank, axis, "axis"))
    return false;
  if (idx.kind != ElemKind::I32 && idx.kind != ElemKind::I64)
    return fail("expected i32 or i64 indices, got " +
                std::string(kindName(idx.kind)));
  return true;
}

bool Importer::importGatherElements() {
  // out[p] = x[p with p[axis] = idx[p]], idx of x's rank (negative indices
  // count from the back). Known operands fold; otherwise a gather from x
  // flattened at the flat positions the iotas of the other dims and the
  // indices make.
  Val &x = in(0), &idx = in(1);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis;
  if (!gatherAxis(rank, idx, axis))
    return false;
  if (static_cast<int64_t>(idx.shape.size()) != rank)
    return fail("expected indices of the data's rank " + std::to_string(rank) +
                ", got " + std::to_string(idx.shape.size()));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && idx.shape[d] > x.shape[d])
      return fail("expected indices within the data off the axis, got " +
                  shapeStr(idx.shape) + " against " + shapeStr(x.shape));
  int64_t dim = x.shape[axis];
  SmallVector<int64_t, 4> strides = stridesOf(x.shape);
  if (idx.host) {
    for (int64_t v : idx.host->i)
      if (v < -dim || v >= dim)
        return fail("expected indices in [" + std::to_string(-dim) + ", " +
                    std::to_string(dim) + "), got " + std::to_string(v));
  }
  if (x.host && idx.host && idx.host->numel() <= kFoldLimit) {
    SmallVector<int64_t, 4> outStrides = stridesOf(idx.shape);
    std::vector<int64_t> flat(idx.host->numel());
    for (int64_t k = 0, n = idx.host->numel(); k < n; ++k) {
      int64_t at = 0, rest = k;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t p = rest / outStrides[d];
        rest %= outStrides[d];
        if (d == axis) {
          p = idx.host->i[k];
          if (p < 0)
            p += dim;
        }
        at += p * strides[d];
      }
      flat[k] = at;
    }
    HostTensor whole = *x.host;
    whole.shape = {x.host->numel()};
    setOut(0, foldGather(whole, HostTensor::fromInts(idx.shape, flat), 0));
    return true;
  }
  Type i64 = mlirType(ElemKind::I64);
  auto scaled = [&](Value v, int64_t stride) {
    return stride == 1 ? v
                       : t.mul(v, t.scalar(static_cast<double>(stride), i64));
  };
  Value at;
  if (idx.host) {
    HostTensor wrapped = *idx.host;
    wrapped.kind = ElemKind::I64;
    for (int64_t &v : wrapped.i)
      v = (v < 0 ? v + dim : v) * strides[axis];
    at = materialize(wrapped);
  } else {
    // An index outside [-dim, dim) would read another row (or past the
    // data): guarded once wrapped, and the run fails on one, as GatherND's.
    auto [clamped, ok] = t.indexGuard(
        wrapIndices(t.convertIfNeeded(valueOf(idx), i64), dim), 0, dim - 1);
    t.validationOutput(validationLabel() + ".indices_in_range", ok);
    at = scaled(clamped, strides[axis]);
  }
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && x.shape[d] > 1)
      at = t.add(at, scaled(t.iota(idx.shape, d, i64), strides[d]));
  int64_t n = 1;
  for (int64_t d : x.shape)
    n *= d;
  setOut(0, t.gather(t.reshape(valueOf(x), {n}), at, 0));
  return true;
}

bool Importer::importGather() {
  Val &x = in(0), &idx = in(1);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis;
  if (!gatherAxis(rank, idx, axis))
    return false;
  int64_t dim = x.shape[axis];
  if (idx.host) {
    // Negative indices count from the back; anything else outside the axis
    // is an error here rather than at run time.
    HostTensor norm = *idx.host;
    norm.kind = ElemKind::I64;
    for (int64_t &v : norm.i) {
      if (v < -dim || v >= dim)
        return fail("expected indices in [" + std::to_string(-dim) + ", " +
                    std::to_string(dim) + "), got " + std::to_string(v));
      if (v < 0)
        v += dim;
    }
    if (x.host) {
      setOut(0, foldGather(*x.host, norm, axis));
      return true;
    }
    // A run of consecutive indices (a scalar or [n] of k, k + 1, ...) is a
    // slice of the axis, reshaped for a scalar: no index tensor reaches the
    // graph (the passes see a slice, and no target has to store one).
    bool run = norm.shape.size() <= 1;
    for (int64_t k = 1; run && k < norm.numel(); ++k)
      run = norm.i[k] == norm.i[0] + k;
    if (run && norm.numel() >= 1) {
      SmallVector<int64_t> start(rank, 0), limit(x.shape.begin(), x.shape.end());
      start[axis] = norm.i[0];
      limit[axis] = norm.i[0] + norm.numel();
      Value sliced = t.slice(valueOf(x), start, limit);
      if (norm.shape.empty()) {
        SmallVector<int64_t> shape(x.shape.begin(), x.shape.end());
        shape.erase(shape.begin() + axis);
        sliced = t.reshape(sliced, shape);
      }
      setOut(0, sliced);
      return true;
    }
    setOut(0, t.gather(valueOf(x), materialize(norm), axis));
    return true;
  }
  // Indices computed by the graph: idx < 0 ? idx + dim : idx.
  setOut(0, t.gather(valueOf(x), wrapIndices(valueOf(idx), dim), axis));
  return true;
}

bool Importer::importRange() {
  const HostTensor *start, *limit, *delta;
  if (!constInput(0, "start", start) || !constInput(1, "limit", limit) ||
      !constInput(2, "delta", delta))
    return false;
  if (start->numel() != 1 || limit->numel() != 1 || delta->numel() != 1)
    return fail("expected scalar start, limit and delta");
  ElemKind kind = start->kind;
  double s = start->getF(0), l = limit->getF(0), d = delta->getF(0);
  if (d == 0)
    return fail("expected a nonzero delta, got 0");
  int64_t n = std::max<int64_t>(
      static_cast<int64_t>(std::ceil((l - s) / d)), 0);
  if (n > kFoldLimit)
    return fail("expected a range of at most " + std::to_string(kFoldLimit) +
                " elements, got " + std::to_string(n));
  HostTensor out = HostTensor::zeros(kind, {n});
  for (int64_t k = 0; k < n; ++k) {
    if (out.isFloat())
      out.setF(k, s + static_cast<double>(k) * d);
    else
      out.setI(k, start->getI(0) + k * delta->getI(0));
  }
  // A start read from a cache's length (positions from the past length):
  // its twin is start's twin + k * delta; the length stays the known one.
  Value startTwin = in(0).twin;
  setOut(0, std::move(out));
  if (startTwin && n > 0 && outputUsed(0)) {
    Type et = mlirType(kind);
    Value steps = t.iota({n}, 0, et);
    if (d != 1)
      steps = t.mul(steps, t.splatLike(d, steps));
    values[node->output(0)].twin =
        t.add(t.broadcast(t.reshape(startTwin, {}), {n}), steps);
  }
  return true;
}

bool Importer::importTrilu() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 2)
    return fail("expected an input of rank >= 2, got rank " +
                std::to_string(rank));
  int64_t k = 0;
  if (has(1)) {
    std::vector<int64_t> kv;
    if (!constInts(1, "k", kv))
      return false;
    if (kv.size() != 1)
      return fail("expected a scalar k");
    k = kv[0];
  }
  bool upper = attrInt("upper", 1) != 0;
  if (x.host) {
    setOut(0, foldTrilu(*x.host, upper, k));
    return true;
  }
  // keep = col - row >= k (upper) or <= k (lower), from two iotas.
  int64_t n = x.shape[rank - 2], m = x.shape[rank - 1];
  Value row = t.iota({n, 1}, 0, t.i32Type());
  Value col = t.iota({1, m}, 1, t.i32Type());
  Value diff = t.sub(col, row);
  Value kc = t.scalar(static_cast<double>(k), t.i32Type());
  Value keep = t.compare(upper ? ComparePredicate::ge : ComparePredicate::le,
                         diff, kc);
  Value v = valueOf(x);
  Value zero = x.kind == ElemKind::Bool
                   ? t.scalar(0.0, t.i1Type())
                   : scalarLike(0.0, v);
  setOut(0, t.select(keep, v, zero));
  return true;
}

bool Importer::importShape() {
  Val &x = in(0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t start = attrInt("start", 0), end = attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::max<int64_t>(0, std::min(start, rank));
  end = std::max<int64_t>(0, std::min(end, rank));
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(x.shape[d]);
  if (node->op_type() == "Size") {
    int64_t n = 1;
    for (int64_t d : x.shape)
      n *= d;
    setOut(0, HostTensor::fromInts({}, {n}));
    return true;
  }
  setOut(0, HostTensor::fromInts({static_cast<int64_t>(dims.size())}, dims));
  if (!kvStates.empty() && node->op_type() == "Shape")
    kvShapeTwin(start, end);
  return true;
}

bool Importer::importConstantOfShape() {
  std::vector<int64_t> shape;
  if (!constInts(0, "shape", shape))
    return false;
  HostTensor fill = HostTensor::zeros(ElemKind::F32, {});
  if (const auto *a = attr("value")) {
    std::string err;
    if (!decodeTensor(a->t(), options.externalDataDir, fill, err))
      return fail("attribute 'value': " + err);
    if (fill.numel() != 1)
      return fail("expected a one-element value, got " +
                  std::to_string(fill.numel()) + " elements");
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return fail("expected non-negative dims, got " + shapeStr(shape));
    n *= d;
  }
  fill.shape.clear();
  if (n <= kFoldLimit) {
    setOut(0, foldBroadcast(fill, shape));
    return true;
  }
  setOut(0, t.broadcast(materialize(fill), shape));
  return true;
}

bool Importer::importConstant() {
  HostTensor h;
  std::string err;
  if (const auto *a = attr("value")) {
    if (!decodeTensor(a->t(), options.externalDataDir, h, err))
      return fail("attribute 'value': " + err);
  } else if (const auto *a = attr("value_float")) {
    h = HostTensor::zeros(ElemKind::F32, {});
    h.setF(0, a->f());
  } else if (const auto *a = attr("value_floats")) {
    h = HostTensor::zeros(ElemKind::F32, {a->floats_size()});
    for (int k = 0; k < a->floats_size(); ++k)
      h.setF(k, a->floats(k));
  } else if (const auto *a = attr("value_int")) {
    h = HostTensor::fromInts({}, {a->i()});
  } else if (const auto *a = attr("value_ints")) {
    std::vector<int64_t> v(a->ints().begin(), a->ints().end());
    h = HostTensor::fromInts({static_cast<int64_t>(v.size())}, v);
  } else {
    return fail("expected a value attribute, got none");
  }
  TensorInfo info;
  info.kind = h.kind;
  info.shape = h.shape;
  info.numel = h.numel();
  if (!keepAsConstant(info, shapeOperands.count(node->output(0)) != 0)) {
    // A large float constant is a weight like an initializer.
    if (const auto *a = attr("value"))
      return addWeight(node->output(0), a->t(), info);
  }
  setOut(0, std::move(h));
  return true;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool Importer::importNode() {
  StringRef op = node->op_type();
  StringRef domain = node->domain();
  bool standard = domain.empty() || domain == "ai.onnx";
  std::string key = standard ? op.str() : domain.str() + "::" + op.str();
  if (!knownAttributes().count(key))
    return fail("unsupported op '" + key + "'");
  if (!checkAttributes(key) || !checkOperands(key))
    return false;
  if (!kvStates.empty()) {
    if (!kvCheckReads(standard ? op : StringRef(key)))
      return false;
    bool handled = false;
    if (standard && (op == "Concat" || op == "Identity") && !kvConcat(handled))
      return false;
    if (handled)
      return true;
  }
  if (!(standard ? dispatchStandard(op) : dispatchContrib(op)))
    return false;
  if (kvStates.empty())
    return true;
  // An Identity, or a Cast to the type it has, of an updated cache is
  // another name for it: the present output may be that name (GPT-Neo's
  // TorchScript export casts each present to f32 as it is).
  if (standard && node->input_size() >= 1 && has(0) &&
      (op == "Identity" || op == "Cast" || op == "CastLike"))
    if (auto it = kvPresents.find(node->input(0));
        it != kvPresents.end() && values.count(node->output(0)) &&
        values[node->output(0)].kind == in(0).kind) {
      std::string state = it->second;
      kvPresents[node->output(0)] = state;
      kvStates[state] = node->output(0);
    }
  return kvPropagateTwins(standard, op);
}

bool Importer::checkOperands(const std::string &key) {
  StringRef op = key;
  bool binary = op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
                op == "Pow" || op == "Equal" || op == "Less" ||
                op == "LessOrEqual" || op == "Greater" ||
                op == "GreaterOrEqual" || op == "And" || op == "Or";
  int need = binary ? 2 : minInputs(key);
  for (int k = 0; k < need; ++k)
    if (!has(k))
      return fail("expected at least " + std::to_string(need) +
                  " inputs, got input " + std::to_string(k) + " missing");
  if (node->output_size() < 1 || node->output(0).empty())
    return fail("expected an output, got none");
  for (int k = 0; k < node->input_size(); ++k)
    if (has(k) && !values.count(node->input(k)))
      return fail("input '" + node->input(k) + "' is not defined before "
                  "the node");
  return true;
}

bool Importer::dispatchContrib(StringRef op) {
  if (op == "SimplifiedLayerNormalization")
    return importRmsNorm();
  if (op == "SkipSimplifiedLayerNormalization")
    return importSkipNorm(/*simplified=*/true);
  if (op == "SkipLayerNormalization")
    return importSkipNorm(/*simplified=*/false);
  if (op == "RotaryEmbedding")
    return importContribRotary();
  if (op == "MultiHeadAttention")
    return importMultiHeadAttention();
  if (op == "GroupQueryAttention")
    return importGroupQueryAttention();
  if (op == "Attention")
    return importContribAttention();
  if (op == "Gelu" || op == "FastGelu" || op == "BiasGelu" ||
      op == "QuickGelu" || op == "BiasAdd")
    return importContribActivation(op);
  return fail("unsupported op 'com.microsoft::" + op + "'");
}

bool Importer::dispatchStandard(StringRef op) {
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Pow" || op == "Max" || op == "Min" || op == "Equal" ||
      op == "Less" || op == "LessOrEqual" || op == "Greater" ||
      op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Sum")
    return importElementwise(op);
  if (op == "Cast" || op == "CastLike")
    return importCast();
  if (op == "Where")
    return importWhere();
  if (op == "MatMul")
    return importMatMul();
  if (op == "Gemm")
    return importGemm();
  if (op == "Softmax")
    return importSoftmax();
  if (op.starts_with("Reduce"))
    return importReduce(op.drop_front(6));
  if (op == "Reshape")
    return importReshape();
  if (op == "Flatten")
    return importFlatten();
  if (op == "Transpose")
    return importTranspose();
  if (op == "Expand")
    return importExpand();
  if (op == "Tile")
    return importTile();
  if (op == "Unsqueeze")
    return importUnsqueeze();
  if (op == "Squeeze")
    return importSqueeze();
  if (op == "Concat")
    return importConcat();
  if (op == "Slice")
    return importSlice();
  if (op == "Split")
    return importSplit();
  if (op == "GatherElements")
    return importGatherElements();
  if (op == "Clip")
    return importClip();
  if (op == "Gather")
    return importGather();
  if (op == "Range")
    return importRange();
  if (op == "Trilu")
    return importTrilu();
  if (op == "Shape" || op == "Size")
    return importShape();
  if (op == "ConstantOfShape")
    return importConstantOfShape();
  if (op == "Constant")
    return importConstant();
  if (op == "LayerNormalization")
    return importLayerNorm();
  if (op == "RMSNormalization" || op == "SimplifiedLayerNormalization")
    return importRmsNorm();
  if (op == "Attention")
    return importAttention();
  if (op == "RotaryEmbedding")
    return importRotaryEmbedding();
  if (op == "GatherND")
    return importGatherND();
  if (op == "ScatterND")
    return importScatterND();
  if (op == "Gelu")
    return importGelu();
  if (op == "CumSum")
    return importCumSum();
  return importUnary(op);
}

llvm::Expected<ImportResult> Importer::run() {
  // Verifier and builder diagnostics become the error message.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (!diagnostics.empty())
      diagnostics += "\n";
    diagnostics += diag.str();
    return success();
  });

  if (!model.has_graph())
    return toError("expected a model with a graph, got none");
  if (options.kvCapacity && *options.kvCapacity < 1)
    return toError("expected a KV capacity >= 1, got " +
                   std::to_string(*options.kvCapacity));
  if (!readOpset() || !markShapeOperands() || !declareInputs() ||
      !declareInitializers())
    return toError(error);

  for (auto [index, n] : llvm::enumerate(graph.node())) {
    node = &n;
    std::string label = n.name().empty()
                            ? "#" + std::to_string(index)
                            : n.name();
    t.setScope(label);
    if (!importNode())
      return toError("node '" + label + "' (" + n.op_type() + "): " + error);
    if (!diagnostics.empty())
      return toError("node '" + label + "' (" + n.op_type() +
                     "): " + diagnostics);
  }

  if (graph.output_size() == 0)
    return toError("expected at least one graph output, got none");
  std::set<std::string> outputNames, asState;
  if (!kvOutputs(asState))
    return toError(error);
  for (const auto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end())
      return toError("output '" + out.name() + "' is not computed by the "
                     "graph");
    if (!outputNames.insert(out.name()).second)
      return toError("output '" + out.name() + "' is listed twice");
    if (it->second.host && it->second.host->numel() == 0)
      return toError("output '" + out.name() + "': empty tensors are not "
                     "supported");
    Value v = valueOf(it->second);
    if (asState.count(out.name())) {
      for (const auto &[state, present] : kvStates)
        if (present == out.name())
          t.stateOutput(state, v);
      continue;
    }
    t.output(out.name(), v);
  }
  OwningOpRef<ModuleOp> module = t.finish();
  if (!module)
    return toError("the imported graph does not verify: " + diagnostics);
  ImportResult result;
  result.module = std::move(module);
  result.weights = std::move(weights);
  return std::move(result);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

llvm::Expected<ImportResult> importModel(MLIRContext &ctx,
                                         const ::onnx::ModelProto &model,
                                         const ImportOptions &options) {
  detail::Importer importer(ctx, model, options);
  return importer.run();
}

llvm::Expected<ImportResult> importModelFile(MLIRContext &ctx, StringRef path,
                                             const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '%s': %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT32_MAX))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'%s': expected a model under 2 GiB (keep weights as external "
        "data), got %zu bytes",
        path.str().c_str(), (*buffer)->getBufferSize());
  ::onnx::ModelProto model;
  if (!model.ParseFromArray((*buffer)->getBufferStart(),
                            static_cast<int>((*buffer)->getBufferSize())))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'%s': expected an ONNX model, got a truncated or malformed protobuf",
        path.str().c_str());
  ImportOptions withDir = options;
  if (withDir.externalDataDir.empty())
    withDir.externalDataDir = llvm::sys::path::parent_path(path).str();
  if (withDir.externalDataDir.empty())
    withDir.externalDataDir = ".";
  return importModel(ctx, model, withDir);
}

std::string fileSafeName(StringRef name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
            c == '_' || c == '-' || c == ':')
               ? c
               : '_';
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

std::string weightFileName(StringRef name) {
  return fileSafeName(name) + ".npy";
}

} // namespace poot::onnx
