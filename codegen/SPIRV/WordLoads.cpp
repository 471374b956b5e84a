//===- WordLoads.cpp - Read-only buffers read in groups -------------------===//
//
// See WordLoads.h. The rewrite keeps every loaded value's type: a bf16
// load still yields a bf16, an f16 load an f16, so the bf16 rewrite that
// follows and MLIR's SPIR-V conversion see ordinary ops. No value wider
// than 4 components is made: a vector load of 8 elements whose users only
// take elements out of it (as the channel schedule's are) hands each user
// its element directly.
//
// A 16-bit element is half of a little-endian 32-bit word: element 2i of
// the words is word i's low half, element 2i + 1 its high half, as the
// runtime lays bf16 and f16 out.
//
//===----------------------------------------------------------------------===//

#include "WordLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace poot::codegen {

static constexpr int64_t kMaxPower = 30;

int64_t provablePowerOfTwoFactor(Value v, int depth) {
  if (depth > 16)
    return 0;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? kMaxPower
                      : std::min<int64_t>(kMaxPower, c.countTrailingZeros());
  auto power = [&](Value x) { return provablePowerOfTwoFactor(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return 0;
    return std::min(power(loop.getLowerBound()), power(loop.getStep()));
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return 0;
  if (auto mul = dyn_cast<arith::MulIOp>(def))
    return std::min(kMaxPower, power(mul.getLhs()) + power(mul.getRhs()));
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinUIOp, arith::MinSIOp,
          arith::MaxUIOp, arith::MaxSIOp>(def))
    return std::min(power(def->getOperand(0)), power(def->getOperand(1)));
  // A mask clears bits: the result has the zeros of either operand.
  if (auto mask = dyn_cast<arith::AndIOp>(def))
    return std::max(power(mask.getLhs()), power(mask.getRhs()));
  if (auto shl = dyn_cast<arith::ShLIOp>(def)) {
    APInt s;
    int64_t by = matchPattern(shl.getRhs(), m_ConstantInt(&s))
                     ? std::min<int64_t>(kMaxPower, s.getZExtValue())
                     : 0;
    return std::min(kMaxPower, power(shl.getLhs()) + by);
  }
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    return std::min(power(sel.getTrueValue()), power(sel.getFalseValue()));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(def))
    return power(def->getOperand(0));
  return 0;
}

bool isProvablyMultipleOf(Value v, int64_t powerOfTwo) {
  assert(llvm::isPowerOf2_64(powerOfTwo) && "expected a power of two");
  return provablePowerOfTwoFactor(v) >= llvm::Log2_64(powerOfTwo);
}

namespace {

bool isStorageBuffer(MemRefType type) {
  auto space = dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
  return space && space.getValue() == spirv::StorageClass::StorageBuffer;
}

/// How a buffer is read: groups of `elements` elements of type `element`,
/// each a `group` (vector<N x f32>, or i32 / vector<W x i32> words of
/// 16-bit elements).
struct Grouping {
  Type element;
  Type group;
  int64_t elements = 0;
  bool sixteenBit() const { return element.getIntOrFloatBitWidth() == 16; }
  /// 32-bit words a group, for 16-bit elements.
  int64_t words() const { return elements / 2; }
  int64_t shift() const { return llvm::Log2_64(elements); }
};

/// The largest power of two that divides `n` (n > 0).
int64_t lowestBit(int64_t n) { return n & -n; }

/// The grouping of a buffer argument, or none when it stays as it is.
std::optional<Grouping> groupingOf(BlockArgument arg) {
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
      !type.getLayout().isIdentity() || !isStorageBuffer(type))
    return std::nullopt;
  Type e = type.getElementType();
  if (!e.isBF16() && !e.isF16() && !e.isF32())
    return std::nullopt;
  const int64_t eb = e.getIntOrFloatBitWidth() / 8;
  // Groups pay off only for vector loads: of two elements at least, and
  // 16-bit elements at least two to a word. A buffer read element by
  // element stays as it is.
  const int64_t floor = eb == 2 ? 4 : 8;
  int64_t bytes = 16;
  bool vectors = false;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (use.getOperandNumber() != 0)
      return std::nullopt;
    if (isa<memref::LoadOp>(user))
      continue;
    auto load = dyn_cast<vector::LoadOp>(user);
    if (!load || load.getVectorType().getRank() != 1 ||
        load.getVectorType().isScalable())
      return std::nullopt;
    vectors = true;
    int64_t aligned = std::min<int64_t>(
        4, provablePowerOfTwoFactor(load.getIndices().back()));
    bytes =
        std::min({bytes, lowestBit(load.getVectorType().getNumElements() * eb),
                  (int64_t(1) << aligned) * eb});
  }
  if (!vectors)
    return std::nullopt;
  while (bytes >= floor && (type.getShape().back() * eb) % bytes)
    bytes /= 2;
  if (bytes < floor)
    return std::nullopt;
  Grouping g;
  g.element = e;
  g.elements = bytes / eb;
  MLIRContext *ctx = type.getContext();
  if (eb == 4)
    g.group = VectorType::get({g.elements}, e);
  else if (bytes == 4)
    g.group = IntegerType::get(ctx, 32);
  else
    g.group = VectorType::get({bytes / 4}, IntegerType::get(ctx, 32));
  return g;
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value i32Constant(OpBuilder &b, Location loc, uint32_t v) {
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(b.getI32Type(), APInt(32, v)));
}

