// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 --poot-generate=target=nvvm | FileCheck %s
// RUN: not poot-opt %s --split-input-file --poot-generate=target=spirv 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: poot-opt %s --split-input-file --poot-plan="device=sm_90 warps=16 no-fused-combine" --poot-generate=target=nvvm | FileCheck %s --check-prefix=PAIR

// Asked for 16 subgroups, 8 heads fold pairwise first: subgroups 8..15
// leave their states in the 8 slots, a barrier, subgroups 0..7 merge them
// in registers (an scf.if yielding the pair's state), a barrier, write,
// a barrier, then the fold over 8 slots. Without the fused combine, a
// combine kernel folds the splits.
// PAIR-LABEL: func.func @decode70b
// PAIR: pair_fold = true
// PAIR: gpu.func @attention_0_partial({{.*}}workgroup(%{{.*}} : memref<8320xf32, #gpu.address_space<workgroup>>
// PAIR: scf.for
// PAIR: scf.yield
// PAIR: arith.cmpi uge
// PAIR: gpu.barrier
// PAIR: scf.if %{{.*}} -> (f32
// PAIR: gpu.barrier
// PAIR: gpu.barrier
// PAIR: gpu.func @attention_0_combine

// Llama-3-70B-shaped decode in bf16 on sm_90: the matrix-tile schedule.
// q loaded once; per 16-key tile, the lane's 2 key rows and 4 value rows
// in 16-byte vectors (8 + 8 loads), 8 products for the scores (dk / 16) and 8 for the weighted values
// (dv / 16), the tile max across the quad rows with 3 xor shuffles, and the
// weights handed to the lanes that need them with 4 indexed shuffles.
// CHECK-LABEL: func.func @decode70b
// CHECK: poot.launches = [{args = ["q", "k", "v", "pos", "out", "scratch", "counters"], grid = array<i64: 64, 1>, kernel = "attention_0_partial"
// CHECK-SAME: poot.schedule = #poot.attention_schedule<{{.*}}matrix = true
// CHECK: gpu.func @attention_0_partial
// CHECK-COUNT-4: vector.load %{{.*}} : memref<1x64x1x128xbf16, #gpu.address_space<global>>, vector<8xbf16>
// CHECK: scf.for
// CHECK-COUNT-16: vector.load %{{.*}} : memref<1x8x1024x128xbf16, #gpu.address_space<global>>, vector<8xbf16>
// CHECK-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: gpu.shuffle  idx
// CHECK-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: mma.sync
// CHECK: scf.yield
// The subgroups' states fold in workgroup memory into the chunk's partial;
// then thread 0 publishes it (a device-scope fence) and takes a ticket on
// the row's counter, and the workgroup with the last ticket fences again
// and folds the row's 8 splits: one launch, no combine kernel.
// CHECK: gpu.barrier
// CHECK: fence.acq_rel.gpu
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}} : (i32, memref<8xi32, #gpu.address_space<global>>) -> i32
// CHECK: fence.acq_rel.gpu
// CHECK-NOT: gpu.func @attention_0_combine
// CHECK: func.func @refused(
func.func @decode70b(%q: tensor<1x64x1x128xbf16>, %k: tensor<1x8x1024x128xbf16>, %v: tensor<1x8x1024x128xbf16>, %pos: tensor<i32>) -> tensor<1x64x1x128xbf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<1x64x1x128xbf16>, tensor<1x8x1024x128xbf16>, tensor<1x8x1024x128xbf16> -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}

// -----

// A matrix-tile schedule handed to a target without the tile is refused by
// the generator, naming the type and the target.
// REFUSE: error: expected a target with a subgroup matrix tile for 'f16', target spirv has none
func.func @refused(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 4 : i64, poot.schedule = #poot.attention_schedule<grouped = true, group = 4, lanes = 256, subgroup = 32, vector = 8, value_vector = 4, matrix = true, chunk = 64, grid_x = 2>} : tensor<1x8x1x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}
