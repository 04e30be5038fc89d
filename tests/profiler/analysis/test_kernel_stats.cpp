// Kernel statistics by name over labels.
#include <gtest/gtest.h>

#include "profiler/analysis/kernel_names.hpp"
#include "profiler/analysis/kernel_stats.hpp"

namespace {

namespace a = ts::analysis;

std::string_view name_of(std::uint32_t label) {
  switch (label) {
    case 1:
    case 3:
      return "gemm";  // two labels, one name (two call sites)
    case 2:
      return "relu";
    case 4:
      return "bias";
    default:
      return "add";
  }
}

TEST(KernelStats, PerNameCountTotalMeanMinMaxShare) {
  a::KernelTable t;
  t.add(1, 10);
  t.add(2, 40);
  t.add(1, 30);
  t.add(3, 20);
  const auto k = t.finish(name_of);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[0].count, 3);
  EXPECT_EQ(k[0].total_ns, 60);
  EXPECT_EQ(k[0].mean_ns, 20);
  EXPECT_EQ(k[0].min_ns, 10);
  EXPECT_EQ(k[0].max_ns, 30);
  EXPECT_DOUBLE_EQ(k[0].share_pct, 60.0);
  EXPECT_EQ(k[1].name, "relu");
  EXPECT_EQ(k[1].count, 1);
  EXPECT_DOUBLE_EQ(k[1].share_pct, 40.0);
}

TEST(KernelStats, TiesAreOrderedByNameAndTablesMerge) {
  a::KernelTable first, second;
  first.add(4, 5);
  second.add(5, 5);
  second.add(1, 7);
  first.merge(second);
  const auto k = first.finish(name_of);
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[1].name, "add");  // 5 ns each: by name
  EXPECT_EQ(k[2].name, "bias");
  EXPECT_TRUE(a::KernelTable().finish(name_of).empty());
}

}  // namespace

// Short forms drop the C++ noise of a demangled name the way Nsight Systems' base names do.
// Label ids past the array of small ones (a hostile file's) count as the small ones do, merged
// with them and across tables; label 0 is a label like any other.
TEST(KernelStats, LargeLabelIdsCountAsSmallOnes) {
  a::KernelTable first, second;
  first.add(5, 10);
  first.add(70000, 30);  // "add", as is 5
  second.add(70000, 50);
  second.add(4000000000u, 5);
  second.add(0, 7);
  first.merge(second);
  const auto got = first.finish(name_of);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].name, "add");
  EXPECT_EQ(got[0].count, 5);
  EXPECT_EQ(got[0].total_ns, 102);
  EXPECT_EQ(got[0].min_ns, 5);
  EXPECT_EQ(got[0].max_ns, 50);
}

TEST(KernelNames, ShortFormDropsReturnTypeParametersAndQualifiers) {
  EXPECT_EQ(a::shorten_kernel_name("void at::native::(anonymous namespace)::max_pool_forward_nchw<"
                                   "float, float>(int, float const*, long, float*, long*)"),
            "max_pool_forward_nchw<float, float>");
  EXPECT_EQ(a::shorten_kernel_name("void at::native::vectorized_elementwise_kernel<4, "
                                   "at::native::FillFunctor<c10::Half>, at::detail::Array<char*, "
                                   "1> >(int, at::native::FillFunctor<c10::Half>, "
                                   "at::detail::Array<char*, 1>)"),
            "vectorized_elementwise_kernel<4, FillFunctor<Half>, Array<char*, 1> >");
  EXPECT_EQ(a::shorten_kernel_name("std::enable_if<!(false), void>::type internal::gemvx::kernel<"
                                   "int, float>(cublasGemvParams<float>)"),
            "kernel<int, float>");
  EXPECT_EQ(a::shorten_kernel_name("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(a::shorten_kernel_name("odd (name"), "odd (name");  // brackets do not balance
}

// Two names that share a long prefix (or whose short forms are the same) never read alike, and
// every cell fits its column.
TEST(KernelNames, CellsFitTheColumnAndKeepWhatTellsNamesApart) {
  const std::string prefix = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, ";
  const std::vector<std::string> names = {
      prefix + "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(int)",
      prefix + "at::native::MeanOps<float, float, float, float>, unsigned int, float, 2> >(int)",
      prefix + "at::native::func_wrapper_t<float, at::native::sum_functor<float> > >(int)",
      prefix + "at::native::func_wrapper_t<float, at::native::sum_functor<float> > >(long)",
      "gemm_nn_32x32",
      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_GRVWA1",
      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_GRVWA2",
      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_GRVWA1",
  };
  for (const std::size_t width : {std::size_t{30}, std::size_t{48}}) {
    const std::vector<std::string> cells = a::kernel_name_cells(names, width);
    ASSERT_EQ(cells.size(), names.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      EXPECT_LE(a::text_columns(cells[i]), width) << cells[i];
      for (std::size_t j = 0; j < i; ++j) EXPECT_NE(cells[i], cells[j]) << width << ": " << i;
    }
    EXPECT_EQ(cells[4], "gemm_nn_32x32");  // a name that fits stays as it is
  }
  // At 48 columns the part that differs is in view, not just a distinct tail; a name is
  // shortened unless its short form is another's too.
  const std::vector<std::string> cells = a::kernel_name_cells(names, 48);
  EXPECT_TRUE(cells[0].starts_with("reduce_kernel<512, 1, ReduceOp<float, M")) << cells[0];
  EXPECT_TRUE(cells[0].ends_with(", 4> >")) << cells[0];
  EXPECT_TRUE(cells[1].ends_with(", 2> >")) << cells[1];
  EXPECT_TRUE(cells[2].starts_with("void at::native::")) << cells[2];
  EXPECT_TRUE(cells[2].ends_with("(int)")) << cells[2];
  EXPECT_TRUE(cells[3].ends_with("(long)")) << cells[3];
  EXPECT_NE(cells[7].find("x16x32_MI"), std::string::npos) << cells[7];  // the middle
}

TEST(KernelNames, IdenticalLongCellsGetTheirRowNumber) {
  // Two names that only a byte made printable tells apart read alike after printable(); the
  // later one carries its row number rather than repeat the first.
  const std::string same(80, 'k');
  const std::vector<std::string> cells = a::kernel_name_cells({same, same}, 32);
  EXPECT_NE(cells[0], cells[1]);
  EXPECT_TRUE(cells[1].ends_with("#2")) << cells[1];
  EXPECT_LE(a::text_columns(cells[1]), 32u);
}
