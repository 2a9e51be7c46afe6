/*
 * module_module.c — modules and build logs: zeModuleCreate (native and
 * SPIR-V), native binaries, kernel names, globals, destruction, and
 * zetModuleGetDebugInfo.
 */
#include "module.h"

static atomic_uint_fast64_t next_module_id = 1;

/* ================================================================== */
/* Build logs                                                          */
/* ================================================================== */

static ze_module_build_log_handle_t buildlog_new(const char *text) {
    sim_buildlog_t *b = calloc(1, sizeof(*b));
    if (b == NULL) return NULL;
    sim_obj_init(&b->obj, SIM_K_BUILDLOG);
    b->text = strdup(text ? text : "");
    if (b->text == NULL) {
        free(b);
        return NULL;
    }
    return (ze_module_build_log_handle_t)b;
}

static ze_result_t ZE_APICALL sim_zeModuleBuildLogDestroy(ze_module_build_log_handle_t h) {
    sim_buildlog_t *b = SIM_OBJ(sim_buildlog_t, h, SIM_K_BUILDLOG);
    if (b == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&b->obj);
    free(b->text);
    free(b);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleBuildLogGetString(ze_module_build_log_handle_t h, size_t *pSize,
                                                            char *pBuildLog) {
    sim_buildlog_t *b = SIM_OBJ(sim_buildlog_t, h, SIM_K_BUILDLOG);
    if (b == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(b->text) + 1;
    if (pBuildLog == NULL) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pBuildLog, b->text, n - 1);
    pBuildLog[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Modules                                                             */
/* ================================================================== */

mod_priv_t *mod_of(ze_module_handle_t h) { return SIM_OBJ(mod_priv_t, h, SIM_K_MODULE); }
kern_priv_t *kern_of(ze_kernel_handle_t h) { return SIM_OBJ(kern_priv_t, h, SIM_K_KERNEL); }

static uint32_t root_index(sim_device_t *dev) { return sim_root(dev)->index; }

/* Frees the module's memory; the ISA range was released at destroy. */
void mod_release(mod_priv_t *mp) {
    if (atomic_fetch_sub(&mp->refs, 1) != 1) return;
    for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
        free(mp->kinfo[i].name);
        free(mp->kinfo[i].args);
        sim_isa_unref(mp->kinfo[i].isa);
    }
    free(mp->kinfo);
    free(mp->m.kernels);
    free(mp->m.native);
    free(mp->global_data);
    free(mp->debug_zebin);
    pthread_mutex_destroy(&mp->lock);
    free(mp);
}

static bool is_kernel_section(const elf_sec_t *s) {
    return strncmp(s->name, ".text.", 6) == 0 && s->name[6] != '\0' &&
           strcmp(s->name, ".text.Intel_Symbol_Table_Void_Program") != 0 && s->type != SHT_NOBITS_;
}

/* Builds the module from a zebin it takes ownership of. */
static ze_result_t module_from_zebin(sim_context_t *ctx, sim_device_t *dev, uint8_t *bin, size_t size,
                                     mod_priv_t **out, growbuf_t *log) {
    char err[160] = "";
    zebin_t z;
    ze_result_t r = zebin_parse(bin, size, &z, err, sizeof(err));
    if (r != ZE_RESULT_SUCCESS) {
        gb_str(log, "zesim: invalid native binary: ");
        gb_str(log, err);
        gb_str(log, "\n");
        free(bin);
        return r;
    }
    /* Debian's IGC cannot target Xe2, so PVC zebins are accepted on every
     * model; DG2 and BMG ones too. A real driver would reject a foreign product. */
    if (z.product_family != 0 && z.product_family != IGFX_PVC && z.product_family != IGFX_DG2 &&
        z.product_family != IGFX_BMG) {
        snprintf(err, sizeof(err), "zesim: zebin is for product family 0x%x, not PVC/DG2/BMG\n", z.product_family);
        gb_str(log, err);
        zebin_free(&z);
        free(bin);
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    mod_priv_t *mp = calloc(1, sizeof(*mp));
    if (mp == NULL) {
        zebin_free(&z);
        free(bin);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sim_obj_init(&mp->m.obj, SIM_K_MODULE);
    atomic_init(&mp->refs, 1);
    atomic_init(&mp->m.live_kernels, 0);
    pthread_mutex_init(&mp->lock, NULL);
    mp->m.context = ctx;
    mp->m.device = dev;
    mp->m.native = bin;
    mp->m.native_size = size;
    mp->module_id = atomic_fetch_add(&next_module_id, 1);

    uint32_t nk = 0;
    for (uint32_t i = 1; i < z.nsec; i++) nk += is_kernel_section(&z.sec[i]);
    mp->kinfo = calloc(nk ? nk : 1, sizeof(kinfo_t));
    mp->m.kernels = calloc(nk ? nk : 1, sizeof(sim_isa_t *));
    r = (mp->kinfo && mp->m.kernels) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 1; r == ZE_RESULT_SUCCESS && i < z.nsec; i++) {
        if (!is_kernel_section(&z.sec[i])) continue;
        kinfo_t *k = &mp->kinfo[mp->m.num_kernels];
        k->name = strdup(z.sec[i].name + 6);
        k->shndx = i;
        k->simd = sim_cfg.simd_width;
        if (k->name == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        else {
            size_t code = kernel_code_size(&z, i, k->name);
            k->isa = isa_new(k->name, bin + z.sec[i].off, (size_t)z.sec[i].size, code);
            if (k->isa == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        mp->m.kernels[mp->m.num_kernels] = k->isa;
        mp->m.num_kernels++;
    }
    for (uint32_t i = 1; r == ZE_RESULT_SUCCESS && i < z.nsec; i++) {
        if (z.sec[i].type == SHT_ZEBIN_ZEINFO || strcmp(z.sec[i].name, ".ze_info") == 0)
            zeinfo_parse((const char *)bin + z.sec[i].off, (size_t)z.sec[i].size, mp->kinfo, mp->m.num_kernels);
        if (strcmp(z.sec[i].name, ".data.global") == 0 && z.sec[i].size > 0 && z.sec[i].size < (1ull << 32)) {
            mp->global_data = calloc(1, (size_t)z.sec[i].size);
            if (mp->global_data && z.sec[i].type != SHT_NOBITS_)
                memcpy(mp->global_data, bin + z.sec[i].off, (size_t)z.sec[i].size);
            mp->global_size = mp->global_data ? (size_t)z.sec[i].size : 0;
            mp->global_shndx = i;
        }
    }
    zebin_free(&z);
    if (r == ZE_RESULT_SUCCESS) {
        /* ISA placement: kernels back to back, 64-byte aligned, plus tail padding. */
        uint64_t total = 0;
        for (uint32_t i = 0; i < mp->m.num_kernels; i++) total = align_up(total, ISA_KERNEL_ALIGN) + mp->kinfo[i].isa->size;
        total = align_up(total, ISA_KERNEL_ALIGN) + ISA_TAIL_PADDING;
        if (!heap_alloc(sim_root(dev), total, &mp->m.isa_va)) {
            gb_str(log, "zesim: instruction heap exhausted\n");
            r = ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
        } else {
            mp->m.isa_alloc_size = total;
            uint64_t off = 0;
            for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
                off = align_up(off, ISA_KERNEL_ALIGN);
                mp->kinfo[i].isa->gpu_va = mp->m.isa_va + off;
                off += mp->kinfo[i].isa->size;
            }
        }
    }
    if (r != ZE_RESULT_SUCCESS) {
        sim_obj_kill(&mp->m.obj);
        mod_release(mp);
        return r;
    }
    *out = mp;
    return ZE_RESULT_SUCCESS;
}

static void gt_module_event(mod_priv_t *mp, const char *event) {
    if (!sim_gt_enabled()) return;
    uint64_t now = sim_now_ns();
    uint32_t dev = root_index(mp->m.device);
    sim_gt_printf("{\"type\":\"module\",\"event\":\"%s\",\"module\":%llu,\"device\":%u,\"base\":%llu,\"size\":%llu,"
                  "\"num_kernels\":%u,\"time_ns\":%llu}",
                  event, (unsigned long long)mp->module_id, dev, (unsigned long long)mp->m.isa_va,
                  (unsigned long long)mp->m.isa_alloc_size, mp->m.num_kernels, (unsigned long long)now);
    for (uint32_t i = 0; i < mp->m.num_kernels; i++) {
        const sim_isa_t *isa = mp->kinfo[i].isa;
        char name[512];
        sim_gt_printf("{\"type\":\"kernel\",\"event\":\"%s\",\"kernel\":%llu,\"name\":\"%s\",\"base\":%llu,"
                      "\"size\":%llu,\"code_size\":%llu,\"num_insts\":%u,\"module\":%llu,\"device\":%u,\"time_ns\":%llu}",
                      event, (unsigned long long)isa->kernel_id, sim_json_str(isa->kernel_name, name, sizeof(name)),
                      (unsigned long long)isa->gpu_va, (unsigned long long)isa->size,
                      (unsigned long long)isa->code_size, isa->num_insts, (unsigned long long)mp->module_id, dev,
                      (unsigned long long)now);
    }
}

static ze_result_t ZE_APICALL sim_zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                 const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                                                 ze_module_build_log_handle_t *phBuildLog) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phModule == NULL || desc->pInputModule == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (phBuildLog) *phBuildLog = NULL;
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV && desc->format != ZE_MODULE_FORMAT_NATIVE)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->inputSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    growbuf_t log = {0};
    gb_str(&log, "");
    ze_result_t r = ZE_RESULT_SUCCESS;
    uint8_t *bin = NULL;
    size_t size = 0;
    if (desc->pConstants != NULL && desc->pConstants->numConstants > 0) {
        gb_str(&log, "zesim: specialization constants are not supported\n");
        r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    } else if (desc->format == ZE_MODULE_FORMAT_IL_SPIRV) {
        r = compile_spirv(desc->pInputModule, desc->inputSize, desc->pBuildFlags, &bin, &size, &log);
    } else {
        bin = malloc(desc->inputSize);
        if (bin == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        else {
            memcpy(bin, desc->pInputModule, desc->inputSize);
            size = desc->inputSize;
        }
    }
    mod_priv_t *mp = NULL;
    if (r == ZE_RESULT_SUCCESS) r = module_from_zebin(ctx, dev, bin, size, &mp, &log);
    else free(bin);
    if (phBuildLog) *phBuildLog = buildlog_new(log.s);
    sim_log("zeModuleCreate(%s, %zu bytes) -> 0x%x%s%s", desc->format == ZE_MODULE_FORMAT_NATIVE ? "native" : "spirv",
            desc->inputSize, (unsigned)r, log.s && *log.s ? ": " : "", log.s ? log.s : "");
    free(log.s);
    if (r != ZE_RESULT_SUCCESS) return r;
    gt_module_event(mp, "create");
    *phModule = (ze_module_handle_t)mp;
    return ZE_RESULT_SUCCESS;
}

/* Like Intel's driver, destroying a module with live kernels succeeds.
 * The kernels stay usable (they hold references); the ISA range is
 * released now and may be reused by the next module. */
static ze_result_t ZE_APICALL sim_zeModuleDestroy(ze_module_handle_t hModule) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&mp->m.obj);
    gt_module_event(mp, "destroy");
    heap_free(sim_root(mp->m.device), mp->m.isa_va);
    mod_release(mp);
    sim_destroy_pause();
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                                      ze_module_build_log_handle_t *phLinkLog) {
    if (numModules > 0 && phModules == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numModules; i++)
        if (mod_of(phModules[i]) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phLinkLog) *phLinkLog = buildlog_new(""); /* no imports: nothing to link */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                                          uint8_t *pModuleNativeBinary) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pModuleNativeBinary == NULL) {
        *pSize = mp->m.native_size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < mp->m.native_size) return ZE_RESULT_ERROR_INVALID_SIZE;
    memcpy(pModuleNativeBinary, mp->m.native, mp->m.native_size);
    *pSize = mp->m.native_size;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName,
                                                           size_t *pSize, void **pptr) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pGlobalName == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (mp->global_data == NULL) return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    zebin_t z;
    char err[64];
    if (zebin_parse(mp->m.native, mp->m.native_size, &z, err, sizeof(err)) != ZE_RESULT_SUCCESS)
        return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    ze_result_t r = ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    for (uint32_t i = 1; i < z.nsec && r != ZE_RESULT_SUCCESS; i++) {
        if (z.sec[i].type != SHT_SYMTAB_ || z.sec[i].entsize != 24) continue;
        for (uint64_t o = 0; o + 24 <= z.sec[i].size; o += 24) {
            const uint8_t *sym = z.data + z.sec[i].off + o;
            if ((sym[4] & 0xf) != STT_OBJECT_ || rd16(sym + 6) != mp->global_shndx) continue;
            const char *sn = elf_str(&z, z.sec[i].link, rd32(sym));
            uint64_t val = rd64(sym + 8), sz = rd64(sym + 16);
            if (sn && strcmp(sn, pGlobalName) == 0 && val <= mp->global_size && sz <= mp->global_size - val) {
                if (pSize) *pSize = (size_t)sz;
                if (pptr) *pptr = mp->global_data + val;
                r = ZE_RESULT_SUCCESS;
                break;
            }
        }
    }
    zebin_free(&z);
    return r;
}

