// Inverted dropout with a counter-based mask, identical to the CPU backend's for the same seed.

// keep = ts_hash_uniform(seed, i) >= rate; mask[i] = keep ? keep_scale : 0 (keep_scale =
// 1/(1-rate), computed on the host so both backends use the same float); y = x * mask.
// x [n] (X), mask [n] f32, y [n] (Y); x and y may alias.
__kernel void dropout(__global const X_T* x, ulong x_off, float rate, uint seed, float keep_scale,
                      __global float* mask, ulong m_off, __global Y_T* y, ulong y_off, ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float m = ts_hash_uniform(seed, (uint)i) >= rate ? keep_scale : 0.0f;
  mask[m_off + i] = m;
  STORE_Y(y, y_off + i, LOAD_X(x, x_off + i) * m);
}

// dx = dy * mask. dy [n] (X), mask [n] f32, dx [n] (Y); dy and dx may alias.
__kernel void dropout_backward(__global const X_T* dy, ulong dy_off, __global const float* mask,
                               ulong m_off, __global Y_T* dx, ulong dx_off, ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  STORE_Y(dx, dx_off + i, LOAD_X(dy, dy_off + i) * mask[m_off + i]);
}
