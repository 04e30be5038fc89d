#include "profiler/analysis/kernel_stats.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

void KernelTable::merge(const KernelTable& other) {
  other.each([this](std::uint32_t label, const Acc& o) {
    Acc& a = acc(label);
    a.min = a.count == 0 ? o.min : std::min(a.min, o.min);
    a.max = a.count == 0 ? o.max : std::max(a.max, o.max);
    a.count += o.count;
    a.total = sat_add(a.total, o.total);
  });
}

std::vector<KernelStat> KernelTable::finish(
    const std::function<std::string_view(std::uint32_t)>& name) const {
  std::map<std::string, KernelStat, std::less<>> by_name;
  each([&](std::uint32_t label, const Acc& a) {
    const std::string_view n = name(label);
    auto it = by_name.find(n);
    if (it == by_name.end()) {
      KernelStat k;
      k.name = std::string(n);
      k.min_ns = a.min;
      k.max_ns = a.max;
      it = by_name.emplace(k.name, std::move(k)).first;
    }
    KernelStat& k = it->second;
    k.min_ns = std::min(k.min_ns, a.min);
    k.max_ns = std::max(k.max_ns, a.max);
    k.count += a.count;
    k.total_ns = sat_add(k.total_ns, a.total);
  });
  std::vector<KernelStat> out;
  out.reserve(by_name.size());
  std::int64_t all = 0;
  for (auto& [n, k] : by_name) {
    k.mean_ns = k.count > 0 ? k.total_ns / k.count : 0;
    all = sat_add(all, k.total_ns);
    out.push_back(std::move(k));
  }
  for (KernelStat& k : out) k.share_pct = percent(k.total_ns, all);
  std::stable_sort(out.begin(), out.end(), [](const KernelStat& a, const KernelStat& b) {
    return a.total_ns > b.total_ns;
  });
  return out;
}

}  // namespace ts::analysis
