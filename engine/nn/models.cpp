#include "engine/nn/models.hpp"

#include <stdexcept>

#include "engine/nn/conv2d.hpp"
#include "engine/nn/dense.hpp"
#include "engine/nn/parameter_free_layers.hpp"

namespace ts {

std::unique_ptr<Sequential> make_model(const std::string& name, const Shape& input,
                                       std::int64_t classes) {
  auto model = std::make_unique<Sequential>(input);
  if (name == "mlp") {
    model->add(std::make_unique<Flatten>());
    model->add(std::make_unique<Dense>(128, Activation::Relu));
  } else if (name == "cnn") {
    try {
      model->add(std::make_unique<Conv2D>(32, 3, Activation::Relu));
      model->add(std::make_unique<MaxPool2D>(2));
      model->add(std::make_unique<Conv2D>(64, 3, Activation::Relu));
      model->add(std::make_unique<MaxPool2D>(2));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("the cnn model cannot take " + input.str() +
                                  " images: " + e.what());
    }
    model->add(std::make_unique<Flatten>());
    model->add(std::make_unique<Dense>(128, Activation::Relu));
  } else {
    throw std::invalid_argument("--model must be mlp or cnn, not '" + name + "'");
  }
  model->add(std::make_unique<Dense>(classes));
  model->add(std::make_unique<Softmax>());
  return model;
}

}  // namespace ts
