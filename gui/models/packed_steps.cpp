#include "gui/models/packed_steps.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "profiler/analysis/report_codec.hpp"

namespace ts::gui {

void PackedSteps::append(std::span<const analysis::StepSummary> steps) {
  for (const analysis::StepSummary& s : steps) {
    earliest_start_ns_ = size_ == 0 ? s.start_ns : std::min(earliest_start_ns_, s.start_ns);
    ++size_;
  }
  while (!steps.empty()) {
    if (pending_.empty() && steps.size() >= kBlockSteps) {  // whole blocks need no copy
      pack(steps.first(kBlockSteps));
      steps = steps.subspan(kBlockSteps);
      continue;
    }
    const std::size_t n = std::min(kBlockSteps - pending_.size(), steps.size());
    pending_.insert(pending_.end(), steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(n));
    steps = steps.subspan(n);
    if (pending_.size() == kBlockSteps) {
      pack(pending_);
      pending_.clear();
    }
  }
}

bool PackedSteps::add_kept_part(const std::string& path, std::string_view key, std::size_t part,
                                std::string_view bytes) {
  if (part == 0) return false;
  const std::optional<analysis::StepRunHead> head = analysis::step_run_head(bytes);
  if (!head || head->count == 0) return false;
  // Steps appended before it come first: a block of their own, however short (blocks may hold
  // fewer than kBlockSteps: a hostile file's parts may be of any length).
  if (!pending_.empty()) {
    pack(pending_);
    pending_.clear();
  }
  std::size_t first = steps_in_blocks();
  std::vector<Block> added;
  std::optional<analysis::StepSummary> before = last_packed_;
  std::vector<analysis::StepSummary> run;
  std::size_t offset = head->first_offset, left = head->count;
  std::int64_t earliest =
      size_ == 0 ? std::numeric_limits<std::int64_t>::max() : earliest_start_ns_;
  while (left > 0) {
    const std::size_t n = std::min(kBlockSteps, left);
    run.clear();
    const std::optional<std::size_t> next =
        analysis::decode_steps_at(bytes, offset, n, before ? &*before : nullptr, run);
    if (!next) return false;
    Block& b = added.emplace_back();
    b.first = first;
    first += n;
    b.part = part;
    b.offset = offset;
    b.count = n;
    if (before) {
      b.has_before = true;
      b.before_step = before->step;
      b.before_start_ns = before->start_ns;
    }
    index_block(b, run);
    for (const analysis::StepSummary& s : run) earliest = std::min(earliest, s.start_ns);
    before = run.back();
    offset = *next;
    left -= n;
  }
  if (offset != bytes.size()) return false;
  if (!parts_) {
    try {
      parts_ = std::make_unique<store::KeptParts>(path);
    } catch (const std::exception&) {
      return false;
    }
    key_ = std::string(key);
  }
  earliest_start_ns_ = earliest;
  size_ += head->count;
  last_packed_ = before;
  blocks_.insert(blocks_.end(), std::make_move_iterator(added.begin()),
                 std::make_move_iterator(added.end()));
  return true;
}

void PackedSteps::finish() {
  if (!pending_.empty()) pack(pending_);
  pending_ = {};
  blocks_.shrink_to_fit();
}

void PackedSteps::index_block(Block& b, std::span<const analysis::StepSummary> run) {
  const auto by_number = [](const auto& x, const auto& y) { return x.step < y.step; };
  ascending_ = ascending_ && std::is_sorted(run.begin(), run.end(), by_number) &&
               (!b.has_before || b.before_step <= run.front().step);
  const auto [least, most] = std::minmax_element(
      run.begin(), run.end(), [](const auto& x, const auto& y) { return x.step < y.step; });
  b.least_step = least->step;
  b.most_step = most->step;
}

void PackedSteps::pack(std::span<const analysis::StepSummary> run) {
  // The encoding refuses a share that is not finite or beyond 2^62 (what a hostile trace's
  // analysis could make of impossible times): such a share is packed as 0.
  const auto refused = [](const analysis::StepSummary& s) {
    return !(std::abs(s.input_pct) <= 0x1p62);
  };
  std::vector<analysis::StepSummary> fixed;
  if (std::any_of(run.begin(), run.end(), refused)) {
    fixed.assign(run.begin(), run.end());
    for (analysis::StepSummary& s : fixed)
      if (refused(s)) s.input_pct = 0;
    run = fixed;
  }
  const std::size_t first = steps_in_blocks();
  Block& b = blocks_.emplace_back();
  b.first = first;
  b.bytes = analysis::encode_step_run(run, last_packed_ ? &*last_packed_ : nullptr);
  b.bytes.shrink_to_fit();
  b.count = run.size();
  if (last_packed_) {
    b.has_before = true;
    b.before_step = last_packed_->step;
    b.before_start_ns = last_packed_->start_ns;
  }
  index_block(b, run);
  last_packed_ = run.back();
}

const std::vector<analysis::StepSummary>& PackedSteps::decoded(std::size_t b) const {
  if (cached_block_ == b) return cache_;
  cached_block_ = SIZE_MAX;
  decode_into(b, cache_);
  cached_block_ = b;
  return cache_;
}

void PackedSteps::decode_into(std::size_t b, std::vector<analysis::StepSummary>& out) const {
  const Block& block = blocks_[b];
  analysis::StepSummary before;
  before.step = block.before_step;
  before.start_ns = block.before_start_ns;
  const analysis::StepSummary* from = block.has_before ? &before : nullptr;
  out.clear();
  if (block.part == 0) {
    // Packed here from a report in memory: the bytes always decode.
    if (!analysis::decode_step_run(block.bytes, from, kBlockSteps, out))
      throw std::logic_error("packed steps do not decode");
    return;
  }
  bool read = cached_part_ == block.part;
  if (!read) {
    cached_part_ = 0;
    if (std::optional<std::string> bytes =
            parts_->part(key_, static_cast<std::int64_t>(block.part))) {
      part_bytes_ = std::move(*bytes);
      cached_part_ = block.part;
      read = true;
    }
  }
  if (!read || !analysis::decode_steps_at(part_bytes_, block.offset, block.count, from, out)) {
    read_failed_ = true;
    out.assign(block.count, analysis::StepSummary{});
    for (analysis::StepSummary& s : out) s.step = -1;
  }
  out.resize(block.count);
}

std::size_t PackedSteps::block_of(std::size_t i) const {
  const auto it = std::partition_point(blocks_.begin(), blocks_.end(),
                                       [&](const Block& b) { return b.first <= i; });
  return static_cast<std::size_t>(it - blocks_.begin()) - 1;
}

analysis::StepSummary PackedSteps::at(std::size_t i) const {
  const std::lock_guard lock(mutex_);
  const std::size_t b = block_of(i);
  return decoded(b).at(i - blocks_[b].first);
}

void PackedSteps::for_each(
    const std::function<void(std::size_t, const analysis::StepSummary&)>& fn) const {
  std::vector<analysis::StepSummary> block;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    {
      const std::lock_guard lock(mutex_);
      decode_into(b, block);  // its own buffer: fn may read other steps through at()
    }
    for (std::size_t k = 0; k < block.size(); ++k) fn(blocks_[b].first + k, block[k]);
  }
}

