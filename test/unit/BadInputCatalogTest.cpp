//===- BadInputCatalogTest.cpp - Hostile inputs, one table ----------------===//
//
// Every hostile input the runtime is known to face (the reproducers in
// inputs/ from fuzzing and the bad-input probe, and hand-made rows) in one
// table, each with the typed error it must get. Each row goes through what a
// runner does, through the public API: load the plan (poot_plan_load), open
// a cpu session, bind every input (seeded values, a .npy file or an inline
// --set list where the row says so) and the state buffers, run, read the
// outputs and write them and the state with writeNpyFiles. The first step
// that fails must fail with the row's code and a "<status name>: " message,
// and then nothing is written: the output directory stays empty, no output
// can be read (the caller's buffer keeps its bytes) and every state buffer
// is byte-identical to what was bound.
//
// The base plan, inputs/decode-paged.plan, is examples/llama3-8b.decode.paged
// compiled for cpu: a paged KV pool per layer as state, pos, slot_map and a
// write map.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Npy.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Steps.h"
#include "poot/poot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace poot::rt;
namespace fs = std::filesystem;

namespace {

std::string inputPath(const std::string &name) {
  return std::string(POOT_TEST_INPUTS_DIR) + "/" + name;
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

/// A plan text around `body` with the checksum that matches it, so that a
/// forged record reaches the record parser.
std::string withChecksum(const std::string &body, int version = kPlanVersion) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char head[64];
  std::snprintf(head, sizeof(head), "poot-plan %d\nchecksum %016llx\n",
                version, static_cast<unsigned long long>(h));
  return head + body;
}

std::string bodyOf(const std::string &text) {
  return text.substr(text.find('\n', text.find('\n') + 1) + 1);
}

const std::string &basePlan() {
  static const std::string text = readFile(inputPath("decode-paged.plan"));
  return text;
}

/// The base plan's body with `from` replaced by `to` (once), checksum
/// recomputed.
std::string forged(const std::string &from, const std::string &to) {
  std::string body = bodyOf(basePlan());
  size_t at = body.find(from);
  if (at == std::string::npos)
    return "the base plan has no '" + from + "'";
  return withChecksum(body.replace(at, from.size(), to));
}

/// A .npy file: `descr`, the shape tuple's text, the raw data; the header
/// length field says `headerLen` when given (a lie), the real one otherwise.
std::string npy(const std::string &descr, const std::string &shape,
                const std::string &data, int64_t headerLen = -1) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  uint64_t len = headerLen >= 0 ? static_cast<uint64_t>(headerLen)
                                : static_cast<uint64_t>(header.size());
  std::string out = "\x93NUMPY";
  if (len > 0xffff) {
    out += std::string("\x02\x00", 2);
    for (int i = 0; i < 4; ++i)
      out += static_cast<char>((len >> (8 * i)) & 0xff);
  } else {
    out += std::string("\x01\x00", 2);
    out += static_cast<char>(len & 0xff);
    out += static_cast<char>(len >> 8);
  }
  return out + header + data;
}

