// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The causal mask of a Hugging Face model exported to ONNX (dynamo) over a
// fixed-capacity cache, chunk of 3 rows at pos: key positions and the
// chunk's query offsets are Range outputs, imported as constant aranges
// ([0..11] and [0, 1, 2]); query positions are offsets + past length
// (pos), unsqueezed, LessOrEqual against the keys, And-ed (after an And
// with true) with the padding mask the cache import computes from pos
// (slots before pos + 3, as a 0/1 integer cast back to bool), then
// Where(mask, 0, finfo.min) added onto the scores. The padding bound
// t < pos + 3 is implied by the causal one for every row, so the whole
// mask is causal from pos (finfo.min hides keys exactly: every row keeps
// key pos). GQA 8/2, D = 96, B = 2, Lk = 12.

// CHECK-LABEL: func.func @causal_onnx_range_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x3x96xf32>, %[[K:[^:]+]]: tensor<2x2x12x96xf32>, %[[V:[^:]+]]: tensor<2x2x12x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// out = softmax((q . k) * 96^-1/2, keys t <= pos + i) . v, no tensor mask
// CHECK-NOT: poot.{{select|compare}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_onnx_range_decode(%q: tensor<2x8x3x96xf32>, %k: tensor<2x2x12x96xf32>,
                                    %v: tensor<2x2x12x96xf32>,
                                    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<2x8x3x96xf32> {
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]]]> : tensor<1x1x1x12xi64>
  %offs = poot.constant dense<[0, 1, 2]> : tensor<3xi64>
  %past = poot.convert %pos : tensor<i32> -> tensor<i64>
  %qpos = poot.add %offs, %past : tensor<3xi64>, tensor<i64>
  %qp4 = poot.reshape %qpos : tensor<3xi64> -> tensor<1x1x3x1xi64>
  %le = poot.compare le, %keys, %qp4 : tensor<1x1x1x12xi64>, tensor<1x1x3x1xi64>
  %true = poot.constant dense<true> : tensor<i1>
  %causal = poot.and %true, %le : tensor<i1>, tensor<1x1x3x12xi1>
  %pb = poot.broadcast %past {shape = array<i64: 2, 12>} : tensor<i64>
  %three = poot.constant dense<3> : tensor<2x12xi64>
  %lim = poot.add %pb, %three : tensor<2x12xi64>, tensor<2x12xi64>
  %slot = poot.iota {dim = 1 : i64} : tensor<2x12xi64>
  %written = poot.compare lt, %slot, %lim : tensor<2x12xi64>, tensor<2x12xi64>
  %one = poot.constant dense<1> : tensor<2x12xi64>
  %zero = poot.constant dense<0> : tensor<2x12xi64>
  %am = poot.select %written, %one, %zero : tensor<2x12xi1>, tensor<2x12xi64>, tensor<2x12xi64>
  %amb = poot.convert %am : tensor<2x12xi64> -> tensor<2x12xi1>
  %am4 = poot.reshape %amb : tensor<2x12xi1> -> tensor<2x1x1x12xi1>
  %mask = poot.and %causal, %am4 : tensor<1x1x3x12xi1>, tensor<2x1x1x12xi1>
  %mexp = poot.broadcast %mask {shape = array<i64: 2, 1, 3, 12>} : tensor<2x1x3x12xi1>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %mexp, %f0, %fmin : tensor<2x1x3x12xi1>, tensor<f32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<2x2x12x96xf32> -> tensor<2x2x1x12x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 12, 96>} : tensor<2x2x1x12x96xf32>
  %kr = poot.reshape %kb : tensor<2x2x4x12x96xf32> -> tensor<2x8x12x96xf32>
  %v5 = poot.reshape %v : tensor<2x2x12x96xf32> -> tensor<2x2x1x12x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 12, 96>} : tensor<2x2x1x12x96xf32>
  %vr = poot.reshape %vb : tensor<2x2x4x12x96xf32> -> tensor<2x8x12x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x3x96xf32>, tensor<2x8x96x12xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x3x12xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<2x8x3x12xf32>, tensor<2x1x3x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x3x12xf32>
  %d = poot.sub %sm, %m : tensor<2x8x3x12xf32>, tensor<2x8x3x1xf32>
  %e = poot.exp %d : tensor<2x8x3x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x3x12xf32>
  %p = poot.div %e, %z : tensor<2x8x3x12xf32>, tensor<2x8x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x3x12xf32>, tensor<2x8x12x96xf32>
  return %o : tensor<2x8x3x96xf32>
}
