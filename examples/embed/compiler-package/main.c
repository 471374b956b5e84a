/* An engine built against the installed compiler package: compiles a graph
 * through the C API for the cpu device, planned against this host's facts,
 * and unfused as the reference; runs both once on the same seeded inputs
 * (integer slots at 0, inside every example's declared range) and checks
 * every f32 output of the fused plan against the oracle.  Built and run by
 * scripts/test.sh.
 *
 *   compiler-consumer MODEL.mlir */
#include "poot/poot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, poot_last_error());
  exit(1);
}

static size_t dtypeBytes(poot_dtype dtype) {
  switch (dtype) {
  case POOT_F64:
  case POOT_I64:
    return 8;
  case POOT_F16:
  case POOT_BF16:
    return 2;
  case POOT_I1:
    return 1;
  default:
    return 4;
  }
}

static size_t elements(int rank, const int64_t *dims) {
  size_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= (size_t)dims[d];
  return count;
}

/* A state buffer the engine owns, one copy per session. */
typedef struct {
  const char *name;
  poot_dtype dtype;
  size_t count;
  void *fused, *reference;
} StatePair;

/* The f32 tolerance of docs/numerics.md: 1e-6 + 2e-5 * max|want|. */
static int check(const char *name, const float *got, const float *want,
                 size_t count) {
  double err = 0, scale = 0;
  for (size_t e = 0; e < count; ++e) {
    scale = fmax(scale, fabs(want[e]));
    err = fmax(err, fabs((double)got[e] - want[e]));
  }
  int ok = err <= 1e-6 + 2e-5 * scale;
  printf("%s %s: max error %.3g (scale %.3g)\n", ok ? "ok  " : "FAIL", name,
         err, scale);
  return ok;
}

/* Binds every input of `plan` in both sessions: f32 values from a fixed
 * generator, everything else zero. State buffers are the engine's, one per
 * session, with the same contents; they are updated in place. */
static void bindAll(const poot_plan *plan, poot_session *fused,
                    poot_session *reference, StatePair *states,
                    int *numStates) {
  unsigned state = 12345u;
  int n = poot_plan_num_inputs(plan);
  for (int i = 0; i < n; ++i) {
    const char *name;
    poot_dtype dtype;
    int rank, isState;
    int64_t dims[8];
    if (poot_plan_input(plan, i, &name, &dtype, &rank, dims, 8, &isState) !=
        POOT_OK)
      die("poot_plan_input");
    size_t count = elements(rank, dims), bytes = count * dtypeBytes(dtype);
    void *data = calloc(1, bytes ? bytes : 1);
    if (dtype == POOT_F32)
      for (size_t e = 0; e < count; ++e) {
        state = state * 1664525u + 1013904223u;
        ((float *)data)[e] = (float)(state >> 8) / 16777216.0f - 0.5f;
      }
    if (isState) {
      void *copy = malloc(bytes ? bytes : 1);
      memcpy(copy, data, bytes);
      if (poot_bind_state(fused, name, data, bytes) != POOT_OK ||
          poot_bind_state(reference, name, copy, bytes) != POOT_OK)
        die(name);
      StatePair pair = {name, dtype, count, data, copy};
      states[(*numStates)++] = pair;
    } else {
      if (poot_bind_input(fused, name, data, bytes) != POOT_OK ||
          poot_bind_input(reference, name, data, bytes) != POOT_OK)
        die(name);
      free(data);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.mlir\n", argv[0]);
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file) {
    fprintf(stderr, "error: cannot open %s\n", argv[1]);
    return 1;
  }
  fseek(file, 0, SEEK_END);
  size_t length = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(length + 1);
  if (fread(text, 1, length, file) != length) {
    fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(file);

  poot_plan *fusedPlan, *referencePlan;
  if (poot_compile(text, length, "cpu", POOT_COMPILE_DEVICE_FROM_HOST,
                   &fusedPlan) != POOT_OK)
    die("poot_compile");
  if (poot_compile(text, length, "cpu", POOT_COMPILE_NO_FUSION,
                   &referencePlan) != POOT_OK)
    die("poot_compile (unfused)");
  free(text);

  poot_session *fused, *reference;
  if (poot_session_create(fusedPlan, "cpu", &fused) != POOT_OK ||
      poot_session_create(referencePlan, "oracle", &reference) != POOT_OK)
    die("poot_session_create");
  int numInputs = poot_plan_num_inputs(fusedPlan), numStates = 0;
  StatePair *states = calloc((size_t)numInputs + 1, sizeof(StatePair));
  bindAll(fusedPlan, fused, reference, states, &numStates);
  if (poot_run(fused) != POOT_OK)
    die("poot_run (fused)");
  if (poot_run(reference) != POOT_OK)
    die("poot_run (oracle)");

  int checked = 0, failed = 0;
  for (int i = 0; i < poot_plan_num_outputs(fusedPlan); ++i) {
    const char *name;
    poot_dtype dtype;
    int rank, isState;
    int64_t dims[8];
    poot_plan_output(fusedPlan, i, &name, &dtype, &rank, dims, 8, &isState);
    if (dtype != POOT_F32 || isState)
      continue;
    size_t count = elements(rank, dims);
    float *got = malloc(count * 4 + 4), *want = malloc(count * 4 + 4);
    if (poot_read_output(fused, name, got, count * 4) != POOT_OK ||
        poot_read_output(reference, name, want, count * 4) != POOT_OK)
      die(name);
    failed += !check(name, got, want, count);
    ++checked;
    free(got);
    free(want);
  }
  for (int i = 0; i < numStates; ++i) {
    if (states[i].dtype != POOT_F32)
      continue;
    failed += !check(states[i].name, states[i].fused, states[i].reference,
                     states[i].count);
    ++checked;
  }
  poot_session_free(fused);
  poot_session_free(reference);
  poot_plan_free(fusedPlan);
  poot_plan_free(referencePlan);
  for (int i = 0; i < numStates; ++i) {
    free(states[i].fused);
    free(states[i].reference);
  }
  free(states);
  if (checked == 0 || failed) {
    fprintf(stderr, "error: %s\n",
            checked ? "outputs past the tolerance" : "no f32 output to check");
    return 1;
  }
  printf("compiled through the installed package and checked %d outputs "
         "against the oracle\n",
         checked);
  return 0;
}
