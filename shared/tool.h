/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h: what the bench's tools share, guest-image/tools/benchtool.c (in
 * the guest) and perf-scripts/udpgen.c (on the host); both builds take it
 * with -I shared.  num() parses a numeric argument:
 * a positive decimal integer, or one line naming the tool (TOOL, defined
 * before the include) and the argument on stderr and exit status 2.
 */
#ifndef BENCH_TOOL_H
#define BENCH_TOOL_H
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns */
static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long num(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, TOOL ": bad %s '%s' (want a positive integer)\n", what, s);
		exit(2);
	}
	return v;
}
#endif
