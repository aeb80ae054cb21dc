/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h: the trace reader (parse.c): perf script, ftrace / trace-cmd
 * report text or the native synthetic format to struct trace.
 */
#ifndef _IDLE_LOOP_PARSE_H
#define _IDLE_LOOP_PARSE_H

#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

struct parse_opts {
	bool ignore_unknown;	/* --ignore-unknown: skip unknown events */
	bool keep_timer_irqs;	/* --keep-timer-irqs */
};

void trace_read(struct trace *tr, FILE *f, const char *name,
		const struct parse_opts *o);

#endif
