// Max pooling over non-overlapping pool x pool windows (window = stride = pool), NHWC.
// 32-bit index arithmetic (argmax is i32, so x has < 2^31 elements).

// y [batch, out_h, out_w, c] (Y) = window maximum of x [batch, in_h, in_w, c] (X);
// argmax [same as y] i32 = flat index into x of the first maximum. n = y elements.
__kernel void maxpool(__global const X_T* x, ulong x_off, __global Y_T* y, ulong y_off,
                      __global int* argmax, ulong a_off, uint n, int in_h, int in_w, int channels,
                      int pool, int out_h, int out_w) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const uint q = i / (uint)channels;  // output pixel
  const int c = (int)(i - q * (uint)channels);
  const int ox = (int)(q % (uint)out_w);
  const uint rest = q / (uint)out_w;
  const int oy = (int)(rest % (uint)out_h);
  const int b = (int)(rest / (uint)out_h);
  float best = 0.0f;
  int best_index = 0;
  for (int py = 0; py < pool; ++py) {
    for (int px = 0; px < pool; ++px) {
      const int index = ((b * in_h + oy * pool + py) * in_w + ox * pool + px) * channels + c;
      const float v = LOAD_X(x, x_off + (uint)index);
      if ((py == 0 && px == 0) || v > best) {  // strictly greater: the first maximum wins
        best = v;
        best_index = index;
      }
    }
  }
  STORE_Y(y, y_off + i, best);
  argmax[a_off + i] = best_index;
}

// dx [batch, in_h, in_w, c] (Y) = dy [batch, out_h, out_w, c] (X) at the argmax positions, 0
// elsewhere. Gather form: windows do not overlap, so each x element belongs to at most one
// window and checks whether it was that window's argmax. n = dx elements.
__kernel void maxpool_backward(__global const X_T* dy, ulong dy_off, __global const int* argmax,
                               ulong a_off, __global Y_T* dx, ulong dx_off, uint n, int in_h,
                               int in_w, int channels, int pool, int out_h, int out_w) {
  const uint i = (uint)get_global_id(0);
  if (i >= n) return;
  const uint pixel = i / (uint)channels;
  const int c = (int)(i - pixel * (uint)channels);
  const int x = (int)(pixel % (uint)in_w);
  const uint rest = pixel / (uint)in_w;
  const int y = (int)(rest % (uint)in_h);
  const int b = (int)(rest / (uint)in_h);
  const int oy = y / pool, ox = x / pool;
  float g = 0.0f;
  if (oy < out_h && ox < out_w) {
    const uint j = (uint)(((b * out_h + oy) * out_w + ox) * channels + c);
    if (argmax[a_off + j] == (int)i) g = LOAD_X(dy, dy_off + j);
  }
  STORE_Y(dx, dx_off + i, g);
}
