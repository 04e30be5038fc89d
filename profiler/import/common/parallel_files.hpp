// The files of an import read on several threads and written in file order: worker threads run
// produce(k) (parse file k) while the calling thread runs consume(k) (map it into the one trace
// being written) for k = 0, 1, 2, ... in turn, so the trace is the one a sequential import
// writes. A bounded number of files is in flight (claimed by a worker and not yet consumed):
// memory grows with the number of threads, never with the number of files.
#pragma once

#include <cstddef>
#include <functional>

namespace ts::import {

struct InOrderOptions {
  // Producing threads. 0: no thread at all, produce(k) then consume(k) on the calling thread.
  std::size_t workers = 0;
  // The most files in flight: being produced, produced and waiting, or being consumed (at
  // least 1). workers + 1 keeps every worker busy while one file is consumed.
  std::size_t window = 1;
};

// produce(k) leaves file k's result where consume(k) finds it (a slot of its own: the hand-over
// is synchronised here). An exception from produce or consume ends the run: no further file is
// started, every worker is joined, and the exception of the first file in file order that
// failed is rethrown on the calling thread (the error a sequential run reports; files before it
// are not all consumed).
void produce_and_consume_in_order(std::size_t count, const InOrderOptions& options,
                                  const std::function<void(std::size_t)>& produce,
                                  const std::function<void(std::size_t)>& consume);

}  // namespace ts::import
