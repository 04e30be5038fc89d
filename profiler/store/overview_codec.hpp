// The overview (overview.hpp) in its stored form, and where it is stored: the `overview` table
// of a trace (schema version 4), or a file of the per-user cache for older traces.
//
//   overview := "TSOV" 0x01 varint(events) zigzag(begin_ns) zigzag(end_ns) f64(resolution_ns)
//               varint(#tracks) track* varint(#counters) counter* varint(#labels) label*
//   track    := varint(id) varint(#rows) (varint(#zones) zone*)*
//   zone     := varint(start - previous zone's end; the first zone: zigzag(start))
//               varint(end - start) varint(label << 1 | merged) [varint(count), when merged]
//   counter  := varint(track) f64(min) f64(max) varint(samples) varint(#points)
//               (zigzag(ts - previous ts) f64(value))*
//   label    := varint(id) varint(category) varint(count) varint(#name bytes) name
//               varint(#bins) (varint(bin - previous bin) varint(events))*
//
// Varints as in varint.hpp, f64 little-endian IEEE. About 3-6 bytes a zone. A decoder meets
// whatever a file holds: it refuses (returns nullopt) anything truncated, out of order or out
// of range rather than building an overview the viewer could not trust, and never allocates
// more than the input's size allows.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "profiler/store/overview.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

std::string encode_overview(const Overview& overview);
std::optional<Overview> decode_overview(std::string_view bytes);

// The overview stored in the trace `reader` reads; nullopt when it has none (a trace written
// before version 4, a capture still running or killed) or the stored one does not decode.
std::optional<Overview> stored_overview(const Reader& reader);

// Builds the overview of the finished trace at `path` and stores it there, replacing any.
// Returns false, leaving the trace as it was, when it cannot (the file is gone, the disk full):
// the overview is derived data, which a viewer then builds by a scan. `durability`: whether the
// commit syncs (not for an import's trace, which is never synced: sqlite.hpp).
bool store_overview(const std::string& path, Durability durability = Durability::synced) noexcept;
// The same, taking the overview `fed` built while the events were written when it is the
// finished trace's (overview_feed.hpp), and building it from the file otherwise.
class OverviewFeed;
bool store_overview(const std::string& path, OverviewFeed& fed,
                    Durability durability = Durability::synced) noexcept;

}  // namespace ts::store
