/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h: the helpers every part of the replay uses and that know
 * nothing of traces or idle states: allocation that exits when there is
 * no memory, arrays that double as they fill, the exit for malformed
 * input (FILE:LINE: reason) and strict decimal numbers.
 */
#ifndef _IDLE_LOOP_UTIL_H
#define _IDLE_LOOP_UTIL_H

#include <stddef.h>

#include <linux/types.h>

void *xcalloc(size_t n, size_t size);
void *grow(void *p, size_t *cap, size_t n, size_t size, size_t first);

void fail_set_name(const char *name);
void fail(unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

int parse_u64(const char *s, size_t len, u64 *out);

#endif
