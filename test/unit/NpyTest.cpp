//===- NpyTest.cpp - Tests of the .npy reader and writer ------------------===//
//
// Round trips for every dtype, hand-built files in the shapes NumPy and
// ml_dtypes produce, and the typed errors for files that are short, malformed,
// of the wrong shape or of the wrong kind of element.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace poot::rt;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// A fresh path in the test temp dir, removed when the test ends.
class NpyTest : public ::testing::Test {
protected:
  std::string path(const std::string &name) {
    std::string p =
        ::testing::TempDir() + "poot_npy_" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
        name + ".npy";
    created_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const std::string &p : created_)
      std::remove(p.c_str());
  }

  /// Writes a file with the given header dict and raw data bytes.
  void writeRaw(const std::string &p, const std::string &dict,
                const std::string &data, int major = 1) {
    std::string header = dict;
    size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0)
      header.push_back(' ');
    header.push_back('\n');
    std::string bytes = "\x93NUMPY";
    bytes.push_back(static_cast<char>(major));
    bytes.push_back(0);
    size_t len = header.size();
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
      bytes.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
    bytes += header + data;
    std::ofstream(p, std::ios::binary).write(bytes.data(), bytes.size());
  }

private:
  std::vector<std::string> created_;
};

void expectSameTensor(const Tensor &got, const Tensor &want) {
  ASSERT_EQ(got.type(), want.type())
      << got.type().toString() << " vs " << want.type().toString();
  for (int64_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want.at(i)))
      EXPECT_TRUE(std::isnan(got.at(i))) << i;
    else
      EXPECT_EQ(got.at(i), want.at(i)) << i;
  }
}

TEST_F(NpyTest, RoundTripEveryDType) {
  std::vector<Tensor> tensors = {
      Tensor({DType::F32, {2, 3}}, {1.5, -0.0, roundTo(DType::F32, 3.25e-40),
                                    kInf, NAN, roundTo(DType::F32, 1e30)}),
      Tensor({DType::F16, {4}}, {1.0, 65504.0, std::ldexp(1.0, -24), -kInf}),
      Tensor({DType::BF16, {2}}, {1.0078125, roundTo(DType::BF16, -3.0e38)}),
      Tensor({DType::F64, {3}}, {0.1, -1e300, 5e-324}),
      Tensor({DType::I32, {2, 2}}, {-2147483648.0, 2147483647, 0, -1}),
      Tensor({DType::I64, {3}}, {-9007199254740992.0, 123456789012345.0, -1}),
      Tensor({DType::I1, {5}}, {1, 0, 0, 1, 1}),
      Tensor({DType::F32, {}}, {42}),
      Tensor({DType::I32, {0, 3}}, {}),
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &t = tensors[i];
    SCOPED_TRACE(t.type().toString());
    std::string p = path(std::to_string(i));
    ASSERT_TRUE(writeNpy(p, t).isOk());
    Tensor back;
    Status st = readNpy(p, &t.type(), back);
    ASSERT_TRUE(st.isOk()) << st.toString();
    expectSameTensor(back, t);
    if (t.dtype() == DType::BF16) {
      // bf16 goes out as f4: an untyped read sees f32 with the same values.
      Tensor plain;
      ASSERT_TRUE(readNpy(p, nullptr, plain).isOk());
      EXPECT_EQ(plain.dtype(), DType::F32);
      EXPECT_EQ(plain.values(), t.values());
    } else {
      Tensor plain;
      ASSERT_TRUE(readNpy(p, nullptr, plain).isOk());
      expectSameTensor(plain, t);
    }
  }
}

TEST_F(NpyTest, HeaderLooksLikeNumPys) {
  std::string p = path("hdr");
  ASSERT_TRUE(writeNpy(p, Tensor({DType::I32, {3}}, {1, 2, 3})).isOk());
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  // The header ends in a newline on a 64-byte boundary; 3 x i4 follow.
  size_t newline = bytes.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ((newline + 1) % 64, 0u);
  EXPECT_EQ(bytes.size(), newline + 1 + 12);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<i4', 'fortran_order': False, "
                       "'shape': (3,), }"),
            std::string::npos);
}

