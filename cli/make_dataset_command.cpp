// trainscope make-dataset: write a dataset (synthetic, MNIST, IDX) as an image folder, the input
// `--dataset images:DIR` reads (one sub-folder per class of PNG files).
#include <iostream>

#include "cli/commands.hpp"
#include "engine/data/image_folder.hpp"
#include "engine/data/load.hpp"

namespace ts::cli {

const char* const kMakeDatasetHelp =
    R"(usage: trainscope make-dataset --from SPEC --to images:DIR [--seed N]

Writes a dataset as an image folder that '--dataset images:DIR' reads: DIR/<class>/<index>.png,
one sub-folder per class, 8-bit grey or RGB PNG files. DIR must not exist or be empty.

  --from SPEC        synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS; mnist without DIR
                     fetches the real digits into data/mnist on first use, an explicit DIR
                     must already hold them
  --to images:DIR    the folder to create
  --seed N           seed for synthetic data (default 1, as for 'train')
)";

int run_make_dataset(Args& args) {
  const auto from = args.value("from");
  const auto to = args.value("to");
  const std::int64_t seed = args.integer("seed", 1, 0, INT64_MAX);
  args.finish();
  if (!from || from->empty()) {
    throw UsageError(
        "'make-dataset' needs --from SPEC (mnist, mnist:DIR, synthetic[:N] or "
        "idx:IMAGES,LABELS)");
  }
  if (!to) throw UsageError("'make-dataset' needs --to images:DIR (the folder to create)");
  if (to->rfind("images:", 0) != 0 || to->size() == 7)
    throw UsageError("--to must be images:DIR (the folder to create), not '" + *to + "'");
  const std::string dir = to->substr(7);
  check_image_folder_target(dir);  // before a possibly long load

  const Dataset data = load_dataset(*from, static_cast<std::uint64_t>(seed));
  const std::int64_t written = write_image_folder(data, dir);
  std::cout << "wrote " << written << " images in " << data.classes << " classes to " << dir
            << "\n";
  return 0;
}

}  // namespace ts::cli
