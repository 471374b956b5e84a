// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF CodeGenAttention._attn: q, k upcast to f32; w = q @ k^T;
// w = torch.where(causal_mask, w, finfo(f32).min) with causal_mask sliced
// from the bool tril buffer at [k - q : k, :k] (a chunk of 4 after 8 cached
// keys); w = w / self.scale_attn; w = w + attention_mask (the [B, 1, 1, Lk]
// padding input, (1 - m) * finfo.min); softmax(dim=-1); to(v.dtype); @ v.
// B = 2, H = 2, Lq = 4, Lk = 12, D = 64.

// CHECK-LABEL: func.func @codegen_mask_before_scale_padding
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: finite mask fill -4.25353e+37 with rows that may have no visible key
func.func @codegen_mask_before_scale_padding(%q: tensor<2x2x4x64xf32>, %k: tensor<2x2x12x64xf32>,
                                             %v: tensor<2x2x12x64xf32>, %am: tensor<2x1x1x12xf32>)
    -> tensor<2x2x4x64xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x12x12xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 8, 0>, limit = array<i64: 1, 1, 12, 12>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x12x12xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x12x64xf32>
  %w = poot.matmul %q, %kt : tensor<2x2x4x64xf32>, tensor<2x2x64x12xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %cm, %w, %mv : tensor<1x1x4x12xi1>, tensor<2x2x4x12xf32>, tensor<f32>
  %sc = poot.constant dense<8.0> : tensor<f32>
  %ws = poot.div %wm, %sc : tensor<2x2x4x12xf32>, tensor<f32>
  %wa = poot.add %ws, %am : tensor<2x2x4x12xf32>, tensor<2x1x1x12xf32>
  %m = poot.reduce_max %wa {axis = 3 : i64, keepdim} : tensor<2x2x4x12xf32>
  %d = poot.sub %wa, %m : tensor<2x2x4x12xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x12xf32>
  %p = poot.div %e, %z : tensor<2x2x4x12xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x12xf32>, tensor<2x2x12x64xf32>
  return %o : tensor<2x2x4x64xf32>
}
