//===- CudaDeviceTest.cpp - Tests of the CUDA device --------------------===//
//
// Without a driver or a GPU, create() must say Unsupported (never crash)
// and the rest skips. With one, small PTX kernels (written for these tests,
// as nvcc -ptx emits them, at sm_75 so every device since Turing JITs them)
// check what the runner relies on: buffers round-trip, a module loads from
// PTX with or without MLIR's trailing NUL, a refused module or name comes
// back as a Status with the driver's words, launches see their buffers in
// parameter order over a 2-D grid, static shared memory works, refused
// launches never reach the driver, graphs replay, and timing returns one
// value per run.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/PlanRunner.h"

#include <gtest/gtest.h>

#include <iostream>
#include <numeric>

using namespace poot::rt;

namespace {

/// add_one(in, out): out[i] = in[i] + 1 for i < 1000, i the linear thread
/// index over a 2-D grid. increment(x): x[i] += 1 for i < 1000.
/// block_sum(in, out): out[b] = the sum of in[256 b .. 256 b + 255], one
/// block of 256 threads each, through 1 KiB of static shared memory.
const char *const kPtx = R"ptx(.version 7.0
.target sm_75
.address_size 64

.visible .entry add_one(
	.param .u64 p0,
	.param .u64 p1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	mov.u32 	%r2, %ctaid.y;
	mov.u32 	%r3, %nctaid.x;
	mov.u32 	%r4, %ctaid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	mov.u32 	%r6, %ntid.x;
	mov.u32 	%r7, %tid.x;
	mad.lo.s32 	%r1, %r5, %r6, %r7;
	setp.gt.u32 	%p1, %r1, 999;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f1, [%rd5];
	add.f32 	%f2, %f1, 0f3F800000;
	cvta.to.global.u64 	%rd6, %rd2;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.f32 	[%rd7], %f2;

$L__BB0_2:
	ret;

}
.visible .entry increment(
	.param .u64 p0
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [p0];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r1, %r2, %r3, %r4;
	setp.gt.u32 	%p1, %r1, 999;
	@%p1 bra 	$L__BB1_2;

	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd4], %f2;

$L__BB1_2:
	ret;

}
.visible .entry block_sum(
	.param .u64 p0,
	.param .u64 p1
)
{
	.reg .pred 	%p<10>;
	.reg .f32 	%f<27>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<9>;
	.shared .align 4 .b8 partial[1024];

	ld.param.u64 	%rd2, [p0];
	ld.param.u64 	%rd1, [p1];
	cvta.to.global.u64 	%rd3, %rd2;
	mov.u32 	%r1, %ctaid.x;
	shl.b32 	%r4, %r1, 8;
	mov.u32 	%r2, %tid.x;
	add.s32 	%r5, %r4, %r2;
	mul.wide.u32 	%rd4, %r5, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f1, [%rd5];
	shl.b32 	%r6, %r2, 2;
	mov.u32 	%r7, partial;
	add.s32 	%r3, %r7, %r6;
	st.shared.f32 	[%r3], %f1;
	bar.sync 	0;
	setp.gt.u32 	%p1, %r2, 127;
	@%p1 bra 	$L__BB2_2;

	ld.shared.f32 	%f2, [%r3];
	ld.shared.f32 	%f3, [%r3+512];
	add.f32 	%f4, %f3, %f2;
	st.shared.f32 	[%r3], %f4;

$L__BB2_2:
	bar.sync 	0;
	setp.gt.u32 	%p2, %r2, 63;
	@%p2 bra 	$L__BB2_4;

	ld.shared.f32 	%f5, [%r3];
	ld.shared.f32 	%f6, [%r3+256];
	add.f32 	%f7, %f6, %f5;
	st.shared.f32 	[%r3], %f7;

$L__BB2_4:
	bar.sync 	0;
	setp.gt.u32 	%p3, %r2, 31;
	@%p3 bra 	$L__BB2_6;

	ld.shared.f32 	%f8, [%r3];
	ld.shared.f32 	%f9, [%r3+128];
	add.f32 	%f10, %f9, %f8;
	st.shared.f32 	[%r3], %f10;

$L__BB2_6:
	bar.sync 	0;
	setp.gt.u32 	%p4, %r2, 15;
	@%p4 bra 	$L__BB2_8;

	ld.shared.f32 	%f11, [%r3];
	ld.shared.f32 	%f12, [%r3+64];
	add.f32 	%f13, %f12, %f11;
	st.shared.f32 	[%r3], %f13;

$L__BB2_8:
	bar.sync 	0;
	setp.gt.u32 	%p5, %r2, 7;
	@%p5 bra 	$L__BB2_10;

	ld.shared.f32 	%f14, [%r3];
	ld.shared.f32 	%f15, [%r3+32];
	add.f32 	%f16, %f15, %f14;
	st.shared.f32 	[%r3], %f16;

$L__BB2_10:
	bar.sync 	0;
	setp.gt.u32 	%p6, %r2, 3;
	@%p6 bra 	$L__BB2_12;

	ld.shared.f32 	%f17, [%r3];
	ld.shared.f32 	%f18, [%r3+16];
	add.f32 	%f19, %f18, %f17;
	st.shared.f32 	[%r3], %f19;

$L__BB2_12:
	bar.sync 	0;
	setp.gt.u32 	%p7, %r2, 1;
	@%p7 bra 	$L__BB2_14;

	ld.shared.f32 	%f20, [%r3];
	ld.shared.f32 	%f21, [%r3+8];
	add.f32 	%f22, %f21, %f20;
	st.shared.f32 	[%r3], %f22;

$L__BB2_14:
	bar.sync 	0;
	setp.ne.s32 	%p8, %r2, 0;
	@%p8 bra 	$L__BB2_16;

	ld.shared.f32 	%f23, [partial+4];
	ld.shared.f32 	%f24, [%r3];
	add.f32 	%f25, %f23, %f24;
	st.shared.f32 	[%r3], %f25;

$L__BB2_16:
	bar.sync 	0;
	@%p8 bra 	$L__BB2_18;

	cvta.to.global.u64 	%rd6, %rd1;
	ld.shared.f32 	%f26, [partial];
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd6, %rd7;
	st.global.f32 	[%rd8], %f26;

$L__BB2_18:
	ret;

}

)ptx";

