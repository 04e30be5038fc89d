// The distribution lever (lever_rules.hpp): time in collectives not hidden behind compute, the
// rank that holds the others back (ranks.hpp), and how much of the collective kernels' time
// overlaps compute (HTA's communication-computation overlap).
#include <algorithm>
#include <array>
#include <cctype>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/lever_rules.hpp"
#include "profiler/analysis/levers.hpp"
#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis::lever_rules {

namespace {

std::string overlap_text(const Report& r) {
  const std::string per_rank = per_rank_text(
      r, [](const RankFigures& k) { return k.communication_overlap_pct; },
      [](double v) { return fmt::pct(v); });
  return fmt::pct(*r.communication_overlap_pct) +
         " of the collective kernels' time overlaps compute kernels" +
         (per_rank.empty() ? "" : " (" + per_rank + ")");
}

}  // namespace

bool collective_kernel(std::string_view name) {
  std::string lowered(name);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  constexpr std::array<std::string_view, 8> kParts = {
      "nccl",      "rccl",       "allreduce",     "all_reduce",
      "allgather", "all_gather", "reducescatter", "reduce_scatter"};
  return std::any_of(kParts.begin(), kParts.end(),
                     [&](std::string_view p) { return lowered.find(p) != std::string::npos; });
}

std::optional<Lever> distribution(const Report& r, const AnalysisOptions& o, const LeverFacts&) {
  const double exposed = per_step(r, r.breakdown[Part::collective]);
  const double share = step_pct(r, exposed);
  if (share < kModerateCommunicationPct && !r.straggler) return std::nullopt;
  const bool low_overlap =
      r.communication_overlap_pct && *r.communication_overlap_pct < kLowOverlapPct;
  // A straggler's wait is removed from the other ranks' steps; otherwise overlapping the
  // communication with compute hides about half of what is exposed.
  const double ranks = static_cast<double>(std::max<std::size_t>(1, r.ranks.size()));
  const double straggler_wait =
      r.straggler ? r.straggler->wait_ms_per_step * 1e6 * (ranks - 1) / ranks : 0;
  Lever l = r.straggler
                ? make(r, o, "distribution", "Distribution", straggler_wait, "modelled",
                       "the other ranks' extra wait in collectives removed, as if the "
                       "straggler's own work were as fast as theirs")
                : make(r, o, "distribution", "Distribution", exposed / 2, "heuristic",
                       "half of the communication not hidden behind compute, as overlapping "
                       "it with the backward pass (gradient buckets) typically hides");
  l.evidence.push_back("Communication is " + fmt::pct(share) + " of step time (" +
                       fmt::duration(static_cast<std::int64_t>(exposed)) +
                       " per step in collectives with no compute beside them).");
  if (r.communication_overlap_pct)
    l.evidence.push_back(overlap_text(r) +
                         (low_overlap ? ": most of the communication waits in the open." : "."));
  if (r.straggler) {
    l.evidence.push_back(r.straggler->sentence + ".");
    l.points_at.push_back("rank " + std::to_string(r.straggler->rank));
  }
  if (r.load_imbalance_pct >= kImbalancePct)
    l.evidence.push_back("The ranks' own work per step differs by " +
                         fmt::pct(r.load_imbalance_pct) + " of its mean (load imbalance).");
  for (const KernelStat& k : r.kernels)
    if (collective_kernel(k.name) && l.points_at.size() < 4) l.points_at.push_back(k.name);
  if (r.communication_overlap_pct && !low_overlap)
    l.already_on.push_back("communication overlapped with compute (" +
                           fmt::pct(*r.communication_overlap_pct) +
                           " of the collective kernels' time)");
  const Framework fw = framework(r);
  if (r.straggler)
    l.fix.push_back("find why rank " + std::to_string(r.straggler->rank) + "'s " +
                    r.straggler->cause +
                    " is slower than the others' (its input pipeline, device or host) and "
                    "balance the ranks' work");
  if (!r.communication_overlap_pct || low_overlap) {
    l.fix.push_back(
        fw == Framework::pytorch ? "overlap the gradient all-reduce with the backward pass "
                                   "(DistributedDataParallel's gradient buckets, bucket_cap_mb; "
                                   "FSDP's backward_prefetch)"
        : fw == Framework::tensorflow
            ? "overlap the all-reduce with the backward pass "
              "(tf.distribute.experimental.CommunicationOptions(bytes_per_pack=...))"
            : "overlap the gradient all-reduce with the backward pass (all-reduce each layer's "
              "gradients as soon as they are ready)");
  }
  l.fix.push_back(fw == Framework::pytorch
                      ? "communicate less often or less: gradient accumulation under "
                        "DistributedDataParallel.no_sync(), or a bf16 compression hook "
                        "(register_comm_hook(bf16_compress_hook))"
                      : "communicate less often or less: a larger batch per rank, gradient "
                        "accumulation, or gradients compressed to 16 bits");
  return l;
}

}  // namespace ts::analysis::lever_rules
