/*
 * zestall.h — control zestall from the profiled application.
 *
 *   #include "zestall.h"
 *   zestall_stop();            // e.g. before warm-up
 *   ...
 *   zestall_start();           // profile from here
 *   ...
 *   zestall_stop();
 *   zestall_flush();           // ask for what is collected to reach the file
 *
 * Link nothing: the functions live in libzestall.so, which is preloaded
 * (LD_PRELOAD) only when profiling. This header declares them as weak
 * symbols and wraps each call in a macro that checks the symbol's address,
 * so the very same calls are harmless no-ops, returning -1, when zestall is
 * not loaded. (A weak *definition* in the application would not work: the
 * dynamic linker takes the executable's definition before a preloaded
 * library's.)
 *
 * Return value: 0 when done (or remembered: a call made before the
 * application's first zeInit takes effect when zestall becomes active),
 * -1 when zestall is not loaded or not collecting in this process (tracing
 * layer off, zeInit failed, exiting, or a forked child).
 *
 * zestall_start() and zestall_stop() return after the EU stall streamers
 * were read at the edge: a sample becomes visible to a read up to
 * ZESTALL_STALL_LATENCY (default 20 ms) after it was taken, so a start
 * discards what was taken before it and a stop attributes what the
 * window's launches produced, each waiting that long (bounded: 200 ms more
 * at most). They never wait for file I/O. zestall_flush() returns at once; the writer flushes within
 * milliseconds. All three are safe to call from any thread and are not
 * async-signal-safe (use ZESTALL_TOGGLE_SIGNAL for signals).
 *
 * Python (ctypes): the symbols are visible in the process once preloaded:
 *   import ctypes
 *   z = ctypes.CDLL(None)
 *   start = getattr(z, "zestall_start", None)   # None when not loaded
 *   if start: start()
 */
#ifndef ZESTALL_H
#define ZESTALL_H

#ifdef __cplusplus
extern "C" {
#endif

int zestall_start(void) __attribute__((weak));
int zestall_stop(void) __attribute__((weak));
int zestall_flush(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

/* Function-like macros are not expanded recursively: inside, the names
 * refer to the functions. */
#define zestall_start() (&zestall_start != 0 ? (zestall_start)() : -1)
#define zestall_stop() (&zestall_stop != 0 ? (zestall_stop)() : -1)
#define zestall_flush() (&zestall_flush != 0 ? (zestall_flush)() : -1)

#endif
