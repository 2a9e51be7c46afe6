/*
 * module_kernel.c — kernels: creation, arguments, group sizes,
 * properties, and the kernel-introspection driver extensions
 * (zexKernelGetBaseAddress, zeIntelKernelGetBinaryExp,
 * zexKernelGetArgumentSize).
 */
#include "module.h"

/* ================================================================== */
/* Kernels                                                             */
/* ================================================================== */

static const kinfo_t *kinfo_of(const kern_priv_t *kp) {
    return &((const mod_priv_t *)kp->k.module)->kinfo[kp->kidx];
}

static ze_result_t ZE_APICALL sim_zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                                                 ze_kernel_handle_t *phKernel) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phKernel == NULL || desc->pKernelName == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t idx;
    for (idx = 0; idx < mp->m.num_kernels; idx++)
        if (strcmp(mp->kinfo[idx].name, desc->pKernelName) == 0) break;
    if (idx == mp->m.num_kernels) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    const kinfo_t *ki = &mp->kinfo[idx];
    kern_priv_t *kp = calloc(1, sizeof(*kp));
    if (kp == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_kernel_t *k = &kp->k;
    k->num_args = ki->num_args;
    k->args = calloc(ki->num_args ? ki->num_args : 1, sizeof(sim_kernel_arg_t));
    k->arg_values = calloc(ki->num_args ? ki->num_args : 1, sizeof(uint64_t));
    char attrs[96] = "";
    if (ki->req_wg[0])
        snprintf(attrs, sizeof(attrs), "reqd_work_group_size(%u,%u,%u)", ki->req_wg[0], ki->req_wg[1] ? ki->req_wg[1] : 1,
                 ki->req_wg[2] ? ki->req_wg[2] : 1);
    kp->attrs = strdup(attrs);
    if (k->args == NULL || k->arg_values == NULL || kp->attrs == NULL) {
        free(k->args);
        free(k->arg_values);
        free(kp->attrs);
        free(kp);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (ki->num_args) memcpy(k->args, ki->args, ki->num_args * sizeof(sim_kernel_arg_t));
    sim_obj_init(&k->obj, SIM_K_KERNEL);
    k->module = &mp->m;
    k->isa = sim_isa_ref(ki->isa);
    for (int i = 0; i < 3; i++) k->group_size[i] = ki->req_wg[i] ? ki->req_wg[i] : 1;
    k->simd_size = ki->simd ? ki->simd : sim_cfg.simd_width;
    k->slm_bytes = ki->slm_static;
    k->indirect_flags = 0;
    pthread_mutex_init(&k->lock, NULL);
    kp->kidx = idx;
    atomic_fetch_add(&mp->refs, 1);
    atomic_fetch_add(&mp->m.live_kernels, 1);
    *phKernel = (ze_kernel_handle_t)kp;
    char name[512];
    sim_gt_printf("{\"type\":\"kernel_object\",\"event\":\"create\",\"kernel\":%llu,\"name\":\"%s\",\"base\":%llu,"
                  "\"time_ns\":%llu}",
                  (unsigned long long)ki->isa->kernel_id, sim_json_str(ki->isa->kernel_name, name, sizeof(name)),
                  (unsigned long long)ki->isa->gpu_va, (unsigned long long)sim_now_ns());
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelDestroy(ze_kernel_handle_t hKernel) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_kernel_t *k = &kp->k;
    sim_obj_kill(&k->obj);
    mod_priv_t *mp = (mod_priv_t *)k->module;
    atomic_fetch_sub(&mp->m.live_kernels, 1);
    sim_isa_unref(k->isa);
    pthread_mutex_destroy(&k->lock);
    free(k->args);
    free(k->arg_values);
    free(kp->attrs);
    free(kp);
    mod_release(mp);
    sim_destroy_pause();
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
    if (kern_of(hKernel) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags & ~(ze_cache_config_flags_t)(ZE_CACHE_CONFIG_FLAG_LARGE_SLM | ZE_CACHE_CONFIG_FLAG_LARGE_DATA))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    kern_priv_t *kp = kern_of(hKernel);
    pthread_mutex_lock(&kp->k.lock);
    kp->k.cache_config = flags; /* a hint: no effect on the model, recorded in the ground truth */
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (x == 0 || y == 0 || z == 0 || (uint64_t)x * y * z > 1024) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    const kinfo_t *ki = kinfo_of(kp);
    if (ki->req_wg[0] && (x != ki->req_wg[0] || y != (ki->req_wg[1] ? ki->req_wg[1] : 1) ||
                          z != (ki->req_wg[2] ? ki->req_wg[2] : 1)))
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    pthread_mutex_lock(&kp->k.lock);
    kp->k.group_size[0] = x;
    kp->k.group_size[1] = y;
    kp->k.group_size[2] = z;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static uint32_t largest_divisor_le(uint32_t n, uint32_t limit) {
    if (limit == 0) return 1;
    if (n <= limit) return n;
    for (uint32_t d = limit; d > 1; d--)
        if (n % d == 0) return d;
    return 1;
}

static ze_result_t ZE_APICALL sim_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t gx, uint32_t gy,
                                                           uint32_t gz, uint32_t *sx, uint32_t *sy, uint32_t *sz) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (sx == NULL || sy == NULL || sz == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (gx == 0 || gy == 0 || gz == 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const kinfo_t *ki = kinfo_of(kp);
    if (ki->req_wg[0]) {
        *sx = ki->req_wg[0];
        *sy = ki->req_wg[1] ? ki->req_wg[1] : 1;
        *sz = ki->req_wg[2] ? ki->req_wg[2] : 1;
        return ZE_RESULT_SUCCESS;
    }
    /* Largest sizes that divide the global size, at most 1024 items. */
    *sx = largest_divisor_le(gx, 1024);
    *sy = largest_divisor_le(gy, 1024 / *sx);
    *sz = largest_divisor_le(gz, 1024 / (*sx * *sy));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel,
                                                                          uint32_t *totalGroupCount) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (totalGroupCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&kp->k.lock);
    uint64_t items = (uint64_t)kp->k.group_size[0] * kp->k.group_size[1] * kp->k.group_size[2];
    pthread_mutex_unlock(&kp->k.lock);
    uint64_t simd = kp->k.simd_size ? kp->k.simd_size : 16;
    uint64_t threads_per_group = (items + simd - 1) / simd;
    uint64_t hw_threads = (uint64_t)kp->k.module->device->xecores * sim_cfg.eus_per_xecore * sim_cfg.threads_per_eu;
    uint64_t n = threads_per_group ? hw_threads / threads_per_group : 0;
    *totalGroupCount = (uint32_t)(n ? (n > UINT32_MAX ? UINT32_MAX : n) : 1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                           size_t argSize, const void *pArgValue) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_kernel_t *k = &kp->k;
    if (argIndex >= k->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const sim_kernel_arg_t *a = &k->args[argIndex];
    uint64_t v = 0;
    if (a->is_local) {
        /* SLM argument: the size is the value; no data. */
        if (argSize == 0 || argSize > UINT32_MAX) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        v = argSize;
    } else if (a->is_pointer) {
        if (argSize != sizeof(void *)) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (pArgValue != NULL) memcpy(&v, pArgValue, sizeof(void *));
    } else {
        if (a->size != 0 && argSize != a->size) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (pArgValue == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        memcpy(&v, pArgValue, argSize < 8 ? argSize : 8);
    }
    pthread_mutex_lock(&k->lock);
    k->arg_values[argIndex] = v;
    if (a->is_local) {
        uint64_t slm = kinfo_of(kp)->slm_static;
        for (uint32_t i = 0; i < k->num_args; i++)
            if (k->args[i].is_local) slm += k->arg_values[i];
        k->slm_bytes = slm > UINT32_MAX ? UINT32_MAX : (uint32_t)slm;
    }
    pthread_mutex_unlock(&k->lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                                            ze_kernel_indirect_access_flags_t flags) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags & ~(ze_kernel_indirect_access_flags_t)(ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                     ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                     ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    pthread_mutex_lock(&kp->k.lock);
    kp->k.indirect_flags = flags;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel,
                                                            ze_kernel_indirect_access_flags_t *pFlags) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pFlags == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&kp->k.lock);
    *pFlags = kp->k.indirect_flags;
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize,
                                                              char **pString) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t need = (uint32_t)strlen(kp->attrs) + 1;
    if (*pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    if (pString == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pString == NULL) { /* the string's lifetime is the kernel's */
        *pString = kp->attrs;
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pSize < need ? *pSize : need;
    memcpy(*pString, kp->attrs, n - 1);
    (*pString)[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *p) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const kinfo_t *ki = kinfo_of(kp);
    const mod_priv_t *mp = (const mod_priv_t *)kp->k.module;
    p->numKernelArgs = kp->k.num_args;
    p->requiredGroupSizeX = ki->req_wg[0];
    p->requiredGroupSizeY = ki->req_wg[0] ? (ki->req_wg[1] ? ki->req_wg[1] : 1) : 0;
    p->requiredGroupSizeZ = ki->req_wg[0] ? (ki->req_wg[2] ? ki->req_wg[2] : 1) : 0;
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = ki->req_sg;
    p->maxSubgroupSize = kp->k.simd_size;
    p->maxNumSubgroups = kp->k.simd_size ? 1024 / kp->k.simd_size : 0;
    p->localMemSize = ki->slm_static;
    p->privateMemSize = ki->private_size;
    p->spillMemSize = ki->spill_size;
    uint64_t kid[2] = {sim_hash_str(ki->name), kp->k.isa->kernel_id};
    uint64_t mid[2] = {sim_mix64(mp->module_id), mp->module_id};
    memcpy(p->uuid.kid, kid, sizeof(p->uuid.kid) < sizeof(kid) ? sizeof(p->uuid.kid) : sizeof(kid));
    memcpy(p->uuid.mid, mid, sizeof(p->uuid.mid) < sizeof(mid) ? sizeof(p->uuid.mid) : sizeof(mid));
    for (sim_base_desc_t *e = (sim_base_desc_t *)p->pNext; e != NULL; e = (sim_base_desc_t *)e->pNext) {
        if (e->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)e)->preferredMultiple = kp->k.simd_size;
        else if ((uint32_t)e->stype == ZEX_STRUCTURE_KERNEL_REGISTER_FILE_SIZE_EXP)
            /* Intel's zex_kernel_register_file_size_exp_t: the GRF count
             * the kernel was compiled for (.ze_info grf_count), 128 when
             * the zebin does not say (the hardware's default mode). */
            ((zex_kernel_register_file_size_exp_t *)e)->registerFileSize = ki->grf_count ? ki->grf_count : 128;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const char *name = kp->k.isa->kernel_name;
    size_t need = strlen(name) + 1;
    if (pName == NULL || *pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pName, name, n - 1);
    pName[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y,
                                                             uint32_t z) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&kp->k.lock);
    kp->global_offset[0] = x;
    kp->global_offset[1] = y;
    kp->global_offset[2] = z;
    memcpy(kp->k.global_offset, kp->global_offset, sizeof kp->k.global_offset);
    pthread_mutex_unlock(&kp->k.lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetKernelGetProfileInfo(zet_kernel_handle_t hKernel, zet_profile_properties_t *p) {
    if (kern_of((ze_kernel_handle_t)hKernel) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no instrumentation */
    p->numTokens = 0;
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Driver extensions (zeDriverGetExtensionFunctionAddress)             */
/* ================================================================== */

/* Full decanonized 64-bit VA; NULL output ignored, like Intel's. */
static ze_result_t ZE_APICALL sim_zexKernelGetBaseAddress(ze_kernel_handle_t hKernel, uint64_t *baseAddress) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (baseAddress != NULL) *baseAddress = kp->k.isa->gpu_va;
    return ZE_RESULT_SUCCESS;
}

/* Raw ISA including IGC's padding; copies min(*pSize, size) bytes. */
static ze_result_t ZE_APICALL sim_zeIntelKernelGetBinaryExp(ze_kernel_handle_t hKernel, size_t *pSize,
                                                            char *pKernelBinary) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const sim_isa_t *isa = kp->k.isa;
    if (pKernelBinary == NULL) {
        *pSize = isa->size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize > isa->size) *pSize = isa->size;
    memcpy(pKernelBinary, isa->bytes, *pSize);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zexKernelGetArgumentSize(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                           uint32_t *pArgSize) {
    kern_priv_t *kp = kern_of(hKernel);
    if (kp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pArgSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (argIndex >= kp->k.num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    *pArgSize = kp->k.args[argIndex].size;
    return ZE_RESULT_SUCCESS;
}

void *sim_module_extension(const char *name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "zexKernelGetBaseAddress") == 0) return (void *)sim_zexKernelGetBaseAddress;
    if (strcmp(name, "zeIntelKernelGetBinaryExp") == 0) return (void *)sim_zeIntelKernelGetBinaryExp;
    if (strcmp(name, "zexKernelGetArgumentSize") == 0) return (void *)sim_zexKernelGetArgumentSize;
    return NULL;
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeKernelCreate;
    t->pfnDestroy = sim_zeKernelDestroy;
    t->pfnSetCacheConfig = sim_zeKernelSetCacheConfig;
    t->pfnSetGroupSize = sim_zeKernelSetGroupSize;
    t->pfnSuggestGroupSize = sim_zeKernelSuggestGroupSize;
    t->pfnSuggestMaxCooperativeGroupCount = sim_zeKernelSuggestMaxCooperativeGroupCount;
    t->pfnSetArgumentValue = sim_zeKernelSetArgumentValue;
    t->pfnSetIndirectAccess = sim_zeKernelSetIndirectAccess;
    t->pfnGetIndirectAccess = sim_zeKernelGetIndirectAccess;
    t->pfnGetSourceAttributes = sim_zeKernelGetSourceAttributes;
    t->pfnGetProperties = sim_zeKernelGetProperties;
    t->pfnGetName = sim_zeKernelGetName;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnSetGlobalOffsetExp = sim_zeKernelSetGlobalOffsetExp;
    t->pfnSchedulingHintExp = NULL;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGetProfileInfo = sim_zetKernelGetProfileInfo;
    return ZE_RESULT_SUCCESS;
}
