//===- PootSparseOps.cpp - Typing rules of the sparse ops -----------------===//

#include "poot/Dialect/PootDialect.h"
