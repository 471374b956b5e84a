//===- PlanFileTest.cpp - The plan file round trip and its refusals -------===//

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanFile.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace poot::rt;

namespace {

Plan samplePlan() {
  Plan p;
  p.device = "cpu";
  p.target = "cpu";
  Graph &g = p.graph;
  g.name = "g with spaces";
  g.values = {{DType::F32, {2, 3}}, {DType::I32, {}}, {DType::F32, {2, 3}},
              {DType::F32, {2, 3}}};
  GraphInput x{0, "x", "", std::nullopt, ""};
  GraphInput pos{1, "pos", "pos", std::make_pair<int64_t, int64_t>(0, 16), ""};
  g.inputs = {x, pos};
  Eqn c;
  c.op = "constant";
  c.results = {2};
  c.attrs["value"] = Attr::ofTensor(
      Tensor({DType::F32, {2, 3}}, {0.1, -2.5, 3.0, 1e-30, 7.0, -0.0}));
  c.location = "model.mlir:3:5";
  Eqn add;
  add.op = "add";
  add.operands = {0, 2};
  add.results = {3};
  add.attrs["poot.schedule.lanes"] = Attr::ofInt(64);
  add.attrs["scale"] = Attr::ofFloat(0.1);
  add.attrs["perm"] = Attr::ofInts({0, 1});
  add.attrs["slopes"] = Attr::ofFloats({0.25, 1.0 / 3.0});
  add.attrs["style"] = Attr::ofString("half %odd% name");
  g.eqns = {c, add};
  g.outputs = {{3, "y", "", false}};
  p.arenaBytes = 256;
  p.arena = {{2, -1, 0, 24}, {-1, 1, 0, 100}};
  return p;
}

TEST(PlanFile, RoundTripsExactly) {
  Plan p = samplePlan();
  std::string text = serializePlan(p);
  Plan q;
  ASSERT_TRUE(parsePlan(text, q).isOk());
  EXPECT_EQ(serializePlan(q), text);
  EXPECT_EQ(q.graph.name, "g with spaces");
  EXPECT_EQ(q.graph.eqns[1].attrs["style"].s, "half %odd% name");
  EXPECT_EQ(q.graph.eqns[1].attrs["slopes"].floats[1], 1.0 / 3.0);
  EXPECT_EQ(q.graph.eqns[0].attrs["value"].tensor.at(3), 1e-30);
  ASSERT_TRUE(q.graph.inputs[1].range.has_value());
  EXPECT_EQ(q.graph.inputs[1].range->second, 16);
  EXPECT_EQ(q.arena.size(), 2u);
}

TEST(PlanFile, TheLoadedPlanRuns) {
  Plan p;
  ASSERT_TRUE(parsePlan(serializePlan(samplePlan()), p).isOk());
  Tensor x({DType::F32, {2, 3}}, {1, 2, 3, 4, 5, 6});
  Tensor pos({DType::I32, {}}, {3});
  Bindings b;
  b.inputs = {{"x", &x}, {"pos", &pos}};
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(evaluate(p.graph, b, NumericMode::Reference, out).isOk());
  EXPECT_DOUBLE_EQ(out["y"].at(1), 2.0 - 2.5);
}

TEST(PlanFile, RefusesDamageAndOtherVersions) {
  std::string text = serializePlan(samplePlan());
  Plan q;
  std::string damaged = text;
  damaged[damaged.size() - 3] ^= 1;
  Status s = parsePlan(damaged, q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("checksum"), std::string::npos);

  std::string future = text;
  future.replace(0, std::string("poot-plan 1").size(), "poot-plan 9");
  EXPECT_EQ(parsePlan(future, q).code(), ErrorCode::Unsupported);
  EXPECT_EQ(parsePlan("hello", q).code(), ErrorCode::Malformed);
  EXPECT_EQ(parsePlan(text.substr(0, text.size() / 2), q).code(),
            ErrorCode::Malformed);
}

/// A plan text around `body` with a checksum that matches it, so that a
/// test can damage a record and reach the record parser.
std::string withChecksum(const std::string &body) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char head[64];
  std::snprintf(head, sizeof(head), "poot-plan %d\nchecksum %016llx\n",
                kPlanVersion, static_cast<unsigned long long>(h));
  return head + body;
}

/// The body of `text` (everything after the magic and checksum lines).
std::string bodyOf(const std::string &text) {
  return text.substr(text.find('\n', text.find('\n') + 1) + 1);
}

