/*
 * module_zebin.c — parsing of zebins (ELF for EM_INTELGT): kernels, code
 * sizes, instruction boundaries and the .ze_info YAML subset. Everything
 * read from a binary is bounds-checked: a malformed zebin must produce an
 * error code, never a crash.
 */
#include "module.h"

/* ================================================================== */
/* Zebin parsing                                                       */
/* ================================================================== */


void zebin_free(zebin_t *z) { free(z->sec); }

/* Returns a NUL-terminated string inside section strsec at offset, or NULL. */
const char *elf_str(const zebin_t *z, uint32_t strsec, uint64_t off) {
    if (strsec >= z->nsec) return NULL;
    const elf_sec_t *s = &z->sec[strsec];
    if (s->type == SHT_NOBITS_ || off >= s->size) return NULL;
    const char *base = (const char *)z->data + s->off;
    if (memchr(base + off, '\0', s->size - off) == NULL) return NULL;
    return base + off;
}

ze_result_t zebin_parse(const uint8_t *data, size_t size, zebin_t *z, char *err, size_t errcap) {
    memset(z, 0, sizeof(*z));
    z->data = data;
    z->size = size;
    if (size < 64 || memcmp(data, "\177ELF", 4) != 0) {
        snprintf(err, errcap, "not an ELF file");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (data[4] != 2 || data[5] != 1) {
        snprintf(err, errcap, "not a little-endian ELF64 file");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (rd16(data + 18) != EM_INTELGT) {
        snprintf(err, errcap, "ELF machine %u is not EM_INTELGT (205)", rd16(data + 18));
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    uint64_t shoff = rd64(data + 40);
    uint16_t shentsize = rd16(data + 58), shnum = rd16(data + 60), shstrndx = rd16(data + 62);
    if (shnum == 0 || shentsize != 64 || shoff > size || (size - shoff) / 64 < shnum || shstrndx >= shnum) {
        snprintf(err, errcap, "bad section header table");
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    z->nsec = shnum;
    z->sec = calloc(shnum, sizeof(elf_sec_t));
    if (z->sec == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *sh = data + shoff + (uint64_t)i * 64;
        z->sec[i].name_off = rd32(sh);
        z->sec[i].type = rd32(sh + 4);
        z->sec[i].off = rd64(sh + 24);
        z->sec[i].size = rd64(sh + 32);
        z->sec[i].link = rd32(sh + 40);
        z->sec[i].entsize = rd64(sh + 56);
        if (z->sec[i].type != SHT_NOBITS_ && i != 0 &&
            (z->sec[i].off > size || z->sec[i].size > size - z->sec[i].off)) {
            snprintf(err, errcap, "section %u out of bounds", i);
            zebin_free(z);
            return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
    }
    for (uint32_t i = 1; i < shnum; i++) {
        z->sec[i].name = elf_str(z, shstrndx, z->sec[i].name_off);
        if (z->sec[i].name == NULL) {
            snprintf(err, errcap, "section %u has a bad name", i);
            zebin_free(z);
            return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
    }
    z->sec[0].name = "";
    /* Product family from the IntelGT compatibility notes. */
    for (uint32_t i = 1; i < shnum; i++) {
        if (z->sec[i].type != SHT_NOTE_ || strcmp(z->sec[i].name, ".note.intelgt.compat") != 0) continue;
        const uint8_t *p = data + z->sec[i].off;
        uint64_t left = z->sec[i].size;
        while (left >= 12) {
            uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
            uint64_t nsz = align_up(namesz, 4), dsz = align_up(descsz, 4);
            if (nsz > left - 12 || dsz > left - 12 - nsz) break;
            if (type == NOTE_PRODUCT_FAMILY && descsz >= 4 && namesz == 8 && memcmp(p + 12, "IntelGT", 8) == 0)
                z->product_family = rd32(p + 12 + nsz);
            p += 12 + nsz + dsz;
            left -= 12 + nsz + dsz;
        }
    }
    return ZE_RESULT_SUCCESS;
}

/* Code size: st_size of the FUNC symbol named like the kernel in its
 * section; otherwise the section without trailing zero bytes. */
size_t kernel_code_size(const zebin_t *z, uint32_t shndx, const char *name) {
    const elf_sec_t *text = &z->sec[shndx];
    for (uint32_t i = 1; i < z->nsec; i++) {
        const elf_sec_t *s = &z->sec[i];
        if (s->type != SHT_SYMTAB_ || s->entsize != 24) continue;
        for (uint64_t o = 0; o + 24 <= s->size; o += 24) {
            const uint8_t *sym = z->data + s->off + o;
            if ((sym[4] & 0xf) != STT_FUNC_ || rd16(sym + 6) != shndx) continue;
            const char *sn = elf_str(z, s->link, rd32(sym));
            if (sn && strcmp(sn, name) == 0) {
                uint64_t sz = rd64(sym + 16);
                return sz <= text->size ? (size_t)sz : (size_t)text->size;
            }
        }
    }
    size_t n = (size_t)text->size;
    const uint8_t *b = z->data + text->off;
    while (n > 0 && b[n - 1] == 0) n--;
    n = (size_t)align_up(n, 8);
    return n <= text->size ? n : (size_t)text->size;
}

/* ---------------- .ze_info (YAML subset) ---------------- */

typedef struct yaml_arg {
    bool active;
    char type[32];
    char addrspace[16];
    int64_t index;
    uint64_t size, source_offset;
} yaml_arg_t;

typedef struct zeinfo_ctx {
    kinfo_t *ki;
    uint32_t nk;
    kinfo_t *cur;      /* kernel being parsed (NULL if unknown name) */
    yaml_arg_t arg;
    struct { char type[32], usage[32]; uint64_t size; bool active; } buf;
} zeinfo_ctx_t;

static kinfo_t *find_kinfo(zeinfo_ctx_t *c, const char *name) {
    for (uint32_t i = 0; i < c->nk; i++)
        if (strcmp(c->ki[i].name, name) == 0) return &c->ki[i];
    return NULL;
}

static void commit_arg(zeinfo_ctx_t *c) {
    yaml_arg_t *a = &c->arg;
    if (!a->active) return;
    a->active = false;
    kinfo_t *k = c->cur;
    bool byptr = strcmp(a->type, "arg_bypointer") == 0, byval = strcmp(a->type, "arg_byvalue") == 0;
    if (k == NULL || (!byptr && !byval) || a->index < 0 || a->index >= 4096) return;
    uint32_t idx = (uint32_t)a->index;
    if (idx >= k->num_args) {
        sim_kernel_arg_t *n = realloc(k->args, (idx + 1) * sizeof(*n));
        if (n == NULL) return;
        memset(n + k->num_args, 0, (idx + 1 - k->num_args) * sizeof(*n));
        k->args = n;
        k->num_args = idx + 1;
    }
    sim_kernel_arg_t *ka = &k->args[idx];
    if (byptr) {
        ka->is_pointer = true;
        if (strcmp(a->addrspace, "local") == 0) {
            ka->is_local = true;
            ka->is_pointer = false;
            ka->size = 0;
        } else {
            ka->size = 8;
        }
    } else {
        uint64_t end = a->source_offset + a->size;
        if (end > ka->size && end < (1u << 20)) ka->size = (uint32_t)end;
    }
}

static void commit_buf(zeinfo_ctx_t *c) {
    if (!c->buf.active) return;
    c->buf.active = false;
    if (c->cur == NULL || c->buf.size > UINT32_MAX) return;
    if (strcmp(c->buf.type, "scratch") == 0 && strcmp(c->buf.usage, "spill_fill_space") == 0)
        c->cur->spill_size = (uint32_t)c->buf.size;
    else if (strcmp(c->buf.type, "private") == 0 || strcmp(c->buf.usage, "private_space") == 0)
        c->cur->private_size = (uint32_t)c->buf.size;
}

static void copy_scalar(char *dst, size_t cap, const char *v) {
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
        v++;
        n -= 2;
    }
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static uint64_t scalar_u64(const char *v) {
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 0);
    return end == v ? 0 : (uint64_t)x;
}

static void on_key(zeinfo_ctx_t *c, const char *p0, const char *p1, bool item, const char *key, const char *val) {
    if (p0 == NULL || strcmp(p0, "kernels") != 0) return;
    if (p1 == NULL) { /* kernel level */
        if (item) {
            commit_arg(c);
            commit_buf(c);
            c->cur = NULL;
        }
        if (strcmp(key, "name") == 0) {
            size_t cap = strlen(val) + 1; /* SYCL names can be very long */
            char *name = malloc(cap);
            if (name != NULL) {
                copy_scalar(name, cap, val);
                c->cur = find_kinfo(c, name);
                free(name);
            }
        }
        return;
    }
    if (c->cur == NULL) return;
    if (strcmp(p1, "execution_env") == 0) {
        if (strcmp(key, "simd_size") == 0) c->cur->simd = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "slm_size") == 0) c->cur->slm_static = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "required_sub_group_size") == 0) c->cur->req_sg = (uint32_t)scalar_u64(val);
        else if (strcmp(key, "required_work_group_size") == 0) {
            /* flow sequence "[ x, y, z ]" */
            const char *s = strchr(val, '[');
            for (int i = 0; s != NULL && i < 3; i++) {
                s++;
                c->cur->req_wg[i] = (uint32_t)scalar_u64(s + strspn(s, " "));
                s = strchr(s, ',');
            }
        }
    } else if (strcmp(p1, "payload_arguments") == 0) {
        if (item) {
            commit_arg(c);
            memset(&c->arg, 0, sizeof(c->arg));
            c->arg.active = true;
            c->arg.index = -1;
        }
        if (strcmp(key, "arg_type") == 0) copy_scalar(c->arg.type, sizeof(c->arg.type), val);
        else if (strcmp(key, "addrspace") == 0) copy_scalar(c->arg.addrspace, sizeof(c->arg.addrspace), val);
        else if (strcmp(key, "arg_index") == 0) c->arg.index = (int64_t)scalar_u64(val);
        else if (strcmp(key, "size") == 0) c->arg.size = scalar_u64(val);
        else if (strcmp(key, "source_offset") == 0) c->arg.source_offset = scalar_u64(val);
    } else if (strcmp(p1, "per_thread_memory_buffers") == 0) {
        if (item) {
            commit_buf(c);
            memset(&c->buf, 0, sizeof(c->buf));
            c->buf.active = true;
        }
        if (strcmp(key, "type") == 0) copy_scalar(c->buf.type, sizeof(c->buf.type), val);
        else if (strcmp(key, "usage") == 0) copy_scalar(c->buf.usage, sizeof(c->buf.usage), val);
        else if (strcmp(key, "size") == 0) c->buf.size = scalar_u64(val);
    }
}

/* Line-based parser for the YAML that IGC writes: block mappings and
 * block sequences of mappings; flow sequences only as scalar values.
 * Keeps a stack of the enclosing block keys and their indentation. */
void zeinfo_parse(const char *text, size_t len, kinfo_t *ki, uint32_t nk) {
    zeinfo_ctx_t c;
    memset(&c, 0, sizeof(c));
    c.ki = ki;
    c.nk = nk;
    struct { size_t indent; char key[48]; } stack[16];
    size_t depth = 0;
    size_t pos = 0;
    /* A private NUL-terminated copy, split into lines in place. */
    char *copy = malloc(len + 1);
    if (copy == NULL) return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    while (pos < len) {
        size_t eol = pos;
        while (eol < len && copy[eol] != '\n') eol++;
        char *line = copy + pos;
        copy[eol] = '\0';
        size_t ll = strlen(line); /* stops at an embedded NUL */
        pos = eol + 1;
        while (ll > 0 && (line[ll - 1] == '\r' || line[ll - 1] == ' ')) line[--ll] = '\0';
        size_t indent = strspn(line, " ");
        char *p = line + indent;
        if (*p == '\0' || *p == '#' || strcmp(p, "---") == 0 || strcmp(p, "...") == 0) continue;
        bool item = false;
        size_t key_indent = indent;
        if (p[0] == '-' && (p[1] == ' ' || p[1] == '\0')) {
            item = true;
            p++;
            p += strspn(p, " ");
            key_indent = (size_t)(p - line);
            while (depth > 0 && stack[depth - 1].indent > indent) depth--;
        } else {
            while (depth > 0 && stack[depth - 1].indent >= key_indent) depth--;
        }
        char *colon = strchr(p, ':');
        if (colon == NULL) continue; /* plain sequence scalar */
        *colon = '\0';
        char *val = colon + 1;
        val += strspn(val, " ");
        const char *p0 = depth > 0 ? stack[0].key : NULL;
        const char *p1 = depth > 1 ? stack[1].key : NULL;
        if (depth <= 2) on_key(&c, p0, depth > 1 ? p1 : NULL, item, p, val);
        if (*val == '\0' && depth < 16) { /* block start */
            stack[depth].indent = key_indent;
            copy_scalar(stack[depth].key, sizeof(stack[depth].key), p);
            depth++;
        }
    }
    commit_arg(&c);
    commit_buf(&c);
    free(copy);
}
