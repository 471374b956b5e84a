//===- PootOps.td - Primitive ops of the poot dialect ------*- tablegen -*-===//
//
// The primitive eqns a model graph is made of. Each op
// verifies its operands with a precise diagnostic, infers its result type
// where it can, folds where that is trivial, and bounds integer results for
// MLIR's integer range analysis.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_OPS_TD
#define POOT_OPS_TD

include "poot/Dialect/PootDialect.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/InferIntRangeInterface.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Poot_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Poot_Int : AnyTypeOf<[I32, I64]>;
def Poot_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64]>;

def Poot_Tensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Poot_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def Poot_IntTensor : StaticShapeTensorOf<[I32, I64]>;
def Poot_NumTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Poot_BoolTensor : StaticShapeTensorOf<[I1]>;
def Poot_IntScalar : 0DTensorOf<[I32, I64]>;

// Ops whose results are bounded for IntegerRangeAnalysis. The optional form
// is used because many poot ops mix float and integer operands.
defvar RangeInfer = DeclareOpInterfaceMethods<InferIntRangeInterface,
                                              ["inferResultRangesFromOptional"]>;
defvar TypeInfer = DeclareOpInterfaceMethods<InferTypeOpInterface>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Poot_CmpEq : I32EnumAttrCase<"eq", 0>;
def Poot_CmpNe : I32EnumAttrCase<"ne", 1>;
def Poot_CmpLt : I32EnumAttrCase<"lt", 2>;
def Poot_CmpLe : I32EnumAttrCase<"le", 3>;
def Poot_CmpGt : I32EnumAttrCase<"gt", 4>;
def Poot_CmpGe : I32EnumAttrCase<"ge", 5>;
def Poot_ComparePredicateAttr : I32EnumAttr<"ComparePredicate",
    "comparison predicate",
    [Poot_CmpEq, Poot_CmpNe, Poot_CmpLt, Poot_CmpLe, Poot_CmpGt, Poot_CmpGe]> {
  let cppNamespace = "::poot";
}

//===----------------------------------------------------------------------===//
// Sources: constant, iota
//===----------------------------------------------------------------------===//