template <typename T> std::string raw(std::vector<T> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

/// One row's run through the pipeline: what it binds differently from the
/// seeded defaults, and what the pipeline left behind for the checks.
class Pipeline {
public:
  Pipeline() {
    std::string pattern = ::testing::TempDir() + "poot_catalog_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    dir = mkdtemp(buf.data()) ? buf.data() : "";
    outDir = dir + "/out";
    fs::create_directories(outDir);
  }
  ~Pipeline() {
    poot_session_free(session);
    poot_plan_free(plan);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  // What a row changes before the pipeline runs.
  void set(const std::string &name, std::vector<double> values) {
    values_[name] = std::move(values);
  }
  void setBytes(const std::string &name, std::string bytes) {
    bytes_[name] = std::move(bytes);
  }
  void setText(const std::string &name, std::string list) {
    text_[name] = std::move(list);
  }
  void setNpy(const std::string &name, const std::string &fileBytes) {
    std::string path = dir + "/" + name + ".npy";
    writeFile(path, fileBytes);
    npy_[name] = path;
  }
  void setNpyFile(const std::string &name, const std::string &path) {
    npy_[name] = path;
  }
  void leaveUnbound(const std::string &name) { unbound_.push_back(name); }
  void bindExtra(const std::string &name) { extra_.push_back(name); }
  void bindStateAsInput(const std::string &name) { asInput_.push_back(name); }

  /// The whole pipeline on `text`; the first failing status, or POOT_OK.
  poot_status pipeline(const std::string &text) {
    std::string path = dir + "/model.plan";
    writeFile(path, text);
    return pipelineFile(path);
  }
  poot_status pipelineFile(const std::string &path) {
    if (poot_status s = poot_plan_load(path.c_str(), &plan))
      return s;
    // The graph again, for the seeded values (the C API does not expose it).
    if (!readPlanFile(path, parsed).isOk())
      return POOT_ERR_MALFORMED;
    if (poot_status s = poot_session_create(plan, "cpu", &session))
      return s;
    if (poot_status s = bind())
      return s;
    if (poot_status s = poot_run(session))
      return s;
    ranOk = true;
    return write();
  }

  std::string dir, outDir;
  poot_plan *plan = nullptr;
  poot_session *session = nullptr;
  Plan parsed;
  /// The state buffers as bound, and what they held when bound.
  std::map<std::string, std::vector<uint8_t>> state, stateBefore;
  bool ranOk = false;

private:
  static poot_status failWith(const Status &s) {
    return static_cast<poot_status>(s.code());
  }

  poot_status bind() {
    const Graph &g = parsed.graph;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const GraphInput &in = g.inputs[i];
      const TensorType &type = g.values[in.value];
      if (std::find(unbound_.begin(), unbound_.end(), in.name) !=
          unbound_.end())
        continue;
      Tensor t;
      if (Status s = randomInput(g, in, 3 + i, 0, t); !s.isOk())
        return failWith(s);
      if (auto it = values_.find(in.name); it != values_.end()) {
        std::vector<double> v = it->second;
        v.resize(t.size(), v.empty() ? 0.0 : v.back());
        t = Tensor(type, v);
      }
      if (auto it = text_.find(in.name); it != text_.end()) {
        std::vector<double> v;
        if (Status s = parseValues(it->second, type, v); !s.isOk())
          return failWith(s);
        t = Tensor(type, v);
      }
      if (auto it = npy_.find(in.name); it != npy_.end())
        if (Status s = readNpy(it->second, &type, t); !s.isOk())
          return failWith(s);
      std::string bytes(static_cast<size_t>(storageBytes(type)), '\0');
      encodeStorage(t, bytes.data());
      if (auto it = bytes_.find(in.name); it != bytes_.end())
        bytes = it->second;
      bool asInput = std::find(asInput_.begin(), asInput_.end(), in.name) !=
                     asInput_.end();
      poot_status s;
      if (!in.state.empty() && !asInput) {
        auto &buf = state[in.name];
        buf.assign(bytes.begin(), bytes.end());
        stateBefore[in.name] = buf;
        s = poot_bind_state(session, in.name.c_str(), buf.data(), buf.size());
      } else {
        s = poot_bind_input(session, in.name.c_str(), bytes.data(),
                            bytes.size());
      }
      if (s != POOT_OK)
        return s;
    }
    for (const std::string &name : extra_) {
      float x = 0;
      if (poot_status s = poot_bind_input(session, name.c_str(), &x, sizeof x))
        return s;
    }
    return POOT_OK;
  }

  /// The outputs and the state, written as a runner writes them.
  poot_status write() {
    const Graph &g = parsed.graph;
    std::vector<Tensor> tensors;
    tensors.reserve(g.outputs.size() + state.size());
    std::vector<std::pair<std::string, const Tensor *>> files;
    for (const GraphOutput &out : g.outputs) {
      if (!out.state.empty())
        continue;
      const TensorType &type = g.values[out.value];
      std::vector<uint8_t> bytes(static_cast<size_t>(storageBytes(type)) + 1);
      if (poot_status s = poot_read_output(session, out.name.c_str(),
                                           bytes.data(), bytes.size() - 1))
        return s;
      tensors.push_back(decodeStorage(type, bytes.data()));
      files.emplace_back(out.name, &tensors.back());
    }
    for (auto &[name, buf] : state) {
      const TensorType &type = g.values[g.inputs[g.findInput(name)].value];
      tensors.push_back(decodeStorage(type, buf.data()));
      files.emplace_back(name, &tensors.back());
    }
    return failWith(writeNpyFiles(outDir, files));
  }

  std::map<std::string, std::vector<double>> values_;
  std::map<std::string, std::string> bytes_, text_, npy_;
  std::vector<std::string> unbound_, extra_, asInput_;
};

struct Row {
  const char *name;
  poot_status expected;
  std::function<poot_status(Pipeline &)> steps;
};

const std::vector<Row> &catalogue() {
  static const std::vector<Row> rows = {
      // --- Plans: refused at load, nothing made. -------------------------
      {"truncated plan (cut mid-file)", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(basePlan().substr(0, basePlan().size() / 2));
       }},
      // Loads (every record is whole), but names outputs no eqn computes:
      // refused before anything runs.
      {"truncated plan (cut at a line before the eqns, checksum recomputed)",
       POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         std::string body = bodyOf(basePlan());
         return r.pipeline(withChecksum(body.substr(0, body.find("eqn "))));
       }},
      {"plan cut inside a record (checksum recomputed)", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(withChecksum(bodyOf(basePlan()) + "eqn add l 0,2\n"));
       }},
      {"wrong checksum", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         std::string text = basePlan();
         size_t at = text.find("checksum ") + 9;
         text[at] = text[at] == '0' ? '1' : '0';
         return r.pipeline(text);
       }},
      {"not a plan", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipeline("hello\nworld\n"); }},
      {"unknown record", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(withChecksum(bodyOf(basePlan()) + "frobnicate 1 2\n"));
       }},
      {"plan format from the future (version 3)", POOT_ERR_UNSUPPORTED,
       [](Pipeline &r) { return r.pipeline(withChecksum(bodyOf(basePlan()), 3)); }},
      {"version 4294967298 (read as 2 by atoi): version-wraps-to-2.plan",
       POOT_ERR_UNSUPPORTED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("version-wraps-to-2.plan")); }},
      {"NUL inside a number: nul-in-number.plan", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("nul-in-number.plan")); }},
      {"dims overflow (4294967296 x 4294967296)", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("value 0 f32 2,1,128",
                                  "value 0 f32 4294967296,4294967296"));
       }},
      {"dims overflow beside a zero", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("value 0 f32 2,1,128",
                                  "value 0 f32 281474976710656,281474976710656,0"));
       }},
      {"negative dim", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("value 0 f32 2,1,128", "value 0 f32 2,-1,128"));
       }},
      {"dim out of int64 (strtoll's INT64_MIN): capi-int64min-dim.plan",
       POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("capi-int64min-dim.plan")); }},
      {"element count overflows at run: ub-value-numel-run.plan",
       POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("ub-value-numel-run.plan")); }},
      {"tensor attribute count overflows: ub-tensor-attr-numel.plan",
       POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipelineFile(inputPath("ub-tensor-attr-numel.plan"));
       }},
      {"PTX byte count overflows: ub-ptx-count.plan", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("ub-ptx-count.plan")); }},
      {"HSACO byte count overflows: ub-hsaco-count.plan", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("ub-hsaco-count.plan")); }},
      {"SPIR-V word count overflows: ub-spirv-count.plan", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("ub-spirv-count.plan")); }},
      {"tensor past the size limit: crash-length-error.plan",
       POOT_ERR_UNSUPPORTED,
       [](Pipeline &r) { return r.pipelineFile(inputPath("crash-length-error.plan")); }},
      {"output name with '..': p-tiny-output-traversal.plan",
       POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipelineFile(inputPath("p-tiny-output-traversal.plan"));
       }},
      {"output name '../../y'", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipeline(forged("output 78 y ", "output 78 ../../y ")); }},
      {"state input named with '/' (written as NAME.npy)", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("input 8 l0.k_pool % l0.k_pool -",
                                  "input 8 sub%2Fk % l0.k_pool -"));
       }},
      {"output state naming no state input", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         return r.pipeline(forged("input 8 l0.k_pool % l0.k_pool -",
                                  "input 8 l0.k_pool % other -"));
       }},
      {"duplicate input", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("input 4 l0.attn_norm ", "input 4 x "));
       }},
      {"duplicate output (two types for one name)", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("output 78 y % 0\n",
                                  "output 78 y % 0\noutput 0 y % 0\n"));
       }},
      {"duplicate output: capi-duplicate-output.plan (checksum recomputed)",
       POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(withChecksum(
             bodyOf(readFile(inputPath("capi-duplicate-output.plan")))));
       }},
      {"values numbered out of order", POOT_ERR_MALFORMED,
       [](Pipeline &r) { return r.pipeline(forged("value 1 i32 2", "value 2 i32 2")); }},
      {"empty declared range", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         return r.pipeline(forged("input 1 pos pos % 0,64", "input 1 pos pos % 5,5"));
       }},
      {"a vulkan plan on the cpu device", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) { return r.pipeline(forged("target cpu", "target vulkan")); }},

      // --- Bindings: refused at bind or run, nothing published. ----------
      {"slot out of declared range (pos = 64 of [0, 64))",
       POOT_ERR_RANGE_VIOLATION,
       [](Pipeline &r) {
         r.set("pos", {64});
         return r.pipeline(basePlan());
       }},
      {"negative position", POOT_ERR_RANGE_VIOLATION,
       [](Pipeline &r) {
         r.set("pos", {-1});
         return r.pipeline(basePlan());
       }},
      {"slot_map entry outside the pool (128 of [0, 128))",
       POOT_ERR_RANGE_VIOLATION,
       [](Pipeline &r) {
         r.set("slot_map", {128});
         return r.pipeline(basePlan());
       }},
      {"write map naming a slot twice", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         r.set("write_map", {5, 5});
         return r.pipeline(basePlan());
       }},
      {"write map outside the pool (200 of [-1, 128))",
       POOT_ERR_RANGE_VIOLATION,
       [](Pipeline &r) {
         r.set("write_map", {200, 3});
         return r.pipeline(basePlan());
       }},
      {"write map outside the pool, range widened past it",
       POOT_ERR_INDEX_OUT_OF_RANGE,
       [](Pipeline &r) {
         r.set("write_map", {200, 3});
         return r.pipeline(forged("write_map write_map % -1,128",
                                  "write_map write_map % -1,500"));
       }},
      {"slot_map outside the pool, range widened past it",
       POOT_ERR_INDEX_OUT_OF_RANGE,
       [](Pipeline &r) {
         r.set("slot_map", {500});
         return r.pipeline(forged("slot_map slot_map % 0,128",
                                  "slot_map slot_map % -5,501"));
       }},
      {"wrong-size binding (4 bytes short)", POOT_ERR_SHAPE_MISMATCH,
       [](Pipeline &r) {
         r.setBytes("x", std::string(2 * 128 * 4 - 4, '\0'));
         return r.pipeline(basePlan());
       }},
      {"wrong-size state buffer (4 bytes over)", POOT_ERR_SHAPE_MISMATCH,
       [](Pipeline &r) {
         r.setBytes("l1.v_pool", std::string(128 * 2 * 32 * 4 + 4, '\0'));
         return r.pipeline(basePlan());
       }},
      {"unknown input name", POOT_ERR_UNKNOWN_NAME,
       [](Pipeline &r) {
         r.bindExtra("no_such_input");
         return r.pipeline(basePlan());
       }},
      {"input left unbound", POOT_ERR_MISSING_INPUT,
       [](Pipeline &r) {
         r.leaveUnbound("l0.wq");
         return r.pipeline(basePlan());
       }},
      {"state left unbound", POOT_ERR_MISSING_INPUT,
       [](Pipeline &r) {
         r.leaveUnbound("l1.k_pool");
         return r.pipeline(basePlan());
       }},
      {"state bound as a plain input", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         r.bindStateAsInput("l0.k_pool");
         return r.pipeline(basePlan());
       }},
      {"NaN in an integer slot (--set pos=nan)", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         r.setText("pos", "nan,0");
         return r.pipeline(basePlan());
       }},
      {"fraction in an integer slot (--set pos=2.5)", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         r.setText("pos", "2.5,1");
         return r.pipeline(basePlan());
       }},
      {"integer past i32 in a slot (--set pos=1e10)", POOT_ERR_INVALID_ARGUMENT,
       [](Pipeline &r) {
         r.setText("pos", "10000000000,1");
         return r.pipeline(basePlan());
       }},
      {"NaN in an integer slot (a float .npy for pos)", POOT_ERR_DTYPE_MISMATCH,
       [](Pipeline &r) {
         r.setNpy("pos", npy("<f4", "(2,)", raw<float>({NAN, 1.0f})));
         return r.pipeline(basePlan());
       }},
      {"i8 .npy value past i32 for pos", POOT_ERR_DTYPE_MISMATCH,
       [](Pipeline &r) {
         r.setNpy("pos", npy("<i8", "(2,)", raw<int64_t>({int64_t(1) << 40, 1})));
         return r.pipeline(basePlan());
       }},
      {"huge .npy header length", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         r.setNpy("x", npy("<f4", "(2, 1, 128)", std::string(1024, '\0'),
                           0xfffffff0));
         return r.pipeline(basePlan());
       }},
      {".npy dims overflow: ub-npy-numel.npy", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         r.setNpyFile("x", inputPath("ub-npy-numel.npy"));
         return r.pipeline(basePlan());
       }},
      {".npy dims overflow: npy-fuzz-found-min.npy", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         r.setNpyFile("x", inputPath("npy-fuzz-found-min.npy"));
         return r.pipeline(basePlan());
       }},
      {"truncated .npy", POOT_ERR_MALFORMED,
       [](Pipeline &r) {
         r.setNpy("x", npy("<f4", "(2, 1, 128)", std::string(1020, '\0')));
         return r.pipeline(basePlan());
       }},
      {".npy of another shape", POOT_ERR_SHAPE_MISMATCH,
       [](Pipeline &r) {
         r.setNpy("x", npy("<f4", "(2, 128)", std::string(1024, '\0')));
         return r.pipeline(basePlan());
       }},
      {".npy of another element kind (i4 for f32)", POOT_ERR_DTYPE_MISMATCH,
       [](Pipeline &r) {
         r.setNpy("x", npy("<i4", "(2, 1, 128)", std::string(1024, '\0')));
         return r.pipeline(basePlan());
       }},
      {".npy of an unsupported element type (complex)", POOT_ERR_UNSUPPORTED,
       [](Pipeline &r) {
         r.setNpy("x", npy("<c8", "(2, 1, 128)", std::string(2048, '\0')));
         return r.pipeline(basePlan());
       }},
  };
  return rows;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  return names;
}

