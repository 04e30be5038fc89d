#include "profiler/import/xplane/xplane_stats.hpp"

#include <cmath>
#include <string>

namespace ts::import {

namespace {

StatKey key_of(std::string_view name) {
  static const std::unordered_map<std::string_view, StatKey> known = {
      {"_r", StatKey::root},
      {"step_num", StatKey::step_num},
      {"epoch_num", StatKey::epoch_num},
      {"iter_num", StatKey::iter_num},
      {"correlation_id", StatKey::correlation_id},
      {"memcpy_details", StatKey::memcpy_details},
      {"memset_details", StatKey::memset_details},
      {"bytes_allocated", StatKey::bytes_allocated},
      {"allocator_name", StatKey::allocator_name},
      {"tf_function_call", StatKey::tf_function_call},
      {"batch_size", StatKey::batch_size},
      {"profile_start_time", StatKey::profile_start_time},
      {"profile_stop_time", StatKey::profile_stop_time},
  };
  const auto it = known.find(name);
  return it == known.end() ? StatKey::other : it->second;
}

template <typename T>
void set_once(std::optional<T>& slot, const std::optional<T>& v) {
  if (!slot && v) slot = v;
}

void set_once(std::string_view& slot, std::string_view v) {
  if (slot.empty()) slot = v;
}

}  // namespace

StatNames::StatNames(const xp::XPlane& plane) : plane_(plane) {
  for (const auto& [id, meta] : plane.stat_metadata()) {
    const StatKey k = key_of(meta.name());
    if (k != StatKey::other) keys_[id] = k;
  }
}

StatKey StatNames::key(std::int64_t metadata_id) const {
  const auto it = keys_.find(metadata_id);
  return it == keys_.end() ? StatKey::other : it->second;
}

std::string_view StatNames::ref_text(std::uint64_t ref) const {
  const auto& metas = plane_.stat_metadata();
  const auto it = metas.find(static_cast<std::int64_t>(ref));
  return it == metas.end() ? std::string_view() : std::string_view(it->second.name());
}

std::optional<std::int64_t> StatNames::integer(const xp::XStat& s) const {
  switch (s.value_case()) {
    case xp::XStat::kInt64Value:
      return s.int64_value();
    case xp::XStat::kUint64Value:
      return static_cast<std::int64_t>(s.uint64_value());  // ids: the same 64 bits
    case xp::XStat::kDoubleValue: {
      const double d = s.double_value();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
        return static_cast<std::int64_t>(d);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::string_view StatNames::text(const xp::XStat& s) const {
  switch (s.value_case()) {
    case xp::XStat::kStrValue:
      return s.str_value();
    case xp::XStat::kRefValue:
      return ref_text(s.ref_value());
    default:
      return {};
  }
}

void StatNames::add(const google::protobuf::RepeatedPtrField<xp::XStat>& stats,
                    EventStats& out) const {
  for (const xp::XStat& s : stats) {
    if (keys_.empty()) return;
    switch (key(s.metadata_id())) {
      case StatKey::root:
        set_once(out.root, integer(s));
        break;
      case StatKey::step_num:
        set_once(out.step_num, integer(s));
        break;
      case StatKey::epoch_num:
        set_once(out.epoch_num, integer(s));
        break;
      case StatKey::iter_num:
        set_once(out.iter_num, integer(s));
        break;
      case StatKey::correlation_id:
        set_once(out.correlation, integer(s));
        break;
      case StatKey::bytes_allocated:
        set_once(out.bytes_allocated, integer(s));
        break;
      case StatKey::memcpy_details:
        set_once(out.memcpy_details, text(s));
        break;
      case StatKey::memset_details:
        set_once(out.memset_details, text(s));
        break;
      case StatKey::allocator_name:
        set_once(out.allocator, text(s));
        break;
      case StatKey::tf_function_call:
        out.tf_function_call = true;
        break;
      case StatKey::batch_size:
        set_once(out.batch_size, integer(s));
        break;
      case StatKey::profile_start_time:
      case StatKey::profile_stop_time:
      case StatKey::other:
        break;
    }
  }
}

EventStats StatNames::read(const xp::XEvent& event, const xp::XEventMetadata* metadata) const {
  EventStats out;
  if (event.stats_size() > 0) add(event.stats(), out);
  if (metadata != nullptr && metadata->stats_size() > 0) add(metadata->stats(), out);
  return out;
}

PlaneTimes StatNames::read_plane(const xp::XPlane& plane) const {
  PlaneTimes out;
  for (const xp::XStat& s : plane.stats()) {
    const StatKey k = key(s.metadata_id());
    if (k == StatKey::profile_start_time) set_once(out.start_ns, integer(s));
    if (k == StatKey::profile_stop_time) set_once(out.stop_ns, integer(s));
  }
  return out;
}

}  // namespace ts::import
