//===- PlanFile.cpp - The compiled plan, on disk --------------------------===//
//
// Line records, space separated; strings percent-encoded so a name never
// splits a line; floats in hexadecimal so they round-trip exactly.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanFile.h"

#include "poot/Runtime/Npy.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace poot::rt;

namespace {

constexpr const char *kMagic = "poot-plan";

uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string encode(const std::string &s) {
  if (s.empty())
    return "%";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/' ||
        c == ':' || c == '+' || c == '@') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

bool decode(const std::string &s, std::string &out) {
  out.clear();
  if (s == "%")
    return true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size())
      return false;
    char hex[3] = {s[i + 1], s[i + 2], 0};
    char *end = nullptr;
    long v = std::strtol(hex, &end, 16);
    if (end != hex + 2)
      return false;
    out += static_cast<char>(v);
    i += 2;
  }
  return true;
}

std::string hexDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return buf;
}

template <typename T>
std::string joinList(const std::vector<T> &xs,
                     std::string (*fmt)(T) = nullptr) {
  if (xs.empty())
    return "-";
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i)
      out += ",";
    out += fmt ? fmt(xs[i]) : std::to_string(xs[i]);
  }
  return out;
}

std::string intStr(int64_t v) { return std::to_string(v); }

void writeTensor(std::ostringstream &os, const Tensor &t) {
  os << dtypeName(t.dtype()) << " " << joinList<int64_t>(t.shape(), intStr);
  for (double v : t.values())
    os << " " << hexDouble(v);
}

// Parsing helpers over a token stream.
struct Line {
  std::vector<std::string> tok;
  size_t number = 0;
};

/// A whole decimal int64: the entire token (a NUL inside it included) and
/// inside int64's range; strtoll's clamping on ERANGE is refused.
bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    return false;
  errno = 0;
  char *end = nullptr;
  v = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

/// parseInt for a field held as an int (a value or eqn index).
bool parseIndex(const std::string &s, int &v) {
  int64_t wide;
  if (!parseInt(s, wide) || wide < INT_MIN || wide > INT_MAX)
    return false;
  v = static_cast<int>(wide);
  return true;
}

/// A whole float token; an underflow to a subnormal or zero is fine (ERANGE
/// is not consulted), trailing bytes are not.
bool parseDouble(const std::string &s, double &v) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    return false;
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool parseInts(const std::string &s, std::vector<int64_t> &out) {
  out.clear();
  if (s == "-")
    return true;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int64_t v;
    if (!parseInt(part, v))
      return false;
    out.push_back(v);
  }
  return true;
}

/// parseInts for a list of value indices (each held as an int).
bool parseIndices(const std::string &s, std::vector<int> &out) {
  std::vector<int64_t> wide;
  if (!parseInts(s, wide))
    return false;
  out.clear();
  for (int64_t v : wide) {
    if (v < INT_MIN || v > INT_MAX)
      return false;
    out.push_back(static_cast<int>(v));
  }
  return true;
}

/// The fewest fields (the kind included) each record has: a known record
/// with fewer was cut, which is reported as such rather than as unknown.
const std::map<std::string, size_t> &recordFields() {
  static const std::map<std::string, size_t> fields = {
      {"device", 2}, {"target", 2}, {"graph", 2},  {"value", 4},
      {"input", 6},  {"output", 5}, {"eqn", 5},    {"attr", 4},
      {"arena", 2},  {"spirv", 2},  {"ptx", 3},    {"hsaco", 4},
      {"slot", 5}};
  return fields;
}

/// The value of one hex digit, or -1.
int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::string toHex(const std::string &bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex;
}

bool fromHex(const std::string &hex, std::string &bytes) {
  bytes.clear();
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    int hi = hexDigit(hex[i]), lo = hexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    bytes += static_cast<char>(hi * 16 + lo);
  }
  return true;
}

} // namespace

bool poot::rt::looksLikePlan(const std::string &text) {
  return text.rfind(kMagic, 0) == 0;
}

