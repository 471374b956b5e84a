//===- NpyFuzzer.cpp - libFuzzer target: the .npy reader ------------------===//
//
// Hands rt::readNpy the input as a file (an in-memory file, reached through
// /proc/self/fd), first expecting nothing, then, for a file that loads,
// expecting each dtype of the same shape (the conversions and their
// refusals) and another shape. A tensor that loads must write (writeNpy) to
// a file that reads back with the same type and values.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Npy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace poot::rt;

namespace {

/// An in-memory file and a path that opens it.
struct MemFile {
  int fd = -1;
  std::string path;
  explicit MemFile(const char *name) {
    fd = memfd_create(name, 0);
    if (fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  void fill(const uint8_t *data, size_t size) {
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) !=
                                     static_cast<ssize_t>(size)) {
      std::perror("memfd write");
      std::abort();
    }
  }
};

bool sameValue(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

[[noreturn]] void fail(const char *what, const Status &s) {
  std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static MemFile input("poot-npy-in"), output("poot-npy-out");
  input.fill(data, size);
  Tensor t;
  if (!readNpy(input.path, nullptr, t).isOk())
    return 0;

  // The conversions a caller's expected type asks for, and their refusals.
  for (DType d : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32,
                  DType::I64, DType::I1}) {
    TensorType want{d, t.shape()};
    Tensor converted;
    Status s = readNpy(input.path, &want, converted);
    if (s.isOk() && converted.type() != want)
      fail("a read gave another type than expected", s);
  }
  TensorType other{t.dtype(), t.shape()};
  other.shape.push_back(1);
  Tensor refused;
  if (readNpy(input.path, &other, refused).code() != ErrorCode::ShapeMismatch)
    fail("another shape was not a shape mismatch", Status());

  // What loads writes back and reads the same.
  if (Status s = writeNpy(output.path, t); !s.isOk())
    fail("a loaded tensor does not write", s);
  Tensor back;
  TensorType type = t.type();
  if (Status s = readNpy(output.path, &type, back); !s.isOk())
    fail("a written tensor does not read back", s);
  if (back.type() != t.type() || back.size() != t.size())
    fail("a written tensor reads back with another type", Status());
  for (int64_t i = 0; i < t.size(); ++i)
    if (!sameValue(back.at(i), t.at(i)))
      fail("a written tensor reads back with other values", Status());
  return 0;
}