class BadInputCatalog : public ::testing::TestWithParam<size_t> {};

TEST_P(BadInputCatalog, TypedErrorAndNothingWritten) {
  const Row &row = catalogue()[GetParam()];
  SCOPED_TRACE(row.name);
  Pipeline r;
  ASSERT_FALSE(r.dir.empty());
  poot_status st = row.steps(r);
  std::string message = poot_last_error();
  EXPECT_EQ(st, row.expected)
      << "got " << poot_status_name(st) << " (" << message << ")";
  if (st != POOT_OK && !message.empty()) {
    // A failure reported by the C API names its status first.
    std::string prefix = std::string(poot_status_name(st)) + ": ";
    EXPECT_EQ(message.compare(0, prefix.size(), prefix), 0) << message;
  }
  EXPECT_FALSE(r.ranOk) << "the run succeeded";
  EXPECT_TRUE(listDir(r.outDir).empty()) << "files written to the output directory";
  for (const auto &[name, buf] : r.state)
    EXPECT_TRUE(buf == r.stateBefore[name]) << "state '" << name << "' changed";
  if (!r.session)
    return;
  // No output of a run that failed can be read; the caller's buffer stays.
  const Graph &g = r.parsed.graph;
  for (const GraphOutput &out : g.outputs) {
    std::vector<uint8_t> buf(
        static_cast<size_t>(storageBytes(g.values[out.value])), 0xa5);
    std::vector<uint8_t> before = buf;
    EXPECT_EQ(poot_read_output(r.session, out.name.c_str(), buf.data(),
                               buf.size()),
              POOT_ERR_UNKNOWN_NAME)
        << out.name;
    EXPECT_TRUE(buf == before) << "output '" << out.name << "' written";
  }
}

