/*
 * core_context.c — contexts: create, destroy, status; barriers and residency
 * calls (accepted, nothing to do).
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <stdlib.h>

static ze_result_t ZE_APICALL sim_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                                    uint32_t numDevices, ze_device_handle_t *phDevices,
                                                    ze_context_handle_t *phContext) {
    sim_driver_t *drv = drv_of(hDriver);
    if (drv == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phContext == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numDevices > 0 && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++)
        if (dev_of(phDevices[i]) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_context_t *c = calloc(1, sizeof(*c));
    if (c == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&c->obj, SIM_K_CONTEXT);
    c->driver = drv;
    *phContext = (ze_context_handle_t)c;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                                  ze_context_handle_t *phContext) {
    return sim_zeContextCreateEx(hDriver, desc, 0, NULL, phContext);
}

static ze_result_t ZE_APICALL sim_zeContextDestroy(ze_context_handle_t hContext) {
    sim_context_t *c = ctx_of(hContext);
    if (c == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Drop the context's metric-group activations before its address can
     * be reused by a new context. */
    sim_metrics_context_destroy(c);
    sim_obj_kill(&c->obj);
    free(c);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextGetStatus(ze_context_handle_t hContext) {
    return ctx_of(hContext) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                              void *ptr, size_t size) {
    (void)size;
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                       void *ptr, size_t size) {
    return sim_zeContextMakeMemoryResident(hContext, hDevice, ptr, size);
}

static ze_result_t ZE_APICALL sim_zeContextMakeImageResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                             ze_image_handle_t hImage) {
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL || hImage == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextEvictImage(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                      ze_image_handle_t hImage) {
    return sim_zeContextMakeImageResident(hContext, hDevice, hImage);
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeContextCreate;
    t->pfnDestroy = sim_zeContextDestroy;
    t->pfnGetStatus = sim_zeContextGetStatus;
    t->pfnSystemBarrier = sim_zeContextSystemBarrier;
    t->pfnMakeMemoryResident = sim_zeContextMakeMemoryResident;
    t->pfnEvictMemory = sim_zeContextEvictMemory;
    t->pfnMakeImageResident = sim_zeContextMakeImageResident;
    t->pfnEvictImage = sim_zeContextEvictImage;
    t->pfnCreateEx = sim_zeContextCreateEx;
    return ZE_RESULT_SUCCESS;
}
