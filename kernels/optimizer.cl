// Optimizer updates (Keras semantics), all f32, one work item per parameter.
//
// The moment and velocity updates use explicit fma(): each is a product plus a product, which
// cancels badly when the two are close, so both backends must round it the same way. fma() is
// correctly rounded on every OpenCL device, and it is what g++ emits for the CPU backend's
// loops when it contracts them (-march=native with FMA).

// velocity = momentum * velocity - lr * grad; param += velocity (plain SGD when momentum == 0).
// param, grad, velocity [n] f32.
__kernel void sgd_update(__global float* param, ulong p_off, __global const float* grad,
                         ulong g_off, __global float* velocity, ulong v_off, ulong n,
                         float learning_rate, float momentum) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  // With momentum 0 the old velocity is not read (it may be uninitialised).
  const float step = learning_rate * grad[g_off + i];
  const float v = momentum == 0.0f ? -step : fma(momentum, velocity[v_off + i], -step);
  velocity[v_off + i] = v;
  param[p_off + i] += v;
}

// Adam at step t: m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2; param -= lr_t * m / (sqrt(v) + eps)
// with lr_t = lr * sqrt(1-b2^t) / (1-b1^t) computed on the host.
// param, grad, m, v [n] f32.
__kernel void adam_update(__global float* param, ulong p_off, __global const float* grad,
                          ulong g_off, __global float* m, ulong m_off, __global float* v,
                          ulong v_off, ulong n, float beta1, float beta2, float epsilon,
                          float lr_t) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float g = grad[g_off + i];
  const float m_new = fma(beta1, m[m_off + i], (1.0f - beta1) * g);
  const float v_new = fma(beta2, v[v_off + i], (1.0f - beta2) * (g * g));
  m[m_off + i] = m_new;
  v[v_off + i] = v_new;
  param[p_off + i] -= lr_t * m_new / (sqrt(v_new) + epsilon);
}
