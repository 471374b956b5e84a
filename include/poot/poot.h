/*===- poot.h - The C API of poot -----------------------------------------===*
 *
 * Compile a model graph into a plan, load and save plans, open a device,
 * bind inputs and state buffers by name, run, and read outputs.
 *
 * Errors: every call that can fail returns a poot_status; POOT_OK is 0.
 * Each such call first clears the calling thread's message; on failure it
 * sets it, so poot_last_error() describes the latest call made on the thread
 * ("" after a success). A message reads "<status name>: <text>", the name
 * being poot_status_name's ("malformed: plan line 4: ..."). The string is
 * valid until that thread's next poot call.
 *
 * Sizes: every tensor type a plan declares is checked when the plan is
 * loaded (no negative dim, no element count that overflows or passes 2^37;
 * POOT_ERR_MALFORMED or POOT_ERR_UNSUPPORTED), so byte counts never
 * overflow; running out of memory is POOT_ERR_UNSUPPORTED, never an abort.
 *
 * Ownership: objects returned through an out-pointer belong to the caller and
 * are released with their _free function. A session holds a reference to its
 * plan: poot_plan_free may come before poot_session_free (it only drops the
 * caller's reference), and the plan goes when its last holder is freed.
 * poot_bind_input copies the data;
 * poot_bind_state does not: the caller's buffer is the state, and a
 * successful poot_run overwrites it in place. A failed run writes no output
 * and leaves every state buffer as it was.
 *
 * Threads: a poot_plan is immutable once made and may be shared by any number
 * of threads and sessions. A poot_session must be used by one thread at a
 * time. The library keeps no global state besides the per-thread message.
 *
 * Buffers hold elements in their storage dtype, little-endian, row-major:
 * f32 as float, f64 as double, f16 and bf16 as their 16-bit patterns, i32
 * and i64 as integers, i1 as one byte (0 or 1).
 *
 *===----------------------------------------------------------------------===*/
#ifndef POOT_POOT_H
#define POOT_POOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum poot_status {
  POOT_OK = 0,
  POOT_ERR_INVALID_ARGUMENT = 1,
  POOT_ERR_UNKNOWN_NAME = 2,
  POOT_ERR_MISSING_INPUT = 3,
  POOT_ERR_DTYPE_MISMATCH = 4,
  POOT_ERR_SHAPE_MISMATCH = 5,
  POOT_ERR_RANGE_VIOLATION = 6,
  POOT_ERR_VALIDATION_FAILED = 7,
  POOT_ERR_INDEX_OUT_OF_RANGE = 8,
  POOT_ERR_UNSUPPORTED = 9,
  POOT_ERR_IO = 10,
  POOT_ERR_MALFORMED = 11,
  POOT_ERR_COMPILE = 12, /* the graph did not parse, verify or plan */
} poot_status;

typedef enum poot_dtype {
  POOT_F32 = 0,
  POOT_F16 = 1,
  POOT_BF16 = 2,
  POOT_F64 = 3,
  POOT_I32 = 4,
  POOT_I64 = 5,
  POOT_I1 = 6,
} poot_dtype;

typedef struct poot_plan poot_plan;
typedef struct poot_session poot_session;

/* The message of this thread's latest call when it failed, "" when it
 * succeeded: "<status name>: <text>". */
const char *poot_last_error(void);
/* A stable name for a status ("range-violation"). */
const char *poot_status_name(poot_status status);

/*--- Compiling (in libpoot, not in the runtime-only libpoot_runtime) ------*/

/* Do not fuse: the plan runs the graph's primitive eqns as written (the
 * reference an engine checks a fused plan against). */
#define POOT_COMPILE_NO_FUSION 1u
/* Plan against the facts read from this machine's device of the target's
 * kind (the first Vulkan device for "vulkan", the first CUDA device for
 * "cuda:sm_XY", which must be an sm_XY, the host for "cpu") instead of the
 * target's preset. Without such a device: POOT_ERR_UNSUPPORTED. */
#define POOT_COMPILE_DEVICE_FROM_HOST 2u

/* Compiles MLIR text of a poot graph for `target`: "cpu", "vulkan" (SPIR-V
 * kernels), "cuda:sm_80", "cuda:sm_89", "cuda:sm_90" (PTX), "rocm:gfx90a",
 * "rocm:gfx942", "rocm:gfx1100" (AMDGPU code objects; compiling them needs
 * ld.lld on the compiling machine). */
poot_status poot_compile(const char *mlir_text, size_t length,
                         const char *target, unsigned flags,
                         poot_plan **out_plan);

/*--- Plans ----------------------------------------------------------------*/

poot_status poot_plan_load(const char *path, poot_plan **out_plan);
poot_status poot_plan_save(const poot_plan *plan, const char *path);
/* Drops the caller's reference; sessions made from the plan keep it alive. */
void poot_plan_free(poot_plan *plan);

/* Inputs and outputs, by index: name, dtype, rank and dims (dims may be
 * NULL; at most max_rank are written). State inputs and outputs share a
 * name; validation outputs are i1. */
