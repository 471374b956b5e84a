//===- SpirvGroupLoadsTest.cpp - Grouped buffer loads on the Vulkan device ===//
//
// The SPIR-V target reads the buffers a kernel only reads with vector loads
// in groups of up to 16 bytes (codegen/SPIRV/WordLoads.h). The generated
// attention kernels take only whole groups; these hand-written kernels
// also take the other paths: an element load from a grouped buffer (the
// element picked out of its group by the index's low bits), and a vector
// load whose user needs the vector itself, in bf16, f16 and f32. Each
// kernel is lowered as the compiler lowers its kernels, checked to have
// been grouped, run on the Vulkan device and compared exactly with the
// host (every value and sum is exact in f32). Skips where there is no
// Vulkan device.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/SPIRV.h"
#include "poot/Runtime/Tensor.h"
#include "poot/Runtime/VulkanDevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>

using namespace poot;
using namespace poot::rt;

namespace {

constexpr int kLanes = 64;

/// A kernel over `a` and `c` (64 elements of `E` each) writing one f32 a
/// lane t to `out`:
///   - a's group of `N` at N (t / N), its elements weighted 1, 2, 3, ...
///     (one load of the group; the users take constant elements);
///   - a[(5 t + 3) % 64], times 256 (an element load: its group, then the
///     element);
///   - c's vector of `M` at M (t / M), widened to f32 as a vector (a user
///     that needs the vector), its elements weighted 1, 2, 4, 8;
///   - c[t], times 1024.
std::string kernelText(const std::string &e, int n, int m) {
  std::string sb = "#spirv.storage_class<StorageBuffer>";
  std::string buf = "memref<64x" + e + ", " + sb + ">";
  std::string vn = "vector<" + std::to_string(n) + "x" + e + ">";
  std::string vm = "vector<" + std::to_string(m) + "x" + e + ">";
  std::string vmf = "vector<" + std::to_string(m) + "xf32>";
  auto toF32 = [&](const std::string &v, const std::string &x,
                   const std::string &type) {
    if (e == "f32")
      return "    " + v + " = arith.addf " + x + ", %zero" +
             (type == "f32" ? "" : "v") + " : " + type + "\n";
    return "    " + v + " = arith.extf " + x + " : " +
           (type == "f32" ? e : vm) + " to " + type + "\n";
  };
  std::string s;
  s += "module attributes {gpu.container_module} {\n";
  s += "gpu.module @k {\n";
  s += "  gpu.func @mixed(%a: " + buf + ", %c: " + buf +
       ", %out: memref<64xf32, " + sb +
       ">) kernel attributes {spirv.entry_point_abi = "
       "#spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {\n";
  s += "    %t = gpu.thread_id x\n";
  s += "    %n = arith.constant " + std::to_string(n) + " : index\n";
  s += "    %m = arith.constant " + std::to_string(m) + " : index\n";
  s += "    %c3 = arith.constant 3 : index\n";
  s += "    %c5 = arith.constant 5 : index\n";
  s += "    %c63 = arith.constant 63 : index\n";
  s += "    %zero = arith.constant 0.0 : f32\n";
  s += "    %zerov = arith.constant dense<0.0> : " + vmf + "\n";
  s += "    %gn = arith.divui %t, %n : index\n";
  s += "    %an = arith.muli %gn, %n : index\n";
  s += "    %va = vector.load %a[%an] : " + buf + ", " + vn + "\n";
  s += "    %s0 = arith.constant 0.0 : f32\n";
  std::string acc = "%s0";
  for (int i = 0; i < n; ++i) {
    std::string k = std::to_string(i);
    s += "    %ea" + k + " = vector.extract %va[" + k + "] : " + e + " from " +
         vn + "\n";
    s += toF32("%fa" + k, "%ea" + k, "f32");
    s += "    %wa" + k + " = arith.constant " + std::to_string(i + 1) +
         ".0 : f32\n";
    s += "    %pa" + k + " = arith.mulf %fa" + k + ", %wa" + k + " : f32\n";
    s += "    %sa" + k + " = arith.addf " + acc + ", %pa" + k + " : f32\n";
    acc = "%sa" + k;
  }
  s += "    %t5 = arith.muli %t, %c5 : index\n";
  s += "    %t53 = arith.addi %t5, %c3 : index\n";
  s += "    %at = arith.andi %t53, %c63 : index\n";
  s += "    %xa = memref.load %a[%at] : " + buf + "\n";
  s += toF32("%fxa", "%xa", "f32");
  s += "    %w256 = arith.constant 256.0 : f32\n";
  s += "    %pxa = arith.mulf %fxa, %w256 : f32\n";
  s += "    %sx = arith.addf " + acc + ", %pxa : f32\n";
  s += "    %gm = arith.divui %t, %m : index\n";
  s += "    %cm = arith.muli %gm, %m : index\n";
  s += "    %vc = vector.load %c[%cm] : " + buf + ", " + vm + "\n";
  s += toF32("%fvc", "%vc", vmf);
  acc = "%sx";
  for (int i = 0; i < m; ++i) {
    std::string k = std::to_string(i);
    s += "    %ec" + k + " = vector.extract %fvc[" + k + "] : f32 from " + vmf +
         "\n";
    s += "    %wc" + k + " = arith.constant " + std::to_string(1 << i) +
         ".0 : f32\n";
    s += "    %pc" + k + " = arith.mulf %ec" + k + ", %wc" + k + " : f32\n";
    s += "    %sc" + k + " = arith.addf " + acc + ", %pc" + k + " : f32\n";
    acc = "%sc" + k;
  }
  s += "    %xc = memref.load %c[%t] : " + buf + "\n";
  s += toF32("%fxc", "%xc", "f32");
  s += "    %w1024 = arith.constant 1024.0 : f32\n";
  s += "    %pxc = arith.mulf %fxc, %w1024 : f32\n";
  s += "    %total = arith.addf " + acc + ", %pxc : f32\n";
  s += "    memref.store %total, %out[%t] : memref<64xf32, " + sb + ">\n";
  s += "    gpu.return\n  }\n}\n}\n";
  return s;
}

float aValue(int i) { return static_cast<float>(i - 20) * 0.5f; }
float cValue(int i) { return static_cast<float>(i % 13) * 0.25f - 1.0f; }

float expected(int t, int n, int m) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += aValue(t / n * n + i) * (i + 1);
  sum += aValue((5 * t + 3) % 64) * 256.0;
  for (int i = 0; i < m; ++i)
    sum += cValue(t / m * m + i) * (1 << i);
  sum += cValue(t) * 1024.0;
  return static_cast<float>(sum);
}