/// `d` / 2^`shift` for an index `d` provably a multiple of 2^`shift`,
/// built from the ops that make `d` where that divides exactly (a product
/// with a constant, sums, differences, selects, constants), so that
/// (j + i) * 8 in groups of 8 is j + i and not ((j + i) * 8) >> 3; a
/// shift right otherwise.
Value exactQuotient(OpBuilder &b, Location loc, Value d, int64_t shift,
                    int depth = 0) {
  auto q = [&](Value x) { return exactQuotient(b, loc, x, shift, depth + 1); };
  APInt c;
  if (matchPattern(d, m_ConstantInt(&c)) && d.getType().isIndex())
    return b.create<arith::ConstantIndexOp>(loc, c.getSExtValue() >> shift);
  Operation *def = d.getDefiningOp();
  if (def && depth < 8 && d.getType().isIndex()) {
    if (auto mul = dyn_cast<arith::MulIOp>(def))
      for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())})
        if (matchPattern(y, m_ConstantInt(&c)) && !c.isZero() &&
            int64_t(c.countTrailingZeros()) >= shift) {
          int64_t k = c.getSExtValue() >> shift;
          return k == 1 ? x
                        : b.create<arith::MulIOp>(
                              loc, x, b.create<arith::ConstantIndexOp>(loc, k));
        }
    if (isa<arith::AddIOp, arith::SubIOp>(def) &&
        isProvablyMultipleOf(def->getOperand(0), int64_t(1) << shift) &&
        isProvablyMultipleOf(def->getOperand(1), int64_t(1) << shift)) {
      Value x = q(def->getOperand(0)), y = q(def->getOperand(1));
      if (isa<arith::AddIOp>(def))
        return b.create<arith::AddIOp>(loc, x, y);
      return b.create<arith::SubIOp>(loc, x, y);
    }
    if (auto sel = dyn_cast<arith::SelectOp>(def);
        sel && isProvablyMultipleOf(sel.getTrueValue(), int64_t(1) << shift) &&
        isProvablyMultipleOf(sel.getFalseValue(), int64_t(1) << shift))
      return b.create<arith::SelectOp>(loc, sel.getCondition(),
                                       q(sel.getTrueValue()),
                                       q(sel.getFalseValue()));
  }
  return b.create<arith::ShRUIOp>(loc, d,
                                  b.create<arith::ConstantIndexOp>(loc, shift));
}

/// items[pos] for pos < items.size() (a power of two): a tree of selects
/// on pos's bits, lowest first (MLIR 19 lowers no dynamic vector.extract
/// to SPIR-V).
Value pick(OpBuilder &b, Location loc, SmallVector<Value> items, Value pos) {
  for (int64_t bit = 1; items.size() > 1; bit *= 2) {
    Value set = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne,
        b.create<arith::AndIOp>(loc, pos, indexConstant(b, loc, bit)),
        indexConstant(b, loc, 0));
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      next.push_back(
          b.create<arith::SelectOp>(loc, set, items[i + 1], items[i]));
    items = next;
  }
  return items[0];
}

/// The 16-bit element of `word` in its high half (`high`, an i1) or its
/// low half, as a value of `element` (bf16 or f16).
Value halfOf(OpBuilder &b, Location loc, Type element, Value word, Value high) {
  if (element.isBF16()) {
    // The f32 of a bf16 is its 16 bits followed by 16 zeros, so the
    // truncation back to bf16 is exact (and folds away in the bf16
    // rewrite).
    Value lo = b.create<arith::ShLIOp>(loc, word, i32Constant(b, loc, 16));
    Value hi =
        b.create<arith::AndIOp>(loc, word, i32Constant(b, loc, 0xFFFF0000u));
    Value bits = b.create<arith::SelectOp>(loc, high, hi, lo);
    Value f = b.create<arith::BitcastOp>(loc, b.getF32Type(), bits);
    return b.create<arith::TruncFOp>(loc, element, f);
  }
  Value pair = b.create<vector::BitCastOp>(
      loc, VectorType::get({2}, element),
      b.create<vector::BroadcastOp>(loc, VectorType::get({1}, b.getI32Type()),
                                    word));
  Value first = b.create<vector::ExtractOp>(loc, pair, ArrayRef<int64_t>{0});
  Value second = b.create<vector::ExtractOp>(loc, pair, ArrayRef<int64_t>{1});
  return b.create<arith::SelectOp>(loc, high, second, first);
}

