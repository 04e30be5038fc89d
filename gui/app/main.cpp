// trainscope-gui [FILE [--compare B]] [--view VIEW] [--screenshot OUT.png [timeline options]]
// Opens the viewer, or renders one view of FILE offscreen into a PNG and exits (0; 2 with one
// line on stderr for bad usage or a file that is not a readable trace).
#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <cstdio>
#include <optional>

#include "gui/models/trace_opener.hpp"
#include "gui/models/trace_types.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui/widgets/screenshot.hpp"

namespace {

int usage_error(const QString& message) {
  std::fprintf(stderr, "trainscope-gui: %s\n", qPrintable(message));
  return 2;
}

bool wants_screenshot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (QByteArray(argv[i]) == "--screenshot" || QByteArray(argv[i]).startsWith("--screenshot="))
      return true;
  return false;
}

// Qt's notes that say nothing about the trace or the viewer (the offscreen platform cannot
// propagate size hints; no XDG_RUNTIME_DIR under a bare root shell) are dropped; every other
// message goes to Qt's own handler.
QtMessageHandler g_qt_handler = nullptr;

void quiet_handler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.contains(QLatin1String("propagateSizeHints")) ||
      message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
    return;
  if (g_qt_handler != nullptr) g_qt_handler(type, context, message);
}

