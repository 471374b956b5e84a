// RUN: poot-trace --model=llama3-8b --small --layers=1 | FileCheck %s
// RUN: poot-trace --model=llama3-8b --small --layers=1 --cache=paged | FileCheck %s --check-prefix=PAGED
// RUN: poot-trace --model=llama3-8b --small --layers=1 --live | FileCheck %s --check-prefix=LIVE
// RUN: poot-trace --model=gemma2 --small --layers=2 | FileCheck %s --check-prefix=GEMMA
// RUN: poot-trace --model=deepseek-v2 --small --layers=1 --phase=prefill | FileCheck %s --check-prefix=MLA
// RUN: poot-trace --model=llama3-8b --small --layers=1 --dtype=f16 | FileCheck %s --check-prefix=F16
// RUN: not poot-trace --model=llama3-8b --heads=30 2>&1 | FileCheck %s --check-prefix=ERR

// Whole attention blocks: pre-norm, q/k/v projections, heads, RoPE, cache
// write, attention, output projection, residual (llama3-8b small: hidden 128,
// Hq=4, Hkv=2, D=32, capacity 64, batch 2).

// CHECK-LABEL: func.func @llama3_8b_decode_fixed(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x1x128xf32> {poot.name = "x"}
// CHECK-SAME: %[[POS:[^:]+]]: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}
// CHECK-SAME: {poot.name = "l0.attn_norm"}
// CHECK-SAME: %[[WQ:[^:]+]]: tensor<128x128xf32> {poot.name = "l0.wq"}
// CHECK-SAME: %[[WK:[^:]+]]: tensor<128x64xf32> {poot.name = "l0.wk"}
// CHECK-SAME: %[[WV:[^:]+]]: tensor<128x64xf32> {poot.name = "l0.wv"}
// CHECK-SAME: %[[KC:[^:]+]]: tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}
// CHECK-SAME: %[[VC:[^:]+]]: tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}
// CHECK-SAME: %[[WO:[^:]+]]: tensor<128x128xf32> {poot.name = "l0.wo"}
// CHECK-SAME: -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"})

// q = heads(norm(x) . wq), k = heads(norm(x) . wk)
// CHECK: %[[H:.+]] = poot.mul %{{.+}}, %{{.+}} : tensor<2x1x128xf32>, tensor<128xf32>
// CHECK: %[[QP:.+]] = poot.matmul %[[H]], %[[WQ]]
// CHECK: %[[Q4:.+]] = poot.reshape %[[QP]] : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
// CHECK: %[[Q:.+]] = poot.transpose %[[Q4]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: poot.matmul %[[H]], %[[WK]]
// CHECK: poot.matmul %[[H]], %[[WV]]

// q, k = rope(q), rope(k); then the cache writes at pos
// CHECK: poot.neg
// CHECK: %[[QR:.+]] = poot.add %{{.+}}, %{{.+}} : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
// CHECK: %[[KR:.+]] = poot.add %{{.+}}, %{{.+}} : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
// CHECK: %[[KW:.+]] = poot.dynamic_update_slice %[[KC]][%{{.+}}, %{{.+}}, %[[POS]], %{{.+}}], %[[KR]]
// CHECK: %[[VW:.+]] = poot.dynamic_update_slice %[[VC]]

// attention; out = merge(o) . wo; y = x + out
// CHECK: %[[MASK:.+]] = poot.broadcast %{{.+}} {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
// CHECK: poot.matmul %[[QR]], %{{.+}} : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
// CHECK: poot.add %{{.+}}, %[[MASK]]
// CHECK: %[[O:.+]] = poot.matmul %{{.+}}, %{{.+}} : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
// CHECK: %[[OT:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[OM:.+]] = poot.reshape %[[OT]] : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
// CHECK: %[[A:.+]] = poot.matmul %[[OM]], %[[WO]]
// CHECK: %[[Y:.+]] = poot.add %[[X]], %[[A]]
// CHECK: return %[[Y]], %[[KW]], %[[VW]]

// Paged decode: pos per row, the two maps, one pool per cache.
// PAGED-LABEL: func.func @llama3_8b_decode_paged(
// PAGED-SAME: tensor<2xi32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}
// PAGED-SAME: %[[WM:[^:]+]]: tensor<2xi32> {poot.name = "write_map", poot.range = array<i64: -1, 128>, poot.slot = "write_map"}
// PAGED-SAME: %[[RM:[^:]+]]: tensor<2x64xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 128>, poot.slot = "slot_map"}
// PAGED-SAME: %[[KP:[^:]+]]: tensor<128x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}
// PAGED: %[[KW:.+]] = poot.scatter_update %[[KP]][%[[WM]]]
// PAGED: %[[KG:.+]] = poot.gather %[[KW]][%[[RM]]] {axis = 0 : i64}
// PAGED: poot.transpose %[[KG]] {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x2x32xf32>

// Live decode: len = pos + 1 per row, guarded, its witness a validation output.
// LIVE-LABEL: func.func @llama3_8b_decode_fixed_live(
// LIVE-SAME: tensor<i1> {poot.name = "l0.len_ok", poot.validation}
// LIVE: %[[END:.+]] = poot.add %[[POS:[^,]+]], %{{.+}} : tensor<i32>, tensor<i32>
// LIVE: %[[LEN:.+]] = poot.broadcast %[[END]] {shape = array<i64: 2>} : tensor<i32>
// LIVE: %{{.+}}, %[[OK:.+]] = poot.index_guard %[[LEN]] {hi = 64 : i64, lo = 1 : i64}
// LIVE: return {{.+}}, %[[OK]]

// gemma2: layer 0 has the 8-key window, layer 1 is global; both soft-capped.
// GEMMA-LABEL: func.func @gemma2_decode_fixed(
// GEMMA: poot.dynamic_update_slice
// GEMMA: poot.or
// GEMMA: poot.tanh
// GEMMA: poot.dynamic_update_slice
// GEMMA-NOT: poot.or
// GEMMA: poot.tanh

// deepseek-v2 prefill: the latent and the shared rotary key are cached; keys
// are re-expanded from the latent and split (128+64 at real size, 32+16 here).
// MLA-LABEL: func.func @deepseek_v2_prefill_fixed(
// MLA-SAME: tensor<2x1x64x64xf32> {poot.name = "l0.latent_cache", poot.state = "l0.latent_cache"}
// MLA-SAME: tensor<2x1x64x16xf32> {poot.name = "l0.rope_cache", poot.state = "l0.rope_cache"}
// MLA: %[[PE:.+]] = poot.broadcast %{{.+}} {shape = array<i64: 2, 4, 16, 16>} : tensor<2x1x16x16xf32>
// MLA: %[[KEY:.+]] = poot.concat %{{.+}}, %[[PE]] {axis = 3 : i64} : tensor<2x4x16x32xf32>, tensor<2x4x16x16xf32>
// MLA: poot.transpose %[[KEY]] {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x48xf32>

// f16: scores in f16, softmax in f32.
// F16: %[[S:.+]] = poot.add %{{.+}}, %{{.+}} : tensor<2x4x1x64xf16>, tensor<2x1x1x64xf16>
// F16: poot.convert %[[S]] : tensor<2x4x1x64xf16> -> tensor<2x4x1x64xf32>
// F16: poot.convert %{{.+}} : tensor<2x4x1x64xf32> -> tensor<2x4x1x64xf16>

// ERR: poot-trace: expected heads divisible by kv-heads, got 30 and 8