/// One device for the whole suite, or the reason there is none.
class CudaDeviceTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    status = new Status(CudaDevice::create(device));
    if (device)
      std::cout << "[ cuda     ] " << device->description() << "\n";
  }
  static void TearDownTestSuite() {
    device.reset();
    delete status;
    status = nullptr;
  }
  void SetUp() override {
    if (!device)
      GTEST_SKIP() << "no CUDA device: " << status->toString();
  }

  static std::unique_ptr<CudaDevice> device;
  static Status *status;
};

std::unique_ptr<CudaDevice> CudaDeviceTest::device;
Status *CudaDeviceTest::status = nullptr;

std::vector<float> iota(size_t n, float start = 0) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(CudaDeviceCreate, IsUnsupportedOrWorks) {
  std::unique_ptr<CudaDevice> dev;
  Status s = CudaDevice::create(dev);
  if (!s.isOk()) {
    // The one acceptable failure here: no driver, or no device behind it.
    EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_FALSE(s.message().empty());
    EXPECT_EQ(dev, nullptr);
    int count = -1;
    EXPECT_EQ(CudaDevice::deviceCount(count).code(), ErrorCode::Unsupported);
    EXPECT_EQ(count, 0);
    return;
  }
  ASSERT_NE(dev, nullptr);
  const poot::DeviceFacts &f = dev->facts();
  EXPECT_EQ(f.target, "nvvm");
  EXPECT_EQ(f.name, "sm_" + std::to_string(dev->computeCapability()));
  EXPECT_GT(f.computeUnits, 0);
  EXPECT_EQ(f.subgroupSize, 32);
  EXPECT_GE(f.maxWorkgroupSize, 1024);
  EXPECT_GE(f.workgroupMemoryBytes, 48 * 1024);
  EXPECT_GE(f.maxGridX, 65535);
  EXPECT_GE(f.maxGridY, 65535);
  EXPECT_GT(f.memoryBytes, 0);
  EXPECT_NE(dev->description().find(f.name), std::string::npos);
  EXPECT_NE(dev->stream(), nullptr);
  // A second device on the same GPU shares the primary context.
  std::unique_ptr<CudaDevice> again;
  EXPECT_TRUE(CudaDevice::create(again).isOk());
  int count = 0;
  ASSERT_TRUE(CudaDevice::deviceCount(count).isOk());
  EXPECT_EQ(CudaDevice::create(again, count).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(CudaDevice::create(again, -1).code(), ErrorCode::InvalidArgument);
}

TEST(CudaDeviceCreate, MedianOf) {
  EXPECT_EQ(medianOf({}), 0.0);
  EXPECT_EQ(medianOf({3}), 3.0);
  EXPECT_EQ(medianOf({5, 1, 3}), 3.0);
  EXPECT_EQ(medianOf({4, 1, 3, 2}), 2.5);
}

TEST_F(CudaDeviceTest, BuffersRoundTrip) {
  CudaDeviceBuffer buf;
  ASSERT_TRUE(device->createBuffer(4000, buf).isOk());
  EXPECT_TRUE(buf.valid());
  EXPECT_EQ(buf.size(), 4000);
  EXPECT_NE(buf.devicePointer(), 0u);
  std::vector<float> in = iota(1000), out(1000, -1);
  ASSERT_TRUE(buf.upload(in.data(), 4000).isOk());
  ASSERT_TRUE(buf.download(out.data(), 4000).isOk());
  EXPECT_EQ(in, out);
  // Ranges inside the buffer only.
  float two[2] = {7, 8};
  ASSERT_TRUE(buf.upload(two, 8, 3992).isOk());
  ASSERT_TRUE(buf.download(out.data(), 4000).isOk());
  EXPECT_EQ(out[998], 7);
  EXPECT_EQ(out[999], 8);
  EXPECT_EQ(buf.upload(two, 8, 3996).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(buf.download(two, 8, -4).code(), ErrorCode::InvalidArgument);
  ASSERT_TRUE(buf.fill(0).isOk());
  ASSERT_TRUE(buf.download(out.data(), 4000).isOk());
  EXPECT_EQ(out, std::vector<float>(1000, 0.0f));

  CudaDeviceBuffer empty;
  EXPECT_EQ(empty.upload(two, 8).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device->createBuffer(0, empty).code(), ErrorCode::InvalidArgument);
  // Far more than any device has: the driver's refusal, as a Status.
  Status huge = device->createBuffer(int64_t(1) << 50, empty);
  EXPECT_FALSE(huge.isOk());
  EXPECT_NE(huge.message().find("cuMemAlloc"), std::string::npos)
      << huge.toString();
  EXPECT_FALSE(empty.valid());
}

TEST_F(CudaDeviceTest, ModulesAndTheirRefusals) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kPtx, module).isOk());
  // MLIR's gpu-module-to-binary ends its PTX with a NUL.
  CudaModule withNul;
  Status s = device->createModule(std::string(kPtx) + '\0', withNul);
  ASSERT_TRUE(s.isOk()) << s.toString();

  CudaKernel k;
  ASSERT_TRUE(module.kernel("add_one", k).isOk());
  EXPECT_EQ(k.name(), "add_one");
  EXPECT_GE(k.maxThreadsPerBlock(), 256);
  EXPECT_GT(k.registers(), 0);
  EXPECT_TRUE(k.numParams() == 2 || k.numParams() == -1);
  CudaKernel sum;
  ASSERT_TRUE(module.kernel("block_sum", sum).isOk());
  EXPECT_EQ(sum.staticSharedBytes(), 1024);

  s = module.kernel("no_such_kernel", k);
  EXPECT_EQ(s.code(), ErrorCode::UnknownName);
  EXPECT_NE(s.message().find("no_such_kernel"), std::string::npos);

  CudaModule bad;
  s = device->createModule(".version 7.0\n.target sm_75\n.address_size 64\n"
                           ".visible .entry f() { bogus.instruction; }\n",
                           bad);
  EXPECT_EQ(s.code(), ErrorCode::Malformed) << s.toString();
  EXPECT_NE(s.message().find("cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX"),
            std::string::npos)
      << s.toString();
  EXPECT_FALSE(bad.valid());
  EXPECT_EQ(device->createModule("", bad).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device->createModule(std::string("abc\0def", 7), bad).code(),
            ErrorCode::Malformed);
}

