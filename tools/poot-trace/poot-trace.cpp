//===- poot-trace.cpp - Prints traced model graphs ------------------------===//
//
// Traces a model preset (or one building block, for lit tests) with the C++
// tracer, verifies it and prints the primitive graph. Every size and option
// of a preset can be overridden from the command line; an override that
// makes the sizes inconsistent is refused with the reason.
//
//===----------------------------------------------------------------------===//

#include "poot/Trace/Models.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace poot::trace;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("poot-trace options");

cl::opt<std::string> modelName("model", cl::desc("Model preset to trace"),
                               cl::init("llama3-8b"), cl::cat(category));
cl::opt<std::string>
    blockName("op",
              cl::desc("Trace one building block instead of a model: "
                       "attention_masked, attention_prefill, attention_live, "
                       "rope, paged, mla, sparse"),
              cl::cat(category));
cl::opt<std::string> phaseName("phase", cl::desc("decode or prefill"),
                               cl::init("decode"), cl::cat(category));
cl::opt<std::string> cacheName("cache", cl::desc("fixed or paged"),
                               cl::init("fixed"), cl::cat(category));
cl::opt<std::string> dtypeName("dtype", cl::desc("f32, f16 or bf16"),
                               cl::init("f32"), cl::cat(category));
cl::opt<bool> small("small", cl::desc("Use the preset's example sizes"),
                    cl::cat(category));
cl::opt<bool> live("live",
                   cl::desc("Decode through the live form (len = pos + "
                            "tokens, guarded)"),
                   cl::cat(category));
cl::opt<bool> chunked("chunked",
                      cl::desc("A paged prefill chunk that continues a cached "
                               "prefix (pos and the read map)"),
                      cl::cat(category));
cl::opt<bool> list("list", cl::desc("List the presets and blocks and exit"),
                   cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file"), cl::init("-"),
                                cl::value_desc("filename"), cl::cat(category));

// Size overrides: applied only when given.
cl::opt<int64_t> layers("layers", cl::desc("Number of layers"),
                        cl::cat(category));
cl::opt<int64_t> batch("batch", cl::desc("Batch rows"), cl::cat(category));
cl::opt<int64_t> capacity("capacity", cl::desc("Cache capacity per row"),
                          cl::cat(category));
cl::opt<int64_t> seqLen("seq", cl::desc("Prompt length (prefill)"),
                        cl::cat(category));
cl::opt<int64_t> tokens("tokens", cl::desc("New tokens per decode step"),
                        cl::cat(category));
cl::opt<int64_t> hidden("hidden", cl::desc("Hidden width"), cl::cat(category));
cl::opt<int64_t> heads("heads", cl::desc("Query heads"), cl::cat(category));
cl::opt<int64_t> kvHeads("kv-heads", cl::desc("Key/value heads"),
                         cl::cat(category));
cl::opt<int64_t> headDim("head-dim", cl::desc("Head width"), cl::cat(category));
cl::opt<int64_t> valueDim("value-dim", cl::desc("Value width"),
                          cl::cat(category));
cl::opt<int64_t> poolSlots("pool-slots", cl::desc("Paged pool slots"),
                           cl::cat(category));
cl::opt<int64_t> lora("lora",
                      cl::desc("LoRA adapters on the query and value "
                               "projections, chosen per row by the adapter "
                               "slot (0: none)"),
                      cl::cat(category));
cl::opt<int64_t> loraRank("lora-rank", cl::desc("LoRA rank (default 8)"),
                          cl::cat(category));
cl::opt<int64_t> window("window", cl::desc("Sliding window"),
                        cl::cat(category));
cl::opt<double> softcap("softcap", cl::desc("Attention logit softcap"),
                        cl::cat(category));
cl::opt<double> scale("scale", cl::desc("Score scale (0: 1/sqrt(Dk))"),
                      cl::cat(category));
cl::opt<bool> alibi("alibi", cl::desc("ALiBi bias (blocks only)"),
                    cl::cat(category));
cl::opt<std::string> ropeStyle("rope-style", cl::desc("half or interleaved"),
                               cl::cat(category));
cl::opt<int64_t> rotaryDim("rotary-dim",
                           cl::desc("Rotated channels per head (0: all)"),
                           cl::cat(category));
cl::opt<double> ropeTheta("rope-theta", cl::desc("RoPE base"),
                          cl::cat(category));
cl::opt<int64_t> nopeDim("nope-dim", cl::desc("MLA per-head key width"),
                         cl::cat(category));
cl::opt<int64_t> ropeDim("rope-dim", cl::desc("MLA shared rotary key width"),
                         cl::cat(category));
cl::opt<int64_t> kvLoraRank("kv-lora-rank", cl::desc("MLA latent width"),
                            cl::cat(category));
cl::opt<int64_t> ratio("ratio", cl::desc("Sparse block size in keys"),
                       cl::cat(category));
cl::opt<int64_t> topBlocks("top-blocks",
                           cl::desc("Sparse blocks selected per query row"),
                           cl::cat(category));
