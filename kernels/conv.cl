// im2col / col2im for NHWC convolution (see Conv2DGeometry in engine/backend/backend.hpp).
// The im2col matrix is [batch*out_h*out_w, kernel_h*kernel_w*in_c], columns ordered (kh, kw, c).

// One work item per cols element; zero where the window lies in the padding.
// x [batch, in_h, in_w, in_c] (X), cols [col_rows, col_cols] (Y); n = col_rows * col_cols.
__kernel void im2col(__global const X_T* x, ulong x_off, __global Y_T* cols, ulong c_off,
                     ulong n, int in_h, int in_w, int in_c, int kernel_h, int kernel_w,
                     int out_h, int out_w, int stride, int pad) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const ulong col_cols = (ulong)kernel_h * kernel_w * in_c;
  const ulong row = i / col_cols;
  const int col = (int)(i % col_cols);
  const int c = col % in_c;
  const int kw = (col / in_c) % kernel_w;
  const int kh = col / (in_c * kernel_w);
  const int ox = (int)(row % out_w);
  const int oy = (int)((row / out_w) % out_h);
  const ulong b = row / ((ulong)out_w * out_h);
  const int iy = oy * stride - pad + kh;
  const int ix = ox * stride - pad + kw;
  float v = 0.0f;
  if (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w)
    v = LOAD_X(x, x_off + ((b * in_h + iy) * in_w + ix) * in_c + c);
  STORE_Y(cols, c_off + i, v);
}

// Gather-style col2im: one work item per dx element sums every cols entry im2col copied from
// that pixel (no atomics), in (kh, kw) order like the CPU backend.
// dcols [col_rows, col_cols] (X), dx [batch, in_h, in_w, in_c] (Y); n = dx elements.
__kernel void col2im(__global const X_T* dcols, ulong c_off, __global Y_T* dx, ulong dx_off,
                     ulong n, int in_h, int in_w, int in_c, int kernel_h, int kernel_w,
                     int out_h, int out_w, int stride, int pad) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const ulong col_cols = (ulong)kernel_h * kernel_w * in_c;
  const int c = (int)(i % in_c);
  const int x = (int)((i / in_c) % in_w);
  const int y = (int)((i / ((ulong)in_c * in_w)) % in_h);
  const ulong b = i / ((ulong)in_c * in_w * in_h);
  float sum = 0.0f;
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int ty = y + pad - kh;
    if (ty < 0 || ty % stride != 0) continue;
    const int oy = ty / stride;
    if (oy >= out_h) continue;
    for (int kw = 0; kw < kernel_w; ++kw) {
      const int tx = x + pad - kw;
      if (tx < 0 || tx % stride != 0) continue;
      const int ox = tx / stride;
      if (ox >= out_w) continue;
      const ulong row = (b * out_h + oy) * out_w + ox;
      sum += LOAD_X(dcols, c_off + row * col_cols + (kh * kernel_w + kw) * in_c + c);
    }
  }
  STORE_Y(dx, dx_off + i, sum);
}