/// Both 16-bit elements of `word`, low half first.
SmallVector<Value> halvesOf(OpBuilder &b, Location loc, Type element,
                            Value word) {
  if (element.isBF16()) {
    Value lo = b.create<arith::ShLIOp>(loc, word, i32Constant(b, loc, 16));
    Value hi =
        b.create<arith::AndIOp>(loc, word, i32Constant(b, loc, 0xFFFF0000u));
    SmallVector<Value> out;
    for (Value bits : {lo, hi})
      out.push_back(b.create<arith::TruncFOp>(
          loc, element, b.create<arith::BitcastOp>(loc, b.getF32Type(), bits)));
    return out;
  }
  Value pair = b.create<vector::BitCastOp>(
      loc, VectorType::get({2}, element),
      b.create<vector::BroadcastOp>(loc, VectorType::get({1}, b.getI32Type()),
                                    word));
  return {b.create<vector::ExtractOp>(loc, pair, ArrayRef<int64_t>{0}),
          b.create<vector::ExtractOp>(loc, pair, ArrayRef<int64_t>{1})};
}

/// The words of a group of 16-bit elements.
SmallVector<Value> wordsOf(OpBuilder &b, Location loc, const Grouping &g,
                           Value group) {
  if (!isa<VectorType>(group.getType()))
    return {group};
  SmallVector<Value> words;
  for (int64_t w = 0; w < g.words(); ++w)
    words.push_back(
        b.create<vector::ExtractOp>(loc, group, ArrayRef<int64_t>{w}));
  return words;
}

/// Every element of a loaded group, in order.
SmallVector<Value> elementsOf(OpBuilder &b, Location loc, const Grouping &g,
                              Value group) {
  SmallVector<Value> out;
  if (!g.sixteenBit()) {
    for (int64_t i = 0; i < g.elements; ++i)
      out.push_back(
          b.create<vector::ExtractOp>(loc, group, ArrayRef<int64_t>{i}));
    return out;
  }
  for (Value word : wordsOf(b, loc, g, group))
    llvm::append_range(out, halvesOf(b, loc, g.element, word));
  return out;
}

/// The element at `indices` (of the buffer's original shape) of a grouped
/// buffer: its group loaded, the element picked by the index's low bits.
Value loadElement(OpBuilder &b, Location loc, const Grouping &g, Value buffer,
                  SmallVector<Value> indices) {
  Value d = indices.back();
  indices.back() =
      b.create<arith::ShRUIOp>(loc, d, indexConstant(b, loc, g.shift()));
  Value pos =
      b.create<arith::AndIOp>(loc, d, indexConstant(b, loc, g.elements - 1));
  Value group = b.create<memref::LoadOp>(loc, buffer, indices);
  if (!g.sixteenBit()) {
    SmallVector<Value> items;
    for (int64_t i = 0; i < g.elements; ++i)
      items.push_back(
          b.create<vector::ExtractOp>(loc, group, ArrayRef<int64_t>{i}));
    return pick(b, loc, items, pos);
  }
  SmallVector<Value> words = wordsOf(b, loc, g, group);
  Value word =
      words.size() == 1
          ? words[0]
          : pick(b, loc, words,
                 b.create<arith::ShRUIOp>(loc, pos, indexConstant(b, loc, 1)));
  Value high = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ne,
      b.create<arith::AndIOp>(loc, pos, indexConstant(b, loc, 1)),
      indexConstant(b, loc, 0));
  return halfOf(b, loc, g.element, word, high);
}

/// A vector of `elements` (vector.insert into zeros: MLIR 19 lowers no
/// vector.from_elements to SPIR-V).
Value vectorOf(OpBuilder &b, Location loc, VectorType type,
               ArrayRef<Value> elements) {
  Value v = b.create<arith::ConstantOp>(loc, type, b.getZeroAttr(type));
  for (auto [i, x] : llvm::enumerate(elements))
    v = b.create<vector::InsertOp>(loc, x, v,
                                   ArrayRef<int64_t>{static_cast<int64_t>(i)});
  return v;
}