cl::opt<int64_t> indexHeads("index-heads", cl::desc("Sparse indexer heads"),
                            cl::cat(category));
cl::opt<int64_t> indexDim("index-dim", cl::desc("Sparse indexer width"),
                          cl::cat(category));

template <typename T, typename U>
void override(const cl::opt<T> &option, U &field) {
  if (option.getNumOccurrences())
    field = option;
}

/// Applies the command line to `c`, or returns why it cannot.
llvm::Error applyOptions(ModelConfig &c) {
  if (phaseName == "decode")
    c.phase = Phase::Decode;
  else if (phaseName == "prefill")
    c.phase = Phase::Prefill;
  else
    return llvm::createStringError("expected --phase=decode|prefill, got '" +
                                   phaseName + "'");
  if (cacheName == "fixed")
    c.cache = CacheKind::Fixed;
  else if (cacheName == "paged")
    c.cache = CacheKind::Paged;
  else
    return llvm::createStringError("expected --cache=fixed|paged, got '" +
                                   cacheName + "'");
  std::optional<DType> dtype = parseDType(dtypeName);
  if (!dtype)
    return llvm::createStringError("expected --dtype=f32|f16|bf16, got '" +
                                   dtypeName + "'");
  c.dtype = *dtype;
  if (ropeStyle.getNumOccurrences()) {
    if (ropeStyle == "half")
      c.ropeStyle = RopeStyle::Half;
    else if (ropeStyle == "interleaved")
      c.ropeStyle = RopeStyle::Interleaved;
    else
      return llvm::createStringError(
          "expected --rope-style=half|interleaved, got '" + ropeStyle + "'");
  }
  override(live, c.live);
  override(chunked, c.chunked);
  override(layers, c.layers);
  override(batch, c.batch);
  override(capacity, c.capacity);
  override(seqLen, c.seqLen);
  override(tokens, c.decodeTokens);
  override(hidden, c.hidden);
  override(heads, c.numHeads);
  override(kvHeads, c.numKvHeads);
  override(headDim, c.headDim);
  override(valueDim, c.valueDim);
  override(poolSlots, c.poolSlots);
  override(lora, c.loraAdapters);
  override(loraRank, c.loraRank);
  override(scale, c.scale);
  override(rotaryDim, c.rotaryDim);
  override(ropeTheta, c.ropeTheta);
  override(nopeDim, c.nopeDim);
  override(ropeDim, c.ropeDim);
  override(kvLoraRank, c.kvLoraRank);
  override(ratio, c.blockRatio);
  override(topBlocks, c.topBlocks);
  override(indexHeads, c.indexHeads);
  override(indexDim, c.indexDim);
  if (window.getNumOccurrences())
    c.window = window > 0 ? std::optional<int64_t>(window) : std::nullopt;
  if (softcap.getNumOccurrences())
    c.softcap = softcap > 0 ? std::optional<double>(softcap) : std::nullopt;
  if (alibi) {
    if (!blockName.getNumOccurrences())
      return llvm::createStringError(
          "expected --alibi only with --op (bloom is the ALiBi model)");
    c.family = Family::Alibi;
  }
  // A head count given alone keeps MHA models MHA.
  if (heads.getNumOccurrences() && !kvHeads.getNumOccurrences() &&
      (c.family == Family::Mla || c.family == Family::Alibi))
    c.numKvHeads = c.numHeads;
  if (c.family == Family::Mla && !blockName.getNumOccurrences())
    c.headDim = c.nopeDim + c.ropeDim;
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --mlir-print-debuginfo shows which layer traced each op.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "poot-trace: prints a traced poot graph\n");

  if (list) {
    llvm::outs() << "models:";
    for (StringRef name : getModelNames())
      llvm::outs() << " " << name;
    llvm::outs() << "\nblocks:";
    for (StringRef name : getBlockNames())
      llvm::outs() << " " << name;
    llvm::outs() << "\n";
    return 0;
  }

  ModelConfig config;
  if (blockName.getNumOccurrences()) {
    config = getBlockDefaults();
  } else {
    std::optional<ModelConfig> preset = getModelPreset(modelName, small);
    if (!preset) {
      llvm::errs() << "poot-trace: unknown model '" << modelName
                   << "' (see --list)\n";
      return 1;
    }
    config = *preset;
  }
  if (llvm::Error err = applyOptions(config)) {
    llvm::errs() << "poot-trace: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }

  MLIRContext ctx;
  auto module = blockName.getNumOccurrences()
                    ? buildBlock(ctx, blockName, config)
                    : buildModel(ctx, config);
  if (!module) {
    llvm::errs() << "poot-trace: " << llvm::toString(module.takeError())
                 << "\n";
    return 1;
  }
  if (failed(mlir::verify(**module)))
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(outputFile, &error);
  if (!out) {
    llvm::errs() << "poot-trace: " << error << "\n";
    return 1;
  }
  (*module)->print(out->os(), OpPrintingFlags());
  out->os() << "\n";
  out->keep();
  return 0;
}
