/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/sched/clock.h>: local_clock() is the trace's time. */
#ifndef _SHIM_LINUX_SCHED_CLOCK_H
#define _SHIM_LINUX_SCHED_CLOCK_H

#include <linux/types.h>

u64 local_clock(void);

#endif
