//===- Importer.h - The ONNX importer's state, shared by op family -*- C++ -*-===//
//
// The Importer walks one ONNX graph and builds one poot function with the
// tracer. Its ops are defined in one file per family (Importer.cpp: setup,
// values, elementwise, layout and shape ops; AttentionOps.cpp: the
// attention ops of both domains; RotaryOps.cpp: RotaryEmbedding of both
// domains; NormOps.cpp: the normalisations; IndexOps.cpp: GatherND and
// ScatterND), so the class is declared here rather than inside one file.
//
// Errors are values: each handler returns false with a message (`fail`),
// and the driver prefixes the node's name and op type.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_FRONTEND_ONNX_IMPORTER_H
#define POOT_LIB_FRONTEND_ONNX_IMPORTER_H

#include "ShapeFold.h"

#include "poot/Frontend/ONNX.h"
#include "poot/Trace/Tracer.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include "onnx/onnx_pb.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace poot::onnx::detail {

using llvm::ArrayRef;
using llvm::StringRef;
using mlir::Type;
using mlir::Value;

/// "[2, 3, 4]".
std::string shapeStr(ArrayRef<int64_t> shape);

/// Where a TensorProto's elements are and what they are.
struct TensorInfo {
  ElemKind kind = ElemKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numel = 0;
};

/// One ONNX value: known at import time (`host`), a graph value (`value`),
/// or both once a known value has been materialised as a constant.
///
/// With --kv-capacity, a known value computed from a cache's length (the
/// past length an export reads with `Shape`) also has a `twin`: the same
/// value computed in the graph with that length read as the position slot.
/// Shapes use `host` (the cache is the capacity long); every data use
/// (`valueOf`) reads the twin, so the positions and masks an export derives
/// from the past length follow `pos`.
struct Val {
  ElemKind kind = ElemKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::optional<HostTensor> host;
  Value value;
  Value twin;
};

/// What the attention ops of both domains share once Q, K and V are in
/// [B, H, L, D]: the mask (additive, or null) and the score transform.
struct AttentionParts {
  Value q, k, v;
  Value mask;
  trace::ops::AttentionOptions options;
};

class Importer {
public:
  Importer(mlir::MLIRContext &ctx, const ::onnx::ModelProto &model,
           const ImportOptions &options)
      : ctx(ctx), model(model), graph(model.graph()), options(options),
        t(ctx, options.funcName) {}

