// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// phi_masking_utils_upcast_bf16 with the mask built in f32:
// where(mask, 0, finfo(f32).min), cast to bf16 and back to f32 before the
// add. finfo(f32).min is no bf16 (it rounds to -inf), so poot-canonicalize
// keeps the convert; the mask reader takes the fill as it reaches the
// scores, rounded toward zero through each convert (-3.39e38, below
// -1e30), which hides keys whatever the rounding, and every row keeps a
// visible key (t <= pos + i): causal from pos.

// CHECK-LABEL: func.func @phi_masking_utils_f32_min_to_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 0.11180{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.111803, causal from pos{{$}}
func.func @phi_masking_utils_f32_min_to_bf16(%q: tensor<1x4x2x80xbf16>, %k: tensor<1x4x10x80xbf16>,
                                   %v: tensor<1x4x10x80xbf16>,
                                   %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x4x2x80xbf16> {
  %ci = poot.iota {dim = 0 : i64} : tensor<2xi64>
  %cp = poot.add %ci, %pos : tensor<2xi64>, tensor<i64>
  %cp4 = poot.reshape %cp : tensor<2xi64> -> tensor<1x1x2x1xi64>
  %kv = poot.iota {dim = 0 : i64} : tensor<10xi64>
  %kv4 = poot.reshape %kv : tensor<10xi64> -> tensor<1x1x1x10xi64>
  %vis = poot.compare le, %kv4, %cp4 : tensor<1x1x1x10xi64>, tensor<1x1x2x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask32 = poot.select %vis, %zero, %min : tensor<1x1x2x10xi1>, tensor<f32>, tensor<f32>
  %mask = poot.convert %mask32 : tensor<1x1x2x10xf32> -> tensor<1x1x2x10xbf16>
  %maskf = poot.convert %mask : tensor<1x1x2x10xbf16> -> tensor<1x1x2x10xf32>
  %q32 = poot.convert %q : tensor<1x4x2x80xbf16> -> tensor<1x4x2x80xf32>
  %k32 = poot.convert %k : tensor<1x4x10x80xbf16> -> tensor<1x4x10x80xf32>
  %kt = poot.transpose %k32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x10x80xf32>
  %s = poot.matmul %q32, %kt : tensor<1x4x2x80xf32>, tensor<1x4x80x10xf32>
  %c = poot.constant dense<8.94427204> : tensor<f32>
  %w = poot.div %s, %c : tensor<1x4x2x10xf32>, tensor<f32>
  %wm = poot.add %w, %maskf : tensor<1x4x2x10xf32>, tensor<1x1x2x10xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %d = poot.sub %wm, %m : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %p = poot.div %e, %z : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %pb = poot.convert %p : tensor<1x4x2x10xf32> -> tensor<1x4x2x10xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x2x10xbf16>, tensor<1x4x10x80xbf16>
  return %o : tensor<1x4x2x80xbf16>
}
