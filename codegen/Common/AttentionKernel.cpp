//===- AttentionKernel.cpp - poot.attention -> gpu-dialect kernels --------===//
//
// Builds a planned poot.attention's kernels: reads the spec off the op and
// its typed schedule, declares the kernel arguments by role, and emits the
// main kernel (streaming, or the split partials) with the schedule's body
// (StreamingKernel.cpp, ChannelKernel.cpp, MatrixKernel.cpp), then the
// combine kernel where the splits are not folded in the last workgroup.
// Records each launch (kernel, grid, lanes, argument roles).
//
// Scores follow the contract: s = (q.k) scale -> softcap -> + mask (tensor,
// causal/window from pos, ALiBi) -> softmax; a -inf score adds nothing; a
// row with no visible key is 0/0. All arithmetic is f32; storage is the op's
// dtype. The live length is clamped into [0, Lk] before it bounds a loop.
//
//===----------------------------------------------------------------------===//

#include "AttentionEmitter.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace poot;
using namespace poot::codegen;
using namespace poot::codegen::attention;

namespace {

FailureOr<Spec> readSpec(AttentionOp op, const TargetHooks &target) {
  auto schedule = op->getAttrOfType<AttentionScheduleAttr>(attrs::kSchedule);
  if (!schedule)
    return op.emitError("expected a #poot.attention_schedule: run poot-plan "
                        "first");
  Spec s;
  auto q = op.getQ().getType();
  s.b = q.getDimSize(0);
  s.hq = q.getDimSize(1);
  s.lq = q.getDimSize(2);
  s.dk = q.getDimSize(3);
  s.dv = op.getType().getDimSize(3);
  s.nRep = op.getNRep();
  s.hkv = s.hq / s.nRep;
  s.lk = op.getKeyLength();
  s.storage = q.getElementType();
  if (!target.canStore(s.storage))
    return op.emitError() << "DtypeLowering: target " << target.name()
                          << " cannot store " << s.storage << " buffers";
  // The attribute's verifier holds the schedule's own invariants and the
  // op's verifier that its head group divides n_rep; what is left here
  // depends on the target.
  s.group = schedule.getGroup();
  s.lanes = schedule.getLanes();
  s.gridX = schedule.getGridX();
  s.subgroup = schedule.getSubgroup();
  s.vector = schedule.getVector();
  s.keyLanes = schedule.getKeyLanes() > 0 ? schedule.getKeyLanes()
                                           : s.subgroup;
  s.unroll = schedule.getUnroll();
  s.matrix = schedule.getMatrix();
  s.valueVector = schedule.getValueVector();
  s.pairFold = schedule.getPairFold();
  s.splits = schedule.getSplits();
  s.split = schedule.getSplit();
  s.fusedCombine = schedule.getFusedCombine();
  s.tileRows = schedule.getTileRows();
  s.tileKeys = schedule.getTileKeys();
  s.tileStages = schedule.getTileStages();
  s.tileWarpgroup = schedule.getTileWarpgroup();
  s.tileSharedQuery = schedule.getTileSharedQuery();
  s.tileUnits = schedule.getTileUnits();
  s.countTiles = s.tileRows > 0 && op->hasAttr(attrs::kCountTiles);
  if (s.fusedCombine && !target.hasDeviceFence())
    return op.emitError() << "expected a target with a device-scope fence "
                             "for a combine fused into the partials, target "
                          << target.name() << " has none";
  s.scale = op.getScale().convertToDouble();
  if (auto cap = op.getSoftcap())
    s.softcap = cap->convertToDouble();
  s.paged = op.getRead() != nullptr;
  if (s.paged)
    s.poolSlots = op.getK().getType().getDimSize(0);
  if (auto shared = op.getKShared())
    s.sharedWidth = cast<RankedTensorType>(shared.getType()).getDimSize(3);
  if (auto mask = op.getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    s.hasMask = true;
    s.maskB = mt.getDimSize(0);
    s.maskH = mt.getDimSize(1);
  }
  s.hasLen = op.getLen() != nullptr;
  if (auto pos = op.getPos()) {
    s.hasPos = true;
    s.posPerRow = cast<RankedTensorType>(pos.getType()).getRank() == 1;
  }
  s.causal = op.getCausal();
  s.zeroEmptyRows = op.getZeroEmptyRows();
  if (auto w = op.getWindow())
    s.window = static_cast<int64_t>(*w);
  if (auto slopes = op.getAlibiSlopes())
    s.slopes.assign(slopes->begin(), slopes->end());
  if (s.tileRows) {
    if (!target.hasAsyncCopy())
      return op.emitError() << "expected a target with asynchronous copies "
                               "into workgroup memory for the tile schedule, "
                               "target "
                            << target.name() << " has none";
    if (!target.hasMatrixTile(s.storage))
      return op.emitError() << "expected a target with a subgroup matrix "
                               "tile for "
                            << s.storage << ", target " << target.name()
                            << " has none";
    if (s.tileWarpgroup && !target.hasWarpgroupTile(s.storage))
      return op.emitError() << "expected a target with a warpgroup matrix "
                               "tile for "
                            << s.storage << ", target " << target.name()
                            << " has none";
    // Value widths 32, 64, 96 and 128 are the ones checked right on
    // hardware.
    if (s.tileWarpgroup &&
        ((s.dv != 32 && s.dv != 64 && s.dv != 96 && s.dv != 128) ||
         s.tileKeys != 64))
      return op.emitError() << "expected a warpgroup tile schedule with a "
                               "value width of 32, 64, 96 or 128 and 64-key "
                               "tiles, got "
                            << s.dv << " and " << s.tileKeys;
    if (s.dk % 32 || s.dv % 8 || (s.dk - s.sharedWidth) % 8 ||
        !(s.storage.isBF16() || s.storage.isF16()))
      return op.emitError()
             << "expected a tile schedule of f16 or bf16 with a key width in "
                "32-channel steps and a value width in 8-channel steps, got "
             << s.storage << " and widths " << s.dk << "/" << s.dv;
  } else if (s.matrix) {
    if (!target.hasMatrixTile(s.storage))
      return op.emitError() << "expected a target with a subgroup matrix "
                               "tile for "
                            << s.storage << ", target " << target.name()
                            << " has none";
    if (s.subgroup != 32 || s.group > 8 || (s.pairFold && s.lanes % 64) ||
        s.lanes % 32 || s.vector < 2 ||
        s.sharedWidth || s.dk % 16 || s.dv % 16 || (s.dk / 4) % s.vector ||
        (s.dv / 16) % s.valueVector)
      return op.emitError()
             << "expected a matrix-tile schedule of subgroups of 32, at most "
                "8 heads, a key of one part and widths in 16-channel steps "
                "divisible by its vectors, got subgroup "
             << s.subgroup << ", " << s.group << " heads, widths " << s.dk
             << "/" << s.dv << ", vectors " << s.vector << "/"
             << s.valueVector;
  } else if (s.subgroup) {
    int64_t row = s.keyLanes * s.vector;
    if (s.keyLanes < 1 || s.subgroup % s.keyLanes || s.lanes % s.subgroup ||
        s.dk % row || s.dv % row || (s.dk - s.sharedWidth) % s.vector)
      return op.emitError()
             << "expected key and value widths divisible by " << row
             << " (key lanes " << s.keyLanes << " of vectors of " << s.vector
             << ") within subgroups of " << s.subgroup;
  }
  return s;
}

/// The buffer of an operand: its shape and storage type, except that i64
/// positions and lengths travel as i32 (no target needs 64-bit integer
/// storage for them; the runtime narrows them, refusing values that do not
/// fit).
MemRefType bufferType(Value v, Attribute space) {
  auto t = cast<RankedTensorType>(v.getType());
  Type et = t.getElementType();
  if (et.isInteger(64))
    et = IntegerType::get(v.getContext(), 32);
  return MemRefType::get(t.getShape(), et, MemRefLayoutAttrInterface(), space);
}

} // namespace

