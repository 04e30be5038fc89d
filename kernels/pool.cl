// Max pooling over non-overlapping pool x pool windows (window = stride = pool), NHWC.

// y [batch, out_h, out_w, c] (Y) = window maximum of x [batch, in_h, in_w, c] (X);
// argmax [same as y] i32 = flat index into x of the first maximum. n = y elements.
__kernel void maxpool(__global const X_T* x, ulong x_off, __global Y_T* y, ulong y_off,
                      __global int* argmax, ulong a_off, ulong n, int in_h, int in_w,
                      int channels, int pool, int out_h, int out_w) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const int c = (int)(i % channels);
  const int ox = (int)((i / channels) % out_w);
  const int oy = (int)((i / ((ulong)channels * out_w)) % out_h);
  const ulong b = i / ((ulong)channels * out_w * out_h);
  float best = 0.0f;
  ulong best_index = 0;
  for (int py = 0; py < pool; ++py) {
    for (int px = 0; px < pool; ++px) {
      const ulong index = ((b * in_h + oy * pool + py) * in_w + ox * pool + px) * channels + c;
      const float v = LOAD_X(x, x_off + index);
      if ((py == 0 && px == 0) || v > best) {
        best = v;
        best_index = index;
      }
    }
  }
  STORE_Y(y, y_off + i, best);
  argmax[a_off + i] = (int)best_index;
}

// dx [batch, in_h, in_w, c] (Y) = dy [batch, out_h, out_w, c] (X) at the argmax positions, 0
// elsewhere. Gather form: windows do not overlap, so each x element belongs to at most one
// window and checks whether it was that window's argmax. n = dx elements.
__kernel void maxpool_backward(__global const X_T* dy, ulong dy_off, __global const int* argmax,
                               ulong a_off, __global Y_T* dx, ulong dx_off, ulong n, int in_h,
                               int in_w, int channels, int pool, int out_h, int out_w) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const int c = (int)(i % channels);
  const int x = (int)((i / channels) % in_w);
  const int y = (int)((i / ((ulong)channels * in_w)) % in_h);
  const ulong b = i / ((ulong)channels * in_w * in_h);
  const int oy = y / pool, ox = x / pool;
  float g = 0.0f;
  if (oy < out_h && ox < out_w) {
    const ulong j = ((b * out_h + oy) * out_w + ox) * channels + c;
    if (argmax[a_off + j] == (int)i) g = LOAD_X(dy, dy_off + j);
  }
  STORE_Y(dx, dx_off + i, g);
}
