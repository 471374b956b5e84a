//===- Npy.cpp - Reading and writing .npy files ---------------------------===//
//
// A small, strict .npy codec: golden inputs and outputs of the tests and
// tools travel in this format. Every byte is decoded explicitly as little
// endian so the code does not depend on the host's byte order, and every way
// a file can be short or inconsistent is reported as a Malformed error that
// names the file.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Npy.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

namespace poot::rt {

namespace {

const char kMagic[] = "\x93NUMPY";
const size_t kMagicLen = 6;

/// How the elements of a file are stored.
enum class FileKind { F2, F4, F8, I4, I8, B1, Bf16Raw };

int64_t fileKindBytes(FileKind kind) {
  switch (kind) {
  case FileKind::B1:
    return 1;
  case FileKind::F2:
  case FileKind::Bf16Raw:
    return 2;
  case FileKind::F4:
  case FileKind::I4:
    return 4;
  case FileKind::F8:
  case FileKind::I8:
    return 8;
  }
  return 0;
}

/// The dtype a file of `kind` loads as when the caller expects nothing.
DType naturalDType(FileKind kind) {
  switch (kind) {
  case FileKind::F2:
    return DType::F16;
  case FileKind::F4:
    return DType::F32;
  case FileKind::F8:
    return DType::F64;
  case FileKind::I4:
    return DType::I32;
  case FileKind::I8:
    return DType::I64;
  case FileKind::B1:
    return DType::I1;
  case FileKind::Bf16Raw:
    return DType::BF16;
  }
  return DType::F32;
}

/// NumPy's name for the element type of a file ("int32", "bfloat16").
const char *fileKindName(FileKind kind) {
  switch (kind) {
  case FileKind::F2:
    return "float16";
  case FileKind::F4:
    return "float32";
  case FileKind::F8:
    return "float64";
  case FileKind::I4:
    return "int32";
  case FileKind::I8:
    return "int64";
  case FileKind::B1:
    return "bool";
  case FileKind::Bf16Raw:
    return "bfloat16";
  }
  return "?";
}

/// What a value is, as far as converting between files and tensors goes:
/// floats convert among themselves (rounding), integers among themselves
/// (checked), and nothing converts across.
enum class ElementClass { Float, Integer, Bool };

ElementClass classOf(DType dtype) {
  if (dtype == DType::I1)
    return ElementClass::Bool;
  return isFloat(dtype) ? ElementClass::Float : ElementClass::Integer;
}

/// The fields of a .npy header this reader cares about.
struct Header {
  std::string descr;
  bool fortranOrder = false;
  Shape shape;
};

/// A recursive-descent reader for the Python dict literal in the header. It
/// accepts only the subset NumPy writes: string keys mapping to a string, a
/// bool, or a tuple of non-negative integers.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text_(text) {}

  bool parse(Header &out, std::string &why) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    skipSpace();
    if (!eat('{'))
      return fail(why, "header does not start with '{'");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail(why, "expected a quoted key in the header dict");
      skipSpace();
      if (!eat(':'))
        return fail(why, "expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (!parseString(out.descr))
          return fail(why, "'descr' must be a string (structured dtypes are "
                           "not supported)");
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(out.fortranOrder))
          return fail(why, "'fortran_order' must be True or False");
        sawOrder = true;
      } else if (key == "shape") {
        if (!parseShape(out.shape))
          return fail(why, "'shape' must be a tuple of non-negative integers");
        sawShape = true;
      } else {
        return fail(why, "unexpected header key '" + key + "'");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return fail(why, "expected ',' or '}' in the header dict");
    }
    if (!sawDescr || !sawOrder || !sawShape)
      return fail(why, "header lacks one of 'descr', 'fortran_order', 'shape'");
    skipSpace();
    if (pos_ != text_.size())
      return fail(why, "trailing characters after the header dict");
    return true;
  }

