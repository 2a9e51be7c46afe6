/*
 * core_mem.c — memory allocations: host, device and shared allocations
 * (real host memory), the sorted table that finds interior pointers,
 * allocation properties and address ranges.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    ze_memory_type_t type;
    sim_device_t *dev;
    uint64_t id;
} sim_alloc_t;

/* Sorted by base; binary search finds interior pointers. */
static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
static sim_alloc_t *mem_tab;
static size_t mem_n, mem_cap;
static uint64_t mem_next_id = 1;

/* Index of the last allocation with base <= p, or (size_t)-1. Lock held. */
static size_t mem_find_le(uintptr_t p) {
    size_t lo = 0, hi = mem_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mem_tab[mid].base <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo == 0 ? (size_t)-1 : lo - 1;
}

static const sim_alloc_t *mem_find(const void *ptr) {
    uintptr_t p = (uintptr_t)ptr;
    size_t i = mem_find_le(p);
    if (i == (size_t)-1) return NULL;
    if (p - mem_tab[i].base >= mem_tab[i].size) return NULL;
    return &mem_tab[i];
}

bool sim_mem_lookup(const void *ptr, size_t *size, ze_memory_type_t *type, sim_device_t **dev) {
    bool found = false;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a != NULL) {
        found = true;
        if (size) *size = a->size - ((uintptr_t)ptr - a->base);
        if (type) *type = a->type;
        if (dev) *dev = a->dev;
    }
    pthread_rwlock_unlock(&mem_lock);
    return found;
}

static ze_result_t mem_register(void *p, size_t size, ze_memory_type_t type, sim_device_t *dev) {
    pthread_rwlock_wrlock(&mem_lock);
    if (mem_n == mem_cap) {
        size_t nc = mem_cap ? mem_cap * 2 : 64;
        sim_alloc_t *n = realloc(mem_tab, nc * sizeof(*n));
        if (n == NULL) {
            pthread_rwlock_unlock(&mem_lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        mem_tab = n;
        mem_cap = nc;
    }
    size_t i = mem_find_le((uintptr_t)p) + 1; /* (size_t)-1 + 1 == 0 */
    memmove(&mem_tab[i + 1], &mem_tab[i], (mem_n - i) * sizeof(*mem_tab));
    mem_tab[i] = (sim_alloc_t){(uintptr_t)p, size, type, dev, mem_next_id++};
    mem_n++;
    pthread_rwlock_unlock(&mem_lock);
    return ZE_RESULT_SUCCESS;
}

/* Relaxed limits (ZE_experimental_relaxed_allocation_limits) in a pNext chain. */
static bool relaxed_max_size(const void *pNext) {
    for (const sim_base_desc_t *e = pNext; e != NULL; e = e->pNext)
        if (e->stype == ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC &&
            (((const ze_relaxed_allocation_limits_exp_desc_t *)e)->flags & ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE))
            return true;
    return false;
}

static ze_result_t mem_alloc(ze_memory_type_t type, sim_device_t *dev, const void *pNext1, const void *pNext2,
                             size_t size, size_t alignment, void **pptr) {
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && (alignment & (alignment - 1)) != 0) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    uint64_t limit = sim_model->mem_per_tile * (dev ? dev_tiles(dev) : sim_cfg.tiles);
    if (size > limit && !relaxed_max_size(pNext1) && !relaxed_max_size(pNext2)) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    /* Real host memory: at least 64-byte (cache-line) aligned, like a GPU allocation. */
    size_t align = alignment < 64 ? 64 : alignment;
    void *p = NULL;
    if (posix_memalign(&p, align, size) != 0 || p == NULL)
        return type == ZE_MEMORY_TYPE_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    ze_result_t r = mem_register(p, size, type, dev);
    if (r != ZE_RESULT_SUCCESS) {
        free(p);
        return r;
    }
    *pptr = p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemAllocShared(ze_context_handle_t hContext,
                                                   const ze_device_mem_alloc_desc_t *device_desc,
                                                   const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                                   size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_device_t *dev = NULL;
    if (hDevice != NULL && (dev = dev_of(hDevice)) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (device_desc == NULL || host_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_SHARED, dev, device_desc->pNext, host_desc->pNext, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemAllocDevice(ze_context_handle_t hContext,
                                                   const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                                                   size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_device_t *dev = dev_of(hDevice);
    if (dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (device_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_DEVICE, dev, device_desc->pNext, NULL, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc,
                                                 size_t size, size_t alignment, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (host_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_HOST, NULL, host_desc->pNext, NULL, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemFree(ze_context_handle_t hContext, void *ptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_rwlock_wrlock(&mem_lock);
    size_t i = mem_find_le((uintptr_t)ptr);
    if (i == (size_t)-1 || mem_tab[i].base != (uintptr_t)ptr) {
        pthread_rwlock_unlock(&mem_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* not the start of an allocation */
    }
    memmove(&mem_tab[i], &mem_tab[i + 1], (mem_n - i - 1) * sizeof(*mem_tab));
    mem_n--;
    pthread_rwlock_unlock(&mem_lock);
    free(ptr);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemFreeExt(ze_context_handle_t hContext, const ze_memory_free_ext_desc_t *desc,
                                               void *ptr) {
    if (desc == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return sim_zeMemFree(hContext, ptr); /* every policy frees at once: nothing runs concurrently on host memory */
}

static ze_result_t ZE_APICALL sim_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                                          ze_memory_allocation_properties_t *p,
                                                          ze_device_handle_t *phDevice) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL || p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a == NULL) {
        p->type = ZE_MEMORY_TYPE_UNKNOWN;
        p->id = 0;
        p->pageSize = 0;
        if (phDevice) *phDevice = NULL;
    } else {
        p->type = a->type;
        p->id = a->id;
        p->pageSize = a->type == ZE_MEMORY_TYPE_HOST ? 4096 : (a->size >= (2u << 20) ? (2u << 20) : 65536);
        if (phDevice) *phDevice = (ze_device_handle_t)a->dev;
    }
    pthread_rwlock_unlock(&mem_lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase,
                                                       size_t *pSize) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a == NULL) {
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    } else {
        if (pBase) *pBase = (void *)a->base;
        if (pSize) *pSize = a->size;
    }
    pthread_rwlock_unlock(&mem_lock);
    return r;
}

static ze_result_t ZE_APICALL sim_zeMemGetIpcHandle(ze_context_handle_t hContext, const void *ptr,
                                                    ze_ipc_mem_handle_t *pIpcHandle) {
    (void)ptr;
    (void)pIpcHandle;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeMemOpenIpcHandle(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                     ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags,
                                                     void **pptr) {
    (void)hDevice;
    (void)handle;
    (void)flags;
    (void)pptr;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeMemCloseIpcHandle(ze_context_handle_t hContext, const void *ptr) {
    (void)ptr;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnAllocShared = sim_zeMemAllocShared;
    t->pfnAllocDevice = sim_zeMemAllocDevice;
    t->pfnAllocHost = sim_zeMemAllocHost;
    t->pfnFree = sim_zeMemFree;
    t->pfnGetAllocProperties = sim_zeMemGetAllocProperties;
    t->pfnGetAddressRange = sim_zeMemGetAddressRange;
    t->pfnGetIpcHandle = sim_zeMemGetIpcHandle;
    t->pfnOpenIpcHandle = sim_zeMemOpenIpcHandle;
    t->pfnCloseIpcHandle = sim_zeMemCloseIpcHandle;
    t->pfnFreeExt = sim_zeMemFreeExt;
    return ZE_RESULT_SUCCESS;
}
