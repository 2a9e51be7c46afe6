/*
 * other_subscriber.c — a second XPTI subscriber for the tests: another
 * tool already listed in XPTI_SUBSCRIBERS. It registers task_begin on the
 * streams OTHER_SUBSCRIBER_STREAMS names (comma-separated; default
 * "sycl.debug", which moves the runtime's notifications to that stream:
 * docs/xpti.md §10 "The sycl / sycl.debug routing trap") and, at exit,
 * writes the number of task_begin notifications it received to the file
 * OTHER_SUBSCRIBER_OUT.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti_abi.h"

static atomic_ulong tasks;

static void on_task(uint16_t type, xpti_event_t *parent, xpti_event_t *event, uint64_t instance, const void *ud) {
    (void)type;
    (void)parent;
    (void)event;
    (void)instance;
    (void)ud;
    atomic_fetch_add(&tasks, 1);
}

__attribute__((visibility("default"))) void xptiTraceInit(unsigned int major, unsigned int minor,
                                                          const char *version, const char *stream) {
    (void)major;
    (void)minor;
    (void)version;
    const char *want = getenv("OTHER_SUBSCRIBER_STREAMS");
    if (want == NULL) want = "sycl.debug";
    char buf[256];
    snprintf(buf, sizeof buf, "%s", want);
    char *save = NULL;
    for (char *s = strtok_r(buf, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save))
        if (strcmp(s, stream) == 0) xptiRegisterCallback(xptiRegisterStream(stream), XPTI_TASK_BEGIN, on_task);
}

__attribute__((visibility("default"))) void xptiTraceFinish(const char *stream) { (void)stream; }

__attribute__((destructor)) static void report(void) {
    const char *out = getenv("OTHER_SUBSCRIBER_OUT");
    if (out == NULL) return;
    FILE *f = fopen(out, "w");
    if (f == NULL) return;
    fprintf(f, "%lu\n", (unsigned long)atomic_load(&tasks));
    fclose(f);
}
