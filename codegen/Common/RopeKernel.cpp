//===- RopeKernel.cpp - poot.rope -> one gpu-dialect kernel ---------------===//
//
// One thread per output element: channels past rotary_dim pass through;
// channel c of the rotary part is x[c] cos[c] + rot[c] sin[c], where rot
// pairs c with c +- r/2 (half style, the first half negated) or with its
// neighbour (interleaved, the even channel negated). cos and sin broadcast
// to the rotary part. Math in f32, the result stored in x's dtype, the
// products and the sum rounded as the oracle rounds them.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "poot/Dialect/PootDialect.h"

using namespace mlir;
using namespace poot;
using namespace poot::codegen;
using Pred = arith::CmpIPredicate;

FailureOr<std::vector<Launch>>
poot::codegen::buildRopeKernel(Operation *operation, gpu::GPUModuleOp module,
                               const TargetHooks &target, StringRef name) {
  auto op = cast<RopeOp>(operation);
  auto xt = cast<RankedTensorType>(op.getX().getType());
  auto ct = cast<RankedTensorType>(op.getCos().getType());
  auto st = cast<RankedTensorType>(op.getSin().getType());
  Type et = xt.getElementType();
  ArrayRef<int64_t> xs = xt.getShape();
  int64_t d = xs.back(), r = op.getRotaryDim();
  bool half = op.getStyle() == "half";
  SmallVector<int64_t> rotShape(xs);
  rotShape.back() = r;

  SmallVector<Type> types(op->getOperandTypes());
  types.push_back(op.getType());
  KernelBuilder k(module, op.getLoc(), target, name, types);
  OpBuilder &b = k.b;
  Location loc = op.getLoc();
  int64_t total = xt.getNumElements();
  k.forEach(total, [&](Value i) {
    Value c = k.rem(i, d);
    Value rowBase = k.sub(i, c);
    Value x = k.load(k.arg(0), i, et);
    Value rotary = k.cmp(Pred::ult, c, k.idx(r));
    Value v = k.ifElse(rotary, b.getF32Type(), [&]() -> Value {
      // The partner channel and its sign.
      Value partner, negate;
      if (half) {
        Value low = k.cmp(Pred::ult, c, k.idx(r / 2));
        partner = k.select(low, k.add(c, k.idx(r / 2)), k.sub(c, k.idx(r / 2)));
        negate = low;
      } else {
        Value even = k.cmp(Pred::eq, k.rem(c, 2), k.idx(0));
        partner = k.select(even, k.add(c, k.idx(1)), k.sub(c, k.idx(1)));
        negate = even;
      }
      Value px = k.load(k.arg(0), k.add(rowBase, partner), et);
      Value rot = k.select(negate, b.create<arith::NegFOp>(loc, px), px);
      // cos/sin at (row coordinates, c) of the rotary part.
      SmallVector<Value> coords = k.unravel(k.add(k.mul(k.div(i, d), k.idx(r)), c),
                                            rotShape);
      Value cv = k.load(k.arg(1), k.broadcastOffset(coords, ct.getShape()),
                        ct.getElementType());
      Value sv = k.load(k.arg(2), k.broadcastOffset(coords, st.getShape()),
                        st.getElementType());
      return b.create<arith::AddFOp>(loc, b.create<arith::MulFOp>(loc, x, cv),
                                     b.create<arith::MulFOp>(loc, rot, sv));
    }, [&]() { return x; });
    k.store(v, k.arg(3), i, et);
  });
  return std::vector<Launch>{k.finish(total, operandRoles(op))};
}
