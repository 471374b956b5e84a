//===- VulkanDevice.cpp - Compute on a Vulkan device ----------------------===//
//
// The Vulkan loader is reached only through dlopen and vkGetInstanceProcAddr:
// the headers supply types, never prototypes, so nothing links against
// libvulkan and a machine without it still runs the rest of the runtime.
//
// A device keeps one compute queue, one command buffer, one fence and one
// descriptor pool, all owned by a shared Context that buffers and kernels
// hold on to; whichever object dies last tears the Vulkan state down.
// Submissions are synchronous (record, submit, wait on the fence), which is
// what a plan's strictly ordered dispatches need, and it means no resource is
// ever in flight when its owner destroys it.
//
// Before a module reaches the driver it is read here: drivers are entitled
// to crash on a module that does not match its pipeline layout, so a wrong
// entry name, a binding past the kernel's buffers or a workgroup over the
// device's limits is refused as a Status instead.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/VulkanDevice.h"
#include "poot/Runtime/DeviceQuery.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace poot::rt;

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Functions reached through vkGetInstanceProcAddr(instance, ...). The
/// 1.1 queries are looked up too but only called on 1.1 instances.
#define POOT_VK_INSTANCE_FUNCTIONS(X)                                          \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceFeatures)                                               \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define POOT_VK_INSTANCE_FUNCTIONS_1_1(X)                                      \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)

/// Functions reached through vkGetDeviceProcAddr, which skips the loader's
/// dispatch trampoline.
#define POOT_VK_DEVICE_FUNCTIONS(X)                                            \
  X(vkDestroyDevice)                                                           \
  X(vkDeviceWaitIdle)                                                          \
  X(vkGetDeviceQueue)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkResetDescriptorPool)                                                     \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkResetCommandPool)                                                        \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdFillBuffer)                                                           \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkGetQueryPoolResults)                                                     \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)

namespace poot::rt::vulkan_detail {

#define POOT_VK_DECLARE(name) PFN_##name name = nullptr;

/// Everything one device owns on the Vulkan side. Buffers and kernels keep
/// it alive through a shared_ptr, so it is torn down after the last of them.
struct Context {
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  POOT_VK_INSTANCE_FUNCTIONS(POOT_VK_DECLARE)
  POOT_VK_INSTANCE_FUNCTIONS_1_1(POOT_VK_DECLARE)
  POOT_VK_DEVICE_FUNCTIONS(POOT_VK_DECLARE)

  VkInstance instance = VK_NULL_HANDLE;
  uint32_t instanceVersion = VK_API_VERSION_1_0;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory = {};
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  uint32_t poolSets = 0;        ///< sets the pool was sized for
  uint32_t poolDescriptors = 0; ///< storage-buffer descriptors likewise
  /// Two timestamp queries (start, stop), made by the first timing.
  VkQueryPool queryPool = VK_NULL_HANDLE;
  /// Host-visible memory through which buffers in device-only memory are
  /// filled and read back, made on first use and grown to the largest
  /// chunk asked for (at most kStagingChunk).
  VkBuffer staging = VK_NULL_HANDLE;
  VkDeviceMemory stagingMemory = VK_NULL_HANDLE;
  void *stagingMapped = nullptr;
  int64_t stagingBytes = 0;
  /// Buffers go to device-only memory (staged) even where host-visible
  /// memory of the device's own would do: how the staged path is tested
  /// on drivers whose memory is all host-visible.
  bool forceStaging = false;

  /// Guards the queue, the command buffer, the fence and the pool: Vulkan
  /// wants all four externally synchronised.
  std::mutex submitMutex;

  Context() = default;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();
};

#undef POOT_VK_DECLARE

Context::~Context() {
  // A create() that failed half way leaves handles whose functions were
  // never looked up; those are leaked rather than called through null.
  if (device != VK_NULL_HANDLE && vkDestroyDevice) {
    // Submissions wait for themselves, but a failed wait (device lost) can
    // leave work behind; destroying objects under it is undefined.
    if (vkDeviceWaitIdle)
      vkDeviceWaitIdle(device);
    if (descriptorPool != VK_NULL_HANDLE && vkDestroyDescriptorPool)
      vkDestroyDescriptorPool(device, descriptorPool, nullptr);
    if (queryPool != VK_NULL_HANDLE && vkDestroyQueryPool)
      vkDestroyQueryPool(device, queryPool, nullptr);
    if (staging != VK_NULL_HANDLE && vkDestroyBuffer)
      vkDestroyBuffer(device, staging, nullptr);
    if (stagingMemory != VK_NULL_HANDLE && vkFreeMemory)
      vkFreeMemory(device, stagingMemory, nullptr);
    if (fence != VK_NULL_HANDLE && vkDestroyFence)
      vkDestroyFence(device, fence, nullptr);
    if (commandPool != VK_NULL_HANDLE && vkDestroyCommandPool)
      vkDestroyCommandPool(device, commandPool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance != VK_NULL_HANDLE && vkDestroyInstance)
    vkDestroyInstance(instance, nullptr);
}

} // namespace poot::rt::vulkan_detail

using vulkan_detail::Context;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

const char *resultName(VkResult result) {
  switch (result) {
#define POOT_VK_RESULT(name)                                                   \
  case name:                                                                   \
    return #name;
    POOT_VK_RESULT(VK_SUCCESS)
    POOT_VK_RESULT(VK_NOT_READY)
    POOT_VK_RESULT(VK_TIMEOUT)
    POOT_VK_RESULT(VK_INCOMPLETE)
    POOT_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    POOT_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    POOT_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    POOT_VK_RESULT(VK_ERROR_DEVICE_LOST)
    POOT_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    POOT_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    POOT_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    POOT_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    POOT_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    POOT_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    POOT_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    POOT_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    POOT_VK_RESULT(VK_ERROR_UNKNOWN)
    POOT_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    POOT_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    POOT_VK_RESULT(VK_ERROR_FRAGMENTATION)
    POOT_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    POOT_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    POOT_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef POOT_VK_RESULT
  default:
    return nullptr;
  }
}

/// "vkCreateComputePipelines: VK_ERROR_OUT_OF_DEVICE_MEMORY". The runtime's
/// codes have no "device failed" entry; a driver that cannot do what the
/// caller asked (a missing feature or driver) is Unsupported, a module the
/// driver rejects is Malformed, and a failure of the device itself (out of
/// memory, lost) is reported as Io, the closest thing to "the hardware did
/// not complete the transfer".
Status vkError(const char *call, VkResult result) {
  std::string text = call;
  text += ": ";
  if (const char *name = resultName(result))
    text += name;
  else
    text += "VkResult " + std::to_string(static_cast<int>(result));
  ErrorCode code = ErrorCode::Io;
  switch (result) {
  case VK_ERROR_LAYER_NOT_PRESENT:
  case VK_ERROR_EXTENSION_NOT_PRESENT:
  case VK_ERROR_FEATURE_NOT_PRESENT:
  case VK_ERROR_INCOMPATIBLE_DRIVER:
  case VK_ERROR_FORMAT_NOT_SUPPORTED:
    code = ErrorCode::Unsupported;
    break;
  case VK_ERROR_INVALID_SHADER_NV:
    code = ErrorCode::Malformed;
    break;
  default:
    break;
  }
  return Status(code, text);
}

#define POOT_VK_CHECK(call, expr)                                              \
  do {                                                                         \
    VkResult pootResult_ = (expr);                                             \
    if (pootResult_ != VK_SUCCESS)                                             \
      return vkError(call, pootResult_);                                       \
  } while (false)

/// POOT_VK_CHECK for a call that creates `handle`: older drivers may leave
/// garbage in it on failure, and the owner's destructor must not free that.
#define POOT_VK_CREATE(call, expr, handle)                                     \
  do {                                                                         \
    VkResult pootResult_ = (expr);                                             \
    if (pootResult_ != VK_SUCCESS) {                                           \
      handle = {};                                                             \
      return vkError(call, pootResult_);                                       \
    }                                                                          \
  } while (false)

std::string versionText(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

//===----------------------------------------------------------------------===//
// The loader
//===----------------------------------------------------------------------===//

/// Opens libvulkan.so.1 once per process. The handle is never closed:
/// unloading the loader (and with it the ICDs, which may carry their own
/// copy of LLVM) while other code still holds function pointers or atexit
/// handlers from them is a known source of crashes at exit.
Status openLoader(PFN_vkGetInstanceProcAddr &out) {
  struct Loaded {
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    std::string error;
  };
  static const Loaded loaded = [] {
    Loaded result;
    void *handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      result.error = why ? why : "dlopen failed";
      return result;
    }
    result.getInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
        dlsym(handle, "vkGetInstanceProcAddr"));
    if (!result.getInstanceProcAddr)
      result.error = "libvulkan.so.1 has no vkGetInstanceProcAddr";
    return result;
  }();
  if (!loaded.getInstanceProcAddr)
    return Status(ErrorCode::Unsupported,
                  "no Vulkan loader (libvulkan.so.1): " + loaded.error);
  out = loaded.getInstanceProcAddr;
  return Status::ok();
}

/// Creates the instance and looks up the instance-level functions. A
/// loader without any driver fails here with INCOMPATIBLE_DRIVER, which is
/// the "no device" case for our callers.
Status createInstance(Context &ctx) {
  POOT_RETURN_IF_ERROR(openLoader(ctx.getInstanceProcAddr));
  auto createFn = reinterpret_cast<PFN_vkCreateInstance>(
      ctx.getInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance"));
  if (!createFn)
    return Status(ErrorCode::Unsupported,
                  "no Vulkan loader (libvulkan.so.1): it has no "
                  "vkCreateInstance");
  // A 1.0 loader has no vkEnumerateInstanceVersion, and refuses an
  // apiVersion above 1.0 with INCOMPATIBLE_DRIVER.
  auto versionFn = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      ctx.getInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (versionFn && versionFn(&loaderVersion) != VK_SUCCESS)
    loaderVersion = VK_API_VERSION_1_0;
  ctx.instanceVersion =
      VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loaderVersion),
                          VK_API_VERSION_MINOR(loaderVersion), 0);
  ctx.instanceVersion = std::min(ctx.instanceVersion, VK_API_VERSION_1_3);

  VkApplicationInfo app = {};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "poot";
  app.pEngineName = "poot";
  app.apiVersion = ctx.instanceVersion;
  VkInstanceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkResult result = createFn(&info, nullptr, &ctx.instance);
  if (result != VK_SUCCESS)
    ctx.instance = VK_NULL_HANDLE;
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER ||
      result == VK_ERROR_INITIALIZATION_FAILED)
    return Status(ErrorCode::Unsupported,
                  "no Vulkan device (vkCreateInstance: " +
                      std::string(resultName(result)) + ")");
  if (result != VK_SUCCESS)
    return vkError("vkCreateInstance", result);

