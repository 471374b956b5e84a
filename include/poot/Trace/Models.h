//===- Models.h - Whole attention blocks of known model families -*- C++
//-*-===//
//
// Model builders trace N attention blocks of a model family (projections,
// heads, RoPE, cache write, attention, output projection, residual) into one
// primitive poot graph, with every size a parameter: the presets carry the
// real sizes of each family, and a small variant of each for examples and
// tests. The same configuration also drives the one-block graphs poot-trace
// emits for lit tests.
//
// Choices the families share: every layer is pre-norm (RMSNorm, also for
// bloom, whose LayerNorm poot does not fuse anyway) with a residual add; a
// prefill writes the prompt's K/V to the cache (from position 0, or through
// the write map) and attends over the fresh prompt; a paged decode takes one
// position per batch row, a fixed one a single 0-d position (the starts of
// dynamic_update_slice are scalars); DeepSeek-V2 caches its latent and the
// shared rotary key and re-expands per-head keys and values every step; the
// sparse family is GQA attention plus an indexer with its own key cache.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_TRACE_MODELS_H
#define POOT_TRACE_MODELS_H

#include "poot/Trace/Tracer.h"

#include "llvm/Support/Error.h"

namespace poot::trace {

/// The attention variant a family uses.
enum class Family {
  Llama,  ///< GQA + RoPE (llama3, mistral, gemma2 differ only in options)
  Mla,    ///< DeepSeek-V2 multi-head latent attention: split key
  Sparse, ///< GQA + an indexer that selects key blocks
  Alibi,  ///< MHA without RoPE, ALiBi bias (bloom)
};

/// Decode: `decodeTokens` new tokens against the cache. Prefill: the
/// `seqLen`-token prompt against itself, also written to the cache.
enum class Phase { Decode, Prefill };

/// Fixed: a [B, H, capacity, D] state buffer per cache, written with
/// dynamic_update_slice. Paged: a [poolSlots, H, D] pool per cache, written
/// with scatter_update through the write map and read through the read map.
enum class CacheKind { Fixed, Paged };

struct ModelConfig {
  std::string name = "llama3-8b";
  Family family = Family::Llama;

  // Architecture.
  int64_t hidden = 4096;
  int64_t numHeads = 32;
  int64_t numKvHeads = 8;
  int64_t headDim = 128;
  /// Value width; 0 means headDim (MLA sets it apart from the key width).
  int64_t valueDim = 0;
  int64_t layers = 32;
  double rmsEps = 1e-5;

  // RoPE (not used by Family::Alibi).
  RopeStyle ropeStyle = RopeStyle::Half;
  double ropeTheta = 500000.0;
  /// Channels rotated per head; 0 means all of them (the rope part for MLA).
  int64_t rotaryDim = 0;

  // Score transform and mask.
  /// 0 means 1/sqrt(key width).
  double scale = 0.0;
  std::optional<double> softcap;
  std::optional<int64_t> window;
  /// The window applies to even layers only (gemma2's local/global mix).
  bool windowEveryOther = false;

  // MLA: key = [nopeDim per head | ropeDim shared], latent cache kvLoraRank.
  int64_t nopeDim = 0;
  int64_t ropeDim = 0;
  int64_t kvLoraRank = 0;

  // Sparse indexer.
  int64_t indexHeads = 0;
  int64_t indexDim = 0;
  int64_t blockRatio = 0;
  int64_t topBlocks = 0;

  // The traced step.
  Phase phase = Phase::Decode;
  CacheKind cache = CacheKind::Fixed;
  DType dtype = DType::F32;
  /// Decode through ops::attentionLive with len = pos + decodeTokens.
  bool live = false;
  int64_t batch = 1;
  int64_t capacity = 8192;
  int64_t seqLen = 2048;
  int64_t decodeTokens = 1;
  /// Pool slots of a paged cache; 0 means batch * capacity.
  int64_t poolSlots = 0;
  /// LoRA adapters served per row: with N > 0, the query and value
  /// projections of every layer add the low-rank update of the adapter the
  /// row's `adapter` slot names (0: the base model alone; a in [1, N]: bank
  /// entry a - 1 of `<layer>.wq.lora_a` [N, hidden, rank] and `.lora_b`
  /// [N, rank, out], their scaling folded into lora_b), so rows of several
  /// adapters share one step.
  int64_t loraAdapters = 0;
  /// A paged prefill that continues a cached prefix: the prompt chunk's
  /// `seqLen` tokens start at each row's `pos` and attend through the read
  /// map to the prefix before them and to themselves (what a serving
  /// driver runs after a prefix-cache hit, and for every chunk of a long
  /// prompt but the first).
  bool chunked = false;
  int64_t loraRank = 8;

  int64_t keyWidth() const {
    return family == Family::Mla ? nopeDim + ropeDim : headDim;
  }
  int64_t valueWidth() const { return valueDim ? valueDim : headDim; }
  int64_t slots() const { return poolSlots ? poolSlots : batch * capacity; }
};

/// The preset names: llama3-8b, llama3-70b, gemma2, mistral, deepseek-v2,
/// deepseek-sparse, bloom.
llvm::ArrayRef<llvm::StringRef> getModelNames();

/// The preset `name` at its real sizes, or with `small` at example sizes
/// (hidden <= 256, 4 or 8 query heads, head width 16-64, capacity 64, two
/// layers, batch 2).
std::optional<ModelConfig> getModelPreset(llvm::StringRef name, bool small);

/// Checks that the sizes fit together, naming the first one that does not.
llvm::Error validateModelConfig(const ModelConfig &config);

/// Traces the model graph of `config` into a verified module.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildModel(mlir::MLIRContext &ctx, const ModelConfig &config);

/// The one-block graphs: attention_masked, attention_prefill,
/// attention_live, rope, paged, mla, sparse.
llvm::ArrayRef<llvm::StringRef> getBlockNames();

/// Small sizes for one-block graphs (batch 1, 4/2 heads, head width 16,
/// capacity 32, prompt 8).
ModelConfig getBlockDefaults();

/// Traces building block `block` alone, its operands as graph inputs, with
/// the sizes and options of `config`.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildBlock(mlir::MLIRContext &ctx, llvm::StringRef block,
           const ModelConfig &config);

} // namespace poot::trace

#endif // POOT_TRACE_MODELS_H