std::string poot::rt::serializePlan(const Plan &plan) {
  std::ostringstream os;
  const Graph &g = plan.graph;
  os << "device " << encode(plan.device) << "\n";
  os << "target " << encode(plan.target) << "\n";
  os << "graph " << encode(g.name) << "\n";
  for (size_t i = 0; i < g.values.size(); ++i)
    os << "value " << i << " " << dtypeName(g.values[i].dtype) << " "
       << joinList<int64_t>(g.values[i].shape, intStr) << "\n";
  for (const GraphInput &in : g.inputs) {
    os << "input " << in.value << " " << encode(in.name) << " "
       << encode(in.slot) << " " << encode(in.state) << " ";
    if (in.range)
      os << in.range->first << "," << in.range->second;
    else
      os << "-";
    os << "\n";
  }
  for (const GraphOutput &out : g.outputs)
    os << "output " << out.value << " " << encode(out.name) << " "
       << encode(out.state) << " " << (out.validation ? 1 : 0) << "\n";
  for (const Eqn &e : g.eqns) {
    os << "eqn " << encode(e.op) << " " << encode(e.location) << " "
       << joinList<int>(e.operands,
                        +[](int v) { return std::to_string(v); })
       << " "
       << joinList<int>(e.results, +[](int v) { return std::to_string(v); })
       << "\n";
    for (const auto &[name, a] : e.attrs) {
      os << "attr " << encode(name) << " ";
      switch (a.kind) {
      case Attr::Kind::Int:
        os << "int " << a.i;
        break;
      case Attr::Kind::Float:
        os << "float " << hexDouble(a.f);
        break;
      case Attr::Kind::String:
        os << "string " << encode(a.s);
        break;
      case Attr::Kind::Ints:
        os << "ints " << joinList<int64_t>(a.ints, intStr);
        break;
      case Attr::Kind::Floats:
        os << "floats " << joinList<double>(a.floats, hexDouble);
        break;
      case Attr::Kind::Tensor:
        os << "tensor ";
        writeTensor(os, a.tensor);
        break;
      }
      os << "\n";
    }
  }
  os << "arena " << plan.arenaBytes << "\n";
  for (const ArenaSlot &s : plan.arena)
    os << "slot " << s.value << " " << s.eqn << " " << s.offset << " "
       << s.bytes << "\n";
  if (!plan.spirv.empty()) {
    os << "spirv " << plan.spirv.size();
    char word[16];
    for (uint32_t w : plan.spirv) {
      std::snprintf(word, sizeof(word), " %08x", w);
      os << word;
    }
    os << "\n";
  }
  // PTX as hex: the text has spaces, newlines and a trailing NUL, none of
  // which may reach a record, and the byte count lets the reader refuse a
  // cut or padded record instead of loading part of a module.
  if (!plan.ptx.empty()) {
    static const char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(plan.ptx.size() * 2);
    for (unsigned char c : plan.ptx) {
      hex += kHex[c >> 4];
      hex += kHex[c & 15];
    }
    os << "ptx " << plan.ptx.size() << " " << hex << "\n";
  }
  if (!plan.hsaco.empty())
    os << "hsaco " << plan.hsacoChip << " " << plan.hsaco.size() << " "
       << toHex(plan.hsaco) << "\n";
  std::string body = os.str();
  char head[96];
  std::snprintf(head, sizeof(head), "%s %d\nchecksum %016" PRIx64 "\n",
                kMagic, kPlanVersion, fnv1a(body));
  return head + body;
}

