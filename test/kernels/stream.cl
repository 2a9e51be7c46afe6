/* Memory-bound STREAM-style kernels: one work-item per element.
 * Two kernels in one module, so the module's debug info has two compile
 * units and two line programs. */
__kernel void stream_triad(__global float *restrict a,
                           __global const float *restrict b,
                           __global const float *restrict c,
                           const float scalar) {
  size_t i = get_global_id(0);
  a[i] = b[i] + scalar * c[i];
}

__kernel void stream_copy(__global float *restrict dst,
                          __global const float *restrict src) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}
