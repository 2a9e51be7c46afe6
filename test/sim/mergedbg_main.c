/*
 * zesim-mergedbg IN.zebin IN.dbg OUT.zebin
 *
 * Merges IGC's legacy debug container (.dbg, one debug ELF per kernel) into
 * a zebin, producing the zebin-with-DWARF layout newer IGC writes
 * (sim_zebin_merge_debug, debugzebin_merge.c). Used by test/kernels/regen.sh.
 * Exit status: 0 on success, 1 on bad input, 2 on usage errors.
 */
#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int read_file(const char *path, uint8_t **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "zesim-mergedbg: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    while (p != NULL) {
        if (n == cap) {
            uint8_t *q = realloc(p, cap * 2);
            if (q == NULL) break;
            p = q;
            cap *= 2;
        }
        size_t r = fread(p + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int bad = p == NULL || ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "zesim-mergedbg: %s: read error\n", path);
        free(p);
        return -1;
    }
    *data = p;
    *size = n;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: zesim-mergedbg IN.zebin IN.dbg OUT.zebin\n");
        return 2;
    }
    uint8_t *zebin = NULL, *dbg = NULL, *out = NULL;
    size_t zsize = 0, dsize = 0, osize = 0;
    char err[512] = "";
    int rc = 1;
    if (read_file(argv[1], &zebin, &zsize) != 0 || read_file(argv[2], &dbg, &dsize) != 0) goto done;
    if (sim_zebin_merge_debug(zebin, zsize, dbg, dsize, &out, &osize, err, sizeof(err)) != 0) {
        fprintf(stderr, "zesim-mergedbg: %s + %s: %s\n", argv[1], argv[2], err);
        goto done;
    }
    /* Write to a temporary name first so a failed run never leaves a
     * truncated OUT behind. */
    size_t plen = strlen(argv[3]);
    char *tmp = malloc(plen + 5);
    if (tmp == NULL) goto done;
    memcpy(tmp, argv[3], plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL || fwrite(out, 1, osize, f) != osize || fclose(f) != 0 || rename(tmp, argv[3]) != 0) {
        fprintf(stderr, "zesim-mergedbg: %s: %s\n", argv[3], strerror(errno));
        remove(tmp);
    } else {
        rc = 0;
    }
    free(tmp);
done:
    free(zebin);
    free(dbg);
    free(out);
    return rc;
}
