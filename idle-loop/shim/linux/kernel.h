/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/kernel.h>: what the cpuidle governors
 * (drivers/cpuidle/governors/menu.c, teo.c) and the emulated idle
 * driver's model (drivers/cpuidle/cpuidle-emu-model.c) take from it.
 */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <errno.h>
#include <limits.h>		/* INT_MAX, UINT_MAX */
#include <stdlib.h>		/* strtoull() */
#include <string.h>		/* memset(), as linux/string.h gives it */
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/init.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * lib/kstrtox.c's kstrtou32(): digits only (an optional leading '+', one
 * trailing newline), -EINVAL on anything else, -ERANGE above U32_MAX.
 */
static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	unsigned long long v;
	char *end;

	if (*s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > UINT32_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

#endif