TEST_F(CudaDeviceTest, LaunchesSeeTheirBuffersInOrder) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kPtx, module).isOk());
  CudaKernel addOne;
  ASSERT_TRUE(module.kernel("add_one", addOne).isOk());
  CudaDeviceBuffer in, out;
  ASSERT_TRUE(device->createBuffer(4000, in).isOk());
  ASSERT_TRUE(device->createBuffer(4000, out).isOk());
  std::vector<float> host = iota(1000, 10);
  ASSERT_TRUE(in.upload(host.data(), 4000).isOk());
  ASSERT_TRUE(out.fill(0).isOk());
  // 3 x 3 blocks of 128 lanes: 1152 threads, the last 152 idle.
  Status s = device->launch(addOne, {&in, &out}, 3, 3, 128);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_TRUE(device->synchronize().isOk());
  std::vector<float> got(1000);
  ASSERT_TRUE(out.download(got.data(), 4000).isOk());
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(got[i], host[i] + 1) << "at " << i;

  // Static shared memory and barriers.
  CudaKernel sum;
  ASSERT_TRUE(module.kernel("block_sum", sum).isOk());
  CudaDeviceBuffer sums;
  ASSERT_TRUE(device->createBuffer(4 * 4, sums).isOk());
  CudaDeviceBuffer values;
  ASSERT_TRUE(device->createBuffer(4 * 1024, values).isOk());
  std::vector<float> ones(1024, 1.0f);
  for (int i = 0; i < 1024; ++i)
    ones[i] = static_cast<float>(i / 256 + 1);
  ASSERT_TRUE(values.upload(ones.data(), 4096).isOk());
  ASSERT_TRUE(device->launch(sum, {&values, &sums}, 4, 1, 256).isOk());
  float blockSums[4];
  ASSERT_TRUE(sums.download(blockSums, 16).isOk());
  for (int b = 0; b < 4; ++b)
    EXPECT_EQ(blockSums[b], 256.0f * (b + 1));

  // Refused before the driver sees them.
  if (addOne.numParams() >= 0)
    EXPECT_EQ(device->launch(addOne, {&in}, 1, 1, 32).code(),
              ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(addOne, {&in, nullptr}, 1, 1, 32).code(),
            ErrorCode::InvalidArgument);
  CudaDeviceBuffer empty;
  EXPECT_EQ(device->launch(addOne, {&in, &empty}, 1, 1, 32).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(addOne, {&in, &out}, 1, 1, 0).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(addOne, {&in, &out}, 1, 1, 4096).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(addOne, {&in, &out}, 0, 1, 32).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(addOne, {&in, &out}, 1, int64_t(1) << 40, 32)
                .code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(device->launch(CudaKernel(), {&in, &out}, 1, 1, 32).code(),
            ErrorCode::InvalidArgument);
  // The device still works after the refusals.
  ASSERT_TRUE(device->launch(addOne, {&in, &out}, 8, 1, 128).isOk());
  ASSERT_TRUE(device->synchronize().isOk());
}

