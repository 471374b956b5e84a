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
 * "write_map"), as poot_bind_input does; refused when several inputs
 * declare it. */
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

#ifdef __cplusplus
}
#endif

#endif /* POOT_POOT_H */
