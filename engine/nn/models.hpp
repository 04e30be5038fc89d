// The named models of the command line (`train --model`): mlp is Flatten -> Dense(128, relu)
// -> Dense(10, softmax); cnn is Conv(32, 3x3, relu) -> MaxPool -> Conv(64, 3x3, relu) -> MaxPool
// -> Flatten -> Dense(128, relu) -> Dense(10, softmax).
#pragma once

#include <memory>
#include <string>

#include "engine/nn/sequential.hpp"

namespace ts {

// "mlp": Flatten -> Dense(128, relu) -> Dense(classes) -> Softmax.
// "cnn": Conv(32, 3x3, relu) -> MaxPool(2) -> Conv(64, 3x3, relu) -> MaxPool(2) -> Flatten ->
//        Dense(128, relu) -> Dense(classes) -> Softmax.
// input: per-sample [height, width, channels]. Throws std::invalid_argument for an unknown name
// or an input the model cannot take (e.g. images too small for the cnn).
std::unique_ptr<Sequential> make_model(const std::string& name, const Shape& input,
                                       std::int64_t classes);

}  // namespace ts