/// One pass over the records, one branch per record kind, with the checks
/// that relate records (numbering, unique names, references to values)
/// next to the records they are about; split, the checks would be far from
/// what they check.
Status poot::rt::parsePlan(const std::string &text, Plan &out) {
  auto bad = [](size_t line, const std::string &what) {
    return Status(ErrorCode::Malformed,
                  "plan line " + std::to_string(line) + ": " + what);
  };
  size_t nl1 = text.find('\n');
  size_t nl2 = nl1 == std::string::npos ? nl1 : text.find('\n', nl1 + 1);
  if (!looksLikePlan(text) || nl2 == std::string::npos)
    return Status(ErrorCode::Malformed, "not a poot plan file");
  // "poot-plan <version>": the whole rest of the line is the number.
  std::string magicLine = text.substr(0, nl1);
  size_t magicLen = std::string(kMagic).size();
  int64_t version = 0;
  if (magicLine.size() < magicLen + 2 || magicLine[magicLen] != ' ' ||
      !std::isdigit(static_cast<unsigned char>(magicLine[magicLen + 1])) ||
      !parseInt(magicLine.substr(magicLen + 1), version))
    return Status(ErrorCode::Malformed,
                  "bad plan header (expected 'poot-plan <version>')");
  if (version < kOldestPlanVersion || version > kPlanVersion)
    return Status(ErrorCode::Unsupported,
                  "plan format version " + std::to_string(version) +
                      ", this runtime reads versions " +
                      std::to_string(kOldestPlanVersion) + " to " +
                      std::to_string(kPlanVersion) +
                      (version > kPlanVersion
                           ? " (a plan from a newer compiler)"
                           : ""));
  std::string sumLine = text.substr(nl1 + 1, nl2 - nl1 - 1);
  std::string body = text.substr(nl2 + 1);
  char want[32];
  std::snprintf(want, sizeof(want), "checksum %016" PRIx64, fnv1a(body));
  if (sumLine != want)
    return Status(ErrorCode::Malformed,
                  "plan checksum mismatch: the file is damaged (" + sumLine +
                      ", contents give " + std::string(want + 9) + ")");

  // A type the runtime could not hold is refused here, before anything
  // sizes a buffer by it: a negative dim or an overflowing count is a
  // damaged or forged record, a type past the size limit is unsupported.
  auto badType = [&](size_t line, const TensorType &type) {
    Status s = checkTensorType(type);
    if (s.isOk())
      return s;
    return Status(s.code() == ErrorCode::Unsupported ? ErrorCode::Unsupported
                                                     : ErrorCode::Malformed,
                  "plan line " + std::to_string(line) + ": " + s.message());
  };

  Plan plan;
  Graph &g = plan.graph;
  std::istringstream lines(body);
  std::string raw;
  size_t number = 2;
  Eqn *current = nullptr;
  while (std::getline(lines, raw)) {
    ++number;
    std::istringstream ls(raw);
    std::vector<std::string> t;
    for (std::string w; ls >> w;)
      t.push_back(w);
    if (t.empty())
      continue;
    const std::string &kind = t[0];
    auto need = [&](size_t n) { return t.size() >= n; };
    // A known record with too few fields was cut: say so, and how many it
    // needs (version 1 has no hsaco record, so there it stays unknown).
    auto fields = recordFields().find(kind);
    if (fields != recordFields().end() && !need(fields->second) &&
        (kind != "hsaco" || version >= 2))
      return bad(number, "'" + kind + "' record cut short (" +
                             std::to_string(t.size()) + " fields, needs " +
                             std::to_string(fields->second) + ")");
    if (kind == "device") {
      if (!decode(t[1], plan.device))
        return bad(number, "bad string");
    } else if (kind == "target") {
      if (!decode(t[1], plan.target))
        return bad(number, "bad string");
    } else if (kind == "graph") {
      if (!decode(t[1], g.name))
        return bad(number, "bad string");
    } else if (kind == "value") {
      // Values are numbered in order: an index out of place would silently
      // shift every reference after it.
      int64_t index;
      if (!parseInt(t[1], index) ||
          index != static_cast<int64_t>(g.values.size()))
        return bad(number, "value index '" + t[1] +
                               "' out of order (expected " +
                               std::to_string(g.values.size()) + ")");
      TensorType type;
      if (!parseDType(t[2], type.dtype) || !parseInts(t[3], type.shape))
        return bad(number, "bad value type");
      POOT_RETURN_IF_ERROR(badType(number, type));
      g.values.push_back(type);
    } else if (kind == "input") {
      GraphInput in;
      if (!parseIndex(t[1], in.value) || !decode(t[2], in.name) ||
          !decode(t[3], in.slot) || !decode(t[4], in.state))
        return bad(number, "bad input");
      if (t[5] != "-") {
        std::vector<int64_t> r;
        if (!parseInts(t[5], r) || r.size() != 2)
          return bad(number, "bad range");
        if (r[0] >= r[1])
          return bad(number, "empty range [" + std::to_string(r[0]) + ", " +
                                 std::to_string(r[1]) + ")");
        in.range = std::make_pair(r[0], r[1]);
      }
      if (g.findInput(in.name) >= 0)
        return bad(number, "a second input named '" + in.name + "'");
      g.inputs.push_back(in);
    } else if (kind == "output") {
      GraphOutput o;
      int64_t val;
      if (!parseIndex(t[1], o.value) || !decode(t[2], o.name) ||
          !decode(t[3], o.state) || !parseInt(t[4], val) ||
          (val != 0 && val != 1))
        return bad(number, "bad output");
      o.validation = val != 0;
      // Outputs are read and written by name: a second one would leave the
      // name's type ambiguous.
      if (g.findOutput(o.name) >= 0)
        return bad(number, "a second output named '" + o.name + "'");
      g.outputs.push_back(o);
    } else if (kind == "eqn") {
      Eqn e;
      if (!decode(t[1], e.op) || !decode(t[2], e.location) ||
          !parseIndices(t[3], e.operands) || !parseIndices(t[4], e.results))
        return bad(number, "bad eqn");
      g.eqns.push_back(std::move(e));
      current = &g.eqns.back();
    } else if (kind == "attr") {
      if (!current)
        return bad(number, "an attribute before any eqn");
      std::string name;
      if (!decode(t[1], name))
        return bad(number, "bad attribute name");
      Attr a;
      const std::string &ak = t[2];
      if (ak == "int") {
        a.kind = Attr::Kind::Int;
        if (!parseInt(t[3], a.i))
          return bad(number, "bad int");
      } else if (ak == "float") {
        a.kind = Attr::Kind::Float;
        if (!parseDouble(t[3], a.f))
          return bad(number, "bad float");
      } else if (ak == "string") {
        a.kind = Attr::Kind::String;
        if (!decode(t[3], a.s))
          return bad(number, "bad string");
      } else if (ak == "ints") {
        a.kind = Attr::Kind::Ints;
        if (!parseInts(t[3], a.ints))
          return bad(number, "bad ints");
      } else if (ak == "floats") {
        a.kind = Attr::Kind::Floats;
        if (t[3] != "-") {
          std::stringstream ss(t[3]);
          for (std::string part; std::getline(ss, part, ',');) {
            double d;
            if (!parseDouble(part, d))
              return bad(number, "bad floats");
            a.floats.push_back(d);
          }
        }
      } else if (ak == "tensor") {
        a.kind = Attr::Kind::Tensor;
        if (!need(5))
          return bad(number, "'attr tensor' record cut short (" +
                                 std::to_string(t.size()) +
                                 " fields, needs at least 5)");
        TensorType type;
        if (!parseDType(t[3], type.dtype) || !parseInts(t[4], type.shape))
          return bad(number, "bad tensor type");
        POOT_RETURN_IF_ERROR(badType(number, type));
        std::vector<double> values;
        for (size_t i = 5; i < t.size(); ++i) {
          double d;
          if (!parseDouble(t[i], d))
            return bad(number, "bad tensor value");
          values.push_back(d);
        }
        if (static_cast<int64_t>(values.size()) != numElements(type.shape))
          return bad(number, "tensor holds the wrong number of values");
        a.tensor = Tensor(type, std::move(values));
      } else {
        return bad(number, "unknown attribute kind '" + ak + "'");
      }
      current->attrs[name] = std::move(a);
    } else if (kind == "arena") {
      if (!parseInt(t[1], plan.arenaBytes) || plan.arenaBytes < 0)
        return bad(number, "bad arena size");
    } else if (kind == "spirv") {
      // The count is compared with the words there are, never computed
      // from: a forged count cannot overflow anything.
      int64_t count;
      if (!parseInt(t[1], count) || count < 0 ||
          static_cast<uint64_t>(count) != t.size() - 2)
        return bad(number, "bad spirv record");
      for (size_t i = 2; i < t.size(); ++i) {
        const std::string &word = t[i];
        uint32_t w = 0;
        bool digits = !word.empty() && word.size() <= 8;
        for (size_t k = 0; digits && k < word.size(); ++k) {
          int d = hexDigit(word[k]);
          digits = d >= 0;
          w = w * 16 + static_cast<uint32_t>(d);
        }
        if (!digits)
          return bad(number, "bad spirv word");
        plan.spirv.push_back(w);
      }
    } else if (kind == "ptx") {
      int64_t count;
      if (t.size() != 3 || !parseInt(t[1], count) || count <= 0 ||
          t[2].size() % 2 != 0 ||
          static_cast<uint64_t>(count) != t[2].size() / 2)
        return bad(number, "bad ptx record (expected 'ptx <bytes> <hex>' "
                           "with two hex digits a byte)");
      if (!plan.ptx.empty())
        return bad(number, "a second ptx record");
      std::string text;
      text.reserve(count);
      for (int64_t i = 0; i < count; ++i) {
        int hi = hexDigit(t[2][2 * i]), lo = hexDigit(t[2][2 * i + 1]);
        if (hi < 0 || lo < 0)
          return bad(number, "bad ptx byte at " + std::to_string(i));
        text += static_cast<char>(hi * 16 + lo);
      }
      plan.ptx = std::move(text);
    } else if (kind == "hsaco" && version >= 2) {
      int64_t count;
      if (t.size() != 4 || t[1].empty() || !parseInt(t[2], count) ||
          count <= 0 || t[3].size() % 2 != 0 ||
          static_cast<uint64_t>(count) != t[3].size() / 2)
        return bad(number, "bad hsaco record (expected 'hsaco <chip> "
                           "<bytes> <hex>' with two hex digits a byte)");
      if (!plan.hsaco.empty())
        return bad(number, "a second hsaco record");
      if (!fromHex(t[3], plan.hsaco))
        return bad(number, "bad hsaco byte");
      plan.hsacoChip = t[1];
    } else if (kind == "slot") {
      ArenaSlot s;
      if (!parseIndex(t[1], s.value) || !parseIndex(t[2], s.eqn) ||
          !parseInt(t[3], s.offset) || !parseInt(t[4], s.bytes))
        return bad(number, "bad arena slot");
      plan.arena.push_back(s);
    } else {
      // Refused rather than skipped: a record this runtime does not know
      // may change what the records it does know mean.
      return bad(number, "unknown record '" + kind +
                             "' (a plan from a newer compiler?)");
    }
  }
  // Every reference must name a value the plan declares.
  auto valid = [&](int v) {
    return v >= 0 && v < static_cast<int>(g.values.size());
  };
  for (const Eqn &e : g.eqns)
    for (const std::vector<int> *ids : {&e.operands, &e.results})
      for (int v : *ids)
        if (!valid(v))
          return Status(ErrorCode::Malformed,
                        "plan eqn '" + e.op + "' names value " +
                            std::to_string(v) + " it does not declare");
  for (const GraphInput &in : g.inputs)
    if (!valid(in.value))
      return Status(ErrorCode::Malformed, "plan input names an unknown value");
  for (const GraphOutput &o : g.outputs)
    if (!valid(o.value))
      return Status(ErrorCode::Malformed, "plan output names an unknown value");
  // Tools write outputs and state as NAME.npy in an output directory: a
  // name that is not a plain file name could reach outside it.
  for (const GraphInput &in : g.inputs)
    if (in.name.empty() || (!in.state.empty() && !isPlainFileName(in.name)))
      return Status(ErrorCode::Malformed,
                    "plan input name '" + in.name +
                        "' is not a plain file name (empty, or with '/', "
                        "'\\', a NUL or a '.'/'..' name)");
  for (const GraphOutput &o : g.outputs)
    if (!isPlainFileName(o.name))
      return Status(ErrorCode::Malformed,
                    "plan output name '" + o.name +
                        "' is not a plain file name (empty, or with '/', "
                        "'\\', a NUL or a '.'/'..' name)");
  out = std::move(plan);
  return Status::ok();
}

Status poot::rt::writePlanFile(const std::string &path, const Plan &plan) {
  std::string text = serializePlan(plan);
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f)
      return Status(ErrorCode::Io, path + ": cannot be written");
    f << text;
    if (!f)
      return Status(ErrorCode::Io, path + ": write failed");
  }
  // Renamed into place, so a failed write never leaves half a plan.
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(ErrorCode::Io, path + ": cannot be written");
  }
  return Status::ok();
}

Status poot::rt::readPlanFile(const std::string &path, Plan &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return Status(ErrorCode::Io, path + ": cannot be opened");
  std::stringstream ss;
  ss << f.rdbuf();
  Status s = parsePlan(ss.str(), out);
  if (!s.isOk())
    return Status(s.code(), path + ": " + s.message());
  return s;
}
