/*
 * core_util.c — small helpers shared by every area: string hashing, JSON
 * string escaping, the ZESIM_LOG logger.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <stdarg.h>
#include <string.h>

uint64_t sim_hash_str(const char *s) {
    /* FNV-1a, then mixed: stable across runs and platforms. */
    uint64_t h = 0xcbf29ce484222325ull;
    if (s != NULL)
        for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return sim_mix64(h);
}

const char *sim_json_str(const char *s, char *buf, size_t cap) {
    size_t o = 0;
    if (cap == 0) return buf;
    for (; s != NULL && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        const char *rep = NULL;
        size_t n;
        if (c == '"') rep = "\\\"";
        else if (c == '\\') rep = "\\\\";
        else if (c == '\n') rep = "\\n";
        else if (c == '\r') rep = "\\r";
        else if (c == '\t') rep = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", c);
            rep = tmp;
        } else if (c >= 0x80) {
            /* Valid UTF-8 passes through; any other byte becomes U+FFFD,
             * so that every line stays valid JSON. */
            size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
            size_t k = 1;
            while (len && k < len && ((unsigned char)s[k] & 0xc0) == 0x80) k++;
            if (len >= 2 && k == len && !(len == 2 && c < 0xc2)) {
                if (o + len + 1 > cap) break;
                memcpy(buf + o, s, len);
                o += len;
                s += len - 1;
                continue;
            }
            rep = "\\ufffd";
        }
        n = rep ? strlen(rep) : 1;
        if (o + n + 1 > cap) break;
        if (rep) memcpy(buf + o, rep, n);
        else buf[o] = (char)c;
        o += n;
    }
    buf[o] = '\0';
    return buf;
}

void sim_log(const char *fmt, ...) {
    if (!sim_cfg.log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "zesim: %s\n", line);
}
