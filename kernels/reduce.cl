// Reductions: bias gradient (column sums), total sum, and the scale-and-check-finite pass used
// to unscale gradients under mixed precision. Work-group sizes along the reduced axis are powers
// of two chosen by the host; `scratch` is local memory of one float per work item.

// grad[c] = (accumulate ? grad[c] : 0) + sum_r dy[r, c].
// dy [rows, cols] (X), grad [groups, cols] f32. Work-group (TC, TR), global (cols rounded up to
// TC, TR x groups): each group owns TC adjacent columns (coalesced reads) of `rows_per_group`
// consecutive rows, and its TR lanes stride over them. Group g of dimension 1 writes its sums to
// grad [g * cols + c]: with several, the host sums those slices with sum_slices.
__kernel void bias_grad(__global const X_T* dy, ulong dy_off, __global float* grad, ulong g_off,
                        ulong rows, ulong cols, ulong rows_per_group, int accumulate,
                        __local float* scratch) {
  const size_t c = get_global_id(0);
  const size_t lc = get_local_id(0), lr = get_local_id(1);
  const size_t tc = get_local_size(0), tr = get_local_size(1);
  const ulong first = get_group_id(1) * rows_per_group;
  const ulong last = min(rows, first + rows_per_group);
  float s = 0.0f;
  if (c < cols)
    for (ulong r = first + lr; r < last; r += tr) s += LOAD_X(dy, dy_off + r * cols + c);
  scratch[lr * tc + lc] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t half_lanes = tr / 2; half_lanes > 0; half_lanes /= 2) {
    if (lr < half_lanes) scratch[lr * tc + lc] += scratch[(lr + half_lanes) * tc + lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lr == 0 && c < cols) {
    const ulong at = g_off + get_group_id(1) * cols + c;
    const float before = accumulate ? grad[at] : 0.0f;
    grad[at] = before + scratch[lc];
  }
}

// out [n] = alpha * (sum over s < slices of parts [s * n + i]) + beta * out [n], all f32; beta 0
// does not read out (it may hold NaN). parts [slices, n]: a split reduction's partial results.
__kernel void sum_slices(__global const float* parts, ulong n, ulong slices,
                         __global float* out, ulong out_off, float alpha, float beta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  float s = 0.0f;
  for (ulong k = 0; k < slices; ++k) s += parts[k * n + i];
  s *= alpha;
  out[out_off + i] = beta == 0.0f ? s : s + beta * out[out_off + i];
}

// Tree sum of the work-group's `scratch` values; the result ends up in scratch[0].
inline void ts_local_sum(__local float* scratch) {
  const size_t lid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t half_size = get_local_size(0) / 2; half_size > 0; half_size /= 2) {
    if (lid < half_size) scratch[lid] += scratch[lid + half_size];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// First pass of sum: partial[group] = sum of x over a grid-strided share of its elements.
// x [n] (X), partial [number of groups] f32.
__kernel void sum_partial(__global const X_T* x, ulong x_off, ulong n, __global float* partial,
                          __local float* scratch) {
  float s = 0.0f;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) s += LOAD_X(x, x_off + i);
  scratch[get_local_id(0)] = s;
  ts_local_sum(scratch);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = scratch[0];
}

// Second pass of sum, one work-group: out[0] = sum of partial[0 .. count).
// partial [count] f32, out [>= 1] f32.
__kernel void sum_final(__global const float* partial, uint count, __global float* out,
                        ulong out_off, __local float* scratch) {
  float s = 0.0f;
  for (uint i = get_local_id(0); i < count; i += get_local_size(0)) s += partial[i];
  scratch[get_local_id(0)] = s;
  ts_local_sum(scratch);
  if (get_local_id(0) == 0) out[out_off] = scratch[0];
}

// x *= factor; flag[0] = 1 when any scaled element is inf or NaN. The host zeroes flag first.
// x [n] f32, flag [>= 1] f32.
__kernel void scale_check_finite(__global float* x, ulong x_off, ulong n, float factor,
                                 __global float* flag, ulong flag_off) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float v = x[x_off + i] * factor;
  x[x_off + i] = v;
  if (!isfinite(v)) atomic_xchg((volatile __global float*)(flag + flag_off), 1.0f);
}