TEST_F(CudaDeviceTest, GraphsReplayTheCapturedSequence) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kPtx, module).isOk());
  CudaKernel inc;
  ASSERT_TRUE(module.kernel("increment", inc).isOk());
  CudaDeviceBuffer x;
  ASSERT_TRUE(device->createBuffer(4000, x).isOk());
  ASSERT_TRUE(x.fill(0).isOk());
  CudaGraph graph;
  Status s = device->captureGraph(
      [&](CudaStream stream) -> Status {
        POOT_RETURN_IF_ERROR(device->launch(inc, {&x}, 4, 1, 256, stream));
        return device->launch(inc, {&x}, 8, 1, 128, stream);
      },
      graph);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(graph.numNodes(), 2);
  // Capturing ran nothing.
  std::vector<float> got(1000);
  ASSERT_TRUE(x.download(got.data(), 4000).isOk());
  EXPECT_EQ(got[0], 0.0f);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(graph.replay().isOk());
  ASSERT_TRUE(device->synchronize().isOk());
  ASSERT_TRUE(x.download(got.data(), 4000).isOk());
  EXPECT_EQ(got, std::vector<float>(1000, 6.0f));

  // A recording that fails leaves no graph and the stream usable.
  CudaGraph failed;
  s = device->captureGraph(
      [&](CudaStream stream) -> Status {
        POOT_RETURN_IF_ERROR(device->launch(inc, {&x}, 4, 1, 256, stream));
        return device->launch(inc, {&x}, 4, 1, 0, stream);
      },
      failed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(failed.valid());
  ASSERT_TRUE(device->launch(inc, {&x}, 4, 1, 256).isOk());
  ASSERT_TRUE(x.download(got.data(), 4000).isOk());
  EXPECT_EQ(got[999], 7.0f);
  EXPECT_EQ(CudaGraph().replay().code(), ErrorCode::InvalidArgument);
}

