// Copies with type conversion and fills.

// y[i] = x[i] for i < n, converting between the X and Y element types (f32, f16, i32).
// x [n] (X), y [n] (Y).
__kernel void convert(__global const X_T* x, ulong x_off, __global Y_T* y, ulong y_off, ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  STORE_Y(y, y_off + i, LOAD_X(x, x_off + i));
}

// p[i] = pattern for i < n: 4-byte elements (f32, i32). p [n].
__kernel void fill_u32(__global uint* p, ulong p_off, ulong n, uint pattern) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  p[p_off + i] = pattern;
}

// p[i] = pattern for i < n: 2-byte elements (f16 bits). p [n].
__kernel void fill_u16(__global ushort* p, ulong p_off, ulong n, ushort pattern) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  p[p_off + i] = pattern;
}