private:
  bool fail(std::string &why, const std::string &message) {
    why = message;
    return false;
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool parseString(std::string &out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return false;
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      return false;
    out = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }

  bool parseBool(bool &out) {
    if (text_.compare(pos_, 4, "True") == 0) {
      out = true;
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      out = false;
      pos_ += 5;
      return true;
    }
    return false;
  }

  bool parseShape(Shape &out) {
    out.clear();
    if (!eat('('))
      return false;
    while (true) {
      skipSpace();
      if (eat(')'))
        return true;
      size_t start = pos_;
      int64_t value = 0;
      while (pos_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (value > (int64_t(1) << 48))
          return false; // no real file has dims this large
        value = value * 10 + (text_[pos_] - '0');
        ++pos_;
      }
      // Python 2 era writers appended an 'L' to longs.
      if (pos_ > start && pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;
      if (pos_ == start)
        return false;
      out.push_back(value);
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return true;
      return false;
    }
  }

  const std::string &text_;
  size_t pos_ = 0;
};

uint64_t loadLE(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

void storeLE(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

double decodeElement(FileKind kind, const unsigned char *p) {
  switch (kind) {
  case FileKind::F2:
    return halfBitsToFloat(static_cast<uint16_t>(loadLE(p, 2)));
  case FileKind::Bf16Raw:
    return bf16BitsToFloat(static_cast<uint16_t>(loadLE(p, 2)));
  case FileKind::F4: {
    uint32_t bits = static_cast<uint32_t>(loadLE(p, 4));
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
  case FileKind::F8: {
    uint64_t bits = loadLE(p, 8);
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  case FileKind::I4:
    return static_cast<int32_t>(static_cast<uint32_t>(loadLE(p, 4)));
  case FileKind::I8:
    return static_cast<double>(static_cast<int64_t>(loadLE(p, 8)));
  case FileKind::B1:
    return p[0] != 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

/// Maps a descr string onto a supported element kind.
bool parseDescr(const std::string &descr, FileKind &kind) {
  if (descr.size() < 2 || (descr[0] != '<' && descr[0] != '|'))
    return false;
  std::string code = descr.substr(1);
  if (code == "f2")
    kind = FileKind::F2;
  else if (code == "f4")
    kind = FileKind::F4;
  else if (code == "f8")
    kind = FileKind::F8;
  else if (code == "i4")
    kind = FileKind::I4;
  else if (code == "i8")
    kind = FileKind::I8;
  else if (code == "b1")
    kind = FileKind::B1;
  else if (code == "u2" || code == "V2")
    kind = FileKind::Bf16Raw;
  else
    return false;
  return true;
}

Status malformed(const std::string &path, const std::string &what) {
  return Status(ErrorCode::Malformed, path + ": " + what);
}

} // namespace

Status readNpy(const std::string &path, const TensorType *expected,
               Tensor &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status(ErrorCode::Io,
                  path + ": cannot open for reading: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (file.bad())
    return Status(ErrorCode::Io, path + ": read error");
  const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());

  if (bytes.size() < kMagicLen + 2 ||
      bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    return malformed(path, "not a .npy file (bad magic)");
  int major = data[6], minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    return malformed(path, "unsupported .npy version " + std::to_string(major) +
                               "." + std::to_string(minor));
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + lenBytes;
  if (bytes.size() < prefix)
    return malformed(path, "truncated header length");
  size_t headerLen = static_cast<size_t>(loadLE(data + 8, lenBytes));
  if (bytes.size() - prefix < headerLen)
    return malformed(path, "expected " + std::to_string(headerLen) +
                               " header bytes, got " +
                               std::to_string(bytes.size() - prefix));
  std::string headerText = bytes.substr(prefix, headerLen);

  Header header;
  std::string why;
  if (!HeaderParser(headerText).parse(header, why))
    return malformed(path, why);
  FileKind kind;
  if (!parseDescr(header.descr, kind))
    return Status(ErrorCode::Unsupported,
                  path + ": unsupported element type '" + header.descr +
                      "' (little-endian f2, f4, f8, i4, i8, b1, u2/V2 only)");
  if (header.fortranOrder)
    return Status(ErrorCode::Unsupported,
                  path + ": Fortran-ordered arrays are not supported");
  // Checked before any count is computed from the shape: huge dims must not
  // overflow their way past the size check (a zero dim among them too).
  if (Status s = checkTensorType({naturalDType(kind), header.shape});
      !s.isOk())
    return Status(s.code() == ErrorCode::Unsupported ? ErrorCode::Unsupported
                                                     : ErrorCode::Malformed,
                  path + ": " + s.message());

  int64_t itemBytes = fileKindBytes(kind);
  size_t dataStart = prefix + headerLen;
  uint64_t got = bytes.size() - dataStart;
  // Multiply with saturation: a corrupt shape must not overflow its way to
  // a small byte count (or a huge allocation).
  uint64_t want = static_cast<uint64_t>(itemBytes);
  const uint64_t cap = uint64_t(1) << 62;
  for (int64_t d : header.shape)
    want =
        d == 0 ? 0 : (want > cap / static_cast<uint64_t>(d) ? cap : want * d);
  if (got != want)
    return malformed(path, "expected " +
                               (want == cap ? std::string("more than 2^62")
                                            : std::to_string(want)) +
                               " data bytes, got " + std::to_string(got));
  int64_t count = numElements(header.shape);

  if (expected && expected->shape != header.shape)
    return Status(ErrorCode::ShapeMismatch,
                  path + ": file has shape " + shapeString(header.shape) +
                      ", expected " + shapeString(expected->shape));
  // Raw 2-byte words are bf16 whatever the caller expects: it is the only
  // 2-byte unsigned type the format is used for here.
  DType natural = naturalDType(kind);
  DType target = expected ? expected->dtype : natural;
  // Float files convert to any float dtype (rounded) and integer files to
  // either integer dtype (checked); a file of another kind of element is
  // the wrong file, not something to convert.
  if (classOf(target) != classOf(natural))
    return Status(ErrorCode::DtypeMismatch,
                  path + ": file holds " + fileKindName(kind) + ", expected " +
                      dtypeName(target));
  Tensor result;
  if (Status s = Tensor::create({target, header.shape}, result); !s.isOk())
    return Status(s.code(), path + ": " + s.message());
  bool exact = target == natural;
  for (int64_t i = 0; i < count; ++i) {
    double v = decodeElement(kind, data + dataStart + i * itemBytes);
    // Only an i8 file can hold a value past i32 (checked on the exact word).
    if (kind == FileKind::I8 && target == DType::I32 &&
        !(v >= -2147483648.0 && v <= 2147483647.0))
      return Status(ErrorCode::DtypeMismatch,
                    path + ": value " +
                        std::to_string(static_cast<int64_t>(
                            loadLE(data + dataStart + i * itemBytes, 8))) +
                        " at flat index " + std::to_string(i) +
                        " does not fit i32 (file holds " + fileKindName(kind) +
                        ")");
    result.at(i) = exact ? v : roundTo(target, v);
  }
  out = std::move(result);
  return Status::ok();
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
  const char *descr = "<f4";
  FileKind kind = FileKind::F4;
  switch (tensor.dtype()) {
  case DType::F32:
  case DType::BF16: // widening to f4 is exact and needs no ml_dtypes to read
    break;
  case DType::F16:
    descr = "<f2";
    kind = FileKind::F2;
    break;
  case DType::F64:
    descr = "<f8";
    kind = FileKind::F8;
    break;
  case DType::I32:
    descr = "<i4";
    kind = FileKind::I4;
    break;
  case DType::I64:
    descr = "<i8";
    kind = FileKind::I8;
    break;
  case DType::I1:
    descr = "|b1";
    kind = FileKind::B1;
    break;
  }
  if (tensor.size() != numElements(tensor.shape()))
    return Status(ErrorCode::InvalidArgument,
                  path + ": tensor " + tensor.type().toString() + " holds " +
                      std::to_string(tensor.size()) + " values");

  std::string shapeText = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i)
    shapeText += std::to_string(tensor.shape()[i]) + ", ";
  if (tensor.shape().size() == 1)
    shapeText.pop_back(); // "(3,)" is the one-element tuple
  else if (!tensor.shape().empty())
    shapeText.resize(shapeText.size() - 2);
  shapeText += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shapeText +
                       ", }";
  // NumPy pads the header with spaces and a newline so the data starts on a
  // 64-byte boundary; version 2.0 only when the length no longer fits u16.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  std::string bytes(kMagic, kMagicLen);
  bytes.push_back(static_cast<char>(v2 ? 2 : 1));
  bytes.push_back(0);
  storeLE(bytes, header.size(), v2 ? 4 : 2);
  bytes += header;
  bytes.reserve(bytes.size() + tensor.size() * fileKindBytes(kind));
  for (double v : tensor.values()) {
    switch (kind) {
    case FileKind::F2:
      storeLE(bytes,
              floatToHalfBits(static_cast<float>(roundTo(DType::F16, v))), 2);
      break;
    case FileKind::F4: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(bits));
      storeLE(bytes, bits, 4);
      break;
    }
    case FileKind::F8: {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof(bits));
      storeLE(bytes, bits, 8);
      break;
    }
    case FileKind::I4:
      storeLE(
          bytes,
          static_cast<uint32_t>(static_cast<int32_t>(roundTo(DType::I32, v))),
          4);
      break;
    case FileKind::I8: {
      // Saturate rather than wrap at the edges: a double can only hold
      // INT64_MAX as 2^63, and wrapping that would flip its sign.
      double w = std::nearbyint(v);
      int64_t i = std::isnan(w)                ? 0
                  : w >= 9223372036854775808.0 ? INT64_MAX
                  : w < -9223372036854775808.0 ? INT64_MIN
                                               : static_cast<int64_t>(w);
      storeLE(bytes, static_cast<uint64_t>(i), 8);
      break;
    }
    case FileKind::B1:
      bytes.push_back(v != 0.0 ? 1 : 0);
      break;
    case FileKind::Bf16Raw:
      break; // never written: bf16 goes out as f4
    }
  }

  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return Status(ErrorCode::Io,
                  path + ": cannot open for writing: " + std::strerror(errno));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file)
    return Status(ErrorCode::Io, path + ": write failed");
  return Status::ok();
}

bool isPlainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string("/\\\0", 3)) == std::string::npos;
}

