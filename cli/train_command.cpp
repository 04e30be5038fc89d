// trainscope train: build a model, load a dataset, fit it on the chosen backend.
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/load.hpp"
#include "engine/nn/models.hpp"

namespace ts::cli {

namespace {

struct TrainOptions {
  std::string model, dataset, optimizer, backend, precision, summary_json;
  std::int64_t epochs, batch, seed, device, threads;
  double lr;
  bool quiet;
};

TrainOptions parse(Args& args) {
  TrainOptions o;
  o.model = args.choice("model", "mlp", {"mlp", "cnn"});
  o.dataset = args.text("dataset", "synthetic");
  o.epochs = args.integer("epochs", 5, 1, 100000);
  o.batch = args.integer("batch", 32, 1, 1 << 20);
  o.optimizer = args.choice("optimizer", "adam", {"adam", "sgd"});
  o.lr = args.real("lr", 0.0, 0.0);  // absent: the optimizer's default
  o.seed = args.integer("seed", 1, 0, INT64_MAX);
  o.backend = args.choice("backend", "auto", {"auto", "cpu", "opencl"});
  o.device = args.integer("device", 0, 0, 1024);
  o.threads = args.integer("threads", 0, 0, 1024);
  o.precision = args.choice("precision", "fp32", {"fp32", "mixed"});
  o.summary_json = args.text("summary-json", "");
  o.quiet = args.flag("quiet");
  args.finish();
  return o;
}

void write_summary(const std::string& path, const TrainOptions& o, const Dataset& data,
                   const Backend& backend, const Sequential& model, const FitResult& fit) {
  JsonWriter j;
  j.begin_object();
  j.key("epochs").begin_array();
  for (const auto& e : fit.epochs)
    j.begin_object()
        .key("loss").value(e.loss)
        .key("accuracy").value(e.accuracy)
        .key("seconds").value(e.seconds)
        .end_object();
  j.end_array();
  j.key("samples_per_s").value(fit.samples_per_s);
  j.key("backend").value(backend.kind());
  j.key("device").value(backend.device_name());
  j.key("model").value(o.model);
  j.key("dataset").value(data.source);
  j.key("samples").value(static_cast<long long>(data.count));
  j.key("batch").value(static_cast<long long>(o.batch));
  j.key("optimizer").value(o.optimizer);
  j.key("precision").value(o.precision);
  if (model.precision() == Precision::Mixed) {
    j.key("mixed_precision_arithmetic")
        .value(backend.native_fp16() ? "f16" : "f32 on f16 storage");
    j.key("skipped_steps").value(static_cast<long long>(fit.skipped_steps));
    j.key("final_loss_scale").value(static_cast<double>(fit.final_loss_scale));
  }
  j.end_object();
  std::ofstream out(path);
  out << j.str() << "\n";
  if (!out) throw std::runtime_error("cannot write the summary to '" + path + "'");
}

}  // namespace

int run_train(Args& args) {
  const TrainOptions o = parse(args);
  std::ostream& log = std::cout;

  // The data and the model are checked before any device is set up.
  const Dataset data = load_dataset(o.dataset, static_cast<std::uint64_t>(o.seed));
  auto model = make_model(o.model, Shape{data.height, data.width, data.channels},
                          std::max(10, data.classes));
  model->check_dataset(data);

  BackendRequest request;
  request.kind = o.backend;
  request.device = static_cast<int>(o.device);
  request.cpu_threads = static_cast<int>(o.threads);
  BackendChoice choice = make_backend(request);
  if (!choice.notice.empty()) std::cerr << "trainscope: " << choice.notice << "\n";
  Backend& backend = *choice.backend;
  CompileOptions compile;
  compile.precision = o.precision == "mixed" ? Precision::Mixed : Precision::FP32;
  compile.seed = static_cast<std::uint64_t>(o.seed);
  model->compile(backend, make_optimizer(o.optimizer, static_cast<float>(o.lr)), compile);

  if (!o.quiet) {
    log << "Backend: " << backend.kind() << " (" << backend.device_name() << ")";
    if (compile.precision == Precision::Mixed)
      log << ", mixed precision: "
          << (backend.native_fp16() ? "f16 arithmetic" : "f32 arithmetic on f16 storage");
    log << "\nDataset: " << data.source << "\nModel: " << o.model << ", " << o.optimizer
        << ", batch " << o.batch << "\n"
        << model->summary();
  }
  FitOptions fit;
  fit.epochs = static_cast<int>(o.epochs);
  fit.batch_size = o.batch;
  fit.seed = static_cast<std::uint64_t>(o.seed);
  fit.progress = o.quiet ? nullptr : &log;
  fit.progress_is_terminal = isatty(STDOUT_FILENO) != 0;
  const FitResult result = model->fit(data, fit);
  if (!o.quiet) {
    const auto& last = result.epochs.back();
    log << "Trained " << o.epochs << " epoch(s): " << static_cast<long long>(result.samples_per_s)
        << " samples/s, final loss " << last.loss << ", accuracy " << last.accuracy << "\n";
    if (compile.precision == Precision::Mixed)
      log << "Loss scale " << result.final_loss_scale << ", " << result.skipped_steps
          << " step(s) skipped for inf/NaN gradients\n";
  }
  if (!o.summary_json.empty()) write_summary(o.summary_json, o, data, backend, *model, result);
  return 0;
}

}  // namespace ts::cli