TEST_F(NpyTest, ReadsBf16RawWords) {
  // ml_dtypes writes bfloat16 as 2-byte void words; 0x3F80 = 1, 0xC040 = -3.
  std::string data("\x80\x3F\x40\xC0", 4);
  for (const char *descr : {"|V2", "<u2"}) {
    std::string p = path(descr[1] == 'V' ? "v2" : "u2");
    writeRaw(p,
             std::string("{'descr': '") + descr +
                 "', 'fortran_order': False, 'shape': (2,), }",
             data);
    TensorType bf16{DType::BF16, {2}};
    Tensor t;
    Status st = readNpy(p, &bf16, t);
    ASSERT_TRUE(st.isOk()) << st.toString();
    expectSameTensor(t, Tensor(bf16, {1.0, -3.0}));
  }
}

TEST_F(NpyTest, ConvertsToTheExpectedDType) {
  std::string p = path("f8");
  double tie = 1.0 + std::ldexp(1.0, -8); // a bf16 tie: rounds to 1.0
  ASSERT_TRUE(writeNpy(p, Tensor({DType::F64, {2}}, {tie, 0.1})).isOk());
  TensorType bf16{DType::BF16, {2}};
  Tensor t;
  ASSERT_TRUE(readNpy(p, &bf16, t).isOk());
  expectSameTensor(t, Tensor(bf16, {1.0, roundTo(DType::BF16, 0.1)}));
  TensorType f16{DType::F16, {2}};
  ASSERT_TRUE(readNpy(p, &f16, t).isOk());
  expectSameTensor(
      t, Tensor(f16, {roundTo(DType::F16, tie), roundTo(DType::F16, 0.1)}));
}

TEST_F(NpyTest, ElementKindMustMatchTheExpectedDType) {
  std::string ints = path("i4");
  ASSERT_TRUE(writeNpy(ints, Tensor({DType::I32, {2}}, {1, 2})).isOk());
  std::string floats = path("f4");
  ASSERT_TRUE(writeNpy(floats, Tensor({DType::F32, {2}}, {1, 0})).isOk());
  std::string bools = path("b1");
  ASSERT_TRUE(writeNpy(bools, Tensor({DType::I1, {2}}, {1, 0})).isOk());
  std::string words = path("v2");
  writeRaw(words, "{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }",
           std::string("\x80\x3F\x40\xC0", 4));

  struct Case {
    std::string file;
    DType expected;
    const char *message; // what follows "<path>: "
  };
  std::vector<Case> refused = {
      {ints, DType::F32, "file holds int32, expected f32"},
      {ints, DType::BF16, "file holds int32, expected bf16"},
      {ints, DType::I1, "file holds int32, expected i1"},
      {floats, DType::I32, "file holds float32, expected i32"},
      {floats, DType::I64, "file holds float32, expected i64"},
      {floats, DType::I1, "file holds float32, expected i1"},
      {bools, DType::F32, "file holds bool, expected f32"},
      {bools, DType::I32, "file holds bool, expected i32"},
      {words, DType::I32, "file holds bfloat16, expected i32"},
  };
  for (const Case &c : refused) {
    TensorType type{c.expected, {2}};
    Tensor t({DType::F32, {1}}, {7});
    Status st = readNpy(c.file, &type, t);
    EXPECT_EQ(st.code(), ErrorCode::DtypeMismatch) << st.toString();
    EXPECT_EQ(st.message(), c.file + ": " + c.message);
    // Nothing is written on failure.
    EXPECT_EQ(t.type(), (TensorType{DType::F32, {1}}));
  }

  // Every float file converts to every float dtype.
  for (const std::string &file : {floats, words})
    for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
      TensorType type{dt, {2}};
      Tensor t;
      Status st = readNpy(file, &type, t);
      EXPECT_TRUE(st.isOk()) << st.toString();
      EXPECT_EQ(t.dtype(), dt);
    }
}

