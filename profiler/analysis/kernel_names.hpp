// Kernel names for a fixed-width column of the text report. A demangled CUDA/HIP kernel name is
// often 200 characters whose first 30 are the same for half the table ("void
// at::native::vectorized_elementwise_kernel<4, ..."), so cutting the end makes rows read alike.
// A name too long for the column is first shortened the way Nsight Systems' "base names" are
// (no return type, no parameter list, no namespace qualifiers), then elided in the middle so that
// the part telling it apart from the other rows stays in view. Distinct names never get the same
// cell; `report --wide` prints the full names instead.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ts::analysis {

// "void at::native::(anonymous namespace)::foo<c10::Half, 4>(int, float*)" -> "foo<Half, 4>".
// Returns the name unchanged where its brackets do not balance (not a C++ signature).
std::string shorten_kernel_name(std::string_view name);

// One cell per name, each at most `width` columns (UTF-8 characters; "…" marks elided text).
// Names that fit are kept as they are; no two cells are equal when their names differ.
// `names` must already be printable (printable.hpp).
std::vector<std::string> kernel_name_cells(const std::vector<std::string>& names,
                                           std::size_t width);

// The number of terminal columns `s` takes: one per UTF-8 character.
std::size_t text_columns(std::string_view s);

}  // namespace ts::analysis
