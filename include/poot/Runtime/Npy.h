//===- Npy.h - Reading and writing .npy files -------------------*- C++ -*-===//
//
// NumPy's .npy format (versions 1.0-3.0), little-endian, C order. Supported
// element types: f2, f4, f8, i4, i8, b1 (bool), and bfloat16 as raw 2-byte
// words ('<u2' or 'V2', as ml_dtypes writes it). A bf16 tensor is written as
// f4 (an exact widening) so any reader can load it.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_NPY_H
#define POOT_RUNTIME_NPY_H

#include "poot/Runtime/Status.h"
#include "poot/Runtime/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace poot::rt {

/// Reads `path` into `out`. When `expected` is given, a float file converts
/// to any float dtype (rounded), i32 and i64 convert into each other (a value
/// that does not fit is refused), any other kind of mismatch is a typed
/// DtypeMismatch, and a shape mismatch is an error naming both shapes. A truncated or malformed file is a typed Malformed
/// error naming the file.
Status readNpy(const std::string &path, const TensorType *expected,
               Tensor &out);

/// Writes `tensor` to `path` (bf16 widened to f4, i1 as b1).
Status writeNpy(const std::string &path, const Tensor &tensor);

/// Whether `name` names a file inside a directory as NAME.npy: not empty,
/// not "." or "..", and without '/', '\\' or a NUL.
bool isPlainFileName(const std::string &name);

/// Writes each (name, tensor) as DIR/NAME.npy, all or nothing: every name is
/// checked first (isPlainFileName, no name twice; InvalidArgument, nothing
/// written), each file goes to a temporary in `dir`, and only when all were
/// written are they renamed into place. On any failure the temporaries (and
/// the files already renamed) are removed and the error names the file.
Status writeNpyFiles(
    const std::string &dir,
    const std::vector<std::pair<std::string, const Tensor *>> &files);

} // namespace poot::rt

#endif // POOT_RUNTIME_NPY_H
