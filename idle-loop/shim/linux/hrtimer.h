/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/hrtimer.h>: menu.c includes it for ktime_t. */
#ifndef _SHIM_LINUX_HRTIMER_H
#define _SHIM_LINUX_HRTIMER_H

#include <linux/ktime.h>

#endif
