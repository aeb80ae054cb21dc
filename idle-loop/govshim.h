/* SPDX-License-Identifier: GPL-2.0 */
/*
 * govshim.h: what the replay tells the cpuidle governors compiled from the
 * tree (drivers/cpuidle/governors/menu.c, teo.c) when they ask the kernel
 * (shim/linux/tick.h, sched/clock.h, cpuidle.h).  The replay fills
 * shim_answers and shim_cpu before each select() and reflect().
 */
#ifndef _IDLE_LOOP_GOVSHIM_H
#define _IDLE_LOOP_GOVSHIM_H

#include <linux/types.h>
#include <linux/cpuidle.h>
#include <linux/ktime.h>

#define GOV_MAX		4

struct gov_answers {
	u64 now_ns;		/* local_clock() */
	ktime_t sleep_length_ns;/* tick_nohz_get_sleep_length() */
	ktime_t delta_next_ns;	/* ... and its *delta_next (next tick or timer) */
	bool tick_stopped;	/* tick_nohz_tick_stopped() */
	bool got_tick;		/* tick_nohz_idle_got_tick(), cleared when read */
	s64 latency_req_ns;	/* cpuidle_governor_latency_req() */
};

extern struct gov_answers shim_answers;

/* The per-CPU object a governor touched last (shim_percpu_note()). */
extern void *shim_percpu_last;
extern unsigned long shim_percpu_size;

/* The governors registered by their initcalls, in link order. */
extern struct cpuidle_governor *shim_governors[GOV_MAX];
extern int shim_nr_governors;

#endif
