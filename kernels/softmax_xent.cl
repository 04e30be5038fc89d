// Softmax over the last axis, fused with categorical cross-entropy, and its gradient.
// One work item per row for the forward passes (classes is small: 10 for the engine's models).

// Writes the softmax of row `r` of x into probs and returns the argmax (first maximum wins).
inline int ts_softmax_row(__global const X_T* x, ulong x_off, __global float* probs, ulong p_off,
                          int classes) {
  float max_value = LOAD_X(x, x_off);
  int argmax = 0;
  for (int c = 1; c < classes; ++c) {
    const float v = LOAD_X(x, x_off + c);
    if (v > max_value) {
      max_value = v;
      argmax = c;
    }
  }
  float total = 0.0f;
  for (int c = 0; c < classes; ++c) {
    const float e = exp(LOAD_X(x, x_off + c) - max_value);
    probs[p_off + c] = e;
    total += e;
  }
  for (int c = 0; c < classes; ++c) probs[p_off + c] = probs[p_off + c] / total;
  return argmax;
}

// logits [n, classes] (X), labels [n] i32, probs [n, classes] f32, loss [n] f32,
// correct [n] f32. loss = -log(max(probs[label], 1e-12)); correct = argmax == label.
__kernel void softmax_xent(__global const X_T* logits, ulong l_off, __global const int* labels,
                           ulong lab_off, __global float* probs, ulong p_off, __global float* loss,
                           ulong loss_off, __global float* correct, ulong c_off, ulong n,
                           int classes) {
  const size_t r = get_global_id(0);
  if (r >= n) return;
  const int argmax =
      ts_softmax_row(logits, l_off + r * classes, probs, p_off + r * classes, classes);
  const int label = labels[lab_off + r];
  const bool valid = label >= 0 && label < classes;
  const float p = valid ? probs[p_off + r * classes + label] : 0.0f;
  loss[loss_off + r] = -log(fmax(p, 1e-12f));
  correct[c_off + r] = valid && argmax == label ? 1.0f : 0.0f;
}

// dlogits[i, c] = scale * (probs[i, c] - (c == labels[i])); n = rows * classes elements.
// probs [rows, classes] f32, labels [rows] i32, dlogits [rows, classes] (Y).
// 32-bit index arithmetic: the host checks n < 2^32.
__kernel void softmax_xent_backward(__global const float* probs, ulong p_off,
                                    __global const int* labels, ulong lab_off, float scale,
                                    __global Y_T* dlogits, ulong d_off, uint n, uint classes) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const uint row = i / classes;
  const int c = (int)(i - row * classes);
  const float target = labels[lab_off + row] == c ? 1.0f : 0.0f;
  STORE_Y(dlogits, d_off + i, scale * (probs[p_off + i] - target));
}

// y = softmax(x) over the last axis. x [n, classes] (X), y [n, classes] f32.
__kernel void softmax(__global const X_T* x, ulong x_off, __global float* y, ulong y_off, ulong n,
                      int classes) {
  const size_t r = get_global_id(0);
  if (r >= n) return;
  ts_softmax_row(x, x_off + r * classes, y, y_off + r * classes, classes);
}
