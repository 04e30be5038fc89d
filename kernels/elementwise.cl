// Element-wise operations: bias add, relu and its gradient, scaling.

// y[r, c] += bias[c] for y viewed as [rows, cols]; n = rows * cols.
// y [n] (Y), bias [cols] f32.
// 32-bit index arithmetic: the host checks n < 2^32.
__kernel void bias_add(__global Y_T* y, ulong y_off, __global const float* bias, ulong b_off,
                       uint n, uint cols) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const float v = LOAD_Y(y, y_off + i) + bias[b_off + i % cols];
  STORE_Y(y, y_off + i, v);
}

// y = max(x, 0). x [n] (X), y [n] (Y); may alias.
__kernel void relu(__global const X_T* x, ulong x_off, __global Y_T* y, ulong y_off, ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v = LOAD_X(x, x_off + i);
  STORE_Y(y, y_off + i, v > 0.0f ? v : 0.0f);
}

// dx = dy * (y > 0), with y the forward output. y [n] (X), dy [n] (Y), dx [n] (Z); dx may
// alias dy.
__kernel void relu_backward(__global const X_T* y, ulong y_off, __global const Y_T* dy,
                            ulong dy_off, __global Z_T* dx, ulong dx_off, ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  // A multiplication, not a select: an inf or NaN gradient stays visible to the overflow check.
  const float g = LOAD_Y(dy, dy_off + i) * (LOAD_X(y, y_off + i) > 0.0f ? 1.0f : 0.0f);
  STORE_Z(dx, dx_off + i, g);
}

// y *= factor. y [n] (Y).
__kernel void scale(__global Y_T* y, ulong y_off, ulong n, float factor) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  STORE_Y(y, y_off + i, LOAD_Y(y, y_off + i) * factor);
}
