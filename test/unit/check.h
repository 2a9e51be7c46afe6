/*
 * check.h — the checks of the C unit tests (test/unit): check() counts a
 * condition as passed or prints why it failed; check_summary() prints the
 * totals and gives the exit status.
 */
#ifndef ZESTALL_TEST_UNIT_CHECK_H
#define ZESTALL_TEST_UNIT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

__attribute__((format(printf, 2, 3))) static void check(bool ok, const char *fmt, ...) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
}

static int check_summary(void) {
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