static ze_result_t ZE_APICALL sim_zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                                         const char **pNames) {
    mod_priv_t *mp = mod_of(hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || pNames == NULL) {
        *pCount = mp->m.num_kernels;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > mp->m.num_kernels) *pCount = mp->m.num_kernels;
    for (uint32_t i = 0; i < *pCount; i++) pNames[i] = mp->kinfo[i].name;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t *p) {
    if (mod_of(hModule) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no unresolved imports */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName,
                                                             void **pfnFunction) {
    (void)pFunctionName;
    (void)pfnFunction;
    return mod_of(hModule) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* zetModuleGetDebugInfo: format ignored, like Intel's driver. */
static ze_result_t ZE_APICALL sim_zetModuleGetDebugInfo(zet_module_handle_t hModule,
                                                        zet_module_debug_info_format_t format, size_t *pSize,
                                                        uint8_t *pDebugInfo) {
    (void)format;
    mod_priv_t *mp = mod_of((ze_module_handle_t)hModule);
    if (mp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&mp->lock);
    if (mp->debug_zebin == NULL) {
        uint32_t n = mp->m.num_kernels;
        const char **names = calloc(n ? n : 1, sizeof(char *));
        uint64_t *vas = calloc(n ? n : 1, sizeof(uint64_t));
        char err[256] = "";
        if (names == NULL || vas == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < n; i++) {
            names[i] = mp->kinfo[i].name;
            vas[i] = mp->kinfo[i].isa->gpu_va;
        }
        if (r == ZE_RESULT_SUCCESS &&
            sim_debug_zebin_build(mp->m.native, mp->m.native_size, n, names, vas, &mp->debug_zebin, &mp->debug_size,
                                  err, sizeof(err)) != 0) {
            sim_log("zetModuleGetDebugInfo: %s", err);
            mp->debug_zebin = NULL;
            r = ZE_RESULT_ERROR_UNKNOWN;
        }
        free(names);
        free(vas);
    }
    if (r == ZE_RESULT_SUCCESS) {
        if (pDebugInfo == NULL) *pSize = mp->debug_size;
        else if (*pSize < mp->debug_size) r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        else {
            memcpy(pDebugInfo, mp->debug_zebin, mp->debug_size);
            *pSize = mp->debug_size;
        }
    }
    pthread_mutex_unlock(&mp->lock);
    return r;
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    memset(t, 0, sizeof(*t));
    t->pfnCreate = sim_zeModuleCreate;
    t->pfnDestroy = sim_zeModuleDestroy;
    t->pfnDynamicLink = sim_zeModuleDynamicLink;
    t->pfnGetNativeBinary = sim_zeModuleGetNativeBinary;
    t->pfnGetGlobalPointer = sim_zeModuleGetGlobalPointer;
    t->pfnGetKernelNames = sim_zeModuleGetKernelNames;
    t->pfnGetProperties = sim_zeModuleGetProperties;
    t->pfnGetFunctionPointer = sim_zeModuleGetFunctionPointer;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetModuleBuildLogProcAddrTable(ze_api_version_t version,
                                                                   ze_module_build_log_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnDestroy = sim_zeModuleBuildLogDestroy;
    t->pfnGetString = sim_zeModuleBuildLogGetString;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGetDebugInfo = sim_zetModuleGetDebugInfo;
    return ZE_RESULT_SUCCESS;
}
