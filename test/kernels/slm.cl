/* Work-group sum reduction in shared local memory: barriers and SLM
 * traffic. Each group writes one partial sum. */
__kernel void slm_reduce(__global const float *restrict in,
                         __global float *restrict partial,
                         __local float *scratch) {
  size_t lid = get_local_id(0);
  size_t n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}
