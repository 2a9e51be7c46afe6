/*
 * xpti_abi.h — the XPTI interface as the test stand-ins (dispatcher.cpp,
 * sycl_app.c, other_subscriber.c) declare it: the documented ABI of
 * docs/xpti.md §3 "Dispatcher functions a subscriber calls", §4
 * "Enumerations" and §5 "Structures and metadata access", written in C by
 * this project (x86-64 Linux; legacy and current layouts). Nothing here
 * comes from intel/llvm's headers.
 */
#ifndef ZESTALL_TEST_XPTI_ABI_H
#define ZESTALL_TEST_XPTI_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xpti::result_t (docs/xpti.md §4.1) */
#define XPTI_RESULT_SUCCESS 0
#define XPTI_RESULT_FALSE 1
#define XPTI_RESULT_FAIL ((int32_t)0x80004001u)
#define XPTI_RESULT_DUPLICATE ((int32_t)0x80004003u)
#define XPTI_RESULT_NOTFOUND ((int32_t)0x80004004u)
#define XPTI_RESULT_INVALIDARG ((int32_t)0x80004006u)

/* xpti::trace_point_type_t (docs/xpti.md §4.2) */
enum {
    XPTI_GRAPH_CREATE = 2,
    XPTI_NODE_CREATE = 4,
    XPTI_EDGE_CREATE = 6,
    XPTI_TASK_BEGIN = 10,
    XPTI_TASK_END = 11,
    XPTI_BARRIER_BEGIN = 12,
    XPTI_BARRIER_END = 13,
    XPTI_SIGNAL = 16,
    XPTI_WAIT_BEGIN = 22,
    XPTI_WAIT_END = 23,
    XPTI_FUNCTION_WITH_ARGS_BEGIN = 28,
    XPTI_FUNCTION_WITH_ARGS_END = 29,
};

/* trace_event_type_t, metadata_type_t, payload flags (docs/xpti.md §4.3) */
enum { XPTI_EVENT_GRAPH = 1, XPTI_EVENT_ALGORITHM = 2, XPTI_EVENT_BARRIER = 3 };
enum { XPTI_META_BINARY = 0, XPTI_META_STRING = 1, XPTI_META_SIGNED = 2 };
enum {
    XPTI_PF_NAME = 1,
    XPTI_PF_SOURCE = 2,
    XPTI_PF_CODE_PTR = 4,
    XPTI_PF_LINE = 8,
    XPTI_PF_COLUMN = 16,
};

typedef int32_t xpti_string_id_t;
typedef int32_t xpti_object_id_t;

/* payload_t, 80 bytes (docs/xpti.md §5.1) */
typedef struct xpti_payload {
    const char *name;
    const char *stack_trace;
    const char *source_file;
    uint32_t line_no;
    uint32_t column_no;
    const void *code_ptr_va;
    uint64_t internal;
    uint64_t flags;
    uint64_t uid[3];
} xpti_payload_t;

/* trace_event_data_t, legacy prefix (docs/xpti.md §5.2); the stand-in
 * dispatcher keeps its own fields after it, unseen by others. */
typedef struct xpti_event {
    uint64_t unique_id;
    uint64_t data_id;
    uint64_t instance_id;
    uint16_t event_type;
    uint16_t activity_type;
    uint32_t unused;
    int64_t source_id;
    int64_t target_id;
    xpti_payload_t *payload;
} xpti_event_t;

/* object_data_t (docs/xpti.md §5.4) */
typedef struct xpti_object {
    size_t size;
    const char *data;
    uint8_t type;
} xpti_object_t;

typedef void (*xpti_callback_t)(uint16_t trace_type, xpti_event_t *parent, xpti_event_t *event,
                                uint64_t instance, const void *user_data);

/* Subscriber side (docs/xpti.md §3.1) */
uint8_t xptiRegisterStream(const char *stream_name);
int32_t xptiRegisterCallback(uint8_t stream_id, uint16_t trace_type, xpti_callback_t cb);
int32_t xptiUnregisterCallback(uint8_t stream_id, uint16_t trace_type, xpti_callback_t cb);
const xpti_payload_t *xptiQueryPayload(xpti_event_t *e);
void *xptiQueryMetadata(xpti_event_t *e);
const char *xptiLookupString(xpti_string_id_t id);
xpti_string_id_t xptiRegisterString(const char *s, char **table_string);
xpti_object_t xptiLookupObject(xpti_object_id_t id);
int32_t xptiGetStashedTuple(char **key, uint64_t *value);
uint64_t xptiGetUniqueId(void);
bool xptiTraceEnabled(void);
bool xptiCheckTraceEnabled(uint16_t stream, uint16_t ttype);
int32_t xptiNotifySubscribers(uint8_t stream_id, uint16_t trace_type, xpti_event_t *parent, xpti_event_t *event,
                              uint64_t instance, const void *user_data);

/* Producer side (docs/xpti.md §3.3) */
void xptiFrameworkInitialize(void);
void xptiFrameworkFinalize(void);
int32_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min, const char *version);
void xptiFinalize(const char *stream);
xpti_event_t *xptiMakeEvent(const char *name, xpti_payload_t *payload, uint16_t event_type, int activity,
                            uint64_t *instance_no);
int32_t xptiAddMetadata(xpti_event_t *e, const char *key, xpti_object_id_t value_id);
xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type);
int32_t xptiStashTuple(const char *key, uint64_t value);
void xptiUnstashTuple(void);

/* A subscriber's exports (docs/xpti.md §2.1) */
typedef void (*xpti_trace_init_t)(unsigned int major, unsigned int minor, const char *version,
                                  const char *stream);
typedef void (*xpti_trace_finish_t)(const char *stream);

#ifdef __cplusplus
}
#endif

#endif
