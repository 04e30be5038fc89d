// Shared by every kernel family: the host builds each program from common.cl followed by the
// family's file.
//
// Storage slots. Activations and their gradients may be stored as f32 or f16 (see
// engine/backend/backend.hpp); every kernel computes in f32. A kernel binds its storage
// arguments to the slots X, Y and Z, and the host picks each slot's element type when it builds
// the program: -DX_TYPE=0 (f32), 1 (f16) or 2 (i32; used by convert only). f16 is read with
// vload_half and written with vstore_half_rte, both core OpenCL C, so no cl_khr_fp16 is needed.
//   X_T               the pointer's element type (float, half or int)
//   LOAD_X(p, i)      p[i] as a float
//   STORE_X(p, i, v)  p[i] = v: f16 rounds to nearest even; i32 truncates, saturates, NaN -> 0
// Offsets are passed in elements as ulong and added to the index (no pointer arithmetic on half
// pointers, no sub-buffers). Element counts are ulong, or uint in kernels that divide indices
// (the host checks the limit): 64-bit division is slow on CPUs and emulated on GPUs.

// Results should match the CPU backend operation for operation, so the compiler may not fuse
// a*b+c on its own; where the CPU backend's loops are fused, kernels call fma() explicitly
// (optimizer.cl).
#pragma OPENCL FP_CONTRACT OFF

#define TS_F32 0
#define TS_F16 1
#define TS_I32 2

#ifndef X_TYPE
#define X_TYPE TS_F32
#endif
#ifndef Y_TYPE
#define Y_TYPE TS_F32
#endif
#ifndef Z_TYPE
#define Z_TYPE TS_F32
#endif

#if X_TYPE == TS_F16
#define X_T half
#define LOAD_X(p, i) vload_half((i), (p))
#define STORE_X(p, i, v) vstore_half_rte((v), (i), (p))
#elif X_TYPE == TS_I32
#define X_T int
#define LOAD_X(p, i) ((float)(p)[(i)])
#define STORE_X(p, i, v) ((p)[(i)] = convert_int_sat_rtz(v))
#else
#define X_T float
#define LOAD_X(p, i) ((p)[(i)])
#define STORE_X(p, i, v) ((p)[(i)] = (v))
#endif

#if Y_TYPE == TS_F16
#define Y_T half
#define LOAD_Y(p, i) vload_half((i), (p))
#define STORE_Y(p, i, v) vstore_half_rte((v), (i), (p))
#elif Y_TYPE == TS_I32
#define Y_T int
#define LOAD_Y(p, i) ((float)(p)[(i)])
#define STORE_Y(p, i, v) ((p)[(i)] = convert_int_sat_rtz(v))
#else
#define Y_T float
#define LOAD_Y(p, i) ((p)[(i)])
#define STORE_Y(p, i, v) ((p)[(i)] = (v))
#endif

#if Z_TYPE == TS_F16
#define Z_T half
#define LOAD_Z(p, i) vload_half((i), (p))
#define STORE_Z(p, i, v) vstore_half_rte((v), (i), (p))
#elif Z_TYPE == TS_I32
#define Z_T int
#define LOAD_Z(p, i) ((float)(p)[(i)])
#define STORE_Z(p, i, v) ((p)[(i)] = convert_int_sat_rtz(v))
#else
#define Z_T float
#define LOAD_Z(p, i) ((p)[(i)])
#define STORE_Z(p, i, v) ((p)[(i)] = (v))
#endif

// Counter-based uniform float in [0, 1) from (seed, index); bit for bit the same as
// ts::hash_uniform in engine/core/rng.hpp.
inline float ts_hash_uniform(uint seed, uint index) {
  uint x = index * 0x9E3779B9u ^ seed;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return (float)(x >> 8) * (1.0f / 16777216.0f);
}