class SpirvGroupLoads : public ::testing::Test {
protected:
  void SetUp() override {
    Status s = VulkanDevice::create(device);
    if (!s.isOk())
      GTEST_SKIP() << s.toString();
  }

  /// Lowers the kernel over `e` as generated kernels are lowered, and
  /// returns its SPIR-V; `retyped` gets the types of its buffers.
  std::vector<uint32_t> lower(const std::string &e, int n, int m,
                              std::string &retyped) {
    mlir::MLIRContext ctx;
    ctx.loadDialect<mlir::arith::ArithDialect, mlir::gpu::GPUDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::spirv::SPIRVDialect, mlir::vector::VectorDialect>();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(kernelText(e, n, m), &ctx);
    if (!module) {
      ADD_FAILURE() << "the test kernel does not parse";
      return {};
    }
    codegen::createSPIRVTarget(/*f16=*/true)->prepareModule(*module);
    auto binaries = codegen::lowerToSPIRV(*module);
    if (mlir::failed(binaries) || binaries->size() != 1) {
      ADD_FAILURE() << "the test kernel does not lower";
      return {};
    }
    // The buffers' types in the SPIR-V module.
    module->walk([&](mlir::spirv::GlobalVariableOp v) {
      std::string text;
      llvm::raw_string_ostream os(text);
      v.getType().print(os);
      retyped += " " + text;
    });
    return binaries->front();
  }

