#include "profiler/store/row_function.hpp"

#include <utility>

#include "profiler/store/error.hpp"

namespace ts::store {

void RowFunction::install(Db& db) {
  const int rc = sqlite3_create_function_v2(db.get(), "ts_row", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                            this, &RowFunction::call, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, "cannot prepare the trace's queries");
}

void RowFunction::call(sqlite3_context* context, int count, sqlite3_value** values) {
  auto* self = static_cast<RowFunction*>(sqlite3_user_data(context));
  if (self->fn_ == nullptr) {  // a query run other than through run()
    sqlite3_result_error(context, "ts_row() outside a scan", -1);
    return;
  }
  // Nothing may unwind through SQLite's C frames: what the callback throws stops the query and
  // is thrown again by run().
  try {
    (*self->fn_)(RowValues(values, count));
    sqlite3_result_int(context, 0);
  } catch (...) {
    self->error_ = std::current_exception();
    sqlite3_result_error(context, "scan stopped", -1);
  }
}

void RowFunction::run(Stmt& st, const Callback& fn) {
  if (sqlite3_stmt_busy(st.get()) != 0)
    throw Error("a scan of a trace was started again from within itself");
  const Callback* outer = fn_;
  fn_ = &fn;
  error_ = nullptr;
  try {
    while (st.step()) {
    }
    st.reset();
  } catch (...) {
    fn_ = outer;
    st.reset();
    if (std::exception_ptr thrown = std::exchange(error_, nullptr)) std::rethrow_exception(thrown);
    throw;
  }
  fn_ = outer;
}

}  // namespace ts::store