// Parses the command line into `parser` without an application object. Returns the exit code
// when the command line is answered here: help or the version on stdout (0), or a usage error on
// stderr (2); nullopt to go on.
std::optional<int> answer_without_display(QCommandLineParser& parser, int argc, char** argv) {
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  if (!parser.parse(args)) return usage_error(parser.errorText());
  if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
    // Without an application the usage line cannot name the program itself.
    QString help = parser.helpText();
    help.replace(QLatin1String("<executable_name>"), QCoreApplication::applicationName());
    std::fputs(qPrintable(help), stdout);
    return 0;
  }
  if (parser.isSet(QStringLiteral("version"))) {
    std::printf("%s %s\n", qPrintable(QCoreApplication::applicationName()),
                qPrintable(QCoreApplication::applicationVersion()));
    return 0;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  g_qt_handler = qInstallMessageHandler(quiet_handler);
  // A screenshot needs no display: render offscreen unless told otherwise.
  if (wants_screenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QCoreApplication::setOrganizationName(QStringLiteral("trainscope"));
  QCoreApplication::setApplicationName(QStringLiteral("trainscope-gui"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("The trainscope trace viewer."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A trace file to open."),
                               QStringLiteral("[FILE]"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"), QStringLiteral("Render a view of FILE into OUT.png and exit."),
      QStringLiteral("OUT.png"));
  const QCommandLineOption view(QStringLiteral("view"),
                                QStringLiteral("The view to render: overview, timeline, kernels, "
                                               "pipeline, steps, compare or ranks."),
                                QStringLiteral("VIEW"), QStringLiteral("overview"));
  const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Screenshot size, WxH."),
                                QStringLiteral("WxH"), QStringLiteral("1600x1000"));
  const QCommandLineOption steps(
      QStringLiteral("steps"),
      QStringLiteral("Analyse steps A to B only (and show them in a timeline screenshot)."),
      QStringLiteral("A-B"));
  const QCommandLineOption skip_warmup(
      QStringLiteral("skip-warmup"),
      QStringLiteral("Leave the warm-up out of the figures: auto (default: the cache-filling "
                     "first epoch, or the first step) or the first N steps (0: none)."),
      QStringLiteral("auto|N"), QStringLiteral("auto"));
  const QCommandLineOption compare(
      QStringLiteral("compare"),
      QStringLiteral("Compare FILE (A) with B and show the compare view."), QStringLiteral("B"));
  const QCommandLineOption window(
      QStringLiteral("window"),
      QStringLiteral("Timeline screenshot: the time window to show, all (the whole trace) or "
                     "START_MS:END_MS from the trace's start."),
      QStringLiteral("all|START_MS:END_MS"));
  const QCommandLineOption step_marker(
      QStringLiteral("step-marker"),
      QStringLiteral("An imported trace without ProfilerStep#N markers: the top-level annotation "
                     "that marks one training step."),
      QStringLiteral("REGEX"));
  const QCommandLineOption run(
      QStringLiteral("run"),
      QStringLiteral("A TensorBoard log directory: the profile run to open (plugins/profile/NAME; "
                     "default: the latest)."),
      QStringLiteral("NAME"));
  const QCommandLineOption kernel(
      QStringLiteral("kernel"),
      QStringLiteral("Timeline screenshot: step to the instances of kernel NAME (the first from "
                     "the view's start, selected; implies --view timeline)."),
      QStringLiteral("NAME"));
  const QCommandLineOption pin(
      QStringLiteral("pin"),
      QStringLiteral("Timeline screenshot: pin the lane groups (ranks, devices) whose name "
                     "contains NAME to the top (repeatable)."),
      QStringLiteral("NAME"));
  const QCommandLineOption fold(
      QStringLiteral("fold"),
      QStringLiteral("Timeline screenshot: fold the lane groups whose name contains NAME "
                     "(repeatable)."),
      QStringLiteral("NAME"));
  const QCommandLineOption scroll(
      QStringLiteral("scroll"),
      QStringLiteral("Timeline screenshot: scroll the lanes (below any pinned ones) down by PX."),
      QStringLiteral("PX"));
  const QCommandLineOption no_analysis(
      QStringLiteral("no-analysis"),
      QStringLiteral("Open the events only, without the analysis (no input-bound steps, idle "
                     "lane or tables): the timeline of a very large trace at once."));
  parser.addOptions({screenshot, view, size, steps, skip_warmup, compare, window, step_marker, run,
                     kernel, pin, fold, scroll, no_analysis});
  // Parsed before the QApplication exists, which needs a display: --help, --version and bad
  // usage answer on any terminal.
  if (const std::optional<int> exit_code = answer_without_display(parser, argc, argv))
    return *exit_code;

  const QStringList files = parser.positionalArguments();
  if (files.size() > 1)
    return usage_error(QStringLiteral("give one trace file, not %1").arg(files.size()));
  if (parser.isSet(compare) && files.isEmpty())
    return usage_error(QStringLiteral("--compare needs a trace file to compare with"));
  if (!ts::gui::is_screenshot_view(parser.value(view)))
    return usage_error(
        QStringLiteral(
            "unknown --view %1 (overview, timeline, kernels, pipeline, steps, compare, ranks)")
            .arg(parser.value(view)));
  ts::gui::AnalysisOptions analysis;
  std::optional<std::pair<std::int64_t, std::int64_t>> step_range;
  if (parser.isSet(steps)) {
    const auto ab =
        QRegularExpression(QStringLiteral("^(\\d+)-(\\d+)$")).match(parser.value(steps));
    if (!ab.hasMatch() || ab.captured(1).toLongLong() > ab.captured(2).toLongLong())
      return usage_error(QStringLiteral("--steps takes A-B, not %1").arg(parser.value(steps)));
    step_range = std::pair{ab.captured(1).toLongLong(), ab.captured(2).toLongLong()};
    analysis.steps = step_range;
  }
  if (parser.value(skip_warmup) != QLatin1String("auto")) {
    bool ok = false;
    const int n = parser.value(skip_warmup).toInt(&ok);
    if (!ok || n < 0)
      return usage_error(QStringLiteral("--skip-warmup takes auto or a number of steps, not %1")
                             .arg(parser.value(skip_warmup)));
    analysis.skip_warmup = n;
  }
  ts::gui::ImportOptions import;
  import.step_marker = parser.value(step_marker).toStdString();
  import.tf_run = parser.value(run).toStdString();
  // A --steps range the trace does not hold is bad usage; one it holds in part is taken where
  // it does, and said. A file that does not open is left to the viewer's own error.
  if (step_range && !files.isEmpty()) {
    const ts::gui::StepRangeCheck fit =
        ts::gui::check_step_range(files.first(), *step_range, import);
    if (!fit.error.isEmpty()) return usage_error(fit.error);
    if (!fit.note.isEmpty())
      std::fprintf(stderr, "trainscope-gui: %s\n", fit.note.toUtf8().constData());
  }
  // The checks above need no display; from here on the viewer does (or the offscreen one).
  QApplication app(argc, argv);
  if (!parser.isSet(screenshot)) {
    ts::gui::MainWindow window;
    window.set_analysis_options(analysis);
    window.set_analysis_enabled(!parser.isSet(no_analysis));
    window.set_import_options(import);
    window.show();
    if (!files.isEmpty() && window.open(files.first()).isEmpty()) {
      if (parser.isSet(compare)) {
        window.compare()->open_b(parser.value(compare));
        window.show_view(ts::gui::MainWindow::View::compare);
      } else if (parser.isSet(view)) {
        window.show_view(ts::gui::view_from_name(parser.value(view)));
      }
    }
    return app.exec();
  }

  ts::gui::ScreenshotOptions o;
  if (files.isEmpty()) return usage_error(QStringLiteral("--screenshot needs a trace file"));
  o.trace = files.first();
  o.output = parser.value(screenshot);
  o.view = parser.isSet(compare) && !parser.isSet(view)  ? QStringLiteral("compare")
           : parser.isSet(kernel) && !parser.isSet(view) ? QStringLiteral("timeline")
                                                         : parser.value(view);
  const bool timeline_options =
      parser.isSet(kernel) || parser.isSet(pin) || parser.isSet(fold) || parser.isSet(scroll);
  if (timeline_options && o.view != QLatin1String("timeline"))
    return usage_error(QStringLiteral("--kernel, --pin, --fold and --scroll show the timeline, "
                                      "not --view %1")
                           .arg(o.view));
  o.analyse = !parser.isSet(no_analysis);
  o.kernel = parser.value(kernel);
  o.pin = parser.values(pin);
  o.fold = parser.values(fold);
  if (parser.isSet(scroll)) {
    bool ok = false;
    o.scroll = parser.value(scroll).toInt(&ok);
    if (!ok || o.scroll < 0)
      return usage_error(
          QStringLiteral("--scroll takes a number of pixels, not %1").arg(parser.value(scroll)));
  }
  const auto wh = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
  if (!wh.hasMatch() || wh.captured(1).toInt() < 200 || wh.captured(2).toInt() < 150 ||
      wh.captured(1).toInt() > 8000 || wh.captured(2).toInt() > 8000)
    return usage_error(QStringLiteral("--size takes WxH between 200x150 and 8000x8000, not %1")
                           .arg(parser.value(size)));
  o.size = QSize(wh.captured(1).toInt(), wh.captured(2).toInt());
  o.steps = step_range;
  if (parser.isSet(window)) {
    const QString wv = parser.value(window);
    const auto ab =
        QRegularExpression(QStringLiteral("^(\\d+(?:\\.\\d*)?):(\\d+(?:\\.\\d*)?)$")).match(wv);
    if (wv == QLatin1String("all"))
      o.window_all = true;
    else if (ab.hasMatch() && ab.captured(1).toDouble() < ab.captured(2).toDouble())
      o.window_ms = std::pair{ab.captured(1).toDouble(), ab.captured(2).toDouble()};
    else
      return usage_error(
          QStringLiteral("--window takes all or START_MS:END_MS with START < END, not %1").arg(wv));
  }
  o.analysis = analysis;
  o.import = import;
  o.compare_with = parser.value(compare);
  const QString error = ts::gui::take_screenshot(o);
  if (!error.isEmpty()) return usage_error(error);
  return 0;
}
