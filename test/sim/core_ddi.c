/*
 * core_ddi.c — the DDI getters of tables with nothing simulated (images,
 * samplers, virtual/physical memory, fabric, debugger, API tracing,
 * Sysman): the loader requires them (docs/level-zero-loader.md §3.1
 * "Mandatory DDI getters (46)") and turns their NULL entries into
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; and Sysman's one implemented call,
 * zesDeviceProcessesGetState.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <string.h>

/* Tables with nothing simulated: every entry NULL, so the loader answers
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. */
#define SIM_EMPTY_GETTER(fn, type) \
    SIM_EXPORT ze_result_t ZE_APICALL fn(ze_api_version_t version, type *t) { \
        SIM_DDI_TABLE_CHECK(version, t); \
        memset(t, 0, sizeof(*t)); \
        return ZE_RESULT_SUCCESS; \
    }

SIM_EMPTY_GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t)
SIM_EMPTY_GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
SIM_EMPTY_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
SIM_EMPTY_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
SIM_EMPTY_GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
SIM_EMPTY_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t)
SIM_EMPTY_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
/* Sysman: only zesDeviceProcessesGetState (which processes use a device;
 * zestall's hint that samples may come from another process). It accepts
 * core device handles, as Intel's driver does with ZES_ENABLE_SYSMAN=1. */
static ze_result_t ZE_APICALL sim_zesDeviceProcessesGetState(zes_device_handle_t hDevice, uint32_t *pCount,
                                                             zes_process_state_t *pProcesses) {
    sim_device_t *d = dev_of((ze_device_handle_t)hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Intel's driver serves core handles only with ZES_ENABLE_SYSMAN=1 set
     * at its initialisation (zesInit, Sysman's own handles, is not simulated). */
    if (!sim_cfg.sysman_core) return ZE_RESULT_ERROR_UNINITIALIZED;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    enum { CAP = 256 };
    uint32_t pids[CAP], launched[CAP], n = 0;
    uint32_t ntiles = d->num_subdevices ? d->num_subdevices : 1;
    for (uint32_t t = 0; t < ntiles; t++) {
        const sim_device_t *leaf = d->num_subdevices ? d->subdevices[t] : d;
        uint32_t p[64], l[64];
        uint32_t k = sim_machine_processes(leaf, p, l, 64);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t j = 0;
            while (j < n && pids[j] != p[i]) j++;
            if (j == n && n < CAP) {
                pids[n] = p[i];
                launched[n++] = l[i];
            } else if (j < n) {
                launched[j] |= l[i];
            }
        }
    }
    /* This process uses the device, machine or not. */
    uint32_t me = sim_machine_pid(), j = 0;
    while (j < n && pids[j] != me) j++;
    if (j == n && n < CAP) {
        pids[n] = me;
        launched[n++] = 1;
    }
    if (*pCount == 0 || pProcesses == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) {
        pProcesses[i].processId = pids[i];
        pProcesses[i].memSize = 0;
        pProcesses[i].sharedSize = 0;
        pProcesses[i].engines = launched[i] ? ZES_ENGINE_TYPE_FLAG_COMPUTE : 0;
    }
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    memset(t, 0, sizeof(*t));
    t->pfnProcessesGetState = sim_zesDeviceProcessesGetState;
    return ZE_RESULT_SUCCESS;
}
SIM_EMPTY_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t)
SIM_EMPTY_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
SIM_EMPTY_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t)
SIM_EMPTY_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
SIM_EMPTY_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t)
SIM_EMPTY_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
SIM_EMPTY_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
SIM_EMPTY_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t)
SIM_EMPTY_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
SIM_EMPTY_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
SIM_EMPTY_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t)
SIM_EMPTY_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t)
SIM_EMPTY_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t)
SIM_EMPTY_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
SIM_EMPTY_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
SIM_EMPTY_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
