/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/ktime.h>: ktime_t is s64 nanoseconds. */
#ifndef _SHIM_LINUX_KTIME_H
#define _SHIM_LINUX_KTIME_H

#include <linux/types.h>
#include <linux/time.h>

typedef s64 ktime_t;

#define KTIME_MAX	((s64)~((u64)1 << 63))

static inline s64 ktime_to_us(const ktime_t kt)
{
	return kt / NSEC_PER_USEC;
}

#endif