Status writeNpyFiles(
    const std::string &dir,
    const std::vector<std::pair<std::string, const Tensor *>> &files) {
  std::set<std::string> names;
  for (const auto &[name, tensor] : files) {
    (void)tensor;
    if (!isPlainFileName(name))
      return Status(ErrorCode::InvalidArgument,
                    "output name '" + name +
                        "' is not a plain file name (empty, or with '/', "
                        "'\\', a NUL or a '.'/'..' name): nothing written");
    if (!names.insert(name).second)
      return Status(ErrorCode::InvalidArgument,
                    "two outputs named '" + name + "': nothing written");
  }
  auto pathOf = [&](const std::string &name) {
    return dir + "/" + name + ".npy";
  };
  // Each file first goes to a temporary next to it, so a failure part way
  // leaves no mix of new and old results.
  std::vector<std::string> temporaries;
  auto removeAll = [](const std::vector<std::string> &paths) {
    for (const std::string &p : paths)
      std::remove(p.c_str());
  };
  for (const auto &[name, tensor] : files) {
    std::string tmp = pathOf(name) + ".tmp";
    if (Status s = writeNpy(tmp, *tensor); !s.isOk()) {
      removeAll(temporaries);
      // Half a file of ours, unless something else holds the name.
      struct stat st;
      if (::stat(tmp.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        std::remove(tmp.c_str());
      return Status(s.code(), s.message() + " (nothing written)");
    }
    temporaries.push_back(tmp);
  }
  std::vector<std::string> published;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string path = pathOf(files[i].first);
    if (std::rename(temporaries[i].c_str(), path.c_str()) != 0) {
      std::string why = std::strerror(errno);
      removeAll(published);
      removeAll(temporaries);
      return Status(ErrorCode::Io, path + ": cannot be written: " + why +
                                       " (nothing written)");
    }
    published.push_back(path);
  }
  return Status::ok();
}

} // namespace poot::rt
