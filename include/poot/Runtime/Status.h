//===- Status.h - Typed errors of the runtime -------------------*- C++ -*-===//
//
// The runtime has no exceptions and no LLVM: every failure is a Status value
// carrying a code a caller can branch on and a message a person can read.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_STATUS_H
#define POOT_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace poot::rt {

/// What went wrong, as a value a caller can branch on.
enum class ErrorCode {
  Ok = 0,
  InvalidArgument,  ///< a malformed request (bad option, bad graph record)
  UnknownName,      ///< an input or output name the graph does not have
  MissingInput,     ///< a graph input that was not bound
  DtypeMismatch,    ///< a bound buffer of the wrong element type
  ShapeMismatch,    ///< a bound buffer of the wrong shape
  RangeViolation,   ///< a bound integer outside its declared poot.range
  ValidationFailed, ///< a poot.validation witness evaluated to false
  IndexOutOfRange,  ///< a gather/scatter index outside its axis at run time
  Unsupported,      ///< an op or dtype the evaluator does not implement
  Io,               ///< a file could not be read or written
  Malformed,        ///< a file's contents are not what its format says
};

/// Returns a stable lowercase name for `code` ("range-violation").
const char *errorCodeName(ErrorCode code);

/// The result of a runtime call: Ok, or a code plus a message.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  bool isOk() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return !isOk(); } ///< true on failure
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "range-violation: input 'pos' ..." for printing.
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// Returns early from the enclosing function when `expr` fails.
#define POOT_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    ::poot::rt::Status pootStatus_ = (expr);                                   \
    if (!pootStatus_.isOk())                                                   \
      return pootStatus_;                                                      \
  } while (false)

} // namespace poot::rt

#endif // POOT_RUNTIME_STATUS_H
