// SPDX-License-Identifier: GPL-2.0
/*
 * util.c: allocation, growing arrays, the malformed-input exit and
 * strict decimal numbers (util.h).  The bottom of the replay: it uses
 * no other file of it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/limits.h>
#include "util.h"

/* The input fail() names: set by the trace reader, "-" for standard input. */
static const char *fail_name = "-";

static void __attribute__((noreturn)) out_of_memory(void)
{
	fprintf(stderr, "replay: out of memory\n");
	exit(1);
}

/* calloc() that exits when there is no memory. */
void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		out_of_memory();
	return p;
}

/*
 * Room for element @n of an array @p of @size-byte elements holding
 * *@cap: doubled when full (@first the first time).  Returns the array.
 */
void *grow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : first;
	p = realloc(p, *cap * size);
	if (!p)
		out_of_memory();
	return p;
}

/* The file that fail() names from now on. */
void fail_set_name(const char *name)
{
	fail_name = name;
}

/*
 * Malformed input at @line of the input: "replay: FILE:LINE: reason"
 * and exit status 1, wherever in the replay it shows.
 */
void fail(unsigned long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "replay: %s:%lu: ", fail_name, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Strict unsigned decimal; rejects empty, signs, junk and overflow. */
int parse_u64(const char *s, size_t len, u64 *out)
{
	u64 v = 0;
	size_t i;

	if (!len || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v > (U64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}
