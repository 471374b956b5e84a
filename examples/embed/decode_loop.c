/*===- decode_loop.c - The decode loop an inference engine writes ---------===*
 *
 * Compiles a model graph twice through the C API, fused for the cpu device
 * and unfused as the reference, keeps a fixed-capacity KV cache in buffers
 * the engine owns, advances pos every step, replays the one plan, and checks
 * every step's output against the oracle (the f64 reference evaluator on the
 * unfused graph).
 *
 *   decode_loop MODEL.mlir [STEPS] [DEVICE [TARGET]]
 *
 * DEVICE is cpu, vulkan or hip; TARGET, the compile target, defaults to the
 * device's name (hip needs one: rocm:gfx942, ...).
 *
 * Exits 77 when the device is not on this machine.
 *
 *===----------------------------------------------------------------------===*/
#include "poot/poot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    poot_status s_ = (call);                                                   \
    if (s_ != POOT_OK) {                                                       \
      fprintf(stderr, "%s failed: %s: %s\n", #call, poot_status_name(s_),     \
              poot_last_error());                                              \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static char *readFile(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  *length = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc(*length + 1);
  if (fread(text, 1, *length, f) != *length) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  text[*length] = 0;
  return text;
}

static size_t elementBytes(poot_dtype d) {
  switch (d) {
  case POOT_F64: case POOT_I64: return 8;
  case POOT_F32: case POOT_I32: return 4;
  case POOT_F16: case POOT_BF16: return 2;
  case POOT_I1: return 1;
  }
  return 4;
}

static unsigned long long rng = 88172645463325252ull;
static double uniform(void) { /* xorshift64, in [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

/* Fills an f32 buffer; a [fan_in, fan_out] weight gets variance 1/fan_in. */
static void fillF32(float *data, size_t n, int rank, const int64_t *dims) {
  double bound = rank == 2 && dims[0] > 1 ? sqrt(3.0 / (double)dims[0]) : 1.0;
  for (size_t i = 0; i < n; ++i)
    data[i] = (float)(uniform() * bound);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.mlir [STEPS] [DEVICE [TARGET]]\n",
            argv[0]);
    return 2;
  }
  int steps = argc > 2 ? atoi(argv[2]) : 4;
  const char *deviceName = argc > 3 ? argv[3] : "cpu";
  const char *target = argc > 4 ? argv[4] : deviceName;
  size_t length;
  char *text = readFile(argv[1], &length);

  poot_plan *fused, *reference;
  CHECK(poot_compile(text, length, target, 0, &fused));
  CHECK(poot_compile(text, length, "cpu", POOT_COMPILE_NO_FUSION, &reference));
  poot_session *device, *oracle;
  poot_status opened = poot_session_create(fused, deviceName, &device);
  if (opened == POOT_ERR_UNSUPPORTED) {
    printf("no %s device here: %s\n", deviceName, poot_last_error());
    return 77;
  }
  CHECK(opened);
  CHECK(poot_session_create(reference, "oracle", &oracle));

  /* Bind every input: weights and activations random (f32 models), the KV
   * caches as engine-owned buffers, one copy per session. */
  int inputs = poot_plan_num_inputs(fused);
  void *stateDevice[64], *stateOracle[64];
  int numState = 0;
  int32_t pos = 0;
  for (int i = 0; i < inputs; ++i) {
    const char *name;
    poot_dtype dtype;
    int rank, isState;
    int64_t dims[8];
    CHECK(poot_plan_input(fused, i, &name, &dtype, &rank, dims, 8, &isState));
    size_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= (size_t)dims[d];
    size_t bytes = n * elementBytes(dtype);
    if (strcmp(name, "pos") == 0)
      continue; /* bound every step */
    if (dtype != POOT_F32) {
      fprintf(stderr, "this example binds f32 models only ('%s')\n", name);
      return 2;
    }
    float *data = malloc(bytes);
    fillF32(data, n, rank, dims);
    if (isState) {
      float *copy = malloc(bytes);
      memcpy(copy, data, bytes);
      CHECK(poot_bind_state(device, name, data, bytes));
      CHECK(poot_bind_state(oracle, name, copy, bytes));
      stateDevice[numState] = data;
      stateOracle[numState++] = copy;
    } else {
      CHECK(poot_bind_input(device, name, data, bytes));
      CHECK(poot_bind_input(oracle, name, data, bytes));
      free(data);
    }
  }

  /* The output to check: the first output of the plan. */
  const char *outName;
  poot_dtype outType;
  int outRank;
  int64_t outDims[8];
  CHECK(poot_plan_output(fused, 0, &outName, &outType, &outRank, outDims, 8,
                         NULL));
  size_t outCount = 1;
  for (int d = 0; d < outRank; ++d)
    outCount *= (size_t)outDims[d];
  float *got = malloc(outCount * 4), *want = malloc(outCount * 4);

  int failures = 0;
  for (int step = 0; step < steps; ++step, ++pos) {
    CHECK(poot_bind_slot(device, "pos", &pos, sizeof pos));
    CHECK(poot_bind_slot(oracle, "pos", &pos, sizeof pos));
    CHECK(poot_run(device));
    CHECK(poot_run(oracle));
    CHECK(poot_read_output(device, outName, got, outCount * 4));
    CHECK(poot_read_output(oracle, outName, want, outCount * 4));
    double scale = 0, err = 0;
    for (size_t i = 0; i < outCount; ++i) {
      scale = fmax(scale, fabs(want[i]));
      err = fmax(err, fabs(got[i] - want[i]));
    }
    /* The f32 tolerance of docs/numerics.md: 1e-6 + 2e-5 * max|want|. */
    int ok = err <= 1e-6 + 2e-5 * scale;
    failures += !ok;
    printf("step %d pos %d on %s: %s max abs error %.3g (scale %.3g) %s\n",
           step, pos, deviceName, outName, err, scale, ok ? "ok" : "FAIL");
  }

  /* A position outside the declared range is refused before anything runs,
   * and the caches stay as they were. */
  int32_t bad = 1 << 20;
  CHECK(poot_bind_slot(device, "pos", &bad, sizeof bad));
  poot_status refused = poot_run(device);
  printf("pos %d: %s (%s)\n", bad, poot_status_name(refused), poot_last_error());
  failures += refused != POOT_ERR_RANGE_VIOLATION;

  for (int i = 0; i < numState; ++i) {
    free(stateDevice[i]);
    free(stateOracle[i]);
  }
  free(got);
  free(want);
  free(text);
  poot_session_free(device);
  poot_session_free(oracle);
  poot_plan_free(fused);
  poot_plan_free(reference);
  printf("%s\n", failures ? "FAILED" : "every step matches the oracle");
  return failures ? 1 : 0;
}