  llvm::Expected<ImportResult> run();

private:
  //===--- errors ---------------------------------------------------------===//
  bool fail(const llvm::Twine &message) {
    error = message.str();
    return false;
  }
  llvm::Error toError(const std::string &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                   message.c_str());
  }

  //===--- setup ----------------------------------------------------------===//
  bool readOpset();
  bool declareInputs();
  bool declareInitializers();
  bool markShapeOperands();
  bool keepAsConstant(const TensorInfo &info, bool neededConstant) const;
  bool addWeight(const std::string &name, const ::onnx::TensorProto &tp,
                 const TensorInfo &info);

  //===--- values ---------------------------------------------------------===//
  Type mlirType(ElemKind kind);
  Value materialize(const HostTensor &h);
  Value valueOf(Val &v);
  bool has(int k) const {
    return k < node->input_size() && !node->input(k).empty();
  }
  Val &in(int k) { return values[node->input(k)]; }
  Value get(int k) { return valueOf(in(k)); }
  const HostTensor *host(int k) {
    if (!has(k))
      return nullptr;
    Val &v = in(k);
    return v.host ? &*v.host : nullptr;
  }
  bool constInput(int k, StringRef what, const HostTensor *&out);
  bool constInts(int k, StringRef what, std::vector<int64_t> &out);
  bool outputUsed(int k) const {
    return k < node->output_size() && !node->output(k).empty();
  }
  void setOut(int k, Value value);
  void setOut(int k, HostTensor h);
  bool allHost(int count);

  //===--- attributes -----------------------------------------------------===//
  const ::onnx::AttributeProto *attr(StringRef name) const;
  int64_t attrInt(StringRef name, int64_t dflt) const;
  double attrFloat(StringRef name, double dflt) const;
  bool attrInts(StringRef name, std::vector<int64_t> &out) const;
  std::string attrString(StringRef name, StringRef dflt) const;
  bool checkAttributes(const std::string &key);
  /// Fails unless integer attribute `name` (default `dflt`) is `want`.
  bool requireAttr(StringRef name, int64_t dflt, int64_t want);

  //===--- helpers --------------------------------------------------------===//
  bool normAxis(int64_t axis, int64_t rank, int64_t &out, StringRef what);
  bool requireFloat(const Val &v, StringRef what);
  bool requireRank(const Val &v, size_t rank, StringRef what);
  bool broadcastable(ArrayRef<int64_t> a, ArrayRef<int64_t> b);
  Value scalarLike(double value, Value like);
  Value emitBinary(StringRef op, Value a, Value b);
  Value reduceAxes(StringRef op, Value x, ArrayRef<int64_t> axes,
                   bool keepdim);
  Value softmax(Value x, int64_t axis);
  Value causalMask(int64_t queryLen, int64_t keyLen, int64_t offset,
                   Type elementType,
                   std::optional<int64_t> window = std::nullopt);
  /// Indices computed by the graph, wrapped into [0, dim): idx < 0 ? idx +
  /// dim : idx.
  Value wrapIndices(Value idx, int64_t dim);
  Value erf(Value x);

  //===--- ops ------------------------------------------------------------===//
  bool importNode();
  bool checkOperands(const std::string &key);
  bool dispatchStandard(StringRef op);
  bool dispatchContrib(StringRef op);
  bool importElementwise(StringRef op);
  bool importUnary(StringRef op);
  bool importGelu();
  /// GELU of `v` in f32 arithmetic: erf or the tanh approximation.
  Value gelu(Value v, bool tanhForm);
  bool importContribActivation(StringRef op);
  bool importCast();
  bool importWhere();
  bool importMatMul();
  bool importGemm();
  bool importSoftmax();
  bool importReduce(StringRef op);
  bool importReshape();
  bool importFlatten();
  bool importTranspose();
  bool importExpand();
  /// The node's name (or first output's) as a file name, for the
  /// validation outputs it adds.
  std::string validationLabel() const;
  bool importClip();
  bool importGatherElements();
  /// The Gather ops' axis attribute within `rank`, their indices i32 or
  /// i64.
  bool gatherAxis(int64_t rank, const Val &idx, int64_t &axis);
  bool importTwinSlice();
  bool importTile();
  bool importUnsqueeze();
  bool importSqueeze();
  bool importConcat();
  bool importSlice();
  bool importSplit();
  bool importCumSum();
  bool importGather();
  bool importRange();
  bool importTrilu();
  bool importShape();
  bool importConstantOfShape();
  bool importConstant();

  //===--- normalisations (NormOps.cpp) -----------------------------------===//
  bool importLayerNorm();
  bool importRmsNorm();
  bool importSkipNorm(bool simplified);
  bool normAxes(const Val &x, int64_t axis, llvm::SmallVectorImpl<int64_t> &axes,
                int64_t &count);
  Value layerNormCore(Value x, ArrayRef<int64_t> axes, int64_t count,
                      double eps);
  Value rmsNormCore(Value x, ArrayRef<int64_t> axes, int64_t count,
                    double eps);
  bool requireStash();
  /// y * input k (add = false) or y + input k, checked against x.
  bool affine(int k, const Val &x, bool add, Value &y);

  //===--- indexing (IndexOps.cpp) ----------------------------------------===//
  bool importGatherND();
  bool importScatterND();
  /// The row numbers [M] of `indices` [..., k] into `data` flattened over
  /// its first batchDims + k dims.
  bool flatIndices(Val &data, Val &indices, int64_t batchDims, Value &rows);
  bool hostRows(const HostTensor &idx, ArrayRef<int64_t> dims,
                int64_t batchDims, Value &rows);

  //===--- rotary embeddings (RotaryOps.cpp) ------------------------------===//
  bool importRotaryEmbedding();
  bool importContribRotary();
  /// cos or sin halves [..., rot/2] -> [..., rot]: both halves side by side
  /// (rotate-half) or each entry twice (interleaved).
  Value fullRotaryTable(Value half, bool interleaved);
  /// Rotates the first `rotaryDim` channels of x [..., D] by half tables
  /// [..., rot/2] that broadcast against x (the tracer's rope spelling).
  Value rotate(Value x, Value cosHalf, Value sinHalf, bool interleaved,
               int64_t rotaryDim);
  /// Rows `pos` (integer, any shape) of a cache [M, rot/2]: pos.shape +
  /// [rot/2].
  Value cacheRows(Val &cache, Value pos);
  bool rotaryCaches(int cosInput, int sinInput, Val *&cos, Val *&sin);
  /// Rotates x ([B, H, S, D], or [B, S, H*D] with `heads`) by half tables
  /// [1 or B, S, rot/2] and sets output 0.
  bool applyRotary(Val &x, int64_t heads, Value cosHalf, Value sinHalf,
                   int64_t rotaryDim);
  /// The contrib op's positions as [1 or B, S].
  bool contribPositions(int64_t seq, Value &pos);

  //===--- fixed-capacity KV caches (KvCache.cpp) -------------------------===//
  static bool isKvCacheName(StringRef name);
  /// The input's shape with `overrideAxis` (-1: none) set to
  /// `overrideSize`, its other symbolic dims bound from the options.
  bool kvResolveShape(const ::onnx::ValueInfoProto &input,
                      int64_t overrideAxis, int64_t overrideSize,
                      llvm::SmallVector<int64_t, 4> &shape);
  /// Counts the new rows and declares the `pos` slot.
  bool kvSetup();
  /// Declares a cache input as state, or computes a position input from
  /// `pos`; `handled` is false for any other input.
  bool kvInput(const ::onnx::ValueInfoProto &input, ElemKind kind,
               bool &handled);
  /// Refuses a read of a cache input other than its Concat or a Shape.
  bool kvCheckReads(StringRef op);
  /// A Concat of a cache and its new rows: the in-place write at `pos`; a
  /// Concat of the cache alone (or an Identity) is another name for it.
  bool kvConcat(bool &handled);
  /// The cache a value names (the input, an alias or the present output),
  /// or null.
  const std::string *kvCacheOf(const std::string &name) const;
  /// `Shape` of a cache: the twin of its dims, the length axis read as
  /// `pos` (the past) or `pos` + the new rows (the present).
  void kvShapeTwin(int64_t start, int64_t end);
  /// Runs the node again over the twins of its inputs; its outputs' twins
  /// (known outputs) or values (graph outputs) come from that run. A node
  /// that needs the value at import time (a shape) keeps the first run's.
  bool kvPropagateTwins(bool standard, StringRef op);
  /// The graph outputs that are cache updates, checked one per cache.
  bool kvOutputs(std::set<std::string> &asState);

  //===--- attention (AttentionOps.cpp) -----------------------------------===//
  bool importAttention();
  bool importMultiHeadAttention();
  bool importGroupQueryAttention();
  bool importContribAttention();
  /// [B, S, H*D] -> [B, H, S, D] and back.
  bool splitHeads(Value x, int64_t heads, StringRef what, Value &out);
  Value mergeHeads(Value x);
  /// q [B, H, Lq, D], k [B, Hkv, Lk, D], v [B, Hkv, Lk, Dv], Hkv | H.
  bool checkHeadShapes(Value q, Value k, Value v);
  /// q, k, v ([B, H, L, D]) -> the tracer's attention chain.
  Value emitAttention(const AttentionParts &parts);
  /// Adds input `k` (an additive bias [B or 1, H or 1, Lq, Lk]) to `mask`.
  bool addAttentionBias(int k, ArrayRef<int64_t> scores, Type storage,
                        Value &mask);
  /// Adds the additive mask of an integer key padding mask or mask index
  /// (input `k`): [B] valid lengths, [2B] ends then starts, [B, Lk] or
  /// [B, Lq, Lk] with 0 for hidden keys; hidden keys get `fill`.
  bool keyPaddingMask(int k, ArrayRef<int64_t> scores, double fill,
                      Type storage, Value &mask);
  /// Concatenates past K and V ([B, H, P, D], inputs pk and pv) in front of
  /// k and v; `past` is P (0 without them).
  bool concatPast(int pk, int pv, Value &k, Value &v, int64_t &past);
  bool attention23Inputs(Value &q, Value &k, Value &v);
  bool attention23Mask(ArrayRef<int64_t> scores, Type storage, Value &mask);
  bool mhaProjectionBias(Value &q, Value &k, Value &v);
  bool mhaProjections(int64_t heads, Value &q, Value &k, Value &v,
                      bool &kvInHeads);
  bool gqaRefusals();
  bool gqaProjections(int64_t heads, int64_t kvHeads, Value &q, Value &k,
                      Value &v);
  bool gqaRotary(Value &q, Value &k, int64_t past);
  /// seqlens_k or total_sequence_length must equal `want` (no padding):
  /// checked here when known, by a validation output when computed.
  bool gqaLengthInput(int k, StringRef what, int64_t want);
  bool gqaMask(int64_t past, Type storage, AttentionParts &p);
  bool contribQkv(int64_t heads, Value &q, Value &k, Value &v);
  bool contribPast(Value &k, Value &v, int64_t &past);

  mlir::MLIRContext &ctx;
  const ::onnx::ModelProto &model;
  const ::onnx::GraphProto &graph;
  const ImportOptions &options;
  trace::Tracer t;
  int64_t opset = 0;
  std::string error;
  const ::onnx::NodeProto *node = nullptr;
  std::map<std::string, Val> values;
  /// The names given to graph inputs (the model's, then the weights'),
  /// each once.
  std::set<std::string> inputNames;
  /// The initializers whose names are file names (weightFileName) as
  /// they are.
  std::set<std::string> fileSafeNames;
  /// Under --kv-capacity, while a Slice is imported again from its inputs'
  /// run-time twins: the shape its first import gave (KvCache.cpp).
  std::optional<llvm::SmallVector<int64_t, 4>> twinSliceShape;
  /// Initializers by name, and which ones must be known at import time.
  std::map<std::string, const ::onnx::TensorProto *> initializers;
  std::set<std::string> shapeOperands;
  std::set<std::string> modelInputs;
  std::vector<Weight> weights;
  /// --kv-capacity: each cache input's name -> the output of its Concat
  /// (empty until seen); the new rows of a step; the `pos` slot.
  std::map<std::string, std::string> kvStates;
  /// Every name of a cache (the input and its aliases) -> the input's name;
  /// each present output -> its cache's name.
  std::map<std::string, std::string> kvAliases, kvPresents;
  int64_t kvNewRows = 0;
  Value kvPos;
};

} // namespace poot::onnx::detail

#endif // POOT_LIB_FRONTEND_ONNX_IMPORTER_H
