// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Chameleon (models/chameleon/modeling_chameleon.py,
// ChameleonAttention.forward with eager_attention_forward), bf16 prefill:
// the q/k norms run on a view with batch and sequence flattened into rows:
// query_states.reshape(-1, num_heads, head_dim), then ChameleonLayerNorm
// ((num_heads, head_dim)), which takes its statistics over the last dim
// only, F.layer_norm(x, (head_dim,), None, None, eps=1e-5) (computed in
// f32, returned in bf16), and applies each head's own gamma and beta
// (weight, bias [H, D]) by hand: x * weight + bias, in bf16; k likewise
// with [Hkv, D]; reshape(B, L, H, D).transpose(1, 2); rotate-half RoPE
// (cos, sin [B, L, D] unsqueezed at 1); the masking_utils eager causal mask
// (kv_idx <= q_idx, where(mask, 0, finfo(bf16).min), expanded to the
// batch); repeat_kv; matmul * D^-0.5 + mask; softmax(dtype=f32).to(bf16);
// @ v; transpose(1, 2). B = 2, L = 4, GQA 4/2, D = 16.

// CHECK-LABEL: func.func @hf_chameleon_flat_rows_layernorm_head_gamma_beta_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x4x16xbf16>, tensor<2x2x4x16xbf16>, tensor<2x2x4x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal{{$}}
func.func @hf_chameleon_flat_rows_layernorm_head_gamma_beta_gqa_bf16(
    %xq: tensor<2x4x64xbf16>, %xk: tensor<2x4x32xbf16>, %xv: tensor<2x4x32xbf16>,
    %qw: tensor<4x16xbf16>, %qb: tensor<4x16xbf16>, %kw: tensor<2x16xbf16>, %kb: tensor<2x16xbf16>,
    %cos0: tensor<2x4x16xbf16>, %sin0: tensor<2x4x16xbf16>) -> tensor<2x4x4x16xbf16> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  %n16 = poot.constant dense<16.0> : tensor<f32>
  %qr3 = poot.reshape %xq : tensor<2x4x64xbf16> -> tensor<8x4x16xbf16>
  %qf = poot.convert %qr3 : tensor<8x4x16xbf16> -> tensor<8x4x16xf32>
  %qsum = poot.reduce_sum %qf {axis = 2 : i64, keepdim} : tensor<8x4x16xf32>
  %qmean = poot.div %qsum, %n16 : tensor<8x4x1xf32>, tensor<f32>
  %qc = poot.sub %qf, %qmean : tensor<8x4x16xf32>, tensor<8x4x1xf32>
  %qc2 = poot.mul %qc, %qc : tensor<8x4x16xf32>, tensor<8x4x16xf32>
  %qvs = poot.reduce_sum %qc2 {axis = 2 : i64, keepdim} : tensor<8x4x16xf32>
  %qvar = poot.div %qvs, %n16 : tensor<8x4x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<8x4x1xf32>, tensor<f32>
  %qrs = poot.rsqrt %qve : tensor<8x4x1xf32>
  %qn = poot.mul %qc, %qrs : tensor<8x4x16xf32>, tensor<8x4x1xf32>
  %qnb = poot.convert %qn : tensor<8x4x16xf32> -> tensor<8x4x16xbf16>
  %qy = poot.mul %qnb, %qw : tensor<8x4x16xbf16>, tensor<4x16xbf16>
  %qln = poot.add %qy, %qb : tensor<8x4x16xbf16>, tensor<4x16xbf16>
  %kr3 = poot.reshape %xk : tensor<2x4x32xbf16> -> tensor<8x2x16xbf16>
  %kf = poot.convert %kr3 : tensor<8x2x16xbf16> -> tensor<8x2x16xf32>
  %ksum = poot.reduce_sum %kf {axis = 2 : i64, keepdim} : tensor<8x2x16xf32>
  %kmean = poot.div %ksum, %n16 : tensor<8x2x1xf32>, tensor<f32>
  %kc = poot.sub %kf, %kmean : tensor<8x2x16xf32>, tensor<8x2x1xf32>
  %kc2 = poot.mul %kc, %kc : tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %kvs = poot.reduce_sum %kc2 {axis = 2 : i64, keepdim} : tensor<8x2x16xf32>
  %kvar = poot.div %kvs, %n16 : tensor<8x2x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<8x2x1xf32>, tensor<f32>
  %krs = poot.rsqrt %kve : tensor<8x2x1xf32>
  %kn = poot.mul %kc, %krs : tensor<8x2x16xf32>, tensor<8x2x1xf32>
  %knb = poot.convert %kn : tensor<8x2x16xf32> -> tensor<8x2x16xbf16>
  %ky = poot.mul %knb, %kw : tensor<8x2x16xbf16>, tensor<2x16xbf16>
  %kln = poot.add %ky, %kb : tensor<8x2x16xbf16>, tensor<2x16xbf16>
  %q4 = poot.reshape %qln : tensor<8x4x16xbf16> -> tensor<2x4x4x16xbf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  %k4 = poot.reshape %kln : tensor<8x2x16xbf16> -> tensor<2x4x2x16xbf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<2x4x32xbf16> -> tensor<2x4x2x16xbf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x16xbf16>
  %cos = poot.reshape %cos0 : tensor<2x4x16xbf16> -> tensor<2x1x4x16xbf16>
  %sin = poot.reshape %sin0 : tensor<2x4x16xbf16> -> tensor<2x1x4x16xbf16>
  %qx1 = poot.slice %qh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x16xbf16>
  %qx2 = poot.slice %qh {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 4, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x16xbf16>
  %qn2 = poot.neg %qx2 : tensor<2x4x4x8xbf16>
  %qrh = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<2x4x4x8xbf16>, tensor<2x4x4x8xbf16>
  %qa = poot.mul %qh, %cos : tensor<2x4x4x16xbf16>, tensor<2x1x4x16xbf16>
  %qbb = poot.mul %qrh, %sin : tensor<2x4x4x16xbf16>, tensor<2x1x4x16xbf16>
  %qe = poot.add %qa, %qbb : tensor<2x4x4x16xbf16>, tensor<2x4x4x16xbf16>
  %kx1 = poot.slice %kh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x4x16xbf16>
  %kx2 = poot.slice %kh {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x4x16xbf16>
  %kn2 = poot.neg %kx2 : tensor<2x2x4x8xbf16>
  %krh = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>
  %ka = poot.mul %kh, %cos : tensor<2x2x4x16xbf16>, tensor<2x1x4x16xbf16>
  %kbb = poot.mul %krh, %sin : tensor<2x2x4x16xbf16>, tensor<2x1x4x16xbf16>
  %ke = poot.add %ka, %kbb : tensor<2x2x4x16xbf16>, tensor<2x2x4x16xbf16>
  // masking_utils eager mask
  %qi = poot.iota {dim = 2 : i64} : tensor<2x1x4x4xi64>
  %ki = poot.iota {dim = 3 : i64} : tensor<2x1x4x4xi64>
  %vis = poot.compare le, %ki, %qi : tensor<2x1x4x4xi64>, tensor<2x1x4x4xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %min : tensor<2x1x4x4xi1>, tensor<bf16>, tensor<bf16>
  // repeat_kv
  %kx = poot.reshape %ke : tensor<2x2x4x16xbf16> -> tensor<2x2x1x4x16xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 2, 2, 2, 4, 16>} : tensor<2x2x1x4x16xbf16>
  %krep = poot.reshape %kxb : tensor<2x2x2x4x16xbf16> -> tensor<2x4x4x16xbf16>
  %vx = poot.reshape %vh : tensor<2x2x4x16xbf16> -> tensor<2x2x1x4x16xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 2, 2, 2, 4, 16>} : tensor<2x2x1x4x16xbf16>
  %vrep = poot.reshape %vxb : tensor<2x2x2x4x16xbf16> -> tensor<2x4x4x16xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x4x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<2x4x4x16xbf16>, tensor<2x4x16x4xbf16>
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<2x4x4x4xbf16>, tensor<bf16>
  %sm = poot.add %s, %mask : tensor<2x4x4x4xbf16>, tensor<2x1x4x4xbf16>
  %x = poot.convert %sm : tensor<2x4x4x4xbf16> -> tensor<2x4x4x4xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x4x4xf32>
  %d = poot.sub %x, %mx : tensor<2x4x4x4xf32>, tensor<2x4x4x1xf32>
  %e = poot.exp %d : tensor<2x4x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x4x4xf32>
  %p = poot.div %e, %z : tensor<2x4x4x4xf32>, tensor<2x4x4x1xf32>
  %pb = poot.convert %p : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xbf16>
  %o = poot.matmul %pb, %vrep : tensor<2x4x4x4xbf16>, tensor<2x4x4x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  return %ot : tensor<2x4x4x16xbf16>
}