TEST_F(NpyTest, IntegerWidthsConvertWhenTheValuesFit) {
  std::string narrow = path("i4");
  ASSERT_TRUE(writeNpy(narrow, Tensor({DType::I32, {3}}, {-2147483648.0, 0, 7}))
                  .isOk());
  TensorType i64{DType::I64, {3}};
  Tensor t;
  Status st = readNpy(narrow, &i64, t);
  ASSERT_TRUE(st.isOk()) << st.toString();
  expectSameTensor(t, Tensor(i64, {-2147483648.0, 0, 7}));

  std::string fits = path("i8fits");
  ASSERT_TRUE(writeNpy(fits, Tensor({DType::I64, {3}},
                                    {-2147483648.0, 2147483647.0, -1}))
                  .isOk());
  TensorType i32{DType::I32, {3}};
  st = readNpy(fits, &i32, t);
  ASSERT_TRUE(st.isOk()) << st.toString();
  expectSameTensor(t, Tensor(i32, {-2147483648.0, 2147483647.0, -1}));

  for (double big : {2147483648.0, -2147483649.0, 4294967296.0 + 7}) {
    std::string wide = path("i8big");
    ASSERT_TRUE(writeNpy(wide, Tensor({DType::I64, {3}}, {1, 2, big})).isOk());
    st = readNpy(wide, &i32, t);
    EXPECT_EQ(st.code(), ErrorCode::DtypeMismatch) << st.toString();
    EXPECT_EQ(st.message(),
              wide + ": value " + std::to_string(static_cast<int64_t>(big)) +
                  " at flat index 2 does not fit i32 (file holds int64)");
  }
}

TEST_F(NpyTest, ReadsVersion2Headers) {
  std::string p = path("v2");
  std::string data("\x01\x00\x00\x00\xFF\xFF\xFF\xFF", 8);
  writeRaw(p, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }",
           data, /*major=*/2);
  Tensor t;
  Status st = readNpy(p, nullptr, t);
  ASSERT_TRUE(st.isOk()) << st.toString();
  expectSameTensor(t, Tensor({DType::I32, {1, 2}}, {1, -1}));
}

TEST_F(NpyTest, TruncatedFileIsMalformed) {
  std::string p = path("trunc");
  ASSERT_TRUE(writeNpy(p, Tensor({DType::F32, {32, 32}},
                                 std::vector<double>(1024, 1.0)))
                  .isOk());
  std::filesystem::resize_file(p, 128 + 100);
  Tensor t;
  Status st = readNpy(p, nullptr, t);
  EXPECT_EQ(st.code(), ErrorCode::Malformed);
  EXPECT_EQ(st.message(), p + ": expected 4096 data bytes, got 100");
  // Cut inside the header as well.
  std::filesystem::resize_file(p, 30);
  EXPECT_EQ(readNpy(p, nullptr, t).code(), ErrorCode::Malformed);
}

TEST_F(NpyTest, MalformedHeaders) {
  Tensor t;
  std::string p = path("magic");
  std::ofstream(p, std::ios::binary) << "not a numpy file at all";
  EXPECT_EQ(readNpy(p, nullptr, t).code(), ErrorCode::Malformed);

  std::string noShape = path("noshape");
  writeRaw(noShape, "{'descr': '<f4', 'fortran_order': False, }", "");
  Status st = readNpy(noShape, nullptr, t);
  EXPECT_EQ(st.code(), ErrorCode::Malformed);
  EXPECT_NE(st.message().find(noShape), std::string::npos);

  std::string badShape = path("badshape");
  writeRaw(badShape,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "");
  EXPECT_EQ(readNpy(badShape, nullptr, t).code(), ErrorCode::Malformed);

  // Dims whose product wraps to exactly 16 bytes modulo 2^64: (2^62 - 1)^2
  // is 1 modulo 2^62, times 4 elements of 4 bytes. A wrapping size check
  // would accept the 16 data bytes.
  std::string huge = path("huge");
  writeRaw(huge,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483649, "
           "2147483647, 2147483649, 2147483647, 4), }",
           std::string(16, '\0'));
  EXPECT_EQ(readNpy(huge, nullptr, t).code(), ErrorCode::Malformed);

  std::string fortran = path("fortran");
  writeRaw(fortran, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
           std::string(4, '\0'));
  EXPECT_EQ(readNpy(fortran, nullptr, t).code(), ErrorCode::Unsupported);

  std::string bigEndian = path("be");
  writeRaw(bigEndian,
           "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
           std::string(4, '\0'));
  EXPECT_EQ(readNpy(bigEndian, nullptr, t).code(), ErrorCode::Unsupported);
}

TEST_F(NpyTest, WrongShapeWithExpected) {
  std::string p = path("shape");
  ASSERT_TRUE(
      writeNpy(p, Tensor({DType::F32, {2, 3}}, std::vector<double>(6, 0.0)))
          .isOk());
  TensorType expected{DType::F32, {3, 2}};
  Tensor t;
  Status st = readNpy(p, &expected, t);
  EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch);
  EXPECT_NE(st.message().find("[2, 3]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[3, 2]"), std::string::npos) << st.message();
}

