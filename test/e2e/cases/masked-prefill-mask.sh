#!/usr/bin/env bash
# Prints the mask of masked-prefill-safe-bf16.mlir as poot-run's --set list
# (96 x 96 values, row-major). Row i: every key hidden for i < 8 and for
# every seventh row past it; only the last key (95) visible for i % 7 == 3;
# causal (t <= i visible) for i < 48; past that a scattered 10% hidden.
# Visible keys get a bias in (-1, 0].
awk 'BEGIN { srand(11); s = ""
  for (i = 0; i < 96; i++)
    for (t = 0; t < 96; t++) {
      if (i < 8 || i % 7 == 0) v = "-inf"
      else if (i % 7 == 3) v = (t == 95 ? "0" : "-inf")
      else if (i < 48) v = (t <= i ? sprintf("%.3f", -rand()) : "-inf")
      else v = (rand() < 0.1 ? "-inf" : sprintf("%.3f", -rand()))
      s = s (s == "" ? "" : ",") v
    }
  print s }'
