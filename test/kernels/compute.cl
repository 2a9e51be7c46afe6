/* Compute-bound kernel: a long dependent chain of math per work-item with
 * little memory traffic (one load, one store). */
__kernel void compute_poly(__global float *restrict data, const int iters) {
  size_t i = get_global_id(0);
  float x = data[i];
  float y = 1.0f;
  for (int k = 0; k < iters; k++) {
    x = mad(x, 1.000001f, 0.5f);
    y = y * 0.999f + sin(x) * cos(y);
    if (x > 1.0e6f)
      x = sqrt(x);
  }
  data[i] = x + y;
}
