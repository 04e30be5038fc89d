// im2col / col2im for NHWC convolution (see Conv2DGeometry in engine/backend/backend.hpp).
// The im2col matrix is [batch*out_h*out_w, kernel_h*kernel_w*in_c], columns ordered (kh, kw, c).
// Index arithmetic is 32-bit (the host checks that every tensor has < 2^32 elements): 64-bit
// division is slow on CPUs and emulated on GPUs.

// One work item per cols element; zero where the window lies in the padding.
// x [batch, in_h, in_w, in_c] (X), cols [col_rows, col_cols] (Y); n = col_rows * col_cols.
__kernel void im2col(__global const X_T* x, ulong x_off, __global Y_T* cols, ulong c_off, uint n,
                     int in_h, int in_w, int in_c, int kernel_h, int kernel_w, int out_h, int out_w,
                     int stride, int pad) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const uint col_cols = (uint)(kernel_h * kernel_w * in_c);
  const uint row = i / col_cols;
  const int col = (int)(i - row * col_cols);
  const int c = col % in_c;
  const int kw = (col / in_c) % kernel_w;
  const int kh = col / (in_c * kernel_w);
  const int ox = (int)(row % (uint)out_w);
  const uint rest = row / (uint)out_w;
  const int oy = (int)(rest % (uint)out_h);
  const uint b = rest / (uint)out_h;
  const int iy = oy * stride - pad + kh;
  const int ix = ox * stride - pad + kw;
  float v = 0.0f;
  if (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w)
    v = LOAD_X(
        x, x_off + ((b * (uint)in_h + (uint)iy) * (uint)in_w + (uint)ix) * (uint)in_c + (uint)c);
  STORE_Y(cols, c_off + i, v);
}

// Gather-style col2im: one work item per dx element sums every cols entry im2col copied from
// that pixel (no atomics), in (kh, kw) order like the CPU backend.
// dcols [col_rows, col_cols] (X), dx [batch, in_h, in_w, in_c] (Y); n = dx elements.
__kernel void col2im(__global const X_T* dcols, ulong c_off, __global Y_T* dx, ulong dx_off, uint n,
                     int in_h, int in_w, int in_c, int kernel_h, int kernel_w, int out_h, int out_w,
                     int stride, int pad) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const uint col_cols = (uint)(kernel_h * kernel_w * in_c);
  const uint pixel = i / (uint)in_c;
  const int c = (int)(i - pixel * (uint)in_c);
  const int x = (int)(pixel % (uint)in_w);
  const uint rest = pixel / (uint)in_w;
  const int y = (int)(rest % (uint)in_h);
  const uint b = rest / (uint)in_h;
  float sum = 0.0f;
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int ty = y + pad - kh;
    if (ty < 0) break;  // larger kh only lowers ty further
    if (ty % stride != 0 || ty / stride >= out_h) continue;
    const uint row_base = (b * (uint)out_h + (uint)(ty / stride)) * (uint)out_w;
    for (int kw = 0; kw < kernel_w; ++kw) {
      const int tx = x + pad - kw;
      if (tx < 0) break;
      if (tx % stride != 0 || tx / stride >= out_w) continue;
      const uint row = row_base + (uint)(tx / stride);
      sum += LOAD_X(dcols, c_off + row * col_cols + (uint)((kh * kernel_w + kw) * in_c + c));
    }
  }
  STORE_Y(dx, dx_off + i, sum);
}
