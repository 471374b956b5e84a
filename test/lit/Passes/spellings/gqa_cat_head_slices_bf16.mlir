// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// repeat_kv written out head by head, interleaved:
// torch.cat([k[:, 0:1], k[:, 0:1], k[:, 1:2], k[:, 1:2]], dim=1), in bf16:
// a concat of unit slices of one tensor, read as the head map
// [0, 0, 1, 1] and so as n_rep 2. Prefill, causal from iotas; GQA 4/2,
// D = 96, B = 1, L = 6.

// CHECK-LABEL: func.func @gqa_cat_head_slices_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x6x96xbf16>, %[[K:[^:]+]]: tensor<1x2x6x96xbf16>, %[[V:[^:]+]]: tensor<1x2x6x96xbf16>
// CHECK-NOT: poot.{{concat|slice|gather}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 2 : i64, scale = 0.102{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @gqa_cat_head_slices_bf16(%q: tensor<1x4x6x96xbf16>, %k: tensor<1x2x6x96xbf16>,
                                    %v: tensor<1x2x6x96xbf16>) -> tensor<1x4x6x96xbf16> {
  %k0 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x96xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 1, 0, 0>, limit = array<i64: 1, 2, 6, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x96xbf16>
  %kr = poot.concat %k0, %k0, %k1, %k1 {axis = 1 : i64} : tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>
  %v0 = poot.slice %v {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x96xbf16>
  %v1 = poot.slice %v {start = array<i64: 0, 1, 0, 0>, limit = array<i64: 1, 2, 6, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x96xbf16>
  %vr = poot.concat %v0, %v0, %v1, %v1 {axis = 1 : i64} : tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>, tensor<1x1x6x96xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x96xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x6x96xbf16>, tensor<1x4x96x6xbf16>
  %c = poot.constant dense<0.102062072> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x6x6xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x6x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi32>
  %vis = poot.compare le, %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x6x6xi1>, tensor<1x4x6x6xbf16>, tensor<bf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xbf16>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xbf16>, tensor<1x4x6x1xbf16>
  %e = poot.exp %d : tensor<1x4x6x6xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xbf16>
  %p = poot.div %e, %z : tensor<1x4x6x6xbf16>, tensor<1x4x6x1xbf16>
  %o = poot.matmul %p, %vr : tensor<1x4x6x6xbf16>, tensor<1x4x6x96xbf16>
  return %o : tensor<1x4x6x96xbf16>
}