  void run(const std::string &e, int n, int m) {
    std::string types;
    std::vector<uint32_t> words = lower(e, n, m, types);
    ASSERT_FALSE(words.empty());
    VulkanKernel kernel;
    Status status = device->createKernel(words, "mixed", 3, kernel);
    ASSERT_TRUE(status.isOk()) << status.toString() << "\n" << types;
    std::vector<uint8_t> a, c;
    for (int i = 0; i < kLanes; ++i)
      for (auto [values, v] :
           {std::pair(&a, aValue(i)), std::pair(&c, cValue(i))}) {
        if (e == "f32") {
          uint8_t bytes[4];
          std::memcpy(bytes, &v, 4);
          values->insert(values->end(), bytes, bytes + 4);
          continue;
        }
        uint16_t h = e == "bf16" ? floatToBf16Bits(v) : floatToHalfBits(v);
        values->push_back(h & 0xFF);
        values->push_back(h >> 8);
      }
    VulkanBuffer ab, cb, ob;
    ASSERT_TRUE(device->createBuffer(a.size(), ab).isOk());
    ASSERT_TRUE(ab.upload(a.data(), a.size()).isOk());
    ASSERT_TRUE(device->createBuffer(c.size(), cb).isOk());
    ASSERT_TRUE(cb.upload(c.data(), c.size()).isOk());
    ASSERT_TRUE(device->createBuffer(kLanes * 4, ob).isOk());
    status = device->dispatch(kernel, {ab, cb, ob}, 1);
    ASSERT_TRUE(status.isOk()) << status.toString();
    std::vector<float> got(kLanes);
    ASSERT_TRUE(ob.download(got.data(), kLanes * 4).isOk());
    int wrong = 0;
    for (int t = 0; t < kLanes; ++t)
      if (got[t] != expected(t, n, m) && ++wrong <= 5)
        ADD_FAILURE() << e << ": out[" << t << "] = " << got[t] << ", expected "
                      << expected(t, n, m);
    EXPECT_EQ(wrong, 0);
    typesSeen = types;
  }

  std::unique_ptr<VulkanDevice> device;
  std::string typesSeen;
};

// a in groups of 16 bytes (4 words), c of 8 bytes (2 words).
TEST_F(SpirvGroupLoads, Bf16ElementAndVectorLoadsMatchTheHost) {
  run("bf16", 8, 4);
  EXPECT_NE(typesSeen.find("vector<4xi32>"), std::string::npos) << typesSeen;
  EXPECT_NE(typesSeen.find("vector<2xi32>"), std::string::npos) << typesSeen;
}

TEST_F(SpirvGroupLoads, F16ElementAndVectorLoadsMatchTheHost) {
  run("f16", 8, 4);
  EXPECT_NE(typesSeen.find("vector<4xi32>"), std::string::npos) << typesSeen;
  EXPECT_NE(typesSeen.find("vector<2xi32>"), std::string::npos) << typesSeen;
}

// a in groups of 16 bytes (4 floats), c of 8 bytes (2 floats, the vector
// used whole).
TEST_F(SpirvGroupLoads, F32ElementAndVectorLoadsMatchTheHost) {
  run("f32", 4, 2);
  EXPECT_NE(typesSeen.find("vector<4xf32>"), std::string::npos) << typesSeen;
  EXPECT_NE(typesSeen.find("vector<2xf32>"), std::string::npos) << typesSeen;
}

// c in words of two bf16 (a vector of 2 at an even index).
TEST_F(SpirvGroupLoads, Bf16PairsMatchTheHost) {
  run("bf16", 4, 2);
  EXPECT_NE(typesSeen.find("vector<2xi32>"), std::string::npos) << typesSeen;
}

} // namespace
