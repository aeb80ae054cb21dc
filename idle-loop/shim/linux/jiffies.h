/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/jiffies.h>: TICK_NSEC.  The kernel's is a
 * constant of CONFIG_HZ; here it is the replay's tick period (a variable,
 * set from --tick-period-ns or the recorded machine's HZ), so one binary
 * replays traces of kernels built with any HZ.
 */
#ifndef _SHIM_LINUX_JIFFIES_H
#define _SHIM_LINUX_JIFFIES_H

#include <linux/types.h>

extern long shim_tick_nsec;	/* the kernel's TICK_NSEC is a long too */
#define TICK_NSEC	shim_tick_nsec

#endif
