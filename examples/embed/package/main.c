/* An engine built against the installed runtime package (no LLVM): loads a
 * plan, runs it with every input zero-filled except the declared slots, and
 * prints what it bound.  Built and run by scripts/test.sh. */
#include "poot/poot.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLAN\n", argv[0]);
    return 2;
  }
  poot_plan *plan;
  poot_session *session;
  if (poot_plan_load(argv[1], &plan) != POOT_OK ||
      poot_session_create(plan, "cpu", &session) != POOT_OK) {
    fprintf(stderr, "error: %s\n", poot_last_error());
    return 1;
  }
  int n = poot_plan_num_inputs(plan);
  for (int i = 0; i < n; ++i) {
    const char *name;
    poot_dtype dtype;
    int rank, isState;
    int64_t dims[8];
    poot_plan_input(plan, i, &name, &dtype, &rank, dims, 8, &isState);
    size_t count = 1;
    for (int d = 0; d < rank; ++d)
      count *= (size_t)dims[d];
    size_t bytes = count * (dtype == POOT_F64 || dtype == POOT_I64 ? 8
                            : dtype == POOT_F16 || dtype == POOT_BF16 ? 2
                            : dtype == POOT_I1 ? 1 : 4);
    void *data = calloc(1, bytes);
    poot_status s = isState ? poot_bind_state(session, name, data, bytes)
                            : poot_bind_input(session, name, data, bytes);
    if (s != POOT_OK) {
      fprintf(stderr, "error: %s\n", poot_last_error());
      return 1;
    }
    if (!isState)
      free(data); /* inputs are copied; state buffers stay bound */
  }
  poot_status s = poot_run(session);
  printf("ran %s: %s\n", argv[1], poot_status_name(s));
  poot_session_free(session);
  poot_plan_free(plan);
  return s == POOT_OK ? 0 : 1;
}
