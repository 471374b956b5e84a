//===- PlanFuzzer.cpp - libFuzzer target: the plan loader -----------------===//
//
// Feeds rt::parsePlan the input as it is (the header and checksum checks),
// then the same body under a header with a matching checksum, so that
// mutations reach the record parser instead of stopping at the checksum. A
// plan that loads must serialize to a text that loads again and serializes
// the same (the writer and the reader agree on every record they accept).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanFile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace poot::rt;

namespace {

uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// The input's body (after its first two lines, or all of it when it has no
/// plan header) under a current header and a checksum that matches it.
std::string withChecksum(const std::string &text) {
  std::string body = text;
  if (looksLikePlan(text)) {
    size_t nl1 = text.find('\n');
    size_t nl2 = nl1 == std::string::npos ? nl1 : text.find('\n', nl1 + 1);
    body = nl2 == std::string::npos ? std::string() : text.substr(nl2 + 1);
  }
  char head[64];
  std::snprintf(head, sizeof(head), "poot-plan %d\nchecksum %016llx\n",
                kPlanVersion, static_cast<unsigned long long>(fnv1a(body)));
  return head + body;
}

void roundTrip(const Plan &plan) {
  std::string once = serializePlan(plan);
  Plan again;
  Status s = parsePlan(once, again);
  if (!s.isOk()) {
    std::fprintf(stderr, "a loaded plan does not load once written: %s\n",
                 s.toString().c_str());
    std::abort();
  }
  if (serializePlan(again) != once) {
    std::fprintf(stderr, "a loaded plan does not write the same twice\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Plan plan;
  if (parsePlan(text, plan).isOk())
    roundTrip(plan);
  Plan forged;
  if (parsePlan(withChecksum(text), forged).isOk())
    roundTrip(forged);
  return 0;
}
