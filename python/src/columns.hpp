// Tables handed to Python as columns: a dict of column name -> (type code, bytearray of the
// values), the type code one of Python's array module ("q" int64, "i" int32, "d" double, "b" a
// bool as int8), which the package reads as a numpy array without a copy when numpy is
// importable (numpy.frombuffer) and as a list otherwise; a column of names as codes into a list
// of the distinct names. A table of millions of rows (events, idle gaps) then costs a few
// buffers, not a Python object per value, and the module needs no numpy of any version to build
// or run. The package turns the columns into a pandas DataFrame (coded columns become
// categoricals) or a list of dicts.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ts::python {

namespace py = pybind11;

// Builds the dict, one column at a time. Holds the GIL: call after the C++ work is done.
class Columns {
 public:
  void add(const char* name, const std::vector<std::int64_t>& values);
  void add(const char* name, const std::vector<std::int32_t>& values);
  void add(const char* name, const std::vector<double>& values);
  void add(const char* name, const std::vector<bool>& values);
  // A column of few distinct strings as codes into `categories` (a code of -1: none).
  void add_coded(const char* name, const std::vector<std::int32_t>& codes,
                 const std::vector<std::string>& categories);
  // (columns, {name: categories} of the coded columns), what the package's from_columns() takes.
  py::tuple take() { return py::make_tuple(std::move(dict_), std::move(categories_)); }

 private:
  py::dict dict_;
  py::dict categories_;
};

}  // namespace ts::python
