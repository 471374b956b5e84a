// RUN: poot-trace --model=llama3-8b --small --layers=1 --cache=paged --phase=prefill --chunked --seq=8 --lora=2 --lora-rank=4 | FileCheck %s
// RUN: poot-trace --model=llama3-8b --small --layers=1 --cache=paged --phase=prefill --chunked --seq=8 --lora=2 --lora-rank=4 -o %t.mlir && poot-compile %t.mlir --target=cpu --explain -o %t.plan 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: poot-trace --model=llama3-8b --small --layers=1 --cache=paged --phase=prefill --chunked --seq=8 -o %t.chunk.mlir && poot-run %t.chunk.mlir --check --steps=2 | FileCheck %s --check-prefix=ORACLE
// RUN: poot-trace --model=llama3-8b --small --layers=1 --cache=paged --phase=decode --tokens=2 --lora=3 --lora-rank=2 -o %t.lora.mlir && poot-run %t.lora.mlir --check --steps=2 | FileCheck %s --check-prefix=ORACLE
// RUN: not poot-trace --model=llama3-8b --small --phase=decode --cache=paged --chunked 2>&1 | FileCheck %s --check-prefix=ERR-CHUNK
// RUN: not poot-trace --model=llama3-8b --small --phase=prefill --chunked 2>&1 | FileCheck %s --check-prefix=ERR-CHUNK
// RUN: not poot-trace --model=deepseek-v2 --small --lora=2 2>&1 | FileCheck %s --check-prefix=ERR-MLA
// RUN: not poot-trace --model=llama3-8b --small --lora=2 --lora-rank=0 2>&1 | FileCheck %s --check-prefix=ERR-RANK

// What a serving driver runs: a chunk of a prompt continuing a cached
// prefix (its own pos per row and the read map, like a decode of 8 tokens),
// with the query and value projections adding the low-rank update of the
// adapter each row names (0: none). llama3-8b small: hidden 128, Hq=4,
// Hkv=2, D=32, capacity 64, batch 2, pool 128 slots.

// CHECK-LABEL: func.func @llama3_8b_prefill_paged_chunk(
// CHECK-SAME: tensor<2x8x128xf32> {poot.name = "x"}
// CHECK-SAME: tensor<2xi32> {poot.name = "pos", poot.range = array<i64: 0, 57>, poot.slot = "pos"}
// CHECK-SAME: tensor<16xi32> {poot.name = "write_map", poot.range = array<i64: -1, 128>, poot.slot = "write_map"}
// CHECK-SAME: tensor<2x64xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 128>, poot.slot = "slot_map"}
// CHECK-SAME: %[[AD:[^:]+]]: tensor<2xi32> {poot.name = "adapter", poot.range = array<i64: 0, 3>, poot.slot = "adapter"}
// CHECK-SAME: %[[WQA:[^:]+]]: tensor<2x128x4xf32> {poot.name = "l0.wq.lora_a"}
// CHECK-SAME: %[[WQB:[^:]+]]: tensor<2x4x128xf32> {poot.name = "l0.wq.lora_b"}
// CHECK-SAME: tensor<2x128x4xf32> {poot.name = "l0.wv.lora_a"}
// CHECK-SAME: tensor<2x4x64xf32> {poot.name = "l0.wv.lora_b"}

// Bank entry max(adapter - 1, 0), gated by min(adapter, 1).
// CHECK: %[[ENTRY:.+]] = poot.max %{{.+}}, %{{.+}} : tensor<2xi32>, tensor<2xi32>
// CHECK: poot.min %[[AD]], %{{.+}} : tensor<2xi32>, tensor<2xi32>
// CHECK: %[[A:.+]] = poot.gather %[[WQA]][%[[ENTRY]]] {axis = 0 : i64} : tensor<2x128x4xf32>, tensor<2xi32>
// CHECK: %[[B:.+]] = poot.gather %[[WQB]][%[[ENTRY]]] {axis = 0 : i64} : tensor<2x4x128xf32>, tensor<2xi32>
// CHECK: %[[XA:.+]] = poot.matmul %{{.+}}, %[[A]] : tensor<2x8x128xf32>, tensor<2x128x4xf32>
// CHECK: poot.matmul %[[XA]], %[[B]] : tensor<2x8x4xf32>, tensor<2x4x128xf32>
// The keys are read back through the read map after the write.
// CHECK: poot.scatter_update
// CHECK: poot.gather %{{.+}}[%{{.+}}] {axis = 0 : i64} : tensor<128x2x32xf32>, tensor<2x64xi32>

// FUSED: attention fused: paged attention, n_rep 2, scale 0.176777, causal from pos

// ORACLE: check passed against the oracle
// ORACLE-NOT: FAIL

// ERR-CHUNK: expected --chunked only with a paged prefill
// ERR-MLA: expected --lora on a family with plain query and value projections
// ERR-RANK: expected lora >= 0 and lora-rank > 0, got 2 and 0