void rewriteLoads(BlockArgument arg, const Grouping &g) {
  SmallVector<Operation *> users(arg.getUsers());
  for (Operation *user : users) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Value v =
          loadElement(b, loc, g, arg, SmallVector<Value>(load.getIndices()));
      load.replaceAllUsesWith(v);
      load.erase();
      continue;
    }
    auto load = cast<vector::LoadOp>(user);
    VectorType type = load.getVectorType();
    const int64_t n = type.getNumElements();
    SmallVector<Value> indices(load.getIndices());
    SmallVector<Value> elements;
    Value whole; // the vector itself, where it is one group
    if (n % g.elements == 0 &&
        isProvablyMultipleOf(indices.back(), g.elements)) {
      // Whole groups: d / N + j for j < n / N.
      Value first = exactQuotient(b, loc, indices.back(), g.shift());
      for (int64_t j = 0; j < n / g.elements; ++j) {
        indices.back() =
            j ? b.create<arith::AddIOp>(loc, first, indexConstant(b, loc, j))
              : first;
        Value group = b.create<memref::LoadOp>(loc, arg, indices);
        if (group.getType() == type)
          whole = group;
        llvm::append_range(elements, elementsOf(b, loc, g, group));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        SmallVector<Value> at(load.getIndices());
        if (i)
          at.back() =
              b.create<arith::AddIOp>(loc, at.back(), indexConstant(b, loc, i));
        elements.push_back(loadElement(b, loc, g, arg, at));
      }
    }
    // Users that take a constant element get it directly; any other gets
    // the vector.
    SmallVector<Operation *> loadUsers(load->getUsers());
    for (Operation *u : loadUsers) {
      auto extract = dyn_cast<vector::ExtractOp>(u);
      if (!extract || !extract.getDynamicPosition().empty() ||
          extract.getStaticPosition().size() != 1)
        continue;
      extract.replaceAllUsesWith(elements[extract.getStaticPosition()[0]]);
      extract.erase();
    }
    if (!load->use_empty())
      load.replaceAllUsesWith(whole ? whole : vectorOf(b, loc, type, elements));
    load.erase();
  }
}

/// A vector load of f16 from a buffer, whose users only take elements out
/// of it, becomes a scalar load per element taken: a loaded f16 widened to
/// f32 is what 16-bit storage is for, and MLIR's conversion would load the
/// vector through a pointer cast, which logical addressing does not have.
void scalarizeF16Loads(gpu::GPUFuncOp fn) {
  SmallVector<vector::LoadOp> loads;
  fn.walk([&](vector::LoadOp load) {
    auto base = cast<MemRefType>(load.getBase().getType());
    if (!base.getElementType().isF16() || !isStorageBuffer(base) ||
        load.getVectorType().getRank() != 1)
      return;
    for (Operation *user : load->getUsers()) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      if (!extract || !extract.getDynamicPosition().empty())
        return;
    }
    loads.push_back(load);
  });
  for (vector::LoadOp load : loads) {
    SmallVector<Operation *> users(load->getUsers());
    for (Operation *user : users) {
      auto extract = cast<vector::ExtractOp>(user);
      OpBuilder b(extract);
      Location loc = extract.getLoc();
      SmallVector<Value> at(load.getIndices());
      int64_t i = extract.getStaticPosition()[0];
      if (i)
        at.back() =
            b.create<arith::AddIOp>(loc, at.back(), indexConstant(b, loc, i));
      Value v = b.create<memref::LoadOp>(loc, load.getBase(), at);
      extract.replaceAllUsesWith(v);
      extract.erase();
    }
    load.erase();
  }
}

} // namespace

void readBuffersInGroups(gpu::GPUModuleOp module) {
  for (auto fn : module.getOps<gpu::GPUFuncOp>()) {
    if (fn.getBody().empty())
      continue;
    SmallVector<Type> inputs(fn.getFunctionType().getInputs());
    bool changed = false;
    for (BlockArgument arg : fn.getArguments()) {
      std::optional<Grouping> g = groupingOf(arg);
      if (!g)
        continue;
      auto type = cast<MemRefType>(arg.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.back() /= g->elements;
      auto grouped =
          MemRefType::get(shape, g->group, AffineMap(), type.getMemorySpace());
      arg.setType(grouped);
      inputs[arg.getArgNumber()] = grouped;
      rewriteLoads(arg, *g);
      changed = true;
    }
    if (changed)
      fn.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
          fn.getContext(), inputs, fn.getFunctionType().getResults())));
    scalarizeF16Loads(fn);
  }
}

} // namespace poot::codegen