TEST_F(CudaDeviceTest, TimingGivesOneValuePerRun) {
  CudaModule module;
  ASSERT_TRUE(device->createModule(kPtx, module).isOk());
  CudaKernel inc;
  ASSERT_TRUE(module.kernel("increment", inc).isOk());
  CudaDeviceBuffer x;
  ASSERT_TRUE(device->createBuffer(4000, x).isOk());
  ASSERT_TRUE(x.fill(0).isOk());
  std::vector<double> us;
  Status s = device->timeRuns(
      5, [&](CudaStream stream) { return device->launch(inc, {&x}, 4, 1, 256, stream); },
      /*flushL2=*/true, us);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(us.size(), 5u);
  for (double t : us) {
    EXPECT_GT(t, 0.0);
    EXPECT_LT(t, 1e6);
  }
  float first;
  ASSERT_TRUE(x.download(&first, 4).isOk());
  EXPECT_EQ(first, 5.0f);
  EXPECT_EQ(device->timeRuns(0, nullptr, false, us).code(),
            ErrorCode::InvalidArgument);
}

TEST_F(CudaDeviceTest, RunnerRefusesPlansWithoutPtx) {
  Plan plan;
  plan.target = "cuda:sm_80";
  PlanRunner runner(*device, plan);
  Eqn eqn;
  eqn.op = "attention";
  eqn.location = "here";
  eqn.attrs["poot.launches.count"] = Attr::ofInt(1);
  std::vector<Tensor> results;
  bool claimed = true;
  Status s = runner.run(eqn, {}, {TensorType{DType::F32, {1}}}, results,
                        claimed);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("PTX"), std::string::npos);
  // An eqn without launches is left to the evaluator.
  Eqn add;
  add.op = "add";
  EXPECT_TRUE(runner.run(add, {}, {}, results, claimed).isOk());
  EXPECT_FALSE(claimed);
}

} // namespace