// The fuzzer's finds: dims whose product passes int64 next to a zero dim
// (so the data is empty and the byte check alone would pass). Refused from
// the header, before any element count is computed.
TEST_F(NpyTest, HugeDimsBesideAZeroAreMalformed) {
  for (const char *name : {"ub-npy-numel.npy", "npy-fuzz-found-min.npy"}) {
    std::string p = std::string(POOT_TEST_INPUTS_DIR) + "/" + name;
    Tensor t({DType::F32, {1}}, {5.0});
    Status st = readNpy(p, nullptr, t);
    EXPECT_EQ(st.code(), ErrorCode::Malformed) << name << ": " << st.toString();
    EXPECT_NE(st.message().find("overflows"), std::string::npos)
        << st.message();
    EXPECT_EQ(t.at(0), 5.0) << name;
  }
  // Within int64 but past the runtime's limit: unsupported, not allocated.
  std::string big = path("big");
  writeRaw(big,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, "
           "1048576, 0), }",
           "");
  Tensor t;
  EXPECT_EQ(readNpy(big, nullptr, t).code(), ErrorCode::Unsupported);
}

/// A fresh, empty directory in the test temp dir, removed at the end.
class NpyFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = ::testing::TempDir() + "poot_npy_files_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  /// The names in `dir`, sorted.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir;
};

TEST_F(NpyFilesTest, RefusesNamesOutsideTheDirectory) {
  Tensor t({DType::F32, {2}}, {1, 2});
  for (const std::string &bad :
       {std::string("../../x"), std::string("a/b"), std::string("a\\b"),
        std::string(".."), std::string("."), std::string(""),
        std::string("nul\0tail", 8)}) {
    EXPECT_FALSE(isPlainFileName(bad)) << bad;
    Status st = writeNpyFiles(dir, {{"good", &t}, {bad, &t}});
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << bad;
    EXPECT_TRUE(listing().empty()) << bad;
  }
  EXPECT_TRUE(isPlainFileName("l0.k_cache"));
  EXPECT_TRUE(isPlainFileName("..x"));
  EXPECT_EQ(writeNpyFiles(dir, {{"y", &t}, {"y", &t}}).code(),
            ErrorCode::InvalidArgument);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFilesTest, WritesEveryFileOrNone) {
  Tensor a({DType::F32, {2}}, {1, 2}), b({DType::I32, {1}}, {3});
  ASSERT_TRUE(writeNpyFiles(dir, {{"a", &a}, {"b", &b}}).isOk());
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.npy", "b.npy"}));
  Tensor back;
  ASSERT_TRUE(readNpy(dir + "/b.npy", nullptr, back).isOk());
  EXPECT_EQ(back.at(0), 3.0);
  std::filesystem::remove(dir + "/a.npy");
  std::filesystem::remove(dir + "/b.npy");

  // The second file cannot be written (a directory holds its temporary's
  // name): the first is not published and no temporary is left.
  std::filesystem::create_directory(dir + "/b.npy.tmp");
  Status st = writeNpyFiles(dir, {{"a", &a}, {"b", &b}});
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("nothing written"), std::string::npos)
      << st.message();
  EXPECT_EQ(listing(), (std::vector<std::string>{"b.npy.tmp"}));
  std::filesystem::remove(dir + "/b.npy.tmp");

  // The second cannot be renamed into place (a non-empty directory holds
  // its name): the first, already renamed, is taken back.
  std::filesystem::create_directories(dir + "/b.npy/inside");
  st = writeNpyFiles(dir, {{"a", &a}, {"b", &b}});
  EXPECT_EQ(st.code(), ErrorCode::Io);
  EXPECT_EQ(listing(), (std::vector<std::string>{"b.npy"}));
}

TEST_F(NpyTest, MissingFileIsIo) {
  Tensor t;
  std::string p = ::testing::TempDir() + "poot_npy_does_not_exist/x.npy";
  Status st = readNpy(p, nullptr, t);
  EXPECT_EQ(st.code(), ErrorCode::Io);
  EXPECT_NE(st.message().find(p), std::string::npos);
  EXPECT_EQ(writeNpy(p, Tensor({DType::F32, {}}, {1})).code(), ErrorCode::Io);
}

} // namespace
