/* Divergent control flow: the branch taken and the trip count of the inner
 * loop depend on the data, so lanes of one SIMD thread disagree. */
__kernel void branchy(__global const int *restrict in,
                      __global int *restrict out) {
  size_t i = get_global_id(0);
  int v = in[i];
  int acc = 0;
  if (v & 1) {
    /* odd: data-dependent trip count (0..63) */
    for (int k = 0; k < (v & 63); k++)
      acc += (v >> (k & 7)) ^ k;
  } else if (v & 2) {
    acc = v * 3 + 1;
  } else {
    while (v > 1) {
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      acc++;
      if (acc > 100) break;
    }
  }
  out[i] = acc;
}
