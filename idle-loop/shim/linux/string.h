/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/string.h>: the C library's functions, and
 * strscpy() as lib/string.c defines it, for the emulated idle driver's
 * model (drivers/cpuidle/cpuidle-emu-model.c).
 */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

#include <string.h>
#include <linux/errno.h>
#include <linux/types.h>

/* Copy with truncation: the length copied, or -E2BIG when truncated. */
static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

#endif
