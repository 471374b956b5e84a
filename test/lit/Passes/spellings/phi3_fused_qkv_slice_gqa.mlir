// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF Phi3Attention eager: qkv = self.qkv_proj(x) [B, L, (H + 2 Hkv) D];
// query_states = qkv[..., :query_pos]; key_states = qkv[..., query_pos :
// query_pos + Hkv D]; value_states = qkv[..., query_pos + Hkv D :]; each
// .view(B, L, -1, D).transpose(1, 2); repeat_kv; w = q @ k^T * D^-0.5 +
// causal_mask (where(kv_idx <= q_idx, 0, finfo.min) on cache_position =
// arange(L)); softmax(dim=-1, f32); @ v; transpose(1, 2).reshape(B, L, H D).
// GQA 4/2, B = 1, L = 5, D = 48.

// CHECK-LABEL: func.func @phi3_fused_qkv_slice_gqa
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 0.14433{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.144338, causal
func.func @phi3_fused_qkv_slice_gqa(%qkv: tensor<1x5x384xf32>) -> tensor<1x5x192xf32> {
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 5, 192>, step = array<i64: 1, 1, 1>} : tensor<1x5x384xf32>
  %ks = poot.slice %qkv {start = array<i64: 0, 0, 192>, limit = array<i64: 1, 5, 288>, step = array<i64: 1, 1, 1>} : tensor<1x5x384xf32>
  %vs = poot.slice %qkv {start = array<i64: 0, 0, 288>, limit = array<i64: 1, 5, 384>, step = array<i64: 1, 1, 1>} : tensor<1x5x384xf32>
  %q4 = poot.reshape %qs : tensor<1x5x192xf32> -> tensor<1x5x4x48xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x48xf32>
  %k4 = poot.reshape %ks : tensor<1x5x96xf32> -> tensor<1x5x2x48xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x48xf32>
  %v4 = poot.reshape %vs : tensor<1x5x96xf32> -> tensor<1x5x2x48xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x48xf32>
  %k5 = poot.reshape %k : tensor<1x2x5x48xf32> -> tensor<1x2x1x5x48xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 5, 48>} : tensor<1x2x1x5x48xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x5x48xf32> -> tensor<1x4x5x48xf32>
  %v5 = poot.reshape %v : tensor<1x2x5x48xf32> -> tensor<1x2x1x5x48xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 5, 48>} : tensor<1x2x1x5x48xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x5x48xf32> -> tensor<1x4x5x48xf32>
  %cp = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %cpr = poot.reshape %cp : tensor<5xi64> -> tensor<1x1x5x1xi64>
  %kv = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi64>
  %vis = poot.compare le, %kv, %cpr : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %cm = poot.select %vis, %zero, %min : tensor<1x1x5x5xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x48xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x48xf32>, tensor<1x4x48x5xf32>
  %c = poot.constant dense<0.144337565> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %sm = poot.add %ss, %cm : tensor<1x4x5x5xf32>, tensor<1x1x5x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x5x5xf32>, tensor<1x4x5x48xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x48xf32>
  %o3 = poot.reshape %ot : tensor<1x5x4x48xf32> -> tensor<1x5x192xf32>
  return %o3 : tensor<1x5x192xf32>
}