#define POOT_VK_LOAD(name)                                                     \
  ctx.name = reinterpret_cast<PFN_##name>(                                     \
      ctx.getInstanceProcAddr(ctx.instance, #name));                           \
  if (!ctx.name)                                                               \
    return Status(ErrorCode::Unsupported,                                      \
                  "the Vulkan loader does not provide " #name);
  POOT_VK_INSTANCE_FUNCTIONS(POOT_VK_LOAD)
#undef POOT_VK_LOAD
  if (ctx.instanceVersion >= VK_API_VERSION_1_1) {
#define POOT_VK_LOAD_OPTIONAL(name)                                            \
  ctx.name = reinterpret_cast<PFN_##name>(                                     \
      ctx.getInstanceProcAddr(ctx.instance, #name));
    POOT_VK_INSTANCE_FUNCTIONS_1_1(POOT_VK_LOAD_OPTIONAL)
#undef POOT_VK_LOAD_OPTIONAL
  }
  return Status::ok();
}

Status physicalDevices(Context &ctx, std::vector<VkPhysicalDevice> &out) {
  uint32_t count = 0;
  POOT_VK_CHECK("vkEnumeratePhysicalDevices",
                ctx.vkEnumeratePhysicalDevices(ctx.instance, &count, nullptr));
  out.resize(count);
  if (count == 0)
    return Status::ok();
  VkResult result =
      ctx.vkEnumeratePhysicalDevices(ctx.instance, &count, out.data());
  // INCOMPLETE only means a device appeared in between; the first ones do.
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return vkError("vkEnumeratePhysicalDevices", result);
  out.resize(count);
  return Status::ok();
}

bool hasExtension(const std::vector<VkExtensionProperties> &extensions,
                  const char *name) {
  for (const VkExtensionProperties &ext : extensions)
    if (std::strcmp(ext.extensionName, name) == 0)
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Device facts
//===----------------------------------------------------------------------===//

/// Reads the planner's facts of `physical` from its properties, features
/// and memory heaps. Used by VulkanDevice::create and by queryVulkanFacts,
/// so an opened device and a query report the same numbers.
Status readFacts(Context &ctx, VkPhysicalDevice physical,
                 LiveDeviceFacts &out) {
  out = LiveDeviceFacts();
  out.kind = "vulkan";
  VkPhysicalDeviceProperties props;
  ctx.vkGetPhysicalDeviceProperties(physical, &props);
  uint32_t version = std::min(ctx.instanceVersion, props.apiVersion);
  bool v11 = version >= VK_API_VERSION_1_1 &&
             ctx.vkGetPhysicalDeviceProperties2 &&
             ctx.vkGetPhysicalDeviceFeatures2;
  bool v12 = v11 && version >= VK_API_VERSION_1_2;
  bool v13 = v11 && version >= VK_API_VERSION_1_3;

  uint32_t extensionCount = 0;
  POOT_VK_CHECK("vkEnumerateDeviceExtensionProperties",
                ctx.vkEnumerateDeviceExtensionProperties(
                    physical, nullptr, &extensionCount, nullptr));
  std::vector<VkExtensionProperties> extensions(extensionCount);
  if (extensionCount)
    POOT_VK_CHECK("vkEnumerateDeviceExtensionProperties",
                  ctx.vkEnumerateDeviceExtensionProperties(
                      physical, nullptr, &extensionCount, extensions.data()));
  extensions.resize(extensionCount);
  auto has = [&](const char *name) {
    return v11 && hasExtension(extensions, name);
  };
  bool float16Ext = !v12 && has(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  bool driverPropsExt = !v12 && has(VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  bool sizeControl =
      v13 || has(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  bool nvSmExt = has(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  bool amdCoreExt = has(VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);

  VkPhysicalDeviceSubgroupProperties subgroup = {};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  // The EXT struct and sType are the 1.3 core ones under another name.
  VkPhysicalDeviceSubgroupSizeControlProperties sizes = {};
  sizes.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  VkPhysicalDeviceDriverProperties driver = {};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nvSm = {};
  nvSm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  VkPhysicalDeviceShaderCorePropertiesAMD amdCore = {};
  amdCore.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD;
  VkPhysicalDevice16BitStorageFeatures storage16 = {};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDeviceShaderFloat16Int8Features float16 = {};
  float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  bool haveFloat16Struct = v12 || float16Ext;
  if (v11) {
    VkPhysicalDeviceProperties2 props2 = {};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    void **tail = &props2.pNext;
    auto chain = [&tail](auto &item) {
      *tail = &item;
      tail = &item.pNext;
    };
    chain(subgroup);
    if (sizeControl)
      chain(sizes);
    if (v12 || driverPropsExt)
      chain(driver);
    if (nvSmExt)
      chain(nvSm);
    if (amdCoreExt)
      chain(amdCore);
    ctx.vkGetPhysicalDeviceProperties2(physical, &props2);

    VkPhysicalDeviceFeatures2 features2 = {};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &storage16;
    if (haveFloat16Struct)
      storage16.pNext = &float16;
    ctx.vkGetPhysicalDeviceFeatures2(physical, &features2);
  }
  VkPhysicalDeviceMemoryProperties memory;
  ctx.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  VkPhysicalDeviceFeatures coreFeatures;
  ctx.vkGetPhysicalDeviceFeatures(physical, &coreFeatures);

  poot::DeviceFacts &facts = out.facts;
  const VkPhysicalDeviceLimits &limits = props.limits;
  facts.name = props.deviceName;
  facts.target = "spirv";
  // Vulkan has no core query for the number of cores; two vendor
  // extensions do. A CPU driver spreads work over threads on its own, so
  // one is the honest count there, and the safe default elsewhere.
  facts.computeUnits = 1;
  if (nvSmExt && nvSm.shaderSMCount > 0)
    facts.computeUnits = nvSm.shaderSMCount;
  else if (amdCoreExt && amdCore.computeUnitsPerShaderArray > 0)
    facts.computeUnits = static_cast<int64_t>(amdCore.shaderEngineCount) *
                         amdCore.shaderArraysPerEngineCount *
                         amdCore.computeUnitsPerShaderArray;
  facts.workgroupMemoryBytes = limits.maxComputeSharedMemorySize;
  out.workgroupMemoryOptInBytes = facts.workgroupMemoryBytes;
  facts.maxWorkgroupSize = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    out.maxWorkgroupDims[i] = limits.maxComputeWorkGroupSize[i];
    out.maxGrid[i] = limits.maxComputeWorkGroupCount[i];
  }
  facts.maxGridX = out.maxGrid[0];
  facts.maxGridY = out.maxGrid[1];
  facts.subgroupSize =
      (v11 && subgroup.subgroupSize > 0) ? subgroup.subgroupSize : 1;
  out.minSubgroupSize = out.maxSubgroupSize = facts.subgroupSize;
  if (sizeControl && sizes.minSubgroupSize > 0 &&
      sizes.maxSubgroupSize >= sizes.minSubgroupSize) {
    out.minSubgroupSize = sizes.minSubgroupSize;
    out.maxSubgroupSize = sizes.maxSubgroupSize;
  }
  // Without the size-control properties the width a pipeline gets is not
  // promised, however many devices happen to use one.
  facts.fixedSubgroup = sizeControl && v11 && facts.subgroupSize > 1 &&
                        out.minSubgroupSize == out.maxSubgroupSize &&
                        out.minSubgroupSize == facts.subgroupSize;
  facts.maxBufferBytes = limits.maxStorageBufferRange;
  facts.memoryBytes = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    const VkMemoryHeap &heap = memory.memoryHeaps[i];
    bool local = heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    out.heaps.push_back({static_cast<int64_t>(heap.size), local});
    if (local)
      facts.memoryBytes =
          std::max<int64_t>(facts.memoryBytes, static_cast<int64_t>(heap.size));
  }
  // Generated f16 kernels declare Float16 as well as 16-bit storage; bf16
  // kernels hold their buffers as 16-bit words and convert in integer
  // arithmetic, so 16-bit storage alone is enough.
  facts.f16Storage = v11 && storage16.storageBuffer16BitAccess &&
                     haveFloat16Struct && float16.shaderFloat16;
  facts.bf16Storage = v11 && storage16.storageBuffer16BitAccess;
  // As the generic preset: 16 bytes a load, the read-only buffers being
  // read in groups of 16 bytes (vec4 of 32-bit words or floats).
  facts.vectorLoadBytes = 16;
  // i64 values are stored and computed in 64 bits (Int64), which the
  // device enables when it has shaderInt64.
  facts.int64 = coreFeatures.shaderInt64 == VK_TRUE;

  out.description =
      std::string(props.deviceName) + ", Vulkan " + versionText(props.apiVersion);
  if (driver.driverName[0])
    out.description +=
        std::string(", ") + driver.driverName + " " + driver.driverInfo;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Reading a SPIR-V module
//===----------------------------------------------------------------------===//

// The few opcodes and enumerants the reader needs, from the SPIR-V spec
// (spelled out so no SPIR-V header is needed).
enum : uint32_t {
  kSpirvMagic = 0x07230203,
  kOpName = 5,
  kOpEntryPoint = 15,
  kOpExecutionMode = 16,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeMatrix = 24,
  kOpTypeArray = 28,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpConstantComposite = 44,
  kOpSpecConstant = 50,
  kOpSpecConstantComposite = 51,
  kOpFunction = 54,
  kOpFunctionEnd = 56,
  kOpFunctionCall = 57,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpStore = 62,
  kOpCopyMemory = 63,
  kOpCopyMemorySized = 64,
  kOpAccessChain = 65,
  kOpInBoundsAccessChain = 66,
  kOpPtrAccessChain = 67,
  kOpArrayLength = 68,
  kOpInBoundsPtrAccessChain = 70,
  kOpDecorate = 71,
  kOpCopyObject = 83,
  kOpSelect = 169,
  kOpAtomicLoad = 227,
  kOpAtomicStore = 228,
  kOpAtomicXor = 242,
  kOpAtomicFlagTestAndSet = 318,
  kOpAtomicFlagClear = 319,
  kOpAtomicFMinEXT = 5614,
  kOpAtomicFMaxEXT = 5615,
  kOpAtomicFAddEXT = 6035,
  kOpExecutionModeId = 331,
  kModelGLCompute = 5,
  kModeLocalSize = 17,
  kModeLocalSizeId = 38,
  kDecorationBufferBlock = 3,
  kDecorationBuiltIn = 11,
  kDecorationBinding = 33,
  kDecorationDescriptorSet = 34,
  kBuiltInWorkgroupSize = 25,
  kClassUniform = 2,
  kClassWorkgroup = 4,
  kClassPushConstant = 9,
  kClassStorageBuffer = 12,
};

/// What createKernel needs to know about one entry point of a module.
struct ModuleInfo {
  uint32_t version = 0;
  std::array<int64_t, 3> workgroupSize = {0, 0, 0};
  int64_t workgroupMemoryBytes = 0;
};

/// A partial parse of a module: enough to find the entry point, its
/// workgroup size and the resources it declares, and to size workgroup
/// variables. Anything outside that is skipped by word count.
class SpirvReader {
public:
  SpirvReader(const std::vector<uint32_t> &words) : words_(words) {}

  Status read(const std::string &entry, int numBuffers, ModuleInfo &info);

private:
  struct EntryPoint {
    uint32_t model = 0;
    uint32_t id = 0;
    std::string name;
    std::vector<uint32_t> interface;
  };
  struct Decorations {
    bool hasSet = false, hasBinding = false, bufferBlock = false;
    bool workgroupSizeBuiltIn = false;
    uint32_t set = 0, binding = 0;
  };
  struct TypeInfo {
    uint32_t opcode = 0;
    std::vector<uint32_t> operands; ///< the words after the result id
  };
  struct Variable {
    uint32_t id = 0, pointerType = 0, storageClass = 0;
  };

  Status scan();
  void noteReferences(uint32_t function, uint32_t opcode, const uint32_t *op,
                      size_t n);
  bool constantValue(uint32_t id, uint32_t &value) const;
  int64_t typeBytes(uint32_t type, int depth) const;

  const std::vector<uint32_t> &words_;
  std::vector<EntryPoint> entries_;
  /// LocalSize per entry point id; LocalSizeId holds constant ids instead.
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> localSize_;
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> localSizeIds_;
  std::unordered_map<uint32_t, Decorations> decorations_;
  std::unordered_map<uint32_t, std::string> names_; ///< OpName, for messages
  std::unordered_map<uint32_t, uint32_t> scalarConstants_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> compositeConstants_;
  std::unordered_map<uint32_t, TypeInfo> types_;
  std::vector<Variable> variables_;
  /// Per function: the functions it calls and the pointers its memory
  /// instructions start from (module-scope variables among them), so the
  /// resources an entry point statically uses can be found without the
  /// SPIR-V 1.4 interface list.
  std::unordered_map<uint32_t, std::vector<uint32_t>> calls_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> pointerRefs_;
};

void SpirvReader::noteReferences(uint32_t function, uint32_t opcode,
                                 const uint32_t *op, size_t n) {
  std::vector<uint32_t> &refs = pointerRefs_[function];
  // Operand positions that hold a pointer id, per instruction; every
  // access to a variable starts from one of these.
  auto at = [&](size_t i) {
    if (i < n)
      refs.push_back(op[i]);
  };
  switch (opcode) {
  case kOpStore:
  case kOpAtomicStore:
  case kOpAtomicFlagClear:
    at(0);
    break;
  case kOpCopyMemory:
  case kOpCopyMemorySized:
    at(0);
    at(1);
    break;
  case kOpLoad:
  case kOpAccessChain:
  case kOpInBoundsAccessChain:
  case kOpPtrAccessChain:
  case kOpInBoundsPtrAccessChain:
  case kOpArrayLength:
  case kOpCopyObject:
  case kOpAtomicFlagTestAndSet:
  case kOpAtomicFMinEXT:
  case kOpAtomicFMaxEXT:
  case kOpAtomicFAddEXT:
    at(2);
    break;
  case kOpSelect:
    at(3);
    at(4);
    break;
  case kOpFunctionCall:
    if (n >= 3)
      calls_[function].push_back(op[2]);
    for (size_t i = 3; i < n; ++i)
      at(i); // pointer arguments
    break;
  default:
    if (opcode >= kOpAtomicLoad && opcode <= kOpAtomicXor)
      at(2);
    break;
  }
}

/// Decodes a literal string starting at word `at` of an instruction ending
/// at `end`; returns the index of the first word after it.
size_t readString(const std::vector<uint32_t> &words, size_t at, size_t end,
                  std::string &out) {
  out.clear();
  for (; at < end; ++at) {
    uint32_t word = words[at];
    for (int byte = 0; byte < 4; ++byte) {
      char c = static_cast<char>((word >> (8 * byte)) & 0xff);
      if (c == '\0')
        return at + 1;
      out += c;
    }
  }
  return at;
}

Status SpirvReader::scan() {
  if (words_.size() < 5)
    return Status(ErrorCode::Malformed,
                  "SPIR-V module of " + std::to_string(words_.size()) +
                      " words is shorter than its 5-word header");
  if (words_[0] != kSpirvMagic) {
    char text[64];
    std::snprintf(text, sizeof(text), "0x%08x", words_[0]);
    return Status(ErrorCode::Malformed,
                  std::string("not a SPIR-V module: magic word ") + text +
                      " (expected 0x07230203 in host byte order)");
  }
  size_t at = 5;
  uint32_t function = 0; // the function being read, 0 outside any
  while (at < words_.size()) {
    uint32_t count = words_[at] >> 16;
    uint32_t opcode = words_[at] & 0xffff;
    if (count == 0 || at + count > words_.size())
      return Status(ErrorCode::Malformed,
                    "SPIR-V instruction at word " + std::to_string(at) +
                        " has word count " + std::to_string(count) +
                        ", past the module's " +
                        std::to_string(words_.size()) + " words");
    const uint32_t *op = &words_[at + 1]; // operands
    size_t n = count - 1;
    size_t end = at + count;
    switch (opcode) {
    case kOpEntryPoint:
      if (n >= 3) {
        EntryPoint entry;
        entry.model = op[0];
        entry.id = op[1];
        size_t next = readString(words_, at + 3, end, entry.name);
        entry.interface.assign(words_.begin() + next, words_.begin() + end);
        entries_.push_back(std::move(entry));
      }
      break;
    case kOpName:
      if (n >= 2)
        readString(words_, at + 2, end, names_[op[0]]);
      break;
    case kOpExecutionMode:
    case kOpExecutionModeId:
      if (n >= 5 && op[1] == kModeLocalSize && opcode == kOpExecutionMode)
        localSize_[op[0]] = {op[2], op[3], op[4]};
      else if (n >= 5 && op[1] == kModeLocalSizeId)
        localSizeIds_[op[0]] = {op[2], op[3], op[4]};
      break;
    case kOpDecorate:
      if (n >= 2) {
        Decorations &d = decorations_[op[0]];
        if (op[1] == kDecorationDescriptorSet && n >= 3) {
          d.hasSet = true;
          d.set = op[2];
        } else if (op[1] == kDecorationBinding && n >= 3) {
          d.hasBinding = true;
          d.binding = op[2];
        } else if (op[1] == kDecorationBufferBlock) {
          d.bufferBlock = true;
        } else if (op[1] == kDecorationBuiltIn && n >= 3 &&
                   op[2] == kBuiltInWorkgroupSize) {
          d.workgroupSizeBuiltIn = true;
        }
      }
      break;
    case kOpConstant:
    case kOpSpecConstant:
      // Specialisation constants keep their defaults: kernels are built
      // without specialisation info.
      if (n >= 3)
        scalarConstants_[op[1]] = op[2];
      break;
    case kOpConstantComposite:
    case kOpSpecConstantComposite:
      if (n >= 2)
        compositeConstants_[op[1]].assign(op + 2, op + n);
      break;
    case kOpTypeBool:
    case kOpTypeInt:
    case kOpTypeFloat:
    case kOpTypeVector:
    case kOpTypeMatrix:
    case kOpTypeArray:
    case kOpTypeStruct:
    case kOpTypePointer:
      if (n >= 1) {
        TypeInfo &type = types_[op[0]];
        type.opcode = opcode;
        type.operands.assign(op + 1, op + n);
      }
      break;
    case kOpVariable:
      // Function-local variables (Function class) are of no interest.
      if (n >= 3 && function == 0)
        variables_.push_back({op[1], op[0], op[2]});
      break;
    case kOpFunction:
      if (n >= 2)
        function = op[1];
      break;
    case kOpFunctionEnd:
      function = 0;
      break;
    default:
      break;
    }
    if (function != 0)
      noteReferences(function, opcode, op, n);
    at = end;
  }
  return Status::ok();
}

bool SpirvReader::constantValue(uint32_t id, uint32_t &value) const {
  auto it = scalarConstants_.find(id);
  if (it == scalarConstants_.end())
    return false;
  value = it->second;
  return true;
}

/// Bytes of a value of `type` laid out without padding; -1 when the type is
/// not one a workgroup variable is made of (or nests absurdly deep).
int64_t SpirvReader::typeBytes(uint32_t type, int depth) const {
  auto it = types_.find(type);
  if (it == types_.end() || depth > 32)
    return -1;
  const std::vector<uint32_t> &ops = it->second.operands;
  // Sizes saturate at kHuge: a hostile module must not overflow, and any
  // size that large is refused against the device's limit anyway.
  const int64_t kHuge = int64_t(1) << 48;
  auto times = [&](uint32_t element, int64_t count) -> int64_t {
    int64_t each = typeBytes(element, depth + 1);
    if (each < 0)
      return -1;
    return each > 0 && count > kHuge / each ? kHuge : each * count;
  };
  switch (it->second.opcode) {
  case kOpTypeBool:
    return 4; // booleans have no size in SPIR-V; drivers use a 32-bit word
  case kOpTypeInt:
  case kOpTypeFloat:
    return ops.empty() ? -1 : static_cast<int64_t>(ops[0]) / 8;
  case kOpTypeVector:
  case kOpTypeMatrix:
    return ops.size() < 2 ? -1 : times(ops[0], ops[1]);
  case kOpTypeArray: {
    uint32_t length = 0;
    if (ops.size() < 2 || !constantValue(ops[1], length))
      return -1;
    return times(ops[0], length);
  }
  case kOpTypeStruct: {
    int64_t total = 0;
    for (uint32_t member : ops) {
      int64_t bytes = typeBytes(member, depth + 1);
      if (bytes < 0)
        return -1;
      total = std::min(kHuge, total + bytes);
    }
    return total;
  }
  default:
    return -1;
  }
}

Status SpirvReader::read(const std::string &entryName, int numBuffers,
                         ModuleInfo &info) {
  POOT_RETURN_IF_ERROR(scan());
  info.version = words_[1];

  const EntryPoint *entry = nullptr;
  std::string names;
  for (const EntryPoint &candidate : entries_) {
    if (candidate.name == entryName &&
        (!entry || candidate.model == kModelGLCompute))
      entry = &candidate;
    names += (names.empty() ? "'" : ", '") + candidate.name + "'";
  }
  if (!entry)
    return Status(ErrorCode::InvalidArgument,
                  "SPIR-V module has no entry point '" + entryName +
                      "' (it has " + (names.empty() ? "none" : names) + ")");
  if (entry->model != kModelGLCompute)
    return Status(ErrorCode::InvalidArgument,
                  "SPIR-V entry point '" + entryName +
                      "' is not a compute (GLCompute) entry point");

  // The WorkgroupSize built-in, when present, overrides the execution mode.
  bool haveSize = false;
  auto setSize = [&](uint32_t x, uint32_t y, uint32_t z) {
    info.workgroupSize = {x, y, z};
    haveSize = true;
  };
  if (auto it = localSize_.find(entry->id); it != localSize_.end())
    setSize(it->second[0], it->second[1], it->second[2]);
  if (auto it = localSizeIds_.find(entry->id); it != localSizeIds_.end()) {
    uint32_t v[3];
    for (int i = 0; i < 3; ++i)
      if (!constantValue(it->second[i], v[i]))
        return Status(ErrorCode::Malformed,
                      "SPIR-V LocalSizeId of '" + entryName +
                          "' names an id that is not a constant");
    setSize(v[0], v[1], v[2]);
  }
  for (const auto &[id, d] : decorations_) {
    if (!d.workgroupSizeBuiltIn)
      continue;
    auto it = compositeConstants_.find(id);
    uint32_t v[3];
    if (it == compositeConstants_.end() || it->second.size() != 3 ||
        !constantValue(it->second[0], v[0]) ||
        !constantValue(it->second[1], v[1]) ||
        !constantValue(it->second[2], v[2]))
      return Status(ErrorCode::Malformed,
                    "SPIR-V WorkgroupSize built-in is not a constant uvec3");
    setSize(v[0], v[1], v[2]);
  }
  if (!haveSize)
    return Status(ErrorCode::Malformed,
                  "SPIR-V entry point '" + entryName +
                      "' declares no workgroup size (LocalSize)");

  // Which module-scope variables this entry point uses: from SPIR-V 1.4
  // its interface lists all of them; before, it lists only inputs and
  // outputs, and the functions it reaches tell (a module may hold several
  // kernels, each with its own bindings 0..n-1).
  std::vector<uint32_t> reached;
  if (info.version >= 0x00010400) {
    reached = entry->interface;
  } else {
    std::vector<uint32_t> functions = {entry->id};
    for (size_t i = 0; i < functions.size(); ++i) {
      const std::vector<uint32_t> &refs = pointerRefs_[functions[i]];
      reached.insert(reached.end(), refs.begin(), refs.end());
      for (uint32_t callee : calls_[functions[i]])
        if (std::find(functions.begin(), functions.end(), callee) ==
            functions.end())
          functions.push_back(callee);
    }
  }
  std::sort(reached.begin(), reached.end());
  std::vector<const Variable *> used;
  for (const Variable &var : variables_)
    if (std::binary_search(reached.begin(), reached.end(), var.id))
      used.push_back(&var);

  for (const Variable *var : used) {
    std::string where = "SPIR-V variable ";
    if (auto name = names_.find(var->id);
        name != names_.end() && !name->second.empty())
      where += name->second + " (%" + std::to_string(var->id) + ")";
    else
      where += "%" + std::to_string(var->id);
    where += " of '" + entryName + "'";
    if (var->storageClass == kClassPushConstant)
      return Status(ErrorCode::InvalidArgument,
                    where + " is a push constant; kernels take every "
                            "argument as a storage buffer");
    if (var->storageClass == kClassWorkgroup) {
      auto pointer = types_.find(var->pointerType);
      int64_t bytes = -1;
      if (pointer != types_.end() && pointer->second.operands.size() >= 2)
        bytes = typeBytes(pointer->second.operands[1], 0);
      if (bytes < 0)
        return Status(ErrorCode::Malformed,
                      where + " is in workgroup memory with a type of no "
                              "known size");
      // Each size is at most 2^48, so the saturated sum cannot overflow.
      info.workgroupMemoryBytes =
          std::min(int64_t(1) << 48, info.workgroupMemoryBytes + bytes);
      continue;
    }
    auto dIt = decorations_.find(var->id);
    if (dIt == decorations_.end() ||
        (!dIt->second.hasSet && !dIt->second.hasBinding))
      continue;
    const Decorations &d = dIt->second;
    if (d.set != 0)
      return Status(ErrorCode::InvalidArgument,
                    where + " is at descriptor set " + std::to_string(d.set) +
                        "; kernels take their buffers at set 0");
    if (static_cast<int64_t>(d.binding) >= numBuffers)
      return Status(ErrorCode::InvalidArgument,
                    where + " is at binding " + std::to_string(d.binding) +
                        " but the kernel was given " +
                        std::to_string(numBuffers) + " buffers");
    // A storage buffer is StorageBuffer-class, or (before SPIR-V 1.3)
    // Uniform-class with a BufferBlock struct; anything else is a uniform
    // buffer, image or sampler the layout does not describe.
    bool storage = var->storageClass == kClassStorageBuffer;
    if (var->storageClass == kClassUniform) {
      auto pointer = types_.find(var->pointerType);
      if (pointer != types_.end() && pointer->second.operands.size() >= 2) {
        auto block = decorations_.find(pointer->second.operands[1]);
        storage = block != decorations_.end() && block->second.bufferBlock;
      }
    }
    if (!storage)
      return Status(ErrorCode::InvalidArgument,
                    where + " at binding " + std::to_string(d.binding) +
                        " is not a storage buffer");
  }
  return Status::ok();
}

/// The newest SPIR-V a core Vulkan version must accept.
uint32_t maxSpirvVersion(uint32_t apiVersion) {
  if (apiVersion >= VK_API_VERSION_1_3)
    return 0x00010600;
  if (apiVersion >= VK_API_VERSION_1_2)
    return 0x00010500;
  if (apiVersion >= VK_API_VERSION_1_1)
    return 0x00010300;
  return 0x00010000;
}

std::string spirvVersionText(uint32_t version) {
  return std::to_string((version >> 16) & 0xff) + "." +
         std::to_string((version >> 8) & 0xff);
}

} // namespace

Status poot::rt::checkSpirvFeatures(const std::vector<uint32_t> &spirv,
                                    const VulkanFeatures &features) {
  // Capability enumerants from the SPIR-V spec, each with the feature that
  // Vulkan requires for it.
  struct Need {
    uint32_t capability;
    const char *capabilityName;
    bool VulkanFeatures::*feature;
    const char *featureName;
  };
  static const Need needs[] = {
      {9, "Float16", &VulkanFeatures::shaderFloat16, "shaderFloat16"},
      {10, "Float64", &VulkanFeatures::shaderFloat64, "shaderFloat64"},
      {11, "Int64", &VulkanFeatures::shaderInt64, "shaderInt64"},
      {22, "Int16", &VulkanFeatures::shaderInt16, "shaderInt16"},
      {39, "Int8", &VulkanFeatures::shaderInt8, "shaderInt8"},
      {4433, "StorageBuffer16BitAccess",
       &VulkanFeatures::storageBuffer16BitAccess, "storageBuffer16BitAccess"},
      {4434, "UniformAndStorageBuffer16BitAccess",
       &VulkanFeatures::uniformAndStorageBuffer16BitAccess,
       "uniformAndStorageBuffer16BitAccess"},
      {4448, "StorageBuffer8BitAccess",
       &VulkanFeatures::storageBuffer8BitAccess, "storageBuffer8BitAccess"},
      {4449, "UniformAndStorageBuffer8BitAccess",
       &VulkanFeatures::uniformAndStorageBuffer8BitAccess,
       "uniformAndStorageBuffer8BitAccess"},
  };
  constexpr uint32_t kOpCapability = 17;
  if (spirv.size() < 5 || spirv[0] != kSpirvMagic)
    return Status(ErrorCode::Malformed, "not a SPIR-V module");
  // The module's capabilities are its first instructions.
  for (size_t at = 5; at < spirv.size();) {
    uint32_t count = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (count == 0 || at + count > spirv.size())
      return Status(ErrorCode::Malformed,
                    "SPIR-V instruction at word " + std::to_string(at) +
                        " has word count " + std::to_string(count) +
                        ", past the module's " + std::to_string(spirv.size()) +
                        " words");
    if (opcode != kOpCapability)
      break;
    if (count >= 2)
      for (const Need &need : needs)
        if (need.capability == spirv[at + 1] && !(features.*need.feature))
          return Status(ErrorCode::Unsupported,
                        std::string("the SPIR-V module declares capability ") +
                            need.capabilityName + ", which needs the Vulkan "
                            "feature " + need.featureName +
                            "; the device lacks it");
    at += count;
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Buffers and kernels
//===----------------------------------------------------------------------===//

struct VulkanBuffer::Impl {
  std::shared_ptr<Context> ctx;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *mapped = nullptr;
  int64_t size = 0;

  ~Impl() {
    if (mapped)
      ctx->vkUnmapMemory(ctx->device, memory);
    if (buffer != VK_NULL_HANDLE)
      ctx->vkDestroyBuffer(ctx->device, buffer, nullptr);
    if (memory != VK_NULL_HANDLE)
      ctx->vkFreeMemory(ctx->device, memory, nullptr);
  }
};

VulkanBuffer::VulkanBuffer() = default;
VulkanBuffer::~VulkanBuffer() = default;
VulkanBuffer::VulkanBuffer(VulkanBuffer &&other) noexcept = default;
VulkanBuffer &VulkanBuffer::operator=(VulkanBuffer &&other) noexcept = default;

int64_t VulkanBuffer::size() const { return impl_ ? impl_->size : 0; }
void *VulkanBuffer::data() const { return impl_ ? impl_->mapped : nullptr; }

/// Checks that [offset, offset + bytes) lies in a buffer of `size`.
static Status checkRange(const char *what, int64_t offset, int64_t bytes,
                         int64_t size) {
  if (offset < 0 || bytes < 0 || offset > size || bytes > size - offset)
    return Status(ErrorCode::InvalidArgument,
                  std::string(what) + " of " + std::to_string(bytes) +
                      " bytes at offset " + std::to_string(offset) +
                      " is outside the buffer of " + std::to_string(size) +
                      " bytes");
  return Status::ok();
}

namespace {

constexpr int64_t kStagingChunk = int64_t(64) << 20;

/// Records what `record` puts in the context's command buffer, submits it
/// and waits for it. The caller holds ctx.submitMutex.
template <typename Record> Status submitOnce(Context &ctx, Record record) {
  POOT_VK_CHECK("vkResetCommandPool",
                ctx.vkResetCommandPool(ctx.device, ctx.commandPool, 0));
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkCommandBuffer cmd = ctx.commandBuffer;
  POOT_VK_CHECK("vkBeginCommandBuffer", ctx.vkBeginCommandBuffer(cmd, &begin));
  record(cmd);
  POOT_VK_CHECK("vkEndCommandBuffer", ctx.vkEndCommandBuffer(cmd));
  POOT_VK_CHECK("vkResetFences", ctx.vkResetFences(ctx.device, 1, &ctx.fence));
  VkSubmitInfo submit = {};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  POOT_VK_CHECK("vkQueueSubmit",
                ctx.vkQueueSubmit(ctx.queue, 1, &submit, ctx.fence));
  POOT_VK_CHECK("vkWaitForFences", ctx.vkWaitForFences(ctx.device, 1, &ctx.fence,
                                                       VK_TRUE, UINT64_MAX));
  return Status::ok();
}

/// A global barrier: the writes of `srcStages` (`srcAccess`) are visible to
/// what `dstStages` does next (`dstAccess`), in this submission or later.
void barrier(Context &ctx, VkCommandBuffer cmd, VkPipelineStageFlags srcStages,
             VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
             VkAccessFlags dstAccess) {
  VkMemoryBarrier b = {};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  ctx.vkCmdPipelineBarrier(cmd, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0,
                           nullptr);
}

/// Every stage and access a transfer may follow or precede: the plan's
/// dispatches, other transfers and the host.
constexpr VkPipelineStageFlags kAnyStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                           VK_PIPELINE_STAGE_TRANSFER_BIT |
                                           VK_PIPELINE_STAGE_HOST_BIT;
constexpr VkAccessFlags kAnyWrite = VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_WRITE_BIT |
                                    VK_ACCESS_HOST_WRITE_BIT;
constexpr VkAccessFlags kAnyAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
    VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT;

/// A host-visible, coherent staging buffer of at least `bytes` bytes.
Status ensureStaging(Context &ctx, int64_t bytes) {
  if (ctx.stagingBytes >= bytes)
    return Status::ok();
  if (ctx.staging != VK_NULL_HANDLE) {
    ctx.vkDestroyBuffer(ctx.device, ctx.staging, nullptr);
    ctx.vkFreeMemory(ctx.device, ctx.stagingMemory, nullptr);
    ctx.staging = VK_NULL_HANDLE;
    ctx.stagingMemory = VK_NULL_HANDLE;
    ctx.stagingMapped = nullptr;
    ctx.stagingBytes = 0;
  }
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = static_cast<VkDeviceSize>(bytes);
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  POOT_VK_CREATE("vkCreateBuffer (staging)",
                 ctx.vkCreateBuffer(ctx.device, &info, nullptr, &ctx.staging),
                 ctx.staging);
  VkMemoryRequirements needs;
  ctx.vkGetBufferMemoryRequirements(ctx.device, ctx.staging, &needs);
  const VkMemoryPropertyFlags wanted =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkResult result = VK_ERROR_OUT_OF_HOST_MEMORY;
  for (uint32_t t = 0; t < ctx.memory.memoryTypeCount; ++t) {
    if (!(needs.memoryTypeBits & (1u << t)) ||
        (ctx.memory.memoryTypes[t].propertyFlags & wanted) != wanted)
      continue;
    VkMemoryAllocateInfo alloc = {};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = t;
    result = ctx.vkAllocateMemory(ctx.device, &alloc, nullptr, &ctx.stagingMemory);
    if (result == VK_SUCCESS)
      break;
    ctx.stagingMemory = VK_NULL_HANDLE;
  }
  if (result != VK_SUCCESS) {
    ctx.vkDestroyBuffer(ctx.device, ctx.staging, nullptr);
    ctx.staging = VK_NULL_HANDLE;
    return vkError("vkAllocateMemory (staging)", result);
  }
  POOT_VK_CHECK("vkBindBufferMemory (staging)",
                ctx.vkBindBufferMemory(ctx.device, ctx.staging,
                                       ctx.stagingMemory, 0));
  POOT_VK_CREATE("vkMapMemory (staging)",
                 ctx.vkMapMemory(ctx.device, ctx.stagingMemory, 0,
                                 VK_WHOLE_SIZE, 0, &ctx.stagingMapped),
                 ctx.stagingMapped);
  ctx.stagingBytes = bytes;
  return Status::ok();
}

/// Copies between the host and a buffer in device-only memory through the
/// staging buffer, a chunk a submission: `toDevice` from `host` into
/// [offset, offset + bytes) of `buffer`, else out of it into `host`.
Status staged(Context &ctx, VkBuffer buffer, int64_t offset, int64_t bytes,
              void *host, bool toDevice) {
  std::lock_guard<std::mutex> lock(ctx.submitMutex);
  POOT_RETURN_IF_ERROR(ensureStaging(ctx, std::min(bytes, kStagingChunk)));
  for (int64_t done = 0; done < bytes; done += kStagingChunk) {
    int64_t n = std::min(kStagingChunk, bytes - done);
    auto *at = static_cast<char *>(host) + done;
    if (toDevice)
      std::memcpy(ctx.stagingMapped, at, size_t(n));
    VkBufferCopy region = {};
    region.srcOffset = toDevice ? 0 : VkDeviceSize(offset + done);
    region.dstOffset = toDevice ? VkDeviceSize(offset + done) : 0;
    region.size = VkDeviceSize(n);
    POOT_RETURN_IF_ERROR(submitOnce(ctx, [&](VkCommandBuffer cmd) {
      barrier(ctx, cmd, kAnyStage, kAnyWrite, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
      if (toDevice)
        ctx.vkCmdCopyBuffer(cmd, ctx.staging, buffer, 1, &region);
      else
        ctx.vkCmdCopyBuffer(cmd, buffer, ctx.staging, 1, &region);
      barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_WRITE_BIT, kAnyStage, kAnyAccess);
    }));
    if (!toDevice)
      std::memcpy(at, ctx.stagingMapped, size_t(n));
  }
  return Status::ok();
}

} // namespace

Status VulkanBuffer::upload(const void *src, int64_t bytes, int64_t offset) {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "upload to an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("upload", offset, bytes, impl_->size));
  if (bytes <= 0)
    return Status::ok();
  if (!impl_->mapped)
    return staged(*impl_->ctx, impl_->buffer, offset, bytes,
                  const_cast<void *>(src), /*toDevice=*/true);
  std::memcpy(static_cast<char *>(impl_->mapped) + offset, src, bytes);
  return Status::ok();
}

Status VulkanBuffer::download(void *dst, int64_t bytes, int64_t offset) const {
  if (!impl_)
    return Status(ErrorCode::InvalidArgument, "download from an empty buffer");
  POOT_RETURN_IF_ERROR(checkRange("download", offset, bytes, impl_->size));
  if (bytes <= 0)
    return Status::ok();
  if (!impl_->mapped)
    return staged(*impl_->ctx, impl_->buffer, offset, bytes, dst,
                  /*toDevice=*/false);
  std::memcpy(dst, static_cast<const char *>(impl_->mapped) + offset, bytes);
  return Status::ok();
}

bool VulkanBuffer::mapped() const { return impl_ && impl_->mapped; }

Status VulkanDevice::copyBuffers(const std::vector<VulkanBufferCopy> &copies) {
  for (const VulkanBufferCopy &c : copies)
    if (!c.src || !c.dst || !c.src->impl_ || !c.dst->impl_ ||
        c.src->impl_->ctx != context_ || c.dst->impl_->ctx != context_)
      return Status(ErrorCode::InvalidArgument,
                    "a copy names an empty buffer or another device's");
  if (copies.empty())
    return Status::ok();
  Context &ctx = *context_;
  std::lock_guard<std::mutex> lock(ctx.submitMutex);
  return submitOnce(ctx, [&](VkCommandBuffer cmd) {
    for (const VulkanBufferCopy &c : copies) {
      // In order: a copy may read what the one before it wrote.
      barrier(ctx, cmd, kAnyStage, kAnyWrite, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
      if (c.bytes <= 0)
        continue;
      VkBufferCopy region = {VkDeviceSize(c.srcOffset), VkDeviceSize(c.dstOffset),
                             VkDeviceSize(c.bytes)};
      ctx.vkCmdCopyBuffer(cmd, c.src->impl_->buffer, c.dst->impl_->buffer, 1,
                          &region);
    }
    barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, kAnyStage, kAnyAccess);
  });
}

struct VulkanKernel::Impl {
  std::shared_ptr<Context> ctx;
  std::string entry;
  int numBuffers = 0;
  std::array<int64_t, 3> workgroupSize = {1, 1, 1};
  int64_t workgroupMemoryBytes = 0;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;

  ~Impl() {
    if (pipeline != VK_NULL_HANDLE)
      ctx->vkDestroyPipeline(ctx->device, pipeline, nullptr);
    if (pipelineLayout != VK_NULL_HANDLE)
      ctx->vkDestroyPipelineLayout(ctx->device, pipelineLayout, nullptr);
    if (setLayout != VK_NULL_HANDLE)
      ctx->vkDestroyDescriptorSetLayout(ctx->device, setLayout, nullptr);
  }
};

VulkanKernel::VulkanKernel() = default;
VulkanKernel::~VulkanKernel() = default;
VulkanKernel::VulkanKernel(VulkanKernel &&other) noexcept = default;
VulkanKernel &VulkanKernel::operator=(VulkanKernel &&other) noexcept = default;

const std::string &VulkanKernel::entry() const {
  static const std::string empty;
  return impl_ ? impl_->entry : empty;
}
int VulkanKernel::numBuffers() const { return impl_ ? impl_->numBuffers : 0; }
std::array<int64_t, 3> VulkanKernel::workgroupSize() const {
  return impl_ ? impl_->workgroupSize : std::array<int64_t, 3>{0, 0, 0};
}
int64_t VulkanKernel::workgroupMemoryBytes() const {
  return impl_ ? impl_->workgroupMemoryBytes : 0;
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

VulkanDevice::~VulkanDevice() = default;

Status VulkanDevice::listDevices(std::vector<std::string> &names) {
  names.clear();
  Context ctx;
  POOT_RETURN_IF_ERROR(createInstance(ctx));
  std::vector<VkPhysicalDevice> devices;
  POOT_RETURN_IF_ERROR(physicalDevices(ctx, devices));
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceProperties props;
    ctx.vkGetPhysicalDeviceProperties(device, &props);
    names.push_back(props.deviceName);
  }
  return Status::ok();
}

Status poot::rt::queryVulkanFacts(LiveDeviceFacts &out, int index) {
  out = LiveDeviceFacts();
  Context ctx;
  POOT_RETURN_IF_ERROR(createInstance(ctx));
  std::vector<VkPhysicalDevice> devices;
  POOT_RETURN_IF_ERROR(physicalDevices(ctx, devices));
  if (devices.empty())
    return Status(ErrorCode::Unsupported, "no Vulkan device");
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    return Status(ErrorCode::InvalidArgument,
                  "Vulkan device index " + std::to_string(index) +
                      " is out of range: the loader sees " +
                      std::to_string(devices.size()) + " device(s)");
  return readFacts(ctx, devices[index], out);
}

/// Vulkan's bring-up is one fixed sequence (instance, physical device,
/// queue family, features to enable, logical device, command pool), each
/// step using what the ones before found: kept in order in one function.
Status VulkanDevice::create(std::unique_ptr<VulkanDevice> &out, int index) {
  out.reset();
  auto ctx = std::make_shared<Context>();
  const char *staging = std::getenv("POOT_VULKAN_STAGING");
  ctx->forceStaging = staging && std::string(staging) == "1";
  POOT_RETURN_IF_ERROR(createInstance(*ctx));

  std::vector<VkPhysicalDevice> devices;
  POOT_RETURN_IF_ERROR(physicalDevices(*ctx, devices));
  if (devices.empty())
    return Status(ErrorCode::Unsupported, "no Vulkan device");
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    return Status(ErrorCode::InvalidArgument,
                  "Vulkan device index " + std::to_string(index) +
                      " is out of range: the loader sees " +
                      std::to_string(devices.size()) + " device(s)");
  ctx->physical = devices[index];

  VkPhysicalDeviceProperties props;
  ctx->vkGetPhysicalDeviceProperties(ctx->physical, &props);
  // What may be used is the lower of the instance's and the device's
  // versions.
  uint32_t version = std::min(ctx->instanceVersion, props.apiVersion);
  bool v11 = version >= VK_API_VERSION_1_1 &&
             ctx->vkGetPhysicalDeviceProperties2 &&
             ctx->vkGetPhysicalDeviceFeatures2;
  bool v12 = v11 && version >= VK_API_VERSION_1_2;

  uint32_t extensionCount = 0;
  POOT_VK_CHECK("vkEnumerateDeviceExtensionProperties",
                ctx->vkEnumerateDeviceExtensionProperties(
                    ctx->physical, nullptr, &extensionCount, nullptr));
  std::vector<VkExtensionProperties> extensions(extensionCount);
  if (extensionCount)
    POOT_VK_CHECK("vkEnumerateDeviceExtensionProperties",
                  ctx->vkEnumerateDeviceExtensionProperties(
                      ctx->physical, nullptr, &extensionCount,
                      extensions.data()));
  extensions.resize(extensionCount);
  // Extensions that only matter on a 1.1 device: 1.2 has them in core.
  bool float16Ext =
      v11 && !v12 &&
      hasExtension(extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  bool storage8Ext =
      v11 && !v12 && hasExtension(extensions, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);

  // Properties beyond 1.0 that opening the device needs (readFacts reads
  // the rest): subgroup operations and the allocation size.
  VkPhysicalDeviceSubgroupProperties subgroup = {};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceMaintenance3Properties maintenance3 = {};
  maintenance3.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  if (v11) {
    VkPhysicalDeviceProperties2 props2 = {};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    void **tail = &props2.pNext;
    auto chain = [&tail](auto &item) {
      *tail = &item;
      tail = &item.pNext;
    };
    chain(subgroup);
    chain(maintenance3);
    ctx->vkGetPhysicalDeviceProperties2(ctx->physical, &props2);
  }

  // Features: every one a generated kernel may need is enabled when the
  // device has it, so a module's capabilities are the only gate.
  VkPhysicalDeviceFeatures coreFeatures;
  ctx->vkGetPhysicalDeviceFeatures(ctx->physical, &coreFeatures);
  VkPhysicalDevice16BitStorageFeatures storage16 = {};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDeviceShaderFloat16Int8Features float16 = {};
  float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDevice8BitStorageFeatures storage8 = {};
  storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  bool haveFloat16Struct = v12 || float16Ext;
  bool haveStorage8Struct = v12 || storage8Ext;
  if (v11) {
    VkPhysicalDeviceFeatures2 features2 = {};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &storage16;
    void **tail = &storage16.pNext;
    if (haveFloat16Struct) {
      *tail = &float16;
      tail = &float16.pNext;
    }
    if (haveStorage8Struct) {
      *tail = &storage8;
      tail = &storage8.pNext;
    }
    ctx->vkGetPhysicalDeviceFeatures2(ctx->physical, &features2);
  }

  // One queue that can run compute; the first such family will do, since
  // everything is submitted and waited for in order anyway (the first one
  // that writes timestamps, where the families differ in that, so the
  // device can time its dispatches).
  uint32_t familyCount = 0;
  ctx->vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical, &familyCount,
                                                nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  ctx->vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical, &familyCount,
                                                families.data());
  bool foundQueue = false;
  for (int pass = 0; pass < 2 && !foundQueue; ++pass) {
    for (uint32_t i = 0; i < familyCount && !foundQueue; ++i) {
      if (families[i].queueCount > 0 &&
          (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
          (pass == 1 || families[i].timestampValidBits > 0)) {
        ctx->queueFamily = i;
        foundQueue = true;
      }
    }
  }
  if (!foundQueue)
    return Status(ErrorCode::Unsupported,
                  std::string("Vulkan device '") + props.deviceName +
                      "' has no compute queue");

  // Enable exactly what was found, as copies of the queried structs with
  // everything not wanted cleared.
  VkPhysicalDeviceFeatures enable = {};
  enable.shaderInt64 = coreFeatures.shaderInt64;
  enable.shaderInt16 = coreFeatures.shaderInt16;
  enable.shaderFloat64 = coreFeatures.shaderFloat64;
  VkPhysicalDevice16BitStorageFeatures enable16 = {};
  enable16.sType = storage16.sType;
  enable16.storageBuffer16BitAccess = storage16.storageBuffer16BitAccess;
  enable16.uniformAndStorageBuffer16BitAccess =
      storage16.uniformAndStorageBuffer16BitAccess;
  VkPhysicalDeviceShaderFloat16Int8Features enableFloat16 = {};
  enableFloat16.sType = float16.sType;
  enableFloat16.shaderFloat16 = float16.shaderFloat16;
  enableFloat16.shaderInt8 = float16.shaderInt8;
  VkPhysicalDevice8BitStorageFeatures enable8 = {};
  enable8.sType = storage8.sType;
  enable8.storageBuffer8BitAccess = storage8.storageBuffer8BitAccess;
  enable8.uniformAndStorageBuffer8BitAccess =
      storage8.uniformAndStorageBuffer8BitAccess;

  std::vector<const char *> enabledExtensions;
  const void *featureChain = nullptr;
  if (v11) {
    featureChain = &enable16;
    void **tail = &enable16.pNext;
    if (haveFloat16Struct) {
      *tail = &enableFloat16;
      tail = &enableFloat16.pNext;
      if (float16Ext)
        enabledExtensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
    if (haveStorage8Struct) {
      *tail = &enable8;
      tail = &enable8.pNext;
      if (storage8Ext)
        enabledExtensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
    }
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo = {};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = ctx->queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo = {};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.pNext = featureChain;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount =
      static_cast<uint32_t>(enabledExtensions.size());
  deviceInfo.ppEnabledExtensionNames = enabledExtensions.data();
  deviceInfo.pEnabledFeatures = &enable;
  POOT_VK_CREATE("vkCreateDevice",
                 ctx->vkCreateDevice(ctx->physical, &deviceInfo, nullptr,
                                     &ctx->device),
                 ctx->device);

#define POOT_VK_LOAD(name)                                                     \
  ctx->name = reinterpret_cast<PFN_##name>(                                    \
      ctx->vkGetDeviceProcAddr(ctx->device, #name));                           \
  if (!ctx->name)                                                              \
    return Status(ErrorCode::Unsupported,                                      \
                  "the Vulkan driver does not provide " #name);
  POOT_VK_DEVICE_FUNCTIONS(POOT_VK_LOAD)
#undef POOT_VK_LOAD

  ctx->vkGetDeviceQueue(ctx->device, ctx->queueFamily, 0, &ctx->queue);
  ctx->vkGetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory);

  VkCommandPoolCreateInfo poolInfo = {};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = ctx->queueFamily;
  POOT_VK_CREATE("vkCreateCommandPool",
                 ctx->vkCreateCommandPool(ctx->device, &poolInfo, nullptr,
                                          &ctx->commandPool),
                 ctx->commandPool);
  VkCommandBufferAllocateInfo commandInfo = {};
  commandInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  commandInfo.commandPool = ctx->commandPool;
  commandInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  commandInfo.commandBufferCount = 1;
  POOT_VK_CHECK("vkAllocateCommandBuffers",
                ctx->vkAllocateCommandBuffers(ctx->device, &commandInfo,
                                              &ctx->commandBuffer));
  VkFenceCreateInfo fenceInfo = {};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  POOT_VK_CREATE("vkCreateFence",
                 ctx->vkCreateFence(ctx->device, &fenceInfo, nullptr,
                                    &ctx->fence),
                 ctx->fence);

  std::unique_ptr<VulkanDevice> device(new VulkanDevice());
  device->apiVersion_ = props.apiVersion;
  // What was enabled above, which checkSpirvFeatures holds every module to.
  VulkanFeatures &features = device->features_;
  features.shaderInt64 = enable.shaderInt64 == VK_TRUE;
  features.shaderInt16 = enable.shaderInt16 == VK_TRUE;
  features.shaderFloat64 = enable.shaderFloat64 == VK_TRUE;
  features.storageBuffer16BitAccess =
      v11 && enable16.storageBuffer16BitAccess == VK_TRUE;
  features.uniformAndStorageBuffer16BitAccess =
      v11 && enable16.uniformAndStorageBuffer16BitAccess == VK_TRUE;
  features.shaderFloat16 =
      v11 && haveFloat16Struct && enableFloat16.shaderFloat16 == VK_TRUE;
  features.shaderInt8 =
      v11 && haveFloat16Struct && enableFloat16.shaderInt8 == VK_TRUE;
  features.storageBuffer8BitAccess =
      v11 && haveStorage8Struct && enable8.storageBuffer8BitAccess == VK_TRUE;
  features.uniformAndStorageBuffer8BitAccess =
      v11 && haveStorage8Struct &&
      enable8.uniformAndStorageBuffer8BitAccess == VK_TRUE;
  device->subgroupArithmetic_ =
      v11 && (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  device->offsetAlignment_ = std::max<int64_t>(
      1, static_cast<int64_t>(props.limits.minStorageBufferOffsetAlignment));
  // Without maintenance3 the only bound is the heap the buffer lands in.
  device->maxAllocationBytes_ =
      v11 ? static_cast<int64_t>(maintenance3.maxMemoryAllocationSize)
          : INT64_MAX;
  const VkPhysicalDeviceLimits &limits = props.limits;
  for (int i = 0; i < 3; ++i) {
    device->maxWorkgroupDims_[i] = limits.maxComputeWorkGroupSize[i];
    device->maxGroups_[i] = limits.maxComputeWorkGroupCount[i];
  }
  device->timestampPeriod_ = static_cast<double>(limits.timestampPeriod);
  device->timestampComputeAndGraphics_ =
      limits.timestampComputeAndGraphics == VK_TRUE;
  device->timestampValidBits_ = families[ctx->queueFamily].timestampValidBits;

  LiveDeviceFacts live;
  POOT_RETURN_IF_ERROR(readFacts(*ctx, ctx->physical, live));
  device->facts_ = live.facts;
  device->description_ = live.description;
  device->context_ = std::move(ctx);
  out = std::move(device);
  return Status::ok();
}

Status VulkanDevice::createBuffer(int64_t bytes, VulkanBuffer &out) {
  out = VulkanBuffer();
  if (bytes <= 0)
    return Status(ErrorCode::InvalidArgument,
                  "a buffer of " + std::to_string(bytes) +
                      " bytes: sizes must be positive");
  if (bytes > maxAllocationBytes_)
    return Status(ErrorCode::InvalidArgument,
                  "a buffer of " + std::to_string(bytes) +
                      " bytes is larger than the device's largest "
                      "allocation of " +
                      std::to_string(maxAllocationBytes_) + " bytes");
  Context &ctx = *context_;
  auto impl = std::make_unique<VulkanBuffer::Impl>();
  impl->ctx = context_;
  impl->size = bytes;

  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = static_cast<VkDeviceSize>(bytes);
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  POOT_VK_CREATE("vkCreateBuffer",
                 ctx.vkCreateBuffer(ctx.device, &info, nullptr, &impl->buffer),
                 impl->buffer);
  VkMemoryRequirements needs;
  ctx.vkGetBufferMemoryRequirements(ctx.device, impl->buffer, &needs);

  // Where the GPU reads its buffers matters more than anything else here:
  // host-visible memory on a discrete GPU is system memory read over the
  // bus (a few GB/s). So the buffer goes, in order of preference, to
  // device-local memory the host can map where that heap is the device's
  // main one (unified memory, lavapipe, resizable BAR); to device-local
  // memory the host cannot map, filled and read through a staging buffer
  // (a discrete GPU whose mappable window is small); and last to any
  // host-visible, coherent memory. When a heap is full the next is tried.
  const VkMemoryPropertyFlags mappable =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkDeviceSize largestLocal = 0;
  for (uint32_t h = 0; h < ctx.memory.memoryHeapCount; ++h)
    if (ctx.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      largestLocal = std::max(largestLocal, ctx.memory.memoryHeaps[h].size);
  std::vector<std::pair<uint32_t, bool>> candidates; // type, mapped
  for (int pass = 0; pass < 3; ++pass) {
    for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; ++i) {
      if (!(needs.memoryTypeBits & (1u << i)))
        continue;
      const VkMemoryType &type = ctx.memory.memoryTypes[i];
      bool local = type.propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      bool canMap = (type.propertyFlags & mappable) == mappable;
      bool mainHeap =
          ctx.memory.memoryHeaps[type.heapIndex].size * 2 >= largestLocal;
      if (pass == 0 && local && canMap && mainHeap && !ctx.forceStaging)
        candidates.push_back({i, true});
      else if (pass == 1 && local && (!canMap || ctx.forceStaging))
        candidates.push_back({i, false});
      else if (pass == 2 && canMap && !local)
        candidates.push_back({i, true});
    }
  }
  if (candidates.empty())
    return Status(ErrorCode::Unsupported,
                  "the Vulkan device has neither device-local nor "
                  "host-visible, coherent memory for storage buffers");
  VkResult result = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  bool map = false;
  for (auto [type, mapped] : candidates) {
    VkMemoryAllocateInfo alloc = {};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = type;
    result = ctx.vkAllocateMemory(ctx.device, &alloc, nullptr, &impl->memory);
    if (result == VK_SUCCESS) {
      map = mapped;
      break;
    }
    impl->memory = VK_NULL_HANDLE;
    if (result != VK_ERROR_OUT_OF_DEVICE_MEMORY)
      break;
  }
  POOT_VK_CHECK("vkAllocateMemory", result);
  POOT_VK_CHECK("vkBindBufferMemory",
                ctx.vkBindBufferMemory(ctx.device, impl->buffer, impl->memory,
                                       0));
  if (map)
    POOT_VK_CREATE("vkMapMemory",
                   ctx.vkMapMemory(ctx.device, impl->memory, 0, VK_WHOLE_SIZE,
                                   0, &impl->mapped),
                   impl->mapped);
  out.impl_ = std::move(impl);
  return Status::ok();
}

Status VulkanDevice::createKernel(const std::vector<uint32_t> &spirv,
                                  const std::string &entry, int numBuffers,
                                  VulkanKernel &out) {
  out = VulkanKernel();
  if (numBuffers < 0)
    return Status(ErrorCode::InvalidArgument,
                  "a kernel with " + std::to_string(numBuffers) + " buffers");
  ModuleInfo info;
  POOT_RETURN_IF_ERROR(SpirvReader(spirv).read(entry, numBuffers, info));
  POOT_RETURN_IF_ERROR(checkSpirvFeatures(spirv, features_));
  uint32_t maxVersion = maxSpirvVersion(std::min(
      apiVersion_, context_->instanceVersion));
  if (info.version > maxVersion)
    return Status(ErrorCode::Unsupported,
                  "SPIR-V " + spirvVersionText(info.version) +
                      " module is newer than the " +
                      spirvVersionText(maxVersion) +
                      " this Vulkan device accepts");
  const std::array<int64_t, 3> &size = info.workgroupSize;
  int64_t invocations = size[0] * size[1] * size[2];
  if (size[0] > maxWorkgroupDims_[0] || size[1] > maxWorkgroupDims_[1] ||
      size[2] > maxWorkgroupDims_[2] || invocations > facts_.maxWorkgroupSize ||
      invocations == 0)
    return Status(ErrorCode::InvalidArgument,
                  "kernel '" + entry + "' has workgroup size " +
                      std::to_string(size[0]) + "x" + std::to_string(size[1]) +
                      "x" + std::to_string(size[2]) +
                      "; the device allows at most " +
                      std::to_string(maxWorkgroupDims_[0]) + "x" +
                      std::to_string(maxWorkgroupDims_[1]) + "x" +
                      std::to_string(maxWorkgroupDims_[2]) + " and " +
                      std::to_string(facts_.maxWorkgroupSize) +
                      " invocations in all");
  if (info.workgroupMemoryBytes > facts_.workgroupMemoryBytes)
    return Status(ErrorCode::InvalidArgument,
                  "kernel '" + entry + "' needs " +
                      std::to_string(info.workgroupMemoryBytes) +
                      " bytes of workgroup memory; the device has " +
                      std::to_string(facts_.workgroupMemoryBytes));

  Context &ctx = *context_;
  auto impl = std::make_unique<VulkanKernel::Impl>();
  impl->ctx = context_;
  impl->entry = entry;
  impl->numBuffers = numBuffers;
  impl->workgroupSize = size;
  impl->workgroupMemoryBytes = info.workgroupMemoryBytes;

  // A kernel without buffers gets no set at all: a zero-sized descriptor
  // pool cannot be made, and there is nothing to bind.
  if (numBuffers > 0) {
    std::vector<VkDescriptorSetLayoutBinding> bindings(numBuffers);
    for (int i = 0; i < numBuffers; ++i) {
      bindings[i] = {};
      bindings[i].binding = static_cast<uint32_t>(i);
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo = {};
    setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    setInfo.bindingCount = static_cast<uint32_t>(numBuffers);
    setInfo.pBindings = bindings.data();
    POOT_VK_CREATE("vkCreateDescriptorSetLayout",
                   ctx.vkCreateDescriptorSetLayout(ctx.device, &setInfo,
                                                   nullptr, &impl->setLayout),
                   impl->setLayout);
  }
  VkPipelineLayoutCreateInfo layoutInfo = {};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = numBuffers > 0 ? 1 : 0;
  layoutInfo.pSetLayouts = &impl->setLayout;
  POOT_VK_CREATE("vkCreatePipelineLayout",
                 ctx.vkCreatePipelineLayout(ctx.device, &layoutInfo, nullptr,
                                            &impl->pipelineLayout),
                 impl->pipelineLayout);

  VkShaderModuleCreateInfo moduleInfo = {};
  moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleInfo.codeSize = spirv.size() * sizeof(uint32_t);
  moduleInfo.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  POOT_VK_CREATE("vkCreateShaderModule",
                 ctx.vkCreateShaderModule(ctx.device, &moduleInfo, nullptr,
                                          &module),
                 module);
  VkComputePipelineCreateInfo pipelineInfo = {};
  pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipelineInfo.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = impl->entry.c_str();
  pipelineInfo.layout = impl->pipelineLayout;
  VkResult result = ctx.vkCreateComputePipelines(
      ctx.device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &impl->pipeline);
  // The pipeline keeps what it needs; the module is only an input to it.
  ctx.vkDestroyShaderModule(ctx.device, module, nullptr);
  if (result != VK_SUCCESS) {
    impl->pipeline = VK_NULL_HANDLE;
    return vkError("vkCreateComputePipelines", result);
  }
  out.impl_ = std::move(impl);
  return Status::ok();
}

Status VulkanDevice::checkDispatch(const VulkanDispatch &dispatch,
                                   size_t position) const {
  std::string where = "dispatch " + std::to_string(position);
  const VulkanKernel *kernel = dispatch.kernel;
  if (!kernel || !kernel->impl_)
    return Status(ErrorCode::InvalidArgument, where + " has no kernel");
  const VulkanKernel::Impl &k = *kernel->impl_;
  where += " (kernel '" + k.entry + "')";
  if (k.ctx != context_)
    return Status(ErrorCode::InvalidArgument,
                  where + " uses a kernel of another device");
  if (dispatch.bindings.size() != static_cast<size_t>(k.numBuffers))
    return Status(ErrorCode::InvalidArgument,
                  where + " binds " + std::to_string(dispatch.bindings.size()) +
                      " buffers; the kernel takes " +
                      std::to_string(k.numBuffers));
  for (size_t i = 0; i < dispatch.bindings.size(); ++i) {
    const VulkanBinding &b = dispatch.bindings[i];
    std::string arg = where + ", binding " + std::to_string(i);
    if (!b.buffer || !b.buffer->impl_)
      return Status(ErrorCode::InvalidArgument, arg + " has no buffer");
    if (b.buffer->impl_->ctx != context_)
      return Status(ErrorCode::InvalidArgument,
                    arg + " uses a buffer of another device");
    int64_t size = b.buffer->impl_->size;
    int64_t bytes = b.bytes < 0 ? size - b.offset : b.bytes;
    if (b.offset < 0 || b.offset >= size)
      return Status(ErrorCode::InvalidArgument,
                    arg + ": offset " + std::to_string(b.offset) +
                        " is outside its buffer of " + std::to_string(size) +
                        " bytes");
    if (bytes == 0 || bytes > size - b.offset)
      return Status(ErrorCode::InvalidArgument,
                    arg + ": range of " + std::to_string(bytes) +
                        " bytes at offset " + std::to_string(b.offset) +
                        " is not inside its buffer of " +
                        std::to_string(size) + " bytes");
    if (b.offset % offsetAlignment_ != 0)
      return Status(ErrorCode::InvalidArgument,
                    arg + ": offset " + std::to_string(b.offset) +
                        " is not a multiple of the device's storage buffer "
                        "alignment " +
                        std::to_string(offsetAlignment_));
    if (bytes > facts_.maxBufferBytes)
      return Status(ErrorCode::InvalidArgument,
                    arg + " covers " + std::to_string(bytes) +
                        " bytes; one binding may address at most " +
                        std::to_string(facts_.maxBufferBytes) +
                        " (bind a smaller range)");
  }
  const int64_t groups[3] = {dispatch.groupsX, dispatch.groupsY,
                             dispatch.groupsZ};
  for (int i = 0; i < 3; ++i) {
    if (groups[i] < 0 || groups[i] > maxGroups_[i])
      return Status(ErrorCode::InvalidArgument,
                    where + ": grid " + std::to_string(groups[0]) + "x" +
                        std::to_string(groups[1]) + "x" +
                        std::to_string(groups[2]) +
                        " workgroups is outside the device's maximum of " +
                        std::to_string(maxGroups_[0]) + "x" +
                        std::to_string(maxGroups_[1]) + "x" +
                        std::to_string(maxGroups_[2]));
  }
  return Status::ok();
}

Status VulkanDevice::dispatch(const VulkanKernel &kernel,
                              const std::vector<VulkanBinding> &bindings,
                              int64_t groupsX, int64_t groupsY,
                              int64_t groupsZ) {
  VulkanDispatch one;
  one.kernel = &kernel;
  one.bindings = bindings;
  one.groupsX = groupsX;
  one.groupsY = groupsY;
  one.groupsZ = groupsZ;
  return dispatchAll({one});
}

Status VulkanDevice::dispatchAll(const std::vector<VulkanDispatch> &list) {
  return submitDispatches(list, 1, /*flushCache=*/false, nullptr);
}

Status VulkanDevice::timestampSupport() const {
  std::string device = "the Vulkan device '" +
                       description_.substr(0, description_.find(",")) + "'";
  if (timestampValidBits_ == 0)
    return Status(ErrorCode::Unsupported,
                  device +
                      " cannot time dispatches: its compute queue (family " +
                      std::to_string(context_->queueFamily) +
                      ") writes no timestamps (timestampValidBits 0, "
                      "timestampComputeAndGraphics " +
                      (timestampComputeAndGraphics_ ? "true" : "false") + ")");
  if (!(timestampPeriod_ > 0) || timestampPeriod_ > 1e12)
    return Status(ErrorCode::Unsupported,
                  device +
                      " cannot time dispatches: it reports a "
                      "timestampPeriod of " +
                      std::to_string(timestampPeriod_) + " ns");
  return Status::ok();
}

int64_t VulkanDevice::cacheFlushBytes() const {
  int64_t bytes = 256ll << 20;
  if (facts_.memoryBytes > 0)
    bytes = std::min<int64_t>(bytes, facts_.memoryBytes / 4);
  bytes = std::min<int64_t>(bytes, maxAllocationBytes_);
  return std::max<int64_t>(bytes / 4 * 4, 4);
}

Status VulkanDevice::timeDispatches(const std::vector<VulkanDispatch> &list,
                                    int iterations, bool flushCache,
                                    std::vector<double> &microseconds) {
  microseconds.clear();
  if (iterations < 1)
    return Status(ErrorCode::InvalidArgument,
                  "timing needs at least one iteration");
  POOT_RETURN_IF_ERROR(timestampSupport());
  return submitDispatches(list, iterations, flushCache, &microseconds);
}

Status VulkanDevice::submitDispatches(const std::vector<VulkanDispatch> &list,
                                      int iterations, bool flushCache,
                                      std::vector<double> *microseconds) {
  uint32_t sets = 0, descriptors = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    POOT_RETURN_IF_ERROR(checkDispatch(list[i], i));
    int n = list[i].kernel->impl_->numBuffers;
    sets += n > 0 ? 1 : 0;
    descriptors += static_cast<uint32_t>(n);
  }
  if (list.empty() && !microseconds)
    return Status::ok();

  Context &ctx = *context_;
  std::lock_guard<std::mutex> lock(ctx.submitMutex);
  // The cache flush writes a device buffer of its own, in device-local
  // memory where there is any (it is never mapped): made once, kept.
  if (flushCache && !flushBuffer_.valid()) {
    auto impl = std::make_unique<VulkanBuffer::Impl>();
    impl->ctx = context_;
    impl->size = cacheFlushBytes();
    VkBufferCreateInfo info = {};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = static_cast<VkDeviceSize>(impl->size);
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    POOT_VK_CREATE(
        "vkCreateBuffer",
        ctx.vkCreateBuffer(ctx.device, &info, nullptr, &impl->buffer),
        impl->buffer);
    VkMemoryRequirements needs;
    ctx.vkGetBufferMemoryRequirements(ctx.device, impl->buffer, &needs);
    VkResult result = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    for (int pass = 0; pass < 2 && impl->memory == VK_NULL_HANDLE; ++pass) {
      for (uint32_t t = 0; t < ctx.memory.memoryTypeCount; ++t) {
        bool local = ctx.memory.memoryTypes[t].propertyFlags &
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        if (!(needs.memoryTypeBits & (1u << t)) || local != (pass == 0))
          continue;
        VkMemoryAllocateInfo alloc = {};
        alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        alloc.allocationSize = needs.size;
        alloc.memoryTypeIndex = t;
        result =
            ctx.vkAllocateMemory(ctx.device, &alloc, nullptr, &impl->memory);
        if (result == VK_SUCCESS)
          break;
        impl->memory = VK_NULL_HANDLE;
      }
    }
    POOT_VK_CHECK("vkAllocateMemory (cache flush buffer)", result);
    POOT_VK_CHECK(
        "vkBindBufferMemory",
        ctx.vkBindBufferMemory(ctx.device, impl->buffer, impl->memory, 0));
    flushBuffer_.impl_ = std::move(impl);
  }

  if (microseconds && ctx.queryPool == VK_NULL_HANDLE) {
    VkQueryPoolCreateInfo queryInfo = {};
    queryInfo.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queryInfo.queryCount = 2;
    POOT_VK_CREATE(
        "vkCreateQueryPool",
        ctx.vkCreateQueryPool(ctx.device, &queryInfo, nullptr, &ctx.queryPool),
        ctx.queryPool);
  }

  // One pool serves every submission: reset when the last one finished,
  // and replaced by a larger one when a sequence needs more than it holds.
  if (sets > ctx.poolSets || descriptors > ctx.poolDescriptors) {
    if (ctx.descriptorPool != VK_NULL_HANDLE)
      ctx.vkDestroyDescriptorPool(ctx.device, ctx.descriptorPool, nullptr);
    ctx.descriptorPool = VK_NULL_HANDLE;
    ctx.poolSets = std::max({sets, 2 * ctx.poolSets, 64u});
    ctx.poolDescriptors =
        std::max({descriptors, 2 * ctx.poolDescriptors, 256u});
    VkDescriptorPoolSize poolSize = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                     ctx.poolDescriptors};
    VkDescriptorPoolCreateInfo poolInfo = {};
    poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    poolInfo.maxSets = ctx.poolSets;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    VkResult result = ctx.vkCreateDescriptorPool(ctx.device, &poolInfo, nullptr,
                                                 &ctx.descriptorPool);
    if (result != VK_SUCCESS) {
      ctx.descriptorPool = VK_NULL_HANDLE;
      ctx.poolSets = ctx.poolDescriptors = 0;
      return vkError("vkCreateDescriptorPool", result);
    }
  } else {
    POOT_VK_CHECK("vkResetDescriptorPool",
                  ctx.vkResetDescriptorPool(ctx.device, ctx.descriptorPool, 0));
  }

  std::vector<VkDescriptorSetLayout> layouts;
  for (const VulkanDispatch &d : list)
    if (d.kernel->impl_->numBuffers > 0)
      layouts.push_back(d.kernel->impl_->setLayout);
  std::vector<VkDescriptorSet> descriptorSets(layouts.size());
  if (!layouts.empty()) {
    VkDescriptorSetAllocateInfo allocInfo = {};
    allocInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocInfo.descriptorPool = ctx.descriptorPool;
    allocInfo.descriptorSetCount = static_cast<uint32_t>(layouts.size());
    allocInfo.pSetLayouts = layouts.data();
    POOT_VK_CHECK("vkAllocateDescriptorSets",
                  ctx.vkAllocateDescriptorSets(ctx.device, &allocInfo,
                                               descriptorSets.data()));
  }
  // Every buffer info is placed before any write points into the vector.
  std::vector<VkDescriptorBufferInfo> bufferInfos;
  bufferInfos.reserve(descriptors);
  std::vector<VkWriteDescriptorSet> writes;
  writes.reserve(descriptors);
  size_t setIndex = 0;
  for (const VulkanDispatch &d : list) {
    if (d.bindings.empty())
      continue;
    for (size_t i = 0; i < d.bindings.size(); ++i) {
      const VulkanBinding &b = d.bindings[i];
      int64_t bytes = b.bytes < 0 ? b.buffer->impl_->size - b.offset : b.bytes;
      bufferInfos.push_back({b.buffer->impl_->buffer,
                             static_cast<VkDeviceSize>(b.offset),
                             static_cast<VkDeviceSize>(bytes)});
      VkWriteDescriptorSet write = {};
      write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      write.dstSet = descriptorSets[setIndex];
      write.dstBinding = static_cast<uint32_t>(i);
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &bufferInfos.back();
      writes.push_back(write);
    }
    ++setIndex;
  }
  if (!writes.empty())
    ctx.vkUpdateDescriptorSets(ctx.device, static_cast<uint32_t>(writes.size()),
                               writes.data(), 0, nullptr);

  // One submission a run; the descriptor sets written above serve them all.
  const uint64_t tickMask =
      timestampValidBits_ >= 64 ? ~0ull : (1ull << timestampValidBits_) - 1;
  for (int run = 0; run < iterations; ++run) {
    POOT_VK_CHECK("vkResetCommandPool",
                  ctx.vkResetCommandPool(ctx.device, ctx.commandPool, 0));
    VkCommandBufferBeginInfo begin = {};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkCommandBuffer cmd = ctx.commandBuffer;
    POOT_VK_CHECK("vkBeginCommandBuffer",
                  ctx.vkBeginCommandBuffer(cmd, &begin));
    if (flushCache) {
      // A changing value, so no layer of the memory system can treat the
      // write as a no-op; the first dispatch starts after the fill is done.
      ctx.vkCmdFillBuffer(cmd, flushBuffer_.impl_->buffer, 0, VK_WHOLE_SIZE,
                          ++flushValue_);
      VkMemoryBarrier filled = {};
      filled.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      filled.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      filled.dstAccessMask =
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      ctx.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                               &filled, 0, nullptr, 0, nullptr);
    }
    if (microseconds) {
      // Both stamps at the bottom of the pipe: each is taken once every
      // command before it completed, so the start is after the flush and
      // the stop after the last dispatch.
      ctx.vkCmdResetQueryPool(cmd, ctx.queryPool, 0, 2);
      ctx.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                              ctx.queryPool, 0);
    }
    setIndex = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const VulkanDispatch &d = list[i];
      const VulkanKernel::Impl &k = *d.kernel->impl_;
      if (i > 0) {
        // Each dispatch may read (or overwrite) what the previous ones
        // wrote: a global compute-to-compute dependency, coarse but exactly
        // what a plan's serial order means.
        VkMemoryBarrier barrier = {};
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        barrier.dstAccessMask =
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        ctx.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &barrier, 0, nullptr, 0, nullptr);
      }
      ctx.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
      if (k.numBuffers > 0)
        ctx.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                    k.pipelineLayout, 0, 1,
                                    &descriptorSets[setIndex++], 0, nullptr);
      ctx.vkCmdDispatch(cmd, static_cast<uint32_t>(d.groupsX),
                        static_cast<uint32_t>(d.groupsY),
                        static_cast<uint32_t>(d.groupsZ));
    }
    if (microseconds)
      ctx.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                              ctx.queryPool, 1);
    // The fence makes the writes available on the device only; the host
    // reads the mapping, so they must be made visible to it too.
    VkMemoryBarrier toHost = {};
    toHost.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    ctx.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                             nullptr, 0, nullptr);
    POOT_VK_CHECK("vkEndCommandBuffer", ctx.vkEndCommandBuffer(cmd));

    POOT_VK_CHECK("vkResetFences",
                  ctx.vkResetFences(ctx.device, 1, &ctx.fence));
    VkSubmitInfo submit = {};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    // Host writes to coherent memory before the submission are visible to
    // it: vkQueueSubmit is a host-to-device memory dependency by definition.
    POOT_VK_CHECK("vkQueueSubmit",
                  ctx.vkQueueSubmit(ctx.queue, 1, &submit, ctx.fence));
    POOT_VK_CHECK(
        "vkWaitForFences",
        ctx.vkWaitForFences(ctx.device, 1, &ctx.fence, VK_TRUE, UINT64_MAX));
    if (microseconds) {
      uint64_t stamps[2] = {0, 0};
      POOT_VK_CHECK("vkGetQueryPoolResults",
                    ctx.vkGetQueryPoolResults(
                        ctx.device, ctx.queryPool, 0, 2, sizeof(stamps), stamps,
                        sizeof(uint64_t),
                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      uint64_t ticks = (stamps[1] - stamps[0]) & tickMask;
      microseconds->push_back(static_cast<double>(ticks) * timestampPeriod_ /
                              1000.0);
    }
  }
  return Status::ok();
}