void PackedSteps::for_each_from(
    std::size_t first,
    const std::function<bool(std::size_t, const analysis::StepSummary&)>& fn) const {
  if (first >= size_) return;
  std::vector<analysis::StepSummary> block;
  for (std::size_t b = block_of(first); b < blocks_.size(); ++b) {
    {
      const std::lock_guard lock(mutex_);
      decode_into(b, block);  // its own buffer: fn may read other steps through at()
    }
    const std::size_t from = blocks_[b].first;
    for (std::size_t k = first > from ? first - from : 0; k < block.size(); ++k)
      if (!fn(from + k, block[k])) return;
  }
}

std::size_t PackedSteps::first_at_least(std::int64_t step) const {
  if (!ascending_) return 0;
  const auto it = std::partition_point(blocks_.begin(), blocks_.end(),
                                       [&](const Block& b) { return b.most_step < step; });
  if (it == blocks_.end()) return size_;
  const auto b = static_cast<std::size_t>(it - blocks_.begin());
  const std::lock_guard lock(mutex_);
  const auto& steps = decoded(b);
  const auto in = std::partition_point(
      steps.begin(), steps.end(), [&](const analysis::StepSummary& s) { return s.step < step; });
  return blocks_[b].first + static_cast<std::size_t>(in - steps.begin());
}

std::optional<std::size_t> PackedSteps::find_step(std::int64_t step) const {
  const std::lock_guard lock(mutex_);
  for (std::size_t b = blocks_.size(); b-- > 0;) {
    if (step < blocks_[b].least_step || step > blocks_[b].most_step) continue;
    const auto& steps = decoded(b);
    for (std::size_t k = steps.size(); k-- > 0;)
      if (steps[k].step == step) return blocks_[b].first + k;
  }
  return std::nullopt;
}

std::size_t PackedSteps::packed_bytes() const {
  std::size_t n = blocks_.capacity() * sizeof(Block);
  for (const Block& b : blocks_) n += b.bytes.capacity();
  return n;
}

bool PackedSteps::read_failed() const {
  const std::lock_guard lock(mutex_);
  return read_failed_;
}

}  // namespace ts::gui
