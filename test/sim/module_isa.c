/*
 * module_isa.c — ISA objects (the code of one kernel in GPU memory, shared
 * by kernels, runs and recorded commands) and the per-device instruction
 * heap that places modules (first fit, freed ranges reused).
 */
#include "module.h"

static atomic_uint_fast64_t next_kernel_id = 1;

/* ================================================================== */
/* ISA objects                                                         */
/* ================================================================== */

sim_isa_t *sim_isa_ref(sim_isa_t *isa) {
    if (isa) atomic_fetch_add(&isa->refs, 1);
    return isa;
}

void sim_isa_unref(sim_isa_t *isa) {
    if (isa == NULL || atomic_fetch_sub(&isa->refs, 1) != 1) return;
    if (isa->profile) {
        if (isa->profile_free) isa->profile_free(isa->profile);
        else free(isa->profile);
    }
    free(isa->kernel_name);
    free((void *)isa->bytes);
    free(isa->inst_offset);
    free(isa->inst_opcode);
    free(isa->inst_size);
    free(isa);
}

/* Instruction boundaries: bit 29 of the first dword = compacted (8 bytes),
 * otherwise 16 bytes. A truncated last instruction is not counted. */
static bool isa_decode(sim_isa_t *isa) {
    uint32_t n = 0;
    size_t off = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        off = 0;
        while (off + 8 <= isa->code_size) {
            uint32_t dw = rd32(isa->bytes + off);
            size_t len = (dw & (1u << 29)) ? 8 : 16;
            if (off + len > isa->code_size) break;
            if (pass == 1) {
                isa->inst_offset[n] = (uint32_t)off;
                isa->inst_opcode[n] = isa->bytes[off] & 0x7f;
                isa->inst_size[n] = (uint8_t)len;
            }
            n++;
            off += len;
        }
        if (pass == 0) {
            size_t c = n ? n : 1;
            isa->inst_offset = calloc(c, sizeof(uint32_t));
            isa->inst_opcode = calloc(c, 1);
            isa->inst_size = calloc(c, 1);
            if (!isa->inst_offset || !isa->inst_opcode || !isa->inst_size) return false;
        }
    }
    isa->num_insts = n;
    return true;
}

sim_isa_t *isa_new(const char *name, const uint8_t *bytes, size_t size, size_t code_size) {
    sim_isa_t *isa = calloc(1, sizeof(*isa));
    if (isa == NULL) return NULL;
    atomic_init(&isa->refs, 1);
    isa->kernel_name = strdup(name);
    uint8_t *copy = malloc(size ? size : 1);
    if (copy && size) memcpy(copy, bytes, size);
    isa->bytes = copy;
    isa->size = size;
    isa->code_size = code_size;
    isa->profile_once = (pthread_once_t)PTHREAD_ONCE_INIT;
    isa->kernel_id = atomic_fetch_add(&next_kernel_id, 1);
    if (isa->kernel_name == NULL || copy == NULL || !isa_decode(isa)) {
        sim_isa_unref(isa);
        return NULL;
    }
    return isa;
}

/* ================================================================== */
/* ISA heap (first fit, freed ranges reused)                           */
/* ================================================================== */

typedef struct isa_range {
    uint64_t start, size;
} isa_range_t;

typedef struct isa_heap {
    sim_device_t *root;
    isa_range_t *used; /* sorted by start */
    size_t n, cap;
} isa_heap_t;

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static isa_heap_t *heaps;
static size_t num_heaps;

static isa_heap_t *heap_for(sim_device_t *root) {
    for (size_t i = 0; i < num_heaps; i++)
        if (heaps[i].root == root) return &heaps[i];
    isa_heap_t *n = realloc(heaps, (num_heaps + 1) * sizeof(*n));
    if (n == NULL) return NULL;
    heaps = n;
    heaps[num_heaps] = (isa_heap_t){root, NULL, 0, 0};
    return &heaps[num_heaps++];
}

bool heap_alloc(sim_device_t *root, uint64_t size, uint64_t *va) {
    bool ok = false;
    pthread_mutex_lock(&heap_lock);
    isa_heap_t *h = heap_for(root);
    if (h != NULL && h->n == h->cap) {
        size_t nc = h->cap ? h->cap * 2 : 16;
        isa_range_t *nu = realloc(h->used, nc * sizeof(*nu));
        if (nu == NULL) h = NULL;
        else {
            h->used = nu;
            h->cap = nc;
        }
    }
    if (h != NULL) {
        uint64_t cur = ISA_WINDOW_BASE;
        size_t i;
        for (i = 0; i < h->n; i++) {
            if (align_up(cur, ISA_MODULE_ALIGN) + size <= h->used[i].start) break;
            cur = h->used[i].start + h->used[i].size;
        }
        uint64_t start = align_up(cur, ISA_MODULE_ALIGN);
        if (start + size <= ISA_WINDOW_END && start + size > start) {
            memmove(&h->used[i + 1], &h->used[i], (h->n - i) * sizeof(isa_range_t));
            h->used[i] = (isa_range_t){start, size};
            h->n++;
            *va = start;
            ok = true;
        }
    }
    pthread_mutex_unlock(&heap_lock);
    return ok;
}

void heap_free(sim_device_t *root, uint64_t va) {
    pthread_mutex_lock(&heap_lock);
    isa_heap_t *h = heap_for(root);
    for (size_t i = 0; h != NULL && i < h->n; i++) {
        if (h->used[i].start == va) {
            memmove(&h->used[i], &h->used[i + 1], (h->n - i - 1) * sizeof(isa_range_t));
            h->n--;
            break;
        }
    }
    pthread_mutex_unlock(&heap_lock);
}