FailureOr<std::vector<Launch>>
poot::codegen::buildAttentionKernels(AttentionOp op, gpu::GPUModuleOp gpuModule,
                                     const TargetHooks &target) {
  auto specOr = readSpec(op, target);
  if (failed(specOr))
    return failure();
  const Spec &s = *specOr;
  MLIRContext *ctx = op.getContext();
  Attribute space = target.globalMemorySpace(ctx);
  Location loc = op.getLoc();

  // Arguments in a fixed order: the op's operands that are present, then
  // the output, then (split) the scratch.
  SmallVector<Type> argTypes;
  std::vector<std::string> roles;
  auto addArg = [&](Value v, const char *role) {
    if (!v)
      return;
    argTypes.push_back(bufferType(v, space));
    roles.push_back(role);
  };
  addArg(op.getQ(), "q");
  addArg(op.getK(), "k");
  addArg(op.getKShared(), "k_shared");
  addArg(op.getV(), "v");
  addArg(op.getRead(), "read");
  addArg(op.getMask(), "mask");
  addArg(op.getLen(), "len");
  addArg(op.getPos(), "pos");
  addArg(op.getResult(), "out");
  int64_t scratchFloats = s.rows() * s.splits * s.group * (s.dv + 2);
  auto scratchType = MemRefType::get({scratchFloats}, Float32Type::get(ctx),
                                     MemRefLayoutAttrInterface(), space);
  if (s.split) {
    argTypes.push_back(scratchType);
    roles.push_back("scratch");
  }
  if (s.fusedCombine) {
    argTypes.push_back(MemRefType::get({s.rows()}, IntegerType::get(ctx, 32),
                                       MemRefLayoutAttrInterface(), space));
    roles.push_back("counters");
  }
  if (s.countTiles) {
    argTypes.push_back(MemRefType::get({tileWorkgroups(s)},
                                       IntegerType::get(ctx, 32),
                                       MemRefLayoutAttrInterface(), space));
    roles.push_back("tiles");
  }

  OpBuilder b(ctx);
  // Before the module's terminator (gpu.module_end).
  Block *body = gpuModule.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&body->back());
  else
    b.setInsertionPointToEnd(body);
  // Kernels are numbered in the order the ops are generated.
  int64_t existing = llvm::range_size(gpuModule.getOps<gpu::GPUFuncOp>());
  std::string base = "attention_" + std::to_string(existing);
  std::vector<Launch> launches;

  // The main kernel: streaming, or the split partials.
  {
    auto fn = b.create<gpu::GPUFuncOp>(
        loc, base + (s.split ? "_partial" : s.tileRows ? "_tile" : "_stream"),
        FunctionType::get(ctx, argTypes, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    target.setWorkgroupSize(fn, s.lanes);
    OpBuilder kb = OpBuilder::atBlockBegin(&fn.getBody().front());
    Emitter e(kb, loc, target);
    Args a;
    unsigned n = 0;
    for (const std::string &role : roles) {
      Value arg = fn.getArgument(n++);
      if (role == "q") a.q = arg;
      else if (role == "k") a.k = arg;
      else if (role == "k_shared") a.kShared = arg;
      else if (role == "v") a.v = arg;
      else if (role == "read") a.read = arg;
      else if (role == "mask") a.mask = arg;
      else if (role == "len") a.len = arg;
      else if (role == "pos") a.pos = arg;
      else if (role == "out") a.out = arg;
      else if (role == "scratch") a.scratch = arg;
      else if (role == "counters") a.counters = arg;
      else if (role == "tiles") a.tiles = arg;
    }
    Value lane = kb.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value bx = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    Value by = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::y);
    Value gx = kb.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    Value id = e.add(bx, e.mul(by, gx));
    int64_t total = s.tileRows ? tileWorkgroups(s) : s.rows() * s.splits;
    Value mState, lState, oState, partials, fold, rowFold;
    if (s.fusedCombine)
      rowFold = target.allocWorkgroup(kb, loc, fn, {s.group * (s.splits + 2) + 1},
                                      kb.getF32Type());
    if (s.tileRows) {
      // Its workgroup memory is its own (TileKernel.cpp).
    } else if (s.subgroup) {
      partials = target.allocWorkgroup(
          kb, loc, fn, {s.partialSlots() * s.group * (s.dv + 2)},
          kb.getF32Type());
      fold = target.allocWorkgroup(
          kb, loc, fn, {s.group * (s.partialSlots() + 2)}, kb.getF32Type());
    } else {
      mState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes},
                                     kb.getF32Type());
      lState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes},
                                     kb.getF32Type());
      oState = target.allocWorkgroup(kb, loc, fn, {s.group * s.lanes * s.dv},
                                     kb.getF32Type());
    }
    e.when(e.cmpi(arith::CmpIPredicate::ult, id, e.idx(total)), [&] {
      if (s.tileRows)
        return emitTileBody(e, s, a, fn, lane, id);
      Value row = e.div(id, e.idx(s.splits));
      Value split = e.rem(id, e.idx(s.splits));
      int64_t groups = s.hq / s.group;
      Value bi = e.div(row, e.idx(groups * s.lq));
      Value g = e.rem(e.div(row, e.idx(s.lq)), e.idx(groups));
      Value qi = e.rem(row, e.idx(s.lq));
      // The kv head of query-head group g: its first head g * group over
      // n_rep (with a whole group, g itself).
      Value kvHead = s.group == s.nRep
                         ? g
                         : e.div(e.mul(g, e.idx(s.group)), e.idx(s.nRep));
      // The keys this row visits: [0, len) clamped into [0, Lk], cut into
      // `splits` chunks by the live length at run time.
      Value kEnd = e.idx(s.lk);
      if (s.hasLen) {
        Value len = e.loadIndex(a.len, ValueRange{bi});
        kEnd = e.imin(e.imax(len, e.idx(0)), e.idx(s.lk));
      }
      if (s.causal) {
        // Keys past the query's own position are all -inf: the loop stops
        // at qpos + 1 instead of visiting them (the causal skip; the bound
        // is clamped so a position past Lk still reads nothing outside).
        Value qpos = queryPosition(e, s, a, bi, qi);
        Value stop = e.imax(e.add(qpos, e.idx(1)), e.idx(0));
        kEnd = e.imin(kEnd, stop);
      }
      Value chunk = e.div(e.add(kEnd, e.idx(s.splits - 1)), e.idx(s.splits));
      Value kBegin = e.imin(e.mul(split, chunk), kEnd);
      Value kStop = e.imin(e.add(kBegin, chunk), kEnd);
      // A partial's slot in the scratch: ((row * splits + split) * group
      // + head in group) * (dv + 2).
      Value scratchBase;
      if (s.split)
        scratchBase = e.mul(id, e.idx(s.group));
      if (s.matrix)
        emitMatrixBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                       partials, fold, scratchBase);
      else if (s.subgroup)
        emitChannelBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                        partials, fold, scratchBase);
      else
        emitStreamingBody(e, s, a, lane, bi, g, kvHead, qi, kBegin, kStop,
                          mState, lState, oState, scratchBase);
      if (s.fusedCombine)
        foldRowIfLast(e, s, a.scratch, a.counters, a.out, rowFold, lane, row,
                      bi, g, qi);
    });
    kb.create<gpu::ReturnOp>(loc);
    int64_t gridX = std::min<int64_t>(total, s.gridX);
    launches.push_back({fn.getName().str(),
                        {gridX, (total + gridX - 1) / gridX},
                        s.lanes,
                        roles,
                        s.tileRows ? tileDynamicWorkgroupBytes(s, target)
                                   : 0});
  }
  if (!s.split || s.fusedCombine)
    return launches;

  // The combine: one workgroup per row folds the row's splits.
  {
    SmallVector<Type> types{scratchType, bufferType(op.getResult(), space)};
    auto fn = b.create<gpu::GPUFuncOp>(loc, base + "_combine",
                                       FunctionType::get(ctx, types, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    target.setWorkgroupSize(fn, s.lanes);
    OpBuilder kb = OpBuilder::atBlockBegin(&fn.getBody().front());
    Emitter e(kb, loc, target);
    Value scratch = fn.getArgument(0), out = fn.getArgument(1);
    Value fold = target.allocWorkgroup(kb, loc, fn,
                                       {s.group * (s.splits + 2)},
                                       kb.getF32Type());
    Value lane = kb.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value bx = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    Value by = kb.create<gpu::BlockIdOp>(loc, gpu::Dimension::y);
    Value gx = kb.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    Value row = e.add(bx, e.mul(by, gx));
    e.when(e.cmpi(arith::CmpIPredicate::ult, row, e.idx(s.rows())), [&] {
      int64_t groups = s.hq / s.group;
      Value bi = e.div(row, e.idx(groups * s.lq));
      Value g = e.rem(e.div(row, e.idx(s.lq)), e.idx(groups));
      Value qi = e.rem(row, e.idx(s.lq));
      foldRow(e, s, scratch, out, fold, lane, row, bi, g, qi);
    });
    kb.create<gpu::ReturnOp>(loc);
    int64_t gridX = std::min<int64_t>(s.rows(), s.gridX);
    launches.push_back({fn.getName().str(),
                        {gridX, (s.rows() + gridX - 1) / gridX},
                        s.lanes,
                        {"scratch", "out"}});
  }
  return launches;
}
