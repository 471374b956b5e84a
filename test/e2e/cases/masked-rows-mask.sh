#!/usr/bin/env bash
# Prints the mask of masked-rows-f16.mlir as poot-run's --set list (3 x 1024
# values, row-major): batch row 0 hides every key, row 1 all but the last
# 124, row 2 a scattered few (5%); visible keys get a bias in (-1, 0].
awk 'BEGIN { srand(7); s = ""
  for (b = 0; b < 3; b++)
    for (i = 0; i < 1024; i++) {
      if (b == 0) v = "-inf"
      else if (b == 1) v = (i < 900 ? "-inf" : "0")
      else v = (rand() < 0.05 ? "-inf" : sprintf("%.3f", -rand()))
      s = s (s == "" ? "" : ",") v
    }
  print s }'
