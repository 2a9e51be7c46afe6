/*
 * zestall-bench-rusage FILE COMMAND [ARG...]: runs COMMAND as a child,
 * waits for it, writes "maxrss_kib utime_us stime_us" of the child to FILE
 * and exits with the child's status (128 + signal if it was killed).
 *
 * Why not wait4 from the benchmark script directly: Linux records the
 * high-water RSS of the memory image a process replaces at execve into its
 * ru_maxrss, and a child forked (or vforked) by a Python interpreter
 * starts from the interpreter's image (~15 MiB), more than bench_launch
 * needs. This helper is small, so what it reports is the command's own
 * peak (plus at most this helper's ~1 MiB).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: zestall-bench-rusage FILE COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("zestall-bench-rusage: fork");
        return 2;
    }
    if (pid == 0) {
        execv(argv[2], argv + 2);
        fprintf(stderr, "zestall-bench-rusage: exec %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int st;
    struct rusage ru;
    pid_t w;
    do {
        w = wait4(pid, &st, 0, &ru);
    } while (w < 0 && errno == EINTR);
    if (w < 0) {
        perror("zestall-bench-rusage: wait4");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (f == NULL) {
        perror("zestall-bench-rusage: open output");
        return 2;
    }
    fprintf(f, "%ld %ld %ld\n", ru.ru_maxrss, (long)ru.ru_utime.tv_sec * 1000000L + (long)ru.ru_utime.tv_usec,
            (long)ru.ru_stime.tv_sec * 1000000L + (long)ru.ru_stime.tv_usec);
    if (fclose(f) != 0) {
        perror("zestall-bench-rusage: write output");
        return 2;
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 2;
}
