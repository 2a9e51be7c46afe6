/* A module with three kernels of different character, so that the merged
 * debug info has several compile units with location and range lists. */
__kernel void mixed_saxpy_loop(__global float *restrict y,
                               __global const float *restrict x,
                               const float a, const int reps) {
  size_t i = get_global_id(0);
  float acc = y[i];
  for (int r = 0; r < reps; r++)
    acc = a * x[i] + acc * 0.5f;
  y[i] = acc;
}

__kernel void mixed_histogram(__global const uint *restrict in,
                              __global volatile uint *restrict bins,
                              const uint nbins) {
  size_t i = get_global_id(0);
  uint v = in[i];
  if (v % 3 == 0)
    v = v * 2654435761u;
  else if (v % 3 == 1)
    v ^= v >> 7;
  atomic_inc(&bins[v % nbins]);
}

__kernel void mixed_scale(__global float *restrict data, const float s) {
  size_t i = get_global_id(0);
  data[i] *= s;
}
