// The trace schema (schema.sql, embedded at build time) and the constants readers check.
#pragma once

#include <cstdint>
#include <string_view>

namespace ts::store {

inline constexpr int kSchemaVersion = 5;                    // PRAGMA user_version
inline constexpr std::int32_t kApplicationId = 0x54534350;  // PRAGMA application_id, 'TSCP'
// Events at least this long are in the event_long index; overlap queries scan the primary
// key from t0 - kLongEventNs and add those.
inline constexpr std::int64_t kLongEventNs = std::int64_t{1} << 27;

// The text of profiler/store/schema.sql.
std::string_view schema_sql();
// Of it, the statement creating the kept analysis's table, which a file written before the table
// gets when an analysis is first kept in it (analysis_table.hpp).
std::string_view analysis_table_sql();

}  // namespace ts::store
