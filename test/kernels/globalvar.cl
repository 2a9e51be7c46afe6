/* A module with a program-scope writable global: copies would each get
 * their own counter, so zestall must not copy it. */
global uint globalvar_launches = 0;

kernel void globalvar_count(global float *out, float x) {
    size_t i = get_global_id(0);
    out[i] = out[i] * x + 1.0f;
    if (i == 0) atomic_inc(&globalvar_launches);
}
