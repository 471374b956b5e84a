// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of OPT's clamp: torch.max(w, -60000) on f16 scores. -60000 is
// not the lowest f16 (-65504), so the clamp also moves finite scores in
// [-65504, -60000), which is no fill of hidden keys the matcher can prove;
// must decline and run unfused. B = 1, H = 2, L = 5, D = 64.

// CHECK-LABEL: func.func @nm_opt_clamp_above_type_lowest_f16
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.max' between the first matmul and the softmax
func.func @nm_opt_clamp_above_type_lowest_f16(%q: tensor<2x5x64xf16>, %k: tensor<2x5x64xf16>,
                                              %v: tensor<2x5x64xf16>) -> tensor<2x5x64xf16> {
  %c = poot.constant dense<0.125> : tensor<f16>
  %qs = poot.mul %q, %c : tensor<2x5x64xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x64xf16>
  %w = poot.matmul %qs, %kt : tensor<2x5x64xf16>, tensor<2x64x5xf16>
  %w4 = poot.reshape %w : tensor<2x5x5xf16> -> tensor<1x2x5x5xf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x5xi32>, tensor<1x1x5x1xi32>
  %min = poot.constant dense<-65504.0> : tensor<f16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %cm = poot.select %hid, %min, %zero : tensor<1x1x5x5xi1>, tensor<f16>, tensor<f16>
  %wm = poot.add %w4, %cm : tensor<1x2x5x5xf16>, tensor<1x1x5x5xf16>
  %lo = poot.constant dense<-60000.0> : tensor<f16>
  %cl = poot.max %wm, %lo : tensor<1x2x5x5xf16>, tensor<f16>
  %w3 = poot.reshape %cl : tensor<1x2x5x5xf16> -> tensor<2x5x5xf16>
  %wf = poot.convert %w3 : tensor<2x5x5xf16> -> tensor<2x5x5xf32>
  %m = poot.reduce_max %wf {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %d = poot.sub %wf, %m : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %ph = poot.convert %p : tensor<2x5x5xf32> -> tensor<2x5x5xf16>
  %o = poot.matmul %ph, %v : tensor<2x5x5xf16>, tensor<2x5x64xf16>
  return %o : tensor<2x5x64xf16>
}
