/*
 * zestall-bench-trivial: the trivial Level-Zero program of the start-up
 * benchmark (scripts/bench): zeInit, zeDriverGet, exit. Exit status 0 only
 * if a driver was found.
 */
#include <stdio.h>

#include <level_zero/ze_api.h>

int main(void) {
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zestall-bench-trivial: zeInit: 0x%x\n", (unsigned)r);
        return 1;
    }
    uint32_t n = 0;
    r = zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS || n == 0) {
        fprintf(stderr, "zestall-bench-trivial: zeDriverGet: 0x%x, %u drivers\n", (unsigned)r, n);
        return 1;
    }
    return 0;
}
