//===- DeviceQuery.cpp - Device facts of the host -------------------------===//
//
// The cpu device's facts read from the host, and the query by device kind.
// The Vulkan and CUDA queries live beside their devices (VulkanDevice.cpp,
// CudaDevice.cpp), which own the dlopen tables they need.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/DeviceQuery.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <cstdlib>
#include <map>
#include <thread>

using namespace poot::rt;

Status poot::rt::queryHostFacts(LiveDeviceFacts &out) {
  out = LiveDeviceFacts();
  out.kind = "cpu";
  DeviceFacts &f = out.facts;
  f.name = "cpu";
  f.target = "cpu";
  unsigned threads = std::thread::hardware_concurrency();
  f.computeUnits = threads > 0 ? threads : 1;
  // The cpu device runs one fused op at a time in the evaluator; these are
  // the limits of the cpu preset, which no host lowers.
  f.workgroupMemoryBytes = int64_t(1) << 20;
  f.maxWorkgroupSize = 64;
  f.subgroupSize = 1;
  f.maxGridX = f.maxGridY = (int64_t(1) << 31) - 1;
  out.maxGrid = {f.maxGridX, f.maxGridY, f.maxGridY};
  out.maxWorkgroupDims = {f.maxWorkgroupSize, 1, 1};
  out.workgroupMemoryOptInBytes = f.workgroupMemoryBytes;
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return Status(ErrorCode::Unsupported,
                  "the host's physical memory cannot be read "
                  "(sysconf(_SC_PHYS_PAGES))");
  f.memoryBytes = static_cast<int64_t>(pages) * pageSize;
  f.maxBufferBytes = f.memoryBytes;
  out.heaps.push_back({f.memoryBytes, true});
  f.f16Storage = true;
  f.bf16Storage = true;
  f.fixedSubgroup = false;
  char text[96];
  std::snprintf(text, sizeof(text), "host cpu (%lld threads, %.1f GiB)",
                static_cast<long long>(f.computeUnits),
                static_cast<double>(f.memoryBytes) / (int64_t(1) << 30));
  out.description = text;
  return Status::ok();
}

Status poot::rt::queryDeviceFacts(const std::string &kind,
                                  LiveDeviceFacts &out) {
  if (kind == "vulkan")
    return queryVulkanFacts(out);
  if (kind == "cuda")
    return queryCudaFacts(out);
  if (kind == "cpu")
    return queryHostFacts(out);
  out = LiveDeviceFacts();
  return Status(ErrorCode::InvalidArgument,
                "no device query for '" + kind + "' (vulkan, cuda, cpu)");
}

namespace {

/// Every entry of the text, by key: where it lives in LiveDeviceFacts.
using poot::DeviceFacts;

struct FactField {
  const char *key;
  int64_t DeviceFacts::*number;
  bool DeviceFacts::*flag;
};

const FactField kFactFields[] = {
    {"compute-units", &DeviceFacts::computeUnits, nullptr},
    {"workgroup-memory-bytes", &DeviceFacts::workgroupMemoryBytes, nullptr},
    {"dynamic-workgroup-memory-bytes",
     &DeviceFacts::dynamicWorkgroupMemoryBytes, nullptr},
    {"max-workgroup-size", &DeviceFacts::maxWorkgroupSize, nullptr},
    {"subgroup-size", &DeviceFacts::subgroupSize, nullptr},
    {"max-grid-x", &DeviceFacts::maxGridX, nullptr},
    {"max-grid-y", &DeviceFacts::maxGridY, nullptr},
    {"max-buffer-bytes", &DeviceFacts::maxBufferBytes, nullptr},
    {"memory-bytes", &DeviceFacts::memoryBytes, nullptr},
    {"vector-load-bytes", &DeviceFacts::vectorLoadBytes, nullptr},
    {"f16-storage", nullptr, &DeviceFacts::f16Storage},
    {"bf16-storage", nullptr, &DeviceFacts::bf16Storage},
    {"int64", nullptr, &DeviceFacts::int64},
    {"fixed-subgroup", nullptr, &DeviceFacts::fixedSubgroup},
    {"matrix-tile", nullptr, &DeviceFacts::matrixTile},
    {"async-copy", nullptr, &DeviceFacts::asyncCopy},
    {"warpgroup-tile", nullptr, &DeviceFacts::warpgroupTile},
    {"device-fence", nullptr, &DeviceFacts::deviceFence},
};

} // namespace

std::string poot::rt::formatDeviceFacts(const LiveDeviceFacts &live) {
  std::ostringstream os;
  os << "poot-device-facts 1\n";
  os << "kind " << live.kind << "\n";
  os << "name " << live.facts.name << "\n";
  os << "target " << live.facts.target << "\n";
  os << "description " << live.description << "\n";
  for (const FactField &f : kFactFields)
    os << f.key << " "
       << (f.number ? live.facts.*f.number : int64_t(live.facts.*f.flag))
       << "\n";
  return os.str();
}

Status poot::rt::parseDeviceFacts(const std::string &text,
                                  LiveDeviceFacts &out) {
  LiveDeviceFacts live;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  std::map<std::string, bool> seen;
  auto bad = [&](const std::string &why) {
    return Status(ErrorCode::InvalidArgument,
                  "device facts line " + std::to_string(number) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty())
      continue;
    size_t space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (number == 1) {
      if (line != "poot-device-facts 1")
        return bad("expected 'poot-device-facts 1', got '" + line + "'");
      continue;
    }
    if (!seen.emplace(key, true).second)
      return bad("'" + key + "' given twice");
    if (key == "kind") {
      live.kind = value;
    } else if (key == "name") {
      live.facts.name = value;
    } else if (key == "target") {
      live.facts.target = value;
    } else if (key == "description") {
      live.description = value;
    } else {
      const FactField *field = nullptr;
      for (const FactField &f : kFactFields)
        if (key == f.key)
          field = &f;
      if (!field)
        return bad("unknown entry '" + key + "'");
      char *end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || v < 0 ||
          (field->flag && v > 1))
        return bad("'" + key + "' needs a " +
                   (field->flag ? "0 or 1" : "non-negative whole number") +
                   ", got '" + value + "'");
      if (field->number)
        live.facts.*field->number = v;
      else
        live.facts.*field->flag = v != 0;
    }
  }
  if (number == 0)
    return Status(ErrorCode::InvalidArgument, "device facts: empty text");
  std::vector<std::string> required = {"kind", "name", "target"};
  // Every entry but the dynamic workgroup memory, which facts written
  // before it existed lack (0: none).
  for (const FactField &f : kFactFields)
    if (f.number != &DeviceFacts::dynamicWorkgroupMemoryBytes)
      required.push_back(f.key);
  for (const std::string &key : required)
    if (!seen.count(key))
      return Status(ErrorCode::InvalidArgument,
                    "device facts: no '" + key + "' entry");
  if (live.facts.computeUnits < 1 || live.facts.maxWorkgroupSize < 1 ||
      live.facts.subgroupSize < 1 || live.facts.maxGridX < 1 ||
      live.facts.maxGridY < 1)
    return Status(ErrorCode::InvalidArgument,
                  "device facts: compute units, workgroup size, subgroup and "
                  "grid limits must be at least 1");
  live.minSubgroupSize = live.maxSubgroupSize = live.facts.subgroupSize;
  live.workgroupMemoryOptInBytes = live.facts.workgroupMemoryBytes;
  out = std::move(live);
  return Status::ok();
}
