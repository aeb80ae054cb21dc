/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/minmax.h>: min() and max() that evaluate each
 * argument once and, like the kernel's, refuse arguments of different
 * types (the pointer comparison warns, and -Werror makes it an error).
 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define __shim_cmp(x, y, op) ({					\
	__typeof__(x) __x = (x);				\
	__typeof__(y) __y = (y);				\
	(void)(&__x == &__y);					\
	__x op __y ? __x : __y; })

#define min(x, y)	__shim_cmp(x, y, <)
#define max(x, y)	__shim_cmp(x, y, >)
#define min_t(type, x, y)	min((type)(x), (type)(y))
#define max_t(type, x, y)	max((type)(x), (type)(y))

#endif
