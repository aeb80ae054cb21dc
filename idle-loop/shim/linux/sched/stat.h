/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/sched/stat.h>: menu.c uses nothing of it in 6.12.y. */
#ifndef _SHIM_LINUX_SCHED_STAT_H
#define _SHIM_LINUX_SCHED_STAT_H
#endif