int poot_plan_num_inputs(const poot_plan *plan);
int poot_plan_num_outputs(const poot_plan *plan);
poot_status poot_plan_input(const poot_plan *plan, int index,
                            const char **name, poot_dtype *dtype, int *rank,
                            int64_t *dims, int max_rank, int *is_state);
poot_status poot_plan_output(const poot_plan *plan, int index,
                             const char **name, poot_dtype *dtype, int *rank,
                             int64_t *dims, int max_rank, int *is_state);

/*--- Sessions: a plan on a device, with its bindings ----------------------*/

/* `device`: "cpu" (the embedded default; each op in f32, storage rounding
 * emulated), "oracle" (the f64 reference evaluator), both for cpu plans;
 * "vulkan", "cuda" or "hip" for plans compiled for them (the fused attention runs
 * as the plan's kernels, every other eqn on the host). A machine without the
 * device gets POOT_ERR_UNSUPPORTED. */
poot_status poot_session_create(const poot_plan *plan, const char *device,
                                poot_session **out_session);
void poot_session_free(poot_session *session);

/* Copies `bytes` bytes of input `name` (checked against the plan's dtype
 * and shape; a declared range is checked at poot_run). */
poot_status poot_bind_input(poot_session *session, const char *name,
                            const void *data, size_t bytes);
/* Binds the input that declares slot `slot` ("pos", "len", "slot_map",
 * "write_map", "adapter"), as poot_bind_input does; refused when several
 * inputs declare it. */
poot_status poot_bind_slot(poot_session *session, const char *slot,
                           const void *data, size_t bytes);
/* Binds the caller's buffer as state `name`; it must outlive the runs. */
poot_status poot_bind_state(poot_session *session, const char *name,
                            void *data, size_t bytes);
/* Runs once. Every binding is checked first (slot ranges, dtypes, shapes);
 * a false validation witness fails the run. Nothing is published on any
 * failure. */
poot_status poot_run(poot_session *session);
/* Copies output `name` of the last successful run. */
poot_status poot_read_output(const poot_session *session, const char *name,
                             void *data, size_t bytes);

/*--- Serving: the paged KV driver (in libpoot_runtime) ----------------------*
 *
 * A pool of fixed-size KV blocks for a paged plan: per-sequence block
 * tables, shared blocks with reference counts and copy-on-write, a prefix
 * cache keyed by the tokens of full blocks and the weights identity, LRU
 * eviction of cached blocks no sequence holds, and the maps of each step.
 * It keeps no K/V itself: the engine binds the maps a step gives, copies the
 * blocks it names, runs, and commits. docs/runtime.md has the decode loop.
 *
 * A call that needs blocks the pool does not have returns POOT_OK with
 * `granted` 0 and changes nothing (the engine waits or preempts); errors
 * are for calls that can never succeed as made. A poot_kv_cache must be
 * used by one thread at a time. */

typedef struct poot_kv_cache poot_kv_cache;
/* Which weights computed K/V: the base model or one adapter, renewed by each
 * hot reload. Never 0. */
typedef uint64_t poot_weights_id;

/* A paged plan's static step: `rows` rows of `tokens` new tokens, each
 * reading up to `capacity` key positions of a pool of `slots` slots. */
typedef struct poot_kv_step_shape {
  int32_t rows;
  int32_t tokens;
  int32_t capacity;
  int64_t slots;
} poot_kv_step_shape;

/* One row of a step: sequence `seq` computes its next `tokens` tokens. */
typedef struct poot_kv_row {
  int64_t seq;
  int32_t tokens;
} poot_kv_row;

/* Copy the first `tokens` slots of block `src_block` into `dst_block` in
 * every K and V pool before the step runs (slot = block * block_size +
 * offset). */
typedef struct poot_kv_copy {
  int32_t src_block;
  int32_t dst_block;
  int32_t tokens;
} poot_kv_copy;

typedef struct poot_kv_admission {
  int granted;               /* 0: the pool is exhausted, nothing changed */
  int32_t cached_tokens;     /* leading prompt tokens found in the cache */
  int32_t blocks_needed;     /* fresh blocks the prompt takes */
  int32_t blocks_available;  /* free plus evictable blocks at the call */
} poot_kv_admission;

typedef struct poot_kv_stats {
  int32_t total_blocks, free_blocks, cached_blocks, used_blocks;
  int32_t shared_blocks, peak_used_blocks, sequences;
  int64_t prefix_blocks_reused, prefill_tokens_skipped;
  int64_t evictions, copies_on_write, refused_for_space;
} poot_kv_stats;

/* `block_size` 0 means 16; `max_sequence_tokens` 0 means the whole pool
 * (give the plan's: capacity - tokens + 1, see poot_kv_step_shape_of). */
poot_status poot_kv_create(int32_t num_blocks, int32_t block_size,
                           int32_t max_sequence_tokens, poot_kv_cache **out);
void poot_kv_free(poot_kv_cache *cache);

/* The current identity of adapter `adapter` (made on first use), or of the
 * base model when `adapter` is NULL or "". */
poot_status poot_kv_weights(poot_kv_cache *cache, const char *adapter,
                            poot_weights_id *out);
