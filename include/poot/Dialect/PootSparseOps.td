//===- PootSparseOps.td - Block-selected sparse attention ---*- tablegen -*-===//
//
// poot.block_topk and poot.selected_attention, formed by poot-block-select
// (being written).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_SPARSE_OPS_TD
#define POOT_SPARSE_OPS_TD

#endif // POOT_SPARSE_OPS_TD