/// "row07_wrong_checksum": the row's number and name as a test name.
std::string rowName(const ::testing::TestParamInfo<size_t> &info) {
  std::string id;
  for (const char *c = catalogue()[info.param].name; *c && id.size() < 48;
       ++c) {
    if (std::isalnum(static_cast<unsigned char>(*c)))
      id += *c;
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_')
    id.pop_back();
  char num[16];
  std::snprintf(num, sizeof(num), "row%02zu_", info.param);
  return num + id;
}

INSTANTIATE_TEST_SUITE_P(Rows, BadInputCatalog,
                         ::testing::Range<size_t>(0, catalogue().size()),
                         rowName);

// The pipeline with nothing hostile succeeds, writes every output and state
// file and moves the state on: the catalogue's checks can see a write.
TEST(BadInputCatalogBaseline, TheBasePlanRunsAndWrites) {
  Pipeline r;
  ASSERT_EQ(r.pipeline(basePlan()), POOT_OK) << poot_last_error();
  EXPECT_TRUE(r.ranOk);
  EXPECT_EQ(listDir(r.outDir).size(), 5u); // y and four KV pools
  bool moved = false;
  for (const auto &[name, buf] : r.state)
    moved |= buf != r.stateBefore[name];
  EXPECT_TRUE(moved) << "a successful run wrote no state";
}

// An output whose file cannot be written (a directory in its place): the run
// succeeded, but no file of it is published.
TEST(BadInputCatalogBaseline, AnUnwritableOutputPublishesNoFile) {
  Pipeline r;
  fs::create_directory(r.outDir + "/y.npy");
  EXPECT_EQ(r.pipeline(basePlan()), POOT_ERR_IO);
  EXPECT_EQ(listDir(r.outDir), std::vector<std::string>{"y.npy"});
  EXPECT_TRUE(fs::is_directory(r.outDir + "/y.npy"));
}

} // namespace
