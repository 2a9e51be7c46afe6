__kernel void stream_triad(__global float *a, __global const float *b, __global const float *c, float s) {
  size_t i = get_global_id(0);
  a[i] = b[i] + s * c[i];
}
__kernel void compute_loop(__global float *a, int n) {
  size_t i = get_global_id(0);
  float x = a[i];
  for (int k = 0; k < n; k++) x = x * 1.0001f + 0.5f;
  a[i] = x;
}