def Poot_ConstantOp : Poot_Op<"constant",
    [ConstantLike, Pure, TypeInfer, RangeInfer]> {
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Poot_IotaOp : Poot_Op<"iota", [Pure, RangeInfer]> {
  let summary = "each element is its index along one dimension";
  let arguments = (ins I64Attr:$dim);
  let results = (outs Poot_NumTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layout: convert, reshape, transpose, broadcast, slice, concat
//===----------------------------------------------------------------------===//

def Poot_ConvertOp : Poot_Op<"convert", [Pure, RangeInfer]> {
  let summary = "element type conversion";
  let description = [{
    float to float rounds to nearest even; float to integer truncates toward
    zero and saturates (NaN gives 0); anything to i1 is `x != 0`.
  }];
  let arguments = (ins Poot_Tensor:$x);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Poot_ReshapeOp : Poot_Op<"reshape", [Pure, RangeInfer]> {
  let summary = "row-major reshape to a shape of the same element count";
  let arguments = (ins Poot_Tensor:$x);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Poot_TransposeOp : Poot_Op<"transpose", [Pure, TypeInfer, RangeInfer]> {
  let summary = "permute dimensions: result dim i is operand dim perm[i]";
  let arguments = (ins Poot_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Poot_BroadcastOp : Poot_Op<"broadcast", [Pure, TypeInfer, RangeInfer]> {
  let summary = "numpy broadcast_to";
  let arguments = (ins Poot_Tensor:$x, DenseI64ArrayAttr:$shape);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Poot_SliceOp : Poot_Op<"slice", [Pure, TypeInfer, RangeInfer]> {
  let summary = "static strided slice x[start:limit:step]";
  let arguments = (ins Poot_Tensor:$x, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$step);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Poot_ConcatOp : Poot_Op<"concat", [Pure, TypeInfer, RangeInfer]> {
  let summary = "concatenate along one axis";
  let arguments = (ins Variadic<Poot_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing: dynamic_slice, dynamic_update_slice, gather, scatter_update
//===----------------------------------------------------------------------===//

def Poot_DynamicSliceOp : Poot_Op<"dynamic_slice",
    [Pure, TypeInfer, RangeInfer]> {
  let summary = "slice of static sizes at run-time starts (clamped)";
  let description = [{
    One 0-d integer start per dimension; each start is clamped into
    `[0, dim - size]` before the slice is taken.
  }];
  let arguments = (ins Poot_Tensor:$x, Variadic<Poot_IntScalar>:$starts,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat =
      "$x `[` $starts `]` attr-dict `:` type($x) `,` type($starts)";
}

def Poot_DynamicUpdateSliceOp : Poot_Op<"dynamic_update_slice",
    [Pure, TypeInfer, RangeInfer]> {
  let summary = "write a tensor into another at run-time starts (clamped)";
  let arguments = (ins Poot_Tensor:$x, Poot_Tensor:$update,
                       Variadic<Poot_IntScalar>:$starts);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x `[` $starts `]` `,` $update attr-dict `:` "
                       "type($x) `,` type($update) `,` type($starts)";
}

def Poot_GatherOp : Poot_Op<"gather", [Pure, TypeInfer, RangeInfer]> {
  let summary = "rows by index along an axis (numpy take)";
  let description = [{
    The result shape is `x.shape[:axis] + idx.shape + x.shape[axis+1:]`. An
    index outside the axis is a run-time error.
  }];
  let arguments = (ins Poot_Tensor:$x, Poot_IntTensor:$idx, I64Attr:$axis);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x `[` $idx `]` attr-dict `:` type($x) `,` type($idx)";
}

def Poot_ScatterUpdateOp : Poot_Op<"scatter_update",
    [Pure, TypeInfer, RangeInfer]> {
  let summary = "replace rows of x (axis 0) by index; -1 writes nothing";
  let arguments = (ins Poot_Tensor:$x, Poot_IntTensor:$idx,
                       Poot_Tensor:$updates);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$x `[` $idx `]` `,` $updates attr-dict `:` "
                       "type($x) `,` type($idx) `,` type($updates)";
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Poot_MatmulOp : Poot_Op<"matmul", [Pure, TypeInfer, RangeInfer]> {
  let summary = "batched matmul with numpy-broadcast batch dimensions";
  let description = [{
    `[..., M, K] x [..., K, N] -> [..., M, N]`; float sums accumulate in f32
    whatever the storage type.
  }];
  let arguments = (ins Poot_NumTensor:$lhs, Poot_NumTensor:$rhs);
  let results = (outs Poot_NumTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class Poot_BinaryOp<string mnemonic, string summ, TypeConstraint operandType>
    : Poot_Op<mnemonic, [Pure, TypeInfer, RangeInfer]> {
  let summary = summ;
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Poot_AddOp : Poot_BinaryOp<"add", "elementwise addition", Poot_NumTensor> {
  let hasFolder = 1;
}
def Poot_SubOp : Poot_BinaryOp<"sub", "elementwise subtraction", Poot_NumTensor>;
def Poot_MulOp : Poot_BinaryOp<"mul", "elementwise product", Poot_NumTensor> {
  let hasFolder = 1;
}
def Poot_DivOp : Poot_BinaryOp<"div", "elementwise quotient (integers truncate)",
                               Poot_NumTensor>;
def Poot_MaxOp : Poot_BinaryOp<"max", "elementwise maximum (NaN propagates)",
                               Poot_NumTensor> {
  let hasFolder = 1;
}
def Poot_MinOp : Poot_BinaryOp<"min", "elementwise minimum (NaN propagates)",
                               Poot_NumTensor> {
  let hasFolder = 1;
}
def Poot_PowOp : Poot_BinaryOp<"pow", "elementwise power", Poot_NumTensor>;
def Poot_AndOp : Poot_BinaryOp<"and", "logical and", Poot_BoolTensor>;
def Poot_OrOp : Poot_BinaryOp<"or", "logical or", Poot_BoolTensor>;

def Poot_CompareOp : Poot_Op<"compare", [Pure, TypeInfer, RangeInfer]> {
  let summary = "elementwise comparison to i1 (IEEE for floats)";
  let arguments = (ins Poot_ComparePredicateAttr:$predicate,
                       Poot_NumTensor:$lhs, Poot_NumTensor:$rhs);
  let results = (outs Poot_BoolTensor:$output);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` "
                       "type($lhs) `,` type($rhs)";
}

def Poot_SelectOp : Poot_Op<"select", [Pure, TypeInfer, RangeInfer]> {
  let summary = "elementwise cond ? a : b with numpy broadcasting";
  let arguments = (ins Poot_BoolTensor:$cond, Poot_Tensor:$on_true,
                       Poot_Tensor:$on_false);
  let results = (outs Poot_Tensor:$output);
  let assemblyFormat = "$cond `,` $on_true `,` $on_false attr-dict `:` "
                       "type($cond) `,` type($on_true) `,` type($on_false)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Poot_UnaryOp<string mnemonic, string summ, TypeConstraint operandType>
    : Poot_Op<mnemonic, [Pure, SameOperandsAndResultType, RangeInfer]> {
  let summary = summ;
  let arguments = (ins operandType:$x);
  let results = (outs operandType:$output);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Poot_NotOp : Poot_UnaryOp<"not", "logical not", Poot_BoolTensor>;
def Poot_ExpOp : Poot_UnaryOp<"exp", "elementwise e^x", Poot_FloatTensor>;
def Poot_LogOp : Poot_UnaryOp<"log", "elementwise natural log", Poot_FloatTensor>;
def Poot_TanhOp : Poot_UnaryOp<"tanh", "elementwise tanh", Poot_FloatTensor>;
def Poot_NegOp : Poot_UnaryOp<"neg", "elementwise negation", Poot_NumTensor>;
def Poot_SinOp : Poot_UnaryOp<"sin", "elementwise sine", Poot_FloatTensor>;
def Poot_CosOp : Poot_UnaryOp<"cos", "elementwise cosine", Poot_FloatTensor>;
def Poot_SqrtOp : Poot_UnaryOp<"sqrt", "elementwise square root", Poot_FloatTensor>;
def Poot_RsqrtOp : Poot_UnaryOp<"rsqrt", "elementwise 1/sqrt(x)", Poot_FloatTensor>;
def Poot_AbsOp : Poot_UnaryOp<"abs", "elementwise absolute value", Poot_NumTensor>;

//===----------------------------------------------------------------------===//
// Reductions and selection
//===----------------------------------------------------------------------===//

class Poot_ReduceOp<string mnemonic, string summ>
    : Poot_Op<mnemonic, [Pure, TypeInfer, RangeInfer]> {
  let summary = summ;
  let arguments = (ins Poot_NumTensor:$x, I64Attr:$axis, UnitAttr:$keepdim);
  let results = (outs Poot_NumTensor:$output);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Poot_ReduceSumOp : Poot_ReduceOp<"reduce_sum", "sum over one axis">;
def Poot_ReduceMaxOp : Poot_ReduceOp<"reduce_max", "maximum over one axis">;
def Poot_ReduceMinOp : Poot_ReduceOp<"reduce_min", "minimum over one axis">;

def Poot_TopKOp : Poot_Op<"topk", [Pure, TypeInfer, RangeInfer]> {
  let summary = "the k largest values along the last axis and their indices";
  let description = [{
    Sorted descending; ties go to the lower index; NaN ranks above all.
    Indices are i32.
  }];
  let arguments = (ins Poot_NumTensor:$x, I64Attr:$k);
  let results = (outs Poot_NumTensor:$values, Poot_IntTensor:$indices);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Poot_IndexGuardOp : Poot_Op<"index_guard", [Pure, TypeInfer, RangeInfer]> {
  let summary = "clamp an index into [lo, hi] and witness that it was inside";
  let description = [{
    `clamped` is `idx` clamped elementwise into the inclusive range
    `[lo, hi]`; `witness` is true iff no element needed clamping. When the
    witness is a `poot.validation` result of the graph, an out-of-range index
    fails the run instead of silently turning into a valid-looking one.
  }];
  let arguments = (ins Poot_IntTensor:$idx, I64Attr:$lo, I64Attr:$hi);
  let results = (outs Poot_IntTensor:$clamped, 0DTensorOf<[I1]>:$witness);
  let assemblyFormat = "$idx attr-dict `:` type($idx)";
}

include "poot/Dialect/PootFusedOps.td"
include "poot/Dialect/PootSparseOps.td"

#endif // POOT_OPS_TD
