/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/math64.h>: plain C division. */
#ifndef _SHIM_LINUX_MATH64_H
#define _SHIM_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

/* Divides @n in place by a 32-bit @base and yields the remainder. */
#define do_div(n, base) ({					\
	u32 __base = (base);					\
	u32 __rem = (u32)((n) % __base);			\
	(n) = (n) / __base;					\
	__rem; })

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
