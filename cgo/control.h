/*
 * control.h — runtime start/stop: the toggle signal and the state of
 * control calls made before zestall became active. Declarations only (see
 * layer.h for why). The public C API (zestall_start/stop/flush) is declared
 * for applications in layer/zestall.h.
 */
#ifndef ZESTALL_CGO_CONTROL_H
#define ZESTALL_CGO_CONTROL_H

#include <stdint.h>

#include "abi.h" /* ZC_OP_*: the requests of the control API to Go */

/* Installs the toggle signal's handler unless the application has one.
 * Returns 1 when installed, 0 when the application handles the signal
 * (nothing changed), -1 when sigaction failed. */
int zc_install_signal(int sig);
/* Signals received so far and the host ns of the last one. */
uint64_t zc_signal_count(uint64_t *last_ns);
/* A zestall_start()/zestall_stop() call made before activation: 0 none,
 * 1 start, 2 stop (the last one wins). */
int zc_early_request(void);

#endif