TEST(PlanFile, PtxRoundTripsByteForByte) {
  Plan p = samplePlan();
  p.target = "cuda:sm_90";
  // Spaces, tabs, newlines, a percent sign, a high byte and MLIR's
  // trailing NUL: everything a record must not carry raw.
  p.ptx = std::string("//\n.version 8.0\n.target sm_90\n.visible .entry "
                      "k(\n\t.param .u64 k_param_0\n)\n{ ret; } // 100% \xff\n") +
          '\0';
  std::string text = serializePlan(p);
  // One record, on one line.
  size_t at = text.find("\nptx ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(text.find('\n', at + 1), text.size() - 1);
  Plan q;
  Status s = parsePlan(text, q);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(q.ptx, p.ptx);
  EXPECT_EQ(q.ptx.back(), '\0');
  EXPECT_EQ(serializePlan(q), text);

  // No PTX, no record; an empty PTX stays empty.
  Plan none = samplePlan();
  EXPECT_EQ(serializePlan(none).find("\nptx "), std::string::npos);
  ASSERT_TRUE(parsePlan(serializePlan(none), q).isOk());
  EXPECT_TRUE(q.ptx.empty());
}

TEST(PlanFile, RefusesBadPtxAndUnknownRecords) {
  std::string body = bodyOf(serializePlan(samplePlan()));
  Plan ok;
  ASSERT_TRUE(parsePlan(withChecksum(body), ok).isOk());
  auto refused = [&](const std::string &record) {
    Plan q;
    q.ptx = "untouched";
    Status s = parsePlan(withChecksum(body + record), q);
    EXPECT_EQ(s.code(), ErrorCode::Malformed) << record;
    EXPECT_EQ(q.ptx, "untouched") << record;
    return s.message();
  };
  ASSERT_TRUE(parsePlan(withChecksum(body + "ptx 2 2e76\n"), ok).isOk());
  EXPECT_EQ(ok.ptx, ".v");
  // A count that does not match the bytes (cut or padded), an odd or
  // foreign digit, a missing or extra field, a second module.
  refused("ptx 3 2e76\n");
  refused("ptx 1 2e76\n");
  refused("ptx 2 2e7\n");
  refused("ptx 2 2e7g\n");
  refused("ptx 2\n");
  refused("ptx 2 2e76 00\n");
  refused("ptx 0 \n");
  refused("ptx -1 2e\n");
  EXPECT_NE(refused("ptx 2 2e76\nptx 2 2e76\n").find("second ptx"),
            std::string::npos);
  // A record this runtime does not know is refused, never skipped.
  EXPECT_NE(refused("ptx2 2 2e76\n").find("unknown record 'ptx2'"),
            std::string::npos);
  refused("cubin 2 2e76\n");
}

TEST(PlanFile, FailedReadLeavesNothingAndWriteIsAtomic) {
  std::string path = ::testing::TempDir() + "/poot-plan-test.plan";
  ASSERT_TRUE(writePlanFile(path, samplePlan()).isOk());
  Plan q;
  ASSERT_TRUE(readPlanFile(path, q).isOk());
  EXPECT_EQ(q.graph.eqns.size(), 2u);
  Plan untouched;
  EXPECT_EQ(readPlanFile(path + ".missing", untouched).code(), ErrorCode::Io);
  EXPECT_TRUE(untouched.graph.eqns.empty());
  std::remove(path.c_str());
}


TEST(PlanFile, HsacoRoundTripsWithItsChip) {
  Plan p = samplePlan();
  p.target = "rocm:gfx942";
  // An ELF header's first bytes: NULs and high bytes a record cannot carry
  // raw.
  p.hsaco = std::string("\x7f" "ELF\x02\x01\x01\x40\x03\0\0\xe0", 12);
  p.hsacoChip = "gfx942";
  std::string text = serializePlan(p);
  EXPECT_EQ(text.rfind("poot-plan 2\n", 0), 0u);
  EXPECT_NE(text.find("\nhsaco gfx942 12 7f454c46"), std::string::npos);
  Plan q;
  Status s = parsePlan(text, q);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(q.hsaco, p.hsaco);
  EXPECT_EQ(q.hsacoChip, "gfx942");
  EXPECT_EQ(serializePlan(q), text);
  // No code object, no record.
  EXPECT_EQ(serializePlan(samplePlan()).find("\nhsaco "), std::string::npos);
}

TEST(PlanFile, ReadsVersionOnePlansButNotTheirHsaco) {
  std::string body = bodyOf(serializePlan(samplePlan()));
  auto asVersion1 = [](std::string text) {
    text.replace(0, std::string("poot-plan 2").size(), "poot-plan 1");
    return text;
  };
  Plan q;
  Status s = parsePlan(asVersion1(withChecksum(body)), q);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(q.graph.eqns.size(), 2u);
  // Version 1 had no hsaco record: one there is a damaged or forged file.
  s = parsePlan(asVersion1(withChecksum(body + "hsaco gfx942 1 7f\n")), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("unknown record 'hsaco'"), std::string::npos);
  // Version 0 never existed; the message names the versions this reads.
  std::string zero = withChecksum(body);
  zero.replace(0, std::string("poot-plan 2").size(), "poot-plan 0");
  s = parsePlan(zero, q);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_NE(s.message().find("versions 1 to 2"), std::string::npos);
}

TEST(PlanFile, RefusesBadHsacoRecords) {
  std::string body = bodyOf(serializePlan(samplePlan()));
  Plan ok;
  ASSERT_TRUE(
      parsePlan(withChecksum(body + "hsaco gfx1100 2 7f45\n"), ok).isOk());
  EXPECT_EQ(ok.hsaco, "\x7f" "E");
  EXPECT_EQ(ok.hsacoChip, "gfx1100");
  for (const char *record :
       {"hsaco gfx942 3 7f45\n", "hsaco gfx942 2 7f4\n",
        "hsaco gfx942 2 7fzz\n", "hsaco 2 7f45\n", "hsaco gfx942 0 \n",
        "hsaco gfx942 2 7f45 00\n", "hsaco gfx942 2 7f45\nhsaco gfx90a 2 7f45\n"}) {
    Plan q;
    EXPECT_EQ(parsePlan(withChecksum(body + record), q).code(),
              ErrorCode::Malformed)
        << record;
    EXPECT_TRUE(q.hsaco.empty()) << record;
  }
}

/// The bytes of a file of test/unit/inputs (the fuzzers' and the probe's
/// reproducers).
std::string inputFile(const std::string &name) {
  std::ifstream f(std::string(POOT_TEST_INPUTS_DIR) + "/" + name,
                  std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Status readInput(const std::string &name, Plan &out) {
  return readPlanFile(std::string(POOT_TEST_INPUTS_DIR) + "/" + name, out);
}

// Counts and dims that overflow int64 arithmetic (UBSan's finds) are refused
// at load as Malformed; a type within int64 but past the size limit is
// Unsupported. Nothing sizes a buffer by them.
TEST(PlanFile, RefusesSizesThatOverflow) {
  for (const char *name :
       {"ub-ptx-count.plan", "ub-hsaco-count.plan", "ub-spirv-count.plan",
        "ub-tensor-attr-numel.plan", "ub-value-numel-run.plan"}) {
    Plan q;
    Status s = readInput(name, q);
    EXPECT_EQ(s.code(), ErrorCode::Malformed) << name << ": " << s.toString();
    EXPECT_TRUE(q.graph.values.empty()) << name;
  }
  Plan q;
  Status s = readInput("crash-length-error.plan", q);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("past the runtime's limit"), std::string::npos)
      << s.message();
  // 2^32 elements is within the limit: the plan loads (running it is a
  // matter of memory, StepsTest).
  s = readInput("crash-bad-alloc.plan", q);
  EXPECT_TRUE(s.isOk()) << s.toString();

  // The C API fuzzer's dim: out of int64's range, which strtoll clamps to
  // INT64_MIN. The file's header lacks its space; with a good one the dim
  // itself is refused.
  std::string capi = inputFile("capi-int64min-dim.plan");
  EXPECT_EQ(parsePlan(capi, q).code(), ErrorCode::Malformed);
  s = parsePlan(withChecksum(bodyOf(capi)), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("bad value type"), std::string::npos)
      << s.message();
  std::string body = bodyOf(serializePlan(samplePlan()));
  for (const char *dims :
       {"-9223372036854775808", "2,-3", "4294967296,4294967296",
        "281474976710656,281474976710656,0"}) {
    std::string forged = body;
    forged.replace(forged.find("value 0 f32 2,3"), 15,
                   std::string("value 0 f32 ") + dims);
    EXPECT_EQ(parsePlan(withChecksum(forged), q).code(), ErrorCode::Malformed)
        << dims;
  }
}

// Numbers are whole tokens inside their type: no atoi prefix, no NUL ending
// a token early, no ERANGE clamp, no silent narrowing to int.
TEST(PlanFile, ParsesNumbersStrictly) {
  Plan q;
  Status s = readInput("version-wraps-to-2.plan", q);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("version 4294967298"), std::string::npos)
      << s.message();
  s = readInput("nul-in-number.plan", q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed) << s.toString();
  EXPECT_NE(s.message().find("plan line 6"), std::string::npos)
      << s.message();

  std::string text = serializePlan(samplePlan());
  std::string body = bodyOf(text);
  for (const char *header :
       {"poot-plan 2garbage", "poot-plan2", "poot-plan  2", "poot-plan 2 ",
        "poot-plan +2", "poot-plan 99999999999999999999"}) {
    std::string forged = text;
    forged.replace(0, std::string("poot-plan 2").size(), header);
    EXPECT_EQ(parsePlan(forged, q).code(), ErrorCode::Malformed) << header;
  }
  for (const std::string &record :
       {std::string("input 4294967296 x2 % % -\n"),
        std::string("eqn add l 0,4294967296 3\n"),
        std::string("attr n int 99999999999999999999\n"),
        std::string("attr n int 12x\n"), std::string("arena 1x\n"),
        std::string("attr n int 1\0" "23\n", 16),
        std::string("spirv 1 123456789\n"), std::string("spirv 1 -1\n"),
        std::string("slot 0 2147483648 0 4\n")}) {
    Status st = parsePlan(withChecksum(body + record), q);
    EXPECT_EQ(st.code(), ErrorCode::Malformed) << record;
  }
  ASSERT_TRUE(parsePlan(withChecksum(body + "spirv 2 07230203 ffffffff\n"), q)
                  .isOk());
  EXPECT_EQ(q.spirv, (std::vector<uint32_t>{0x07230203u, 0xffffffffu}));
}

// Records a compiler never writes: values numbered out of order, a second
// input or output of one name, an empty range, a line cut mid-record (reported as cut,
// not as an unknown record).
TEST(PlanFile, RefusesForgedRecords) {
  std::string body = bodyOf(serializePlan(samplePlan()));
  Plan q;
  std::string shifted = body;
  shifted.replace(shifted.find("value 1 "), 8, "value 2 ");
  Status s = parsePlan(withChecksum(shifted), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("out of order"), std::string::npos)
      << s.message();

  s = parsePlan(withChecksum(body + "input 2 x % % -\n"), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("a second input named 'x'"), std::string::npos)
      << s.message();

  // The C API fuzzer's find: two outputs named out5 of different types, so
  // poot_plan_output described one and poot_read_output wanted the other.
  s = parsePlan(withChecksum(bodyOf(inputFile("capi-duplicate-output.plan"))),
                q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("a second output named 'out5'"),
            std::string::npos)
      << s.message();
  s = parsePlan(withChecksum(body + "output 2 y % 0\n"), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("a second output named 'y'"), std::string::npos)
      << s.message();

  s = parsePlan(withChecksum(body + "input 1 p pos % 5,5\n"), q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed);
  EXPECT_NE(s.message().find("empty range"), std::string::npos)
      << s.message();
  EXPECT_EQ(parsePlan(withChecksum(body + "output 3 z % 2\n"), q).code(),
            ErrorCode::Malformed);

  for (const char *cut : {"eqn add l 0,2\n", "attr scale float\n",
                          "value 4 f32\n", "input 0 x2 % %\n", "slot 0\n"}) {
    s = parsePlan(withChecksum(body + cut), q);
    EXPECT_EQ(s.code(), ErrorCode::Malformed) << cut;
    std::string kind = std::string(cut).substr(0, std::string(cut).find(' '));
    EXPECT_NE(s.message().find("'" + kind + "' record cut short"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(s.message().find("unknown record"), std::string::npos)
        << s.message();
  }
  s = parsePlan(withChecksum("attr n int 1\n" + body), q);
  EXPECT_NE(s.message().find("before any eqn"), std::string::npos)
      << s.message();
}

// Outputs (and state, written under its input's name) become NAME.npy in an
// output directory: a name that could leave it is refused at load.
TEST(PlanFile, RefusesNamesThatLeaveTheOutputDirectory) {
  Plan q;
  Status s = readInput("p-tiny-output-traversal.plan", q);
  EXPECT_EQ(s.code(), ErrorCode::Malformed) << s.toString();
  EXPECT_NE(s.message().find("'../../trav-escaped'"), std::string::npos)
      << s.message();
  std::string body = bodyOf(serializePlan(samplePlan()));
  for (const char *name : {"..", "a%5Cb", "%", "a%00b", "sub/y"}) {
    std::string forged = body;
    forged.replace(forged.find("output 3 y "), 11,
                   std::string("output 3 ") + name + " ");
    EXPECT_EQ(parsePlan(withChecksum(forged), q).code(), ErrorCode::Malformed)
        << name;
  }
  // A state input is written under its name; a plain input never is.
  EXPECT_EQ(parsePlan(withChecksum(body + "input 2 ../c % c -\n"), q).code(),
            ErrorCode::Malformed);
  EXPECT_TRUE(parsePlan(withChecksum(body + "input 2 w/q % % -\n"), q).isOk());
  EXPECT_EQ(parsePlan(withChecksum(body + "input 2 % % % -\n"), q).code(),
            ErrorCode::Malformed);
}

} // namespace
