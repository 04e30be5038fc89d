#include "columns.hpp"

namespace ts::python {

namespace {

template <typename T>
py::tuple column_of(const char* type_code, const std::vector<T>& values) {
  static_assert(sizeof(std::int64_t) == 8 && sizeof(double) == 8 && sizeof(std::int32_t) == 4);
  const auto* bytes = reinterpret_cast<const char*>(values.data());
  const py::bytearray buffer(bytes, static_cast<py::ssize_t>(values.size() * sizeof(T)));
  return py::make_tuple(type_code, buffer);
}

}  // namespace

void Columns::add(const char* name, const std::vector<std::int64_t>& values) {
  dict_[name] = column_of("q", values);
}

void Columns::add(const char* name, const std::vector<std::int32_t>& values) {
  dict_[name] = column_of("i", values);
}

void Columns::add(const char* name, const std::vector<double>& values) {
  dict_[name] = column_of("d", values);
}

void Columns::add(const char* name, const std::vector<bool>& values) {
  const std::vector<std::int8_t> bytes(values.begin(), values.end());
  dict_[name] = column_of("b", bytes);
}

void Columns::add_coded(const char* name, const std::vector<std::int32_t>& codes,
                        const std::vector<std::string>& categories) {
  add(name, codes);
  py::list names(categories.size());
  for (std::size_t i = 0; i < categories.size(); ++i) names[i] = categories[i];
  categories_[name] = std::move(names);
}

}  // namespace ts::python
