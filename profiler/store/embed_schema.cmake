# Build-time step: writes schema.sql into a C++ source as a string literal.
# Usage: cmake -DINPUT=schema.sql -DOUTPUT=schema_sql.cpp -P embed_schema.cmake
file(READ "${INPUT}" sql)
file(WRITE "${OUTPUT}.tmp"
     "// Generated from profiler/store/schema.sql by embed_schema.cmake. Do not edit.\n"
     "#include \"profiler/store/schema.hpp\"\n\n"
     "namespace ts::store {\n"
     "std::string_view schema_sql() {\n"
     "  static constexpr char kSql[] = R\"ts_schema_sql(${sql})ts_schema_sql\";\n"
     "  return {kSql, sizeof(kSql) - 1};\n"
     "}\n"
     "}  // namespace ts::store\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
