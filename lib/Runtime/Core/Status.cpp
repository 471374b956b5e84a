//===- Status.cpp - Typed errors of the runtime ---------------------------===//
//
// Names for error codes and the printable form of a Status. The names are
// part of the tool output tests match against, so they never change.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Status.h"

namespace poot::rt {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "ok";
  case ErrorCode::InvalidArgument:
    return "invalid-argument";
  case ErrorCode::UnknownName:
    return "unknown-name";
  case ErrorCode::MissingInput:
    return "missing-input";
  case ErrorCode::DtypeMismatch:
    return "dtype-mismatch";
  case ErrorCode::ShapeMismatch:
    return "shape-mismatch";
  case ErrorCode::RangeViolation:
    return "range-violation";
  case ErrorCode::ValidationFailed:
    return "validation-failed";
  case ErrorCode::IndexOutOfRange:
    return "index-out-of-range";
  case ErrorCode::Unsupported:
    return "unsupported";
  case ErrorCode::Io:
    return "io";
  case ErrorCode::Malformed:
    return "malformed";
  }
  return "unknown-error";
}

std::string Status::toString() const {
  if (isOk())
    return "ok";
  std::string text = errorCodeName(code_);
  if (!message_.empty()) {
    text += ": ";
    text += message_;
  }
  return text;
}

} // namespace poot::rt
