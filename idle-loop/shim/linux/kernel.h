/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/kernel.h>: what the cpuidle governors
 * (drivers/cpuidle/governors/menu.c, teo.c) take from it.
 */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <limits.h>		/* INT_MAX, UINT_MAX */
#include <string.h>		/* memset(), as linux/string.h gives it */
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/init.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#endif
