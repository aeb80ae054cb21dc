/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/tick.h>: the governors' questions to the
 * nohz code, answered by the replay from the trace (govshim.c).
 */
#ifndef _SHIM_LINUX_TICK_H
#define _SHIM_LINUX_TICK_H

#include <linux/types.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next);
bool tick_nohz_tick_stopped(void);
bool tick_nohz_idle_got_tick(void);

#endif