/* Hot reload: a new identity for `adapter` (NULL or "": the base model);
 * the old one's cached blocks are never reused, and its running sequences
 * are refused by poot_kv_prepare_step (finish and readmit them). */
poot_status poot_kv_reload(poot_kv_cache *cache, const char *adapter,
                           poot_weights_id *out);

/* Admits sequence `seq` with its prompt: shares the blocks of its longest
 * cached prefix and takes blocks for the rest of the prompt. */
poot_status poot_kv_admit(poot_kv_cache *cache, int64_t seq,
                          poot_weights_id weights, const int32_t *tokens,
                          size_t count, poot_kv_admission *out);
/* Appends sampled tokens; later steps compute them. */
poot_status poot_kv_append(poot_kv_cache *cache, int64_t seq,
                           const int32_t *tokens, size_t count);
/* `dst` shares every block of `src`; a shared block is copied when first
 * written. */
poot_status poot_kv_fork(poot_kv_cache *cache, int64_t src, int64_t dst);
poot_status poot_kv_finish(poot_kv_cache *cache, int64_t seq);
/* Tokens `seq` has computed so far (its next row starts there). */
poot_status poot_kv_computed(const poot_kv_cache *cache, int64_t seq,
                             int32_t *out);
/* The weights `seq` was admitted on: rows of several adapters share a step
 * when the plan has an "adapter" slot, bound per row from these. */
poot_status poot_kv_sequence_weights(const poot_kv_cache *cache, int64_t seq,
                                     poot_weights_id *out);

/* The step shape of a paged plan (its write_map, slot_map and pos slots). */
poot_status poot_kv_step_shape_of(const poot_plan *plan,
                                  poot_kv_step_shape *out);
/* Prepares one step of `shape` for `rows` (num_rows <= shape->rows) and
 * writes its maps: read_map [rows * capacity] (bind as "slot_map"),
 * write_map [rows * tokens] ("write_map"), pos [rows] ("pos") and, when not
 * NULL, len [rows] (each row's length after the step, for a "len" slot).
 * `copies` has room for `max_copies` entries, which must be at least
 * num_rows * ((shape->tokens - 1) / block_size + 2); *num_copies says how
 * many to perform before the run. With *granted 0 the pool is exhausted
 * and nothing changed. The maps are checked (poot_kv_check_write_map, and
 * every written slot its row's own) before they are returned. */
poot_status poot_kv_prepare_step(poot_kv_cache *cache,
                                 const poot_kv_step_shape *shape,
                                 const poot_kv_row *rows, int num_rows,
                                 int32_t *read_map, int32_t *write_map,
                                 int32_t *pos, int32_t *len,
                                 poot_kv_copy *copies, int max_copies,
                                 int *num_copies, int *granted);
/* After a successful run: commits the last prepared step (its tokens are
 * computed; blocks it filled enter the prefix cache). */
poot_status poot_kv_commit_step(poot_kv_cache *cache);

/* Refuses a write map naming a slot outside [0, slots)
 * (POOT_ERR_INDEX_OUT_OF_RANGE) or a slot twice (POOT_ERR_INVALID_ARGUMENT);
 * -1 drops a write. */
poot_status poot_kv_check_write_map(const int32_t *write_map, size_t count,
                                    int64_t slots);
/* Performs block copies on a pool in host memory: `data` holds `slots`
 * slots of bytes / slots bytes each. */
poot_status poot_kv_copy_blocks(const poot_kv_copy *copies, int num_copies,
                                int32_t block_size, int64_t slots, void *data,
                                size_t bytes);
poot_status poot_kv_get_stats(const poot_kv_cache *cache, poot_kv_stats *out);

/*--- K/V pools kept on the device ------------------------------------------*
 * A GPU session (vulkan, cuda, hip) can keep a state buffer on the device
 * from run to run instead of the caller's host buffer going up and coming
 * back every run: what a serving engine wants for its K/V pools. Runs then
 * execute the whole graph on the device (a graph with an op the device
 * cannot run fails with POOT_ERR_UNSUPPORTED, before anything runs), and
 * the host buffer bound with poot_bind_state, if any, is no longer read or
 * written. A cpu or oracle session answers POOT_ERR_UNSUPPORTED. */

/* Moves state `name` to the device: it starts as the buffer bound with
 * poot_bind_state, or as zeros. Calling it again does nothing. */
poot_status poot_state_keep_on_device(poot_session *session, const char *name);
/* Copies the device's state `name` to or from `data` (its storage bytes). */
poot_status poot_state_read(const poot_session *session, const char *name,
                            void *data, size_t bytes);
poot_status poot_state_write(poot_session *session, const char *name,
                             const void *data, size_t bytes);
/* Performs block copies (copy-on-write, from poot_kv_prepare_step) inside
 * the device's state `name`, a pool of `slots` slots, device to device.
 * Checked whole first: a refused list copies nothing. */
poot_status poot_state_copy_blocks(poot_session *session, const char *name,
                                   const poot_kv_copy *copies, int num_copies,
                                   int32_t block_size, int64_t slots);

#ifdef __cplusplus
}
#endif

#endif /* POOT_POOT_H */
