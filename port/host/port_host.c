/* SPDX-License-Identifier: MIT */
/* port_host.c - qp_port for a hosted POSIX system: stdio console,
 * CLOCK_MONOTONIC in nanoseconds, exit(). */
#define _POSIX_C_SOURCE 199309L
#include "qp_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void qp_port_init(void)
{
}

void qp_port_write(const char *s, unsigned len)
{
    fwrite(s, 1, len, stdout);
}

void qp_port_puts(const char *s)
{
    qp_port_write(s, (unsigned)strlen(s));
}

uint64_t qp_port_ticks64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t qp_port_ticks(void)
{
    return (uint32_t)qp_port_ticks64(); /* wraps every ~4.3 s */
}

uint32_t qp_port_tick_hz(void)
{
    return 1000000000u;
}

/* A hosted program has no cycle counter of its own (perf counters need privileges). */
int qp_port_cycles_running(void)
{
    return 0;
}

uint32_t qp_port_cycles(void)
{
    return 0u;
}

void qp_port_exit(int code)
{
    fflush(stdout);
    exit(code);
}
